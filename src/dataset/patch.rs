//! The file-level shape of a patch: which paths it modifies, creates, deletes or renames.
//!
//! The eval script needs this to restore test files, delete files the test patch creates and
//! turn test files into test arguments; reports need it to flag candidate patches that touch
//! tests. Headers are read here (`diff --git`, `---`/`+++`, `new file mode`,
//! `deleted file mode`, `rename from/to`), and of the hunks only their lines added, for the
//! suspicious-code rules ([`file_sections`]); hunks are applied by git inside the container.

use serde::Serialize;

/// What a patch does to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileChange {
    /// The path before the patch (`None` for a created file).
    pub old: Option<String>,
    /// The path after the patch (`None` for a deleted file).
    pub new: Option<String>,
    /// Whether the change is a binary patch.
    pub binary: bool,
}

impl FileChange {
    /// The path that best names the file: the new path, or the old one for a deletion.
    pub fn path(&self) -> &str {
        self.new.as_deref().or(self.old.as_deref()).unwrap_or("")
    }

    pub fn is_created(&self) -> bool {
        self.old.is_none()
    }
}

/// The files a patch touches, in order of appearance. Text that contains no file header at all
/// yields an empty list (the caller decides whether that is an empty or a garbage patch).
pub fn changed_files(patch: &str) -> Vec<FileChange> {
    file_sections(patch).into_iter().map(|s| s.change).collect()
}

/// One line a hunk adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddedLine<'a> {
    /// 1-based line number in the post-image, as the hunk header states it.
    pub line: usize,
    /// The line without its `+` and line ending.
    pub text: &'a str,
}

/// One file's part of a patch: what it does to the file, its raw text (from its first header
/// line to the next file's), and the lines its hunks add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSection<'a> {
    pub change: FileChange,
    pub text: &'a str,
    pub added: Vec<AddedLine<'a>>,
}

