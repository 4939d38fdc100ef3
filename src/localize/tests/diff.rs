//! The fixed line diff: it reproduces the post-image, keeps blocks apart, and slides pure
//! insertions down to where a reader expects them.

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
