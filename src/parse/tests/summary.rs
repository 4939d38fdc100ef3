//! The console's closing summary counts of every runner, and the integrity check that compares
//! them with the results: on every captured real log it raises no alarm; on logs whose
//! structured report was rewritten (fixtures written here in the same shapes) it does.

use super::*;
use crate::grade::integrity::check_console_summary;
use crate::parse::SummaryCounts;

/// Every fixture run: (name, parser, console, reports) from `<runner>/<case>/` folders and from
/// the `captured/<runner>/<case>.console.txt` files with their reports beside them.
fn every_fixture() -> Vec<(String, RunnerId, String, Vec<StructuredReport>)> {
    let mut runs = Vec::new();
    for name in ["pytest", "jest", "mocha", "maven", "unittest", "sympy"] {
        let (kind, runner) = (runner(name), name);
        for case in std::fs::read_dir(fixture(runner)).unwrap().flatten().map(|e| e.path()) {
            let console = std::fs::read_to_string(case.join("console.txt")).unwrap_or_default();
            runs.push((case.display().to_string(), kind, console, reports_under(&case, "")));
        }
        let captured = fixture(&format!("captured/{runner}"));
        let Ok(entries) = std::fs::read_dir(&captured) else { continue };
        for path in entries.flatten().map(|e| e.path()) {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let Some(case) = name.strip_suffix(".console.txt") else { continue };
            let console = std::fs::read_to_string(&path).unwrap();
            let mut reports = Vec::new();
            for ext in ["jest.json", "mocha.json"] {
                if let Ok(bytes) = std::fs::read(captured.join(format!("{case}.{ext}"))) {
                    reports.push(StructuredReport { name: ext.to_string(), bytes });
                }
            }
            reports.extend(reports_under(&captured.join(format!("{case}.surefire-reports")), "surefire/"));
            runs.push((path.display().to_string(), kind, console, reports));
        }
    }
    runs
}

/// The report files of a folder (and of its `surefire/` folder), named as in `$VERDICT_OUT`.
fn reports_under(dir: &std::path::Path, prefix: &str) -> Vec<StructuredReport> {
    let mut reports = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return reports };
    for path in entries.flatten().map(|e| e.path()) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() && name == "surefire" {
            reports.extend(reports_under(&path, "surefire/"));
        } else if name.ends_with(".xml") || (name.ends_with(".json") && name != "package.json") {
            reports.push(StructuredReport { name: format!("{prefix}{name}"), bytes: std::fs::read(&path).unwrap() });
        }
    }
    reports
}

#[test]
fn no_real_log_contradicts_its_own_summary() {
    let mut with_summary = 0;
    let runs = every_fixture();
    assert!(runs.len() > 30, "{} fixture runs", runs.len());
    for (name, kind, console, reports) in &runs {
        let Ok(parsed) = parse(*kind, console, reports) else { continue };
        with_summary += usize::from(parsed.console_summary.is_some());
        assert_eq!(check_console_summary(&parsed), None, "{name}: {:?}", parsed.console_summary);
    }
    assert!(with_summary > 20, "{with_summary} of {} runs had a closing summary", runs.len());
}

fn counts(passed: u64, failed: u64, errors: u64, skipped: u64) -> (u64, u64, u64, u64) {
    (passed, failed, errors, skipped)
}

fn of(summary: &SummaryCounts) -> (u64, u64, u64, u64) {
    (summary.passed, summary.failed, summary.errors, summary.skipped)
}

#[test]
fn pytest_closing_lines() {
    let parsed = ok(runner("pytest"), &console("pytest/basic/console.txt"), &reports("pytest/basic", &["junit.xml"]));
    let summary = parsed.console_summary.unwrap();
    assert_eq!(of(&summary), counts(18, 8, 2, 3));
    assert_eq!((summary.xfailed, summary.xpassed), (1, 1));
    assert_eq!(summary.line, "8 failed, 18 passed, 3 skipped, 1 xfailed, 1 xpassed, 2 errors in 0.24s");
    // Colour codes are gone before the line is read.
    let colored = ok(runner("pytest"), &console("pytest/color/console.txt"), &[]);
    assert_eq!(of(colored.console_summary.as_ref().unwrap()), counts(18, 8, 2, 3));
    let line = |text: &str| crate::parse::pytest::closing_summary(text).map(|s| of(&s));
    assert_eq!(line("== 4 failed, 2 passed in 0.10s =="), Some(counts(2, 4, 0, 0)));
    assert_eq!(line("4 failed, 2 passed, 1 warning in 61.23s (0:01:01)\n"), Some(counts(2, 4, 0, 0)));
    assert_eq!(line("===== no tests ran in 0.01s ====="), Some(counts(0, 0, 0, 0)));
    assert_eq!(line("== 1 passed, 3 subtests passed in 0.1s =="), None, "an unknown count");
    assert_eq!(line("print('2 passed in 0.1s') and more"), None);
    // The last closing line counts: a test's own output above it does not.
    assert_eq!(line("== 9 failed in 1s ==\nlater\n== 1 passed in 2.0s =="), Some(counts(1, 0, 0, 0)));
}

