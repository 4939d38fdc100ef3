//! Removes terminal escape sequences (ANSI colour and cursor codes) from console output, so the
//! parsers see the text a person sees.

use std::borrow::Cow;

/// `text` without escape sequences: CSI (`ESC [ … final`), OSC (`ESC ] … BEL` or `ESC \`) and
/// two-byte `ESC x` sequences. Borrows when there is nothing to remove. A sequence cut off by
/// the end of the text is dropped.
pub fn strip_ansi(text: &str) -> Cow<'_, str> {
    let Some(first) = text.find('\x1b') else {
        return Cow::Borrowed(text);
    };
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..first]);
    let mut i = first;
    while i < bytes.len() {
        // `i` is at an ESC byte here.
        let end = escape_end(bytes, i);
        let next = match text[end..].find('\x1b') {
            Some(off) => end + off,
            None => bytes.len(),
        };
        out.push_str(&text[end..next]);
        i = next;
    }
    Cow::Owned(out)
}

/// The index just past the escape sequence that starts at `bytes[start]` (an ESC byte). Always
/// lands on a char boundary: every byte it skips over is ASCII or ends at an ASCII terminator,
/// and a non-ASCII byte stops the sequence before itself.
fn escape_end(bytes: &[u8], start: usize) -> usize {
    let Some(&kind) = bytes.get(start + 1) else {
        return bytes.len();
    };
    match kind {
        b'[' => {
            // Parameters and intermediates are 0x20..=0x3F; the final byte is 0x40..=0x7E.
            let mut j = start + 2;
            while let Some(&b) = bytes.get(j) {
                match b {
                    0x20..=0x3F => j += 1,
                    0x40..=0x7E => return j + 1,
                    // Malformed: drop what was read, keep the offending byte.
                    _ => return j,
                }
            }
            bytes.len()
        }
        b']' => {
            let mut j = start + 2;
            while let Some(&b) = bytes.get(j) {
                match b {
                    0x07 => return j + 1,
                    0x1b if bytes.get(j + 1) == Some(&b'\\') => return j + 2,
                    0x1b => return j,
                    b if b >= 0x80 => j += 1 + continuation_len(&bytes[j + 1..]),
                    _ => j += 1,
                }
            }
            bytes.len()
        }
        0x20..=0x7E => start + 2,
        // ESC followed by a control or non-ASCII byte: drop the ESC alone.
        _ => start + 1,
    }
}

/// How many UTF-8 continuation bytes (0b10xx_xxxx) start `rest`.
fn continuation_len(rest: &[u8]) -> usize {
    rest.iter().take_while(|&&b| b & 0xC0 == 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::strip_ansi;

    #[test]
    fn strips_colour_and_keeps_text() {
        assert_eq!(strip_ansi("\x1b[32mPASSED\x1b[0m a::b"), "PASSED a::b");
        assert_eq!(strip_ansi("\x1b[1;31mERROR\x1b[m] x"), "ERROR] x");
        assert_eq!(strip_ansi("a\x1b]0;title\x07b"), "ab");
        assert_eq!(strip_ansi("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b"), "alinkb");
        assert_eq!(strip_ansi("ünï\x1b[2mcödé\x1b[22m"), "ünïcödé");
        assert!(matches!(strip_ansi("plain"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn truncated_and_odd_sequences_do_not_panic() {
        for s in ["\x1b", "\x1b[", "\x1b[31", "x\x1b]abc", "\x1b\u{e9}", "\x1b[3\u{e9}m", "\x1b]\u{e9}\x1b"] {
            let out = strip_ansi(s);
            assert!(!out.contains('\x1b') || s.ends_with('\x1b'), "{s:?} -> {out:?}");
        }
        assert_eq!(strip_ansi("\x1b\u{e9}"), "\u{e9}");
        assert_eq!(strip_ansi("\x1b[3\u{e9}m"), "\u{e9}m");
    }
}
