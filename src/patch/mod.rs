//! The patch model: one parse of a unified or git-style diff that the rest of verdict reads
//! patches through.
//!
//! [`Patch::parse`] never fails. It accepts what datasets and models emit: `diff --git` headers
//! with their extended lines (`new file mode`, `deleted file mode`, `rename from/to`,
//! `copy from/to`, mode changes, `Binary files … differ`, `GIT binary patch` blocks), plain
//! `---`/`+++` sections, text before, between and after sections, quoted paths, and
//! `\ No newline at end of file` markers. It consumes each hunk's body by the counts in its
//! header, so a removed line that looks like a header (`--- x`) stays a hunk line. Paths come
//! back without their `a/`/`b/` prefixes.
//!
//! Two views derive from that one parse:
//! - **the header view**, [`Patch::changes`] and [`changed_files`]: which paths the patch
//!   modifies, creates, deletes or renames, tolerant of anything around or inside the sections
//!   (a damaged hunk does not hide its file). The eval script (test-file restore, files to
//!   remove between apply attempts, test arguments), the flags on candidates that touch tests
//!   and the summary read it;
//! - **the edit view**, [`file_sections`]: each section's raw text and the lines its hunks add,
//!   as tolerant as the header view (a body is read as far as it goes). The suspicious-code
//!   rules read the added lines and the runner-configuration reset applies each section alone;
//! - **the hunk view**, [`Patch::read`]: every section with its hunks as one program of the
//!   container's apply chain reads them — [`Dialect::Git`] for `git apply`, [`Dialect::Gnu`]
//!   for GNU `patch` — or why that program refuses the patch (the `hunks` module lists where
//!   the two differ). Paths are checked to stay inside the repository. The localizer reads it.

mod hunks;
mod paths;
#[cfg(test)]
mod tests;

use serde::Serialize;

pub use hunks::{Dialect, Hunk, HunkLine};
pub use paths::safe_path;

use hunks::{finish, parse_header, walk};
use paths::{chomp, header_path, split_git_header, strip_prefixes, text, unquote};

/// What a patch does to one file (the header view).
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

/// The files a patch touches, in order of appearance. Text that contains no file section at all
/// yields an empty list (the caller decides whether that is an empty or a garbage patch).
pub fn changed_files(patch: &str) -> Vec<FileChange> {
    Patch::parse(patch).changes()
}

/// One line a hunk adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddedLine<'p> {
    /// 1-based line number in the post-image, as the hunk header states it.
    pub line: usize,
    /// The line without its `+` and line ending.
    pub text: &'p str,
}

/// One file's part of a patch (the edit view): what it does to the file, its raw text (from
/// its first header line to the next section's), and the lines its hunks add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionEdits<'p> {
    pub change: FileChange,
    pub text: &'p str,
    pub added: Vec<AddedLine<'p>>,
}

/// The edit view of `patch`: its sections in order, each with its text and added lines. Hunk
/// bodies are read by their header's counts, so a removed line that reads `--- x` or an added
/// one that reads `+++ y` is never taken for a file header.
pub fn file_sections(patch: &str) -> Vec<SectionEdits<'_>> {
    Patch::parse(patch).edits()
}

/// What a file section does to its file, as its headers say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionKind {
    Modify,
    /// `new file mode`, or a `/dev/null` old side.
    Create,
    /// `deleted file mode`, or a `/dev/null` new side.
    Delete,
    Rename,
    Copy,
}

/// Why a patch cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The program refuses the patch text itself (a damaged hunk, an unreadable header).
    #[error("the patch does not parse at line {line}: {reason}")]
    Parse {
        /// 1-based line in the patch.
        line: usize,
        reason: String,
        /// The file of the section the line belongs to, when there is one.
        path: Option<String>,
    },
    #[error("the patch contains no file changes (no `diff --git` or `---`/`+++` section)")]
    Empty,
    #[error("the patch touches `{path}`, which is outside the repository: {reason}")]
    UnsafePath { path: String, reason: String },
}

/// One file section with its hunks as one dialect reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSection<'p> {
    pub kind: SectionKind,
    /// The path before the patch (`None` for a created file).
    pub old_path: Option<String>,
    /// The path after the patch (`None` for a deleted file).
    pub new_path: Option<String>,
    /// Whether the section has a `diff --git` header (`git apply` treats headerless sections
    /// differently when the file is missing).
    pub git: bool,
    pub binary: bool,
    pub mode_change: bool,
    pub hunks: Vec<Hunk<'p>>,
    /// 1-based line where the section starts in the patch.
    pub patch_line: usize,
}

