//! Lenient application of hunks, placed the way GNU `patch` 2.7 (Debian bookworm's) places
//! them. verdict's apply chain ends with `patch --batch --fuzz=5`, so a patch that `git apply`
//! refuses may still have been applied in the container; the localizer then applies it this
//! way to get the same post-image.
//!
//! For each hunk of a file, in order (GNU's `locate_hunk`, `patch_match` and `apply_hunk`):
//! - the hunk is looked for at fuzz 0, then 1, … up to the caller's maximum, and never beyond
//!   its own context (the larger of its leading and trailing context counts, `context`);
//! - at fuzz F it ignores its first `F - (context - leading)` and its last
//!   `F - (context - trailing)` context lines; removed lines always match byte for byte. A
//!   negative leading count anchors the hunk to the start of the file when its header says
//!   line 1 (or 0); a negative trailing count anchors it to the end of the file (a hunk with
//!   less trailing than leading context ends the file);
//! - positions are tried nearest first from the stated line shifted by the previous hunk's
//!   offset, the later line first at equal distance; the first match wins, and the next fuzz
//!   level is tried only when no position matches;
//! - a hunk's changes must come after the previous hunk's changes (its compared leading context
//!   may reach back over them, matched against the original lines, as GNU patch 2.7 allows);
//!   a hunk that matches too early fails, as `patch` reports "misordered hunks";
//! - the post-image keeps the file's own context lines (fuzzed ones included), drops the
//!   removed lines and inserts the added ones; a line without its `\n` gets one when file
//!   lines, or added lines that no context line follows, come after it (as `patch` writes
//!   them).
//!
//! - when the first hunk of a file matches nowhere at some fuzz level but its reverse (added
//!   and removed lines swapped) matches at that level, `patch --batch` takes the whole file
//!   section as reversed ("Reversed (or previously applied) patch detected! Assuming -R.") and
//!   applies every hunk of it reversed.
//!
//! Not modelled: `-l` whitespace leniency (verdict does not pass it) and `git apply --3way`
//! merges.

use super::apply::{stated_index, HunkMismatch, Placement};
use crate::patch::{Hunk, HunkLine};

/// GNU patch's default maximum fuzz (`patch` without `--fuzz`).
pub const DEFAULT_MAX_FUZZ: usize = 2;

/// The old side of one hunk, with its context counts.
struct Pattern<'h> {
    lines: Vec<&'h [u8]>,
    leading: isize,
    trailing: isize,
    context: isize,
}

impl<'h> Pattern<'h> {
    fn new(hunk: &Hunk<'h>) -> Self {
        let lines: Vec<&[u8]> = hunk.old_lines().collect();
        let leading = hunk.leading_context().min(lines.len()) as isize;
        let trailing = hunk.trailing_context().min(lines.len()) as isize;
        Pattern { lines, leading, trailing, context: leading.max(trailing) }
    }

    fn len(&self) -> isize {
        self.lines.len() as isize
    }

    /// Whether the pattern, without its first `skip_start` and last `skip_end` lines, matches
    /// `pre` with its first line at `at`.
    fn matches(&self, pre: &[&[u8]], at: isize, skip_start: isize, skip_end: isize) -> bool {
        let end = self.len() - skip_end;
        (skip_start..end).all(|i| {
            let row = at + i;
            row >= 0
                && usize::try_from(row)
                    .ok()
                    .and_then(|r| pre.get(r))
                    .is_some_and(|line| *line == self.lines[i as usize])
        })
    }
}

/// The search window of one hunk at one fuzz level, 0-based.
struct Window {
    /// The stated position shifted by the previous hunk's offset: tried first.
    guess: isize,
    /// The first line after the previous hunk's changes.
    min: isize,
    /// The last position where the compared lines still fit in the file.
    max: isize,
}

