//! Parsing unified and git-style diffs into per-file sections with their hunks.
//!
//! Accepts what datasets and models actually emit: `diff --git` headers with their extended
//! lines (`new file mode`, `deleted file mode`, `rename from/to`, `copy from/to`, mode changes,
//! `Binary files … differ`, `GIT binary patch` blocks), plain `---`/`+++` patches without a git
//! header, leading blank lines or commit-message text, quoted paths, and
//! `\ No newline at end of file` markers. Hunk line counts are checked the way `git apply`
//! checks them: a hunk that ends early or runs long does not parse.
//!
//! Paths come back without their `a/`/`b/` prefixes, and every path is checked to stay inside
//! the repository (no absolute paths, no `..`).

use super::LocateError;

/// One line of a hunk. The slice borrows the patch text and includes the line's `\n`, unless
/// the patch marks it `\ No newline at end of file`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HunkLine<'p> {
    Context(&'p [u8]),
    Remove(&'p [u8]),
    Add(&'p [u8]),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hunk<'p> {
    pub old_start: usize,
    pub old_len: usize,
    pub lines: Vec<HunkLine<'p>>,
    /// 1-based line of the `@@` header in the patch.
    pub patch_line: usize,
}

impl Hunk<'_> {
    /// Context lines before the first added or removed line.
    pub fn leading_context(&self) -> usize {
        self.lines.iter().take_while(|l| matches!(l, HunkLine::Context(_))).count()
    }

    /// Context lines after the last added or removed line.
    pub fn trailing_context(&self) -> usize {
        self.lines.iter().rev().take_while(|l| matches!(l, HunkLine::Context(_))).count()
    }
}

/// What a file section does to its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SectionKind {
    Modify,
    Create,
    Delete,
    Rename,
    Copy,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileSection<'p> {
    pub kind: SectionKind,
    /// The path before the patch (`None` for a created file).
    pub old_path: Option<String>,
    /// The path after the patch (`None` for a deleted file).
    pub new_path: Option<String>,
    pub binary: bool,
    pub mode_change: bool,
    pub hunks: Vec<Hunk<'p>>,
    /// 1-based line where the section starts in the patch.
    pub patch_line: usize,
}

/// The patch split into lines, each keeping its `\n`.
struct Lines<'p> {
    lines: Vec<&'p [u8]>,
}

impl<'p> Lines<'p> {
    fn new(text: &'p [u8]) -> Self {
        Lines { lines: text.split_inclusive(|&b| b == b'\n').collect() }
    }

    fn get(&self, i: usize) -> Option<&'p [u8]> {
        self.lines.get(i).copied()
    }
}

/// Strips the line terminator (`\n` or `\r\n`).
fn chomp(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn text(line: &[u8]) -> String {
    String::from_utf8_lossy(chomp(line)).into_owned()
}

fn parse_error(line: usize, reason: impl Into<String>) -> LocateError {
    LocateError::Parse { line, reason: reason.into() }
}

/// Parses a whole patch into its file sections, in patch order.
pub(crate) fn parse_patch(patch: &str) -> Result<Vec<FileSection<'_>>, LocateError> {
    let lines = Lines::new(patch.as_bytes());
    let mut sections = Vec::new();
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        if line.starts_with(b"diff --git ") {
            let (section, next) = parse_git_section(&lines, i)?;
            sections.push(section);
            i = next;
        } else if line.starts_with(b"--- ") && lines.get(i + 1).is_some_and(|l| l.starts_with(b"+++ ")) {
            let (section, next) = parse_plain_section(&lines, i)?;
            sections.push(section);
            i = next;
        } else {
            // Text before, between or after sections (commit messages, blank lines, a
            // format-patch signature) is ignored, as `git apply` ignores it.
            i += 1;
        }
    }
    if sections.is_empty() {
        return Err(LocateError::Empty);
    }
    Ok(sections)
}

