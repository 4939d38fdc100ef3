//! The cargo runner on captured real output (tests/fixtures/parse/cargo/, see its README):
//! Debian bookworm's rustc 1.63 / cargo 0.66 in the Rust base image, and on the host Rust 1.95
//! (stable console) and a nightly (libtest JSON).

use std::path::Path;

use super::*;
use crate::parse::{parse, ResultSource, RunnerId};
use TestStatus::*;

fn console(case: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parse/cargo").join(case).join("console.txt");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn cargo() -> RunnerId {
    RunnerId::named("cargo").expect("the cargo runner is in the table")
}

fn run(case: &str) -> ParsedTests {
    parse(cargo(), &console(case), &[]).unwrap_or_else(|e| panic!("{case}: {e}"))
}

/// `(id, status, file, class)`, sorted.
type Row = (String, TestStatus, Option<String>, Option<String>);

fn rows(parsed: &ParsedTests) -> Vec<Row> {
    parsed.tests.iter().map(|(id, r)| (id.clone(), r.status, r.file.clone(), r.class.clone())).collect()
}

fn expect(list: &[(&str, TestStatus, Option<&str>, Option<&str>)]) -> Vec<Row> {
    let mut v: Vec<Row> = list
        .iter()
        .map(|(id, s, f, c)| (id.to_string(), *s, f.map(str::to_string), c.map(str::to_string)))
        .collect();
    v.sort();
    v
}

const API: Option<&str> = Some("tests/api.rs");

fn api_tests(never_negative: TestStatus) -> Vec<(&'static str, TestStatus, Option<&'static str>, Option<&'static str>)> {
    vec![
        ("capitalizes_ascii", Passed, API, None),
        ("capitalizes_unicode", Passed, API, None),
        ("clamps_and_counts", Passed, API, None),
        ("gcd_is_symmetric", Passed, API, None),
        ("means::mean_of_values", Passed, API, Some("means")),
        ("signs::gcd_is_never_negative", never_negative, API, Some("signs")),
    ]
}

#[test]
fn stable_console_and_nightly_json_agree() {
    let console_run = run("rustcalc-1-test");
    assert_eq!(console_run.source, ResultSource::Console);
    assert_eq!(rows(&console_run), expect(&api_tests(Failed)));
    assert!(console_run.notes[0].contains("holds no libtest JSON events"), "{:?}", console_run.notes);
    // The nightly's JSON events are the structured report; its console has no text results.
    let json_run = run("rustcalc-1-test-nightly-json");
    assert_eq!(json_run.source, ResultSource::Structured);
    assert_eq!(rows(&json_run), expect(&api_tests(Failed)));
    assert!(json_run.notes.is_empty() && json_run.disagreements.is_empty(), "{json_run:?}");
}

#[test]
fn unit_integration_and_doc_tests_with_their_targets() {
    let parsed = run("rustcalc-1-gold-all");
    let lib = Some("src/lib.rs");
    let mut want = api_tests(Passed);
    want.extend([
        ("arith::tests::clamp_below_the_range", Passed, lib, Some("arith::tests")),
        ("arith::tests::clamp_inside_the_range", Passed, lib, Some("arith::tests")),
        ("arith::tests::gcd_of_positives", Passed, lib, Some("arith::tests")),
        ("arith::tests::mean_of_values", Passed, lib, Some("arith::tests")),
        ("arith::tests::signs::gcd_with_a_negative_zero_side", Passed, lib, Some("arith::tests::signs")),
        ("text::tests::capitalize_ascii", Passed, lib, Some("text::tests")),
        ("text::tests::capitalize_unicode", Passed, lib, Some("text::tests")),
        ("text::tests::word_count_ignores_extra_spaces", Passed, lib, Some("text::tests")),
        ("src/arith.rs - arith::clamp (line 5)", Passed, Some("src/arith.rs"), None),
    ]);
    assert_eq!(rows(&parsed), expect(&want));
    assert!(parsed.notes.iter().all(|n| !n.contains("ERROR")), "{:?}", parsed.notes);
}

#[test]
fn a_panicking_pass_to_pass_test() {
    let parsed = run("rustcalc-2-cand");
    assert_eq!(parsed.tests["capitalizes_unicode"].status, Failed);
    assert_eq!(parsed.tests["capitalizes_the_empty_string"].status, Passed);
    assert_eq!(parsed.tests.len(), 6);
}

#[test]
fn a_crate_that_does_not_compile_is_an_error_entry() {
    // rustc 1.63: "could not compile `rustcalc` due to previous error"; 1.95: "… (lib) due to 1
    // previous error".
    for case in ["rustcalc-4-cand-compile-error", "rustcalc-4-cand-compile-error-rust1.95"] {
        let parsed = run(case);
        assert_eq!(rows(&parsed), expect(&[("rustcalc", Error, None, None)]), "{case}");
        assert!(parsed.notes.iter().any(|n| n.contains("1 crate(s) did not compile")), "{case}: {:?}", parsed.notes);
    }
}

