//! The localization pipeline for one patch against one snapshot: parse, apply, re-diff, and map
//! changed lines to definitions. Parsers are reused across calls; each pre-image is read and
//! parsed at most once per [`SnapshotCache`], and each post-image is parsed incrementally from
//! its pre-image tree (and not again when another patch yields the same post-image).

use std::collections::{HashMap, HashSet};

use super::apply::split_lines;
use super::lang::Language;
use super::lenient::DEFAULT_MAX_FUZZ;
use super::linediff::{diff_lines, Block};
use super::outline::{Def, Outline};
use super::parse::{Parsed, Parsers, PreImage};
use super::rules::DefKind;
use super::sections::{apply_chain, Working};
use super::{FileNote, LocateError, PatchLocations, Snapshot};
use crate::patch::Patch;

/// Files larger than this are not parsed (file level only, with a note).
pub(crate) const MAX_PARSE_BYTES: usize = 2 * 1024 * 1024;
/// A changed line longer than this marks a minified or generated file: file level only.
pub(crate) const MAX_LINE_BYTES: usize = 4096;

/// Localizes one patch against a snapshot, with fresh parsers and caches. To localize several
/// patches (a gold and a candidate) against the same snapshot, use a [`Localizer`] and one
/// [`SnapshotCache`] so that each file is read and parsed once.
pub fn locate(patch: &str, base: &dyn Snapshot) -> Result<PatchLocations, LocateError> {
    Localizer::new().locate(patch, base, &mut SnapshotCache::default())
}

/// One file as a patch leaves it (see [`apply_patch`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedFile {
    /// The path before the patch; `None` for a file the patch creates or copies.
    pub old_path: Option<String>,
    /// The path after the patch.
    pub new_path: String,
    /// The contents after the patch; `None` when the patch deletes the file or the change is
    /// binary.
    pub contents: Option<Vec<u8>>,
    pub binary: bool,
}

/// Parses `patch` and applies it to `base` as the localizer does (as `git apply` would, else as
/// `patch --fuzz=2` would), without any localization: the files it touches, in
/// first-appearance order, with their post-images.
pub fn apply_patch(patch: &str, base: &dyn Snapshot) -> Result<Vec<AppliedFile>, LocateError> {
    let applied = apply_chain(&Patch::parse(patch), base, &mut SnapshotCache::default(), DEFAULT_MAX_FUZZ)?;
    Ok(applied
        .files
        .into_iter()
        .map(|f| AppliedFile {
            old_path: f.origin,
            new_path: f.path,
            contents: if f.binary { None } else { f.contents },
            binary: f.binary,
        })
        .collect())
}

struct PreEntry {
    contents: Option<Vec<u8>>,
    /// `None` until a parse was needed.
    parsed: Option<Parsed>,
}

/// What one snapshot's files looked like and how they parsed. Belongs to one snapshot: use a
/// new cache for another base commit.
#[derive(Default)]
pub struct SnapshotCache {
    pre: HashMap<String, PreEntry>,
    /// Post-images by pre-image path, reused when another patch yields the same bytes.
    post: HashMap<String, (Vec<u8>, Parsed)>,
}

impl SnapshotCache {
    pub(super) fn load(&mut self, path: &str, base: &dyn Snapshot) -> Result<(), LocateError> {
        if !self.pre.contains_key(path) {
            let contents =
                base.read(path).map_err(|message| LocateError::Snapshot { path: path.to_string(), message })?;
            self.pre.insert(path.to_string(), PreEntry { contents, parsed: None });
        }
        Ok(())
    }

    pub(super) fn contents(&self, path: &str) -> Option<&[u8]> {
        self.pre.get(path).and_then(|e| e.contents.as_deref())
    }
}

/// Localizes patches. Holds one tree-sitter parser per language and the recently parsed files,
/// so reuse one localizer for a whole dataset (instances of one repository share most files).
///
/// A patch is applied as `git apply` would, and when that refuses it, as
/// `patch --fuzz=N` would, with N = [`Localizer::max_fuzz`] ([`DEFAULT_MAX_FUZZ`] unless set
/// with [`Localizer::with_max_fuzz`]).
pub struct Localizer {
    parsers: Parsers,
    max_fuzz: usize,
}

impl Default for Localizer {
    fn default() -> Self {
        Localizer { parsers: Parsers::default(), max_fuzz: DEFAULT_MAX_FUZZ }
    }
}

/// Lists without duplicates, in first-appearance order.
#[derive(Default)]
struct Collector {
    out: PatchLocations,
    seen: HashSet<(u8, String)>,
}

