//! Rust: `cargo test`, read from libtest's console, or from libtest's JSON events where the
//! toolchain prints them (`cargo test -- -Z unstable-options --format json`, nightly only).
//!
//! **Report**: both forms are in the console, which the eval script takes with stderr merged
//! into stdout: cargo's `Running unittests src/lib.rs (target/…)`, `Running tests/api.rs (…)` and
//! `Doc-tests <crate>` lines (stderr) say which test target the results after them (stdout)
//! belong to, so their order must hold. On a stable toolchain there are no JSON events; the
//! notes say the console was read.
//!
//! **Id form**: libtest's test name, as Multi-SWE-bench lists it and `cargo test NAME` matches:
//! `arith::tests::gcd_of_positives`, an integration test `signs::gcd_is_never_negative` (its
//! path inside `tests/api.rs`), a doc test `src/arith.rs - arith::clamp (line 5)`. The console's
//! ` - should panic` suffix is not part of the name. [`TestResult::file`] is the target's source
//! (`src/lib.rs`, `tests/api.rs`; a doc test's own file) and [`TestResult::class`] the module
//! path (`arith::tests`). The same name in two targets is one id with the most severe status
//! (noted).
//!
//! **Target entries** (ERROR): a crate that does not compile (`error: could not compile
//! `rustcalc``: no test runs) is an entry named by the crate; a test binary that started and
//! never printed its summary (it crashed: `abort`, a signal) is an entry named by its source file,
//! and the tests it had not reported are absent.
//!
//! Statuses: `ok` → PASSED, `FAILED` → FAILED, `ignored` (also `ignored, <reason>`) → SKIPPED.
//! What a failing test printed (`---- name stdout ----` blocks) is never read for results.

use std::borrow::Cow;

use serde::Deserialize;

use super::ansi::strip_ansi;
use super::combine::{combine, Read, Repeats, TestMap};
use super::runner::{Nesting, ReportSource, Runner, TestFiles};
use super::{ParseError, ParsedTests, StructuredReport, TestResult, TestStatus};

/// The `cargo test` runner (see the module doc).
pub struct CargoTest;

impl Runner for CargoTest {
    fn name(&self) -> &'static str {
        "cargo"
    }

    /// `test_args = "cargo"`: `--test=<name>` (one argument, so each appears once) for each integration test file of the test patch
    /// (`tests/<name>.rs`, `tests/<name>/main.rs`) when those are all the Rust files it touches;
    /// nothing (the whole suite) when it touches any other `.rs` file, such as unit tests inside
    /// `src/`, which no `--test` selects.
    fn arguments(&self, files: &TestFiles<'_>) -> Option<Vec<String>> {
        let mut args = Vec::new();
        for path in files.paths().iter().filter(|p| p.ends_with(".rs")) {
            match integration_target(path).filter(|_| files.is_runnable(path)) {
                Some(name) => args.push(format!("--test={name}")),
                None => return Some(Vec::new()),
            }
        }
        Some(args)
    }

    /// Arguments go before the ` -- ` that starts libtest's own options.
    fn command(&self, test_cmd: &str, quoted_arguments: &str) -> String {
        match test_cmd.find(" -- ") {
            Some(at) => format!("{} {quoted_arguments}{}", &test_cmd[..at], &test_cmd[at..]),
            None if test_cmd.ends_with(" --") => {
                format!("{} {quoted_arguments} --", &test_cmd[..test_cmd.len() - 3])
            }
            None => format!("{test_cmd} {quoted_arguments}"),
        }
    }

    fn report(&self) -> ReportSource {
        ReportSource::Console
    }

    fn parse(&self, console: &str, _structured: &[StructuredReport]) -> Result<ParsedTests, ParseError> {
        let text = strip_ansi(console);
        let structured = scan(&text, Form::Json);
        let console = scan(&text, Form::Text);
        combine(structured, console, |_, _| None)
    }

    fn nesting(&self) -> Nesting {
        Nesting { separators: &[("::", false)], class_separators: &[("::", false)], dropped_prefixes: &[] }
    }
}