/// Where `pattern` applies at `fuzz`, GNU patch's way, or `None`.
fn locate(
    pre: &[&[u8]],
    pattern: &Pattern<'_>,
    old_start: usize,
    window: &Window,
    frozen: isize,
    fuzz: isize,
) -> Option<isize> {
    let n = pre.len() as isize;
    let len = pattern.len();
    if len == 0 {
        // An empty old side (a pure insertion without context) matches where it is stated.
        return Some(window.guess);
    }
    let prefix_fuzz = fuzz + pattern.leading - pattern.context;
    let suffix_fuzz = fuzz + pattern.trailing - pattern.context;
    if prefix_fuzz < 0 && old_start <= 1 {
        // Fewer leading than trailing context lines at line 1: only the start of the file.
        let room = n - (len - suffix_fuzz) >= 0;
        let ok = frozen <= pattern.leading && room && pattern.matches(pre, 0, 0, suffix_fuzz);
        return ok.then_some(0);
    }
    let prefix_fuzz = prefix_fuzz.max(0);
    if suffix_fuzz < 0 {
        // Fewer trailing than leading context lines: only the end of the file.
        let at = n - len;
        let ok = at >= 0 && at >= window.min && pattern.matches(pre, at, prefix_fuzz, 0);
        return ok.then_some(at);
    }
    // GNU patch 2.7's search, literally: offsets grow from the guess, the later position
    // first. When the guess lies before `min` (the previous hunk moved further than this one's
    // header says), its loop also tries positions between twice the guess minus `min` and
    // `min`, so the leading context may reach back over the previous hunk's changes.
    let (guess, min, max) = (window.guess, window.min, window.max);
    let max_pos = max - guess;
    let max_neg = guess - min;
    let min_offset = if max_pos < 0 {
        guess - max
    } else if max_neg < 0 {
        guess - min
    } else {
        0
    };
    // Only positions from `-len` to `n` can match; skipping offsets whose two positions both
    // lie outside keeps a header with absurd line numbers from costing billions of steps.
    let limit = max_pos.max(max_neg);
    let mut spans =
        [(-len - guess, n - guess), (guess - n, guess + len)].map(|(from, to)| (from.max(min_offset), to.min(limit)));
    spans.sort_unstable();
    let mut next = min_offset;
    for (from, to) in spans {
        for offset in from.max(next)..=to {
            let later = (offset <= max_pos).then_some(guess + offset);
            let earlier = (offset <= max_neg).then_some(guess - offset);
            let found =
                [later, earlier].into_iter().flatten().find(|&at| pattern.matches(pre, at, prefix_fuzz, suffix_fuzz));
            if found.is_some() {
                return found;
            }
        }
        next = next.max(to + 1);
    }
    None
}

/// A file section applied as `patch` applies it.
pub(crate) struct LenientApplied<'a> {
    pub lines: Vec<&'a [u8]>,
    pub placements: Vec<Placement>,
    /// Whether `patch` took the section as reversed and applied every hunk undone.
    pub reversed: bool,
}

