//! unittest fixtures, captured by running `python -m unittest -v test_calc test_broken_import`
//! on the sample in `tests/fixtures/parse/unittest/` with Python 3.9.18 (`py3.9`) and 3.12.1
//! (`py3.12`), a passing subset (`ok`), and Django 4.2.16's runner (`django`: `python -m django
//! test shop --verbosity 2 --parallel 1` on Python 3.11, migrations and system checks included).
//! The sample prints a fake `test_fake (x.Y) ... FAIL` line, output before its status, and output
//! with no newline before it.

use super::*;
use crate::grade::integrity::check_console_summary;
use TestStatus::*;

/// Every result of the sample run, by test name; `{}` is where Python 3.11 and later repeat the
/// method name inside the parentheses.
fn sample(method_suffix: bool) -> Vec<(String, TestStatus)> {
    let id = |name: &str, class: &str| {
        if method_suffix {
            format!("{name} ({class}.{name})")
        } else {
            format!("{name} ({class})")
        }
    };
    let calc = "test_calc.CalcTests";
    let mut v = vec![
        // A failed class fixture: unittest names it `setUpClass (class)`, never with a suffix.
        ("setUpClass (test_calc.BrokenFixture)".to_string(), Error),
        (id("test_add", calc), Passed),
        // Documented tests go by their docstring's first line.
        ("Adding zero changes nothing.".to_string(), Passed),
        ("Subtracting zero is broken.".to_string(), Failed),
        // It printed a fake FAIL line, then its real status on a line of its own.
        (id("test_fake_lines", calc), Passed),
        (id("test_fixed_bug", calc), Xpass),
        (id("test_known_bug", calc), Xfail),
        (id("test_prints", calc), Passed),
        (id("test_raises", calc), Error),
        (id("test_skipped", calc), Skipped),
        (id("test_sub_fails", calc), Failed),
        // A failing subtest is an entry of its own, and fails its test.
        (id("test_subtests", calc), Failed),
        (format!("{} (i=1)", id("test_subtests", calc)), Failed),
        (id("test_subtests_pass", calc), Passed),
        // A module that fails to import.
        (id("test_broken_import", "unittest.loader._FailedTest"), Error),
    ];
    v.sort();
    v
}

fn unittest(rel: &str) -> ParsedTests {
    ok(runner("unittest"), &console(rel), &[])
}

#[test]
fn python_3_9_verbose_run() {
    let parsed = unittest("unittest/py3.9/console.txt");
    assert_eq!(parsed.source, ResultSource::Console);
    assert_eq!(statuses(&parsed), sample(false));
    assert_eq!(parsed.incomplete, None);
    let summary = parsed.console_summary.as_ref().expect("the Ran / FAILED lines");
    assert_eq!((summary.failed, summary.errors, summary.skipped, summary.xfailed, summary.xpassed), (3, 3, 1, 1, 1));
    // 14 run, less the skipped and expected outcomes: an upper bound of the passes.
    assert_eq!(summary.passed, 11);
    assert!(summary.line.starts_with("Ran 14 tests in "), "{}", summary.line);
}

#[test]
fn python_3_12_names_the_method_twice() {
    let parsed = unittest("unittest/py3.12/console.txt");
    assert_eq!(statuses(&parsed), sample(true));
    assert_eq!(parsed.console_summary.as_ref().map(|s| (s.failed, s.errors)), Some((3, 3)));
}

#[test]
fn classes_are_recorded_and_no_file() {
    for (rel, suffix) in [("unittest/py3.9/console.txt", false), ("unittest/py3.12/console.txt", true)] {
        let parsed = unittest(rel);
        let name = |n: &str| {
            if suffix {
                format!("{n} (test_calc.CalcTests.{n})")
            } else {
                format!("{n} (test_calc.CalcTests)")
            }
        };
        for id in [name("test_add"), format!("{} (i=1)", name("test_subtests")), "Adding zero changes nothing.".into()]
        {
            let result = &parsed.tests[&id];
            assert_eq!(result.class.as_deref(), Some("test_calc.CalcTests"), "{rel}: {id}");
            assert_eq!(result.file, None, "{rel}: {id}");
        }
        assert_eq!(
            parsed.tests["setUpClass (test_calc.BrokenFixture)"].class.as_deref(),
            Some("test_calc.BrokenFixture")
        );
    }
}

#[test]
fn printed_lines_are_noted_not_taken() {
    for rel in ["unittest/py3.9/console.txt", "unittest/py3.12/console.txt"] {
        let parsed = unittest(rel);
        // The sample's fake result line names a test the error list does not.
        assert!(!parsed.tests.contains_key("test_fake (x.Y)"), "{rel}");
        assert!(
            parsed.notes.iter().any(|n| n.contains("error list does not name") && n.contains("test_fake (x.Y)")),
            "{rel}: {:?}",
            parsed.notes
        );
        // A test whose output ran into its status (`…(0 silenced).ok`) printed no status line.
        assert!(!parsed.tests.keys().any(|id| id.starts_with("test_prints_no_newline")), "{rel}");
        assert!(
            parsed.notes.iter().any(|n| n.contains("no status") && n.contains("test_prints_no_newline")),
            "{rel}: {:?}",
            parsed.notes
        );
    }
}

