//! The fixed line diff between a pre-image and a post-image, which normalizes whatever diff
//! settings produced a patch: common prefix and suffix trimmed, Myers' shortest edit script on
//! the rest, then every group of changed lines that can slide placed where `git diff` places it
//! (`xdl_change_compact` in git's xdiff, with the indent heuristic git uses by default): slid
//! up and down as far as it goes, merged with groups it meets, aligned with a change on the
//! other side when it can be, else put where the indent heuristic scores the two splits it
//! makes best (blank lines and indentation around them). So an inserted method begins with its
//! own decorator rather than taking the next method's. The work is bounded: past
//! [`MAX_EDIT_DISTANCE`] edits the middle becomes one change block and the caller records a
//! note.

use std::ops::Range;

/// Above this many edits (after trimming) the diff stops searching and reports the whole middle
/// as one change. Keeps time at O((N+M)·D) and memory at O(D²) for hostile inputs.
pub(crate) const MAX_EDIT_DISTANCE: usize = 1000;

/// One change: `old` lines of the pre-image replaced by `new` lines of the post-image (either
/// may be empty). Blocks come in file order and never touch each other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block {
    pub old: Range<usize>,
    pub new: Range<usize>,
}

/// The change blocks between `a` and `b`, and whether the bound made the result coarse.
pub(crate) fn diff_lines(a: &[&[u8]], b: &[&[u8]]) -> (Vec<Block>, bool) {
    diff_lines_within(a, b, MAX_EDIT_DISTANCE)
}

/// [`diff_lines`] with another bound on the edit distance.
pub(crate) fn diff_lines_within(a: &[&[u8]], b: &[&[u8]], max_edits: usize) -> (Vec<Block>, bool) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (a_mid, b_mid) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    if a_mid.is_empty() && b_mid.is_empty() {
        return (Vec::new(), false);
    }
    let whole = || Block { old: prefix..prefix + a_mid.len(), new: prefix..prefix + b_mid.len() };
    let ops = if a_mid.is_empty() || b_mid.is_empty() {
        // A pure insertion or deletion: the trimmed middle, placed below like any other group.
        let op = if a_mid.is_empty() { Op::Insert } else { Op::Delete };
        vec![op; a_mid.len() + b_mid.len()]
    } else {
        match myers(a_mid, b_mid, max_edits) {
            Some(ops) => ops,
            None => return (vec![whole()], true),
        }
    };
    // Changed-line marks over the whole files, as xdiff keeps them.
    let mut changed_a = vec![false; a.len()];
    let mut changed_b = vec![false; b.len()];
    let (mut x, mut y) = (prefix, prefix);
    for op in &ops {
        match op {
            Op::Equal => {
                x += 1;
                y += 1;
            }
            Op::Delete => {
                changed_a[x] = true;
                x += 1;
            }
            Op::Insert => {
                changed_b[y] = true;
                y += 1;
            }
        }
    }
    compact(&mut changed_a, &mut changed_b, a);
    compact(&mut changed_b, &mut changed_a, b);
    (blocks_from_marks(&changed_a, &changed_b), false)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Equal,
    Delete,
    Insert,
}

/// Myers' greedy shortest edit script; `None` past `max_edits`.
fn myers(a: &[&[u8]], b: &[&[u8]], max_edits: usize) -> Option<Vec<Op>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max = (n + m).min(max_edits as isize);
    let offset = max + 1;
    let mut v = vec![0isize; 2 * max as usize + 3];
    // trace[d] holds v[k] for k in -d..=d as it was *before* step d.
    let mut trace: Vec<Vec<isize>> = Vec::new();
    let mut final_d = None;
    'outer: for d in 0..=max {
        trace.push(v[(offset - d) as usize..=(offset + d) as usize].to_vec());
        let mut k = -d;
        while k <= d {
            let idx = (offset + k) as usize;
            let mut x = if k == -d || (k != d && v[idx - 1] < v[idx + 1]) { v[idx + 1] } else { v[idx - 1] + 1 };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[idx] = x;
            if x >= n && y >= m {
                final_d = Some(d);
                break 'outer;
            }
            k += 2;
        }
    }
    let final_d = final_d?;

    // Walk back through the trace.
    let mut ops = Vec::with_capacity((n + m) as usize);
    let (mut x, mut y) = (n, m);
    for d in (1..=final_d).rev() {
        let prev = &trace[d as usize];
        let get = |k: isize| prev[(k + d) as usize];
        let k = x - y;
        let prev_k = if k == -d || (k != d && get(k - 1) < get(k + 1)) { k + 1 } else { k - 1 };
        let prev_x = get(prev_k);
        let prev_y = prev_x - prev_k;
        while x > prev_x && y > prev_y {
            ops.push(Op::Equal);
            x -= 1;
            y -= 1;
        }
        if prev_k == k + 1 {
            ops.push(Op::Insert);
        } else {
            ops.push(Op::Delete);
        }
        x = prev_x;
        y = prev_y;
    }
    while x > 0 && y > 0 {
        ops.push(Op::Equal);
        x -= 1;
        y -= 1;
    }
    ops.reverse();
    Some(ops)
}

