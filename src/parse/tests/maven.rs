//! Maven 3.8.7 fixtures, built offline from Debian's repository: surefire 2.22.3 (bookworm) and
//! surefire 3.5.6 (Debian's libsurefire-java from unstable), JUnit 4.13.2 and JUnit 5.9.2.
//! `junit5_surefire3_display` turns on surefire 3's phrased (display) names in the XML;
//! `junit4_surefire3_color` ran with `-Dstyle.color=always`. Each test prints a fake
//! `Tests run: 99, …` line to stdout.

use super::*;
use TestStatus::*;

fn junit4_expected() -> Vec<(String, TestStatus)> {
    expect(&[
        ("com.example.BrokenSetupTest", Error),
        ("com.example.CalcTest.testAdd", Passed),
        ("com.example.CalcTest.testAddWrong", Failed),
        ("com.example.CalcTest.testDivByZero", Error),
        ("com.example.CalcTest.testIgnored", Skipped),
        ("com.example.CalcTest.testPrints", Passed),
        ("com.example.OuterTest$InnerTest.testInnerFail", Failed),
        ("com.example.OuterTest$InnerTest.testInnerPass", Passed),
        ("com.example.ParamTest.testAdd[0: add(1, 1) = 2]", Passed),
        ("com.example.ParamTest.testAdd[1: add(2, 2) = 5]", Failed),
    ])
}

fn junit4_console_expected() -> Vec<(String, TestStatus)> {
    expect(&[
        ("com.example.BrokenSetupTest", Error),
        ("com.example.CalcTest", Failed),
        ("com.example.CalcTest.testAddWrong", Failed),
        ("com.example.CalcTest.testDivByZero", Error),
        ("com.example.OuterTest", Failed),
        ("com.example.OuterTest$InnerTest.testInnerFail", Failed),
        ("com.example.ParamTest", Failed),
        ("com.example.ParamTest.testAdd[1: add(2, 2) = 5]", Failed),
    ])
}

/// The JUnit 5 project, as surefire names its tests: `{…}` parameter lists under surefire 2,
/// `(…)` under surefire 3, plus display names when phrased.
fn junit5_expected(surefire: u8, phrased: bool) -> Vec<(String, TestStatus)> {
    let c = "com.example.CalcTest";
    let mut list = vec![
        (format!("{c}$WhenNested.innerFail"), Failed),
        (format!("{c}$WhenNested.innerPass"), Passed),
        (format!("{c}.testAdd"), Passed),
        (format!("{c}.testAddWrong"), Failed),
        (format!("{c}.testDisabled"), Skipped),
        (format!("{c}.testDivByZero"), Error),
        ("com.example.deep.AbortedTest.assumptionFails".to_string(), Skipped),
        ("com.example.deep.AbortedTest.plain".to_string(), Passed),
        ("com.example.deep.BrokenAllTest".to_string(), Error),
    ];
    let named: [(&str, TestStatus); 8] = match (surefire, phrased) {
        (2, _) => [
            ("$WhenNested$Deeper.deep", Passed),
            (".displayNamed", Passed),
            (".namedParam{String}[1]", Passed),
            (".namedParam{String}[2]", Passed),
            (".repeated[1]", Passed),
            (".repeated[2]", Passed),
            (".testAddParam{int, int, int}[1]", Passed),
            (".testAddParam{int, int, int}[2]", Failed),
        ],
        (_, false) => [
            // `@DisplayName("deeper level")` class: surefire 3 writes the display name as
            // classname; the test is filed under the suite's class.
            (".deep", Passed),
            (".displayNamed", Passed),
            (".namedParam(String)[1]", Passed),
            (".namedParam(String)[2]", Passed),
            (".repeated()[1]", Passed),
            (".repeated()[2]", Passed),
            (".testAddParam(int, int, int)[1]", Passed),
            (".testAddParam(int, int, int)[2]", Failed),
        ],
        (_, true) => [
            (".deep display name", Passed),
            (".adds ünïcode – with spaces (and parens)", Passed),
            (".namedParam(String) 1 => value=a", Passed),
            (".namedParam(String) 2 => value=b b", Passed),
            (".repeated() repetition 1 of 2", Passed),
            (".repeated() repetition 2 of 2", Passed),
            (".testAddParam(int, int, int)[1] 1, 1, 2", Passed),
            (".testAddParam(int, int, int)[2] 2, 2, 5", Failed),
        ],
    };
    list.extend(named.iter().map(|(n, s)| (format!("{c}{n}"), *s)));
    list.sort();
    list
}

