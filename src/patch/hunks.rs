//! Hunk bodies as each program of the container's apply chain reads them ([`Dialect`]), and the
//! hunk type the appliers work on.
//!
//! Both programs read the lines a hunk header counts, in order: ` ` (or an empty line) is
//! context, `-` removed, `+` added, and a `\ No newline at end of file` line takes the newline
//! off the line before it. They differ where a hunk is damaged:
//!
//! | the hunk…                                        | `git apply`          | GNU `patch` 2.7               |
//! |--------------------------------------------------|----------------------|-------------------------------|
//! | is cut short by the end of the patch             | corrupt patch        | up to 3 lines missing on both sides alike are taken as empty context lines; more is "unexpected end of file" |
//! | ends with a line that lacks its newline          | corrupt patch        | that line is dropped ("patch unexpectedly ends in middle of line"), then as above |
//! | has no added or removed line (its real edits come after the lines its header counts) | corrupt patch | malformed patch |
//! | has a line that fits neither its header nor the format | corrupt patch | malformed patch |
//! | has a line starting with a tab                   | corrupt patch        | context ("the space got eaten") |
//! | has CRLF line ends                               | the CRs are content  | stripped when the section's `+++` line ends in CRLF |
//!
//! A malformed hunk stops GNU patch altogether and a corrupt one stops git apply before it
//! writes anything, so either refusal refuses the whole patch.

/// Whose reading of a patch: the first or the last program of verdict's apply chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// `git apply` (git 2.39, Debian bookworm's).
    Git,
    /// GNU `patch --batch` (2.7.6, Debian bookworm's).
    Gnu,
}

impl Dialect {
    pub fn program(self) -> &'static str {
        match self {
            Dialect::Git => "git apply",
            Dialect::Gnu => "patch",
        }
    }
}

/// One line of a hunk. The slice includes the line's `\n`, unless the patch marks it
/// `\ No newline at end of file`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HunkLine<'p> {
    Context(&'p [u8]),
    Remove(&'p [u8]),
    Add(&'p [u8]),
}

/// One hunk: its header's ranges and its lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk<'p> {
    pub old_start: usize,
    pub old_len: usize,
    pub new_start: usize,
    pub new_len: usize,
    pub lines: Vec<HunkLine<'p>>,
    /// 1-based line of the `@@` header in the patch.
    pub patch_line: usize,
}

impl<'p> Hunk<'p> {
    /// Context lines before the first added or removed line.
    pub fn leading_context(&self) -> usize {
        self.lines.iter().take_while(|l| matches!(l, HunkLine::Context(_))).count()
    }

    /// Context lines after the last added or removed line.
    pub fn trailing_context(&self) -> usize {
        self.lines.iter().rev().take_while(|l| matches!(l, HunkLine::Context(_))).count()
    }

    /// The lines a file must hold for the hunk to apply: context and removed lines.
    pub fn old_lines(&self) -> impl Iterator<Item = &'p [u8]> + '_ {
        self.lines.iter().filter_map(|l| match l {
            HunkLine::Context(s) | HunkLine::Remove(s) => Some(*s),
            HunkLine::Add(_) => None,
        })
    }

    /// The lines the hunk leaves: context and added lines.
    pub fn new_lines(&self) -> impl Iterator<Item = &'p [u8]> + '_ {
        self.lines.iter().filter_map(|l| match l {
            HunkLine::Context(s) | HunkLine::Add(s) => Some(*s),
            HunkLine::Remove(_) => None,
        })
    }

    /// The same hunk undone: added and removed lines swap, and so do the two ranges (what
    /// `patch` does when it takes a patch as reversed).
    pub fn reversed(&self) -> Hunk<'p> {
        Hunk {
            old_start: self.new_start,
            old_len: self.new_len,
            new_start: self.old_start,
            new_len: self.old_len,
            lines: self
                .lines
                .iter()
                .map(|l| match *l {
                    HunkLine::Context(s) => HunkLine::Context(s),
                    HunkLine::Remove(s) => HunkLine::Add(s),
                    HunkLine::Add(s) => HunkLine::Remove(s),
                })
                .collect(),
            patch_line: self.patch_line,
        }
    }
}

/// How a walk over a hunk body ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum End {
    /// Every line the header counts was read.
    Complete,
    /// The patch ended with lines still missing (for GNU patch, also a last line without its
    /// newline, which it drops).
    Eof { old_left: usize, new_left: usize },
    /// A line (0-based) that cannot continue the hunk.
    Bad { line: usize, old_left: usize, new_left: usize },
}

/// A hunk body as one dialect reads it.
pub(super) struct Body<'p> {
    pub lines: Vec<HunkLine<'p>>,
    pub end: End,
    /// The index of the first line after the body.
    pub next: usize,
}

