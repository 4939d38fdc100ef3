//! jest (JavaScript and TypeScript): `jest --json --outputFile=$VERDICT_OUT/jest.json`
//! preferred, the `--verbose` console as fallback.
//!
//! **Id form**: `<file> > <describe> > … > <title>`, the file relative to the repository root
//! (`test/math.test.js > math > add > adds two numbers`); a test outside any describe is
//! `<file> > <title>`. Durations never enter an id. [`TestResult::file`] is the file and
//! [`TestResult::class`] the describe path (`<file> > <describe> > …`) when there is one.
//!
//! **Repeated ids**: the same id seen again (two tests with one title in one describe, or one
//! file run several times, as with jest `projects` per timezone) becomes `<id> [2]`, `<id> [3]`,
//! … in order of appearance, and a note says how many. The JSON lists files in completion
//! order, so which run of a multi-project file gets ` [2]` may change between runs.
//!
//! **File-level entries** (id = the file): a file whose suite failed to run (syntax error,
//! missing module: `● Test suite failed to run`, or a failed file with no failed test) is an
//! ERROR, so grading sees it. In the console, a `PASS`/`FAIL` file block without per-test lines
//! (jest run without `--verbose`) becomes one PASSED/FAILED entry for the file, plus a FAILED
//! entry for each `● outer › inner › title` failure heading in it.
//!
//! Statuses: `passed` → PASSED, `failed` → FAILED, `pending`/`skipped`/`disabled`/`todo` →
//! SKIPPED. Console marks: `✓`/`√` passed, `✕`/`×` failed, `○ skipped`, `✎ todo`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;

use super::ansi::strip_ansi;
use super::combine::{combine, Read, Repeats, TestMap};
use super::runner::{Nesting, ReportSource, Runner, TestFiles};
use super::{
    has_extension, json, relative_path, text_of, ParseError, ParsedTests, StructuredReport, SummaryCounts, TestResult,
    TestStatus,
};

/// The jest runner: `test_args = "jest"` passes the test patch's runnable files as paths and maps
/// a snapshot (`__snapshots__/x.test.js.snap`) to its spec file (`x.test.js`); `--json
/// --outputFile` writes the report into `$VERDICT_OUT`; ids nest as `file > describe > … > title`.
pub struct Jest;

impl Runner for Jest {
    fn name(&self) -> &'static str {
        "jest"
    }

    fn arguments(&self, files: &TestFiles<'_>) -> Option<Vec<String>> {
        let mut args = Vec::new();
        for path in files.paths() {
            if let Some(spec) = snapshot_spec_file(path) {
                args.push(spec);
            } else if files.is_runnable(path) {
                args.push(path.clone());
            }
        }
        Some(args)
    }

    fn expects_runnable_files(&self) -> bool {
        true
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

/// `src/__snapshots__/x.test.js.snap` → `src/x.test.js`.
fn snapshot_spec_file(path: &str) -> Option<String> {
    let stem = path.strip_suffix(".snap")?;
    let (dir, file) = stem.rsplit_once("__snapshots__/")?;
    Some(format!("{dir}{file}"))
}

pub(crate) fn parse(console: &str, structured: &[StructuredReport]) -> Result<ParsedTests, ParseError> {
    let text = strip_ansi(console);
    let structured = read_structured(structured, &text);
    let known = match &structured {
        Read::Found(map, _) => Some(map),
        Read::Unusable(_) => None,
    };
    let console = read_console(&text, known);
    let incomplete = stopped_part_way(&structured, &text);
    let mut parsed = combine(structured, console, |_, _| None)?;
    parsed.console_summary = closing_summary(&text);
    if let Some(why) = &incomplete {
        parsed.notes.push(format!("console: {why}"));
    }
    parsed.incomplete = incomplete;
    Ok(parsed)
}

const SEP: &str = " > ";

fn test_result(file: &str, ancestors: &[impl AsRef<str>], status: TestStatus) -> TestResult {
    let class = (!ancestors.is_empty()).then(|| {
        let mut class = file.to_string();
        for a in ancestors {
            class.push_str(SEP);
            class.push_str(a.as_ref());
        }
        class
    });
    TestResult { status, file: Some(file.to_string()), class }
}

fn file_result(file: &str, status: TestStatus) -> TestResult {
    TestResult { status, file: Some(file.to_string()), class: None }
}

// ---------------------------------------------------------------- JSON

#[derive(Deserialize)]
struct Report<'a> {
    #[serde(rename = "testResults", borrow)]
    test_results: Vec<FileResult<'a>>,
}