/// The edge-case crate (`edge-src/`): `should_panic`, ignored tests with and without a reason,
/// nested modules, a test printing fake result lines, a test binary that aborts, one name in
/// two targets, and doc tests (one `should_panic`, one failing).
fn edge_expected() -> Vec<Row> {
    let lib = Some("src/lib.rs");
    let t = Some("tests");
    expect(&[
        // `it_works` passes in the library and fails in tests/dup.rs: one id, most severe.
        ("it_works", Failed, lib, None),
        ("tests::deeper::deepest::nested_pass", Passed, lib, Some("tests::deeper::deepest")),
        ("tests::fails", Failed, lib, t),
        ("tests::ignored_plain", Skipped, lib, t),
        ("tests::ignored_with_reason", Skipped, lib, t),
        ("tests::overflows", Passed, lib, t),
        ("tests::passes", Passed, lib, t),
        ("tests::prints_fake_lines", Failed, lib, t),
        // tests/crash.rs aborted before its summary: the binary is an ERROR entry.
        ("tests/crash.rs", Error, Some("tests/crash.rs"), None),
        ("src/lib.rs - double (line 5)", Passed, lib, None),
        ("src/lib.rs - double (line 9)", Passed, lib, None),
        ("src/lib.rs - double (line 13)", Failed, lib, None),
    ])
}

#[test]
fn edge_cases_on_three_toolchains() {
    for case in ["edge", "edge-rust1.95", "edge-nightly-json"] {
        let parsed = run(case);
        assert_eq!(rows(&parsed), edge_expected(), "{case}");
        let source = if case.ends_with("json") { ResultSource::Structured } else { ResultSource::Console };
        assert_eq!(parsed.source, source, "{case}");
        assert!(
            parsed.notes.iter().any(|n| n.contains("stopped before their summary") && n.contains("tests/crash.rs")),
            "{case}: {:?}",
            parsed.notes
        );
        assert!(parsed.notes.iter().any(|n| n.contains("1 results repeated an earlier id")), "{case}: {:?}", parsed.notes);
        // `test tests::not_real ... ok`, printed by a failing test, is not a result.
        assert!(!parsed.tests.contains_key("tests::not_real"), "{case}");
    }
}

#[test]
fn result_lines() {
    assert_eq!(text_result("test a::b ... ok"), Some(("a::b", Passed)));
    assert_eq!(text_result("test a - should panic ... ok"), Some(("a", Passed)));
    assert_eq!(text_result("test a ... ignored, needs a network"), Some(("a", Skipped)));
    assert_eq!(text_result("test src/lib.rs - f (line 3) ... FAILED"), Some(("src/lib.rs - f (line 3)", Failed)));
    assert_eq!(text_result("test a ... bench:       1,234 ns/iter (+/- 5)"), None);
    assert_eq!(text_result("test result: ok. 1 passed; 0 failed"), None);
    assert_eq!(not_compiled_crate("error: could not compile `my-crate` (test \"api\") due to 2 previous errors"), Some("my-crate"));
}

#[test]
fn integration_test_files_become_test_targets() {
    let runnable = |p: &str| p.starts_with("tests/") && p.ends_with(".rs") && p.matches('/').count() <= 2;
    let arguments = |paths: &[&str]| {
        let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
        crate::parse::TestArgs::Runner(cargo()).arguments(&TestFiles::new(&paths, &runnable))
    };
    assert_eq!(arguments(&["tests/api.rs", "tests/cli/main.rs", "tests/data/input.txt"]), ["--test=api", "--test=cli"]);
    // A unit test inside src/ can be selected by no --test: the whole suite runs.
    assert!(arguments(&["tests/api.rs", "src/arith.rs"]).is_empty());
    // A helper module under tests/ is no target either.
    assert!(arguments(&["tests/common/mod.rs"]).is_empty());
    assert_eq!(arguments(&["tests/api.rs", "tests/api.rs"]), ["--test=api"]);
    // The arguments go before libtest's own options.
    assert_eq!(
        CargoTest.command("cargo test --no-fail-fast -- -Z unstable-options --format json", "--test=api"),
        "cargo test --no-fail-fast --test=api -- -Z unstable-options --format json"
    );
    assert_eq!(CargoTest.command("cargo test --", "--test=api"), "cargo test --test=api --");
    assert_eq!(CargoTest.command("cargo test --no-fail-fast", "--test=api"), "cargo test --no-fail-fast --test=api");
}

#[test]
fn ids_nest_by_module() {
    use crate::grade::{grade, Granularity};
    let parsed = run("rustcalc-1-gold-all");
    let g = grade(&["arith::tests".to_string()], &["tests/api.rs".to_string()], &parsed);
    assert!(g.resolved(), "{:?}", g.coarse);
    assert_eq!(g.granularity.fail_to_pass, Granularity::Class);
    assert_eq!(g.coarse[0].tests, 5, "arith::tests and its nested signs module");
    assert_eq!(g.granularity.pass_to_pass, Granularity::File);
    assert_eq!(g.coarse[1].tests, 6);
}
