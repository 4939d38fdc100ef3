//! Test runners and test-log parsing: turns what a test run left behind (console output plus
//! any structured reports collected from a path verdict chose) into one normalized map of test
//! id → status.
//!
//! One module per test runner, listed once in the runner table below ([`RUNNERS`]). A runner's
//! module holds everything verdict knows about it (the [`Runner`] trait, in [`runner`]): how test
//! files become arguments, where its structured report comes from, its parser, and how its ids
//! nest for grading. Each parser prefers the structured report and falls back to the console,
//! records which source it used, and records every test whose status differs between the two.
//! Pure functions over text: no Docker, no async.
//!
//! The entry point is [`parse`]. The id form each runner produces is documented in its module:
//! [`pytest`] (`path::Class::test[params]`), [`jest`] (`file > describe > … > title`),
//! [`mocha`] (`file > fullTitle`), [`maven`] (`com.x.FooTest.testBar`), [`unittest`]
//! (`test_x (app.tests.FooTests)`, Python's unittest and Django's runner) and [`sympy`]
//! (`test_name`, sympy's bin/test). Shared pieces:
//! [`ansi`] strips colour codes, [`junit`] streams JUnit-style XML, and `combine` reconciles a
//! structured report with the console.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub mod ansi;
mod combine;
mod json;
pub mod junit;
pub mod runner;
#[cfg(test)]
mod tests;

pub use runner::{Nesting, ReportSource, Runner, RunnerId, TestArgs, TestFiles};

/// Declares each runner's module and lists its runner in [`RUNNERS`].
macro_rules! runners {
    ($($module:ident :: $runner:ident),* $(,)?) => {
        $(pub mod $module;)*
        /// The runner table: every runner verdict knows, by the name a spec's `log_parser`
        /// gives. Adding a runner is one module and one line here.
        pub static RUNNERS: &[&dyn Runner] = &[$(&$module::$runner),*];
    };
}

runners! {
    pytest::Pytest,
    jest::Jest,
    mocha::Mocha,
    maven::Maven,
    go::GoTest,
    cargo::CargoTest,
    unittest::Unittest,
    sympy::Sympy,
}

/// The repository root inside the evaluation container. Absolute paths under it are made
/// relative; other paths are kept as written.
pub const REPO_ROOT: &str = "/testbed";

/// The normalized status of one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TestStatus {
    Passed,
    Failed,
    Error,
    Skipped,
    Xfail,
    Xpass,
}

impl TestStatus {
    /// Whether this status counts as a pass when grading (SWE-bench counts an expected failure as
    /// a pass; a skipped test is never a pass).
    pub fn is_pass(self) -> bool {
        matches!(self, TestStatus::Passed | TestStatus::Xfail)
    }

    /// Whether this status is a failure of the run (as opposed to passing or skipped).
    pub fn is_failure(self) -> bool {
        matches!(self, TestStatus::Failed | TestStatus::Error | TestStatus::Xpass)
    }
}

/// Where a parser read its statuses from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultSource {
    /// A machine-readable report (JUnit XML, jest/mocha JSON, surefire XML).
    Structured,
    /// The console output, because no usable structured report was found.
    Console,
}

/// One test's result, with what grading at a coarser granularity needs to know about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestResult {
    pub status: TestStatus,
    /// The test file the test lives in, relative to the repository root, when known
    /// (pytest and jest/mocha ids start with it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The enclosing class or suite, when known: a pytest class node id (`file::Class`) or a
    /// fully qualified Java class (`com.x.FooTest`, nested `com.x.FooTest$Inner`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
}

/// A test whose status differs between the structured report and the console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Disagreement {
    pub test: String,
    pub structured: Option<TestStatus>,
    pub console: Option<TestStatus>,
}

/// The result of parsing one test run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParsedTests {
    pub tests: BTreeMap<String, TestResult>,
    pub source: ResultSource,
    /// Tests whose status differs between the structured report and the console. The
    /// structured status is the one kept in `tests`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disagreements: Vec<Disagreement>,
    /// Anything the parser noticed and a reader should know: why it fell back to the console,
    /// a truncated report, a repeated test name that was renamed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// How the ids nest, from the runner that parsed them (every runner's rules when the
    /// result was built some other way), for grading coarse ids.
    #[serde(skip)]
    pub nesting: Nesting,
    /// The counts of the console's closing summary (`4 failed, 2 passed in 0.1s`), when the
    /// console printed one. Grading checks them against `tests`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub console_summary: Option<SummaryCounts>,
    /// Set when the run stopped part-way (a test ended the process), with why the parser
    /// thinks so. Such a run is never graded resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
}

/// The counts a runner's closing console summary gives: pytest's `4 failed, 2 passed in 0.1s`,
/// jest's `Tests: 1 failed, 3 passed, 4 total`, mocha's `3 passing` / `1 failing`, surefire's
/// `Tests run: N, Failures: F, Errors: E, Skipped: S`. Counts a runner does not print are 0.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummaryCounts {
    pub passed: u64,
    pub failed: u64,
    pub errors: u64,
    pub skipped: u64,
    pub xfailed: u64,
    pub xpassed: u64,
    /// The summary as the console printed it (several lines joined by ` / `).
    pub line: String,
}

/// A structured report collected from the container, by file name (relative to the output
/// directory verdict chose) and raw bytes.
#[derive(Debug, Clone)]
pub struct StructuredReport {
    pub name: String,
    pub bytes: Vec<u8>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ParseError {
    #[error("no test results could be recognized: {0}")]
    NoResults(String),
}

/// Parses one test run: the test command's combined stdout/stderr (`console`) and the reports
/// the eval script collected (`structured`, named relative to `$VERDICT_OUT`).
///
/// The structured report wins when it is usable; the console is then only compared with it
/// (see [`ParsedTests::disagreements`]). Otherwise the console is parsed and `notes` says why.
/// Never panics on any input; returns [`ParseError::NoResults`] when neither source holds a
/// recognizable test result.
pub fn parse(runner: RunnerId, console: &str, structured: &[StructuredReport]) -> Result<ParsedTests, ParseError> {
    let mut parsed = runner.parse(console, structured)?;
    parsed.nesting = runner.nesting();
    Ok(parsed)
}

/// A report's bytes as text: borrowed when valid UTF-8 (the fast, usual case), otherwise with
/// invalid sequences replaced.
pub(crate) fn text_of(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// A path as the report wrote it, relative to [`REPO_ROOT`] when it lies under it.
pub(crate) fn relative_path(path: &str) -> &str {
    match path.strip_prefix(REPO_ROOT) {
        Some(rest) if rest.starts_with('/') => rest.trim_start_matches('/'),
        _ => path,
    }
}

/// Whether a report's file name ends with `.ext` (ASCII case-insensitive).
pub(crate) fn has_extension(name: &str, ext: &str) -> bool {
    let n = name.len();
    n > ext.len()
        && name.as_bytes()[n - ext.len() - 1] == b'.'
        && name.as_bytes()[n - ext.len()..].eq_ignore_ascii_case(ext.as_bytes())
}
