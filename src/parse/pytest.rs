//! pytest: JUnit XML (`--junitxml`, `-o junit_family=xunit1`) preferred, the `-rA` short test
//! summary as fallback.
//!
//! **Id form**: pytest's own node id, relative to the rootdir (`/testbed`):
//! `tests/test_x.py::test_name[params]`, `tests/test_x.py::TestClass::TestInner::test_name[p]`,
//! and the bare file path for a module that failed to collect (`tests/test_x.py`).
//! [`TestResult::file`] is the path and [`TestResult::class`] is `path::Class[::Inner]` for
//! tests in a class. Parameter ids are kept exactly as pytest prints them (it escapes
//! non-ASCII as `\xef`), spaces, brackets, `::` and ` - ` included.
//!
//! From the XML, the id is rebuilt from `file`, `classname` and `name`: the module part of
//! `classname` is the file's dotted path, what follows are class names. When `file` is missing
//! or does not match (xunit2, or a test method inherited from another file), the id is looked up
//! among the console's ids by the same mangling pytest applies; failing that, leading
//! `classname` segments are taken as the module up to the first capitalized one (noted).
//!
//! JUnit XML marks xfail as `<skipped type="pytest.xfail">` (read as XFAIL) and cannot tell an
//! XPASS from a pass: when the console says XPASS for a test the XML calls passed, XPASS is kept
//! and this is not a disagreement. A test reported twice (passed, then errored in teardown)
//! keeps its most severe status.
//!
//! From the console, only the last `short test summary info` section is read, so lines a test
//! prints (shown in the PASSES section above it) are never taken for results. Ids are cut
//! bracket-aware: ` - message` after a parametrized id is found after the id's closing bracket,
//! never at the first space. `SKIPPED [N] file:line: reason` lines carry no id and are counted
//! in a note. Without a summary (truncated log, no `-rA`) the verbose per-test lines are read
//! instead (`path::id PASSED [ 10%]`, and xdist's `[gw0] [ 10%] PASSED path::id`).

use std::collections::HashMap;

use super::ansi::strip_ansi;
use super::combine::{combine, FastSet, Read, Repeats, TestMap};
use super::junit::{read_cases, Case, JunitError, Outcome};
use super::runner::{Nesting, ReportSource, Runner};
use super::{
    has_extension, relative_path, text_of, ParseError, ParsedTests, StructuredReport, SummaryCounts, TestResult,
    TestStatus,
};

/// The pytest runner: test files are passed as paths (`test_args = "files"`), the JUnit XML is
/// written into `$VERDICT_OUT` by `--junitxml`, and ids nest as `path::Class::Inner::test`.
pub struct Pytest;

impl Runner for Pytest {
    fn name(&self) -> &'static str {
        "pytest"
    }

    fn report(&self) -> ReportSource {
        ReportSource::OutDir
    }

    fn parse(&self, console: &str, structured: &[StructuredReport]) -> Result<ParsedTests, ParseError> {
        parse(console, structured)
    }

    fn nesting(&self) -> Nesting {
        Nesting { separators: &[("::", true)], class_separators: &[("::", true)], dropped_prefixes: &[] }
    }
}

pub(crate) fn parse(console: &str, structured: &[StructuredReport]) -> Result<ParsedTests, ParseError> {
    let text = strip_ansi(console);
    let console = read_console(&text);
    let structured = read_structured(structured, &console);
    let mut parsed = combine(structured, console, |xml, console| match (xml, console) {
        (TestStatus::Passed, TestStatus::Xpass) => Some(TestStatus::Xpass),
        (TestStatus::Skipped, TestStatus::Xfail) => Some(TestStatus::Xfail),
        _ => None,
    })?;
    parsed.console_summary = closing_summary(&text);
    Ok(parsed)
}

const STATUSES: [(&str, TestStatus); 6] = [
    ("PASSED", TestStatus::Passed),
    ("FAILED", TestStatus::Failed),
    ("ERROR", TestStatus::Error),
    ("SKIPPED", TestStatus::Skipped),
    ("XFAIL", TestStatus::Xfail),
    ("XPASS", TestStatus::Xpass),
];

