//! The file-level shape of a patch: which paths it modifies, creates, deletes or renames.
//!
//! The eval script needs this to restore test files, delete files the test patch creates and
//! turn test files into test arguments; reports need it to flag candidate patches that touch
//! tests. Only headers are read here (`diff --git`, `---`/`+++`, `new file mode`,
//! `deleted file mode`, `rename from/to`); hunks are applied by git inside the container.

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
    let mut changes: Vec<FileChange> = Vec::new();
    let mut lines = patch.lines().peekable();
    // Whether the current change began with a `diff --git` header (so `---`/`+++` only refine it).
    let mut in_git_header = false;
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            let (old, new) = split_git_header(rest);
            changes.push(FileChange { old, new, binary: false });
            in_git_header = true;
        } else if line.starts_with("new file mode") && in_git_header {
            if let Some(c) = changes.last_mut() {
                c.old = None;
            }
        } else if line.starts_with("deleted file mode") && in_git_header {
            if let Some(c) = changes.last_mut() {
                c.new = None;
            }
        } else if let Some(p) = line.strip_prefix("rename from ") {
            if let Some(c) = changes.last_mut() {
                c.old = Some(unquote(p));
            }
        } else if let Some(p) = line.strip_prefix("rename to ") {
            if let Some(c) = changes.last_mut() {
                c.new = Some(unquote(p));
            }
        } else if line.starts_with("GIT binary patch")
            || (line.starts_with("Binary files ") && line.ends_with(" differ"))
        {
            if let Some(c) = changes.last_mut() {
                c.binary = true;
            }
        } else if let Some(old) = line.strip_prefix("--- ") {
            let Some(new_line) = lines.peek().and_then(|l| l.strip_prefix("+++ ")) else {
                continue;
            };
            let old = header_path(old, "a/");
            let new = header_path(new_line, "b/");
            lines.next();
            if in_git_header {
                // `---`/`+++` after a git header: the header already named the file; only
                // /dev/null sides refine it (git writes them for created and deleted files).
                if let Some(c) = changes.last_mut() {
                    if old.is_none() {
                        c.old = None;
                    }
                    if new.is_none() {
                        c.new = None;
                    }
                }
                in_git_header = false;
            } else {
                changes.push(FileChange { old, new, binary: false });
            }
        } else if line.starts_with("@@") {
            in_git_header = false;
        }
    }
    changes
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
    fn garbage_has_no_files() {
        assert!(changed_files("this is not a patch\n\u{0}\u{1}").is_empty());
        assert!(changed_files("").is_empty());
    }
}