#[derive(Deserialize)]
struct FileResult<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default, borrow)]
    status: Option<Cow<'a, str>>,
    #[serde(default)]
    message: Option<NonEmpty>,
    #[serde(rename = "assertionResults", default, borrow)]
    assertions: Vec<Assertion<'a>>,
}

#[derive(Deserialize)]
struct Assertion<'a> {
    #[serde(rename = "ancestorTitles", default, borrow)]
    ancestors: Vec<Cow<'a, str>>,
    #[serde(borrow)]
    title: Cow<'a, str>,
    #[serde(borrow)]
    status: Cow<'a, str>,
}

/// Whether a string field is non-empty, read without keeping (or allocating) the text: jest's
/// `message` holds whole stack traces.
#[derive(Clone, Copy)]
struct NonEmpty(bool);

impl<'de> Deserialize<'de> for NonEmpty {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = NonEmpty;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<NonEmpty, E> {
                Ok(NonEmpty(!v.is_empty()))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

fn json_status(status: &str) -> Option<TestStatus> {
    match status {
        "passed" => Some(TestStatus::Passed),
        "failed" => Some(TestStatus::Failed),
        "pending" | "skipped" | "disabled" | "todo" => Some(TestStatus::Skipped),
        _ => None,
    }
}

pub(crate) fn read_structured(reports: &[StructuredReport], console: &str) -> Read {
    let mut notes = Vec::new();
    let candidates: Vec<&StructuredReport> = reports.iter().filter(|r| has_extension(&r.name, "json")).collect();
    let mut problems = Vec::new();
    for report in &candidates {
        let text = text_of(&report.bytes);
        match json::document::<Report>(&text, "numFailedTestSuites") {
            Ok((doc, mixed)) => {
                if mixed {
                    notes.push(format!("{} holds other text around jest's JSON; the JSON was extracted", report.name));
                }
                return from_report(doc, notes);
            }
            Err(why) => problems.push(format!("the report {} {why}", report.name)),
        }
    }
    // `jest --json` without --outputFile prints the document to stdout.
    if let Ok((doc, _)) = json::document::<Report>(console, "numFailedTestSuites") {
        problems.push("jest's JSON was found in the console output".to_string());
        notes.extend(problems);
        return from_report(doc, notes);
    }
    if problems.is_empty() {
        return Read::Unusable(
            "no jest JSON report was collected (the test command should pass --json \
             --outputFile=$VERDICT_OUT/jest.json)"
                .to_string(),
        );
    }
    Read::Unusable(problems.join("; "))
}

fn from_report(doc: Report, mut notes: Vec<String>) -> Read {
    let mut map = TestMap::new(Repeats::Number);
    let mut unknown = 0usize;
    for suite in &doc.test_results {
        let file = relative_path(&suite.name);
        let mut failed = 0usize;
        for a in &suite.assertions {
            let Some(status) = json_status(&a.status) else {
                unknown += 1;
                continue;
            };
            failed += usize::from(status == TestStatus::Failed);
            let mut id = String::with_capacity(file.len() + a.title.len() + 16);
            id.push_str(file);
            for ancestor in &a.ancestors {
                id.push_str(SEP);
                id.push_str(ancestor);
            }
            id.push_str(SEP);
            id.push_str(&a.title);
            map.insert(id, test_result(file, &a.ancestors, status));
        }
        let suite_failed = suite.status.as_deref() == Some("failed")
            || (suite.assertions.is_empty() && suite.message.is_some_and(|m| m.0));
        if suite_failed && failed == 0 {
            map.insert(file.to_string(), file_result(file, TestStatus::Error));
        }
    }
    if unknown > 0 {
        notes.push(format!("structured: {unknown} tests had a status jest documents no meaning for; left out"));
    }
    Read::found(map, notes, "structured")
}

// ---------------------------------------------------------------- console

/// One `PASS`/`FAIL` block of the console.
struct Block<'t> {
    file: String,
    passed: bool,
    /// The tree's tests in order: describe path, title as printed (maybe with a duration, maybe
    /// over several lines), status.
    tests: Vec<(Vec<&'t str>, String, TestStatus)>,
    suite_error: bool,
    /// `● outer › inner › title` failure headings: the failing tests' exact titles, and the
    /// failing tests themselves when the tree is absent.
    failures: Vec<&'t str>,
}

/// `known`: the ids of the structured report, when it was read; they tell a title's own
/// trailing `(3 ms)` from a duration jest printed.
pub(crate) fn read_console(text: &str, known: Option<&BTreeMap<String, TestResult>>) -> Read {
    let mut map = TestMap::new(Repeats::Number);
    let mut block: Option<Block> = None;
    let mut describes: Vec<&str> = Vec::new();
    let mut in_details = false;
    let mut console_block: Option<usize> = None;
    // The last test line, while the lines after it may continue its title.
    let mut open_title = false;
    for line in text.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if let Some(outer) = console_block {
            if trimmed.is_empty() || indent > outer {
                continue;
            }
            console_block = None;
        }
        if let Some((passed, file)) = header(line) {
            finish(&mut map, block.take(), known);
            block = Some(Block { file: file.to_string(), passed, tests: Vec::new(), suite_error: false, failures: Vec::new() });
            describes.clear();
            in_details = false;
            open_title = false;
            continue;
        }
        if trimmed.starts_with("Summary of all failing tests") {
            // A recap of the failures above (printed past 20 suites): nothing new.
            break;
        }
        if trimmed.starts_with("Test Suites:") {
            finish(&mut map, block.take(), known);
            open_title = false;
            continue;
        }
        let Some(current) = block.as_mut() else {
            continue;
        };
        // A title with a newline goes on at the start of the next line.
        if open_title && indent < 2 && !trimmed.is_empty() && !trimmed.starts_with('●') {
            if let Some((_, title, _)) = current.tests.last_mut() {
                title.push('\n');
                title.push_str(line);
            }
            continue;
        }
        open_title = false;
        if is_console_call(trimmed) {
            console_block = Some(indent);
            continue;
        }
        if let Some(title) = trimmed.strip_prefix('●') {
            let title = title.trim();
            if title == "Test suite failed to run" {
                current.suite_error = true;
            } else if indent == 2 {
                current.failures.push(title);
            }
            in_details = true;
            continue;
        }
        if in_details || indent < 2 || trimmed.is_empty() {
            continue;
        }
        let level = (indent - 2) / 2;
        describes.truncate(level);
        match test_line(trimmed) {
            Some((status, title)) => {
                current.tests.push((describes.clone(), title.to_string(), status));
                open_title = true;
            }
            None => describes.push(trimmed),
        }
    }
    finish(&mut map, block, known);
    if map.is_empty() {
        return Read::Unusable("it shows no jest PASS/FAIL file blocks".to_string());
    }
    Read::found(map, Vec::new(), "console")
}

fn finish(map: &mut TestMap, block: Option<Block>, known: Option<&BTreeMap<String, TestResult>>) {
    let Some(block) = block else { return };
    if block.suite_error {
        map.insert(block.file.clone(), file_result(&block.file, TestStatus::Error));
    } else if block.tests.is_empty() {
        // No verbose tree: the file's own entry, plus the failing tests its headings name.
        let status = if block.passed { TestStatus::Passed } else { TestStatus::Failed };
        map.insert(block.file.clone(), file_result(&block.file, status));
        for heading in block.failures {
            let path: Vec<&str> = heading.split(" › ").collect();
            let (ancestors, _) = path.split_at(path.len() - 1);
            map.insert(
                format!("{}{SEP}{}", block.file, path.join(SEP)),
                test_result(&block.file, ancestors, TestStatus::Failed),
            );
        }
        return;
    }
    for (describes, printed, status) in &block.tests {
        let mut prefix = block.file.clone();
        for d in describes {
            prefix.push_str(SEP);
            prefix.push_str(d);
        }
        prefix.push_str(SEP);
        let title = title_of(printed, *status, |title| {
            let heading = describes.iter().copied().chain([title]).collect::<Vec<_>>().join(" › ");
            block.failures.contains(&heading.as_str()) || known.is_some_and(|k| k.contains_key(&format!("{prefix}{title}")))
        });
        map.insert(format!("{prefix}{title}"), test_result(&block.file, describes, *status));
    }
}

/// A test's title from its printed line: jest adds ` (3 ms)` after passed and failed tests that
/// took time, and nothing after skipped ones. A trailing duration is the title's own when the
/// structured report or a failure heading names the test with it (`is_title`).
fn title_of(printed: &str, status: TestStatus, is_title: impl Fn(&str) -> bool) -> &str {
    if status == TestStatus::Skipped {
        return printed;
    }
    let stripped = strip_duration(printed);
    if stripped.len() < printed.len() && is_title(printed) {
        printed
    } else {
        stripped
    }
}

/// `PASS file` / `FAIL file`, possibly with a project's display name before the file and the
/// file's run time after it: `FAIL tokyo tz/tz.test.js (5.2 s)`.
fn header(line: &str) -> Option<(bool, &str)> {
    let trimmed = line.trim_start();
    if line.len() - trimmed.len() > 1 {
        return None;
    }
    let (passed, rest) = match trimmed.split_once(' ') {
        Some(("PASS", rest)) => (true, rest),
        Some(("FAIL", rest)) => (false, rest),
        _ => return None,
    };
    let rest = strip_duration(rest.trim());
    // A display name holds no `/` or `.`; the file is the rest from the first token that does.
    let mut start = 0;
    for token in rest.split(' ') {
        if token.contains(['/', '.']) {
            break;
        }
        start += token.len() + 1;
    }
    let file = if start < rest.len() { rest[start..].trim() } else { rest };
    (!file.is_empty()).then_some((passed, file))
}

fn is_console_call(trimmed: &str) -> bool {
    matches!(
        trimmed.trim_end(),
        "console.log" | "console.error" | "console.warn" | "console.info" | "console.debug" | "console.trace"
    )
}

/// A test line of the verbose tree: its status and what follows the mark (the title, and the
/// duration jest may have added).
fn test_line(trimmed: &str) -> Option<(TestStatus, &str)> {
    let mut chars = trimmed.chars();
    let mark = chars.next()?;
    let rest = chars.as_str().strip_prefix(' ')?;
    let (status, title) = match mark {
        '✓' | '√' => (TestStatus::Passed, rest),
        '✕' | '×' => (TestStatus::Failed, rest),
        '○' => (TestStatus::Skipped, rest.strip_prefix("skipped ").unwrap_or(rest)),
        '✎' => (TestStatus::Skipped, rest.strip_prefix("todo ").unwrap_or(rest)),
        _ => return None,
    };
    Some((status, title))
}

/// `title (3 ms)` / `title (5.2 s)` → `title`.
fn strip_duration(text: &str) -> &str {
    let Some(body) = text.strip_suffix(')') else {
        return text;
    };
    let Some(open) = body.rfind(" (") else {
        return text;
    };
    let inside = &body[open + 2..];
    let number = inside.strip_suffix(" ms").or_else(|| inside.strip_suffix(" s")).or_else(|| inside.strip_suffix("ms"));
    match number {
        Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || b == b'.') => &text[..open],
        _ => text,
    }
}