/// The change blocks that changed-line marks describe: unchanged lines pair up in order.
fn blocks_from_marks(changed_a: &[bool], changed_b: &[bool]) -> Vec<Block> {
    let mut blocks = Vec::new();
    let (mut x, mut y) = (0, 0);
    while x < changed_a.len() || y < changed_b.len() {
        let (x0, y0) = (x, y);
        while x < changed_a.len() && changed_a[x] {
            x += 1;
        }
        while y < changed_b.len() && changed_b[y] {
            y += 1;
        }
        if x > x0 || y > y0 {
            blocks.push(Block { old: x0..x, new: y0..y });
        } else {
            x += 1;
            y += 1;
        }
    }
    blocks
}

/// A group of changed lines in one file (`start..end`, empty between two unchanged lines).
#[derive(Debug, Clone, Copy)]
struct Group {
    start: usize,
    end: usize,
}

/// One file's lines and change marks, as xdiff's `xdfile_t`.
struct Side<'m, 'l> {
    changed: &'m mut [bool],
    lines: &'m [&'l [u8]],
}

impl Side<'_, '_> {
    fn is_changed(&self, i: isize) -> bool {
        usize::try_from(i).ok().and_then(|i| self.changed.get(i)).copied().unwrap_or(false)
    }

    fn first(&self) -> Group {
        let mut g = Group { start: 0, end: 0 };
        while self.is_changed(g.end as isize) {
            g.end += 1;
        }
        g
    }

    fn next(&self, g: &mut Group) -> bool {
        if g.end == self.changed.len() {
            return false;
        }
        g.start = g.end + 1;
        g.end = g.start;
        while self.is_changed(g.end as isize) {
            g.end += 1;
        }
        true
    }

    fn previous(&self, g: &mut Group) -> bool {
        if g.start == 0 {
            return false;
        }
        g.end = g.start - 1;
        g.start = g.end;
        while self.is_changed(g.start as isize - 1) {
            g.start -= 1;
        }
        true
    }

    fn slide_down(&mut self, g: &mut Group) -> bool {
        if g.end < self.changed.len() && self.lines[g.start] == self.lines[g.end] {
            self.changed[g.start] = false;
            self.changed[g.end] = true;
            g.start += 1;
            g.end += 1;
            while self.is_changed(g.end as isize) {
                g.end += 1;
            }
            true
        } else {
            false
        }
    }

    fn slide_up(&mut self, g: &mut Group) -> bool {
        if g.start > 0 && self.lines[g.start - 1] == self.lines[g.end - 1] {
            g.start -= 1;
            g.end -= 1;
            self.changed[g.start] = true;
            self.changed[g.end] = false;
            while self.is_changed(g.start as isize - 1) {
                g.start -= 1;
            }
            true
        } else {
            false
        }
    }
}

/// git's `xdl_change_compact` with `XDF_INDENT_HEURISTIC`: moves the groups of changed lines
/// of one file (`changed` over `lines`) to git's places, keeping the other file's marks in step.
fn compact(changed: &mut [bool], other: &mut [bool], lines: &[&[u8]]) {
    let mut side = Side { changed, lines };
    // The other file's marks only walk along: its lines are never compared here.
    let other = Side { changed: other, lines: &[] };
    let (mut g, mut go) = (side.first(), other.first());
    loop {
        if g.end != g.start {
            let mut groupsize;
            let mut earliest_end;
            let mut end_matching_other;
            loop {
                groupsize = g.end - g.start;
                end_matching_other = None;
                while side.slide_up(&mut g) {
                    other.previous(&mut go);
                }
                earliest_end = g.end;
                if go.end > go.start {
                    end_matching_other = Some(g.end);
                }
                while side.slide_down(&mut g) {
                    other.next(&mut go);
                    if go.end > go.start {
                        end_matching_other = Some(g.end);
                    }
                }
                if groupsize == g.end - g.start {
                    break;
                }
            }
            if g.end == earliest_end {
                // It cannot move.
            } else if end_matching_other.is_some() {
                // Line it up with the last group of changes in the other file it can meet.
                while go.end == go.start {
                    if !side.slide_up(&mut g) {
                        break;
                    }
                    other.previous(&mut go);
                }
            } else {
                let end = g.end as isize;
                let size = groupsize as isize;
                let lowest = (earliest_end as isize).max(end - size - 1).max(end - INDENT_HEURISTIC_MAX_SLIDING);
                let mut best: Option<(isize, Score)> = None;
                for shift in lowest..=end {
                    let mut score = Score::default();
                    score.add(&measure_split(side.lines, shift));
                    score.add(&measure_split(side.lines, shift - size));
                    if best.as_ref().is_none_or(|(_, b)| score.cmp_with(b) <= 0) {
                        best = Some((shift, score));
                    }
                }
                if let Some((best_shift, _)) = best {
                    while g.end as isize > best_shift {
                        if !side.slide_up(&mut g) {
                            break;
                        }
                        other.previous(&mut go);
                    }
                }
            }
        }
        if !side.next(&mut g) {
            break;
        }
        other.next(&mut go);
    }
}

