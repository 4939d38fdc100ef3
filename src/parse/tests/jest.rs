//! jest 30.5.2 (with ts-jest) fixtures, captured in a container at /testbed with
//! `jest --ci --verbose --json --outputFile=$VERDICT_OUT/jest.json` (`--colors` for `color`,
//! no `--verbose` for `plain`, a two-project config running one file twice for `projects`).

use super::*;
use TestStatus::*;

fn basic_expected() -> Vec<(String, TestStatus)> {
    expect(&[
        ("test/calc.test.ts > calc (ts) > fails typed", Failed),
        ("test/calc.test.ts > calc (ts) > multiplies", Passed),
        ("test/math.test.js > dup > same name", Passed),
        ("test/math.test.js > dup > same name [2]", Failed),
        ("test/math.test.js > math > add > adds two numbers", Passed),
        ("test/math.test.js > math > add > handles negatives (edge) - case [1]", Passed),
        ("test/math.test.js > math > add > is wrong on purpose", Failed),
        ("test/math.test.js > math > add(1, 1) = 2", Passed),
        ("test/math.test.js > math > add(2, 3) = 5", Passed),
        ("test/math.test.js > math > div > divides", Passed),
        ("test/math.test.js > math > div > skipped one", Skipped),
        ("test/math.test.js > math > div > slow one", Passed),
        ("test/math.test.js > math > div > throws on zero", Passed),
        ("test/math.test.js > math > div > write more tests", Skipped),
        ("test/math.test.js > top level test", Passed),
        ("test/math.test.js > unicode ünïcödé — 日本語", Passed),
        // Suites that failed to run: a syntax error and a missing module.
        ("test/unit/broken.test.js", Error),
        ("test/unit/only.test.js > outer > middle > inner > deep fail", Failed),
        ("test/unit/only.test.js > outer > middle > inner > deep pass", Passed),
        ("test/unit/only.test.js > outer > skipped at outer", Skipped),
        ("test/unit/throws.test.js", Error),
    ])
}

#[test]
fn json_report() {
    let parsed = ok(runner("jest"), &console("jest/basic/console.txt"), &reports("jest/basic", &["jest.json"]));
    assert_eq!(parsed.source, ResultSource::Structured);
    assert_eq!(statuses(&parsed), basic_expected());
    assert!(parsed.disagreements.is_empty(), "{:?}", parsed.disagreements);
    assert_eq!(parsed.notes.len(), 1, "{:?}", parsed.notes);
    assert!(parsed.notes[0].contains("numbered ` [2]`"));
    let deep = &parsed.tests["test/unit/only.test.js > outer > middle > inner > deep pass"];
    assert_eq!(deep.file.as_deref(), Some("test/unit/only.test.js"));
    assert_eq!(deep.class.as_deref(), Some("test/unit/only.test.js > outer > middle > inner"));
    assert_eq!(parsed.tests["test/math.test.js > top level test"].class, None);
}

#[test]
fn verbose_console_gives_the_same_ids_as_the_json() {
    // Durations like `(1208 ms)` are stripped; describe nesting comes from indentation; a
    // console.log block printing `✓ fake passing line` is not a test.
    let text = console("jest/basic/console.txt");
    assert!(text.contains("✓ slow one (1208 ms)") && text.contains("✓ fake passing line"));
    let parsed = ok(runner("jest"), &text, &[]);
    assert_eq!(parsed.source, ResultSource::Console);
    assert_eq!(statuses(&parsed), basic_expected());
    let from_json = ok(runner("jest"), "", &reports("jest/basic", &["jest.json"]));
    assert_eq!(parsed.tests, from_json.tests);
}

#[test]
fn ansi_colour_console_matches_its_json() {
    let text = console("jest/color/console.txt");
    assert!(text.contains("\x1b["));
    let from_console = ok(runner("jest"), &text, &[]);
    let from_json = ok(runner("jest"), &text, &reports("jest/color", &["jest.json"]));
    assert!(from_json.disagreements.is_empty());
    assert_eq!(from_console.tests, from_json.tests);
    assert_eq!(
        statuses(&from_json),
        expect(&[
            ("test/calc.test.ts > calc (ts) > fails typed", Failed),
            ("test/calc.test.ts > calc (ts) > multiplies", Passed),
            ("test/unit/broken.test.js", Error),
            ("test/unit/only.test.js > outer > middle > inner > deep fail", Failed),
            ("test/unit/only.test.js > outer > middle > inner > deep pass", Passed),
            ("test/unit/only.test.js > outer > skipped at outer", Skipped),
            ("test/unit/throws.test.js", Error),
        ])
    );
}