/// Reads the body of a hunk whose header sits just before line `start` (0-based). `line(i)`
/// gives line `i` as the dialect sees it (GNU patch's with CRs stripped when it strips them),
/// `raw(i)` as written; both keep their `\n`.
pub(super) fn walk<'p>(
    count: usize,
    raw: impl Fn(usize) -> &'p [u8],
    line: impl Fn(usize) -> &'p [u8],
    start: usize,
    old_len: usize,
    new_len: usize,
    dialect: Dialect,
) -> Body<'p> {
    let (mut old_left, mut new_left) = (old_len, new_len);
    let mut lines: Vec<HunkLine<'p>> = Vec::new();
    let mut i = start;
    let end = loop {
        if old_left == 0 && new_left == 0 {
            break End::Complete;
        }
        if i >= count {
            break End::Eof { old_left, new_left };
        }
        if !raw(i).ends_with(b"\n") {
            match dialect {
                Dialect::Gnu => {
                    i += 1;
                    break End::Eof { old_left, new_left };
                }
                Dialect::Git => break End::Bad { line: i, old_left, new_left },
            }
        }
        let l = line(i);
        let entry = match l.first().copied().unwrap_or(b'\n') {
            b' ' if old_left > 0 && new_left > 0 => HunkLine::Context(&l[1..]),
            b'\n' if old_left > 0 && new_left > 0 => HunkLine::Context(l),
            b'\t' if dialect == Dialect::Gnu && old_left > 0 && new_left > 0 => HunkLine::Context(l),
            b'-' if old_left > 0 => HunkLine::Remove(&l[1..]),
            b'+' if new_left > 0 => HunkLine::Add(&l[1..]),
            b'\\' if !lines.is_empty() => {
                drop_newline(&mut lines);
                i += 1;
                continue;
            }
            _ => break End::Bad { line: i, old_left, new_left },
        };
        match entry {
            HunkLine::Context(_) => {
                old_left -= 1;
                new_left -= 1;
            }
            HunkLine::Remove(_) => old_left -= 1,
            HunkLine::Add(_) => new_left -= 1,
        }
        lines.push(entry);
        i += 1;
    };
    if end == End::Complete && i < count && raw(i).starts_with(b"\\") && !lines.is_empty() {
        drop_newline(&mut lines);
        i += 1;
    }
    Body { lines, end, next: i }
}

/// Applies a `\ No newline at end of file` marker to the last line read.
fn drop_newline(lines: &mut [HunkLine<'_>]) {
    if let Some(HunkLine::Context(s) | HunkLine::Remove(s) | HunkLine::Add(s)) = lines.last_mut() {
        *s = s.strip_suffix(b"\n").unwrap_or(s);
    }
}

/// The hunk's lines as the dialect accepts them, or why it refuses the hunk. `patch_line` is
/// the 1-based line of the hunk's header.
pub(super) fn finish<'p>(body: Body<'p>, dialect: Dialect, patch_line: usize) -> Result<Vec<HunkLine<'p>>, String> {
    let Body { mut lines, end, .. } = body;
    match end {
        End::Complete => {}
        End::Eof { old_left, new_left } => match dialect {
            Dialect::Gnu if new_left <= 3 && old_left == new_left => {
                // "assume blank lines got chopped"
                lines.extend(std::iter::repeat_n(HunkLine::Context(b"\n"), old_left));
            }
            Dialect::Gnu => {
                return Err(format!(
                    "the hunk at line {patch_line} ends early: {old_left} old and {new_left} new lines missing at \
                     the end of the patch (`patch` takes up to 3 missing lines as blank context when both sides \
                     miss as many; here it stops: unexpected end of file)"
                ))
            }
            Dialect::Git => {
                return Err(format!(
                    "the hunk at line {patch_line} ends early: {old_left} old and {new_left} new lines missing at \
                     the end of the patch (a corrupt patch to `git apply`)"
                ))
            }
        },
        End::Bad { line, old_left, new_left } => {
            return Err(format!(
                "line {} does not continue the hunk at line {patch_line}: {old_left} old and {new_left} new lines \
                 were still expected ({})",
                line + 1,
                match dialect {
                    Dialect::Git => "a corrupt patch to `git apply`",
                    Dialect::Gnu => "a malformed patch to `patch`",
                }
            ))
        }
    }
    if !lines.iter().any(|l| matches!(l, HunkLine::Remove(_) | HunkLine::Add(_))) {
        return Err(format!(
            "the hunk at line {patch_line} has no added or removed line among the lines its header counts ({})",
            match dialect {
                Dialect::Git => "a corrupt patch to `git apply`",
                Dialect::Gnu => "a malformed patch to `patch`",
            }
        ));
    }
    Ok(lines)
}

/// `@@ -a[,b] +c[,d] @@ …` → (a, b, c, d).
pub(super) fn parse_header(line: &[u8]) -> Option<(usize, usize, usize, usize)> {
    let line = std::str::from_utf8(line).ok()?;
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |r: &str| -> Option<(usize, usize)> {
        match r.split_once(',') {
            Some((start, len)) => Some((start.parse().ok()?, len.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (old_start, old_len) = range(old)?;
    let (new_start, new_len) = range(new)?;
    Some((old_start, old_len, new_start, new_len))
}