impl Collector {
    fn push(&mut self, list: u8, value: String) {
        if self.seen.insert((list, value.clone())) {
            let target = match list {
                0 => &mut self.out.files,
                1 => &mut self.out.created_files,
                2 => &mut self.out.classes,
                3 => &mut self.out.added_classes,
                4 => &mut self.out.functions,
                _ => &mut self.out.added_functions,
            };
            target.push(value);
        }
    }

    fn note(&mut self, path: &str, reason: impl Into<String>) {
        self.out.notes.push(FileNote { path: path.to_string(), reason: reason.into() });
    }
}

const FILES: u8 = 0;
const CREATED: u8 = 1;
const CLASSES: u8 = 2;
const ADDED_CLASSES: u8 = 3;
const FUNCTIONS: u8 = 4;
const ADDED_FUNCTIONS: u8 = 5;

impl Localizer {
    pub fn new() -> Self {
        Localizer::default()
    }

    /// A localizer that applies patches as leniently as the container's apply chain
    /// (`patch --fuzz=5`), so a candidate that applied there is localized here too.
    pub fn like_the_container() -> Self {
        Localizer::new().with_max_fuzz(5)
    }

    /// The same localizer, applying patches that `git apply` refuses with up to `max_fuzz`
    /// context lines ignored at each end of a hunk, as `patch --fuzz=max_fuzz` does (verdict's
    /// apply chain uses 5; 0 still allows offsets).
    pub fn with_max_fuzz(mut self, max_fuzz: usize) -> Self {
        self.max_fuzz = max_fuzz;
        self
    }

    /// The fuzz the lenient apply step allows at most.
    pub fn max_fuzz(&self) -> usize {
        self.max_fuzz
    }

    /// Localizes `patch` against `base`, reading and parsing files through `cache` (which must
    /// belong to `base`).
    pub fn locate(
        &mut self,
        patch: &str,
        base: &dyn Snapshot,
        cache: &mut SnapshotCache,
    ) -> Result<PatchLocations, LocateError> {
        let applied = apply_chain(&Patch::parse(patch), base, cache, self.max_fuzz)?;
        let mut collector = Collector::default();
        collector.out.applied_with = applied.applied_with();
        collector.out.notes.extend(applied.notes());
        for file in &applied.files {
            self.collect_file(file, cache, &mut collector);
        }
        Ok(collector.out)
    }

    fn collect_file(&mut self, file: &Working, cache: &mut SnapshotCache, out: &mut Collector) {
        let Some(origin) = &file.origin else {
            out.push(CREATED, file.path.clone());
            out.note(&file.path, "created by the patch: listed, not scored");
            return;
        };
        if file.binary {
            out.push(FILES, origin.clone());
            out.note(origin, "binary patch: scored at file level only");
            return;
        }
        let Some(post) = &file.contents else {
            out.push(FILES, origin.clone());
            out.note(origin, "deleted by the patch: scored at file level only");
            return;
        };
        let pre = cache.contents(origin).unwrap_or_default();
        if pre == post.as_slice() {
            if file.renamed || file.mode_change {
                out.push(FILES, origin.clone());
            } else {
                out.note(origin, "the patch leaves this file unchanged: not counted");
            }
            return;
        }
        out.push(FILES, origin.clone());
        self.collect_definitions(origin, &file.path, post, cache, out);
    }