/// A `diff --git` section starting at line `start`. Returns the section and the index of the
/// first line after it.
fn parse_git_section<'p>(lines: &Lines<'p>, start: usize) -> Result<(FileSection<'p>, usize), LocateError> {
    let header_line = start + 1;
    let header = text(lines.get(start).unwrap_or_default());
    let (header_old, header_new) = split_git_header(&header["diff --git ".len()..])
        .ok_or_else(|| parse_error(header_line, format!("cannot read the paths in `{header}`")))?;

    let mut section = FileSection {
        kind: SectionKind::Modify,
        old_path: None,
        new_path: None,
        binary: false,
        mode_change: false,
        hunks: Vec::new(),
        patch_line: header_line,
    };
    let (mut rename_from, mut rename_to, mut copy_from, mut copy_to) = (None, None, None, None);
    let mut minus_plus: Option<(Option<String>, Option<String>)> = None;
    let mut created = false;
    let mut deleted = false;

    let mut i = start + 1;
    while let Some(line) = lines.get(i) {
        let t = chomp(line);
        let value = |prefix: &str| text(&t[prefix.len()..]);
        if t.starts_with(b"diff --git ") || t.starts_with(b"@@ ") {
            break;
        } else if t.starts_with(b"old mode ") || t.starts_with(b"new mode ") {
            section.mode_change = true;
        } else if t.starts_with(b"new file mode ") {
            created = true;
        } else if t.starts_with(b"deleted file mode ") {
            deleted = true;
        } else if t.starts_with(b"rename from ") {
            rename_from = Some(unquote(&value("rename from ")));
        } else if t.starts_with(b"rename to ") {
            rename_to = Some(unquote(&value("rename to ")));
        } else if t.starts_with(b"copy from ") {
            copy_from = Some(unquote(&value("copy from ")));
        } else if t.starts_with(b"copy to ") {
            copy_to = Some(unquote(&value("copy to ")));
        } else if t.starts_with(b"similarity index ")
            || t.starts_with(b"dissimilarity index ")
            || t.starts_with(b"index ")
        {
        } else if t.starts_with(b"Binary files ") && t.ends_with(b" differ") {
            section.binary = true;
        } else if t == b"GIT binary patch" {
            section.binary = true;
            // Skip the literal/delta blocks up to the next section.
            i += 1;
            while lines.get(i).is_some_and(|l| !l.starts_with(b"diff --git ")) {
                i += 1;
            }
            break;
        } else if t.starts_with(b"--- ") {
            let Some(plus) = lines.get(i + 1).filter(|l| l.starts_with(b"+++ ")) else {
                return Err(parse_error(i + 1, "a `---` line is not followed by a `+++` line"));
            };
            minus_plus = Some(strip_prefixes(header_path(&value("--- ")), header_path(&text(&plus[4..]))));
            i += 2;
            break;
        } else {
            // End of the extended header (a header-only section: mode change, pure rename,
            // empty new file).
            break;
        }
        i += 1;
    }

    // Paths: the ---/+++ lines win, then rename/copy lines, then the diff --git line.
    let (old, new) = match (minus_plus, &rename_from, &rename_to, &copy_from, &copy_to) {
        (Some((old, new)), ..) => (old, new),
        (None, Some(from), Some(to), ..) => (Some(from.clone()), Some(to.clone())),
        (None, _, _, Some(from), Some(to)) => (Some(from.clone()), Some(to.clone())),
        (None, ..) => {
            let (old, new) = strip_prefixes(Some(header_old), Some(header_new));
            (if created { None } else { old }, if deleted { None } else { new })
        }
    };
    section.old_path = old;
    section.new_path = new;
    if copy_from.is_some() && copy_to.is_some() {
        section.kind = SectionKind::Copy;
    } else if created || section.old_path.is_none() {
        section.kind = SectionKind::Create;
        section.old_path = None;
    } else if deleted || section.new_path.is_none() {
        section.kind = SectionKind::Delete;
        section.new_path = None;
    } else if section.old_path != section.new_path {
        section.kind = SectionKind::Rename;
    }
    if section.old_path.is_none() && section.new_path.is_none() {
        return Err(parse_error(header_line, "the section names no file"));
    }
    check_paths(&mut section)?;

    let next = parse_hunks(lines, i, &mut section)?;
    Ok((section, next))
}

/// A `---`/`+++` section without a git header, starting at line `start`.
fn parse_plain_section<'p>(lines: &Lines<'p>, start: usize) -> Result<(FileSection<'p>, usize), LocateError> {
    let minus = text(lines.get(start).unwrap_or_default());
    let plus = text(lines.get(start + 1).unwrap_or_default());
    let (old, new) = strip_prefixes(header_path(&minus[4..]), header_path(&plus[4..]));
    let kind = match (&old, &new) {
        (None, None) => return Err(parse_error(start + 1, "both sides of the section are /dev/null")),
        (None, Some(_)) => SectionKind::Create,
        (Some(_), None) => SectionKind::Delete,
        (Some(o), Some(n)) if o != n => SectionKind::Rename,
        _ => SectionKind::Modify,
    };
    let mut section = FileSection {
        kind,
        old_path: old,
        new_path: new,
        binary: false,
        mode_change: false,
        hunks: Vec::new(),
        patch_line: start + 1,
    };
    check_paths(&mut section)?;
    let next = parse_hunks(lines, start + 2, &mut section)?;
    Ok((section, next))
}

