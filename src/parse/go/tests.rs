//! The Go runner on captured real output (tests/fixtures/parse/go/, see its README): Debian
//! bookworm's Go 1.19 in the Go base image, and Go 1.26 on the host for the newer event forms.

use std::path::Path;

use super::*;
use crate::parse::{parse, ResultSource, RunnerId};
use TestStatus::*;

const CALC: &str = "github.com/verdict-demo/gocalc/calc";
const STATS: &str = "github.com/verdict-demo/gocalc/stats";
const EDGE: &str = "github.com/verdict-demo/gocalc/edge";
const EXITS: &str = "github.com/verdict-demo/gocalc/exits";

fn read(rel: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parse/go").join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn console(case: &str) -> String {
    String::from_utf8(read(&format!("{case}/console.txt"))).expect("utf-8")
}

fn report(case: &str) -> Vec<StructuredReport> {
    vec![StructuredReport { name: REPORT.into(), bytes: read(&format!("{case}/go-test.json")) }]
}

fn go() -> RunnerId {
    RunnerId::named("go").expect("the go runner is in the table")
}

fn run(console: &str, structured: &[StructuredReport]) -> ParsedTests {
    parse(go(), console, structured).unwrap_or_else(|e| panic!("{e}"))
}

/// `(id, status, package)`, sorted.
fn results(parsed: &ParsedTests) -> Vec<(String, TestStatus, Option<String>)> {
    parsed.tests.iter().map(|(id, r)| (id.clone(), r.status, r.class.clone())).collect()
}

fn expect(list: &[(&str, TestStatus, &str)]) -> Vec<(String, TestStatus, Option<String>)> {
    let mut v: Vec<_> = list.iter().map(|(id, s, p)| (id.to_string(), *s, Some(p.to_string()))).collect();
    v.sort();
    v
}

fn calc_passing() -> Vec<(&'static str, TestStatus, &'static str)> {
    vec![
        ("TestAdd", Passed, CALC),
        ("TestAdd/two_positives", Passed, CALC),
        ("TestAdd/with_a_negative", Passed, CALC),
        ("TestAdd/zeros", Passed, CALC),
        ("TestDivide", Passed, CALC),
        ("TestDivideByZero", Passed, CALC),
        ("TestClamp/inside_the_range", Passed, CALC),
        ("TestClamp/below_the_range", Passed, CALC),
        ("TestClamp/at_the_bounds", Passed, CALC),
    ]
}

fn stats_passing() -> Vec<(&'static str, TestStatus, &'static str)> {
    vec![
        ("TestSum", Passed, STATS),
        ("TestMean", Passed, STATS),
        ("TestMedian", Passed, STATS),
        ("TestMedian/odd_length", Passed, STATS),
        ("TestMedian/leaves_the_input_unchanged", Passed, STATS),
    ]
}

#[test]
fn failing_subtest_and_its_parent() {
    let case = "gocalc-1-test-json";
    let mut want = calc_passing();
    want.extend([("TestClamp", Failed, CALC), ("TestClamp/above_the_range", Failed, CALC)]);
    let parsed = run(&console(case), &report(case));
    assert_eq!(parsed.source, ResultSource::Structured);
    assert_eq!(results(&parsed), expect(&want));
    assert!(parsed.disagreements.is_empty() && parsed.notes.is_empty(), "{parsed:?}");
    // The console of a -json run is the same events: read through their output, it agrees.
    let from_console = run(&console(case), &[]);
    assert_eq!(from_console.source, ResultSource::Console);
    assert_eq!(results(&from_console), expect(&want));
    assert!(from_console.notes[0].contains("no `go test -json` report was collected"), "{:?}", from_console.notes);
}

#[test]
fn a_broken_pass_to_pass_subtest() {
    let case = "gocalc-2-cand-json";
    let parsed = run(&console(case), &report(case));
    let statuses: Vec<(&str, TestStatus)> = parsed.tests.iter().map(|(id, r)| (id.as_str(), r.status)).collect();
    assert_eq!(
        statuses,
        [
            ("TestMean", Passed),
            ("TestMedian", Failed),
            ("TestMedian/even_length", Passed),
            ("TestMedian/leaves_the_input_unchanged", Failed),
            ("TestMedian/odd_length", Passed),
            ("TestSum", Passed),
        ]
    );
}

