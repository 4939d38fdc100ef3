//! Go: `go test -json` preferred, the `go test -v` console as fallback.
//!
//! **Report**: the JSON events are the command's stdout, which the eval script tees into
//! `$VERDICT_OUT/go-test.json` (keeping `go test`'s exit code); the spec's `test_cmd` is
//! `go test -json …`. Every line of it that is a `test2json` event counts (`run`, `pass`, `fail`,
//! `skip`, `output`, and Go 1.24's `build-output` / `build-fail`); other lines are read as
//! `go test`'s own text (before Go 1.24 a build failure is the plain line
//! `FAIL\t<package> [build failed]` amid the JSON).
//!
//! **Id form**: the test's name as `go test -run` matches it and as Multi-SWE-bench lists it:
//! `TestClamp`, a subtest `TestClamp/above_the_range` (Go writes spaces in subtest names as
//! `_`), nested `TestNested/outer/inner`. A parent test has a result of its own (it fails when a
//! subtest fails). [`TestResult::class`] is the package's import path. The same name in two
//! packages is one id with the most severe status (noted).
//!
//! **Package entries** (id = the import path, ERROR): a package that failed with no failing
//! test: it did not build, or its test binary stopped (`os.Exit`, a crash in `TestMain`). Tests
//! that started and never reported (the binary exited under them) are absent, with a note.
//!
//! **Console**: `--- PASS: TestX (0.00s)`, `--- FAIL: …`, `--- SKIP: …` (indented for
//! subtests), each test filed under the package of the next `ok  \t<pkg>` / `FAIL\t<pkg>` line;
//! the console of a `-json` run is read through its events' `output` text. A package line that
//! a test prints files the results above it under that package (only their package: the
//! statuses stand); the JSON, which names each event's package, has no such weakness.
//!
//! Go before 1.20 (Debian bookworm ships 1.19) takes a `--- FAIL: TestX` line that a test
//! prints for a real result, in its JSON and in its console alike; newer `test2json` does not.
//! The exit code check (a run that exits non-zero with nothing failed, or zero with failures) and
//! the package entries are what stand against that.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;

use super::ansi::strip_ansi;
use super::combine::{combine, FastSet, Read, Repeats, TestMap};
use super::runner::{Nesting, ReportSource, Runner, TestFiles};
use super::{has_extension, text_of, ParseError, ParsedTests, StructuredReport, TestResult, TestStatus};

/// The `go test` runner (see the module doc).
pub struct GoTest;

/// The file the eval script tees `go test -json`'s stdout into, in `$VERDICT_OUT`.
const REPORT: &str = "go-test.json";

impl Runner for GoTest {
    fn name(&self) -> &'static str {
        "go"
    }

    /// `test_args = "go"`: the packages holding the test patch's `_test.go` files, as `./dir`
    /// (`.` for the module root); every package (`./...`) when it holds none.
    fn arguments(&self, files: &TestFiles<'_>) -> Option<Vec<String>> {
        let mut packages: Vec<String> = files
            .paths()
            .iter()
            .filter(|p| p.ends_with("_test.go") && files.is_runnable(p))
            .map(|p| match p.rsplit_once('/') {
                Some((dir, _)) => format!("./{dir}"),
                None => ".".to_string(),
            })
            .collect();
        if packages.is_empty() {
            packages.push("./...".to_string());
        }
        Some(packages)
    }

    fn report(&self) -> ReportSource {
        ReportSource::Stdout(REPORT)
    }

    fn parse(&self, console: &str, structured: &[StructuredReport]) -> Result<ParsedTests, ParseError> {
        let text = strip_ansi(console);
        let structured = read_structured(structured);
        let console = read_console(&text);
        combine(structured, console, |_, _| None)
    }

    fn nesting(&self) -> Nesting {
        Nesting { separators: &[("/", false)], class_separators: &[], dropped_prefixes: &[] }
    }
}

/// One `test2json` event (`go doc test2json`), with Go 1.24's build events.
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "Action", borrow)]
    action: Cow<'a, str>,
    #[serde(rename = "Package", default, borrow)]
    package: Option<Cow<'a, str>>,
    #[serde(rename = "Test", default, borrow)]
    test: Option<Cow<'a, str>>,
    #[serde(rename = "Output", default, borrow)]
    output: Option<Cow<'a, str>>,
    /// `build-output` / `build-fail`: `pkg [pkg.test]`.
    #[serde(rename = "ImportPath", default, borrow)]
    import_path: Option<Cow<'a, str>>,
}

