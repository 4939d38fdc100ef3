//! Cross-checking the test command's exit code against the parsed statuses (DOMAIN §4): a
//! candidate that prints fake `PASSED` lines, or crashes the runner after a partial report,
//! leaves an exit code that does not fit what was parsed.

use crate::parse::{ParsedTests, TestStatus};

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
