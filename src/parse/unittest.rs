//! Python's unittest in verbose mode (`python -m unittest -v`, and Django's own runner,
//! `./tests/runtests.py --verbosity 2`, which prints unittest's verbose lines): the console only,
//! since unittest writes no structured report.
//!
//! **Result lines**: `<description> ... <status>`, where the status is `ok`, `FAIL`, `ERROR`,
//! `skipped 'reason'`, `expected failure` or `unexpected success` (→ PASSED, FAILED, ERROR,
//! SKIPPED, XFAIL, XPASS). A test that prints before its status splits it over lines
//! (`test_x (m.C) ... some output`, then `ok` on a line of its own); the status is given to the
//! test still waiting for one.
//!
//! **Id form**: the description as unittest prints it before ` ... `, which is what SWE-bench's
//! Django parser reads and so what its FAIL_TO_PASS and PASS_TO_PASS lists hold:
//! `test_x (app.tests.FooTests)` (Python 3.11 and later: `test_x (app.tests.FooTests.test_x)`);
//! for a test with a docstring, unittest prints `test_x (app.tests.FooTests)` on one line and the
//! docstring's first line before ` ... `, and that first line is the id. [`TestResult::class`] is
//! the class (`app.tests.FooTests`) either way; unittest names no file.
//!
//! **Subtests**: a failing subtest is its own entry, `test_x (app.tests.FooTests) (i=1)` (Python
//! 3.11 prints a line for it; earlier versions only its `FAIL:` block), and its test is FAILED.
//! A class or module fixture that fails (`setUpClass (app.tests.FooTests)`) and a module that
//! fails to import (`broken (unittest.loader._FailedTest)`) are ERROR entries under the names
//! unittest gives them; the tests they prevented are absent.
//!
//! **The error list** after the results (`======` lines, then `FAIL: <description>` or
//! `ERROR: <description>`, the docstring's first line below when there is one) confirms the
//! statuses and supplies what the verbose lines left out (Python before 3.11 prints a bare
//! `ERROR` for a failed `setUpClass`, and nothing for a test whose subtests failed).
//!
//! **Summary**: `Ran N tests in 0.1s` then `OK (skipped=1)` or `FAILED (failures=2, errors=1,
//! skipped=1, expected failures=1, unexpected successes=1)`. unittest counts no passes, and a
//! failing subtest counts as a failure of its own while its test is counted once in `Ran N`:
//! [`SummaryCounts::passed`] is N less the skipped and expected outcomes, an upper bound. A
//! console with results but no `Ran N tests` line stopped part-way
//! ([`ParsedTests::incomplete`]), and a test that printed no status is named in a note and left
//! out.
//!
//! Like every console format, a line the code under test prints in this form counts: unittest
//! has no report to prefer. Two checks narrow it: once the run is complete, a FAIL or ERROR line
//! for a test the error list does not name is left out (with a note), and the summary check
//! catches more passes than tests run. The eval script's markers bound where the test output
//! starts and ends.

use std::collections::HashSet;
use std::sync::OnceLock;

use regex::Regex;

use super::ansi::strip_ansi;
use super::combine::{combine, Read, Repeats, TestMap};
use super::{
    Nesting, ParseError, ParsedTests, ReportSource, Runner, StructuredReport, SummaryCounts, TestResult, TestStatus,
};

/// Python's unittest in verbose mode, and Django's runner.
pub struct Unittest;

impl Runner for Unittest {
    fn name(&self) -> &'static str {
        "unittest"
    }

    fn report(&self) -> ReportSource {
        ReportSource::Console
    }

    fn parse(&self, console: &str, structured: &[StructuredReport]) -> Result<ParsedTests, ParseError> {
        parse(console, structured)
    }

    /// Ids name no file or class by their form; grading matches a coarser expected id through
    /// the recorded class or file.
    fn nesting(&self) -> Nesting {
        Nesting { separators: &[], class_separators: &[], dropped_prefixes: &[] }
    }
}

pub(crate) fn parse(console: &str, _structured: &[StructuredReport]) -> Result<ParsedTests, ParseError> {
    let text = strip_ansi(console);
    let read = read_console(&text);
    let structured = Read::Unusable("unittest writes no structured report".into());
    let mut parsed = combine(structured, read.results, |_, _| None)?;
    // Reading the console is this runner's way, not a fallback: keep only what it noticed.
    parsed.notes.retain(|n| !n.starts_with("read the console because"));
    parsed.console_summary = read.summary;
    if parsed.console_summary.is_none() {
        parsed.incomplete =
            Some("the console has no `Ran N tests` line: the run stopped before unittest's summary".into());
    }
    Ok(parsed)
}

