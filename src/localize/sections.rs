//! Applying a whole patch to the base snapshot the way verdict's apply chain does: first as
//! `git apply` reads and applies it (`apply`), and when that refuses the patch, the whole patch
//! again as `patch --batch --fuzz=N` reads and applies it (`lenient`). Each file section in
//! order (modify, create, copy, delete, rename), with each program's rules for files that are
//! missing or already there. Records where each hunk went, so the result says whether the patch
//! applied exactly, with offsets, or only with fuzz.
//!
//! Missing and present files, per program:
//! - a section without a `diff --git` header whose one hunk has no old lines (`--- a/x`,
//!   `@@ -0,0 +1,3 @@`) creates a missing file for `git apply`; with a git header the file must
//!   exist. `patch` creates a missing file when the first hunk's old range starts at line 0,
//!   with or without a header;
//! - a patch that creates a file that exists is refused by `git apply`; `patch --batch` takes
//!   it as reversed and deletes the file when its contents are exactly the created lines
//!   ("Not deleting file … as content differs from patch" otherwise, a failure);
//! - a patch that deletes a missing file is refused by `git apply`; `patch --batch` takes it as
//!   reversed and creates the file from the deleted lines. A deletion that leaves lines behind
//!   fails with both.

use std::collections::{HashMap, HashSet};

use super::apply::{apply_hunks, split_lines, HunkMismatch, Placement};
use super::lenient::apply_hunks_lenient;
use super::locate::SnapshotCache;
use super::{AppliedWith, FileNote, LocateError, Snapshot};
use crate::patch::{Dialect, FileSection, Hunk, Patch, SectionKind};

/// A file as the patch leaves it.
pub(super) struct Working {
    /// The pre-image path; `None` for a file the patch creates (or copies).
    pub origin: Option<String>,
    pub path: String,
    /// `None` once deleted.
    pub contents: Option<Vec<u8>>,
    pub binary: bool,
    pub mode_change: bool,
    pub renamed: bool,
    /// Whether `patch` took a section touching this file as reversed.
    pub reversed: bool,
    /// Where each hunk of the sections touching this file went, in patch order.
    pub placements: Vec<Placement>,
}

/// How hunks are placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// As `git apply` without options.
    Strict,
    /// As `patch --batch --fuzz=max_fuzz`.
    Lenient { max_fuzz: usize },
}

/// A patch applied to the snapshot.
pub(super) struct Applied {
    /// The touched files in first-appearance order.
    pub files: Vec<Working>,
    /// Why `git apply` refused the patch, when it was applied leniently instead.
    pub strict_error: Option<LocateError>,
    pub max_fuzz: usize,
}

/// Applies the patch as `git apply` would, and when that refuses it, the whole patch again as
/// `patch --fuzz=max_fuzz` would (the container's chain applies the whole patch with each tool
/// in turn). When both refuse, the error is `patch`'s.
pub(super) fn apply_chain(
    patch: &Patch<'_>,
    base: &dyn Snapshot,
    cache: &mut SnapshotCache,
    max_fuzz: usize,
) -> Result<Applied, LocateError> {
    let strict =
        patch.read(Dialect::Git).map_err(LocateError::from).and_then(|s| apply_sections(&s, base, cache, Mode::Strict));
    match strict {
        Ok(files) => Ok(Applied { files, strict_error: None, max_fuzz }),
        Err(strict @ (LocateError::DoesNotApply { .. } | LocateError::Parse { .. })) => {
            let sections = patch.read(Dialect::Gnu)?;
            let files = apply_sections(&sections, base, cache, Mode::Lenient { max_fuzz })?;
            Ok(Applied { files, strict_error: Some(strict), max_fuzz })
        }
        Err(e) => Err(e),
    }
}

impl Applied {
    /// The most lenient placement any hunk needed.
    pub fn applied_with(&self) -> AppliedWith {
        let placements = || self.files.iter().flat_map(|f| &f.placements);
        if placements().any(|p| p.fuzz > 0) {
            AppliedWith::Fuzz
        } else if self.strict_error.is_some() || placements().any(|p| p.offset() != 0) {
            AppliedWith::Offset
        } else {
            AppliedWith::Exact
        }
    }

