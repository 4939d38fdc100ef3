//! sympy's own test runner, `bin/test --verbose` (sympy/testing/runtests.py, sympy/utilities
//! before 1.6): the console only, since it writes no structured report.
//!
//! **Files**: each test file opens with `path/test_x.py[N] `; a file that fails to import is
//! `path/test_x.py[?]   Failed to import   [FAIL]` and becomes an ERROR entry named by its path.
//! `[OK]` / `[FAIL]` at the right edge close a file, on the last test's line or a line of their
//! own.
//!
//! **Result lines**: `test_name <status>`, the status being `ok` (PASSED), `F` (FAILED), `E`
//! (ERROR), `f` (XFAIL), `X` (XPASS), `<reason> s` or ` - s` (SKIPPED), `Slow w` (a slow test
//! not run: SKIPPED), `Timeout T` (skipped on a timeout: SKIPPED), a bare `T` (an exception from
//! a timeout: ERROR) and `KeyboardInterrupt K` (SKIPPED). A test that prints writes its output
//! after its name, and its status then comes on a later line of its own; the status is given to
//! the test still waiting for one, and a test that never got one is named in a note.
//!
//! **Id form**: the test function's bare name (`test_issue_21651`), as SWE-bench's
//! `parse_log_sympy` reads it and so as its FAIL_TO_PASS and PASS_TO_PASS lists hold it;
//! [`TestResult::file`] is the file it ran in. The same name in two files is one entry with the
//! most severe status (what SWE-bench's map keeps is the last one), and a note counts them.
//!
//! **The end**: a line of underscores starts the failure and xpass lists (no more result
//! lines); `tests finished: 5 passed, 1 failed, 3 skipped, 1 expected to fail, 1 expected to
//! fail but passed, 2 exceptions, in 0.10 seconds` (wrapped over two lines) gives the counts. A
//! console with results and no `tests finished:` stopped part-way ([`ParsedTests::incomplete`]).
//!
//! Like every console format, a line the code under test prints in this shape counts.

use std::sync::OnceLock;

use regex::Regex;

use super::ansi::strip_ansi;
use super::combine::{combine, Read, Repeats, TestMap};
use super::{
    Nesting, ParseError, ParsedTests, ReportSource, Runner, StructuredReport, SummaryCounts, TestResult, TestStatus,
};

/// sympy's bin/test --verbose.
pub struct Sympy;

impl Runner for Sympy {
    fn name(&self) -> &'static str {
        "sympy"
    }

    fn report(&self) -> ReportSource {
        ReportSource::Console
    }

    fn parse(&self, console: &str, structured: &[StructuredReport]) -> Result<ParsedTests, ParseError> {
        parse(console, structured)
    }

    /// Ids name no file or class by their form; grading matches a coarser expected id through
    /// the recorded file.
    fn nesting(&self) -> Nesting {
        Nesting { separators: &[], class_separators: &[], dropped_prefixes: &[] }
    }
}

pub(crate) fn parse(console: &str, _structured: &[StructuredReport]) -> Result<ParsedTests, ParseError> {
    let text = strip_ansi(console);
    let (results, summary) = read_console(&text);
    let structured = Read::Unusable("sympy's bin/test writes no structured report".into());
    let mut parsed = combine(structured, results, |_, _| None)?;
    // Reading the console is this runner's way, not a fallback: keep only what it noticed.
    parsed.notes.retain(|n| !n.starts_with("read the console because"));
    if summary.is_none() {
        parsed.incomplete =
            Some("the console has no `tests finished:` line: the run stopped before bin/test's summary".into());
    }
    parsed.console_summary = summary;
    Ok(parsed)
}

/// `sympy/core/tests/test_basic.py[12] ` (a file's tests start) or `…[?]   Failed to import`.
fn file_header() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^(\S+\.py)\[(\d+|\?)\](.*)$").expect("valid regex"))
}

/// `test_name` and what follows it on its line.
fn test_line() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^(test_\w*)(?: (.*))?$").expect("valid regex"))
}