impl FileSection<'_> {
    /// The path that best names the section's file.
    pub fn path(&self) -> &str {
        self.new_path.as_deref().or(self.old_path.as_deref()).unwrap_or("")
    }
}

/// A hunk as found by the structural parse: where its header and body are.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RawHunk {
    /// 0-based line of the `@@` header.
    header: usize,
    /// The header's ranges, `None` when the header does not parse.
    ranges: Option<(usize, usize, usize, usize)>,
}

/// A file section as found by the structural parse.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Section {
    kind: SectionKind,
    old_path: Option<String>,
    new_path: Option<String>,
    git: bool,
    binary: bool,
    mode_change: bool,
    /// 0-based line of the section's first header line.
    start: usize,
    /// GNU patch strips the CRs of this section's lines (its first hunk header ends in CRLF).
    strip_cr: bool,
    /// A header only GNU patch reads as one: indented `---`/`+++` lines (it skips leading
    /// blanks), or a `+++` line without its `---`. To `git apply` it is text, and the hunks
    /// below it have no header.
    gnu_only: bool,
    hunks: Vec<RawHunk>,
    /// Why the header cannot be read (0-based line, reason).
    header_error: Option<(usize, String)>,
}

impl Section {
    /// A section with `---`/`+++` headers (or a lone `+++`) and no `diff --git` line: no
    /// extended header, so no binary or mode change; its hunks are read after.
    fn plain(
        kind: SectionKind,
        old_path: Option<String>,
        new_path: Option<String>,
        start: usize,
        gnu_only: bool,
        header_error: Option<(usize, String)>,
    ) -> Section {
        Section {
            kind,
            old_path,
            new_path,
            git: false,
            binary: false,
            mode_change: false,
            start,
            strip_cr: false,
            gnu_only,
            hunks: Vec::new(),
            header_error,
        }
    }
}

/// A line without the blanks GNU patch skips before a header (spaces, tabs and `X`s).
fn unindent(line: &[u8]) -> &[u8] {
    let start = line.iter().position(|&b| !matches!(b, b' ' | b'\t' | b'X')).unwrap_or(line.len());
    &line[start..]
}

/// A parsed patch.
pub struct Patch<'p> {
    text: &'p str,
    lines: Vec<&'p [u8]>,
    /// Every line with a CR before its `\n` removed, when the patch has any CR (GNU patch's
    /// reading of sections whose `+++` line ends in CRLF).
    stripped: Vec<Box<[u8]>>,
    sections: Vec<Section>,
    /// 0-based lines of hunk headers outside any section.
    orphans: Vec<usize>,
}

