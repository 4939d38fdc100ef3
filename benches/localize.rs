//! Localization throughput: scores gold/candidate patch pairs of typical size (three files of
//! about 300 lines in mixed languages, a few changed functions each), parsing included, on one
//! thread, and compares with just parsing and applying the same patches.
//!
//! Run with `cargo bench --bench localize` (release profile). `LOCALIZE_BENCH_PAIRS=N` changes
//! the number of pairs (default 1000).

use std::fmt::Write as _;
use std::time::Instant;

use verdict::localize::{
    apply_patch, score_instances, Candidate, LocalizeItem, MemorySnapshot, Snapshot,
};

#[derive(Clone, Copy)]
enum Lang {
    Python,
    JavaScript,
    TypeScript,
    Java,
    Go,
}

const LANGS: [Lang; 5] = [Lang::Python, Lang::JavaScript, Lang::TypeScript, Lang::Java, Lang::Go];
const CLASSES: usize = 4;
const METHODS: usize = 8;

impl Lang {
    fn ext(self) -> &'static str {
        match self {
            Lang::Python => "py",
            Lang::JavaScript => "js",
            Lang::TypeScript => "ts",
            Lang::Java => "java",
            Lang::Go => "go",
        }
    }

    /// The line inside method `m` of class `c` that edits change.
    fn body_line(self, seed: usize, c: usize, m: usize) -> String {
        match self {
            Lang::Python => format!("        total = x + {}\n", seed + c * 31 + m),
            Lang::Go => format!("\ttotal := x + {}\n", seed + c * 31 + m),
            Lang::Java => format!("        int total = x + {};\n", seed + c * 31 + m),
            _ => format!("    let total = x + {};\n", seed + c * 31 + m),
        }
    }

    fn method(self, seed: usize, c: usize, m: usize, name: &str) -> String {
        let line = self.body_line(seed, c, m);
        let limit = (seed + m * 7) % 97;
        match self {
            Lang::Python => format!(
                "    def {name}(self, x):\n{line}        for i in range(3):\n            total += i * self.value\n        if total > {limit}:\n            return total\n        return total - 1\n\n"
            ),
            Lang::JavaScript | Lang::TypeScript => {
                let (arg, ret) = match self {
                    Lang::TypeScript => ("x: number", ": number"),
                    _ => ("x", ""),
                };
                format!(
                    "  {name}({arg}){ret} {{\n{line}    for (let i = 0; i < 3; i++) {{\n      total += i * this.value;\n    }}\n    if (total > {limit}) {{\n      return total;\n    }}\n    return total - 1;\n  }}\n\n"
                )
            }
            Lang::Java => format!(
                "    public int {name}(int x) {{\n{line}        for (int i = 0; i < 3; i++) {{\n            total += i * value;\n        }}\n        if (total > {limit}) {{\n            return total;\n        }}\n        return total - 1;\n    }}\n\n"
            ),
            Lang::Go => format!(
                "func (s *Alpha{c}) {name}(x int) int {{\n{line}\tfor i := 0; i < 3; i++ {{\n\t\ttotal += i * s.value\n\t}}\n\tif total > {limit} {{\n\t\treturn total\n\t}}\n\treturn total - 1\n}}\n\n"
            ),
        }
    }

    /// A source file of about 300 lines: four classes of eight methods.
    fn file(self, seed: usize) -> String {
        let mut out = String::new();
        match self {
            Lang::Python => out.push_str("\"\"\"Generated module.\"\"\"\nimport os\n\n\n"),
            Lang::JavaScript => out.push_str("'use strict';\n\n"),
            Lang::TypeScript => out.push_str("import { log } from './log';\n\n"),
            Lang::Java => out.push_str("package bench;\n\nimport java.util.List;\n\n"),
            Lang::Go => out.push_str("package bench\n\nimport \"fmt\"\n\n"),
        }
        for c in 0..CLASSES {
            match self {
                Lang::Python => {
                    let _ = write!(out, "class Alpha{c}:\n    \"\"\"Class {c}.\"\"\"\n\n    def __init__(self, value):\n        self.value = value\n\n");
                }
                Lang::JavaScript | Lang::TypeScript => {
                    let _ = write!(out, "export class Alpha{c} {{\n  constructor(value) {{\n    this.value = value;\n  }}\n\n");
                }
                Lang::Java => {
                    let _ = write!(out, "class Alpha{c} {{\n    private int value;\n\n");
                }
                Lang::Go => {
                    let _ = write!(out, "type Alpha{c} struct {{\n\tvalue int\n}}\n\n");
                }
            }
            for m in 0..METHODS {
                out.push_str(&self.method(seed, c, m, &format!("method{m}")));
            }
            match self {
                Lang::Python | Lang::Go => out.push('\n'),
                _ => out.push_str("}\n\n"),
            }
        }
        out
    }

    /// Inserts a new method after method `m` of class `c`.
    fn add_method(self, text: &str, seed: usize, c: usize, m: usize) -> String {
        let anchor = self.method(seed, c, m, &format!("method{m}"));
        let added = self.method(seed + 1, c, m, &format!("added{m}"));
        text.replacen(&anchor, &format!("{anchor}{added}"), 1)
    }
}