fn status_word(word: &str) -> Option<TestStatus> {
    STATUSES.iter().find(|(w, _)| *w == word).map(|(_, s)| *s)
}

fn result_for(id: &str, status: TestStatus) -> TestResult {
    let (file, class) = split_node_id(id);
    TestResult { status, file: Some(file.to_string()), class: class.map(str::to_string) }
}

/// The file part and the class part (`path::Class::Inner`) of a node id.
pub(crate) fn split_node_id(id: &str) -> (&str, Option<&str>) {
    let bytes = id.as_bytes();
    let Some(path_end) = find_colons(bytes, 0) else {
        return (id, None);
    };
    let params = bytes[path_end..].iter().position(|&b| b == b'[').map_or(id.len(), |p| path_end + p);
    let last = rfind_colons(&bytes[..params]).unwrap_or(path_end);
    let class = (last > path_end).then(|| &id[..last]);
    (&id[..path_end], class)
}

/// The first `::` at or after `from` (a byte search: this runs once or twice per test line,
/// where building a substring searcher costs more than the search).
fn find_colons(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while let Some(p) = bytes.get(i..)?.iter().position(|&b| b == b':') {
        let at = i + p;
        if bytes.get(at + 1) == Some(&b':') {
            return Some(at);
        }
        i = at + 1;
    }
    None
}

/// The last `::` of `bytes`.
fn rfind_colons(bytes: &[u8]) -> Option<usize> {
    let mut end = bytes.len();
    while let Some(at) = bytes[..end].iter().rposition(|&b| b == b':') {
        if at > 0 && bytes[at - 1] == b':' {
            return Some(at - 1);
        }
        end = at;
    }
    None
}

// ---------------------------------------------------------------- console

fn read_console(text: &str) -> Read {
    let mut map = TestMap::new(Repeats::Merge);
    let mut notes = Vec::new();
    match summary_section(text) {
        Some(section) => {
            let mut located_skips = 0usize;
            for line in section.lines() {
                if line.starts_with('=') {
                    break;
                }
                let Some((word, rest)) = line.split_once(' ') else {
                    continue;
                };
                let Some(status) = status_word(word) else {
                    continue;
                };
                if status == TestStatus::Skipped && rest.starts_with('[') {
                    located_skips += 1;
                    continue;
                }
                let (id, path_end, params) = cut_id_at(rest);
                if !id.is_empty() {
                    map.insert(id.to_string(), result_at(id, path_end, params, status));
                }
            }
            if located_skips > 0 {
                // `-v` progress lines name the skipped tests the summary gives only by location.
                let skipped: Vec<&str> = progress_section(text)
                    .lines()
                    .filter_map(|line| match verbose_line(line) {
                        Some((TestStatus::Skipped, id)) => Some(id),
                        _ => None,
                    })
                    .collect();
                let mut recovered = 0usize;
                if !skipped.is_empty() {
                    let mut named: FastSet<String> = map.ids().map(str::to_string).collect();
                    for id in skipped {
                        if named.insert(id.to_string()) {
                            recovered += 1;
                            map.insert(id.to_string(), result_for(id, TestStatus::Skipped));
                        }
                    }
                }
                notes.push(if recovered == 0 {
                    format!(
                        "console: {located_skips} `SKIPPED [N] file:line` summary lines name no test id; \
                         those skipped tests are absent from the console results"
                    )
                } else {
                    format!(
                        "console: {located_skips} `SKIPPED [N] file:line` summary lines name no test id; \
                         {recovered} skipped tests were named by the `-v` progress lines instead"
                    )
                });
            }
        }
        None => {
            for line in text.lines() {
                if let Some((status, id)) = verbose_line(line) {
                    map.insert(id.to_string(), result_for(id, status));
                }
            }
            if !map.is_empty() {
                notes.push(
                    "console: no `short test summary info` section (was -rA given? was the log cut \
                     short?); read the per-test progress lines instead"
                        .to_string(),
                );
            }
        }
    }
    if map.is_empty() {
        return Read::Unusable("it shows no pytest result lines".to_string());
    }
    Read::found(map, notes, "console")
}

