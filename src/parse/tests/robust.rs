//! Bad input never panics: random bytes, binary garbage, every real fixture cut at many points,
//! and shuffled lines, fed to every parser as console and as structured report.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::parse::ParseError;

const KINDS: [ParserKind; 6] = [
    ParserKind::Pytest,
    ParserKind::Jest,
    ParserKind::Mocha,
    ParserKind::Maven,
    ParserKind::Unittest,
    ParserKind::Sympy,
];

/// Each runner's fixture console and its structured report file(s).
fn samples() -> Vec<(ParserKind, String, Vec<StructuredReport>)> {
    vec![
        (ParserKind::Pytest, console("pytest/color/console.txt"), reports("pytest/color", &["junit.xml"])),
        (ParserKind::Pytest, console("pytest/xdist/console.txt"), reports("pytest/xdist", &["junit.xml"])),
        (ParserKind::Jest, console("jest/color/console.txt"), reports("jest/color", &["jest.json"])),
        (ParserKind::Jest, console("jest/basic/console.txt"), reports("jest/basic", &["jest.json"])),
        (ParserKind::Mocha, console("mocha/spec_color/console.txt"), reports("mocha/json_file", &["mocha.json"])),
        (ParserKind::Mocha, console("mocha/json_stdout/console.txt"), vec![]),
        (ParserKind::Maven, console("maven/junit5_surefire3/console.txt"), surefire_reports("maven/junit5_surefire3")),
        (ParserKind::Maven, console("maven/junit4_surefire2/console.txt"), surefire_reports("maven/junit4_surefire2")),
        (ParserKind::Unittest, console("unittest/py3.9/console.txt"), vec![]),
        (ParserKind::Unittest, console("unittest/django/console.txt"), vec![]),
        (ParserKind::Sympy, console("sympy/sympy1.12/console.txt"), vec![]),
    ]
}

/// Runs a parser and only checks it returned (and that an error is the documented one).
fn survives(kind: ParserKind, console: &str, structured: &[StructuredReport]) {
    match parse(kind, console, structured) {
        Ok(parsed) => assert!(parsed.tests.keys().all(|id| !id.is_empty()), "{kind:?}: empty id"),
        Err(ParseError::NoResults(reason)) => assert!(!reason.is_empty()),
    }
}

#[test]
fn nothing_recognizable_is_no_results() {
    for kind in KINDS {
        let err = parse(kind, "make: *** [all] Error 2\n", &[]).expect_err("no results");
        let ParseError::NoResults(reason) = err;
        assert!(reason.contains("structured report:") && reason.contains("console:"), "{reason}");
        let junk = [StructuredReport { name: "out.json".into(), bytes: b"{\"a\": 1}".to_vec() }];
        assert!(parse(kind, "", &junk).is_err());
    }
}

#[test]
fn random_bytes_and_binary_garbage() {
    let mut rng = StdRng::seed_from_u64(0x5eed);
    let names = ["junit.xml", "jest.json", "mocha.json", "surefire/TEST-x.xml", "x.bin"];
    for round in 0..300 {
        let len = rng.random_range(0..4096);
        let bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let report = [StructuredReport { name: names[round % names.len()].into(), bytes: bytes.clone() }];
        for kind in KINDS {
            survives(kind, &text, &report);
        }
    }
}

#[test]
fn markup_shaped_garbage() {
    let mut rng = StdRng::seed_from_u64(7);
    let pieces = [
        "<testsuite name=\"a\">",
        "<testcase classname=\"c\" name=\"n\">",
        "</testcase>",
        "<failure/>",
        "<error>",
        "</testsuite>",
        "<skipped type=\"pytest.xfail\"/>",
        "<![CDATA[",
        "]]>",
        "&amp;",
        "&#x;",
        "\"",
        "{",
        "}",
        "[",
        "]",
        "\"stats\":",
        "\"tests\": [",
        "\"testResults\": [",
        "\"numFailedTestSuites\"",
        "\n",
        "PASSED a.py::t[",
        " - ",
        "FAIL x.js",
        "  ✓ ",
        "  ✕ ",
        "    1) ",
        "\x1b[",
        "\x1b]",
        "Tests run: 9,",
        " -- in ",
        "<<< FAILURE!",
        "Time elapsed:",
        "  at a.B.c(",
        "●",
        "=== short test summary info ===",
        "[gw0] [ 5%] ",
        "é",
        "\u{0}",
        "\r",
    ];
    for _ in 0..400 {
        let n = rng.random_range(0..60);
        let text: String = (0..n).map(|_| pieces[rng.random_range(0..pieces.len())]).collect();
        for kind in KINDS {
            let report = [
                StructuredReport { name: "r.xml".into(), bytes: text.clone().into_bytes() },
                StructuredReport { name: "r.json".into(), bytes: text.clone().into_bytes() },
            ];
            survives(kind, &text, &report);
        }
    }
}

#[test]
fn real_fixtures_cut_anywhere() {
    let mut rng = StdRng::seed_from_u64(42);
    for (kind, text, reports) in samples() {
        for _ in 0..60 {
            // Cut the console at a random byte (kept valid UTF-8) and every report too.
            let mut at = rng.random_range(0..=text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let cut: Vec<StructuredReport> = reports
                .iter()
                .map(|r| {
                    let keep = rng.random_range(0..=r.bytes.len());
                    StructuredReport { name: r.name.clone(), bytes: r.bytes[..keep].to_vec() }
                })
                .collect();
            survives(kind, &text[..at], &cut);
            survives(kind, &text[at..], &[]);
        }
    }
}

#[test]
fn shuffled_and_duplicated_lines() {
    let mut rng = StdRng::seed_from_u64(3);
    for (kind, text, reports) in samples() {
        let lines: Vec<&str> = text.lines().collect();
        for _ in 0..20 {
            let mixed: String =
                (0..lines.len()).map(|_| format!("{}\n", lines[rng.random_range(0..lines.len().max(1))])).collect();
            survives(kind, &mixed, &reports);
            survives(kind, &mixed, &[]);
        }
    }
}