/// `tests/api.rs` → `api`; `tests/api/main.rs` → `api`.
fn integration_target(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("tests/")?;
    match rest.split_once('/') {
        None => rest.strip_suffix(".rs"),
        Some((dir, "main.rs")) => Some(dir),
        Some(_) => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Json,
    Text,
}

/// One libtest JSON event (`{ "type": "test", "event": "ok", "name": … }`).
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    event: Cow<'a, str>,
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
}

/// The test target results belong to, from cargo's lines.
struct Target {
    /// What an entry for the whole target is named: its source file, or cargo's label.
    label: String,
    file: Option<String>,
    started: bool,
    finished: bool,
}

impl Target {
    /// `Running unittests src/lib.rs (target/debug/deps/x-1a2b)`, `Running tests/api.rs (…)`,
    /// and older cargo's `Running target/debug/deps/api-1a2b`; `Doc-tests rustcalc`.
    fn from_line(trimmed: &str) -> Option<Target> {
        if let Some(rest) = trimmed.strip_prefix("Running ") {
            let rest = rest.strip_prefix("unittests ").unwrap_or(rest);
            let (source, binary) = match rest.split_once(" (") {
                Some((source, binary)) => (Some(source.trim()), binary.trim_end_matches(')')),
                None => (None, rest.trim()),
            };
            let file = source.filter(|s| s.ends_with(".rs")).map(str::to_string);
            let label = file.clone().unwrap_or_else(|| {
                let stem = binary.rsplit('/').next().unwrap_or(binary);
                stem.rsplit_once('-').map_or(stem, |(name, _)| name).to_string()
            });
            return Some(Target { label, file, started: false, finished: false });
        }
        let krate = trimmed.strip_prefix("Doc-tests ")?.trim();
        (!krate.is_empty()).then(|| Target {
            label: format!("{krate} (doc tests)"),
            file: None,
            started: false,
            finished: false,
        })
    }
}

/// Reads results in one form. Cargo's own lines (targets, compile errors) are read in both.
fn scan(text: &str, form: Form) -> Read {
    let mut map = TestMap::new(Repeats::Merge);
    let mut target: Option<Target> = None;
    let mut crashed: Vec<String> = Vec::new();
    let mut not_compiled: Vec<String> = Vec::new();
    let mut results = 0usize;
    let mut in_output = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if form == Form::Text && in_output {
            // What a failing test printed: until the list of failures or the next block.
            if trimmed == "failures:" || is_output_block(trimmed) {
                in_output = is_output_block(trimmed);
            }
            continue;
        }
        if let Some(next) = Target::from_line(trimmed) {
            close(target.take(), &mut map, &mut crashed);
            target = Some(next);
            continue;
        }
        if let Some(krate) = not_compiled_crate(trimmed) {
            map.insert(krate.to_string(), TestResult { status: TestStatus::Error, file: None, class: None });
            not_compiled.push(krate.to_string());
            continue;
        }
        match form {
            Form::Json => {
                let Some(event) = trimmed.starts_with('{').then(|| serde_json::from_str::<Event>(trimmed).ok()).flatten()
                else {
                    continue;
                };
                match (event.kind.as_ref(), event.event.as_ref()) {
                    ("suite", "started") => set(&mut target, |t| t.started = true),
                    ("suite", "ok" | "failed") => set(&mut target, |t| t.finished = true),
                    ("test", outcome) => {
                        if let (Some(status), Some(name)) = (json_status(outcome), event.name.as_deref()) {
                            results += 1;
                            let (id, result) = result_for(name, status, target.as_ref());
                            map.insert(id, result);
                        }
                    }
                    _ => {}
                }
            }
            Form::Text => {
                if is_output_block(trimmed) {
                    in_output = true;
                } else if (trimmed.starts_with("running ") && trimmed.ends_with(" tests")) || trimmed == "running 1 test" {
                    set(&mut target, |t| t.started = true);
                } else if trimmed.starts_with("test result: ") {
                    set(&mut target, |t| t.finished = true);
                } else if let Some((name, status)) = text_result(line) {
                    results += 1;
                    let (id, result) = result_for(name, status, target.as_ref());
                    map.insert(id, result);
                }
            }
        }
    }
    close(target.take(), &mut map, &mut crashed);
    let mut notes = Vec::new();
    let source = if form == Form::Json { "structured" } else { "console" };
    if !not_compiled.is_empty() {
        notes.push(format!(
            "{source}: {} crate(s) did not compile, so none of their tests ran; each is an ERROR entry: {}",
            not_compiled.len(),
            not_compiled.join(", ")
        ));
    }
    if !crashed.is_empty() {
        notes.push(format!(
            "{source}: {} test binary(ies) stopped before their summary (crashed or killed); each is an ERROR \
             entry named by its source, and the tests it had not reported are absent: {}",
            crashed.len(),
            crashed.join(", ")
        ));
    }
    if results == 0 && form == Form::Json {
        return Read::Unusable(
            "the output holds no libtest JSON events (cargo test prints them only with `-- -Z unstable-options \
             --format json`, which needs a nightly toolchain)"
                .to_string(),
        );
    }
    if map.is_empty() {
        return Read::Unusable("it shows no libtest `test … ok` lines nor cargo errors".to_string());
    }
    Read::found(map, notes, source)
}

