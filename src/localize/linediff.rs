//! The fixed line diff between a pre-image and a post-image, which normalizes whatever diff
//! settings produced a patch: common prefix and suffix trimmed, Myers' shortest edit script on
//! the rest, then every pure insertion or deletion slid as far down as it can go (the placement
//! `git diff` chooses without its indent heuristic). The work is bounded: past
//! [`MAX_EDIT_DISTANCE`] edits the middle becomes one change block and the caller records a note.

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
    if a_mid.is_empty() || b_mid.is_empty() {
        return (vec![whole()], false);
    }
    let Some(ops) = myers(a_mid, b_mid, max_edits) else {
        return (vec![whole()], true);
    };
    let mut blocks = blocks_from_ops(&ops, prefix);
    slide_down(&mut blocks, a, b);
    (blocks, false)
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

fn blocks_from_ops(ops: &[Op], base: usize) -> Vec<Block> {
    let mut blocks = Vec::new();
    let (mut x, mut y) = (base, base);
    let mut current: Option<Block> = None;
    for op in ops {
        match op {
            Op::Equal => {
                blocks.extend(current.take());
                x += 1;
                y += 1;
            }
            Op::Delete => {
                current.get_or_insert(Block { old: x..x, new: y..y }).old.end = x + 1;
                x += 1;
            }
            Op::Insert => {
                current.get_or_insert(Block { old: x..x, new: y..y }).new.end = y + 1;
                y += 1;
            }
        }
    }
    blocks.extend(current);
    blocks
}

/// Slides every pure insertion or deletion down while the line it would give up equals the
/// line it would take, stopping before it would touch the next block.
fn slide_down(blocks: &mut [Block], a: &[&[u8]], b: &[&[u8]]) {
    for i in 0..blocks.len() {
        // The last line a block may end on: one before the next block, or the end of the file.
        let (limit_old, limit_new) = match blocks.get(i + 1) {
            Some(next) => (next.old.start - 1, next.new.start - 1),
            None => (a.len(), b.len()),
        };
        let block = &mut blocks[i];
        if block.old.is_empty() {
            while block.new.end < limit_new && b[block.new.start] == b[block.new.end] {
                block.new = block.new.start + 1..block.new.end + 1;
                block.old = block.old.start + 1..block.old.end + 1;
            }
        } else if block.new.is_empty() {
            while block.old.end < limit_old && a[block.old.start] == a[block.old.end] {
                block.old = block.old.start + 1..block.old.end + 1;
                block.new = block.new.start + 1..block.new.end + 1;
            }
        }
    }
}
