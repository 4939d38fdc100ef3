//! sympy `bin/test --verbose` fixtures, captured on sympy 1.7 and 1.12 (sdists from PyPI) with
//! Python 3.11.7, on a sample test package (`tests/fixtures/parse/sympy/sample/`) placed at
//! sympy/verdictshapes/tests: every status bin/test prints, a test that prints, a name long
//! enough to push the file's `[FAIL]` onto a line of its own, and a module that fails to import.

use super::*;
use crate::grade::integrity::check_console_summary;
use TestStatus::*;

const SHAPES: &str = "sympy/verdictshapes/tests/test_shapes.py";
const OTHER: &str = "sympy/verdictshapes/tests/test_other.py";
const BROKEN: &str = "sympy/verdictshapes/tests/test_broken.py";

#[test]
fn every_status_of_both_versions() {
    for dir in ["sympy/sympy1.7", "sympy/sympy1.12"] {
        let parsed = ok(runner("sympy"), &console(&format!("{dir}/console.txt")), &[]);
        assert_eq!(parsed.source, ResultSource::Console);
        assert_eq!(
            statuses(&parsed),
            expect(&[
                (BROKEN, Error),
                ("test_a_very_long_name_that_pushes_the_status_column_to_the_right_edge_ok", Passed),
                ("test_errors", Error),
                ("test_expected_to_fail", Xfail),
                ("test_expected_to_fail_but_passes", Xpass),
                ("test_fails", Failed),
                ("test_last", Passed),
                // In both files: one entry.
                ("test_passes", Passed),
                // Its output came between its name and its status.
                ("test_prints", Passed),
                ("test_skip_inside", Skipped),
                ("test_skipped_with_reason", Skipped),
                ("test_slow_one", Skipped),
            ]),
            "{dir}"
        );
        assert_eq!(parsed.tests["test_last"].file.as_deref(), Some(OTHER));
        assert_eq!(parsed.tests["test_fails"].file.as_deref(), Some(SHAPES));
        assert_eq!(parsed.tests[BROKEN].file.as_deref(), Some(BROKEN));
        assert_eq!(parsed.incomplete, None, "{dir}");
        let summary = parsed.console_summary.as_ref().expect("tests finished");
        assert_eq!(
            (summary.passed, summary.failed, summary.errors, summary.skipped, summary.xfailed, summary.xpassed),
            (5, 1, 2, 3, 1, 1),
            "{dir}: {}",
            summary.line
        );
        assert_eq!(check_console_summary(&parsed), None, "{dir}");
        // The repeated name is counted in a note.
        assert!(parsed.notes.iter().any(|n| n.contains("repeated")), "{dir}: {:?}", parsed.notes);
    }
}

#[test]
fn tracebacks_are_not_results() {
    // The failure list names `test_shapes.py:test_errors` and prints tracebacks whose lines
    // could look like results; only the result section counts.
    let text = console("sympy/sympy1.12/console.txt");
    let with_fake = text.replace("AssertionError\n", "AssertionError\ntest_fake F\n");
    let parsed = ok(runner("sympy"), &with_fake, &[]);
    assert!(!parsed.tests.contains_key("test_fake"));
}

#[test]
fn a_run_cut_before_its_summary_is_incomplete() {
    let text = console("sympy/sympy1.12/console.txt");
    let cut = &text[..text.find("test_skip_inside").unwrap()];
    let parsed = ok(runner("sympy"), cut, &[]);
    assert!(parsed.incomplete.as_deref().is_some_and(|why| why.contains("tests finished")));
    assert_eq!(parsed.console_summary, None);
    assert_eq!(parsed.tests["test_fails"].status, Failed);
    assert!(!parsed.tests.contains_key("test_skip_inside"));
}

#[test]
fn a_test_that_never_got_a_status_is_noted() {
    let log = "sympy/a/tests/test_a.py[2] \ntest_one ok\ntest_two printing something\n";
    let parsed = ok(runner("sympy"), log, &[]);
    assert_eq!(statuses(&parsed), expect(&[("test_one", Passed)]));
    assert!(parsed.notes.iter().any(|n| n.contains("test_two")), "{:?}", parsed.notes);
    assert!(parsed.incomplete.is_some());
}

#[test]
fn colours_and_timeouts() {
    let log = "sympy/a/tests/test_a.py[3] \n\u{1b}[32mtest_one\u{1b}[0m \u{1b}[32mok\u{1b}[0m\ntest_slow Timeout T\ntest_hung T                   [FAIL]\n\n tests finished: 1 passed, 1 skipped, 1 exceptions, in 2.00 seconds \n";
    let parsed = ok(runner("sympy"), log, &[]);
    assert_eq!(statuses(&parsed), expect(&[("test_hung", Error), ("test_one", Passed), ("test_slow", Skipped)]));
    assert_eq!(parsed.console_summary.as_ref().map(|s| (s.passed, s.skipped, s.errors)), Some((1, 1, 1)));
}