/// The per-test progress lines: from the `=== test session starts ===` line to the next
/// `===` section (FAILURES, PASSES with what tests printed, the summary), or nothing.
fn progress_section(text: &str) -> &str {
    let Some(at) = text.find("test session starts") else {
        return "";
    };
    let start = text[at..].find('\n').map_or(text.len(), |p| at + p + 1);
    let rest = &text[start..];
    let mut end = rest.len();
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let trimmed = line.trim_end();
        if trimmed.len() > 2 && trimmed.starts_with('=') && trimmed.ends_with('=') {
            end = offset;
            break;
        }
        offset += line.len();
    }
    &rest[..end]
}

/// The text after the last `=== short test summary info ===` line.
fn summary_section(text: &str) -> Option<&str> {
    let mut end = text.len();
    while let Some(at) = text[..end].rfind("short test summary info") {
        let line_start = text[..at].rfind('\n').map_or(0, |p| p + 1);
        let line_end = text[at..].find('\n').map_or(text.len(), |p| at + p);
        let line = text[line_start..line_end].trim_end();
        if line.starts_with('=') && line.ends_with('=') {
            return Some(&text[line_end.min(text.len())..]);
        }
        end = line_start;
    }
    None
}

/// The node id at the start of `rest` (what follows the status word), without the
/// ` - message` pytest appends to FAILED, ERROR, XFAIL and XPASS lines.
pub(crate) fn cut_id(rest: &str) -> &str {
    cut_id_at(rest).0
}

/// [`cut_id`], with where the id's first `::` and its parameters (`[`) start, when it has them,
/// so that [`result_at`] need not search the id again.
pub(crate) fn cut_id_at(rest: &str) -> (&str, Option<usize>, usize) {
    let rest = rest.trim_end();
    let Some(path_end) = find_colons(rest.as_bytes(), 0) else {
        // A file (collection error): ids never hold " - " there in practice.
        let id = rest.find(" - ").map_or(rest, |p| &rest[..p]);
        return (id, None, id.len());
    };
    let bytes = rest.as_bytes();
    let i = bytes[path_end..].iter().position(|&b| b == b'[' || b == b' ').map_or(bytes.len(), |p| path_end + p);
    if i == bytes.len() || bytes[i] == b' ' {
        return (&rest[..i], Some(path_end), i);
    }
    // Parameters: first the balanced closing bracket, if the id may end there.
    let mut depth = 0usize;
    for (j, &b) in bytes.iter().enumerate().skip(i) {
        match b {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    if ends_id(rest, j + 1) {
                        return (&rest[..=j], Some(path_end), i);
                    }
                    break;
                }
            }
            _ => {}
        }
    }
    // Unbalanced brackets inside the parameters: the first `]` that ends the line or is
    // followed by ` - `.
    for (j, &b) in bytes.iter().enumerate().skip(i) {
        if b == b']' && ends_id(rest, j + 1) {
            return (&rest[..=j], Some(path_end), i);
        }
    }
    (rest, Some(path_end), i)
}

/// [`result_for`] from [`cut_id_at`]'s positions.
pub(crate) fn result_at(id: &str, path_end: Option<usize>, params: usize, status: TestStatus) -> TestResult {
    let Some(path_end) = path_end else {
        return TestResult { status, file: Some(id.to_string()), class: None };
    };
    let last = rfind_colons(&id.as_bytes()[..params.min(id.len())]).unwrap_or(path_end);
    let class = (last > path_end).then(|| id[..last].to_string());
    TestResult { status, file: Some(id[..path_end].to_string()), class }
}

fn ends_id(rest: &str, at: usize) -> bool {
    at == rest.len() || rest[at..].starts_with(" - ")
}

