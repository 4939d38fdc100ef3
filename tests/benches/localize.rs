//! Localization throughput: scores gold/candidate patch pairs of typical size (three files of
//! about 360 lines in mixed languages, a few changed functions each), parsing included, on one
//! thread, and compares with just parsing and applying the same patches. Two runs: "cold", where
//! every pair has its own files, and "dataset-like", where pairs are successive commits of
//! twenty repositories so the localizer can reparse files incrementally across instances.
//!
//!
//! A third part, "git", reads the files from a git repository as `verdict localize` and
//! `verdict evaluate` do, and compares three ways of reading them on the same pairs, in the same
//! run: from memory (the floor), through verdict's repository store (one long-lived
//! `git cat-file --batch` per repository), and with three `git` processes per file read (how
//! the store read files before). By default the repository is built in a temporary folder: the
//! dataset-like files committed as twenty packages over successive commits, each pair at its
//! own commit. Given `LOCALIZE_BENCH_DATASET` (a dataset file), `LOCALIZE_BENCH_PREDICTIONS`
//! (prediction files, comma-separated; the last prediction per instance counts) and
//! `LOCALIZE_BENCH_REPOS` (a folder as for `--repos`), it scores those real pairs instead: every
//! instance with a candidate patch, with the container's fuzz limit (5), as `verdict localize`
//! does. Wall-clock rates: reading through `git` costs time in other processes.
//!
//! Run with `cargo bench --bench localize` (release profile). `LOCALIZE_BENCH_PAIRS=N` changes
//! the number of pairs (default 1000); `LOCALIZE_BENCH_ONLY=cold`, `=dataset` or `=git` runs one
//! part.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use verdict::dataset::repo::{GitSnapshot, RepoStore};
use verdict::dataset::{load_instances, load_predictions};
use verdict::localize::{apply_patch, score_instances, Candidate, LocalizeItem, Localizer, MemorySnapshot, Snapshot};

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

/// One pair read from a git repository: the patches, and where their base lives.
struct GitPair {
    repo: String,
    commit: String,
    gold: String,
    candidate: String,
}

/// Reads files with three `git` processes per read, as verdict's repository store did before
/// it kept one `git cat-file --batch` per repository: a commit check, an existence check and
/// the read.
struct SpawningSnapshot {
    dir: PathBuf,
    commit: String,
}

impl Snapshot for SpawningSnapshot {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        let git =
            |args: &[&str]| Command::new("git").arg("-C").arg(&self.dir).args(args).output().map_err(|e| e.to_string());
        let commit = git(&["cat-file", "-e", &format!("{}^{{commit}}", self.commit)])?;
        if !commit.status.success() {
            return Err(format!("commit {} is missing", self.commit));
        }
        let spec = format!("{}:{path}", self.commit);
        if !git(&["cat-file", "-e", &spec])?.status.success() {
            return Ok(None);
        }
        let blob = git(&["cat-file", "blob", &spec])?;
        blob.status.success().then_some(blob.stdout).map(Some).ok_or_else(|| format!("cannot read {spec}"))
    }
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "bench")
        .env("GIT_AUTHOR_EMAIL", "bench@localhost")
        .env("GIT_COMMITTER_NAME", "bench")
        .env("GIT_COMMITTER_EMAIL", "bench@localhost")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The dataset-like pairs in a git repository built under `root`: commit `k` holds what pairs
/// `20k … 20k+19` see (twenty packages of three files), and each pair reads its own commit.
fn build_git_pairs(root: &Path, n: usize) -> Vec<GitPair> {
    let repo_dir = root.join("bench__dataset");
    std::fs::create_dir_all(&repo_dir).expect("bench repository folder");
    git(&repo_dir, &["init", "-q", "-b", "main"]);
    let mut commits = Vec::new();
    for k in 0..n.div_ceil(20) {
        for r in 0..20 {
            for (path, contents) in make_pair(r + 20 * k, Mode::Dataset).snapshot.files {
                let file = repo_dir.join(&path);
                std::fs::create_dir_all(file.parent().expect("a folder")).expect("package folder");
                std::fs::write(file, contents).expect("bench file");
            }
        }
        git(&repo_dir, &["add", "-A"]);
        git(&repo_dir, &["commit", "-qm", &format!("commit {k}")]);
        commits.push(git(&repo_dir, &["rev-parse", "HEAD"]));
    }
    (0..n)
        .map(|i| {
            let pair = make_pair(i, Mode::Dataset);
            GitPair {
                repo: "bench/dataset".into(),
                commit: commits[i / 20].clone(),
                gold: pair.gold,
                candidate: pair.candidate,
            }
        })
        .collect()
}