/// [`changed_files`] with each file's text and added lines. Hunk bodies are read by their
/// header's line counts, so a removed line that reads `--- x` or an added one that reads
/// `+++ y` is never taken for a file header.
pub fn file_sections(patch: &str) -> Vec<FileSection<'_>> {
    let mut sections: Vec<FileSection<'_>> = Vec::new();
    // Byte offset where each section starts.
    let mut starts: Vec<usize> = Vec::new();
    let lines: Vec<(usize, &str)> = {
        let mut offset = 0;
        patch
            .split_inclusive('\n')
            .map(|raw| {
                let at = offset;
                offset += raw.len();
                (at, raw.strip_suffix('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).unwrap_or(raw))
            })
            .collect()
    };
    // Whether the current change began with a `diff --git` header (so `---`/`+++` only refine it).
    let mut in_git_header = false;
    // Inside a hunk: old and new lines still to come, and the next post-image line number.
    let mut hunk: Option<(usize, usize, usize)> = None;
    let mut i = 0;
    while i < lines.len() {
        let (at, line) = lines[i];
        i += 1;
        if let Some((old_left, new_left, next)) = hunk.as_mut() {
            let body = match line.as_bytes().first() {
                Some(b' ') | None => {
                    *old_left = old_left.saturating_sub(1);
                    *new_left = new_left.saturating_sub(1);
                    *next += 1;
                    true
                }
                Some(b'-') if *old_left > 0 => {
                    *old_left -= 1;
                    true
                }
                Some(b'+') if *new_left > 0 => {
                    if let Some(s) = sections.last_mut() {
                        s.added.push(AddedLine { line: *next, text: &line[1..] });
                    }
                    *new_left -= 1;
                    *next += 1;
                    true
                }
                Some(b'\\') => true,
                _ => false,
            };
            if *old_left == 0 && *new_left == 0 {
                hunk = None;
            }
            if body {
                continue;
            }
            hunk = None;
        }
        if let Some(rest) = line.strip_prefix("diff --git ") {
            let (old, new) = split_git_header(rest);
            sections.push(FileSection { change: FileChange { old, new, binary: false }, text: "", added: Vec::new() });
            starts.push(at);
            in_git_header = true;
        } else if line.starts_with("new file mode") && in_git_header {
            if let Some(s) = sections.last_mut() {
                s.change.old = None;
            }
        } else if line.starts_with("deleted file mode") && in_git_header {
            if let Some(s) = sections.last_mut() {
                s.change.new = None;
            }
        } else if let Some(p) = line.strip_prefix("rename from ") {
            if let Some(s) = sections.last_mut() {
                s.change.old = Some(unquote(p));
            }
        } else if let Some(p) = line.strip_prefix("rename to ") {
            if let Some(s) = sections.last_mut() {
                s.change.new = Some(unquote(p));
            }
        } else if line.starts_with("GIT binary patch")
            || (line.starts_with("Binary files ") && line.ends_with(" differ"))
        {
            if let Some(s) = sections.last_mut() {
                s.change.binary = true;
            }
        } else if let Some(old) = line.strip_prefix("--- ") {
            let Some(new_line) = lines.get(i).and_then(|(_, l)| l.strip_prefix("+++ ")) else {
                continue;
            };
            let old = header_path(old, "a/");
            let new = header_path(new_line, "b/");
            i += 1;
            if in_git_header {
                // `---`/`+++` after a git header: the header already named the file; only
                // /dev/null sides refine it (git writes them for created and deleted files).
                if let Some(s) = sections.last_mut() {
                    if old.is_none() {
                        s.change.old = None;
                    }
                    if new.is_none() {
                        s.change.new = None;
                    }
                }
                in_git_header = false;
            } else {
                sections.push(FileSection {
                    change: FileChange { old, new, binary: false },
                    text: "",
                    added: Vec::new(),
                });
                starts.push(at);
            }
        } else if line.starts_with("@@") {
            in_git_header = false;
            if !sections.is_empty() {
                hunk = hunk_header(line).map(|(old_len, new_start, new_len)| (old_len, new_len, new_start.max(1)));
                if hunk.is_some_and(|(o, n, _)| o == 0 && n == 0) {
                    hunk = None;
                }
            }
        }
    }
    let ends: Vec<usize> = starts.iter().skip(1).copied().chain(std::iter::once(patch.len())).collect();
    for ((section, start), end) in sections.iter_mut().zip(&starts).zip(ends) {
        section.text = &patch[*start..end];
    }
    sections
}

/// `@@ -a,b +c,d @@ ...` → (b, c, d); a missing count is 1.
fn hunk_header(line: &str) -> Option<(usize, usize, usize)> {
    let mut parts = line.strip_prefix("@@ ")?.split(' ');
    let range = |s: &str| -> Option<(usize, usize)> {
        match s.split_once(',') {
            Some((start, len)) => Some((start.parse().ok()?, len.parse().ok()?)),
            None => Some((s.parse().ok()?, 1)),
        }
    };
    let (_, old_len) = range(parts.next()?.strip_prefix('-')?)?;
    let (new_start, new_len) = range(parts.next()?.strip_prefix('+')?)?;
    Some((old_len, new_start, new_len))
}

/// `a/x b/x` → (x, x). Paths with spaces are ambiguous in this header; the `---`/`+++` lines or
/// rename lines that follow correct them.
fn split_git_header(rest: &str) -> (Option<String>, Option<String>) {
    if rest.starts_with('"') {
        let parts: Vec<&str> = rest.splitn(2, "\" ").collect();
        if parts.len() == 2 {
            let old = unquote(&format!("{}\"", parts[0]));
            let new = unquote(parts[1]);
            return (Some(strip(&old, "a/")), Some(strip(&new, "b/")));
        }
    }
    // Find the split where both halves name the same path, the common case.
    let bytes = rest.as_bytes();
    for (i, _) in rest.match_indices(" b/") {
        let old = &rest[..i];
        let new = &rest[i + 1..];
        if strip(old, "a/") == strip(new, "b/") || i + 1 == bytes.len() {
            return (Some(strip(old, "a/")), Some(strip(new, "b/")));
        }
    }
    match rest.split_once(' ') {
        Some((old, new)) => (Some(strip(old, "a/")), Some(strip(new, "b/"))),
        None => (Some(strip(rest, "a/")), Some(strip(rest, "a/"))),
    }
}

/// A `---`/`+++` path: `/dev/null` is no file; a trailing tab and timestamp are dropped.
fn header_path(raw: &str, prefix: &str) -> Option<String> {
    let raw = raw.split('\t').next().unwrap_or(raw).trim_end();
    if raw == "/dev/null" {
        return None;
    }
    Some(strip(&unquote(raw), prefix))
}

fn strip(path: &str, prefix: &str) -> String {
    path.strip_prefix(prefix).unwrap_or(path).to_string()
}

/// Undoes git's C-style quoting of unusual paths (`"a/sp\303\244ce"`).
fn unquote(s: &str) -> String {
    let Some(inner) = s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) else {
        return s.to_string();
    };
    let mut out = Vec::new();
    let mut chars = inner.bytes().peekable();
    while let Some(b) = chars.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match chars.next() {
            Some(b'n') => out.push(b'\n'),
            Some(b't') => out.push(b'\t'),
            Some(d @ b'0'..=b'7') => {
                let mut v = u32::from(d - b'0');
                for _ in 0..2 {
                    if let Some(&n @ b'0'..=b'7') = chars.peek() {
                        v = v * 8 + u32::from(n - b'0');
                        chars.next();
                    }
                }
                out.push(v as u8);
            }
            Some(other) => out.push(other),
            None => out.push(b'\\'),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modified_created_deleted_renamed() {
        let patch = "\
diff --git a/src/calc.py b/src/calc.py
index 1111111..2222222 100644
--- a/src/calc.py
+++ b/src/calc.py
@@ -1 +1 @@
-a
+b
diff --git a/tests/test_new.py b/tests/test_new.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/tests/test_new.py
@@ -0,0 +1 @@
+x
diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-x
diff --git a/a.py b/b.py
similarity index 100%
rename from a.py
rename to b.py
";
        let files = changed_files(patch);
        assert_eq!(
            files,
            vec![
                FileChange { old: Some("src/calc.py".into()), new: Some("src/calc.py".into()), binary: false },
                FileChange { old: None, new: Some("tests/test_new.py".into()), binary: false },
                FileChange { old: Some("old.txt".into()), new: None, binary: false },
                FileChange { old: Some("a.py".into()), new: Some("b.py".into()), binary: false },
            ]
        );
    }

    #[test]
    fn plain_unified_diff_without_git_header() {
        let patch = "\n--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1 +1 @@\n-a\n+b\n";
        let files = changed_files(patch);
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].path(), "pkg/mod.py");
        assert!(!files[0].is_created());
    }

    #[test]
    fn binary_and_quoted_paths() {
        let patch =
            "diff --git \"a/sp\\303\\244ce.bin\" \"b/sp\\303\\244ce.bin\"\nindex 1..2\nGIT binary patch\nliteral 3\n";
        let files = changed_files(patch);
        assert_eq!(files[0].path(), "späce.bin");
        assert!(files[0].binary);
    }

    #[test]
    fn sections_carry_their_text_and_added_lines() {
        let patch = "\
diff --git a/pkg/a.py b/pkg/a.py
--- a/pkg/a.py
+++ b/pkg/a.py
@@ -1,3 +1,4 @@
 import os
-x = 1
+x = 2
+import _pytest
 y = 3
@@ -10,2 +11,3 @@ def f():
     pass
+    os._exit(0)
 z = 4
diff --git a/b.txt b/b.txt
new file mode 100644
--- /dev/null
+++ b/b.txt
@@ -0,0 +1,2 @@
+one
+two
";
        let sections = file_sections(patch);
        assert_eq!(sections.len(), 2);
        let added: Vec<(usize, &str)> = sections[0].added.iter().map(|a| (a.line, a.text)).collect();
        assert_eq!(added, vec![(2, "x = 2"), (3, "import _pytest"), (12, "    os._exit(0)")]);
        assert!(sections[0].text.starts_with("diff --git a/pkg/a.py"));
        assert!(sections[0].text.ends_with(" z = 4\n"));
        assert!(sections[1].text.starts_with("diff --git a/b.txt"));
        assert!(sections[1].change.is_created());
        assert_eq!(sections[1].added.iter().map(|a| a.text).collect::<Vec<_>>(), ["one", "two"]);
    }

    #[test]
    fn hunk_lines_that_look_like_headers_stay_in_their_hunk() {
        // A removed line `-- x` and an added line `++ y` read `--- x` / `+++ y` in the patch.
        let patch = "\
--- a/notes.md
+++ b/notes.md
@@ -1,2 +1,2 @@
 title
--- x
+++ y
";
        let sections = file_sections(patch);
        assert_eq!(sections.len(), 1, "{sections:?}");
        assert_eq!(sections[0].change.path(), "notes.md");
        assert_eq!(sections[0].added[0].text, "++ y");
    }

    #[test]
    fn garbage_has_no_files() {
        assert!(changed_files("this is not a patch\n\u{0}\u{1}").is_empty());
        assert!(changed_files("").is_empty());
    }
}