/// The status a result ends with. `alone` is a status on a line of its own (after the test's
/// output), where the one-word forms are the only ones.
fn status_of(rest: &str, alone: bool) -> Option<TestStatus> {
    let rest = rest.trim();
    let exact = match rest {
        "ok" => Some(TestStatus::Passed),
        "F" => Some(TestStatus::Failed),
        "E" | "T" => Some(TestStatus::Error),
        "f" => Some(TestStatus::Xfail),
        "X" => Some(TestStatus::Xpass),
        "s" | "- s" | "w" | "K" => Some(TestStatus::Skipped),
        _ => None,
    };
    if exact.is_some() || alone {
        return exact;
    }
    // `<reason> s`, `Slow w`, `Timeout T`, `KeyboardInterrupt K`: a skip with its reason; output
    // written without a newline before `ok`, `F`, `E`, `f`, `X` (as SWE-bench reads it).
    let (_, last) = rest.rsplit_once(' ')?;
    match last {
        "s" | "w" | "K" | "T" => Some(TestStatus::Skipped),
        "ok" => Some(TestStatus::Passed),
        "F" => Some(TestStatus::Failed),
        "E" => Some(TestStatus::Error),
        "f" => Some(TestStatus::Xfail),
        "X" => Some(TestStatus::Xpass),
        _ => None,
    }
}

/// A line without the `[OK]` / `[FAIL]` that closes a file at its right edge.
fn without_file_mark(line: &str) -> &str {
    let trimmed = line.trim_end();
    for mark in ["[OK]", "[FAIL]"] {
        if let Some(rest) = trimmed.strip_suffix(mark) {
            if rest.is_empty() || rest.ends_with(' ') {
                return rest.trim_end();
            }
        }
    }
    trimmed
}

fn read_console(text: &str) -> (Read, Option<SummaryCounts>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut map = TestMap::new(Repeats::Merge);
    let mut notes = Vec::new();
    let mut file: Option<String> = None;
    let mut waiting: Option<(String, Option<String>)> = None;
    let mut unresolved: Vec<String> = Vec::new();
    let mut summary = None;
    let mut in_results = true;
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        i += 1;
        if let Some(at) = raw.find("tests finished:") {
            // The summary wraps: read on to the line with `seconds`.
            let mut joined = raw[at..].trim().to_string();
            while !joined.contains("seconds") && i < lines.len() {
                joined = format!("{joined} {}", lines[i].trim());
                i += 1;
            }
            summary = Some(summary_counts(&joined));
            continue;
        }
        if !in_results {
            continue;
        }
        let line = without_file_mark(raw);
        if line.len() >= 20 && line.trim().bytes().all(|b| b == b'_') {
            // The failure and xpass lists: tracebacks, not results.
            in_results = false;
            continue;
        }
        if let Some(caps) = file_header().captures(line) {
            let path = caps[1].to_string();
            if &caps[2] == "?" {
                if caps[3].contains("Failed to import") {
                    map.insert(
                        path.clone(),
                        TestResult { status: TestStatus::Error, file: Some(path.clone()), class: None },
                    );
                }
                file = None;
            } else {
                file = Some(path);
            }
            continue;
        }
        if file.is_some() {
            if let Some(caps) = test_line().captures(line) {
                if let Some((name, _)) = waiting.take() {
                    unresolved.push(name);
                }
                let name = caps[1].to_string();
                match caps.get(2).and_then(|rest| status_of(rest.as_str(), false)) {
                    Some(status) => map.insert(name, TestResult { status, file: file.clone(), class: None }),
                    None => waiting = Some((name, file.clone())),
                }
                continue;
            }
        }
        if waiting.is_some() {
            if let Some(status) = status_of(line, true) {
                let (name, file) = waiting.take().expect("checked");
                map.insert(name, TestResult { status, file, class: None });
            }
        }
    }
    unresolved.extend(waiting.map(|(name, _)| name));
    if !unresolved.is_empty() {
        notes.push(format!(
            "{} test(s) printed their name and no status, and are left out: {}",
            unresolved.len(),
            unresolved.join(", ")
        ));
    }
    let results = if map.is_empty() {
        Read::Unusable("the console has no `test_name <status>` line under a `file.py[N]` header".into())
    } else {
        Read::found(map, notes, "the console")
    };
    (results, summary)
}

/// The counts of `tests finished: 5 passed, 1 failed, 3 skipped, 1 expected to fail, 1 expected
/// to fail but passed, 2 exceptions, in 0.10 seconds`.
fn summary_counts(line: &str) -> SummaryCounts {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(\d+) (passed|failed|skipped|expected to fail but passed|expected to fail|exceptions?)\b")
            .expect("valid regex")
    });
    let mut s = SummaryCounts { line: line.to_string(), ..SummaryCounts::default() };
    for caps in re.captures_iter(line) {
        let Ok(n) = caps[1].parse::<u64>() else { continue };
        match &caps[2] {
            "passed" => s.passed = n,
            "failed" => s.failed = n,
            "skipped" => s.skipped = n,
            "expected to fail but passed" => s.xpassed = n,
            "expected to fail" => s.xfailed = n,
            _ => s.errors = n,
        }
    }
    s
}
