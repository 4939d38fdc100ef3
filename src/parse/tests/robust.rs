//! Bad input never panics: random bytes, binary garbage, every real fixture cut at many points,
//! and shuffled lines, fed to every parser as console and as structured report.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::parse::ParseError;

/// Every runner of the table.
fn kinds() -> Vec<RunnerId> {
    crate::parse::RUNNERS.iter().map(|r| runner(r.name())).collect()
}

/// Each runner's fixture console and its structured report file(s).
fn samples() -> Vec<(RunnerId, String, Vec<StructuredReport>)> {
    vec![
        (runner("pytest"), console("pytest/color/console.txt"), reports("pytest/color", &["junit.xml"])),
        (runner("pytest"), console("pytest/xdist/console.txt"), reports("pytest/xdist", &["junit.xml"])),
        (runner("jest"), console("jest/color/console.txt"), reports("jest/color", &["jest.json"])),
        (runner("jest"), console("jest/basic/console.txt"), reports("jest/basic", &["jest.json"])),
        (runner("mocha"), console("mocha/spec_color/console.txt"), reports("mocha/json_file", &["mocha.json"])),
        (runner("mocha"), console("mocha/json_stdout/console.txt"), vec![]),
        (runner("maven"), console("maven/junit5_surefire3/console.txt"), surefire_reports("maven/junit5_surefire3")),
        (runner("maven"), console("maven/junit4_surefire2/console.txt"), surefire_reports("maven/junit4_surefire2")),
        (runner("go"), console("go/edge-json/console.txt"), reports("go/edge-json", &["go-test.json"])),
        (runner("go"), console("go/edge-verbose/console.txt"), vec![]),
        (runner("cargo"), console("cargo/edge/console.txt"), vec![]),
        (runner("unittest"), console("unittest/py3.9/console.txt"), vec![]),
        (runner("unittest"), console("unittest/django/console.txt"), vec![]),
        (runner("sympy"), console("sympy/sympy1.12/console.txt"), vec![]),
        (runner("cargo"), console("cargo/edge-nightly-json/console.txt"), vec![]),
    ]
}

/// Runs a parser and only checks it returned (and that an error is the documented one).
fn survives(kind: RunnerId, console: &str, structured: &[StructuredReport]) {
    match parse(kind, console, structured) {
        Ok(parsed) => assert!(parsed.tests.keys().all(|id| !id.is_empty()), "{kind:?}: empty id"),
        Err(ParseError::NoResults(reason)) => assert!(!reason.is_empty()),
    }
}

#[test]
fn nothing_recognizable_is_no_results() {
    for kind in kinds() {
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
        for kind in kinds() {
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
        "{\"Action\":\"fail\",\"Package\":\"p\",\"Test\":\"T\"}",
        "--- FAIL: T (0.00s)",
        "FAIL\tp [build failed]",
        "ok  \tp\t0.1s",
        "     Running tests/a.rs (target/x)",
        "running 2 tests",
        "test a::b ... ok",
        "---- a stdout ----",
        "failures:",
        "error: could not compile `c`",
        "{ \"type\": \"test\", \"event\": \"failed\", \"name\": \"t\" }",
    ];
    for _ in 0..400 {
        let n = rng.random_range(0..60);
        let text: String = (0..n).map(|_| pieces[rng.random_range(0..pieces.len())]).collect();
        for kind in kinds() {
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
