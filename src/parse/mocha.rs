//! mocha: the JSON reporter (`--reporter json --reporter-option output=$VERDICT_OUT/mocha.json`)
//! preferred, the spec reporter's console as fallback.
//!
//! **Id form**: `<file> > <fullTitle>`, the file relative to the repository root and
//! `fullTitle` exactly as mocha builds it (suite titles and the test title joined by single
//! spaces, the string `mocha --grep` matches): `test/array.spec.js > Array #indexOf() finds 2`.
//! The JSON reporter gives no suite boundaries, so the suite path is kept only inside
//! `fullTitle`. [`TestResult::file`] is the file.
//!
//! **Console ids lack the file**: the spec reporter never prints file names, so ids read from
//! it are the bare `fullTitle` (suites recovered from indentation, joined by spaces) and a note
//! says so. When mocha's JSON was printed to the console instead of a file, it is extracted
//! from the surrounding text and gives full ids.
//!
//! Statuses: a test in `passes` → PASSED, in `failures` (or with a non-empty `err`) → FAILED,
//! in `pending` → SKIPPED. A failed hook (`"before all" hook for "x"`) is not a test: it becomes
//! an ERROR entry under its own title, and the tests it prevented are absent. Repeated ids get
//! ` [2]`, ` [3]`, … in order of appearance.

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde::Deserialize;

use super::ansi::strip_ansi;
use super::combine::{combine, FastMap, Read, Repeats, TestMap};
use super::runner::{Nesting, ReportSource, Runner};
use super::{
    has_extension, json, relative_path, text_of, ParseError, ParsedTests, StructuredReport, SummaryCounts, TestResult,
    TestStatus,
};

/// The mocha runner: test files are passed as paths (`test_args = "files"`), the JSON reporter
/// writes into `$VERDICT_OUT`, and ids nest as `file > fullTitle`.
pub struct Mocha;

impl Runner for Mocha {
    fn name(&self) -> &'static str {
        "mocha"
    }

    fn report(&self) -> ReportSource {
        ReportSource::OutDir
    }

    fn parse(&self, console: &str, structured: &[StructuredReport]) -> Result<ParsedTests, ParseError> {
        parse(console, structured)
    }

    fn nesting(&self) -> Nesting {
        Nesting { separators: &[(" > ", true)], class_separators: &[], dropped_prefixes: &[] }
    }
}

pub(crate) fn parse(console: &str, structured: &[StructuredReport]) -> Result<ParsedTests, ParseError> {
    let text = strip_ansi(console);
    let structured = read_structured(structured);
    let console = read_console(&text);
    let mut parsed = combine(structured, console, |_, _| None)?;
    parsed.console_summary = closing_summary(&text);
    Ok(parsed)
}

#[derive(Deserialize)]
struct Report<'a> {
    #[allow(dead_code)]
    stats: IgnoredAny,
    #[serde(borrow)]
    tests: Vec<Test<'a>>,
    #[serde(default, borrow)]
    passes: Vec<Test<'a>>,
    #[serde(default, borrow)]
    failures: Vec<Test<'a>>,
    #[serde(default, borrow)]
    pending: Vec<Test<'a>>,
}

#[derive(Deserialize)]
struct Test<'a> {
    #[serde(rename = "fullTitle", borrow)]
    full_title: Cow<'a, str>,
    #[serde(default, borrow)]
    file: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    err: Option<FastMap<Cow<'a, str>, IgnoredAny>>,
}

impl Test<'_> {
    fn key(&self) -> (&str, &str) {
        (self.file.as_deref().unwrap_or(""), &self.full_title)
    }

    fn failed(&self) -> bool {
        self.err.as_ref().is_some_and(|e| !e.is_empty())
    }

    fn id(&self) -> (String, Option<String>) {
        match self.file.as_deref().filter(|f| !f.is_empty()) {
            Some(file) => {
                let file = relative_path(file);
                (format!("{file} > {}", self.full_title), Some(file.to_string()))
            }
            None => (self.full_title.to_string(), None),
        }
    }
}

fn is_hook(title: &str) -> bool {
    ["\"before all\" hook", "\"before each\" hook", "\"after all\" hook", "\"after each\" hook"]
        .iter()
        .any(|h| title.starts_with(h))
}

fn read_structured(reports: &[StructuredReport]) -> Read {
    let mut problems = Vec::new();
    for report in reports.iter().filter(|r| has_extension(&r.name, "json")) {
        let text = text_of(&report.bytes);
        match json::document::<Report>(&text, "stats") {
            Ok((doc, mixed)) => {
                let mut notes = Vec::new();
                if mixed {
                    notes.push(format!("{} holds other text around mocha's JSON; the JSON was extracted", report.name));
                }
                return from_report(&doc, notes, "structured");
            }
            Err(why) => problems.push(format!("the report {} {why}", report.name)),
        }
    }
    if problems.is_empty() {
        return Read::Unusable(
            "no mocha JSON report was collected (the test command should pass --reporter json \
             --reporter-option output=$VERDICT_OUT/mocha.json)"
                .to_string(),
        );
    }
    Read::Unusable(problems.join("; "))
}