/// Ends a target: one that started and never printed its summary is an ERROR entry.
fn close(target: Option<Target>, map: &mut TestMap, crashed: &mut Vec<String>) {
    if let Some(t) = target.filter(|t| t.started && !t.finished) {
        map.insert(t.label.clone(), TestResult { status: TestStatus::Error, file: t.file, class: None });
        crashed.push(t.label);
    }
}

fn set(target: &mut Option<Target>, change: impl FnOnce(&mut Target)) {
    if let Some(t) = target.as_mut() {
        change(t);
    }
}

/// `---- name stdout ----`, `---- name stderr ----`.
fn is_output_block(trimmed: &str) -> bool {
    trimmed.starts_with("---- ") && (trimmed.ends_with(" stdout ----") || trimmed.ends_with(" stderr ----"))
}

/// ``error: could not compile `rustcalc` due to previous error`` (and `… (lib) due to 1 previous
/// error`) → `rustcalc`.
fn not_compiled_crate(trimmed: &str) -> Option<&str> {
    let rest = trimmed.strip_prefix("error: could not compile `")?;
    let name = rest.split_once('`')?.0;
    (!name.is_empty()).then_some(name)
}

fn json_status(event: &str) -> Option<TestStatus> {
    match event {
        "ok" => Some(TestStatus::Passed),
        "failed" => Some(TestStatus::Failed),
        "ignored" => Some(TestStatus::Skipped),
        _ => None,
    }
}

/// `test arith::tests::x ... ok`, `test x - should panic ... ok`, `test x ... ignored, reason`,
/// `test src/lib.rs - f (line 3) ... FAILED` → the name and the status.
fn text_result(line: &str) -> Option<(&str, TestStatus)> {
    let rest = line.strip_prefix("test ")?;
    let (name, outcome) = rest.rsplit_once(" ... ")?;
    let status = match outcome.trim_end() {
        "ok" => TestStatus::Passed,
        "FAILED" => TestStatus::Failed,
        o if o == "ignored" || o.starts_with("ignored, ") => TestStatus::Skipped,
        _ => return None,
    };
    let name = name.strip_suffix(" - should panic").unwrap_or(name);
    (!name.is_empty()).then_some((name, status))
}

/// A doc test's name: `src/arith.rs - arith::clamp (line 5)`.
fn doc_test_file(name: &str) -> Option<&str> {
    let (file, rest) = name.split_once(" - ")?;
    (rest.ends_with(')') && rest.contains("(line ")).then_some(file)
}

fn result_for(name: &str, status: TestStatus, target: Option<&Target>) -> (String, TestResult) {
    let result = match doc_test_file(name) {
        Some(file) => TestResult { status, file: Some(file.to_string()), class: None },
        None => TestResult {
            status,
            file: target.and_then(|t| t.file.clone()),
            class: name.rsplit_once("::").map(|(module, _)| module.to_string()),
        },
    };
    (name.to_string(), result)
}

#[cfg(test)]
mod tests;
