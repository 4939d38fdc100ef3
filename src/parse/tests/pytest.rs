//! pytest 8.3.4 fixtures, captured in a container at /testbed with
//! `pytest -rA -p no:cacheprovider -o junit_family=xunit1 --junitxml=$VERDICT_OUT/junit.xml`
//! (plus `--color=yes`, `-v`, or `-n 2 -v` with pytest-xdist 3.8.0).

use super::*;
use crate::parse::pytest::{cut_id, split_node_id};
use TestStatus::*;

/// Every test of the `basic` run, as the XML and the console together say.
fn basic_expected() -> Vec<(String, TestStatus)> {
    expect(&[
        ("tests/sub/test_other.py::MyCase::test_bad", Failed),
        ("tests/sub/test_other.py::MyCase::test_ok", Passed),
        ("tests/sub/test_other.py::MyCase::test_skip", Skipped),
        ("tests/sub/test_other.py::TestÜber::test_ids_lambda[\\xe4 \\xf6]", Passed),
        ("tests/sub/test_other.py::TestÜber::test_ids_lambda[x - [y]]", Passed),
        ("tests/sub/test_other.py::test_café_ünïcode", Passed),
        ("tests/sub/test_other.py::test_print_fake", Passed),
        ("tests/sub/test_other.py::test_range[0]", Passed),
        ("tests/sub/test_other.py::test_range[1]", Passed),
        ("tests/sub/test_other.py::test_range[2]", Failed),
        ("tests/test_basic.py::TestOuter::TestInner::test_nested", Passed),
        ("tests/test_basic.py::TestOuter::TestInner::test_nested_param[x y]", Passed),
        ("tests/test_basic.py::TestOuter::TestInner::test_nested_param[z::w]", Passed),
        ("tests/test_basic.py::TestOuter::test_in_class", Passed),
        ("tests/test_basic.py::TestOuter::test_in_class_fail", Failed),
        ("tests/test_basic.py::test_error", Error),
        ("tests/test_basic.py::test_fail", Failed),
        ("tests/test_basic.py::test_ids[one - two]", Passed),
        ("tests/test_basic.py::test_ids[three [3]]", Failed),
        ("tests/test_basic.py::test_params[[x]]", Passed),
        ("tests/test_basic.py::test_params[a - b]", Failed),
        ("tests/test_basic.py::test_params[hello world]", Passed),
        ("tests/test_basic.py::test_params[na\\xefve caf\\xe9 \\xfc]", Passed),
        ("tests/test_basic.py::test_params[spaces  two]", Passed),
        ("tests/test_basic.py::test_params[tab\\there]", Failed),
        ("tests/test_basic.py::test_pass", Passed),
        ("tests/test_basic.py::test_skip_inside", Skipped),
        ("tests/test_basic.py::test_skipped", Skipped),
        ("tests/test_basic.py::test_teardown_error", Error),
        ("tests/test_basic.py::test_xfail", Xfail),
        ("tests/test_basic.py::test_xpass", Xpass),
        ("tests/test_basic.py::test_xpass_strict", Failed),
    ])
}

/// What the console alone shows: the same minus the three skips it names only by location.
fn basic_console_expected() -> Vec<(String, TestStatus)> {
    basic_expected().into_iter().filter(|(_, s)| *s != Skipped).collect()
}

#[test]
fn junit_xml_with_console_refinements() {
    for run in ["basic", "color", "xdist", "verbose"] {
        let dir = format!("pytest/{run}");
        let parsed = ok(runner("pytest"), &console(&format!("{dir}/console.txt")), &reports(&dir, &["junit.xml"]));
        assert_eq!(parsed.source, ResultSource::Structured, "{run}");
        // XPASS comes from the console (the XML says passed) and is not a disagreement.
        assert_eq!(statuses(&parsed), basic_expected(), "{run}");
        assert!(parsed.disagreements.is_empty(), "{run}: {:?}", parsed.disagreements);
        assert!(parsed.notes.is_empty(), "{run}: {:?}", parsed.notes);
    }
}

#[test]
fn file_and_class_of_node_ids() {
    let parsed = ok(runner("pytest"), "", &reports("pytest/basic", &["junit.xml"]));
    let nested = &parsed.tests["tests/test_basic.py::TestOuter::TestInner::test_nested_param[z::w]"];
    assert_eq!(nested.file.as_deref(), Some("tests/test_basic.py"));
    assert_eq!(nested.class.as_deref(), Some("tests/test_basic.py::TestOuter::TestInner"));
    let plain = &parsed.tests["tests/sub/test_other.py::test_range[2]"];
    assert_eq!((plain.file.as_deref(), plain.class.as_deref()), (Some("tests/sub/test_other.py"), None));
    // Without a console, XPASS cannot be known: the XML's pass stands.
    assert_eq!(parsed.tests["tests/test_basic.py::test_xpass"].status, Passed);
    assert_eq!(parsed.tests["tests/test_basic.py::test_xfail"].status, Xfail);
}