fn from_report(doc: &Report, mut notes: Vec<String>, source: &str) -> Read {
    let mut counts: FastMap<(&str, &str), [usize; 3]> = FastMap::default();
    for (slot, list) in [&doc.passes, &doc.failures, &doc.pending].into_iter().enumerate() {
        for t in list {
            counts.entry(t.key()).or_default()[slot] += 1;
        }
    }
    const PASS: usize = 0;
    const FAIL: usize = 1;
    const PENDING: usize = 2;
    let mut map = TestMap::new(Repeats::Number);
    let mut unreported = 0usize;
    for t in &doc.tests {
        let slots = counts.entry(t.key()).or_default();
        let take = |slots: &mut [usize; 3], slot: usize| {
            let had = slots[slot] > 0;
            slots[slot] = slots[slot].saturating_sub(1);
            had
        };
        let status = if t.failed() {
            take(slots, FAIL);
            TestStatus::Failed
        } else if take(slots, PENDING) {
            TestStatus::Skipped
        } else if take(slots, PASS) {
            TestStatus::Passed
        } else if take(slots, FAIL) {
            TestStatus::Failed
        } else {
            unreported += 1;
            continue;
        };
        let (id, file) = t.id();
        map.insert(id, TestResult { status, file, class: None });
    }
    // Failures no test accounts for are hooks (or errors outside any test): ERROR entries.
    for t in &doc.failures {
        let slots = counts.entry(t.key()).or_default();
        if slots[FAIL] == 0 {
            continue;
        }
        slots[FAIL] -= 1;
        let (id, file) = t.id();
        map.insert(id, TestResult { status: TestStatus::Error, file, class: None });
    }
    if unreported > 0 {
        notes.push(format!("{source}: {unreported} tests are listed without an outcome (run interrupted?); left out"));
    }
    Read::found(map, notes, source)
}

// ---------------------------------------------------------------- console

fn read_console(text: &str) -> Read {
    if let Ok((doc, _)) = json::document::<Report>(text, "stats") {
        return from_report(&doc, vec!["console: read mocha's JSON from the console output".to_string()], "console");
    }
    let mut map = TestMap::new(Repeats::Number);
    let mut suites: Vec<&str> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if is_summary(trimmed) {
            break;
        }
        let trimmed = trimmed.trim_end();
        if indent < 2 || indent % 2 != 0 || trimmed.is_empty() {
            continue;
        }
        let depth = indent / 2 - 1;
        match spec_test(trimmed) {
            Some((status, title)) => {
                suites.truncate(depth);
                let mut id = suites.join(" ");
                if !id.is_empty() {
                    id.push(' ');
                }
                id.push_str(title);
                let status = if status == TestStatus::Failed && is_hook(title) { TestStatus::Error } else { status };
                map.insert(id, TestResult { status, file: None, class: None });
            }
            None => {
                suites.truncate(depth);
                suites.push(trimmed);
            }
        }
    }
    if map.is_empty() {
        return Read::Unusable("it shows neither mocha's JSON nor spec reporter results".to_string());
    }
    let notes = vec!["console: mocha's spec output names no files, so these ids are the bare \
                          full titles (`<suites> <title>`), without the `<file> > ` prefix"
        .to_string()];
    Read::found(map, notes, "console")
}

/// `  7 passing (165ms)`, `  3 pending`, `  5 failing`: the end of the test tree.
fn is_summary(trimmed: &str) -> bool {
    let Some((count, rest)) = trimmed.split_once(' ') else {
        return false;
    };
    !count.is_empty() && count.bytes().all(|b| b.is_ascii_digit()) && rest.starts_with("passing")
}

/// A test line of the spec reporter: `✔ title (151ms)`, `✓ title`, `3) title`, `- title`.
fn spec_test(trimmed: &str) -> Option<(TestStatus, &str)> {
    if let Some(rest) = trimmed.strip_prefix("✔ ").or_else(|| trimmed.strip_prefix("✓ ")) {
        return Some((TestStatus::Passed, strip_duration(rest)));
    }
    if let Some(rest) = trimmed.strip_prefix("- ") {
        return Some((TestStatus::Skipped, rest));
    }
    let (number, rest) = trimmed.split_once(") ")?;
    (!number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())).then_some((TestStatus::Failed, rest))
}

/// `title (151ms)` → `title`.
fn strip_duration(text: &str) -> &str {
    let Some(body) = text.strip_suffix("ms)") else {
        return text;
    };
    let Some(open) = body.rfind(" (") else {
        return text;
    };
    let n = &body[open + 2..];
    if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
        &text[..open]
    } else {
        text
    }
}

// ---------------------------------------------------------------- closing summary

/// The counts of the spec reporter's closing lines (`7 passing (165ms)`, then `3 pending` and
/// `5 failing` when there are any), from the last `passing` line, or `None` when the console
/// has none (the JSON reporter prints no summary).
pub(crate) fn closing_summary(text: &str) -> Option<SummaryCounts> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let at = lines.iter().rposition(|l| count_of(l, "passing").is_some())?;
    let mut counts = SummaryCounts { passed: count_of(lines[at], "passing")?, ..Default::default() };
    let mut shown = vec![lines[at]];
    for line in lines[at + 1..].iter().filter(|l| !l.is_empty()).take(2) {
        if let Some(n) = count_of(line, "pending") {
            counts.skipped = n;
        } else if let Some(n) = count_of(line, "failing") {
            counts.failed = n;
        } else {
            break;
        }
        shown.push(line);
    }
    counts.line = shown.join(" / ");
    Some(counts)
}

/// `N word` or `N word (165ms)`.
fn count_of(line: &str, word: &str) -> Option<u64> {
    let (n, rest) = line.split_once(' ')?;
    let rest = rest.strip_prefix(word)?;
    (rest.is_empty() || (rest.starts_with(" (") && rest.ends_with(')'))).then(|| n.parse().ok()).flatten()
}
