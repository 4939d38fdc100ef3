//! Exact application of hunks to a pre-image, the way `git apply` (2.39) does it without
//! options (`apply_one_fragment` and `find_pos` in git's `apply.c`):
//! - each hunk applies to the file as the hunks before it left it, so hunks may come in any
//!   order and may touch lines an earlier hunk wrote;
//! - its context and removed lines must match byte for byte (no fuzz, no whitespace
//!   leniency);
//! - the search starts at the line the hunk's new range states and alternates after and
//!   before it, nearest first, the later line first at equal distance;
//! - a hunk whose old range starts at line 0 or 1 must match at the start of the file, and a
//!   hunk without trailing context at its end.

use crate::patch::Hunk;

/// Splits contents into lines, each keeping its `\n` (the last may lack one).
pub(crate) fn split_lines(contents: &[u8]) -> Vec<&[u8]> {
    contents.split_inclusive(|&b| b == b'\n').collect()
}

/// Why a hunk did not apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HunkMismatch {
    /// 1-based index of the hunk in its file section.
    pub hunk: usize,
    /// 1-based line of the hunk header in the patch.
    pub patch_line: usize,
    pub reason: String,
}

/// Where a hunk was applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placement {
    /// 1-based index of the hunk in its file section.
    pub hunk: usize,
    /// 1-based line of the hunk header in the patch.
    pub patch_line: usize,
    /// 0-based line where the hunk's header says it goes (for `git apply`, in the file as the
    /// earlier hunks left it; for `patch`, in the pre-image).
    pub stated: usize,
    /// 0-based line where it was matched, in the same file.
    pub at: usize,
    /// Context lines ignored at each end to match (0 when every line matched).
    pub fuzz: usize,
}

impl Placement {
    /// Lines between the stated and the actual position (positive: further down).
    pub fn offset(&self) -> isize {
        self.at as isize - self.stated as isize
    }

    /// Whether the hunk applied exactly where its header says, with every line matching.
    pub fn is_exact(&self) -> bool {
        self.fuzz == 0 && self.at == self.stated
    }
}

/// The 0-based index where the header says the hunk's old lines start in the pre-image; a hunk
/// without old lines (`@@ -5,0 …`) inserts after line `old_start`.
pub(crate) fn stated_index(hunk: &Hunk<'_>) -> usize {
    if hunk.old_len == 0 {
        hunk.old_start
    } else {
        hunk.old_start.saturating_sub(1)
    }
}

/// Applies `hunks` to `pre` as `git apply` does and returns the post-image lines (borrowing
/// `pre` and the patch) with where each hunk went.
pub(crate) fn apply_hunks<'a>(
    pre: &[&'a [u8]],
    hunks: &[Hunk<'a>],
) -> Result<(Vec<&'a [u8]>, Vec<Placement>), HunkMismatch> {
    let mut placements = Vec::with_capacity(hunks.len());
    let mut image: Vec<&'a [u8]> = pre.to_vec();
    let mut old: Vec<&'a [u8]> = Vec::new();
    for (index, hunk) in hunks.iter().enumerate() {
        old.clear();
        old.extend(hunk.old_lines());
        let match_beginning = hunk.old_start <= 1;
        let match_end = hunk.trailing_context() == 0;
        let stated = hunk.new_start.saturating_sub(1);
        let Some(at) = find_pos(&image, &old, stated, match_beginning, match_end) else {
            let anchored = match (match_beginning, match_end) {
                (true, true) => " as the whole file (its header says line 1 and it has no trailing context)",
                (true, false) => " at the start of the file (its header says line 1)",
                (false, true) => " at the end of the file (it has no trailing context)",
                (false, false) => "",
            };
            let reason = if image.len() < old.len() {
                format!("it needs {} old lines but the file has {}", old.len(), image.len())
            } else {
                format!(
                    "its {} context and removed lines are not found{anchored} (searched around line {}, as \
                     `git apply` does, in the file as the earlier hunks left it)",
                    old.len(),
                    stated + 1
                )
            };
            return Err(HunkMismatch { hunk: index + 1, patch_line: hunk.patch_line, reason });
        };
        image.splice(at..at + old.len(), hunk.new_lines());
        placements.push(Placement { hunk: index + 1, patch_line: hunk.patch_line, stated, at, fuzz: 0 });
    }
    Ok((image, placements))
}

/// Where `old` matches `image`, searched as git's `find_pos` searches: from `line`, then one
/// line after, one before, two after, …
fn find_pos(image: &[&[u8]], old: &[&[u8]], line: usize, match_beginning: bool, match_end: bool) -> Option<usize> {
    let nr = image.len();
    let line = line.min(nr);
    let matches = |at: usize| {
        if at + old.len() > nr || (match_end && at + old.len() != nr) || (match_beginning && at != 0) {
            return false;
        }
        image[at..at + old.len()] == *old
    };
    if match_beginning || match_end {
        // Only one position can satisfy the anchor (git starts its walk there); a hunk longer
        // than the file matches nowhere.
        let at = if match_beginning { 0 } else { nr.checked_sub(old.len())? };
        return matches(at).then_some(at);
    }
    let (mut backwards, mut forwards, mut current) = (line, line, line);
    let mut i = 0usize;
    loop {
        if matches(current) {
            return Some(current);
        }
        loop {
            if backwards == 0 && forwards == nr {
                return None;
            }
            if i & 1 == 1 {
                if backwards == 0 {
                    i += 1;
                    continue;
                }
                backwards -= 1;
                current = backwards;
            } else {
                if forwards == nr {
                    i += 1;
                    continue;
                }
                forwards += 1;
                current = forwards;
            }
            break;
        }
        i += 1;
    }
}