#[test]
fn passing_run() {
    let parsed = unittest("unittest/ok/console.txt");
    assert_eq!(
        statuses(&parsed),
        expect(&[
            ("test_add (test_calc.CalcTests)", Passed),
            ("test_known_bug (test_calc.CalcTests)", Xfail),
            ("test_skipped (test_calc.CalcTests)", Skipped),
        ])
    );
    let summary = parsed.console_summary.as_ref().unwrap();
    assert_eq!((summary.passed, summary.skipped, summary.xfailed), (1, 1, 1));
    assert!(parsed.notes.is_empty(), "{:?}", parsed.notes);
}

#[test]
fn django_runner() {
    let parsed = unittest("unittest/django/console.txt");
    assert_eq!(
        statuses(&parsed),
        expect(&[
            ("test_create (shop.tests.UserTests.test_create)", Passed),
            ("test_missing (shop.tests.UserTests.test_missing)", Error),
            ("A discount never makes the price negative.", Failed),
            ("test_total (shop.tests.PriceTests.test_total)", Passed),
            // `Internal Server Error: /cart/` was logged between its description and `ok`.
            ("test_warns (shop.tests.PriceTests.test_warns)", Passed),
        ])
    );
    // The migrations' `Applying x... OK` lines are not results.
    assert!(!parsed.tests.keys().any(|id| id.contains("Applying")));
    assert_eq!(
        parsed.tests["A discount never makes the price negative."].class.as_deref(),
        Some("shop.tests.PriceTests")
    );
    assert_eq!(parsed.console_summary.as_ref().map(|s| (s.passed, s.failed, s.errors)), Some((5, 1, 1)));
    assert!(parsed.notes.is_empty(), "{:?}", parsed.notes);
}

#[test]
fn a_run_cut_before_its_summary_is_incomplete() {
    let text = console("unittest/py3.9/console.txt");
    let cut = &text[..text.find("test_raises").unwrap()];
    let parsed = ok(runner("unittest"), cut, &[]);
    assert!(parsed.incomplete.as_deref().is_some_and(|why| why.contains("Ran N tests")), "{:?}", parsed.incomplete);
    assert_eq!(parsed.console_summary, None);
    assert_eq!(parsed.tests["test_add (test_calc.CalcTests)"].status, Passed);
    // With no error list to confirm it, the fake line stands: the run is graded incomplete anyway.
    assert_eq!(parsed.tests["test_fake (x.Y)"].status, Failed);
}

#[test]
fn no_result_line_is_no_results() {
    let err =
        parse(runner("unittest"), "Traceback (most recent call last):\nImportError: no module\n", &[]).unwrap_err();
    assert!(err.to_string().contains("`<test> ... <status>`"), "{err}");
}

/// Django 4.2.16's own runner, `tests/runtests.py --verbosity 2 --settings=test_sqlite`, on its
/// `basic` tests and a sample app (`verdict_shapes`), with Python 3.9 and 3.11: the shape
/// SWE-bench's Django instances are graded from.
#[test]
fn django_runtests() {
    for (dir, suffix) in [("unittest/django_runtests_py39", false), ("unittest/django_runtests_py311", true)] {
        let parsed = unittest(&format!("{dir}/console.txt"));
        let id = |name: &str, class: &str| {
            if suffix {
                format!("{name} ({class}.{name})")
            } else {
                format!("{name} ({class})")
            }
        };
        let plain = "verdict_shapes.tests.Plain";
        let basic = "basic.tests.ModelInstanceCreationTests";
        let status = |id: &str| parsed.tests.get(id).map(|r| r.status);
        let shapes = [
            (id("broken", "unittest.loader._FailedTest"), Error),
            (id("test_db", "verdict_shapes.tests.WithDb"), Passed),
            ("setUpClass (verdict_shapes.tests.BrokenSetup)".to_string(), Error),
            ("A docstring's first line.".to_string(), Passed),
            ("Fails, with a docstring.".to_string(), Failed),
            (id("test_errors", plain), Error),
            (id("test_expected_failure", plain), Xfail),
            (id("test_fails", plain), Failed),
            (id("test_passes", plain), Passed),
            (id("test_prints", plain), Passed),
            (id("test_skipped", plain), Skipped),
            (id("test_subtests", plain), Failed),
            (format!("{} (i=1)", id("test_subtests", plain)), Failed),
            (format!("{} (i=2)", id("test_subtests", plain)), Failed),
            (id("test_subtests_pass", plain), Passed),
            (id("test_unexpected_success", plain), Xpass),
            // Django's own tests, documented ones by their docstring's first line as printed.
            (id("test_can_create_instance_using_kwargs", basic), Passed),
            ("You can initialize a model instance using positional arguments,".to_string(), Passed),
            ("as much precision in *seconds*".to_string(), Passed),
        ];
        for (test, expected) in &shapes {
            assert_eq!(status(test), Some(*expected), "{dir}: {test}");
        }
        // 14 tests of `basic`, 16 entries of the sample (its failing subtests are entries too).
        assert_eq!(parsed.tests.len(), 30, "{dir}: {:?}", parsed.tests.keys().collect::<Vec<_>>());
        assert!(!parsed.tests.keys().any(|id| id.contains("Applying")), "{dir}");
        assert_eq!(parsed.console_summary.as_ref().map(|s| (s.failed, s.errors)), Some((4, 3)), "{dir}");
        assert_eq!(parsed.incomplete, None, "{dir}");
        assert!(parsed.notes.is_empty(), "{dir}: {:?}", parsed.notes);
        assert_eq!(check_console_summary(&parsed), None, "{dir}");
    }
}