    /// Notes on how the patch applied: why `git apply` refused it, and per file the hunks that
    /// did not apply exactly at their stated lines.
    pub fn notes(&self) -> Vec<FileNote> {
        let mut notes = Vec::new();
        if let Some(error) = &self.strict_error {
            let (path, reason) = match error {
                LocateError::DoesNotApply { path, reason } => (path.clone(), reason.clone()),
                other => {
                    let path = self.files.first().map(|f| f.origin.clone().unwrap_or_else(|| f.path.clone()));
                    (path.unwrap_or_default(), other.to_string())
                }
            };
            notes.push(FileNote {
                path,
                reason: format!(
                    "`git apply` refuses the patch here ({reason}); the whole patch was applied as `patch \
                     --fuzz={}` applies it",
                    self.max_fuzz
                ),
            });
        }
        for file in &self.files {
            let name = || file.origin.clone().unwrap_or_else(|| file.path.clone());
            if file.reversed {
                notes.push(FileNote {
                    path: name(),
                    reason: "`patch` took this file's section as reversed (\"Reversed (or previously applied) \
                             patch detected! Assuming -R.\") and applied every hunk undone"
                        .into(),
                });
            }
            let moved: Vec<String> = file.placements.iter().filter(|p| !p.is_exact()).map(describe).collect();
            if moved.is_empty() {
                continue;
            }
            let how = if self.strict_error.is_some() {
                format!("as `patch --fuzz={}` places them", self.max_fuzz)
            } else {
                "away from their stated lines, as `git apply` allows".to_string()
            };
            notes.push(FileNote { path: name(), reason: format!("hunks applied {how}: {}", moved.join("; ")) });
        }
        notes
    }
}

/// `hunk 2 (patch line 14) at line 33: offset +3 lines, fuzz 1`.
fn describe(p: &Placement) -> String {
    let mut parts = Vec::new();
    let offset = p.offset();
    if offset != 0 {
        let plural = if offset.abs() == 1 { "" } else { "s" };
        parts.push(format!("offset {offset:+} line{plural}"));
    }
    if p.fuzz > 0 {
        parts.push(format!("fuzz {}", p.fuzz));
    }
    format!("hunk {} (patch line {}) at line {}: {}", p.hunk, p.patch_line, p.at + 1, parts.join(", "))
}

fn does_not_apply(path: &str, reason: impl Into<String>) -> LocateError {
    LocateError::DoesNotApply { path: path.to_string(), reason: reason.into() }
}

/// Applies every section as `git apply` would, without the lenient fallback.
#[cfg(test)]
pub(super) fn apply_strictly(
    patch: &Patch<'_>,
    base: &dyn Snapshot,
    cache: &mut SnapshotCache,
) -> Result<Vec<Working>, LocateError> {
    let sections = patch.read(Dialect::Git)?;
    apply_sections(&sections, base, cache, Mode::Strict)
}

/// The hunks of one section applied to one file's contents.
struct Outcome {
    contents: Vec<u8>,
    placements: Vec<Placement>,
    reversed: bool,
}

/// Applies `hunks` to `contents` in `mode`; `probe_reverse` as in [`apply_hunks_lenient`].
fn apply_to(
    mode: Mode,
    path: &str,
    contents: &[u8],
    hunks: &[Hunk<'_>],
    probe_reverse: bool,
) -> Result<Outcome, LocateError> {
    if hunks.is_empty() {
        return Ok(Outcome { contents: contents.to_vec(), placements: Vec::new(), reversed: false });
    }
    let lines = split_lines(contents);
    let refused =
        |m: HunkMismatch| does_not_apply(path, format!("hunk {} (patch line {}): {}", m.hunk, m.patch_line, m.reason));
    match mode {
        Mode::Strict => {
            let (post, placements) = apply_hunks(&lines, hunks).map_err(refused)?;
            Ok(Outcome { contents: post.concat(), placements, reversed: false })
        }
        Mode::Lenient { max_fuzz } => {
            let applied = apply_hunks_lenient(&lines, hunks, max_fuzz, probe_reverse).map_err(refused)?;
            Ok(Outcome { contents: applied.lines.concat(), placements: applied.placements, reversed: applied.reversed })
        }
    }
}

/// The files touched so far, by path.
struct Files<'s> {
    list: Vec<Working>,
    /// Current path → index into `list` for files that exist after the sections so far.
    live: HashMap<String, usize>,
    /// Base paths the patch has deleted or renamed away.
    gone: HashSet<String>,
    base: &'s dyn Snapshot,
}