#[test]
fn jest_mocha_and_surefire_closing_lines() {
    let jest = crate::parse::jest::closing_summary(
        "Test Suites: 1 failed, 1 total\nTests:       1 failed, 2 skipped, 1 todo, 3 passed, 7 total\n",
    );
    let jest = jest.unwrap();
    assert_eq!(of(&jest), counts(3, 1, 0, 3));
    assert_eq!(jest.line, "Tests: 1 failed, 2 skipped, 1 todo, 3 passed, 7 total");
    let mocha =
        crate::parse::mocha::closing_summary("  ✔ a\n\n  7 passing (165ms)\n  3 pending\n  5 failing\n\n  1) x:\n")
            .unwrap();
    assert_eq!(of(&mocha), counts(7, 5, 0, 3));
    assert_eq!(mocha.line, "7 passing (165ms) / 3 pending / 5 failing");
    assert_eq!(crate::parse::mocha::closing_summary("{\"stats\": {}}"), None, "the JSON reporter prints no summary");
    let surefire = crate::parse::maven::closing_summary(
        "[INFO] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 s <<< FAILURE! -- in a.BTest\n\
         [ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0\n\
         [INFO] Tests run: 4, Failures: 0, Errors: 1, Skipped: 1, Flakes: 1\n",
    )
    .unwrap();
    assert_eq!(of(&surefire), counts(4, 1, 1, 1), "two modules' summaries add up; per-class lines do not count");
}

/// A pytest run whose JUnit XML was rewritten after the run to say everything passed, while the
/// console's closing line says `4 failed`: the console lists no failing id (no `-rA`), so only
/// the counts show it.
#[test]
fn a_rewritten_report_contradicts_the_console_counts() {
    let console = "============================= test session starts ==============================\n\
                   collected 6 items\n\n\
                   tests/test_calc.py ....FF                                                 [100%]\n\n\
                   ========================= 2 failed, 4 passed in 0.12s ==========================\n";
    let cases: String = (1..=6)
        .map(|i| format!("<testcase classname=\"tests.test_calc\" name=\"test_{i}\" file=\"tests/test_calc.py\" time=\"0.001\"/>"))
        .collect();
    let xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><testsuites><testsuite name=\"pytest\" errors=\"0\" failures=\"0\" \
         skipped=\"0\" tests=\"6\" time=\"0.1\">{cases}</testsuite></testsuites>"
    );
    let parsed =
        ok(runner("pytest"), console, &[StructuredReport { name: "junit.xml".into(), bytes: xml.into_bytes() }]);
    assert_eq!(parsed.source, ResultSource::Structured);
    assert!(parsed.disagreements.is_empty(), "the console names no test");
    let warning = check_console_summary(&parsed).expect("a contradiction");
    assert!(warning.contains("`2 failed, 4 passed in 0.12s`") && warning.contains("holds 0 failing"), "{warning}");

    // The same with the failing tests dropped from the report instead: more passing than counted.
    let console = console.replace("2 failed, 4 passed", "0 failed, 3 passed");
    let parsed = ok(runner("pytest"), &console, &[StructuredReport { name: "junit.xml".into(), bytes: parsed_xml(6) }]);
    let warning = check_console_summary(&parsed).expect("a contradiction");
    assert!(warning.contains("counts 3 passed test(s), but the structured report holds 6 passing"), "{warning}");
}

fn parsed_xml(n: usize) -> Vec<u8> {
    let cases: String = (1..=n)
        .map(|i| format!("<testcase classname=\"tests.test_calc\" name=\"test_{i}\" file=\"tests/test_calc.py\"/>"))
        .collect();
    format!("<testsuites><testsuite name=\"pytest\" tests=\"{n}\">{cases}</testsuite></testsuites>").into_bytes()
}

/// jest stopped by a test calling `process.exit(0)` after one file: no JSON written, no
/// `Test Suites:` summary printed.
#[test]
fn a_jest_run_that_stopped_part_way_is_incomplete() {
    let stopped = "PASS test/calc.test.js\n  calc\n    ✓ adds two integers (2 ms)\n    ✓ divides evenly (1 ms)\n\n";
    let parsed = ok(runner("jest"), stopped, &[]);
    assert_eq!(parsed.tests.len(), 2);
    let why = parsed.incomplete.as_deref().expect("incomplete");
    assert!(why.contains("no closing `Test Suites:` summary"), "{why}");
    assert!(parsed.notes.iter().any(|n| n.contains("stopped part-way")), "{:?}", parsed.notes);
    // A finished run, with or without its JSON, is complete.
    let finished = format!("{stopped}Test Suites: 1 passed, 1 total\nTests:       2 passed, 2 total\n");
    assert_eq!(ok(runner("jest"), &finished, &[]).incomplete, None);
    let json = ok(
        runner("jest"),
        &console("captured/jest/jestcalc-1-gold-all-pass.console.txt"),
        &[StructuredReport {
            name: "jest.json".into(),
            bytes: read("captured/jest/jestcalc-1-gold-all-pass.jest.json"),
        }],
    );
    assert_eq!(json.incomplete, None);
    assert_eq!(of(json.console_summary.as_ref().unwrap()), counts(9, 0, 0, 0));
}