/// A per-test progress line: `path::id STATUS [ 10%]`, `path::id XFAIL (reason) [ 10%]`, or
/// xdist's `[gw0] [ 10%] STATUS path::id`.
fn verbose_line(line: &str) -> Option<(TestStatus, &str)> {
    let line = line.trim_end();
    if let Some(rest) = line.strip_prefix("[gw") {
        let rest = rest.split_once("] ")?.1.trim_start();
        let rest = match rest.strip_prefix('[') {
            Some(r) => r.split_once("] ")?.1,
            None => rest,
        };
        let (word, rest) = rest.split_once(' ')?;
        let id = cut_id(rest);
        return Some((status_word(word)?, id)).filter(|_| id.contains("::"));
    }
    let body = line.strip_suffix(']')?;
    let open = body.rfind('[')?;
    let pct = body[open + 1..].trim();
    if !pct.ends_with('%') || !pct[..pct.len() - 1].bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let body = body[..open].trim_end();
    let (status, at) = STATUSES
        .iter()
        .filter_map(|(word, status)| {
            let at = body.rfind(&format!(" {word}"))?;
            let after = &body[at + 1 + word.len()..];
            (after.is_empty() || after.starts_with(" (")).then_some((*status, at))
        })
        .max_by_key(|(_, at)| *at)?;
    let id = &body[..at];
    id.contains("::").then_some((status, id))
}

// ---------------------------------------------------------------- JUnit XML

fn read_structured(reports: &[StructuredReport], console: &Read) -> Read {
    let xml: Vec<&StructuredReport> = reports.iter().filter(|r| has_extension(&r.name, "xml")).collect();
    if xml.is_empty() {
        return Read::Unusable(
            "no JUnit XML report was collected (the test command should pass \
             --junitxml=$VERDICT_OUT/junit.xml)"
                .to_string(),
        );
    }
    let mut map = TestMap::new(Repeats::Merge);
    let mut notes = Vec::new();
    let mut by_mangled: Option<HashMap<(String, String), String>> = None;
    let mut guessed = 0usize;
    let mut unnamed = 0usize;
    let mut junit_reports = 0usize;
    for report in xml {
        let text = text_of(&report.bytes);
        let result = read_cases(&text, |case| {
            // pytest leaves an empty `<testcase>` for the test it was running when an
            // INTERNALERROR ended the session: no test, and no pass.
            if case.name.is_empty() && case.classname.is_empty() && case.file.as_deref().unwrap_or("").is_empty() {
                unnamed += 1;
                return;
            }
            let (id, class) = match id_from_file(&case) {
                Some(found) => found,
                None => {
                    let lookup = by_mangled.get_or_insert_with(|| mangled_console_ids(console));
                    match lookup.get(&(case.classname.clone(), case.name.clone())) {
                        Some(id) => (id.clone(), split_node_id(id).1.map(str::to_string)),
                        None => {
                            guessed += 1;
                            id_by_guess(&case)
                        }
                    }
                }
            };
            let file = split_node_id(&id).0.to_string();
            let status = match case.outcome {
                Outcome::Passed => TestStatus::Passed,
                Outcome::Failed => TestStatus::Failed,
                Outcome::Error => TestStatus::Error,
                Outcome::Skipped { xfail: true } => TestStatus::Xfail,
                Outcome::Skipped { xfail: false } => TestStatus::Skipped,
            };
            map.insert(id, TestResult { status, file: Some(file), class });
        });
        match result {
            Ok(_) => junit_reports += 1,
            Err(JunitError::NotJunit) => notes.push(format!("{} is not a JUnit XML report; ignored", report.name)),
            Err(err) => return Read::Unusable(format!("the report {} {err}", report.name)),
        }
    }
    if junit_reports == 0 {
        return Read::Unusable("no collected XML file is a JUnit report".to_string());
    }
    if unnamed > 0 {
        notes.push(format!(
            "structured: {unnamed} <testcase> element(s) with no name, classname or file (pytest \
             writes one when an INTERNALERROR ends the session) were left out"
        ));
    }
    if guessed > 0 {
        notes.push(format!(
            "structured: {guessed} test ids were rebuilt from `classname` alone (no usable `file` \
             attribute and no matching console line); module and class were told apart by case"
        ));
    }
    Read::found(map, notes, "structured")
}

/// The module's dotted name as pytest mangles a path: `tests/sub/test_x.py` → `tests.sub.test_x`.
fn dotted(path: &str) -> String {
    let path = path.replace('/', ".");
    match path.strip_suffix(".py") {
        Some(stripped) => stripped.to_string(),
        None => path,
    }
}