#[test]
fn a_package_that_does_not_build_is_an_error_entry() {
    // Go 1.19 prints `FAIL\t<pkg> [build failed]` as plain text amid the JSON; Go 1.26 sends
    // `build-fail` events. Both give the same result.
    for case in ["gocalc-4-cand-build-failed", "gocalc-4-cand-build-failed-go1.26"] {
        let mut want = stats_passing();
        want.push((CALC, Error, CALC));
        let parsed = run(&console(case), &report(case));
        assert_eq!(parsed.source, ResultSource::Structured, "{case}");
        assert_eq!(results(&parsed), expect(&want), "{case}");
        assert!(
            parsed.notes.iter().any(|n| n.contains(&format!("{CALC} (did not build)"))),
            "{case}: {:?}",
            parsed.notes
        );
        assert_eq!(results(&run(&console(case), &[])), expect(&want), "{case}: console");
    }
    // Only the package that did not build was tested: the report holds just go's plain line.
    let only = [StructuredReport { name: REPORT.into(), bytes: format!("FAIL\t{CALC} [build failed]\n").into_bytes() }];
    let parsed = run("", &only);
    assert_eq!(parsed.source, ResultSource::Structured);
    assert_eq!(results(&parsed), expect(&[(CALC, Error, CALC)]));
    let verbose = run(&console("gocalc-4-cand-verbose"), &[]);
    let mut want = stats_passing();
    want.push((CALC, Error, CALC));
    assert_eq!(results(&verbose), expect(&want));
}

/// The edge-case packages (`edge-src/`): skips, parallel and nested subtests with odd names, a
/// panic, a test that calls `os.Exit`, and a test printing fake result lines.
fn edge_expected(fake_line_counts: bool) -> Vec<(String, TestStatus, Option<String>)> {
    let mut want = calc_passing();
    want.push(("TestClamp", Passed, CALC));
    want.extend(stats_passing());
    want.extend([
        ("TestSkipped", Skipped, EDGE),
        ("TestPrintsFakeLines", Passed, EDGE),
        ("TestParallel", Failed, EDGE),
        ("TestParallel/a", Passed, EDGE),
        ("TestParallel/b/c", Failed, EDGE),
        ("TestParallel/with_space", Passed, EDGE),
        ("TestParallel/ünï", Passed, EDGE),
        ("TestNested", Passed, EDGE),
        ("TestNested/outer", Passed, EDGE),
        ("TestNested/outer/inner", Passed, EDGE),
        ("TestNested/outer/inner/deepest_(x)", Skipped, EDGE),
        ("TestPanics", Failed, EDGE),
        ("TestBefore", Passed, EXITS),
        // TestExits called os.Exit: it has no result, and its package is an ERROR entry.
        (EXITS, Error, EXITS),
    ]);
    if fake_line_counts {
        want.push(("TestNotReal", Failed, EDGE));
    }
    expect(&want)
}

#[test]
fn edge_cases_from_go_1_19_and_1_26() {
    for (case, fooled) in [("edge-json", true), ("edge-json-go1.26", false)] {
        let parsed = run(&console(case), &report(case));
        assert_eq!(results(&parsed), edge_expected(fooled), "{case}");
        assert!(parsed.disagreements.is_empty(), "{case}: {:?}", parsed.disagreements);
        assert!(
            parsed.notes.iter().any(|n| n.contains("1 test(s) started and never reported") && n.contains("TestExits")),
            "{case}: {:?}",
            parsed.notes
        );
        assert!(parsed.notes.iter().any(|n| n.contains(&format!("{EXITS} (failed with no failing test)"))));
    }
    // `go test -v`: the console alone gives the same statuses (Go 1.19 takes the fake result
    // line in both). The fake `ok  \tgithub.com/fake/pkg` line the test printed files the
    // results above it under that package: plain text cannot tell it from go's own line.
    let parsed = run(&console("edge-verbose"), &[]);
    let mut want = edge_expected(true);
    for (id, _, package) in want.iter_mut() {
        if id == "TestSkipped" || id == "TestNotReal" {
            *package = Some("github.com/fake/pkg".to_string());
        }
    }
    assert_eq!(results(&parsed), want);
}