impl Files<'_> {
    /// The file at `path` as the sections so far leave it: live already, or present at the base
    /// (then added to the list). `None` when it does not exist.
    fn find(&mut self, path: &str, cache: &mut SnapshotCache) -> Result<Option<usize>, LocateError> {
        if let Some(&i) = self.live.get(path) {
            return Ok(Some(i));
        }
        if self.gone.contains(path) {
            return Ok(None);
        }
        cache.load(path, self.base)?;
        let Some(contents) = cache.contents(path) else {
            return Ok(None);
        };
        self.list.push(Working {
            origin: Some(path.to_string()),
            path: path.to_string(),
            contents: Some(contents.to_vec()),
            binary: false,
            mode_change: false,
            renamed: false,
            reversed: false,
            placements: Vec::new(),
        });
        self.live.insert(path.to_string(), self.list.len() - 1);
        Ok(Some(self.list.len() - 1))
    }

    fn existing(&mut self, path: &str, cache: &mut SnapshotCache) -> Result<usize, LocateError> {
        self.find(path, cache)?.ok_or_else(|| does_not_apply(path, "the file does not exist at the base commit"))
    }

    /// Whether `path` exists, without adding it to the list.
    fn exists(&self, path: &str, cache: &mut SnapshotCache) -> Result<bool, LocateError> {
        if self.live.contains_key(path) {
            return Ok(true);
        }
        if self.gone.contains(path) {
            return Ok(false);
        }
        cache.load(path, self.base)?;
        Ok(cache.contents(path).is_some())
    }

    fn create(&mut self, path: &str, outcome: Outcome, binary: bool) {
        self.list.push(Working {
            origin: None,
            path: path.to_string(),
            contents: Some(outcome.contents),
            binary,
            mode_change: false,
            renamed: false,
            reversed: outcome.reversed,
            placements: outcome.placements,
        });
        self.live.insert(path.to_string(), self.list.len() - 1);
    }

    fn delete(&mut self, i: usize, path: &str) {
        self.list[i].contents = None;
        self.live.remove(path);
        self.gone.insert(path.to_string());
    }
}

/// The hunks of a section undone.
fn reversed_hunks<'p>(section: &FileSection<'p>) -> Vec<Hunk<'p>> {
    section.hunks.iter().map(Hunk::reversed).collect()
}