/// `name (dotted.path)`: a test's own description, as the first line of a documented test's
/// description or as a whole one.
fn test_description() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^([A-Za-z_][\w]*) \(([\w.]+)\)$").expect("valid regex"))
}

/// A subtest's description: its test's description followed by ` (params)` or ` [message]`.
fn subtest_description() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^([A-Za-z_][\w]* \([\w.]+\)) [(\[].*$").expect("valid regex"))
}

fn status_of(word: &str) -> Option<TestStatus> {
    match word.trim() {
        "ok" | "OK" => Some(TestStatus::Passed),
        "FAIL" => Some(TestStatus::Failed),
        "ERROR" => Some(TestStatus::Error),
        "expected failure" => Some(TestStatus::Xfail),
        "unexpected success" => Some(TestStatus::Xpass),
        w if w == "skipped" || w.starts_with("skipped '") || w.starts_with("skipped \"") => Some(TestStatus::Skipped),
        _ => None,
    }
}

/// The class of a description `name (a.b.C)` or `name (a.b.C.name)`.
fn class_of(description: &str) -> Option<String> {
    let caps = test_description().captures(description)?;
    let (name, path) = (&caps[1], &caps[2]);
    let class = path.strip_suffix(&format!(".{name}")).unwrap_or(path);
    Some(class.to_string())
}

struct ConsoleRead {
    results: Read,
    summary: Option<SummaryCounts>,
}

/// A test that printed its description and no status yet.
struct Waiting {
    id: String,
    class: Option<String>,
}

fn read_console(text: &str) -> ConsoleRead {
    let lines: Vec<&str> = text.lines().collect();
    let mut map = TestMap::new(Repeats::Merge);
    let mut notes = Vec::new();
    let mut waiting: Vec<Waiting> = Vec::new();
    // The previous line when it was a test's own description alone (a documented test).
    let mut described: Option<String> = None;
    let mut summary: Option<SummaryCounts> = None;
    let mut seen: HashSet<String> = HashSet::new();
    // Ids the error list names, and FAIL / ERROR results read from a result line (which the
    // error list must confirm once the run is complete).
    let mut listed: HashSet<String> = HashSet::new();
    let mut from_lines: Vec<String> = Vec::new();
    let mut add = |map: &mut TestMap, id: &str, class: Option<String>, status: TestStatus| {
        seen.insert(id.to_string());
        map.insert(id.to_string(), TestResult { status, file: None, class });
    };
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        let line = raw.trim();
        i += 1;

        // The error list: `=====` then `FAIL: <description>`, maybe the docstring's first line.
        if line.len() >= 40 && line.bytes().all(|b| b == b'=') {
            let Some(header) = lines.get(i).map(|l| l.trim()) else { continue };
            let (status, description) = if let Some(d) = header.strip_prefix("FAIL: ") {
                (TestStatus::Failed, d)
            } else if let Some(d) = header.strip_prefix("ERROR: ") {
                (TestStatus::Error, d)
            } else if let Some(d) = header.strip_prefix("UNEXPECTED SUCCESS: ") {
                (TestStatus::Xpass, d)
            } else {
                continue;
            };
            i += 1;
            let docstring = lines.get(i).map(|l| l.trim()).filter(|l| !l.is_empty() && !l.starts_with("-----"));
            let id = docstring.unwrap_or(description);
            listed.insert(id.to_string());
            let parent = subtest_description().captures(description).map(|c| c[1].to_string());
            let class = class_of(parent.as_deref().unwrap_or(description));
            add(&mut map, id, class.clone(), status);
            if let Some(parent) = parent {
                add(&mut map, &parent, class, TestStatus::Failed);
                waiting.retain(|w| w.id != parent);
            }
            waiting.retain(|w| w.id != id);
            continue;
        }

        if let Some(counts) = ran_line(line) {
            let outcome = lines[i..].iter().map(|l| l.trim()).find(|l| !l.is_empty()).unwrap_or("");
            let mut s = outcome_counts(outcome);
            let total = summary.take().unwrap_or_default();
            s.passed = total.passed + counts.saturating_sub(s.skipped + s.xfailed + s.xpassed);
            s.failed += total.failed;
            s.errors += total.errors;
            s.skipped += total.skipped;
            s.xfailed += total.xfailed;
            s.xpassed += total.xpassed;
            s.line = if total.line.is_empty() {
                format!("{line} / {outcome}")
            } else {
                format!("{} / {line} / {outcome}", total.line)
            };
            summary = Some(s);
            continue;
        }

        let previous = described.take();
        if let Some(status) = status_of(line) {
            // A status alone on its line: the test waiting for it printed something first.
            if let Some(w) = waiting.pop() {
                add(&mut map, &w.id, w.class, status);
            }
            continue;
        }
        let (before, after) = match line.rsplit_once(" ... ") {
            Some(split) => split,
            None => match line.strip_suffix(" ...") {
                Some(before) => (before, ""),
                None => {
                    if test_description().is_match(line) {
                        described = Some(line.to_string());
                    }
                    continue;
                }
            },
        };
        let status = status_of(after);
        // `a ... b ... ok`: tests before the last printed no status of their own (Python before
        // 3.11 writes nothing for a test whose subtests failed), unless the text is output.
        let (description, unreported): (&str, Vec<&str>) = match status {
            Some(_) => {
                let segments: Vec<&str> = before.split(" ... ").collect();
                match segments.split_last() {
                    Some((last, rest)) if !rest.is_empty() && test_description().is_match(last) => {
                        (last, rest.iter().copied().filter(|s| test_description().is_match(s)).collect())
                    }
                    _ => (before, Vec::new()),
                }
            }
            // `desc ... output`: the first ` ... ` ends the description.
            None => (line.split_once(" ... ").map_or(before, |(d, _)| d), Vec::new()),
        };
        for d in unreported {
            waiting.push(Waiting { id: d.to_string(), class: class_of(d) });
        }
        let description = description_after_output(description);
        let class = previous.as_deref().and_then(class_of).or_else(|| {
            class_of(subtest_description().captures(description).map_or(description, |c| c.get(1).unwrap().as_str()))
        });
        match status {
            Some(status) => {
                if let Some(parent) = subtest_description().captures(description).map(|c| c[1].to_string()) {
                    if status.is_failure() {
                        add(&mut map, &parent, class.clone(), TestStatus::Failed);
                    }
                    waiting.retain(|w| w.id != parent);
                }
                waiting.retain(|w| w.id != description);
                if status.is_failure() && status != TestStatus::Xpass {
                    from_lines.push(description.to_string());
                }
                add(&mut map, description, class, status);
            }
            None => waiting.push(Waiting { id: description.to_string(), class }),
        }
    }
    let unresolved: Vec<String> = waiting.into_iter().map(|w| w.id).filter(|id| !seen.contains(id)).collect();
    if !unresolved.is_empty() {
        notes.push(format!(
            "{} test(s) printed their description and no status, and are left out: {}",
            unresolved.len(),
            unresolved.join(", ")
        ));
    }
    // unittest lists every failure and error after the results; once the run is complete, a
    // FAIL or ERROR line the list does not name was printed by the code under test.
    let mut printed: Vec<String> = Vec::new();
    if summary.is_some() {
        printed = from_lines.into_iter().filter(|id| !listed.contains(id)).collect();
        printed.sort();
        printed.dedup();
    }
    let (mut tests, _) = map.finish(None);
    if !printed.is_empty() {
        for id in &printed {
            tests.remove(id);
        }
        notes.push(format!(
            "{} result line(s) said FAIL or ERROR for a test the error list does not name, and are \
             left out as output of the code under test: {}",
            printed.len(),
            printed.join(", ")
        ));
    }
    // Each failure is read twice (its result line and the error list): no note about repeats.
    let results = if tests.is_empty() {
        Read::Unusable("the console has no `<test> ... <status>` line".into())
    } else {
        Read::Found(tests, notes)
    };
    ConsoleRead { results, summary }
}