/// How far the indent heuristic slides a group at most.
const INDENT_HEURISTIC_MAX_SLIDING: isize = 100;
/// Indentation past this counts as this (xdiff's `MAX_INDENT`).
const MAX_INDENT: i32 = 200;
/// Blank lines past this many in a row count as this (xdiff's `MAX_BLANKS`).
const MAX_BLANKS: i32 = 20;

/// xdiff's `xget_indent`: the indentation of a line (a tab to the next multiple of 8), or -1
/// for a line of whitespace only.
fn indent(line: &[u8]) -> i32 {
    let mut ret = 0;
    for &c in line {
        if !matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
            return ret;
        }
        if c == b' ' {
            ret += 1;
        } else if c == b'\t' {
            ret += 8 - ret % 8;
        }
        if ret >= MAX_INDENT {
            return MAX_INDENT;
        }
    }
    -1
}

/// What the indent heuristic looks at around a split above line `split`.
struct SplitMeasurement {
    end_of_file: bool,
    indent: i32,
    pre_blank: i32,
    pre_indent: i32,
    post_blank: i32,
    post_indent: i32,
}

fn measure_split(lines: &[&[u8]], split: isize) -> SplitMeasurement {
    let n = lines.len() as isize;
    let line = |i: isize| lines[i as usize];
    let (end_of_file, own) = if split >= n { (true, -1) } else { (false, indent(line(split))) };
    let mut m =
        SplitMeasurement { end_of_file, indent: own, pre_blank: 0, pre_indent: -1, post_blank: 0, post_indent: -1 };
    let mut i = split - 1;
    while i >= 0 {
        m.pre_indent = indent(line(i));
        if m.pre_indent != -1 {
            break;
        }
        m.pre_blank += 1;
        if m.pre_blank == MAX_BLANKS {
            m.pre_indent = 0;
            break;
        }
        i -= 1;
    }
    let mut i = split + 1;
    while i < n {
        m.post_indent = indent(line(i));
        if m.post_indent != -1 {
            break;
        }
        m.post_blank += 1;
        if m.post_blank == MAX_BLANKS {
            m.post_indent = 0;
            break;
        }
        i += 1;
    }
    m
}

/// xdiff's `split_score`: smaller is better.
#[derive(Debug, Clone, Copy, Default)]
struct Score {
    effective_indent: i32,
    penalty: i32,
}

impl Score {
    /// xdiff's `score_add_split`, with its empirically chosen weights.
    fn add(&mut self, m: &SplitMeasurement) {
        const START_OF_FILE_PENALTY: i32 = 1;
        const END_OF_FILE_PENALTY: i32 = 21;
        const TOTAL_BLANK_WEIGHT: i32 = -30;
        const POST_BLANK_WEIGHT: i32 = 6;
        const RELATIVE_INDENT_PENALTY: i32 = -4;
        const RELATIVE_INDENT_WITH_BLANK_PENALTY: i32 = 10;
        const RELATIVE_OUTDENT_PENALTY: i32 = 24;
        const RELATIVE_OUTDENT_WITH_BLANK_PENALTY: i32 = 17;
        const RELATIVE_DEDENT_PENALTY: i32 = 23;
        const RELATIVE_DEDENT_WITH_BLANK_PENALTY: i32 = 17;
        if m.pre_indent == -1 && m.pre_blank == 0 {
            self.penalty += START_OF_FILE_PENALTY;
        }
        if m.end_of_file {
            self.penalty += END_OF_FILE_PENALTY;
        }
        let post_blank = if m.indent == -1 { 1 + m.post_blank } else { 0 };
        let total_blank = m.pre_blank + post_blank;
        self.penalty += TOTAL_BLANK_WEIGHT * total_blank;
        self.penalty += POST_BLANK_WEIGHT * post_blank;
        let indent = if m.indent != -1 { m.indent } else { m.post_indent };
        let any_blanks = total_blank != 0;
        self.effective_indent += indent;
        if indent == -1 || m.pre_indent == -1 {
        } else if indent > m.pre_indent {
            self.penalty += if any_blanks { RELATIVE_INDENT_WITH_BLANK_PENALTY } else { RELATIVE_INDENT_PENALTY };
        } else if indent == m.pre_indent {
        } else if m.post_indent != -1 && m.post_indent > indent {
            self.penalty += if any_blanks { RELATIVE_OUTDENT_WITH_BLANK_PENALTY } else { RELATIVE_OUTDENT_PENALTY };
        } else {
            self.penalty += if any_blanks { RELATIVE_DEDENT_WITH_BLANK_PENALTY } else { RELATIVE_DEDENT_PENALTY };
        }
    }

    /// xdiff's `score_cmp`: negative when `self` is better.
    fn cmp_with(&self, other: &Score) -> i32 {
        const INDENT_WEIGHT: i32 = 60;
        let cmp_indents = (self.effective_indent > other.effective_indent) as i32
            - (self.effective_indent < other.effective_indent) as i32;
        INDENT_WEIGHT * cmp_indents + (self.penalty - other.penalty)
    }
}
