//! Maven / surefire (JUnit 4 and JUnit 5): `TEST-*.xml` reports preferred (the eval script
//! copies `target/surefire-reports/TEST-*.xml` into `$VERDICT_OUT/surefire/`; every collected
//! `*.xml` is a candidate), the surefire 2 / 3 console as fallback (see [`surefire_console`]).
//!
//! **Id form**: `<classname>.<name>` exactly as surefire writes them:
//! - `com.x.FooTest.testBar`; a nested class keeps its binary name, `com.x.FooTest$Inner.testBar`;
//! - parameterized and repeated tests keep surefire's name verbatim after the class:
//!   JUnit 4 `com.x.ParamTest.testAdd[1: add(2, 2) = 5]`; JUnit 5 under surefire 2
//!   `com.x.CalcTest.testAdd{int, int}[2]`, under surefire 3 `com.x.CalcTest.testAdd(int, int)[2]`,
//!   and with surefire 3's phrased names `com.x.CalcTest.testAdd(int, int)[2] 2, 2, 5` or a
//!   `@DisplayName` (`com.x.CalcTest.adds two numbers`);
//! - a class-level failure (`@BeforeClass`/`@BeforeAll` threw; surefire writes the class as the
//!   name, or an empty name) is the class alone: `com.x.FooTest`.
//!
//! [`TestResult::class`] is the class. When surefire 3 writes a class's `@DisplayName` instead
//! of its name as `classname` (`classname="deeper level"`), the enclosing `<testsuite name>` (the
//! top-level class) is used instead, with a note. `<failure>` → FAILED, `<error>` → ERROR,
//! `<skipped>` → SKIPPED. Repeated ids get ` [2]`, ` [3]`, … in order of appearance.
//!
//! A report that is truncated or invalid is left out (noted); the classes it would have covered
//! are then taken from the console, if the console names them.

use super::ansi::strip_ansi;
use super::combine::{combine, FastSet, Read, Repeats, TestMap};
use super::junit::{read_cases, JunitError, Outcome};
use super::runner::{Nesting, ReportSource, Runner, TestFiles};
use super::{has_extension, text_of, ParseError, ParsedTests, StructuredReport, SummaryCounts, TestResult, TestStatus};

pub mod surefire_console;

/// The Maven / surefire runner: `test_args = "maven"` turns `src/test/java` paths into
/// `-Dtest=…` (and `-pl …`); the reports are surefire's `TEST-*.xml`, collected by glob; ids
/// nest as `package.Class$Inner.method`, and datasets' spurious leading `org.` is dropped.
pub struct Maven;

/// Where surefire writes its reports, when the spec's `collect` names no other place.
const SUREFIRE_REPORTS: &[&str] = &["**/target/surefire-reports/TEST-*.xml"];

impl Runner for Maven {
    fn name(&self) -> &'static str {
        "maven"
    }

    fn arguments(&self, files: &TestFiles<'_>) -> Option<Vec<String>> {
        Some(maven_arguments(files.paths()))
    }

    fn report(&self) -> ReportSource {
        ReportSource::Collect(SUREFIRE_REPORTS)
    }

    fn parse(&self, console: &str, structured: &[StructuredReport]) -> Result<ParsedTests, ParseError> {
        parse(console, structured)
    }

    fn nesting(&self) -> Nesting {
        Nesting {
            separators: &[(".", false), ("$", false)],
            class_separators: &[("$", false)],
            dropped_prefixes: &["org."],
        }
    }
}

/// `-Dtest=com.x.FooTest,com.x.FooTest$*,...` for test classes under `src/test/java` (the
/// `$*` pattern keeps their nested classes, which surefire would otherwise leave out), plus
/// `-pl a,b` when they sit in modules of a multi-module build.
fn maven_arguments(paths: &[String]) -> Vec<String> {
    let mut classes: Vec<String> = Vec::new();
    let mut modules: Vec<String> = Vec::new();
    for path in paths {
        let Some((module, class_path)) = path.split_once("src/test/java/") else { continue };
        let Some(class_path) = class_path.strip_suffix(".java") else { continue };
        let class = class_path.replace('/', ".");
        for pattern in [class.clone(), format!("{class}$*")] {
            if !classes.contains(&pattern) {
                classes.push(pattern);
            }
        }
        let module = module.trim_end_matches('/');
        if !module.is_empty() && !modules.iter().any(|m| m == module) {
            modules.push(module.to_string());
        }
    }
    let mut args = Vec::new();
    if !classes.is_empty() {
        args.push(format!("-Dtest={}", classes.join(",")));
    }
    if !modules.is_empty() {
        args.push("-pl".into());
        args.push(modules.join(","));
    }
    args
}

pub(crate) fn parse(console: &str, structured: &[StructuredReport]) -> Result<ParsedTests, ParseError> {
    let text = strip_ansi(console);
    let console = surefire_console::read_console(&text);
    let (mut structured, covered, broken) = read_structured(structured);
    if broken > 0 {
        if let (Read::Found(map, notes), Read::Found(console_map, _)) = (&mut structured, &console) {
            let mut added = 0usize;
            for (id, result) in console_map {
                let class = result.class.as_deref().unwrap_or(id);
                if !covered.contains(class) && !map.contains_key(id) {
                    map.insert(id.clone(), result.clone());
                    added += 1;
                }
            }
            notes.push(format!("{added} console results were added for classes no readable report covers"));
        }
    }
    let mut parsed = combine(structured, console, |_, _| None)?;
    parsed.console_summary = closing_summary(&text);
    Ok(parsed)
}