/// The node id and class from `file` + `classname` + `name`, when `file` explains `classname`.
fn id_from_file(case: &Case) -> Option<(String, Option<String>)> {
    let file = relative_path(case.file.as_deref().filter(|f| !f.is_empty())?);
    let module = dotted(file);
    if case.classname.is_empty() {
        // A collection error: `name` is the dotted module.
        return Some(if case.name.is_empty() || case.name == module {
            (file.to_string(), None)
        } else {
            (format!("{file}::{}", case.name), None)
        });
    }
    if case.classname == module {
        return Some((format!("{file}::{}", case.name), None));
    }
    let classes = case.classname.strip_prefix(&module)?.strip_prefix('.')?;
    let class = format!("{file}::{}", classes.replace('.', "::"));
    Some((format!("{class}::{}", case.name), Some(class)))
}

/// Console ids keyed by `(classname, name)` as pytest's JUnit writer mangles them.
fn mangled_console_ids(console: &Read) -> HashMap<(String, String), String> {
    let Read::Found(map, _) = console else {
        return HashMap::new();
    };
    map.keys()
        .filter_map(|id| {
            let (path, params) = match id.find('[') {
                Some(p) => (&id[..p], &id[p..]),
                None => (id.as_str(), ""),
            };
            let mut names: Vec<String> = path.split("::").map(str::to_string).collect();
            names[0] = dotted(&names[0]);
            let name = format!("{}{params}", names.pop()?);
            Some(((names.join("."), name), id.clone()))
        })
        .collect()
}

/// Last resort without `file`: leading `classname` segments up to the first capitalized one
/// are the module path, the rest are classes.
fn id_by_guess(case: &Case) -> (String, Option<String>) {
    let segments: Vec<&str> = case.classname.split('.').collect();
    let split = segments.iter().position(|s| s.starts_with(|c: char| c.is_uppercase())).unwrap_or(segments.len());
    let file = format!("{}.py", segments[..split].join("/"));
    if split == segments.len() {
        return (format!("{file}::{}", case.name), None);
    }
    let class = format!("{file}::{}", segments[split..].join("::"));
    (format!("{class}::{}", case.name), Some(class))
}

// ---------------------------------------------------------------- closing summary

/// The counts of pytest's last closing line (`=== 4 failed, 2 passed, 1 xfailed in 0.12s ===`,
/// or under `-q` the same without the `=`), or `None` when there is none or it holds a count
/// this parser does not know (a plugin's `3 subtests passed`), since such a line cannot be
/// compared with the results.
pub(crate) fn closing_summary(text: &str) -> Option<SummaryCounts> {
    let line = text.lines().rev().map(str::trim).find(|l| summary_body(l).is_some())?;
    let body = summary_body(line)?;
    let mut counts = SummaryCounts { line: body.to_string(), ..SummaryCounts::default() };
    let (items, _) = body.rsplit_once(" in ")?;
    if items == "no tests ran" {
        return Some(counts);
    }
    for item in items.split(", ") {
        let (n, word) = item.split_once(' ')?;
        let n: u64 = n.parse().ok()?;
        match word {
            "passed" => counts.passed += n,
            "failed" => counts.failed += n,
            "error" | "errors" => counts.errors += n,
            "skipped" => counts.skipped += n,
            "xfailed" => counts.xfailed += n,
            "xpassed" => counts.xpassed += n,
            "deselected" | "warning" | "warnings" | "rerun" | "reruns" => {}
            _ => return None,
        }
    }
    Some(counts)
}

/// `4 failed, 2 passed in 0.12s` out of a closing line, when `line` is one.
fn summary_body(line: &str) -> Option<&str> {
    let body = line.trim_matches('=').trim();
    let (items, time) = body.rsplit_once(" in ")?;
    // `0.12s`, `61.23s (0:01:01)`
    let seconds = time.split(' ').next()?.strip_suffix('s')?;
    let timed = !seconds.is_empty() && seconds.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    let counted = items == "no tests ran"
        || items.split(", ").all(|i| i.split_once(' ').is_some_and(|(n, _)| n.parse::<u64>().is_ok()));
    (timed && counted && !items.is_empty()).then_some(body)
}
