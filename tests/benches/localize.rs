//! Localization throughput: scores gold/candidate patch pairs of typical size (three files of
//! about 360 lines in mixed languages, a few changed functions each), parsing included, on one
//! thread, and compares with just parsing and applying the same patches. Two runs: "cold", where
//! every pair has its own files, and "dataset-like", where pairs are successive commits of
//! twenty repositories so the localizer can reparse files incrementally across instances.
//!
//! Run with `cargo bench --bench localize` (release profile). `LOCALIZE_BENCH_PAIRS=N` changes
//! the number of pairs (default 1000); `LOCALIZE_BENCH_ONLY=cold` or `=dataset` runs one part.

use std::fmt::Write as _;
use std::time::Instant;

use verdict::localize::{apply_patch, score_instances, Candidate, LocalizeItem, MemorySnapshot, Snapshot};

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
                    let _ = write!(
                        out,
                        "export class Alpha{c} {{\n  constructor(value) {{\n    this.value = value;\n  }}\n\n"
                    );
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

/// How the pairs' files relate to each other.
#[derive(Clone, Copy)]
enum Mode {
    /// Every pair has its own files: nothing can be reused across pairs.
    Cold,
    /// Twenty repositories of three files; pair `i` is commit `i / 20` of repository `i % 20`,
    /// each commit one line away from the previous one, as instances of one repository are.
    Dataset,
}

/// Commit `k` of a file: a comment line added under a class header per earlier commit.
fn history(lang: Lang, text: &str, k: usize) -> String {
    let mut text = text.to_string();
    for j in 0..k {
        let c = j % CLASSES;
        let (header, comment) = match lang {
            Lang::Python => (format!("class Alpha{c}:\n"), format!("    # rev {j}\n")),
            Lang::JavaScript | Lang::TypeScript => (format!("export class Alpha{c} {{\n"), format!("  // rev {j}\n")),
            Lang::Java => (format!("class Alpha{c} {{\n"), format!("    // rev {j}\n")),
            Lang::Go => (format!("type Alpha{c} struct {{\n"), format!("\t// rev {j}\n")),
        };
        text = text.replacen(&header, &format!("{header}{comment}"), 1);
    }
    text
}

fn make_pair(i: usize, mode: Mode) -> Pair {
    let (repo, commit) = match mode {
        Mode::Cold => (i, 0),
        Mode::Dataset => (i % 20, i / 20),
    };
    let langs = [LANGS[repo % 5], LANGS[(repo + 1) % 5], LANGS[(repo + 3) % 5]];
    let mut snapshot = MemorySnapshot::new();
    let mut files = Vec::new();
    for (f, lang) in langs.iter().enumerate() {
        let path = format!("src/pkg{repo}/module{f}.{}", lang.ext());
        let seed = repo * 3 + f;
        let text = history(*lang, &lang.file(seed), commit);
        snapshot.insert(path.clone(), text.clone().into_bytes());
        files.push((path, *lang, text, seed));
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

/// Nanoseconds this thread has spent on a CPU (Linux), to measure one core on a shared machine.
fn cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// Runs `f`, returning its result with its wall time and its on-CPU time (wall time when the
/// CPU time cannot be read).
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, f64) {
    let (cpu0, start) = (cpu_ns(), Instant::now());
    let out = f();
    let wall = start.elapsed().as_secs_f64();
    let cpu = match (cpu0, cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64 / 1e9,
        _ => wall,
    };
    (out, wall, cpu)
}

/// Times applying only, then full scoring, and prints both.
fn run(label: &str, pairs: &[Pair]) {
    let n = pairs.len();
    let lines: usize = pairs
        .iter()
        .map(|p| p.snapshot.files.values().map(|f| f.iter().filter(|&&b| b == b'\n').count()).sum::<usize>())
        .sum();
    println!("{label}: {n} gold/candidate pairs, {:.0} base lines per pair in 3 files", lines as f64 / n as f64);

    // Baseline: parse and apply both patches, no diffing or tree-sitter.
    let (applied, base_wall, base_cpu) = timed(|| {
        let mut applied = 0usize;
        for p in pairs {
            let snapshot: &dyn Snapshot = &p.snapshot;
            applied += apply_patch(&p.gold, snapshot).map_or(0, |f| f.len());
            applied += apply_patch(&p.candidate, snapshot).map_or(0, |f| f.len());
        }
        applied
    });
    assert_eq!(applied, n * 4, "every bench patch applies");

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
    let (summary, full_wall, full_cpu) = timed(|| score_instances(items));

    let agg = &summary.aggregate;
    assert_eq!((agg.valid, agg.candidates_applied), (n, n));
    let rate = |secs: f64| n as f64 / secs;
    println!("  apply only (baseline): {:8.0} pairs/s on-CPU, {:8.0} pairs/s wall", rate(base_cpu), rate(base_wall));
    println!(
        "  full localization:     {:8.0} pairs/s on-CPU, {:8.0} pairs/s wall  ({:.3} ms/pair on-CPU)",
        rate(full_cpu),
        rate(full_wall),
        full_cpu * 1000.0 / n as f64
    );
    println!("  full / baseline:       {:.1}x on-CPU time", full_cpu / base_cpu);
    println!(
        "  sanity: file F1 {:.3}, function F1 {:.3} (n={}), function Acc@5 {:.3}",
        agg.all.file.f1, agg.all.function.f1, agg.all.function.n, agg.all.function.acc_at_5
    );
}

fn main() {
    let n: usize = std::env::var("LOCALIZE_BENCH_PAIRS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    let only = std::env::var("LOCALIZE_BENCH_ONLY").unwrap_or_default();
    println!("localize bench, one thread");
    if only.is_empty() || only == "cold" {
        let cold: Vec<Pair> = (0..n).map(|i| make_pair(i, Mode::Cold)).collect();
        run("cold (every file new)", &cold);
    }
    if only.is_empty() || only == "dataset" {
        let dataset: Vec<Pair> = (0..n).map(|i| make_pair(i, Mode::Dataset)).collect();
        run("dataset-like (20 repositories, nearby commits)", &dataset);
    }
}