    /// Maps the changed lines of one file to definitions.
    fn collect_definitions(
        &mut self,
        origin: &str,
        post_path: &str,
        post: &[u8],
        cache: &mut SnapshotCache,
        out: &mut Collector,
    ) {
        let (Some(pre_lang), Some(post_lang)) = (Language::from_path(origin), Language::from_path(post_path)) else {
            let name = origin.rsplit('/').next().unwrap_or(origin);
            let kind = name.rsplit_once('.').map_or_else(|| format!("`{name}`"), |(_, e)| format!("`.{e}`"));
            out.note(origin, format!("no grammar for {kind} files: scored at file level only"));
            return;
        };
        let Some(entry) = cache.pre.get_mut(origin) else {
            return;
        };
        let pre: &[u8] = entry.contents.as_deref().unwrap_or_default();
        let pre_lines = split_lines(pre);
        let post_lines = split_lines(post);
        let (blocks, coarse) = diff_lines(&pre_lines, &post_lines);
        if coarse {
            out.note(origin, "too many changes for an exact line diff: the changed region is taken as one block");
        }
        if let Some(reason) = unmappable(&pre_lines, &post_lines, &blocks, pre, post) {
            out.note(origin, format!("{reason}: scored at file level only"));
            return;
        }

        // Pre-image: parsed once per snapshot.
        if entry.parsed.is_none() {
            let Some(parsed) = self.parsers.parse_pre(origin, pre_lang, pre, &pre_lines) else {
                out.note(origin, "tree-sitter gave no tree: scored at file level only");
                return;
            };
            entry.parsed = Some(parsed);
        }
        let Some(pre_parsed) = entry.parsed.as_ref() else {
            return;
        };
        if let Some(error) = &pre_parsed.error {
            out.out.parse_errors.push(FileNote { path: origin.to_string(), reason: format!("pre-image: {error}") });
        }

        // Post-image: incremental from the pre-image tree, reused if already seen.
        let reuse = cache.post.get(origin).is_some_and(|(bytes, _)| bytes.as_slice() == post);
        if !reuse {
            let old = (pre_lang == post_lang).then_some(PreImage {
                tree: &pre_parsed.tree,
                blocks: &blocks,
                lines: &pre_lines,
            });
            let Some(parsed) = self.parsers.parse_post(post_lang, old, post, &post_lines) else {
                out.note(origin, "tree-sitter gave no tree for the post-image: removed lines only");
                return;
            };
            cache.post.insert(origin.to_string(), (post.to_vec(), parsed));
        }
        let Some(entry) = cache.pre.get(origin) else {
            return;
        };
        let Some(pre_parsed) = entry.parsed.as_ref() else {
            return;
        };
        let Some((_, post_parsed)) = cache.post.get(origin) else {
            return;
        };
        if let Some(error) = &post_parsed.error {
            out.out.parse_errors.push(FileNote { path: origin.to_string(), reason: format!("post-image: {error}") });
        }
        let post_outline = &post_parsed.outline;

        // Lines inside a definition that contains a syntax error (or inside an error node)
        // count at file level only; the rest of the file maps as usual.
        let pre_outline = &pre_parsed.outline;
        let mut unmapped = 0usize;
        for block in &blocks {
            for row in block.old.clone() {
                if let Some(def) = clean_owner(pre_outline, row, &mut unmapped) {
                    if let Some(class) = &def.class {
                        out.push(CLASSES, format!("{origin}:{class}"));
                    }
                    if def.kind == DefKind::Function {
                        out.push(FUNCTIONS, format!("{origin}:{}", def.qualified));
                    }
                }
            }
            for row in block.new.clone() {
                if let Some(def) = clean_owner(post_outline, row, &mut unmapped) {
                    if let Some(class) = &def.class {
                        let list = if pre_outline.classes.contains(class) { CLASSES } else { ADDED_CLASSES };
                        out.push(list, format!("{origin}:{class}"));
                    }
                    if def.kind == DefKind::Function {
                        let list =
                            if pre_outline.functions.contains(&def.qualified) { FUNCTIONS } else { ADDED_FUNCTIONS };
                        out.push(list, format!("{origin}:{}", def.qualified));
                    }
                }
            }
        }
        if unmapped > 0 || pre_parsed.error.is_some() || post_parsed.error.is_some() {
            out.note(
                origin,
                format!(
                    "syntax errors: {unmapped} changed lines inside definitions with errors \
                     count at file level only"
                ),
            );
        }
    }
}

/// The definition owning `row` when it parsed cleanly; counts the rows lost to syntax errors
/// (inside a definition with an error, or inside an error node).
fn clean_owner<'o>(outline: &'o Outline, row: usize, unmapped: &mut usize) -> Option<&'o Def> {
    match outline.owner(row) {
        Some(def) if def.clean => Some(def),
        Some(_) => {
            *unmapped += 1;
            None
        }
        None => {
            if outline.in_error(row) {
                *unmapped += 1;
            }
            None
        }
    }
}

/// Why a file's changes cannot be mapped to definitions, if they cannot.
fn unmappable(pre_lines: &[&[u8]], post_lines: &[&[u8]], blocks: &[Block], pre: &[u8], post: &[u8]) -> Option<String> {
    if pre.len() > MAX_PARSE_BYTES || post.len() > MAX_PARSE_BYTES {
        return Some(format!(
            "larger than {} MiB ({} bytes before, {} after)",
            MAX_PARSE_BYTES / (1024 * 1024),
            pre.len(),
            post.len()
        ));
    }
    for block in blocks {
        let long = block
            .old
            .clone()
            .map(|r| (r, pre_lines[r].len(), "before"))
            .chain(block.new.clone().map(|r| (r, post_lines[r].len(), "after")))
            .find(|(_, len, _)| *len > MAX_LINE_BYTES);
        if let Some((row, len, side)) = long {
            return Some(format!(
                "minified or generated: changed line {} ({side} the patch) is {len} bytes long",
                row + 1
            ));
        }
    }
    if std::str::from_utf8(pre).is_err() {
        return Some("the pre-image is not UTF-8".to_string());
    }
    if std::str::from_utf8(post).is_err() {
        return Some("the post-image is not UTF-8".to_string());
    }
    None
}