#[test]
fn a_file_run_twice_is_numbered() {
    let dir = "jest/projects";
    let want = expect(&[
        ("tz/tz.test.js > dates > is utc", Failed),
        ("tz/tz.test.js > dates > is utc [2]", Passed),
        ("tz/tz.test.js > dates > offset is known", Passed),
        ("tz/tz.test.js > dates > offset is known [2]", Passed),
    ]);
    let text = console(&format!("{dir}/console.txt"));
    // The console header carries the project's display name: `FAIL tokyo tz/tz.test.js`.
    assert!(text.contains("FAIL tokyo tz/tz.test.js"));
    assert_eq!(statuses(&ok(runner("jest"), &text, &reports(dir, &["jest.json"]))), want);
    assert_eq!(statuses(&ok(runner("jest"), &text, &[])), want);
}

#[test]
fn console_without_verbose_gives_files_and_failures() {
    let dir = "jest/plain";
    let parsed = ok(runner("jest"), &console(&format!("{dir}/console.txt")), &[]);
    assert_eq!(
        statuses(&parsed),
        expect(&[
            ("test/calc.test.ts", Failed),
            ("test/calc.test.ts > calc (ts) > fails typed", Failed),
            ("test/unit/broken.test.js", Error),
            ("test/unit/only.test.js", Failed),
            ("test/unit/only.test.js > outer > middle > inner > deep fail", Failed),
            ("test/unit/throws.test.js", Error),
        ])
    );
    // The JSON of that run has every test.
    let full = ok(runner("jest"), "", &reports(dir, &["jest.json"]));
    assert_eq!(full.tests.len(), 7);
}

#[test]
fn json_printed_to_the_console_and_mixed_reports() {
    let json = String::from_utf8(read("jest/basic/jest.json")).expect("utf-8");
    // `jest --json` without --outputFile: the document on stdout amid other output.
    let mixed = format!("  console.log\n    hello {{\"numFailedTestSuites\": 1}}\n{json}\nDone in 3s.\n");
    let parsed = ok(runner("jest"), &mixed, &[]);
    assert_eq!(parsed.source, ResultSource::Structured);
    assert_eq!(statuses(&parsed), basic_expected());
    // The same text collected as a report.
    let report = [StructuredReport { name: "jest.json".into(), bytes: mixed.clone().into_bytes() }];
    let parsed = ok(runner("jest"), "", &report);
    assert_eq!(statuses(&parsed), basic_expected());
    assert!(parsed.notes.iter().any(|n| n.contains("extracted")), "{:?}", parsed.notes);
}

#[test]
fn truncated_json_falls_back_to_the_console() {
    let mut report = reports("jest/basic", &["jest.json"]);
    report[0].bytes.truncate(5000);
    let parsed = ok(runner("jest"), &console("jest/basic/console.txt"), &report);
    assert_eq!(parsed.source, ResultSource::Console);
    assert!(parsed.notes[0].contains("jest.json is truncated"), "{:?}", parsed.notes);
    assert_eq!(statuses(&parsed), basic_expected());
}

#[test]
fn failure_recap_past_twenty_suites_is_not_reread() {
    // 21 suites: jest reprints every failing file under `Summary of all failing tests`.
    let dir = "jest/many";
    let text = console(&format!("{dir}/console.txt"));
    assert!(text.contains("Summary of all failing tests"));
    let from_console = ok(runner("jest"), &text, &[]);
    let from_json = ok(runner("jest"), &text, &reports(dir, &["jest.json"]));
    assert_eq!(from_console.tests, from_json.tests);
    assert!(from_json.disagreements.is_empty());
    assert_eq!(from_json.tests.len(), 42);
    assert!(from_console.notes.iter().all(|n| !n.contains("repeated")), "{:?}", from_console.notes);
    assert_eq!(from_json.tests["many/s7.test.js > suite 7 > fails when odd"].status, Failed);
    assert_eq!(from_json.tests["many/s8.test.js > suite 8 > fails when odd"].status, Passed);
}

#[test]
fn windows_marks() {
    // Some terminals print √ and × instead of ✓ and ✕: the same real log with those marks.
    let text = console("jest/basic/console.txt").replace('✓', "√").replace('✕', "×");
    let parsed = ok(runner("jest"), &text, &[]);
    assert_eq!(statuses(&parsed), basic_expected());
}