#[test]
fn console_summary_fallback() {
    for run in ["basic", "color", "xdist", "verbose"] {
        let parsed = ok(runner("pytest"), &console(&format!("pytest/{run}/console.txt")), &[]);
        assert_eq!(parsed.source, ResultSource::Console, "{run}");
        // Without -v the summary's `SKIPPED [N] file:line` lines leave the skips unnamed; with
        // -v (verbose, xdist) the progress lines name them.
        let verbose = run == "verbose" || run == "xdist";
        let want = if verbose { basic_expected() } else { basic_console_expected() };
        assert_eq!(statuses(&parsed), want, "{run}");
        assert!(parsed.notes[0].contains("no JUnit XML report"), "{:?}", parsed.notes);
        assert!(parsed.notes.iter().any(|n| n.contains("3 `SKIPPED [N] file:line`")), "{:?}", parsed.notes);
        let named = parsed.notes.iter().any(|n| n.contains("3 skipped tests were named by the `-v` progress lines"));
        assert_eq!(named, verbose, "{run}: {:?}", parsed.notes);
    }
}

#[test]
fn skips_named_only_by_progress_lines() {
    // pytest 8.3.4 -rA -v: 46 parametrized skips with one reason are one `SKIPPED [46]` summary
    // line; only the progress lines name them.
    let dir = "pytest/skips_in_progress_only";
    let text = console(&format!("{dir}/console.txt"));
    assert!(text.contains("SKIPPED [46] tests/test_tz.py:6: needs the Windows registry"));
    let parsed = ok(runner("pytest"), &text, &[]);
    let skipped: Vec<&String> = parsed.tests.iter().filter(|(_, r)| r.status == Skipped).map(|(id, _)| id).collect();
    assert_eq!(skipped.len(), 46);
    assert!(parsed.tests.contains_key("tests/test_tz.py::test_windows_zone[45]"));
    assert_eq!(parsed.tests["tests/test_tz.py::test_fails"].status, Failed);
    assert_eq!(parsed.tests.len(), 50);
    assert!(parsed.notes.iter().any(|n| n.contains("46 skipped tests were named")), "{:?}", parsed.notes);
    // The JUnit XML of the same run agrees, test for test.
    let from_xml = ok(runner("pytest"), &text, &reports(dir, &["junit.xml"]));
    assert_eq!(statuses(&from_xml), statuses(&parsed));
    assert!(from_xml.disagreements.is_empty());
}

#[test]
fn progress_lines_printed_by_a_test_are_not_read_as_skips() {
    // Lines after the progress section (what tests printed, in PASSES) name no skip.
    let text = console("pytest/verbose/console.txt").replace(
        "=========================== short test summary info",
        "tests/test_basic.py::test_invented SKIPPED (fake)                          [ 99%]\n=========================== short test summary info",
    );
    let parsed = ok(runner("pytest"), &text, &[]);
    assert!(!parsed.tests.contains_key("tests/test_basic.py::test_invented"));
}

#[test]
fn printed_fake_result_lines_are_ignored() {
    // test_print_fake prints `PASSED tests/sub/test_other.py::test_fake_line`; -rA shows it in
    // the PASSES section, above the real summary.
    let text = console("pytest/basic/console.txt");
    assert!(text.contains("\nPASSED tests/sub/test_other.py::test_fake_line\n"));
    let parsed = ok(runner("pytest"), &text, &[]);
    assert!(!parsed.tests.keys().any(|id| id.contains("test_fake_line")));
}

#[test]
fn progress_lines_when_the_summary_is_missing() {
    // The same real logs, cut before the summary (as a killed run leaves them).
    for run in ["verbose", "xdist"] {
        let text = console(&format!("pytest/{run}/console.txt"));
        let cut = &text[..text.find("short test summary info").expect("summary")];
        let parsed = ok(runner("pytest"), cut, &[]);
        // Progress lines name skipped tests too.
        assert_eq!(statuses(&parsed), basic_expected(), "{run}");
        assert!(parsed.notes.iter().any(|n| n.contains("progress lines")), "{:?}", parsed.notes);
    }
}

#[test]
fn collection_error_is_the_file() {
    let dir = "pytest/collect_error";
    let text = console(&format!("{dir}/console.txt"));
    for structured in [reports(dir, &["junit.xml"]), vec![]] {
        let parsed = ok(runner("pytest"), &text, &structured);
        assert_eq!(statuses(&parsed), expect(&[("tests/test_collect_error.py", Error)]));
        assert!(parsed.disagreements.is_empty());
    }
}

#[test]
fn truncated_xml_falls_back_to_the_console() {
    let mut report = reports("pytest/basic", &["junit.xml"]);
    let half = report[0].bytes.len() / 2;
    report[0].bytes.truncate(half);
    let parsed = ok(runner("pytest"), &console("pytest/basic/console.txt"), &report);
    assert_eq!(parsed.source, ResultSource::Console);
    assert_eq!(statuses(&parsed), basic_console_expected());
    assert!(parsed.notes[0].contains("junit.xml") && parsed.notes[0].contains("truncated"), "{:?}", parsed.notes);
}

