//! Integrity checks of a parsed run, shared by every decision that grades one:
//! - the test command's exit code against the parsed statuses ([`check_exit_code`]): a
//!   candidate that prints fake `PASSED` lines, or crashes the runner after a partial report,
//!   leaves an exit code that does not fit what was parsed;
//! - the structured report against the console, test by test ([`worse_of_disagreements`]):
//!   a graded test on which they disagree is graded with the worse status, and warned about;
//! - the structured report against the console's closing summary counts
//!   ([`check_console_summary`]): a report that has fewer failing or more passing tests than
//!   the runner's own summary says was not written by that run alone.

use std::collections::BTreeSet;

use crate::parse::{ParsedTests, ResultSource, TestStatus};

use super::granularity::status_name;

/// How many test ids a warning names before it says "and N more".
const NAMED: usize = 5;

/// A warning when `exit_code` contradicts `parsed`, or `None` when they agree:
/// - exit 0 while some test FAILED or ERRORed (XPASS is left out: pytest exits 0 on a
///   non-strict XPASS);
/// - exit 0 with no test parsed at all;
/// - a non-zero exit while nothing failed, errored or XPASSed (a crash, a killed runner, a
///   collection error the report does not show). 124 and 137 are named as a timeout and a
///   kill (often out of memory).
pub fn check_exit_code(exit_code: i64, parsed: &ParsedTests) -> Option<String> {
    let failed: Vec<(&str, TestStatus)> = parsed
        .tests
        .iter()
        .filter(|(_, r)| matches!(r.status, TestStatus::Failed | TestStatus::Error))
        .map(|(id, r)| (id.as_str(), r.status))
        .collect();
    if exit_code == 0 {
        if !failed.is_empty() {
            return Some(format!(
                "the test command exited 0 but {} test(s) failed or errored: {}; the output may \
                 have been tampered with",
                failed.len(),
                name_some(&failed)
            ));
        }
        if parsed.tests.is_empty() {
            return Some("the test command exited 0 but no test result was parsed".to_string());
        }
        return None;
    }
    let any_failure = parsed.tests.values().any(|r| r.status.is_failure());
    if any_failure {
        return None;
    }
    let why = match exit_code {
        124 => " (124: the command timed out)",
        137 => " (137: the command was killed, often for running out of memory)",
        _ => "",
    };
    Some(format!(
        "the test command exited {exit_code}{why} but none of the {} parsed test(s) failed; \
         the run may have crashed or stopped early",
        parsed.tests.len()
    ))
}

fn name_some(tests: &[(&str, TestStatus)]) -> String {
    let mut text = tests
        .iter()
        .take(NAMED)
        .map(|(id, status)| format!("{id} ({})", status_name(*status)))
        .collect::<Vec<_>>()
        .join(", ");
    if tests.len() > NAMED {
        text.push_str(&format!(" and {} more", tests.len() - NAMED));
    }
    text
}

/// Grading's order of badness, worst first: ERROR, FAILED, SKIPPED, XPASS, XFAIL, PASSED (a
/// skipped test is never a pass; an XPASS may be one, see [`super::XpassRule`]).
fn badness(status: TestStatus) -> u8 {
    match status {
        TestStatus::Error => 5,
        TestStatus::Failed => 4,
        TestStatus::Skipped => 3,
        TestStatus::Xpass => 2,
        TestStatus::Xfail => 1,
        TestStatus::Passed => 0,
    }
}

/// The run with every disagreement between the structured report and the console resolved to
/// the worse of the two statuses, and a warning naming the graded tests (`graded`) among them.
pub fn worse_of_disagreements(parsed: &ParsedTests, graded: &BTreeSet<&str>) -> (ParsedTests, Option<String>) {
    let mut worse = parsed.clone();
    let mut named: Vec<(&str, String)> = Vec::new();
    for d in &parsed.disagreements {
        let (Some(structured), Some(console)) = (d.structured, d.console) else { continue };
        let status = if badness(console) > badness(structured) { console } else { structured };
        if let Some(result) = worse.tests.get_mut(&d.test) {
            result.status = status;
        }
        if graded.contains(d.test.as_str()) {
            named.push((
                d.test.as_str(),
                format!("structured {}, console {}", status_name(structured), status_name(console)),
            ));
        }
    }
    if named.is_empty() {
        return (worse, None);
    }
    let mut list: Vec<String> = named.iter().take(NAMED).map(|(id, what)| format!("{id} ({what})")).collect();
    if named.len() > NAMED {
        list.push(format!("and {} more", named.len() - NAMED));
    }
    let warning = format!(
        "the structured report and the console disagree on {} graded test(s): {}; each is graded with the worse \
         status, and the run is not trusted as a resolution",
        named.len(),
        list.join(", ")
    );
    (worse, Some(warning))
}

/// A warning when the console's closing summary contradicts the parsed results: it counts more
/// failed (or more errored) tests than the results hold failing ones, or fewer passed tests
/// than the results hold passing ones. Failed and errored are compared apart because pytest
/// counts a test that failed and then errored in teardown once under each, where the results
/// hold it once.
pub fn check_console_summary(parsed: &ParsedTests) -> Option<String> {
    let summary = parsed.console_summary.as_ref()?;
    let failing =
        parsed.tests.values().filter(|r| matches!(r.status, TestStatus::Failed | TestStatus::Error)).count() as u64;
    let passing =
        parsed.tests.values().filter(|r| matches!(r.status, TestStatus::Passed | TestStatus::Xpass)).count() as u64;
    let source = match parsed.source {
        ResultSource::Structured => "the structured report",
        ResultSource::Console => "the results read from the console",
    };
    let said = format!("the console's closing summary (`{}`)", summary.line);
    if summary.failed.max(summary.errors) > failing {
        return Some(format!(
            "{said} counts {} failed and {} errored test(s), but {source} holds {failing} failing; the results may have \
             been tampered with",
            summary.failed, summary.errors
        ));
    }
    let passed = summary.passed + summary.xpassed;
    if passing > passed {
        return Some(format!(
            "{said} counts {passed} passed test(s), but {source} holds {passing} passing; the results may have been \
             tampered with"
        ));
    }
    None
}