#[test]
fn a_printed_json_event_is_not_an_event() {
    // The test printed `{"Action":"fail","Package":"fake","Test":"TestNotReal"}`: test2json
    // wraps it as output, so no package `fake` appears.
    let parsed = run(&console("edge-json-go1.26"), &report("edge-json-go1.26"));
    assert!(parsed.tests.values().all(|r| r.class.as_deref() != Some("fake")));
    assert!(!parsed.tests.contains_key("github.com/fake/pkg"));
}

#[test]
fn cut_short_and_garbled_reports() {
    // A report cut in the middle of a line keeps what came before it.
    let mut cut = report("gocalc-1-test-json");
    let at = cut[0].bytes.len() / 2;
    cut[0].bytes.truncate(at);
    let parsed = run("", &cut);
    assert!(parsed.tests.contains_key("TestAdd") && !parsed.tests.contains_key("TestClamp"));
    // A report with no events at all: the console is read, and the notes say why.
    let junk = [StructuredReport { name: REPORT.into(), bytes: b"not json\n".to_vec() }];
    let parsed = run(&console("gocalc-1-test-json"), &junk);
    assert_eq!(parsed.source, ResultSource::Console);
    assert!(parsed.notes[0].contains("holds no `go test -json` events"), "{:?}", parsed.notes);
}

#[test]
fn result_and_package_lines() {
    assert_eq!(result_line("--- PASS: TestX (0.00s)"), Some((Passed, "TestX")));
    assert_eq!(result_line("        --- SKIP: TestX/a/b_(c) (12.5s)"), Some((Skipped, "TestX/a/b_(c)")));
    assert_eq!(result_line("--- FAIL: TestX"), Some((Failed, "TestX")));
    assert_eq!(result_line("--- FAIL: two words (0.00s)"), None);
    assert_eq!(result_line("--- BENCH: BenchmarkX"), None);
    assert_eq!(package_line("ok  \tgithub.com/a/b\t0.01s"), Some(("github.com/a/b", false, false)));
    assert_eq!(package_line("ok  \tgithub.com/a/b\t(cached)"), Some(("github.com/a/b", false, false)));
    assert_eq!(package_line("FAIL\tgithub.com/a/b [build failed]"), Some(("github.com/a/b", true, true)));
    assert_eq!(package_line("FAIL\tgithub.com/a/b\t0.2s"), Some(("github.com/a/b", true, false)));
    assert_eq!(package_line("FAIL"), None);
    assert_eq!(package_line("?   \tgithub.com/a/b\t[no test files]"), None);
}

#[test]
fn test_files_become_their_packages() {
    let paths: Vec<String> =
        ["calc/calc_test.go", "calc/more_test.go", "root_test.go", "calc/testdata/x.txt", "calc/calc.go"]
            .map(String::from)
            .to_vec();
    let runnable = |p: &str| p.ends_with("_test.go");
    let args = crate::parse::TestArgs::Runner(go()).arguments(&TestFiles::new(&paths, &runnable));
    assert_eq!(args, ["./calc", "."]);
    // No test file: every package.
    let none = ["calc/testdata/x.txt".to_string()];
    assert_eq!(GoTest.arguments(&TestFiles::new(&none, &runnable)), Some(vec!["./...".to_string()]));
}

#[test]
fn subtests_nest_under_their_parent_and_tests_under_their_package() {
    use crate::grade::{grade, Granularity};
    let parsed = run(&console("gocalc-2-cand-json"), &report("gocalc-2-cand-json"));
    // A package id grades its tests as a class; a parent test is a test of its own.
    let g = grade(&[STATS.to_string()], &["TestMedian".to_string()], &parsed);
    assert_eq!(g.granularity.fail_to_pass, Granularity::Class);
    assert_eq!(g.granularity.pass_to_pass, Granularity::Test);
    assert_eq!(g.coarse[0].tests, 6);
    // Without the parent's own result, its subtests stand for it (`/` nests them).
    let mut only_subtests = parsed.clone();
    only_subtests.tests.remove("TestMedian");
    let g = grade(&["TestMedian".to_string()], &[], &only_subtests);
    assert_eq!(g.coarse[0].tests, 3);
    assert!(!g.coarse[0].passed);
}
