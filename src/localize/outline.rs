//! The outline of one parsed file: its class and function definitions with their qualified
//! names and line spans, and for each line the innermost definition that encloses it.
//!
//! The walk stops at functions (nested functions, callbacks and classes inside a function fold
//! into it), so a function's body is never visited; everything outside functions is visited
//! with an explicit stack, so deep trees cannot overflow the call stack.

use std::collections::HashSet;

use tree_sitter::{Node, Tree};

use super::lang::Language;
use super::rules::{classify, is_attachment, is_comment, is_wrapper, DefKind};

const NO_DEF: u32 = u32::MAX;

/// One definition with its names resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Def {
    pub kind: DefKind,
    pub start_row: usize,
    pub end_row: usize,
    /// The qualified name (`Outer.Inner.method`): the function entity of a function, the prefix
    /// for what a class or scope contains.
    pub qualified: Box<str>,
    /// The class entity a line directly inside this definition belongs to.
    pub class: Option<Box<str>>,
    /// Whether the definition is free of syntax errors and not inside an error node. Lines
    /// owned by a definition that is not clean are not mapped.
    pub clean: bool,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Outline {
    pub defs: Vec<Def>,
    /// For each row, the index of the innermost definition covering it, or `NO_DEF`.
    row_owner: Vec<u32>,
    pub functions: HashSet<Box<str>>,
    pub classes: HashSet<Box<str>>,
    /// Rows of error and missing nodes met outside definitions.
    error_rows: Vec<(usize, usize)>,
}

impl Outline {
    /// Whether `row` lies in an error node met outside any definition.
    pub fn in_error(&self, row: usize) -> bool {
        self.error_rows.iter().any(|&(start, end)| start <= row && row <= end)
    }

    /// The innermost definition enclosing `row` (0-based).
    pub fn owner(&self, row: usize) -> Option<&Def> {
        match self.row_owner.get(row) {
            Some(&idx) if idx != NO_DEF => self.defs.get(idx as usize),
            _ => None,
        }
    }

    pub fn build(lang: Language, tree: &Tree, src: &[u8], rows: usize) -> Outline {
        let mut outline = Outline { row_owner: vec![NO_DEF; rows], ..Outline::default() };
        let root = tree.root_node();
        let mut cursor = root.walk();
        let mut stack: Vec<Item<'_>> = Vec::new();
        let mut walk = Walk { lang, cursor: &mut cursor, scratch: Vec::new() };
        walk.push_children(&mut stack, root, NO_DEF, usize::MAX, false);

        while let Some(Item { node, parent, enclosing, lead_row, in_error }) = stack.pop() {
            if node.is_error() || node.is_missing() {
                let end = node.end_position();
                let end_row =
                    if end.column == 0 && end.row > node.start_position().row { end.row - 1 } else { end.row };
                outline.error_rows.push((node.start_position().row, end_row));
            }
            let in_error = in_error || node.is_error();
            let Some(found) = classify(lang, node, parent, lead_row, src) else {
                walk.push_children(&mut stack, node, enclosing, lead_row, in_error);
                continue;
            };
            let outer = (enclosing != NO_DEF).then(|| &outline.defs[enclosing as usize]);
            let prefix = outer.map(|d| &*d.qualified);
            let join = |a: Option<&str>, b: &str| match a {
                Some(a) if !a.is_empty() => format!("{a}.{b}"),
                _ => b.to_string(),
            };
            let inherited_class = outer.and_then(|d| d.class.clone());
            let (qualified, class): (Box<str>, Option<Box<str>>) = match found.kind {
                DefKind::Class => {
                    let q: Box<str> = join(prefix, &found.name).into();
                    (q.clone(), Some(q))
                }
                DefKind::Scope => (join(prefix, &found.name).into(), inherited_class),
                DefKind::Function => match &found.receiver {
                    Some(receiver) => {
                        let class = join(prefix, receiver);
                        (join(Some(&class), &found.name).into(), Some(class.into()))
                    }
                    None => (join(prefix, &found.name).into(), inherited_class),
                },
            };
            match found.kind {
                DefKind::Function => {
                    outline.functions.insert(qualified.clone());
                }
                DefKind::Class => {
                    outline.classes.insert(qualified.clone());
                }
                DefKind::Scope => {}
            }
            if let Some(class) = &class {
                outline.classes.insert(class.clone());
            }
            let end = node.end_position();
            let end_row = if end.column == 0 && end.row > found.start_row { end.row - 1 } else { end.row };
            let index = outline.defs.len() as u32;
            outline.defs.push(Def {
                kind: found.kind,
                start_row: found.start_row,
                end_row,
                qualified,
                class,
                clean: !in_error && !node.has_error(),
            });
            // Pre-order: a definition paints its rows before its children repaint theirs.
            if let Some(last) = outline.row_owner.len().checked_sub(1) {
                if found.start_row <= last {
                    for owner in &mut outline.row_owner[found.start_row..=end_row.min(last)] {
                        *owner = index;
                    }
                }
            }
            if let Some(body) = found.descend {
                walk.push_children(&mut stack, body, index, usize::MAX, in_error);
            }
        }
        outline
    }
}