/// An event line, or `None` for any other line.
fn event(line: &str) -> Option<Event<'_>> {
    let line = line.trim_end();
    if !line.starts_with('{') {
        return None;
    }
    serde_json::from_str(line).ok()
}

/// What one package did, as both sources see it.
#[derive(Default)]
struct Packages {
    /// Packages in order of first appearance, with whether they failed and whether they did not
    /// build.
    seen: Vec<(String, bool, bool)>,
}

impl Packages {
    fn slot(&mut self, package: &str) -> &mut (String, bool, bool) {
        match self.seen.iter().position(|(p, ..)| p == package) {
            Some(i) => &mut self.seen[i],
            None => {
                self.seen.push((package.to_string(), false, false));
                self.seen.last_mut().expect("just pushed")
            }
        }
    }

    fn failed(&mut self, package: &str) {
        self.slot(package).1 = true;
    }

    fn build_failed(&mut self, package: &str) {
        let slot = self.slot(package);
        slot.1 = true;
        slot.2 = true;
    }

    /// ERROR entries for the packages that failed with no failing test, and a note naming them.
    fn finish(self, map: &mut TestMap, failing: &FastSet<String>, notes: &mut Vec<String>, source: &str) {
        let mut named = Vec::new();
        for (package, failed, build) in self.seen {
            if failed && (build || !failing.contains(&package)) {
                let why = if build { "did not build" } else { "failed with no failing test" };
                named.push(format!("{package} ({why})"));
                map.insert(package.clone(), TestResult { status: TestStatus::Error, file: None, class: Some(package) });
            }
        }
        if !named.is_empty() {
            notes.push(format!(
                "{source}: {} package(s) are ERROR entries named by their import path: {}",
                named.len(),
                named.join(", ")
            ));
        }
    }
}

/// `pkg [pkg.test]` → `pkg`.
fn package_of_import_path(path: &str) -> &str {
    path.split_once(" [").map_or(path, |(p, _)| p).trim()
}

/// `go test`'s own package lines: `ok  \tpkg\t0.01s`, `FAIL\tpkg\t0.01s`,
/// `FAIL\tpkg [build failed]`. Returns the package, whether it failed, and whether it did not
/// build.
fn package_line(line: &str) -> Option<(&str, bool, bool)> {
    let line = line.trim_end();
    let (word, rest) = line.split_once('\t')?;
    let failed = match word.trim_end() {
        "ok" => false,
        "FAIL" => true,
        _ => return None,
    };
    let package = rest.split('\t').next()?.trim();
    let (package, build) = match package.strip_suffix(" [build failed]").or_else(|| package.strip_suffix(" [setup failed]"))
    {
        Some(p) => (p, true),
        None => (package, false),
    };
    (!package.is_empty() && !package.contains(' ')).then_some((package, failed, build))
}

fn test_status(action: &str) -> Option<TestStatus> {
    match action {
        "pass" => Some(TestStatus::Passed),
        "fail" => Some(TestStatus::Failed),
        "skip" => Some(TestStatus::Skipped),
        _ => None,
    }
}

// ---------------------------------------------------------------- JSON