/// Applies `hunks` to `pre` the way `patch --batch --fuzz=max_fuzz` does and returns the
/// post-image lines with where each hunk went. `probe_reverse` lets a first hunk that matches
/// nowhere be tried reversed, as `patch` does for a file it has not already taken as reversed.
pub(crate) fn apply_hunks_lenient<'a>(
    pre: &[&'a [u8]],
    hunks: &[Hunk<'a>],
    max_fuzz: usize,
    probe_reverse: bool,
) -> Result<LenientApplied<'a>, HunkMismatch> {
    let n = pre.len() as isize;
    let mut out: Vec<&'a [u8]> = Vec::with_capacity(pre.len() + 16);
    let mut placements = Vec::with_capacity(hunks.len());
    // Lines of `pre` before this index are copied to `out` or removed.
    let mut copied = 0usize;
    let mut offset = 0isize;
    let max_fuzz = isize::try_from(max_fuzz).unwrap_or(isize::MAX);
    // The section's hunks undone, once `patch` took the section as reversed.
    let mut undone: Option<Vec<Hunk<'a>>> = None;
    for index in 0..hunks.len() {
        let frozen = copied as isize;
        let window_at = |pattern: &Pattern<'_>, stated: usize, fuzz: isize| Window {
            guess: stated as isize + offset,
            min: frozen,
            max: n - (pattern.len() - (fuzz + pattern.trailing - pattern.context)),
        };
        let mut found = None;
        {
            let hunk = undone.as_ref().map_or(&hunks[index], |u| &u[index]);
            let pattern = Pattern::new(hunk);
            let stated = stated_index(hunk);
            for fuzz in 0..=max_fuzz.min(pattern.context) {
                if let Some(at) =
                    locate(pre, &pattern, hunk.old_start, &window_at(&pattern, stated, fuzz), frozen, fuzz)
                {
                    found = Some((at, fuzz, false));
                    break;
                }
                if index == 0 && probe_reverse {
                    // "Reversed (or previously applied) patch detected! Assuming -R."
                    let reverse = hunk.reversed();
                    let pattern = Pattern::new(&reverse);
                    let window = window_at(&pattern, stated_index(&reverse), fuzz);
                    if let Some(at) = locate(pre, &pattern, reverse.old_start, &window, frozen, fuzz) {
                        found = Some((at, fuzz, true));
                        break;
                    }
                }
            }
        }
        if matches!(found, Some((_, _, true))) {
            undone = Some(hunks.iter().map(Hunk::reversed).collect());
        }
        let hunk = undone.as_ref().map_or(&hunks[index], |u| &u[index]);
        let mismatch = |reason: String| HunkMismatch { hunk: index + 1, patch_line: hunk.patch_line, reason };
        let pattern = Pattern::new(hunk);
        let stated = stated_index(hunk);
        let Some((at, fuzz, _)) = found else {
            let top_fuzz = max_fuzz.min(pattern.context);
            return Err(mismatch(not_found_reason(&pattern, hunk, &window_at(&pattern, stated, 0), n, top_fuzz)));
        };

        // Copy the file up to each change; context lines stay the file's own.
        let misordered = {
            let last_change = copied;
            move || {
                mismatch(format!(
                    "its context matches at line {}, but its changes would land before the end \
                     of the previous hunk's changes (line {last_change}); `patch` refuses \
                     misordered hunks",
                    at + 1
                ))
            }
        };
        // `patch` ends an unterminated output line before copied lines, and before added
        // lines that no context line follows (it writes those after the hunk's old lines).
        let last_context = hunk.lines.iter().rposition(|l| matches!(l, HunkLine::Context(_)));
        let mut row = at;
        for (i, line) in hunk.lines.iter().enumerate() {
            match line {
                HunkLine::Context(_) => row += 1,
                HunkLine::Remove(_) | HunkLine::Add(_) => {
                    let end = usize::try_from(row).map_err(|_| misordered())?;
                    if end < copied {
                        return Err(misordered());
                    }
                    let end = end.min(pre.len());
                    emit(&mut out, &pre[copied..end]);
                    copied = end;
                    match line {
                        HunkLine::Add(s) if last_context.is_some_and(|c| c > i) => out.push(s),
                        HunkLine::Add(s) => emit(&mut out, &[*s]),
                        _ => {
                            // A removed line was matched, so it lies inside the file.
                            copied = (copied + 1).min(pre.len());
                            row += 1;
                        }
                    }
                }
            }
        }
        offset = at - stated as isize;
        placements.push(Placement {
            hunk: index + 1,
            patch_line: hunk.patch_line,
            stated,
            at: usize::try_from(at).unwrap_or_default(),
            fuzz: usize::try_from(fuzz).unwrap_or_default(),
        });
    }
    emit(&mut out, &pre[copied..]);
    Ok(LenientApplied { lines: out, placements, reversed: undone.is_some() })
}

/// Appends `lines`, first ending the output's last line when it lacks its `\n` (the file's last
/// line, or an added line marked `\ No newline at end of file`), as `patch` does.
fn emit<'a>(out: &mut Vec<&'a [u8]>, lines: &[&'a [u8]]) {
    if !lines.is_empty() && out.last().is_some_and(|l| !l.ends_with(b"\n")) {
        out.push(b"\n");
    }
    out.extend_from_slice(lines);
}

/// Why a hunk matched nowhere, at any fuzz up to `top_fuzz`.
fn not_found_reason(pattern: &Pattern<'_>, hunk: &Hunk<'_>, window: &Window, n: isize, top_fuzz: isize) -> String {
    let leniency = if top_fuzz == 0 {
        if pattern.context == 0 {
            " (it has no context lines to ignore)".to_string()
        } else {
            " (fuzz 0)".to_string()
        }
    } else {
        format!(", not even ignoring up to {top_fuzz} of its context lines at either end (fuzz {top_fuzz})")
    };
    let lines = pattern.len();
    let (min, max) = (window.min.max(0) + 1, window.max + 1);
    if pattern.len() > n {
        return format!("it needs {lines} old lines but the file has {n}{leniency}");
    }
    if min > max {
        return format!(
            "its {lines} context and removed lines do not fit between line {min} and the end \
             of the file ({n} lines){leniency}"
        );
    }
    format!(
        "its {lines} context and removed lines match nowhere between lines {min} and {max} \
         (stated line {}){leniency}",
        hunk.old_start
    )
}
