//! mocha 12.0.3 fixtures, captured in a container at /testbed: `--reporter json
//! --reporter-option output=$VERDICT_OUT/mocha.json` (`json_file`), `--reporter json` to stdout
//! (`json_stdout`), and the default spec reporter (`spec`, `spec_color` with `--color`). The tests
//! print `✔ fake passing line` and a fake `{"stats": …}` object with console.log.

use super::*;
use TestStatus::*;

const BASIC: &str = "mtest/basic.spec.js > ";
const HOOKS: &str = "mtest/nested/hooks.spec.js > ";

/// `(fullTitle, status, file prefix)` of every test in the run.
fn run_expected() -> Vec<(&'static str, TestStatus, &'static str)> {
    vec![
        ("Array #indexOf() finds [2] - at index 1", Passed, BASIC),
        ("Array #indexOf() is wrong on purpose", Failed, BASIC),
        ("Array #indexOf() returns -1 when the value is not present", Passed, BASIC),
        ("Array has a pending test", Skipped, BASIC),
        ("Array has a skipped test", Skipped, BASIC),
        ("Array is slow", Passed, BASIC),
        ("Output logs things", Passed, BASIC),
        ("Output throws a TypeError", Failed, BASIC),
        ("dup same name", Passed, BASIC),
        ("dup same name [2]", Failed, BASIC),
        ("top level ünïcode ✓ test", Passed, BASIC),
        ("outer suite inner suite deep fail", Failed, HOOKS),
        ("outer suite inner suite deep pass", Passed, HOOKS),
        ("outer suite skipped suite inside skipped suite", Skipped, HOOKS),
        // The failed hook, not a test; the two tests it prevented are absent.
        ("with failing hook \"before all\" hook for \"never runs 1\"", Error, HOOKS),
    ]
}

fn with_files() -> Vec<(String, TestStatus)> {
    let mut v: Vec<_> = run_expected().into_iter().map(|(t, s, f)| (format!("{f}{t}"), s)).collect();
    v.sort();
    v
}

fn bare() -> Vec<(String, TestStatus)> {
    let mut v: Vec<_> = run_expected().into_iter().map(|(t, s, _)| (t.to_string(), s)).collect();
    v.sort();
    v
}

#[test]
fn json_report_file() {
    let dir = "mocha/json_file";
    let parsed = ok(runner("mocha"), &console(&format!("{dir}/console.txt")), &reports(dir, &["mocha.json"]));
    assert_eq!(parsed.source, ResultSource::Structured);
    assert_eq!(statuses(&parsed), with_files());
    assert_eq!(
        parsed.tests[&format!("{HOOKS}outer suite inner suite deep pass")].file.as_deref(),
        Some("mtest/nested/hooks.spec.js")
    );
    assert!(parsed.disagreements.is_empty());
}

#[test]
fn json_mixed_with_console_output() {
    let text = console("mocha/json_stdout/console.txt");
    assert!(text.starts_with("loading basic.spec.js") && text.contains("{\"stats\": {\"fake\": true}}"));
    let from_console = ok(runner("mocha"), &text, &[]);
    assert_eq!(from_console.source, ResultSource::Console);
    assert_eq!(statuses(&from_console), with_files());
    // The same stream saved as the report.
    let report = [StructuredReport { name: "mocha.json".into(), bytes: text.clone().into_bytes() }];
    let parsed = ok(runner("mocha"), "", &report);
    assert_eq!(parsed.source, ResultSource::Structured);
    assert_eq!(statuses(&parsed), with_files());
    assert!(parsed.notes.iter().any(|n| n.contains("extracted")), "{:?}", parsed.notes);
}

#[test]
fn spec_console_gives_full_titles() {
    for run in ["spec", "spec_color"] {
        let text = console(&format!("mocha/{run}/console.txt"));
        let parsed = ok(runner("mocha"), &text, &[]);
        assert_eq!(parsed.source, ResultSource::Console);
        assert_eq!(statuses(&parsed), bare(), "{run}");
        assert!(parsed.notes.iter().any(|n| n.contains("names no files")), "{:?}", parsed.notes);
    }
    assert!(console("mocha/spec_color/console.txt").contains("\x1b["));
}

#[test]
fn truncated_report_falls_back_to_the_spec_console() {
    let mut report = reports("mocha/json_file", &["mocha.json"]);
    let cut = report[0].bytes.len() - 100;
    report[0].bytes.truncate(cut);
    let parsed = ok(runner("mocha"), &console("mocha/spec/console.txt"), &report);
    assert_eq!(parsed.source, ResultSource::Console);
    assert!(parsed.notes[0].contains("mocha.json is truncated"), "{:?}", parsed.notes);
    assert_eq!(statuses(&parsed), bare());
}

#[test]
fn older_check_mark() {
    // mocha before 10 printed ✓ where it now prints ✔: the same real log with that mark.
    let text = console("mocha/spec/console.txt").replace('✔', "✓");
    let parsed = ok(runner("mocha"), &text, &[]);
    // The test title itself holds a ✓, which stays as it is.
    assert_eq!(statuses(&parsed), bare());
}