fn read_structured(reports: &[StructuredReport]) -> Read {
    let Some(report) = reports.iter().find(|r| r.name == REPORT).or_else(|| reports.iter().find(|r| has_extension(&r.name, "json")))
    else {
        return Read::Unusable(format!(
            "no `go test -json` report was collected (the test command should be `go test -json …`; the eval \
             script saves its stdout as $VERDICT_OUT/{REPORT})"
        ));
    };
    let text = text_of(&report.bytes);
    let mut map = TestMap::new(Repeats::Merge);
    let mut packages = Packages::default();
    let mut failing: FastSet<String> = FastSet::default();
    // Tests that started, by package, until they report.
    let mut running: BTreeMap<(String, String), ()> = BTreeMap::new();
    let mut events = 0usize;
    for line in text.lines() {
        let Some(event) = event(line) else {
            if let Some((package, failed, build)) = package_line(line) {
                events += 1;
                if build {
                    packages.build_failed(package);
                } else if failed {
                    packages.failed(package);
                }
            }
            continue;
        };
        events += 1;
        let package = event.package.as_deref().unwrap_or("");
        match (event.action.as_ref(), event.test.as_deref()) {
            ("build-fail", _) => {
                if let Some(path) = event.import_path.as_deref() {
                    packages.build_failed(package_of_import_path(path));
                }
            }
            ("run", Some(test)) => {
                running.insert((package.to_string(), test.to_string()), ());
            }
            (action, Some(test)) => {
                if let Some(status) = test_status(action) {
                    running.remove(&(package.to_string(), test.to_string()));
                    if status == TestStatus::Failed {
                        failing.insert(package.to_string());
                    }
                    let class = (!package.is_empty()).then(|| package.to_string());
                    map.insert(test.to_string(), TestResult { status, file: None, class });
                }
            }
            ("fail", None) if !package.is_empty() => packages.failed(package),
            _ => {}
        }
    }
    if events == 0 {
        return Read::Unusable(format!("the report {} holds no `go test -json` events nor package results", report.name));
    }
    let mut notes = Vec::new();
    packages.finish(&mut map, &failing, &mut notes, "structured");
    if !running.is_empty() {
        let names: Vec<String> = running.keys().map(|(p, t)| format!("{t} ({p})")).collect();
        notes.push(format!(
            "structured: {} test(s) started and never reported (their test binary exited): {}",
            names.len(),
            names.join(", ")
        ));
    }
    Read::found(map, notes, "structured")
}

// ---------------------------------------------------------------- console

fn read_console(text: &str) -> Read {
    let mut state = Console::default();
    for line in text.lines() {
        match event(line) {
            Some(event) => {
                if let (Some(output), "output") = (event.output.as_deref(), event.action.as_ref()) {
                    output.lines().for_each(|part| state.line(part));
                }
            }
            None => state.line(line),
        }
    }
    let Console { mut map, packages, failing, mut pending } = state;
    for (test, status) in pending.drain(..) {
        map.insert(test, TestResult { status, file: None, class: None });
    }
    let mut notes = Vec::new();
    packages.finish(&mut map, &failing, &mut notes, "console");
    if map.is_empty() {
        return Read::Unusable("it shows no `--- PASS/FAIL/SKIP` lines nor package results of `go test`".to_string());
    }
    Read::found(map, notes, "console")
}

/// The console read so far.
struct Console {
    map: TestMap,
    packages: Packages,
    failing: FastSet<String>,
    /// Results seen since the last package line, which names their package.
    pending: Vec<(String, TestStatus)>,
}

impl Default for Console {
    fn default() -> Self {
        Console {
            map: TestMap::new(Repeats::Merge),
            packages: Packages::default(),
            failing: FastSet::default(),
            pending: Vec::new(),
        }
    }
}

impl Console {
    fn line(&mut self, line: &str) {
        if let Some((status, test)) = result_line(line) {
            self.pending.push((test.to_string(), status));
            return;
        }
        let Some((package, failed, build)) = package_line(line) else { return };
        if build {
            self.packages.build_failed(package);
            return;
        }
        if failed {
            self.packages.failed(package);
        }
        if self.pending.iter().any(|(_, s)| *s == TestStatus::Failed) {
            self.failing.insert(package.to_string());
        }
        for (test, status) in self.pending.drain(..) {
            self.map.insert(test, TestResult { status, file: None, class: Some(package.to_string()) });
        }
    }
}

/// `--- PASS: TestX/case (0.00s)` (indented for subtests) → the status and the name.
fn result_line(line: &str) -> Option<(TestStatus, &str)> {
    let rest = line.trim_start().strip_prefix("--- ")?;
    let (word, rest) = rest.split_once(": ")?;
    let status = match word {
        "PASS" => TestStatus::Passed,
        "FAIL" => TestStatus::Failed,
        "SKIP" => TestStatus::Skipped,
        _ => return None,
    };
    let rest = rest.trim_end();
    let name = match rest.rsplit_once(" (") {
        Some((name, time)) if is_duration(time) => name,
        _ => rest,
    };
    (!name.is_empty() && !name.contains(char::is_whitespace)).then_some((status, name))
}

/// `0.00s)`: what follows ` (` after a test name.
fn is_duration(text: &str) -> bool {
    text.strip_suffix("s)").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

#[cfg(test)]
mod tests;