/// A node waiting to be visited.
struct Item<'t> {
    node: Node<'t>,
    parent: Option<Node<'t>>,
    /// Index of the enclosing definition, or `NO_DEF`.
    enclosing: u32,
    /// The first row of the wrappers and attachments that belong to this node, or `usize::MAX`.
    lead_row: usize,
    /// Whether an error node encloses this node.
    in_error: bool,
}

struct Walk<'c, 't> {
    lang: Language,
    cursor: &'c mut tree_sitter::TreeCursor<'t>,
    scratch: Vec<Node<'t>>,
}

impl<'t> Walk<'_, 't> {
    /// Pushes the named children of `node` so that they pop in document order, each with the
    /// rows that belong to it: a wrapper's own start when `node` is a wrapper of exactly one
    /// declaration, and the run of attachments written right before it.
    fn push_children(
        &mut self,
        stack: &mut Vec<Item<'t>>,
        node: Node<'t>,
        enclosing: u32,
        lead_row: usize,
        in_error: bool,
    ) {
        self.scratch.clear();
        self.cursor.reset(node);
        if self.cursor.goto_first_child() {
            loop {
                let child = self.cursor.node();
                if child.is_named() {
                    self.scratch.push(child);
                }
                if !self.cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        let lang = self.lang;
        let declarations =
            self.scratch.iter().filter(|c| !is_attachment(lang, c.kind()) && !is_comment(c.kind())).count();
        let wrap = if declarations == 1 && is_wrapper(lang, node.kind()) {
            lead_row.min(node.start_position().row)
        } else {
            usize::MAX
        };
        let first = stack.len();
        let mut run: Option<usize> = None;
        for child in self.scratch.drain(..) {
            let lead_row = wrap.min(run.unwrap_or(usize::MAX));
            if is_attachment(lang, child.kind()) {
                run = Some(run.unwrap_or(child.start_position().row));
            } else if !is_comment(child.kind()) {
                run = None;
            }
            stack.push(Item { node: child, parent: Some(node), enclosing, lead_row, in_error });
        }
        stack[first..].reverse();
    }
}

/// The first syntax error in a tree, as `line N: …`, or `None` when the tree has none.
pub(crate) fn first_error(tree: &Tree) -> Option<String> {
    let root = tree.root_node();
    if !root.has_error() {
        return None;
    }
    let mut node = root;
    'descend: loop {
        if node.is_error() || node.is_missing() {
            break;
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.has_error() {
                node = child;
                continue 'descend;
            }
        }
        break;
    }
    let p = node.start_position();
    let what = if node.is_missing() { format!("missing `{}`", node.kind()) } else { "unexpected syntax".to_string() };
    Some(format!("syntax error at line {}, column {}: {what}", p.row + 1, p.column + 1))
}
