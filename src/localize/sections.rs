//! Applying a whole patch to the base snapshot: every file section in order (modify, create,
//! copy, delete, rename), first as `git apply` would (`apply`) and, when that refuses the patch,
//! as `patch --fuzz=N` would (`lenient`), the last step of verdict's apply chain. Records where
//! each hunk went, so the result says whether the patch applied exactly, with offsets, or only
//! with fuzz.

use std::collections::{HashMap, HashSet};

use super::apply::{apply_hunks, split_lines, HunkMismatch, Placement};
use super::lenient::apply_hunks_lenient;
use super::locate::SnapshotCache;
use super::patch::{FileSection, SectionKind};
use super::{AppliedWith, FileNote, LocateError, Snapshot};

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

/// Applies the patch as `git apply` would, and when that fails on a file, the whole patch again
/// as `patch --fuzz=max_fuzz` would (the container's chain applies the whole patch with each
/// tool in turn). When both fail, the error is `patch`'s.
pub(super) fn apply_chain(
    sections: &[FileSection<'_>],
    base: &dyn Snapshot,
    cache: &mut SnapshotCache,
    max_fuzz: usize,
) -> Result<Applied, LocateError> {
    match apply_sections(sections, base, cache, Mode::Strict) {
        Ok(files) => Ok(Applied { files, strict_error: None, max_fuzz }),
        Err(strict @ LocateError::DoesNotApply { .. }) => {
            let files = apply_sections(sections, base, cache, Mode::Lenient { max_fuzz })?;
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
        if let Some(LocateError::DoesNotApply { path, reason }) = &self.strict_error {
            notes.push(FileNote {
                path: path.clone(),
                reason: format!(
                    "`git apply` refuses the patch here ({reason}); the whole patch was applied \
                     as `patch --fuzz={}` applies it",
                    self.max_fuzz
                ),
            });
        }
        for file in &self.files {
            let moved: Vec<String> = file.placements.iter().filter(|p| !p.is_exact()).map(describe).collect();
            if moved.is_empty() {
                continue;
            }
            let how = if self.strict_error.is_some() {
                format!("as `patch --fuzz={}` places them", self.max_fuzz)
            } else {
                "away from their stated lines, as `git apply` allows".to_string()
            };
            notes.push(FileNote {
                path: file.origin.clone().unwrap_or_else(|| file.path.clone()),
                reason: format!("hunks applied {how}: {}", moved.join("; ")),
            });
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
    sections: &[FileSection<'_>],
    base: &dyn Snapshot,
    cache: &mut SnapshotCache,
) -> Result<Vec<Working>, LocateError> {
    apply_sections(sections, base, cache, Mode::Strict)
}

/// Applies every section in order and returns the touched files in first-appearance order.
fn apply_sections(
    sections: &[FileSection<'_>],
    base: &dyn Snapshot,
    cache: &mut SnapshotCache,
    mode: Mode,
) -> Result<Vec<Working>, LocateError> {
    let mut files: Vec<Working> = Vec::new();
    // Current path → index into `files` for files that exist after the sections so far.
    let mut live: HashMap<String, usize> = HashMap::new();
    // Base paths the patch has deleted or renamed away.
    let mut gone: HashSet<String> = HashSet::new();

    // A file that must exist: either live already or present at the base.
    fn existing(
        path: &str,
        files: &mut Vec<Working>,
        live: &mut HashMap<String, usize>,
        gone: &HashSet<String>,
        base: &dyn Snapshot,
        cache: &mut SnapshotCache,
    ) -> Result<usize, LocateError> {
        if let Some(&i) = live.get(path) {
            return Ok(i);
        }
        cache.load(path, base)?;
        let Some(contents) = cache.contents(path).filter(|_| !gone.contains(path)) else {
            return Err(does_not_apply(path, "the file does not exist at the base commit"));
        };
        files.push(Working {
            origin: Some(path.to_string()),
            path: path.to_string(),
            contents: Some(contents.to_vec()),
            binary: false,
            mode_change: false,
            renamed: false,
            placements: Vec::new(),
        });
        live.insert(path.to_string(), files.len() - 1);
        Ok(files.len() - 1)
    }

    let apply =
        |path: &str, contents: &[u8], section: &FileSection<'_>| -> Result<(Vec<u8>, Vec<Placement>), LocateError> {
            if section.hunks.is_empty() {
                return Ok((contents.to_vec(), Vec::new()));
            }
            let lines = split_lines(contents);
            let applied = match mode {
                Mode::Strict => apply_hunks(&lines, &section.hunks),
                Mode::Lenient { max_fuzz } => apply_hunks_lenient(&lines, &section.hunks, max_fuzz),
            };
            let (post, placements) = applied.map_err(|m: HunkMismatch| {
                does_not_apply(path, format!("hunk {} (patch line {}): {}", m.hunk, m.patch_line, m.reason))
            })?;
            Ok((post.concat(), placements))
        };

    for section in sections {
        match section.kind {
            SectionKind::Modify => {
                let path = section.new_path.as_deref().unwrap_or_default();
                let i = existing(path, &mut files, &mut live, &gone, base, cache)?;
                let file = &mut files[i];
                file.mode_change |= section.mode_change;
                if section.binary {
                    file.binary = true;
                } else if let Some(contents) = &file.contents {
                    let (post, placements) = apply(path, contents, section)?;
                    file.contents = Some(post);
                    file.placements.extend(placements);
                }
            }
            SectionKind::Create | SectionKind::Copy => {
                let path = section.new_path.as_deref().unwrap_or_default();
                let exists_at_base = !gone.contains(path) && {
                    cache.load(path, base)?;
                    cache.contents(path).is_some()
                };
                if live.contains_key(path) || exists_at_base {
                    return Err(does_not_apply(path, "the patch creates a file that already exists"));
                }
                let source = match (section.kind, section.old_path.as_deref()) {
                    (SectionKind::Copy, Some(from)) => {
                        let i = existing(from, &mut files, &mut live, &gone, base, cache)?;
                        files[i].contents.clone().unwrap_or_default()
                    }
                    _ => Vec::new(),
                };
                let (contents, placements) =
                    if section.binary { (Vec::new(), Vec::new()) } else { apply(path, &source, section)? };
                files.push(Working {
                    origin: None,
                    path: path.to_string(),
                    contents: Some(contents),
                    binary: section.binary,
                    mode_change: false,
                    renamed: false,
                    placements,
                });
                live.insert(path.to_string(), files.len() - 1);
            }
            SectionKind::Delete => {
                let path = section.old_path.as_deref().unwrap_or_default();
                let i = existing(path, &mut files, &mut live, &gone, base, cache)?;
                let file = &mut files[i];
                if !section.binary && !file.binary {
                    let contents = file.contents.as_deref().unwrap_or_default();
                    let (rest, placements) = apply(path, contents, section)?;
                    file.placements.extend(placements);
                    if !rest.is_empty() {
                        return Err(does_not_apply(
                            path,
                            format!("deleting the file leaves {} bytes behind", rest.len()),
                        ));
                    }
                }
                file.contents = None;
                file.binary |= section.binary;
                live.remove(path);
                gone.insert(path.to_string());
            }
            SectionKind::Rename => {
                let from = section.old_path.as_deref().unwrap_or_default();
                let to = section.new_path.as_deref().unwrap_or_default();
                let i = existing(from, &mut files, &mut live, &gone, base, cache)?;
                let exists_at_base = !gone.contains(to) && {
                    cache.load(to, base)?;
                    cache.contents(to).is_some()
                };
                if live.contains_key(to) || exists_at_base {
                    return Err(does_not_apply(to, "the patch renames a file onto one that exists"));
                }
                let file = &mut files[i];
                file.mode_change |= section.mode_change;
                if section.binary {
                    file.binary = true;
                } else if let Some(contents) = &file.contents {
                    let (post, placements) = apply(from, contents, section)?;
                    file.contents = Some(post);
                    file.placements.extend(placements);
                }
                file.renamed = true;
                file.path = to.to_string();
                live.remove(from);
                gone.insert(from.to_string());
                live.insert(to.to_string(), i);
            }
        }
    }
    Ok(files)
}