/// Real pairs: every instance of the dataset with a candidate patch in the prediction files.
fn real_git_pairs(dataset: &str, predictions: &str) -> Vec<GitPair> {
    let instances = load_instances(Path::new(dataset)).expect("LOCALIZE_BENCH_DATASET reads");
    let mut candidates: BTreeMap<String, String> = BTreeMap::new();
    for file in predictions.split(',').filter(|f| !f.is_empty()) {
        for p in load_predictions(Path::new(file)).expect("LOCALIZE_BENCH_PREDICTIONS reads") {
            if let Some(patch) = p.model_patch.filter(|p| !p.trim().is_empty()) {
                candidates.insert(format!("{file}\0{}", p.instance_id), patch);
            }
        }
    }
    let mut pairs = Vec::new();
    for (key, candidate) in candidates {
        let id = key.rsplit('\0').next().unwrap_or_default();
        if let Some(instance) = instances.iter().find(|i| i.instance_id == id) {
            pairs.push(GitPair {
                repo: instance.repo.clone(),
                commit: instance.base_commit.clone(),
                gold: instance.patch.clone(),
                candidate,
            });
        }
    }
    pairs
}

/// The pairs as items to score, each reading its base through `snapshot`.
fn git_items<'a>(
    pairs: &'a [GitPair],
    snapshot: impl Fn(&'a GitPair) -> Box<dyn Snapshot + 'a>,
) -> Vec<LocalizeItem<'a>> {
    pairs
        .iter()
        .enumerate()
        .map(|(i, p)| LocalizeItem {
            instance_id: format!("bench-{i}"),
            language: None,
            gold_patch: p.gold.clone(),
            candidate: Candidate::Patch(p.candidate.clone()),
            snapshot: snapshot(p),
        })
        .collect()
}

/// Scores the git pairs three ways and prints the rates.
fn run_git(label: &str, pairs: &[GitPair], store: &RepoStore) {
    let n = pairs.len();
    println!("{label}: {n} gold/candidate pairs at {} commits", {
        let mut commits: Vec<&str> = pairs.iter().map(|p| p.commit.as_str()).collect();
        commits.sort_unstable();
        commits.dedup();
        commits.len()
    });
    // Every file either way reads, loaded once up front: the in-memory floor, and a warm disk
    // cache for the timed runs.
    let mut memory: BTreeMap<(String, String), MemorySnapshot> = BTreeMap::new();
    for p in pairs {
        let snapshot = GitSnapshot { store, repo: p.repo.clone(), commit: p.commit.clone() };
        let entry = memory.entry((p.repo.clone(), p.commit.clone())).or_default();
        for patch in [&p.gold, &p.candidate] {
            for change in verdict::patch::changed_files(patch) {
                for path in [change.old, change.new].into_iter().flatten() {
                    if let Ok(Some(contents)) = snapshot.read(&path) {
                        entry.insert(path, contents);
                    }
                }
            }
        }
    }
    let score = |items: Vec<LocalizeItem<'_>>| Localizer::new().with_max_fuzz(5).score_all(items);
    let memory = &memory;
    let (in_memory, memory_wall, _) =
        timed(|| score(git_items(pairs, |p| Box::new(&memory[&(p.repo.clone(), p.commit.clone())]))));
    let (store_summary, store_wall, _) = timed(|| {
        score(git_items(pairs, |p| Box::new(GitSnapshot { store, repo: p.repo.clone(), commit: p.commit.clone() })))
    });
    let dir = |p: &GitPair| store.git_dir(&p.repo, &p.commit).expect("the bench repository holds the commit");
    let (spawning, spawn_wall, _) =
        timed(|| score(git_items(pairs, |p| Box::new(SpawningSnapshot { dir: dir(p), commit: p.commit.clone() }))));
    assert_eq!(in_memory.instances, store_summary.instances, "reading through git changes nothing");
    assert_eq!(in_memory.instances, spawning.instances, "reading through git changes nothing");
    let rate = |secs: f64| n as f64 / secs;
    println!("  from memory:                        {:8.0} pairs/s wall", rate(memory_wall));
    println!("  git cat-file --batch (the store):   {:8.0} pairs/s wall", rate(store_wall));
    println!("  three git processes per file read:  {:8.0} pairs/s wall", rate(spawn_wall));
    println!("  store / per-read processes:         {:.1}x", spawn_wall / store_wall);
    let agg = &store_summary.aggregate;
    println!(
        "  sanity: {} valid, {} candidates applied, file F1 {:.3}, function F1 {:.3} (n={})",
        agg.valid, agg.candidates_applied, agg.all.file.f1, agg.all.function.f1, agg.all.function.n
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
    if only.is_empty() || only == "git" {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        match (var("LOCALIZE_BENCH_DATASET"), var("LOCALIZE_BENCH_PREDICTIONS"), var("LOCALIZE_BENCH_REPOS")) {
            (Some(dataset), Some(predictions), Some(repos)) => {
                let tmp = tempfile::tempdir().expect("a temporary folder");
                let store = RepoStore::new(vec![PathBuf::from(repos)], tmp.path().join("cache"), false);
                let pairs = real_git_pairs(&dataset, &predictions);
                run_git("git (real pairs, from LOCALIZE_BENCH_DATASET and LOCALIZE_BENCH_PREDICTIONS)", &pairs, &store);
            }
            _ => {
                let tmp = tempfile::tempdir().expect("a temporary folder");
                let pairs = build_git_pairs(tmp.path(), n);
                let store = RepoStore::new(vec![tmp.path().to_path_buf()], tmp.path().join("cache"), false);
                run_git("git (dataset-like pairs in a repository built for the bench)", &pairs, &store);
            }
        }
    }
}
