//! Paths in patch headers: git's C-style quoting, the two paths of a `diff --git` line, the
//! path on a `---`/`+++` line, git's `a/`/`b/` prefixes, and the check that a path stays inside
//! the repository.

use super::PatchError;

/// Strips the line terminator (`\n` or `\r\n`).
pub(super) fn chomp(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// A header line as text, without its terminator.
pub(super) fn text(line: &[u8]) -> String {
    String::from_utf8_lossy(chomp(line)).into_owned()
}

/// The path on a `---`/`+++` line: unquoted, without a trailing tab and timestamp, `None` for
/// `/dev/null`.
pub(super) fn header_path(raw: &str) -> Option<String> {
    let raw = raw.trim_end_matches(['\r', '\n']);
    let path =
        if raw.starts_with('"') { unquote(raw) } else { raw.split('\t').next().unwrap_or(raw).trim_end().to_string() };
    (path != "/dev/null").then_some(path)
}

/// Strips git's `a/` and `b/` prefixes when both sides carry theirs (or one side is absent).
pub(super) fn strip_prefixes(old: Option<String>, new: Option<String>) -> (Option<String>, Option<String>) {
    let old_ok = old.as_deref().is_none_or(|p| p.starts_with("a/"));
    let new_ok = new.as_deref().is_none_or(|p| p.starts_with("b/"));
    if old_ok && new_ok {
        (old.map(|p| p[2..].to_string()), new.map(|p| p[2..].to_string()))
    } else {
        (old, new)
    }
}

/// Splits the rest of a `diff --git` line into its two paths (with prefixes). For unquoted
/// paths with spaces, the split that gives two equal names wins, as git does.
pub(super) fn split_git_header(rest: &str) -> Option<(String, String)> {
    let rest = rest.trim_end_matches(['\r', '\n']);
    if rest.starts_with('"') {
        let end = quoted_end(rest)?;
        let old = unquote(&rest[..end]);
        let new = rest[end..].trim_start();
        return Some((old, unquote(new)));
    }
    if let Some(pos) = rest.find(" \"") {
        return Some((rest[..pos].to_string(), unquote(&rest[pos + 1..])));
    }
    let candidates: Vec<usize> = rest.match_indices(' ').map(|(i, _)| i).collect();
    for &pos in &candidates {
        let (old, new) = (&rest[..pos], &rest[pos + 1..]);
        if old.get(2..).is_some() && old.get(2..) == new.get(2..) {
            return Some((old.to_string(), new.to_string()));
        }
    }
    let pos = rest.find(" b/").or_else(|| candidates.first().copied())?;
    Some((rest[..pos].to_string(), rest[pos + 1..].to_string()))
}

/// The byte index just past the closing quote of a C-quoted string starting at 0.
fn quoted_end(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Undoes git's C-style quoting (`"a/f\303\266o"`); unquoted text is returned as is.
pub(super) fn unquote(s: &str) -> String {
    let s = s.trim();
    let Some(inner) = s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) else {
        return s.to_string();
    };
    let bytes = inner.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' || i + 1 >= bytes.len() {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let c = bytes[i + 1];
        i += 2;
        match c {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'0'..=b'7' => {
                let mut value = u32::from(c - b'0');
                let mut digits = 1;
                while digits < 3 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                    value = value * 8 + u32::from(bytes[i] - b'0');
                    i += 1;
                    digits += 1;
                }
                out.push(u8::try_from(value & 0xff).unwrap_or(b'?'));
            }
            other => out.push(other),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A path relative to the repository root, or an error when it could leave the repository.
pub fn safe_path(path: &str) -> Result<String, PatchError> {
    let unsafe_path = |reason: &str| PatchError::UnsafePath { path: path.to_string(), reason: reason.to_string() };
    if path.is_empty() {
        return Err(unsafe_path("the path is empty"));
    }
    if path.starts_with('/') || path.starts_with('\\') {
        return Err(unsafe_path("the path is absolute"));
    }
    if path.len() > 1 && path.as_bytes()[1] == b':' && path.as_bytes()[0].is_ascii_alphabetic() {
        return Err(unsafe_path("the path starts with a drive letter"));
    }
    if path.contains('\0') {
        return Err(unsafe_path("the path contains a NUL byte"));
    }
    let mut parts = Vec::new();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => return Err(unsafe_path("the path climbs out with `..`")),
            ".git" if parts.is_empty() => return Err(unsafe_path("the path is inside the .git directory")),
            _ => parts.push(part),
        }
    }
    if parts.is_empty() {
        return Err(unsafe_path("the path names no file"));
    }
    // Keep backslashes inside names as they are; only drop empty and `.` components.
    Ok(path.split('/').filter(|p| !p.is_empty() && *p != ".").collect::<Vec<_>>().join("/"))
}