impl<'p> Patch<'p> {
    /// Finds the file sections of `text` and the hunks of each.
    pub fn parse(text: &'p str) -> Patch<'p> {
        let lines: Vec<&[u8]> = text.as_bytes().split_inclusive(|&b| b == b'\n').collect();
        let stripped = if text.contains('\r') {
            lines
                .iter()
                .map(|l| match l.strip_suffix(b"\r\n") {
                    Some(body) => [body, b"\n"].concat().into_boxed_slice(),
                    None => Box::from(*l),
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut patch = Patch { text, lines, stripped, sections: Vec::new(), orphans: Vec::new() };
        patch.scan();
        patch
    }

    /// The files the patch touches, in order (the header view). Sections whose header names no
    /// file are left out.
    pub fn changes(&self) -> Vec<FileChange> {
        self.sections
            .iter()
            .filter(|s| s.old_path.is_some() || s.new_path.is_some())
            .map(|s| FileChange { old: s.old_path.clone(), new: s.new_path.clone(), binary: s.binary })
            .collect()
    }

    /// The edit view ([`file_sections`]): sections that name a file, with their text and the
    /// lines their hunks add, read as GNU patch reads a body and as far as the body goes.
    pub fn edits(&self) -> Vec<SectionEdits<'p>> {
        let offset = |i: usize| -> usize {
            self.lines.get(i).map_or(self.text.len(), |l| l.as_ptr() as usize - self.text.as_ptr() as usize)
        };
        let ends: Vec<usize> = self.sections.iter().skip(1).map(|s| offset(s.start)).chain([self.text.len()]).collect();
        let mut out = Vec::with_capacity(self.sections.len());
        for (section, end) in self.sections.iter().zip(ends) {
            if section.old_path.is_none() && section.new_path.is_none() {
                continue;
            }
            let mut added = Vec::new();
            for raw in &section.hunks {
                let Some((_, old_len, new_start, new_len)) = raw.ranges else { continue };
                let lines = &self.lines;
                let body =
                    walk(lines.len(), |i| lines[i], |i| lines[i], raw.header + 1, old_len, new_len, Dialect::Gnu);
                let mut next = new_start.max(1);
                for line in body.lines {
                    match line {
                        HunkLine::Context(_) => next += 1,
                        HunkLine::Remove(_) => {}
                        HunkLine::Add(bytes) => {
                            let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
                            let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
                            // Lines are cut at `\n` and past a one-byte `+`, so they stay UTF-8.
                            let text = std::str::from_utf8(bytes).unwrap_or_default();
                            added.push(AddedLine { line: next, text });
                            next += 1;
                        }
                    }
                }
            }
            out.push(SectionEdits {
                change: FileChange {
                    old: section.old_path.clone(),
                    new: section.new_path.clone(),
                    binary: section.binary,
                },
                text: &self.text[offset(section.start)..end],
                added,
            });
        }
        out
    }

    /// Every file section with its hunks as `dialect` reads them, in patch order, or why that
    /// program refuses the patch.
    pub fn read(&self, dialect: Dialect) -> Result<Vec<FileSection<'_>>, PatchError> {
        if dialect == Dialect::Git {
            let headless = self.sections.iter().filter(|s| s.gnu_only).filter_map(|s| s.hunks.first());
            if let Some(line) = self.orphans.iter().copied().chain(headless.map(|h| h.header)).min() {
                return Err(PatchError::Parse {
                    line: line + 1,
                    reason: format!(
                        "a hunk without a file header (`{}`): `git apply` refuses the patch",
                        text(self.lines[line])
                    ),
                    path: None,
                });
            }
        }
        let mut out = Vec::with_capacity(self.sections.len());
        for section in self.sections.iter().filter(|s| dialect == Dialect::Gnu || !s.gnu_only) {
            let path = section.new_path.clone().or_else(|| section.old_path.clone());
            if let Some((line, reason)) = &section.header_error {
                return Err(PatchError::Parse { line: line + 1, reason: reason.clone(), path });
            }
            let mut hunks = Vec::with_capacity(section.hunks.len());
            for raw in &section.hunks {
                let patch_line = raw.header + 1;
                let parse_error = |reason: String| PatchError::Parse { line: patch_line, reason, path: path.clone() };
                let Some((old_start, old_len, new_start, new_len)) = raw.ranges else {
                    return Err(parse_error(format!("malformed hunk header `{}`", text(self.lines[raw.header]))));
                };
                let strip = dialect == Dialect::Gnu && section.strip_cr;
                let body = self.walk(raw.header + 1, old_len, new_len, dialect, strip);
                let lines = finish(body, dialect, patch_line).map_err(parse_error)?;
                hunks.push(Hunk { old_start, old_len, new_start, new_len, lines, patch_line });
            }
            let mut file = FileSection {
                kind: section.kind,
                old_path: section.old_path.clone(),
                new_path: section.new_path.clone(),
                git: section.git,
                binary: section.binary,
                mode_change: section.mode_change,
                hunks,
                patch_line: section.start + 1,
            };
            for p in [&mut file.old_path, &mut file.new_path].into_iter().flatten() {
                *p = safe_path(p)?;
            }
            out.push(file);
        }
        if out.is_empty() {
            return Err(PatchError::Empty);
        }
        Ok(out)
    }

    fn walk(&self, start: usize, old_len: usize, new_len: usize, dialect: Dialect, strip: bool) -> hunks::Body<'_> {
        let raw = |i: usize| self.lines[i];
        let line = |i: usize| if strip { &*self.stripped[i] } else { self.lines[i] };
        walk(self.lines.len(), raw, line, start, old_len, new_len, dialect)
    }

    /// The structural pass: sections, their hunks, and hunks outside any section.
    fn scan(&mut self) {
        let mut i = 0;
        while let Some(&line) = self.lines.get(i) {
            if line.starts_with(b"diff --git ") {
                i = self.git_section(i);
            } else if unindent(line).starts_with(b"--- ")
                && self.lines.get(i + 1).is_some_and(|l| unindent(l).starts_with(b"+++ "))
                && self.lines.get(i + 2).is_some_and(|l| l.starts_with(b"@@ -"))
            {
                // `git apply` takes `---`/`+++` for a header only when a hunk follows, and only
                // unindented; GNU patch skips leading blanks.
                i = self.plain_section(i);
            } else if unindent(line).starts_with(b"+++ ")
                && self.lines.get(i + 1).is_some_and(|l| l.starts_with(b"@@ -"))
            {
                // A `+++` line without its `---`: GNU patch takes the file from it.
                i = self.plus_only_section(i);
            } else if line.starts_with(b"@@ -") && parse_header(chomp(line)).is_some() {
                // A hunk outside any section: `git apply` refuses the patch; GNU patch skips
                // the line and reads on line by line, so its body is not consumed.
                self.orphans.push(i);
                i += 1;
            } else {
                // Text before, between or after sections (commit messages, blank lines, a
                // format-patch signature) is ignored, as both programs ignore it.
                i += 1;
            }
        }
    }

    /// A `diff --git` section starting at line `start`; returns the first line after it.
    fn git_section(&mut self, start: usize) -> usize {
        let header = text(self.lines[start]);
        let mut section = Section {
            kind: SectionKind::Modify,
            old_path: None,
            new_path: None,
            git: true,
            binary: false,
            mode_change: false,
            start,
            strip_cr: false,
            gnu_only: false,
            hunks: Vec::new(),
            header_error: None,
        };
        let header_paths = split_git_header(&header["diff --git ".len()..]);
        if header_paths.is_none() {
            section.header_error = Some((start, format!("cannot read the paths in `{header}`")));
        }
        let (mut rename_from, mut rename_to, mut copy_from, mut copy_to) = (None, None, None, None);
        let mut minus_plus: Option<(Option<String>, Option<String>)> = None;
        let (mut created, mut deleted) = (false, false);

        let mut i = start + 1;
        while let Some(&line) = self.lines.get(i) {
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
                while self.lines.get(i).is_some_and(|l| !l.starts_with(b"diff --git ")) {
                    i += 1;
                }
                break;
            } else if t.starts_with(b"--- ") {
                let Some(plus) = self.lines.get(i + 1).filter(|l| l.starts_with(b"+++ ")) else {
                    section.header_error.get_or_insert((i, "a `---` line is not followed by a `+++` line".into()));
                    i += 1;
                    break;
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
            (None, ..) => match header_paths {
                Some((old, new)) => {
                    let (old, new) = strip_prefixes(Some(old), Some(new));
                    (if created { None } else { old }, if deleted { None } else { new })
                }
                None => (None, None),
            },
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
            section.header_error.get_or_insert((start, "the section names no file".into()));
        }
        let index = self.sections.len();
        self.sections.push(section);
        self.hunks(i, index)
    }

    /// A `---`/`+++` section without a git header, starting at line `start`.
    /// A section whose header is a lone `+++` line at `start` (GNU patch only).
    fn plus_only_section(&mut self, start: usize) -> usize {
        let plus = text(unindent(self.lines[start]));
        let (_, new) = strip_prefixes(None, header_path(&plus[4..]));
        let header_error = new.is_none().then(|| (start, "the `+++` line names no file".to_string()));
        let index = self.sections.len();
        self.sections.push(Section::plain(SectionKind::Modify, new.clone(), new, start, true, header_error));
        self.hunks(start + 1, index)
    }

    fn plain_section(&mut self, start: usize) -> usize {
        let indented = [start, start + 1]
            .iter()
            .any(|&i| !self.lines[i].starts_with(b"--- ") && !self.lines[i].starts_with(b"+++ "));
        let minus = text(unindent(self.lines[start]));
        let plus = text(unindent(self.lines[start + 1]));
        let (old, new) = strip_prefixes(header_path(&minus[4..]), header_path(&plus[4..]));
        let (kind, header_error) = match (&old, &new) {
            (None, None) => (SectionKind::Modify, Some((start, "both sides of the section are /dev/null".to_string()))),
            (None, Some(_)) => (SectionKind::Create, None),
            (Some(_), None) => (SectionKind::Delete, None),
            (Some(o), Some(n)) if o != n => (SectionKind::Rename, None),
            _ => (SectionKind::Modify, None),
        };
        let index = self.sections.len();
        self.sections.push(Section::plain(kind, old, new, start, indented, header_error));
        self.hunks(start + 2, index)
    }

    /// Reads consecutive hunks from line `i` into the section `index`; returns the first line
    /// after them. Bodies are walked as GNU patch
    /// reads them, the more lenient of the two programs, so that a body either program accepts
    /// is consumed whole.
    fn hunks(&mut self, mut i: usize, index: usize) -> usize {
        // GNU patch decides whether to strip CRs at a section's first hunk header.
        let strip = self.lines.get(i).is_some_and(|l| l.starts_with(b"@@ ") && l.ends_with(b"\r\n"));
        self.sections[index].strip_cr = strip;
        while let Some(&line) = self.lines.get(i) {
            if !line.starts_with(b"@@ ") {
                break;
            }
            let ranges = parse_header(chomp(line));
            let next = match ranges {
                Some((_, old_len, _, new_len)) => self.walk(i + 1, old_len, new_len, Dialect::Gnu, strip).next,
                None => i + 1,
            };
            self.sections[index].hunks.push(RawHunk { header: i, ranges });
            i = next.max(i + 1);
        }
        i
    }
}
