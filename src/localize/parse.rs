//! Parsing with reuse. One tree-sitter parser per language; post-images are parsed
//! incrementally from their pre-image tree; and the most recently parsed version of each path is
//! kept across snapshots, so that the same file at a nearby commit (the next instance of the
//! same repository) is reparsed incrementally instead of from scratch. Incremental parsing gives
//! the same tree as a fresh parse (tree-sitter's own invariant; our tests check it on every
//! fixture), so reuse changes speed only, never results.

use std::collections::HashMap;

use tree_sitter::{InputEdit, Parser, Point, Tree};

use super::lang::Language;
use super::linediff::{diff_lines_within, Block};
use super::outline::{first_error, Outline};

/// How many recently parsed files are kept for reuse across snapshots, and how many bytes of
/// source they may hold together (a tree takes roughly 10–20 times its source).
const RECENT_FILES: usize = 256;
const RECENT_BYTES: usize = 8 * 1024 * 1024;
/// Past this many changed lines between a kept version and a new one, parse from scratch.
const MAX_REUSE_EDITS: usize = 200;

/// A parsed file: its tree, its outline, and its first syntax error.
pub(crate) struct Parsed {
    pub tree: Tree,
    pub outline: Outline,
    pub error: Option<String>,
}

struct Recent {
    lang: Language,
    contents: Vec<u8>,
    tree: Tree,
    used: u64,
}

/// The pre-image a post-image is reparsed from: its tree, and the change blocks that turn its
/// lines into the post-image's.
pub(crate) struct PreImage<'a> {
    pub tree: &'a Tree,
    pub blocks: &'a [Block],
    pub lines: &'a [&'a [u8]],
}

#[derive(Default)]
pub(crate) struct Parsers {
    parsers: Vec<Option<Parser>>,
    recent: HashMap<String, Recent>,
    clock: u64,
}

impl Parsers {
    fn parser(&mut self, lang: Language) -> Option<&mut Parser> {
        if self.parsers.is_empty() {
            self.parsers = (0..Language::ALL.len()).map(|_| None).collect();
        }
        let slot = self.parsers.get_mut(lang.index())?;
        if slot.is_none() {
            let mut parser = Parser::new();
            parser.set_language(&lang.grammar()).ok()?;
            *slot = Some(parser);
        }
        slot.as_mut()
    }

    /// Parses a pre-image at `path`, reusing the last version of `path` seen in any snapshot
    /// when it is close enough.
    pub fn parse_pre(&mut self, path: &str, lang: Language, contents: &[u8], lines: &[&[u8]]) -> Option<Parsed> {
        self.clock += 1;
        let mut old_tree = None;
        let clock = self.clock;
        if let Some(recent) = self.recent.get_mut(path).filter(|r| r.lang == lang) {
            recent.used = clock;
            if recent.contents == contents {
                let tree = recent.tree.clone();
                return Some(finish(lang, tree, contents, lines.len()));
            }
            let old_lines: Vec<&[u8]> = recent.contents.split_inclusive(|&b| b == b'\n').collect();
            let (blocks, coarse) = diff_lines_within(&old_lines, lines, MAX_REUSE_EDITS);
            if !coarse {
                let mut tree = recent.tree.clone();
                for edit in edits(&blocks, &old_lines, lines) {
                    tree.edit(&edit);
                }
                old_tree = Some(tree);
            }
        }
        let tree = self.parser(lang)?.parse(contents, old_tree.as_ref())?;
        self.remember(path, lang, contents, &tree);
        Some(finish(lang, tree, contents, lines.len()))
    }

    /// Parses a post-image, incrementally from the pre-image tree when the language is the
    /// same (`blocks` turn `pre_lines` into `post_lines`).
    pub fn parse_post(
        &mut self,
        lang: Language,
        pre: Option<PreImage<'_>>,
        contents: &[u8],
        lines: &[&[u8]],
    ) -> Option<Parsed> {
        let old_tree = pre.map(|pre| {
            let mut tree = pre.tree.clone();
            for edit in edits(pre.blocks, pre.lines, lines) {
                tree.edit(&edit);
            }
            tree
        });
        let tree = self.parser(lang)?.parse(contents, old_tree.as_ref())?;
        Some(finish(lang, tree, contents, lines.len()))
    }