/// A description that output written without a newline ran into (`Applying x... OK` of a
/// migration, then the test's description on the same line): the description after the last
/// `...`, when that is one.
fn description_after_output(description: &str) -> &str {
    if test_description().is_match(description) || subtest_description().is_match(description) {
        return description;
    }
    match description.rsplit_once("...") {
        Some((_, rest)) if test_description().is_match(rest.trim()) => rest.trim(),
        _ => description,
    }
}

/// `Ran 27 tests in 0.014s` → 27.
fn ran_line(line: &str) -> Option<u64> {
    let rest = line.strip_prefix("Ran ")?;
    let (n, rest) = rest.split_once(' ')?;
    if !(rest.starts_with("tests in ") || rest.starts_with("test in ")) {
        return None;
    }
    n.parse().ok()
}

/// The counts of `OK (skipped=1)` / `FAILED (failures=2, errors=1, …)`.
fn outcome_counts(line: &str) -> SummaryCounts {
    let mut s = SummaryCounts::default();
    let Some(inside) = line.split_once('(').and_then(|(_, r)| r.strip_suffix(')')) else { return s };
    for part in inside.split(',') {
        let Some((key, n)) = part.trim().split_once('=') else { continue };
        let Ok(n) = n.trim().parse::<u64>() else { continue };
        match key.trim() {
            "failures" => s.failed = n,
            "errors" => s.errors = n,
            "skipped" => s.skipped = n,
            "expected failures" => s.xfailed = n,
            "unexpected successes" => s.xpassed = n,
            _ => {}
        }
    }
    s
}
