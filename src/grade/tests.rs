//! Tests of the grading rules, granularity-aware matching, list derivation and the exit-code
//! check.

use std::collections::BTreeMap;

use super::*;
use crate::parse::{ResultSource, TestResult, TestStatus};
use TestStatus::*;

fn run(tests: &[(&str, TestStatus)]) -> ParsedTests {
    run_with(tests.iter().map(|(id, s)| (*id, *s, None, None)).collect())
}

/// Tests with their file and class, as the jest and surefire parsers fill them.
fn run_with(tests: Vec<(&str, TestStatus, Option<&str>, Option<&str>)>) -> ParsedTests {
    let tests: BTreeMap<String, TestResult> = tests
        .into_iter()
        .map(|(id, status, file, class)| {
            (id.to_string(), TestResult { status, file: file.map(Into::into), class: class.map(Into::into) })
        })
        .collect();
    ParsedTests {
        tests,
        source: ResultSource::Structured,
        disagreements: Vec::new(),
        notes: Vec::new(),
        nesting: Default::default(),
        console_summary: None,
        incomplete: None,
    }
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn full_partial_and_no() {
    let f2p = ids(&["t::a", "t::b"]);
    let p2p = ids(&["t::c"]);
    let full = grade(&f2p, &p2p, &run(&[("t::a", Passed), ("t::b", Xfail), ("t::c", Passed)]));
    assert_eq!(full.resolution, Resolution::Full);
    assert!(full.resolved());
    assert_eq!(full.tests_status.fail_to_pass.success, f2p);

    let partial = grade(&f2p, &p2p, &run(&[("t::a", Passed), ("t::b", Failed), ("t::c", Passed)]));
    assert_eq!(partial.resolution, Resolution::Partial);
    assert_eq!(partial.tests_status.fail_to_pass.failure, ["t::b"]);

    let broke_p2p = grade(&f2p, &p2p, &run(&[("t::a", Passed), ("t::b", Passed), ("t::c", Error)]));
    assert_eq!(broke_p2p.resolution, Resolution::No);
    assert_eq!(broke_p2p.tests_status.pass_to_pass.failure, ["t::c"]);

    let nothing = grade(&f2p, &p2p, &run(&[("t::a", Failed), ("t::b", Failed), ("t::c", Passed)]));
    assert_eq!(nothing.resolution, Resolution::No);
}

#[test]
fn skipped_f2p_is_not_a_pass() {
    let g = grade(&ids(&["t::a"]), &[], &run(&[("t::a", Skipped)]));
    assert_eq!(g.resolution, Resolution::No);
    assert_eq!(g.tests_status.fail_to_pass.failure, ["t::a"]);
    assert!(g.tests_status.fail_to_pass.missing.is_empty());
}

#[test]
fn missing_test_counts_as_failed() {
    let g = grade(&ids(&["t::a", "t::gone"]), &ids(&["t::p"]), &run(&[("t::a", Passed)]));
    assert_eq!(g.resolution, Resolution::No, "a missing P2P test fails the instance");
    assert_eq!(g.tests_status.fail_to_pass.failure, ["t::gone"]);
    assert_eq!(g.tests_status.fail_to_pass.missing, ["t::gone"]);
    assert_eq!(g.tests_status.pass_to_pass.missing, ["t::p"]);
    let g = grade(&ids(&["t::a", "t::gone"]), &[], &run(&[("t::a", Passed)]));
    assert_eq!(g.resolution, Resolution::Partial);
}

#[test]
fn xpass_is_not_a_pass() {
    let g = grade(&ids(&["t::a"]), &[], &run(&[("t::a", Xpass)]));
    assert_eq!(g.resolution, Resolution::No);
}

#[test]
fn empty_fail_to_pass_grades_no_with_a_note() {
    let g = grade(&[], &ids(&["t::c"]), &run(&[("t::c", Passed)]));
    assert_eq!(g.resolution, Resolution::No);
    assert!(g.notes[0].contains("no FAIL_TO_PASS tests"), "{:?}", g.notes);
}

#[test]
fn tests_status_serializes_in_swe_bench_shape() {
    let g = grade(&ids(&["t::a"]), &ids(&["t::c"]), &run(&[("t::a", Passed), ("t::c", Passed)]));
    let json = serde_json::to_value(&g).unwrap();
    assert_eq!(json["resolution"], "RESOLVED_FULL");
    assert_eq!(json["tests_status"]["FAIL_TO_PASS"]["success"][0], "t::a");
    assert_eq!(json["tests_status"]["PASS_TO_PASS"]["failure"], serde_json::json!([]));
    assert_eq!(json["granularity"], serde_json::json!({"FAIL_TO_PASS": "test", "PASS_TO_PASS": "test"}));
    let back: Grade = serde_json::from_value(json).unwrap();
    assert_eq!(back, g);
}

/// A jest run as the jest parser reports it: ids keep file and describe path.
fn jest_run(div_status: TestStatus) -> ParsedTests {
    run_with(vec![
        ("test/math.test.js > math > adds", Passed, Some("test/math.test.js"), None),
        ("test/math.test.js > math > divides", div_status, Some("test/math.test.js"), None),
        ("test/math.test.js > math > later", Skipped, Some("test/math.test.js"), None),
        ("test/fmt.test.js > fmt > shows", Passed, Some("test/fmt.test.js"), None),
    ])
}

#[test]
fn js_file_path_ids_grade_at_file_level() {
    let f2p = ids(&["test/math.test.js"]);
    let p2p = ids(&["./test/fmt.test.js"]);
    let g = grade(&f2p, &p2p, &jest_run(Passed));
    // test/math.test.js holds a skipped test: the file did not wholly run and pass.
    assert_eq!(g.resolution, Resolution::No);
    assert_eq!(g.granularity.fail_to_pass, Granularity::File);
    assert_eq!(g.granularity.pass_to_pass, Granularity::File);
    let m = &g.coarse[0];
    assert_eq!((m.tests, m.passing, m.skipped, m.passed), (3, 2, 1, false));
    assert!(g.coarse[1].passed, "fmt.test.js ran and passed whole");
    assert!(g.notes.iter().any(|n| n.starts_with("FAIL_TO_PASS graded at file level")), "{:?}", g.notes);

    let g = grade(&f2p, &p2p, &jest_run(Failed));
    assert_eq!(g.resolution, Resolution::No, "one failing test fails the whole file");
    assert_eq!(g.coarse[0].failing, ["test/math.test.js > math > divides (FAILED)"]);
}

#[test]
fn a_file_whose_tests_are_all_skipped_does_not_pass() {
    let parsed = run_with(vec![("test/a.test.js > x", Skipped, Some("test/a.test.js"), None)]);
    let g = grade(&ids(&["test/a.test.js"]), &[], &parsed);
    assert_eq!(g.resolution, Resolution::No);
}

/// A surefire run: ids `package.Class.method`, classes fully qualified, nested with `$`.
fn maven_run(inner_status: TestStatus) -> ParsedTests {
    run_with(vec![
        ("com.acme.CalcTest.adds", Passed, None, Some("com.acme.CalcTest")),
        ("com.acme.CalcTest$Division.divides", inner_status, None, Some("com.acme.CalcTest$Division")),
        ("com.acme.FmtTest.shows", Passed, None, Some("com.acme.FmtTest")),
    ])
}

#[test]
fn java_class_ids_grade_at_class_level_with_nested_classes() {
    let g = grade(&ids(&["com.acme.CalcTest"]), &ids(&["com.acme.FmtTest"]), &maven_run(Passed));
    assert_eq!(g.resolution, Resolution::Full);
    assert_eq!(g.granularity.fail_to_pass, Granularity::Class);
    assert_eq!(g.coarse[0].tests, 2, "the nested class belongs to its outer class");
    let g = grade(&ids(&["com.acme.CalcTest"]), &[], &maven_run(Error));
    assert_eq!(g.resolution, Resolution::No);
    let g = grade(&ids(&["com.acme.CalcTest$Division"]), &[], &maven_run(Passed));
    assert_eq!(g.coarse[0].tests, 1);
}

#[test]
fn java_class_ids_with_spurious_org_prefix() {
    let g = grade(&ids(&["org.com.acme.CalcTest"]), &ids(&["org.com.acme.FmtTest"]), &maven_run(Passed));
    assert_eq!(g.resolution, Resolution::Full);
    assert_eq!(g.coarse[0].matched_as.as_deref(), Some("com.acme.CalcTest"));
    assert!(g.notes.iter().any(|n| n.contains("leading `org.` dropped")), "{:?}", g.notes);
    // A class that really lives in org.* matches as given, without stripping.
    let parsed = run_with(vec![("org.x.ATest.t", Passed, None, Some("org.x.ATest"))]);
    let g = grade(&ids(&["org.x.ATest"]), &[], &parsed);
    assert_eq!(g.coarse[0].matched_as, None);
    assert!(g.resolved());
}

#[test]
fn java_class_ids_match_by_id_prefix_when_class_is_unknown() {
    let parsed = run(&[("com.acme.CalcTest.adds", Passed), ("com.acme.CalcTestExtra.x", Failed)]);
    let g = grade(&ids(&["org.com.acme.CalcTest"]), &[], &parsed);
    assert!(g.resolved(), "CalcTestExtra is not part of CalcTest: {:?}", g.coarse);
    assert_eq!(g.coarse[0].tests, 1);
    assert_eq!(g.coarse[0].level, Granularity::Class);
}

#[test]
fn pytest_file_and_class_node_ids() {
    let parsed = run_with(vec![
        ("tests/test_a.py::test_one", Passed, Some("tests/test_a.py"), None),
        ("tests/test_a.py::TestK::test_two", Passed, Some("tests/test_a.py"), Some("tests/test_a.py::TestK")),
        (
            "tests/test_a.py::TestK::TestInner::test_three[a b]",
            Failed,
            Some("tests/test_a.py"),
            Some("tests/test_a.py::TestK::TestInner"),
        ),
        ("tests/test_b.py::test_ok", Passed, Some("tests/test_b.py"), None),
    ]);
    let g = grade(&ids(&["tests/test_b.py"]), &ids(&["tests/test_a.py::TestK::test_two"]), &parsed);
    assert_eq!(g.granularity.fail_to_pass, Granularity::File);
    assert_eq!(g.granularity.pass_to_pass, Granularity::Test);
    assert!(g.resolved());

    let g = grade(&ids(&["tests/test_a.py::TestK"]), &[], &parsed);
    assert_eq!(g.granularity.fail_to_pass, Granularity::Class);
    assert_eq!(g.coarse[0].tests, 2, "the nested class is part of TestK");
    assert_eq!(g.resolution, Resolution::No);

    let g = grade(&ids(&["tests/test_a.py", "tests/test_b.py::test_ok"]), &[], &parsed);
    assert_eq!(g.granularity.fail_to_pass, Granularity::Mixed);
    assert_eq!(g.resolution, Resolution::Partial);
}

#[test]
fn pytest_ids_match_by_prefix_when_parser_gave_no_file() {
    let parsed = run(&[("tests/test_a.py::TestK::test_x", Passed), ("tests/test_a.py::test_y", Passed)]);
    let g = grade(&ids(&["tests/test_a.py"]), &ids(&["tests/test_a.py::TestK"]), &parsed);
    assert_eq!(g.granularity.fail_to_pass, Granularity::File);
    assert_eq!(g.granularity.pass_to_pass, Granularity::Class);
    assert_eq!(g.coarse[0].tests, 2);
    assert!(g.resolved());
}

#[test]
fn unmatched_coarse_ids_are_missing() {
    let g = grade(&ids(&["test/none.test.js", "org.com.acme.Nope"]), &[], &jest_run(Passed));
    assert_eq!(g.tests_status.fail_to_pass.missing.len(), 2);
    assert_eq!(g.granularity.fail_to_pass, Granularity::Test);
    assert_eq!(g.resolution, Resolution::No);
}

#[test]
fn derive_lists_from_transitions_with_flaky_tests() {
    let before = [
        run(&[
            ("t::new", Failed),
            ("t::old", Passed),
            ("t::flaky", Passed),
            ("t::skip", Skipped),
            ("t::broke", Passed),
        ]),
        run(&[
            ("t::new", Failed),
            ("t::old", Passed),
            ("t::flaky", Failed),
            ("t::skip", Skipped),
            ("t::broke", Passed),
        ]),
    ];
    let after = [
        run(&[
            ("t::new", Passed),
            ("t::old", Passed),
            ("t::flaky", Passed),
            ("t::skip", Passed),
            ("t::added", Passed),
            ("t::broke", Error),
            ("t::wobbly", Passed),
        ]),
        run(&[
            ("t::new", Passed),
            ("t::old", Passed),
            ("t::flaky", Passed),
            ("t::skip", Passed),
            ("t::added", Passed),
            ("t::broke", Error),
        ]),
    ];
    let d = derive_lists(&before, &after);
    assert_eq!(d.fail_to_pass, ["t::added", "t::new", "t::skip"], "missing or skipped before, passing after");
    assert_eq!(d.pass_to_pass, ["t::old"]);
    assert_eq!(d.pass_to_fail, ["t::broke"]);
    assert_eq!(d.failing_after, ["t::broke"]);
    let flaky: Vec<_> = d.flaky.iter().map(|f| f.test.as_str()).collect();
    assert_eq!(flaky, ["t::flaky", "t::wobbly"]);
    assert_eq!(d.flaky[0].before, [Some(Passed), Some(Failed)]);
    assert_eq!(d.flaky[1].after, [Some(Passed), None], "absent from one repeat is flaky");
    assert_eq!((d.before_runs, d.after_runs), (2, 2));
    // The same runs in another order give the same lists.
    let again = derive_lists(&[before[1].clone(), before[0].clone()], &after);
    assert_eq!((again.fail_to_pass, again.pass_to_pass), (d.fail_to_pass, d.pass_to_pass));
}

#[test]
fn derive_lists_with_no_runs_is_empty() {
    assert_eq!(derive_lists(&[], &[]), Derived::default());
}

#[test]
fn exit_code_contradictions() {
    let failing = run(&[("t::a", Passed), ("t::b", Failed)]);
    let passing = run(&[("t::a", Passed), ("t::b", Skipped), ("t::c", Xpass)]);
    let w = check_exit_code(0, &failing).unwrap();
    assert!(w.starts_with("the test command exited 0 but 1 test(s) failed or errored: t::b (FAILED)"), "{w}");
    assert_eq!(check_exit_code(1, &failing), None);
    assert_eq!(check_exit_code(0, &run(&[("t::a", Passed), ("t::x", Xpass)])), None, "non-strict XPASS exits 0");
    let w = check_exit_code(137, &run(&[("t::a", Passed)])).unwrap();
    assert!(w.contains("exited 137 (137: the command was killed"), "{w}");
    assert_eq!(check_exit_code(1, &passing), None, "an XPASS is a failure that explains the exit code");
    assert!(check_exit_code(0, &run(&[])).unwrap().contains("no test result"));
    let many: Vec<(String, TestStatus)> = (0..7).map(|i| (format!("t::{i}"), Error)).collect();
    let refs: Vec<(&str, TestStatus)> = many.iter().map(|(id, s)| (id.as_str(), *s)).collect();
    assert!(check_exit_code(0, &run(&refs)).unwrap().contains("and 2 more"));
}

/// A run as a given runner's parser leaves it: its nesting rules.
fn run_of(runner: &str, tests: Vec<(&str, TestStatus, Option<&str>, Option<&str>)>) -> ParsedTests {
    ParsedTests { nesting: crate::parse::RunnerId::named(runner).unwrap().nesting(), ..run_with(tests) }
}

#[test]
fn each_runner_nests_its_ids_its_own_way() {
    // Maven: `org.` is dropped, `$` nests classes, `.` continues an id.
    let maven = run_of("maven", vec![("com.acme.CalcTest$Div.divides", Passed, None, None)]);
    let g = grade(&ids(&["org.com.acme.CalcTest"]), &[], &maven);
    assert!(g.resolved(), "{:?}", g.coarse);
    assert_eq!(g.coarse[0].matched_as.as_deref(), Some("com.acme.CalcTest"));
    // pytest: neither rule is pytest's, so the same ids do not match there.
    let pytest = run_of("pytest", vec![("com.acme.CalcTest$Div.divides", Passed, None, None)]);
    assert_eq!(grade(&ids(&["org.com.acme.CalcTest"]), &[], &pytest).tests_status.fail_to_pass.missing.len(), 1);
    // pytest's own nesting: `path::Class` nested classes, the file before the first `::`.
    let pytest = run_of(
        "pytest",
        vec![("t.py::A::B::test", Passed, None, Some("t.py::A::B")), ("t.py::test", Passed, None, None)],
    );
    let g = grade(&ids(&["t.py::A"]), &ids(&["t.py"]), &pytest);
    assert!(g.resolved());
    assert_eq!((g.granularity.fail_to_pass, g.granularity.pass_to_pass), (Granularity::Class, Granularity::File));
    assert_eq!(g.coarse[1].tests, 2);
    // jest: ` > ` continues an id, the part before the first one is the file.
    let jest = run_of("jest", vec![("a.test.js > x > y", Passed, None, None)]);
    let g = grade(&ids(&["a.test.js > x"]), &ids(&["a.test.js"]), &jest);
    assert!(g.resolved());
    assert_eq!((g.granularity.fail_to_pass, g.granularity.pass_to_pass), (Granularity::Class, Granularity::File));
}

#[test]
fn a_pass_to_pass_xpass_is_not_a_regression_by_default() {
    let parsed = run(&[("t::fix", Passed), ("t::xf", Xpass)]);
    let g = grade(&ids(&["t::fix"]), &ids(&["t::xf"]), &parsed);
    assert_eq!(g.resolution, Resolution::Full);
    assert!(
        g.notes.iter().any(|n| n.contains("1 PASS_TO_PASS test(s) XPASSed") && n.contains("t::xf")),
        "{:?}",
        g.notes
    );
    let strict = Rules { xpass: XpassRule::Fail };
    let g = grade_with(&ids(&["t::fix"]), &ids(&["t::xf"]), &parsed, &strict);
    assert_eq!(g.resolution, Resolution::No, "--xpass fail");
    assert!(g.notes.is_empty(), "{:?}", g.notes);
    // In FAIL_TO_PASS an XPASS never passes.
    assert_eq!(grade_with(&ids(&["t::xf"]), &[], &parsed, &Rules::default()).resolution, Resolution::No);
    // Inside a coarse P2P id too.
    let parsed = run(&[("t::fix", Passed), ("tests/x.py::a", Xpass), ("tests/x.py::b", Passed)]);
    assert!(grade(&ids(&["t::fix"]), &ids(&["tests/x.py"]), &parsed).resolved());
    assert!(!grade_with(&ids(&["t::fix"]), &ids(&["tests/x.py"]), &parsed, &strict).resolved());
    assert_eq!("fail".parse::<XpassRule>(), Ok(XpassRule::Fail));
    assert!("strict".parse::<XpassRule>().is_err());
}

/// The case that made the rule: validate lists an xfail test in PASS_TO_PASS (XFAIL passes),
/// and a correct fix that also makes it pass must grade resolved against that dataset.
#[test]
fn a_fix_that_makes_a_validated_xfail_test_pass_is_resolved() {
    let before = [run(&[("t::bug", Failed), ("t::known", Xfail)])];
    let after = [run(&[("t::bug", Passed), ("t::known", Xfail)])];
    let d = derive_lists(&before, &after);
    assert_eq!((d.fail_to_pass.clone(), d.pass_to_pass.clone()), (ids(&["t::bug"]), ids(&["t::known"])));
    let candidate = run(&[("t::bug", Passed), ("t::known", Xpass)]);
    assert!(grade(&d.fail_to_pass, &d.pass_to_pass, &candidate).resolved());
    // And validation keeps such a test in PASS_TO_PASS when the gold patch makes it XPASS.
    let gold_xpass = [run(&[("t::bug", Passed), ("t::known", Xpass)])];
    let d = derive_lists(&before, &gold_xpass);
    assert_eq!(d.pass_to_pass, ids(&["t::known"]));
    assert!(d.failing_after.is_empty() && d.pass_to_fail.is_empty(), "{d:?}");
    let strict = derive_lists_with(&before, &gold_xpass, &Rules { xpass: XpassRule::Fail });
    assert_eq!((strict.pass_to_fail, strict.failing_after), (ids(&["t::known"]), ids(&["t::known"])));
}
