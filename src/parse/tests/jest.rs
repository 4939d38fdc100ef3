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

/// jest 29.7.0 on `titles_a/titles.test.js`, twice: titles that end with their own `(3 ms)`,
/// with trailing spaces, and with a newline, each once with a duration jest printed and once
/// without (jest prints none for a test that took 0 ms).
fn titles_expected() -> Vec<(String, TestStatus)> {
    let f = "titles/titles.test.js > titles > ";
    expect(&[
        (&format!("{f}plain"), Passed),
        (&format!("{f}warm"), Passed),
        (&format!("{f}fast with its own (3 ms)"), Passed),
        (&format!("{f}slow with its own (3 ms)"), Passed),
        (&format!("{f}trailing spaces   "), Passed),
        (&format!("{f}slow with trailing spaces  "), Passed),
        (&format!("{f}first line\nsecond line"), Passed),
        (&format!("{f}slow first line\nslow second line (2 s)"), Passed),
        (&format!("{f}fails with its own (12 ms)"), Failed),
    ])
}

#[test]
fn titles_keep_their_own_parentheses_spaces_and_newlines() {
    for run in ["titles_a", "titles_b"] {
        let text = console(&format!("jest/{run}/console.txt"));
        let report = reports(&format!("jest/{run}"), &["jest.json"]);
        let from_json = ok(runner("jest"), "", &report);
        assert_eq!(statuses(&from_json), titles_expected(), "{run}");
        // With the report, the console gives the same ids: a duration is stripped only where
        // jest printed one, so nothing is left for a disagreement to hide.
        let both = ok(runner("jest"), &text, &report);
        assert!(both.disagreements.is_empty(), "{run}: {:?}", both.disagreements);
        let console_only = read_console_with_report(&text, &report);
        assert_eq!(console_only, titles_expected(), "{run}: the console, guided by the report");
    }
    // titles_a: jest printed no duration after `fast with its own (3 ms)`; titles_b: after the
    // three spaces of `trailing spaces   `.
    assert!(console("jest/titles_a/console.txt").contains("✓ fast with its own (3 ms)\n"));
    assert!(console("jest/titles_b/console.txt").contains("✓ trailing spaces   \n"));
}

/// The console's own reading when the structured report was also read.
fn read_console_with_report(text: &str, report: &[StructuredReport]) -> Vec<(String, TestStatus)> {
    use crate::parse::combine::Read;
    let known = match crate::parse::jest::read_structured(report, text) {
        Read::Found(map, _) => map,
        Read::Unusable(why) => panic!("{why}"),
    };
    match crate::parse::jest::read_console(text, Some(&known)) {
        Read::Found(map, _) => map.into_iter().map(|(id, r)| (id, r.status)).collect(),
        Read::Unusable(why) => panic!("{why}"),
    }
}

#[test]
fn console_alone_keeps_spaces_and_newlines_and_failing_titles() {
    // Without the report, a passed test's trailing `(3 ms)` cannot be told from a duration
    // (it is taken for one); everything else comes out whole, and a failing test's title comes
    // from its `● titles › …` heading.
    let parsed = ok(runner("jest"), &console("jest/titles_b/console.txt"), &[]);
    assert_eq!(parsed.source, ResultSource::Console);
    assert_eq!(statuses(&parsed), titles_expected());
    let parsed = ok(runner("jest"), &console("jest/titles_a/console.txt"), &[]);
    let mut want = titles_expected();
    for (id, _) in want.iter_mut() {
        if id.ends_with("fast with its own (3 ms)") {
            *id = id.replace(" (3 ms)", "");
        }
    }
    want.sort();
    assert_eq!(statuses(&parsed), want);
    // A failing test with no duration: its heading keeps the title's own `(12 ms)`.
    let cut = console("jest/titles_a/console.txt")
        .replace("fails with its own (12 ms) (149 ms)", "fails with its own (12 ms)");
    let parsed = ok(runner("jest"), &cut, &[]);
    assert!(
        parsed.tests.contains_key("titles/titles.test.js > titles > fails with its own (12 ms)"),
        "{:?}",
        parsed.tests.keys()
    );
}

#[test]
fn a_run_that_stops_part_way_says_so() {
    // jest 29.7.0 --runInBand on 20 files, where the 13th calls process.exit(0): 19 files
    // report, then jest exits 0 with no `Test Suites:` summary and no JSON.
    let text = console("jest/process_exit/console.txt");
    assert!(!text.contains("Test Suites:") && text.contains("process.exit called with \"0\""));
    let parsed = ok(runner("jest"), &text, &[]);
    assert_eq!(parsed.source, ResultSource::Console);
    assert_eq!(parsed.tests.len(), 38);
    assert!(parsed.tests.values().all(|r| r.status == Passed));
    assert!(!parsed.tests.keys().any(|id| id.contains("file 13")));
    let note = parsed.notes.iter().find(|n| n.contains("no closing `Test Suites:` summary")).expect("a note");
    assert!(note.contains("stopped part-way") && note.contains("19 file(s)"), "{note}");
    // A run that finished has no such note.
    let finished = ok(runner("jest"), &console("jest/basic/console.txt"), &[]);
    assert!(finished.notes.iter().all(|n| !n.contains("no closing `Test Suites:` summary")), "{:?}", finished.notes);
}