    fn remember(&mut self, path: &str, lang: Language, contents: &[u8], tree: &Tree) {
        if contents.len() > RECENT_BYTES / 8 {
            self.recent.remove(path);
            return;
        }
        let recent = Recent { lang, contents: contents.to_vec(), tree: tree.clone(), used: self.clock };
        self.recent.insert(path.to_string(), recent);
        let mut bytes: usize = self.recent.values().map(|r| r.contents.len()).sum();
        while self.recent.len() > RECENT_FILES || bytes > RECENT_BYTES {
            let Some(oldest) = self.recent.iter().min_by_key(|(_, r)| r.used).map(|(p, _)| p.clone()) else {
                break;
            };
            if let Some(gone) = self.recent.remove(&oldest) {
                bytes -= gone.contents.len();
            }
        }
    }
}

fn finish(lang: Language, tree: Tree, contents: &[u8], rows: usize) -> Parsed {
    let outline = Outline::build(lang, &tree, contents, rows);
    let error = first_error(&tree);
    Parsed { tree, outline, error }
}

/// The tree edits that turn `old_lines` into `new_lines`, block by block, each expressed in
/// the coordinates of the text as edited so far. Each edit is narrowed to the bytes that differ
/// inside its block: whole-line edits make tree-sitter reparse far more (ten times more for
/// Python, whose indentation scanner sits at line starts).
pub(crate) fn edits(blocks: &[Block], old_lines: &[&[u8]], new_lines: &[&[u8]]) -> Vec<InputEdit> {
    let offsets = |lines: &[&[u8]]| -> Vec<usize> {
        let mut acc = Vec::with_capacity(lines.len() + 1);
        let mut total = 0;
        acc.push(0);
        for line in lines {
            total += line.len();
            acc.push(total);
        }
        acc
    };
    let old_off = offsets(old_lines);
    let new_off = offsets(new_lines);
    // The point `len` bytes into `lines`, which start at column 0 of `row`.
    let point = |row: usize, lines: &[&[u8]], len: usize| -> Point {
        let (mut row, mut col, mut left) = (row, 0, len);
        for line in lines {
            if left < line.len() || (left == line.len() && !line.ends_with(b"\n")) {
                col = left;
                break;
            }
            left -= line.len();
            row += 1;
            if left == 0 {
                break;
            }
        }
        Point::new(row, col)
    };
    blocks
        .iter()
        .map(|b| {
            let old = &old_lines[b.old.clone()];
            let new = &new_lines[b.new.clone()];
            let old_len = old_off[b.old.end] - old_off[b.old.start];
            let new_len = new_off[b.new.end] - new_off[b.new.start];
            let bytes = |lines: &[&[u8]]| lines.iter().flat_map(|l| l.iter().copied()).collect::<Vec<u8>>();
            let (old_bytes, new_bytes) = (bytes(old), bytes(new));
            let prefix = old_bytes.iter().zip(&new_bytes).take_while(|(a, b)| a == b).count();
            let suffix = old_bytes[prefix..]
                .iter()
                .rev()
                .zip(new_bytes[prefix..].iter().rev())
                .take_while(|(a, b)| a == b)
                .count();
            let block_start = new_off[b.new.start];
            InputEdit {
                start_byte: block_start + prefix,
                old_end_byte: block_start + old_len - suffix,
                new_end_byte: block_start + new_len - suffix,
                start_position: point(b.new.start, new, prefix),
                old_end_position: point(b.new.start, old, old_len - suffix),
                new_end_position: point(b.new.start, new, new_len - suffix),
            }
        })
        .collect()
}