#[test]
fn surefire_xml_junit4() {
    for dir in ["maven/junit4_surefire2", "maven/junit4_surefire3"] {
        let parsed = ok(runner("maven"), &console(&format!("{dir}/console.txt")), &surefire_reports(dir));
        assert_eq!(parsed.source, ResultSource::Structured, "{dir}");
        assert_eq!(statuses(&parsed), junit4_expected(), "{dir}");
        assert!(parsed.disagreements.is_empty(), "{dir}: {:?}", parsed.disagreements);
        let inner = &parsed.tests["com.example.OuterTest$InnerTest.testInnerFail"];
        assert_eq!(inner.class.as_deref(), Some("com.example.OuterTest$InnerTest"));
    }
}

#[test]
fn surefire_xml_junit5() {
    for (dir, surefire, phrased) in [
        ("maven/junit5_surefire2", 2, false),
        ("maven/junit5_surefire3", 3, false),
        ("maven/junit5_surefire3_display", 3, true),
    ] {
        let parsed = ok(runner("maven"), &console(&format!("{dir}/console.txt")), &surefire_reports(dir));
        assert_eq!(statuses(&parsed), junit5_expected(surefire, phrased), "{dir}");
        assert!(parsed.disagreements.is_empty(), "{dir}: {:?}", parsed.disagreements);
        let display_note = parsed.notes.iter().any(|n| n.contains("display name as classname"));
        assert_eq!(display_note, surefire == 3, "{dir}: {:?}", parsed.notes);
    }
}

#[test]
fn console_junit4_surefire2_and_3() {
    // surefire 2: `testBar(com.x.FooTest)  Time elapsed: … <<< FAILURE!`;
    // surefire 3: `com.x.FooTest.testBar -- Time elapsed: … <<< FAILURE!`; colour codes in 3.
    for dir in ["maven/junit4_surefire2", "maven/junit4_surefire3", "maven/junit4_surefire3_color"] {
        let parsed = ok(runner("maven"), &console(&format!("{dir}/console.txt")), &[]);
        assert_eq!(parsed.source, ResultSource::Console, "{dir}");
        assert_eq!(statuses(&parsed), junit4_console_expected(), "{dir}");
        assert!(parsed.notes.iter().any(|n| n.contains("only failing methods")), "{:?}", parsed.notes);
    }
}

#[test]
fn console_junit5() {
    // surefire 2 prints bare method names under the class line; the nested class comes from
    // the stack trace. surefire 3 names the top-level class; the stack trace gives the nested one.
    let s2 = ok(runner("maven"), &console("maven/junit5_surefire2/console.txt"), &[]);
    assert_eq!(
        statuses(&s2),
        expect(&[
            ("com.example.CalcTest", Failed),
            ("com.example.CalcTest$WhenNested.innerFail", Failed),
            ("com.example.CalcTest.testAddParam{int, int, int}[2]", Failed),
            ("com.example.CalcTest.testAddWrong", Failed),
            ("com.example.CalcTest.testDivByZero", Error),
            ("com.example.deep.AbortedTest", Passed),
            ("com.example.deep.BrokenAllTest", Error),
        ])
    );
    for dir in ["maven/junit5_surefire3", "maven/junit5_surefire3_display"] {
        // surefire 3 reports CalcTest's counts under its nested class's display name
        // (`-- in deeper level`) and 0 under CalcTest: no class-level entry for it.
        let s3 = ok(runner("maven"), &console(&format!("{dir}/console.txt")), &[]);
        assert_eq!(
            statuses(&s3),
            expect(&[
                ("com.example.CalcTest$WhenNested.innerFail", Failed),
                ("com.example.CalcTest.testAddParam(int, int, int)[2]", Failed),
                ("com.example.CalcTest.testAddWrong", Failed),
                ("com.example.CalcTest.testDivByZero", Error),
                ("com.example.deep.BrokenAllTest", Error),
            ]),
            "{dir}"
        );
    }
}