// ---------------------------------------------------------------- closing summary

/// The counts of jest's last `Tests:` line (`Tests:       1 failed, 3 passed, 4 total`), or
/// `None` when there is none or it holds a count this parser does not know.
pub(crate) fn closing_summary(text: &str) -> Option<SummaryCounts> {
    let line = text.lines().rev().map(str::trim).find(|l| l.starts_with("Tests:"))?;
    let items = line.strip_prefix("Tests:")?.trim();
    let mut counts =
        SummaryCounts { line: line.split_whitespace().collect::<Vec<_>>().join(" "), ..Default::default() };
    for item in items.split(", ") {
        let (n, word) = item.split_once(' ')?;
        let n: u64 = n.parse().ok()?;
        match word {
            "passed" => counts.passed += n,
            "failed" => counts.failed += n,
            "skipped" | "todo" | "pending" => counts.skipped += n,
            "total" => {}
            _ => return None,
        }
    }
    Some(counts)
}

/// Why a run looks cut short: jest wrote no JSON report and never printed its closing
/// `Test Suites:` line, which it prints last, after every file ran.
fn stopped_part_way(structured: &Read, text: &str) -> Option<String> {
    let summary = text.lines().any(|l| l.trim_start().starts_with("Test Suites:"));
    (!matches!(structured, Read::Found(..)) && !summary).then(|| {
        let files = text.lines().filter(|l| header(l.strip_suffix('\r').unwrap_or(l)).is_some()).count();
        format!(
            "jest wrote no JSON report and printed no closing `Test Suites:` summary: the run stopped part-way \
             (a test may have ended the process); only the {files} file(s) it reported are here, and the files \
             that did not run are missing"
        )
    })
}
