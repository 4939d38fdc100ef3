//! The fixed line diff: it reproduces the post-image, keeps blocks apart, and places groups
//! of inserted or deleted lines where `git diff` (with its indent heuristic) places them.

use crate::localize::linediff::{diff_lines, Block};

fn lines(text: &str) -> Vec<&[u8]> {
    text.as_bytes().split_inclusive(|&b| b == b'\n').collect()
}

/// Rebuilds `b` from `a` and the blocks.
fn rebuild<'a>(a: &[&'a [u8]], b: &[&'a [u8]], blocks: &[Block]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut pos = 0;
    for block in blocks {
        out.extend_from_slice(&a[pos..block.old.start]);
        out.extend_from_slice(&b[block.new.clone()]);
        pos = block.old.end;
    }
    out.extend_from_slice(&a[pos..]);
    out
}

#[test]
fn blocks_rebuild_the_post_image_on_pseudo_random_inputs() {
    let mut seed = 0x2545_f491_u64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let alphabet = ["a\n", "b\n", "c\n", "}\n", "\n"];
    for _ in 0..300 {
        let a: String = (0..next(30)).map(|_| alphabet[next(5) as usize]).collect();
        let b: String = (0..next(30)).map(|_| alphabet[next(5) as usize]).collect();
        let (la, lb) = (lines(&a), lines(&b));
        let (blocks, coarse) = diff_lines(&la, &lb);
        assert!(!coarse);
        assert_eq!(rebuild(&la, &lb, &blocks), lb, "a={a:?} b={b:?} blocks={blocks:?}");
        for pair in blocks.windows(2) {
            assert!(pair[0].old.end < pair[1].old.start && pair[0].new.end < pair[1].new.start, "{blocks:?}");
        }
        for block in &blocks {
            assert!(!(block.old.is_empty() && block.new.is_empty()));
        }
    }
}

#[test]
fn an_inserted_function_is_placed_after_the_closing_brace_it_shares() {
    let a = lines("function a() {\n  x();\n}\n\nfunction c() {\n}\n");
    let b = lines("function a() {\n  x();\n}\n\nfunction b() {\n  y();\n}\n\nfunction c() {\n}\n");
    let (blocks, _) = diff_lines(&a, &b);
    // Not `}` + blank + header + body (which would touch a's closing brace).
    assert_eq!(blocks, [Block { old: 4..4, new: 4..8 }]);
}

#[test]
fn insertions_in_the_middle_slide_down_past_equal_lines() {
    // Two changes so that the second one is found by Myers rather than by trimming.
    let a = lines("x\n  }\nk\n  }\n}\nz\n");
    let b = lines("y\n  }\nk\n  }\n  }\n}\nw\n");
    let (blocks, _) = diff_lines(&a, &b);
    assert_eq!(rebuild(&a, &b, &blocks), b);
    // The inserted `  }` goes after the existing one (line 4), not before it.
    assert!(blocks.contains(&Block { old: 4..4, new: 4..5 }), "{blocks:?}");
}

const TQDM: &str = "class tqdm:\n    def __init__(self):\n        self.n = 0\n\n    @staticmethod\n    def write(s):\n        print(s)\n\n    @staticmethod\n    def pandas(**kwargs):\n        return kwargs\n";

fn with_external_write_mode() -> String {
    TQDM.replace(
        "    @staticmethod\n    def pandas",
        "    @staticmethod\n    def external_write_mode():\n        return None\n\n    @staticmethod\n    def pandas",
    )
}

#[test]
fn an_inserted_decorated_method_keeps_the_next_methods_decorator() {
    // git diff (indent heuristic): `@@ -8,0 +9,4 @@`, the insertion starts with its own
    // `@staticmethod`. Slid down as far as it goes (`--no-indent-heuristic`: `@@ -9,0 +10,4
    // @@`) it would end with the decorator of `pandas`, which is not changed.
    let post = with_external_write_mode();
    let (a, b) = (lines(TQDM), lines(&post));
    let (blocks, _) = diff_lines(&a, &b);
    assert_eq!(blocks, [Block { old: 8..8, new: 8..12 }]);

    let snapshot: crate::localize::MemorySnapshot = [("tqdm/std.py", TQDM)].into_iter().collect();
    let patch = "--- a/tqdm/std.py\n+++ b/tqdm/std.py\n@@ -9,2 +9,6 @@ class tqdm:\n     @staticmethod\n+    def \
                 external_write_mode():\n+        return None\n+\n+    @staticmethod\n     def pandas(**kwargs):\n";
    let got = crate::localize::locate(patch, &snapshot).unwrap();
    assert!(got.functions.is_empty(), "pandas is untouched: {:?}", got.functions);
    assert_eq!(got.added_functions, ["tqdm/std.py:tqdm.external_write_mode"]);
    assert_eq!(got.classes, ["tqdm/std.py:tqdm"]);
}

#[test]
fn a_deleted_decorated_method_takes_its_own_decorator() {
    // The reverse: deleting `external_write_mode` removes its own decorator line, not the one
    // of `pandas` (git: `@@ -9,4 +8,0 @@`).
    let pre = with_external_write_mode();
    let (a, b) = (lines(&pre), lines(TQDM));
    let (blocks, _) = diff_lines(&a, &b);
    assert_eq!(blocks, [Block { old: 8..12, new: 8..8 }]);
}