#[test]
fn old_surefire_2_console_format() {
    // Hand-written from surefire ≤ 2.19's documented format (`sec`, no `[ERROR]` prefix, class
    // after `Running`, Results as `Failed tests:` / `Tests in error:`); Debian ships no such
    // surefire to capture it from.
    let log = "\
-------------------------------------------------------
 T E S T S
-------------------------------------------------------
Running com.x.FooTest
Tests run: 3, Failures: 1, Errors: 1, Skipped: 0, Time elapsed: 0.05 sec <<< FAILURE!
testBar(com.x.FooTest)  Time elapsed: 0.01 sec  <<< FAILURE!
java.lang.AssertionError: expected:<1> but was:<2>
\tat com.x.FooTest.testBar(FooTest.java:12)

Running com.x.BazTest
Tests run: 2, Failures: 0, Errors: 0, Skipped: 2, Time elapsed: 0 sec

Results :

Failed tests: 
  testBar(com.x.FooTest): expected:<1> but was:<2>

Tests in error: 
  testQux(com.x.FooTest): / by zero

Tests run: 5, Failures: 1, Errors: 1, Skipped: 2
";
    let parsed = ok(runner("maven"), log, &[]);
    assert_eq!(
        statuses(&parsed),
        expect(&[
            ("com.x.BazTest", Skipped),
            ("com.x.FooTest", Failed),
            ("com.x.FooTest.testBar", Failed),
            ("com.x.FooTest.testQux", Error),
        ])
    );
    assert!(
        parsed.notes.iter().any(|n| n.contains("1 failing methods were known only from the Results")),
        "{:?}",
        parsed.notes
    );
}

#[test]
fn unreadable_report_is_replaced_by_the_console_for_its_class() {
    let dir = "maven/junit4_surefire3";
    let mut reports = surefire_reports(dir);
    let calc = reports.iter_mut().find(|r| r.name.ends_with("CalcTest.xml")).expect("CalcTest report");
    let cut = calc.bytes.len() / 3;
    calc.bytes.truncate(cut);
    let parsed = ok(runner("maven"), &console(&format!("{dir}/console.txt")), &reports);
    assert_eq!(parsed.source, ResultSource::Structured);
    let mut want: Vec<_> =
        junit4_expected().into_iter().filter(|(id, _)| !id.starts_with("com.example.CalcTest.")).collect();
    want.extend([
        ("com.example.CalcTest".to_string(), Failed),
        ("com.example.CalcTest.testAddWrong".to_string(), Failed),
        ("com.example.CalcTest.testDivByZero".to_string(), Error),
    ]);
    want.sort();
    assert_eq!(statuses(&parsed), want);
    assert!(
        parsed.notes.iter().any(|n| n.contains("TEST-com.example.CalcTest.xml is truncated")),
        "{:?}",
        parsed.notes
    );
    assert!(parsed.notes.iter().any(|n| n.contains("3 console results were added")), "{:?}", parsed.notes);
}

#[test]
fn non_report_xml_is_ignored() {
    let mut reports = surefire_reports("maven/junit4_surefire2");
    reports.push(StructuredReport {
        name: "pom.xml".into(),
        bytes: b"<project><modelVersion>4.0.0</modelVersion></project>".to_vec(),
    });
    let parsed = ok(runner("maven"), "", &reports);
    assert_eq!(statuses(&parsed), junit4_expected());
    assert!(parsed.notes.iter().any(|n| n.contains("pom.xml is not a surefire report")), "{:?}", parsed.notes);
}