/// Whether `name` is a Java binary class name (`com.x.Foo`, `com.x.Foo$Inner`), as opposed to a
/// display name surefire may write in its place.
pub(crate) fn is_class_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|segment| {
            let mut chars = segment.chars();
            chars.next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
                && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        })
}

/// The id and class of one test case, and whether the class came from the suite because
/// `classname` is a display name.
fn case_id(classname: String, name: &str, suite: Option<&str>) -> (String, String, bool) {
    let (class, renamed) = if is_class_name(&classname) {
        (classname, false)
    } else {
        match suite.filter(|s| is_class_name(s)) {
            Some(suite) => {
                // A class-level entry carries the display name as its name too.
                if name == classname {
                    return (suite.to_string(), suite.to_string(), true);
                }
                (suite.to_string(), true)
            }
            None => (classname, false),
        }
    };
    let id = if name.is_empty() || name == class {
        class.clone()
    } else {
        let mut id = String::with_capacity(class.len() + 1 + name.len());
        id.push_str(&class);
        id.push('.');
        id.push_str(name);
        id
    };
    (id, class, renamed)
}

/// Reads every XML report. Returns the results, the classes (and suites) readable reports
/// cover, and how many candidate reports could not be read.
fn read_structured(reports: &[StructuredReport]) -> (Read, FastSet<String>, usize) {
    let mut map = TestMap::new(Repeats::Number);
    let mut covered = FastSet::default();
    let mut notes = Vec::new();
    let mut problems = Vec::new();
    let mut display_named = 0usize;
    let mut readable = 0usize;
    let candidates: Vec<&StructuredReport> = reports.iter().filter(|r| has_extension(&r.name, "xml")).collect();
    for report in &candidates {
        let text = text_of(&report.bytes);
        let mut cases = Vec::new();
        let result = read_cases(&text, |case| {
            let (id, class, renamed) = case_id(case.classname, &case.name, case.suite.as_deref());
            let status = match case.outcome {
                Outcome::Passed => TestStatus::Passed,
                Outcome::Failed => TestStatus::Failed,
                Outcome::Error => TestStatus::Error,
                Outcome::Skipped { .. } => TestStatus::Skipped,
            };
            cases.push((id, class, case.suite, renamed, status));
        });
        match result {
            Ok(_) => {
                readable += 1;
                let mut last: Option<(String, Option<std::rc::Rc<str>>)> = None;
                for (id, class, suite, renamed, status) in cases {
                    display_named += usize::from(renamed);
                    // Cases come grouped by class: record each class and suite once.
                    if !last.as_ref().is_some_and(|(c, s)| *c == class && *s == suite) {
                        covered.insert(class.clone());
                        covered.extend(suite.as_deref().map(str::to_string));
                        last = Some((class.clone(), suite));
                    }
                    map.insert(id, TestResult { status, file: None, class: Some(class) });
                }
            }
            Err(JunitError::NotJunit) => notes.push(format!("{} is not a surefire report; ignored", report.name)),
            Err(err) => problems.push(format!("the report {} {err}; it was left out", report.name)),
        }
    }
    let broken = problems.len();
    if display_named > 0 {
        notes.push(format!(
            "structured: {display_named} test cases carry a display name as classname; they are \
             filed under their <testsuite> class"
        ));
    }
    if readable == 0 {
        let why = if candidates.is_empty() {
            "no surefire XML report was collected (the eval script should copy \
             target/surefire-reports/TEST-*.xml into $VERDICT_OUT/surefire/)"
                .to_string()
        } else if problems.is_empty() {
            "no collected XML file is a surefire report".to_string()
        } else {
            problems.join("; ")
        };
        return (Read::Unusable(why), covered, broken);
    }
    notes.extend(problems);
    (Read::found(map, notes, "structured"), covered, broken)
}

/// The counts of surefire's closing `Tests run: N, Failures: F, Errors: E, Skipped: S` lines
/// (the per-class lines carry `Time elapsed` and are left out), summed over the modules of a
/// multi-module build; `None` when there is none.
pub(crate) fn closing_summary(text: &str) -> Option<SummaryCounts> {
    let mut counts = SummaryCounts::default();
    let mut lines = Vec::new();
    for line in text.lines() {
        let body = line.trim();
        let body =
            ["[INFO] ", "[ERROR] ", "[WARNING] ", "[WARN] "].iter().find_map(|p| body.strip_prefix(p)).unwrap_or(body);
        let Some(rest) = body.strip_prefix("Tests run: ") else { continue };
        let fields: Vec<&str> = rest.split(", ").collect();
        let value = |i: usize, name: &str| -> Option<u64> { fields.get(i)?.strip_prefix(name)?.trim().parse().ok() };
        let (Some(run), Some(failures), Some(errors), Some(skipped)) =
            (value(0, ""), value(1, "Failures: "), value(2, "Errors: "), value(3, "Skipped: "))
        else {
            continue;
        };
        if fields[4..].iter().any(|f| !f.starts_with("Flakes: ")) {
            continue;
        }
        counts.failed += failures;
        counts.errors += errors;
        counts.skipped += skipped;
        counts.passed += run.saturating_sub(failures + errors + skipped);
        lines.push(body.to_string());
    }
    if lines.is_empty() {
        return None;
    }
    counts.line = lines.join(" / ");
    Some(counts)
}