/// Reads consecutive hunks starting at line `i`; returns the first line after them.
fn parse_hunks<'p>(lines: &Lines<'p>, mut i: usize, section: &mut FileSection<'p>) -> Result<usize, LocateError> {
    while let Some(line) = lines.get(i) {
        if !line.starts_with(b"@@ ") {
            break;
        }
        let patch_line = i + 1;
        let (old_start, old_len, new_len) = parse_hunk_header(chomp(line))
            .ok_or_else(|| parse_error(patch_line, format!("malformed hunk header `{}`", text(line))))?;
        let mut hunk = Hunk { old_start, old_len, lines: Vec::new(), patch_line };
        let (mut old_left, mut new_left) = (old_len, new_len);
        i += 1;
        while old_left > 0 || new_left > 0 {
            let Some(line) = lines.get(i) else {
                return Err(parse_error(
                    patch_line,
                    format!(
                        "the hunk ends early: {old_left} old and {new_left} new lines missing at the end of the patch"
                    ),
                ));
            };
            let (first, rest) = match line.split_first() {
                Some((&b'\n', _)) => (b' ', &b"\n"[..]),
                Some((&b'\r', _)) if line == b"\r\n" => (b' ', line),
                Some((&first, rest)) => (first, rest),
                None => (b' ', &b""[..]),
            };
            let entry = match first {
                b' ' if old_left > 0 && new_left > 0 => {
                    old_left -= 1;
                    new_left -= 1;
                    HunkLine::Context(rest)
                }
                b'-' if old_left > 0 => {
                    old_left -= 1;
                    HunkLine::Remove(rest)
                }
                b'+' if new_left > 0 => {
                    new_left -= 1;
                    HunkLine::Add(rest)
                }
                b'\\' => {
                    drop_final_newline(&mut hunk, i + 1)?;
                    i += 1;
                    continue;
                }
                _ => {
                    return Err(parse_error(
                        i + 1,
                        format!(
                            "the hunk at line {patch_line} does not match its header: \
                             {old_left} old and {new_left} new lines were still expected"
                        ),
                    ))
                }
            };
            hunk.lines.push(entry);
            i += 1;
        }
        if lines.get(i).is_some_and(|l| l.starts_with(b"\\")) {
            drop_final_newline(&mut hunk, i + 1)?;
            i += 1;
        }
        section.hunks.push(hunk);
    }
    Ok(i)
}

/// Applies a `\ No newline at end of file` marker to the hunk's last line.
fn drop_final_newline(hunk: &mut Hunk<'_>, line: usize) -> Result<(), LocateError> {
    let Some(last) = hunk.lines.last_mut() else {
        return Err(parse_error(line, "`\\ No newline at end of file` before any hunk line"));
    };
    let (HunkLine::Context(s) | HunkLine::Remove(s) | HunkLine::Add(s)) = last;
    *s = s.strip_suffix(b"\n").unwrap_or(s);
    Ok(())
}

/// `@@ -a[,b] +c[,d] @@ …` → (a, b, d).
fn parse_hunk_header(line: &[u8]) -> Option<(usize, usize, usize)> {
    let line = std::str::from_utf8(line).ok()?;
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |r: &str| -> Option<(usize, usize)> {
        match r.split_once(',') {
            Some((start, len)) => Some((start.parse().ok()?, len.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (old_start, old_len) = range(old)?;
    let (_, new_len) = range(new)?;
    Some((old_start, old_len, new_len))
}

/// The path on a `---`/`+++` line: unquoted, without a trailing tab and timestamp, `None` for
/// `/dev/null`.
fn header_path(raw: &str) -> Option<String> {
    let raw = raw.trim_end_matches(['\r', '\n']);
    let path =
        if raw.starts_with('"') { unquote(raw) } else { raw.split('\t').next().unwrap_or(raw).trim_end().to_string() };
    (path != "/dev/null").then_some(path)
}

/// Strips git's `a/` and `b/` prefixes when both sides carry theirs (or one side is absent).
fn strip_prefixes(old: Option<String>, new: Option<String>) -> (Option<String>, Option<String>) {
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
fn split_git_header(rest: &str) -> Option<(String, String)> {
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
fn unquote(s: &str) -> String {
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

/// Checks and normalizes both paths of a section.
fn check_paths(section: &mut FileSection<'_>) -> Result<(), LocateError> {
    for path in [&mut section.old_path, &mut section.new_path].into_iter().flatten() {
        *path = safe_path(path)?;
    }
    Ok(())
}

/// A path relative to the repository root, or an error when it could leave the repository.
pub(crate) fn safe_path(path: &str) -> Result<String, LocateError> {
    let unsafe_path = |reason: &str| LocateError::UnsafePath { path: path.to_string(), reason: reason.to_string() };
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
