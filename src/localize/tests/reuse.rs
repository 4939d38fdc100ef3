//! Parse reuse changes speed only: a file reparsed incrementally from another version of it
//! (the pre-image of another snapshot, or the pre-image of its own patch) gets the same tree
//! and outline as a fresh parse.

use crate::localize::apply::split_lines;
use crate::localize::lang::Language;
use crate::localize::linediff::diff_lines;
use crate::localize::parse::{Parsers, PreImage};

use super::fixtures::load_tree;

#[test]
fn reparsing_from_another_version_matches_a_fresh_parse_on_every_fixture() {
    let mut checked = 0;
    for case in
        ["python", "javascript", "typescript", "java", "go", "rust", "c", "cpp", "csharp", "ruby", "php", "files"]
    {
        let before = load_tree(case, "before");
        let after = load_tree(case, "after");
        for (path, new) in &after.files {
            let (Some(old), Some(lang)) = (before.files.get(path), Language::from_path(path)) else {
                continue;
            };
            for (first, second) in [(old, new), (new, old)] {
                let lines = split_lines(second);
                let mut warm = Parsers::default();
                warm.parse_pre(path, lang, first, &split_lines(first)).expect("first parse");
                let reused = warm.parse_pre(path, lang, second, &lines).expect("reparse");
                let fresh = Parsers::default().parse_pre(path, lang, second, &lines).expect("fresh parse");
                assert_eq!(reused.tree.root_node().to_sexp(), fresh.tree.root_node().to_sexp(), "{case}/{path}");
                assert_eq!(reused.outline.defs, fresh.outline.defs, "{case}/{path}");
                // The post-image path: edits from the line diff of this very pair.
                let first_lines = split_lines(first);
                let (blocks, _) = diff_lines(&first_lines, &lines);
                let base = Parsers::default().parse_pre(path, lang, first, &first_lines).expect("base");
                let post = Parsers::default()
                    .parse_post(
                        lang,
                        Some(PreImage { tree: &base.tree, blocks: &blocks, lines: &first_lines }),
                        second,
                        &lines,
                    )
                    .expect("post");
                assert_eq!(post.tree.root_node().to_sexp(), fresh.tree.root_node().to_sexp(), "{case}/{path}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 26, "checked {checked} file versions");
}
