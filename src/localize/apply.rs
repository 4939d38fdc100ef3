//! Exact application of hunks to a pre-image, the way `git apply` does it without options:
//! every context and removed line must match byte for byte (no fuzz, no whitespace leniency);
//! a hunk may move from its stated line (the search starts there and widens), hunks apply in
//! order without overlapping, a hunk starting at line 0 or 1 must match at the start of the file
//! and a hunk without trailing context must match at its end.

use super::patch::{Hunk, HunkLine};

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
    /// 0-based index in the pre-image where the header says the hunk's old lines start.
    pub stated: usize,
    /// 0-based index in the pre-image where they were matched.
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

/// The 0-based index where the header says the hunk's old lines start; a hunk without old
/// lines (`@@ -5,0 …`) inserts after line `old_start`.
pub(crate) fn stated_index(hunk: &Hunk<'_>) -> usize {
    if hunk.old_len == 0 {
        hunk.old_start
    } else {
        hunk.old_start.saturating_sub(1)
    }
}

/// Applies `hunks` to `pre` and returns the post-image lines (borrowing `pre` and the patch)
/// with where each hunk went.
pub(crate) fn apply_hunks<'a>(
    pre: &[&'a [u8]],
    hunks: &[Hunk<'a>],
) -> Result<(Vec<&'a [u8]>, Vec<Placement>), HunkMismatch> {
    let mut placements = Vec::with_capacity(hunks.len());
    let mut out: Vec<&'a [u8]> = Vec::with_capacity(pre.len() + 16);
    let mut pos = 0usize;
    let mut offset = 0isize;
    let mut old: Vec<&[u8]> = Vec::new();
    for (index, hunk) in hunks.iter().enumerate() {
        old.clear();
        old.extend(hunk.lines.iter().filter_map(|l| match l {
            HunkLine::Context(s) | HunkLine::Remove(s) => Some(*s),
            HunkLine::Add(_) => None,
        }));
        let stated = stated_index(hunk);
        let expected = (stated as isize + offset).max(0) as usize;
        let match_start = hunk.old_start <= 1;
        let match_end = hunk.trailing_context() == 0;
        let found = find_position(pre, &old, pos, expected, match_start, match_end);
        let Some(at) = found else {
            let reason = if pre.len() < old.len() {
                format!("it needs {} old lines but the file has {}", old.len(), pre.len())
            } else {
                format!(
                    "its {} context and removed lines are not found at or after line {} \
                     (stated line {})",
                    old.len(),
                    pos + 1,
                    hunk.old_start
                )
            };
            return Err(HunkMismatch { hunk: index + 1, patch_line: hunk.patch_line, reason });
        };
        out.extend_from_slice(&pre[pos..at]);
        out.extend(hunk.lines.iter().filter_map(|l| match l {
            HunkLine::Context(s) | HunkLine::Add(s) => Some(*s),
            HunkLine::Remove(_) => None,
        }));
        pos = at + old.len();
        offset = at as isize - stated as isize;
        placements.push(Placement { hunk: index + 1, patch_line: hunk.patch_line, stated, at, fuzz: 0 });
    }
    out.extend_from_slice(&pre[pos..]);
    Ok((out, placements))
}

/// The position (≥ `min`) where `old` matches `pre`, nearest to `expected`.
fn find_position(
    pre: &[&[u8]],
    old: &[&[u8]],
    min: usize,
    expected: usize,
    match_start: bool,
    match_end: bool,
) -> Option<usize> {
    if pre.len() < old.len() {
        return None;
    }
    let max = pre.len() - old.len();
    if min > max {
        return None;
    }
    let matches = |at: usize| pre[at..at + old.len()] == *old;
    if match_start {
        let ok = min == 0 && (!match_end || max == 0) && matches(0);
        return ok.then_some(0);
    }
    if match_end {
        return matches(max).then_some(max);
    }
    let expected = expected.clamp(min, max);
    // Alternate below and above the expected line, nearest first, as git does.
    for distance in 0..=(max - min) {
        let below = expected.checked_sub(distance).filter(|&p| p >= min);
        let above = Some(expected + distance).filter(|&p| p <= max && distance > 0);
        if below.is_none() && above.is_none() {
            break;
        }
        if let Some(p) = below.filter(|&p| matches(p)) {
            return Some(p);
        }
        if let Some(p) = above.filter(|&p| matches(p)) {
            return Some(p);
        }
    }
    None
}