fn edit(lang: Lang, text: &str, seed: usize, c: usize, m: usize) -> String {
    let line = lang.body_line(seed, c, m);
    let changed = line.replacen(" + ", " * 2 + ", 1);
    text.replacen(&line, &changed, 1)
}

fn diff(path: &str, before: &str, after: &str) -> String {
    let patch = diffy::DiffOptions::new()
        .set_original_filename(format!("a/{path}"))
        .set_modified_filename(format!("b/{path}"))
        .create_patch(before, after);
    format!("diff --git a/{path} b/{path}\n{patch}")
}

struct Pair {
    snapshot: MemorySnapshot,
    gold: String,
    candidate: String,
}

fn make_pair(i: usize) -> Pair {
    let langs = [LANGS[i % 5], LANGS[(i + 1) % 5], LANGS[(i + 3) % 5]];
    let mut snapshot = MemorySnapshot::new();
    let mut files = Vec::new();
    for (f, lang) in langs.iter().enumerate() {
        let path = format!("src/pkg{}/module{f}.{}", i % 17, lang.ext());
        let text = lang.file(i * 3 + f);
        snapshot.insert(path.clone(), text.clone().into_bytes());
        files.push((path, *lang, text, i * 3 + f));
    }
    let (p0, l0, t0, s0) = &files[0];
    let (p1, l1, t1, s1) = &files[1];
    let (p2, l2, t2, s2) = &files[2];
    // Gold: two functions and a new method in file 0, one function in file 1.
    let gold0 = l0.add_method(&edit(*l0, &edit(*l0, t0, *s0, 0, 1), *s0, 2, 5), *s0, 3, 6);
    let gold1 = edit(*l1, t1, *s1, 1, 3);
    let gold = diff(p0, t0, &gold0) + &diff(p1, t1, &gold1);
    // Candidate: one function shared with the gold, one wrong function, one wrong file.
    let cand0 = edit(*l0, &edit(*l0, t0, *s0, 0, 1), *s0, 3, 2);
    let cand2 = edit(*l2, t2, *s2, 0, 0);
    let candidate = diff(p0, t0, &cand0) + &diff(p2, t2, &cand2);
    Pair { snapshot, gold, candidate }
}

fn main() {
    let pairs_n: usize = std::env::var("LOCALIZE_BENCH_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let pairs: Vec<Pair> = (0..pairs_n).map(make_pair).collect();
    let lines: usize = pairs
        .iter()
        .map(|p| p.snapshot.files.values().map(|f| f.iter().filter(|&&b| b == b'\n').count()).sum::<usize>())
        .sum();
    println!(
        "localize bench: {pairs_n} gold/candidate pairs, {:.0} base lines per pair in 3 files, one thread",
        lines as f64 / pairs_n as f64
    );

    // Baseline: parse and apply both patches, no diffing or tree-sitter.
    let start = Instant::now();
    let mut applied = 0usize;
    for p in &pairs {
        let snapshot: &dyn Snapshot = &p.snapshot;
        applied += apply_patch(&p.gold, snapshot).map_or(0, |f| f.len());
        applied += apply_patch(&p.candidate, snapshot).map_or(0, |f| f.len());
    }
    let baseline = start.elapsed();
    assert_eq!(applied, pairs_n * 4, "every bench patch applies");

    // Full scoring: apply, re-diff, parse (pre-images once per pair, post-images
    // incrementally), map and score.
    let items: Vec<LocalizeItem<'_>> = pairs
        .iter()
        .enumerate()
        .map(|(i, p)| LocalizeItem {
            instance_id: format!("bench-{i}"),
            language: None,
            gold_patch: p.gold.clone(),
            candidate: Candidate::Patch(p.candidate.clone()),
            snapshot: Box::new(&p.snapshot),
        })
        .collect();
    let start = Instant::now();
    let summary = score_instances(items);
    let full = start.elapsed();

    let agg = &summary.aggregate;
    assert_eq!(agg.valid, pairs_n);
    assert_eq!(agg.candidates_applied, pairs_n);
    let per_sec = |d: std::time::Duration| pairs_n as f64 / d.as_secs_f64();
    println!(
        "apply only (baseline): {:8.0} pairs/s  ({:.3} ms/pair)",
        per_sec(baseline),
        baseline.as_secs_f64() * 1000.0 / pairs_n as f64
    );
    println!(
        "full localization:     {:8.0} pairs/s  ({:.3} ms/pair)",
        per_sec(full),
        full.as_secs_f64() * 1000.0 / pairs_n as f64
    );
    println!("full / baseline time:  {:.1}x", full.as_secs_f64() / baseline.as_secs_f64());
    println!(
        "sanity: file F1 {:.3}, function F1 {:.3} (n={}), function Acc@5 {:.3}",
        agg.all.file.f1, agg.all.function.f1, agg.all.function.n, agg.all.function.acc_at_5
    );
}