/// Applies every section in order and returns the touched files in first-appearance order.
fn apply_sections(
    sections: &[FileSection<'_>],
    base: &dyn Snapshot,
    cache: &mut SnapshotCache,
    mode: Mode,
) -> Result<Vec<Working>, LocateError> {
    let mut files = Files { list: Vec::new(), live: HashMap::new(), gone: HashSet::new(), base };
    let lenient = matches!(mode, Mode::Lenient { .. });
    for section in sections {
        match section.kind {
            SectionKind::Modify => {
                let path = section.new_path.as_deref().unwrap_or_default();
                let Some(i) = files.find(path, cache)? else {
                    // A missing file: created from nothing when the program takes the section
                    // for a creation.
                    let creates = match mode {
                        Mode::Strict => !section.git && section.hunks.len() == 1 && section.hunks[0].old_len == 0,
                        Mode::Lenient { .. } => section.hunks.first().is_some_and(|h| h.old_start == 0),
                    };
                    if !creates {
                        let why = if lenient {
                            "the file does not exist at the base commit (`patch`: can't find file to patch)"
                        } else {
                            "the file does not exist at the base commit"
                        };
                        return Err(does_not_apply(path, why));
                    }
                    let outcome = apply_to(mode, path, b"", &section.hunks, true)?;
                    files.create(path, outcome, section.binary);
                    continue;
                };
                let file = &mut files.list[i];
                file.mode_change |= section.mode_change;
                if section.binary {
                    file.binary = true;
                } else if let Some(contents) = &file.contents {
                    let outcome = apply_to(mode, path, contents, &section.hunks, true)?;
                    file.contents = Some(outcome.contents);
                    file.reversed |= outcome.reversed;
                    file.placements.extend(outcome.placements);
                }
            }
            SectionKind::Create | SectionKind::Copy => {
                let path = section.new_path.as_deref().unwrap_or_default();
                if files.exists(path, cache)? {
                    if !(lenient && section.kind == SectionKind::Create && !section.binary) {
                        return Err(does_not_apply(path, "the patch creates a file that already exists"));
                    }
                    // `patch`: "The next patch would create the file …, which already exists!
                    // Assuming -R." The undone creation must empty the file.
                    let i = files.existing(path, cache)?;
                    let contents = files.list[i].contents.clone().unwrap_or_default();
                    let outcome = apply_to(mode, path, &contents, &reversed_hunks(section), false).map_err(|e| {
                        does_not_apply(
                            path,
                            format!(
                                "the patch creates a file that already exists; `patch` takes it as reversed, and \
                                 undone it does not apply ({e})"
                            ),
                        )
                    })?;
                    if !outcome.contents.is_empty() {
                        return Err(does_not_apply(
                            path,
                            "the patch creates a file that already exists; `patch` takes it as reversed, and \
                             the file holds more than the created lines (not deleting it: content differs \
                             from patch)",
                        ));
                    }
                    let file = &mut files.list[i];
                    file.reversed = true;
                    file.placements.extend(outcome.placements);
                    files.delete(i, path);
                    continue;
                }
                let source = match (section.kind, section.old_path.as_deref()) {
                    (SectionKind::Copy, Some(from)) => {
                        let i = files.existing(from, cache)?;
                        files.list[i].contents.clone().unwrap_or_default()
                    }
                    _ => Vec::new(),
                };
                let outcome = if section.binary {
                    Outcome { contents: Vec::new(), placements: Vec::new(), reversed: false }
                } else {
                    apply_to(mode, path, &source, &section.hunks, section.kind == SectionKind::Create)?
                };
                files.create(path, outcome, section.binary);
            }
            SectionKind::Delete => {
                let path = section.old_path.as_deref().unwrap_or_default();
                let Some(i) = files.find(path, cache)? else {
                    if !lenient || section.binary {
                        return Err(does_not_apply(path, "the file does not exist at the base commit"));
                    }
                    // `patch`: "The next patch would delete the file …, which does not exist!
                    // Assuming -R." The undone deletion creates it.
                    let mut outcome = apply_to(mode, path, b"", &reversed_hunks(section), false)?;
                    outcome.reversed = true;
                    files.create(path, outcome, false);
                    continue;
                };
                let file = &mut files.list[i];
                if !section.binary && !file.binary {
                    let contents = file.contents.as_deref().unwrap_or_default();
                    let outcome = apply_to(mode, path, contents, &section.hunks, true)?;
                    file.placements.extend(outcome.placements);
                    if outcome.reversed {
                        // Taken as reversed, the deletion became an addition of its lines.
                        file.reversed = true;
                        file.contents = Some(outcome.contents);
                        continue;
                    }
                    if !outcome.contents.is_empty() {
                        return Err(does_not_apply(
                            path,
                            format!("deleting the file leaves {} bytes behind", outcome.contents.len()),
                        ));
                    }
                }
                file.binary |= section.binary;
                files.delete(i, path);
            }
            SectionKind::Rename => {
                let from = section.old_path.as_deref().unwrap_or_default();
                let to = section.new_path.as_deref().unwrap_or_default();
                let i = files.existing(from, cache)?;
                if files.exists(to, cache)? {
                    return Err(does_not_apply(to, "the patch renames a file onto one that exists"));
                }
                let file = &mut files.list[i];
                file.mode_change |= section.mode_change;
                if section.binary {
                    file.binary = true;
                } else if let Some(contents) = &file.contents {
                    let outcome = apply_to(mode, from, contents, &section.hunks, true)?;
                    file.contents = Some(outcome.contents);
                    file.reversed |= outcome.reversed;
                    file.placements.extend(outcome.placements);
                }
                file.renamed = true;
                file.path = to.to_string();
                files.live.remove(from);
                files.gone.insert(from.to_string());
                files.live.insert(to.to_string(), i);
            }
        }
    }
    Ok(files.list)
}