#[test]
fn conflicting_console_is_recorded_and_the_xml_wins() {
    let text = console("pytest/basic/console.txt")
        .replace("\nPASSED tests/test_basic.py::test_pass\n", "\nFAILED tests/test_basic.py::test_pass - no\n");
    let parsed = ok(runner("pytest"), &text, &reports("pytest/basic", &["junit.xml"]));
    assert_eq!(parsed.tests["tests/test_basic.py::test_pass"].status, Passed);
    assert_eq!(
        parsed.disagreements,
        vec![crate::parse::Disagreement {
            test: "tests/test_basic.py::test_pass".to_string(),
            structured: Some(Passed),
            console: Some(Failed),
        }]
    );
}

#[test]
fn ids_without_a_file_attribute_come_from_the_console() {
    // xunit2 has no `file` attribute: drop it from the real report.
    let mut report = reports("pytest/basic", &["junit.xml"]);
    let xml = String::from_utf8(report[0].bytes.clone()).expect("utf-8");
    let re = regex::Regex::new(r#" file="[^"]*""#).expect("regex");
    report[0].bytes = re.replace_all(&xml, "").into_owned().into_bytes();
    let with_console = ok(runner("pytest"), &console("pytest/basic/console.txt"), &report);
    assert_eq!(statuses(&with_console), basic_expected());
    // Alone, the ids are rebuilt from classname by case: right for this project.
    let alone = ok(runner("pytest"), "", &report);
    let mut want = basic_expected();
    want.iter_mut().filter(|(id, _)| id.ends_with("::test_xpass")).for_each(|(_, s)| *s = Passed);
    assert_eq!(statuses(&alone), want);
    assert!(alone.notes.iter().any(|n| n.contains("rebuilt from `classname`")), "{:?}", alone.notes);
}

#[test]
fn ids_are_cut_bracket_aware() {
    assert_eq!(cut_id("t.py::test[a] - assert [1] == [2]"), "t.py::test[a]");
    assert_eq!(cut_id("t.py::test[a - b] - AssertionError: x"), "t.py::test[a - b]");
    assert_eq!(cut_id("t.py::test[three [3]]"), "t.py::test[three [3]]");
    assert_eq!(cut_id("t.py::test[[] - msg"), "t.py::test[[]");
    assert_eq!(cut_id("t.py::test[a]]"), "t.py::test[a]]");
    assert_eq!(cut_id("t.py::C::test - AssertionError"), "t.py::C::test");
    assert_eq!(cut_id("t.py::test[x y]"), "t.py::test[x y]");
    assert_eq!(cut_id("tests/t.py - ImportError"), "tests/t.py");
    assert_eq!(split_node_id("a/t.py::C::D::test[x::y]"), ("a/t.py", Some("a/t.py::C::D")));
    assert_eq!(split_node_id("a/t.py::test[C::x]"), ("a/t.py", None));
}

#[test]
fn ids_cut_with_their_positions_split_as_node_ids_do() {
    // The summary reader splits ids from the positions it found while cutting them; it must
    // agree with split_node_id on every shape.
    for rest in [
        "t.py::test[a] - assert [1] == [2]",
        "t.py::C::D::test[x::y] - boom",
        "a/t.py::test[C::x]",
        "t.py::C::test - AssertionError",
        "t.py::test[[] - msg",
        "t.py::test[a]]",
        "tests/t.py - ImportError",
        "tests/t.py",
        "t.py::C::test",
        "t.py::test[x y]",
    ] {
        let (id, path_end, params) = crate::parse::pytest::cut_id_at(rest);
        let (file, class) = split_node_id(id);
        let result = crate::parse::pytest::result_at(id, path_end, params, Passed);
        assert_eq!((result.file.as_deref(), result.class.as_deref()), (Some(file), class), "{rest}");
    }
}

/// pytest 5.4.0 (Python 3.9.18, at /tmp/testbed) on a test whose failure report raises inside
/// pytest's saferepr: an INTERNALERROR ends the session, and the JUnit XML holds an empty
/// `<testcase time="0.000">` for the test being reported, then pytest's own `internal` case.
#[test]
fn internal_error_leaves_no_phantom_pass() {
    let dir = "pytest/internal_error";
    let parsed = ok(runner("pytest"), &console(&format!("{dir}/console.txt")), &reports(dir, &["junit.xml"]));
    assert_eq!(parsed.source, ResultSource::Structured);
    assert_eq!(parsed.tests["tests/test_repr.py::test_ok"].status, TestStatus::Passed);
    // The empty element is no test: before, it was read as a passing `.py::`.
    assert!(parsed.tests.keys().all(|id| !id.starts_with(".py")), "{:?}", parsed.tests.keys().collect::<Vec<_>>());
    assert!(!parsed.tests.values().any(|r| r.status == TestStatus::Passed && r.file.as_deref() == Some(".py")));
    assert_eq!(parsed.tests.values().filter(|r| r.status == TestStatus::Passed).count(), 1);
    assert!(parsed.notes.iter().any(|n| n.contains("INTERNALERROR")), "{:?}", parsed.notes);
}
