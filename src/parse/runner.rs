//! What verdict knows about a test runner, in one place: the [`Runner`] trait. Each runner is
//! one module of `parse/` (`pytest`, `jest`, `mocha`, `maven`, …) holding its implementation,
//! and the runner table ([`RUNNERS`](super::RUNNERS), one line per runner in `parse/mod.rs`)
//! lists them, keyed by the name a harness spec gives as `log_parser`.
//!
//! A runner says
//! - how the test patch's files become arguments of the test command, when a spec asks for the
//!   runner's own mapping (`test_args = "<runner>"`; see [`TestArgs`]);
//! - where its structured report comes from ([`ReportSource`]): a file the command writes into
//!   `$VERDICT_OUT`, files copied there by glob, the command's stdout, or the console itself;
//! - how to read what a run left behind into the normalized [`ParsedTests`];
//! - how its ids nest ([`Nesting`]), so that grading can match an expected id that names a
//!   file, a class or a parent test instead of one test.
//!
//! The eval script (`run/script.rs`), the spec loader (`dataset/spec.rs`) and grading
//! (`grade/granularity.rs`) ask the runner; none of them names one.

use std::fmt;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

use super::{ParseError, ParsedTests, StructuredReport, RUNNERS};

/// One test runner (see the module doc). Implemented by a unit struct in the runner's module.
pub trait Runner: Sync {
    /// The name a harness spec selects it by (`log_parser = "jest"`).
    fn name(&self) -> &'static str;

    /// The runner's own mapping from the test patch's files to test command arguments, used
    /// under `test_args = "<name>"`. `None` when it has none (`files` and `none` serve it).
    /// Repeated arguments are dropped, so a flag and its value go in one argument
    /// (`--test=api`, not `--test`, `api`).
    fn arguments(&self, _files: &TestFiles<'_>) -> Option<Vec<String>> {
        None
    }

    /// Whether its mapping passes the test patch's runnable files, so that a test patch with
    /// none of them deserves a warning (the command then ran without test files).
    fn expects_runnable_files(&self) -> bool {
        false
    }

    /// The test command with its (shell-quoted) arguments added: appended by default.
    fn command(&self, test_cmd: &str, quoted_arguments: &str) -> String {
        format!("{test_cmd} {quoted_arguments}")
    }

    /// Where the runner's structured report comes from.
    fn report(&self) -> ReportSource;

    /// Reads one run: the test command's output and the reports collected from `$VERDICT_OUT`.
    /// Called through [`parse`](super::parse), which also records the runner's [`Nesting`].
    fn parse(&self, console: &str, structured: &[StructuredReport]) -> Result<ParsedTests, ParseError>;

    /// How the runner's ids nest, for grading an expected id coarser than one test.
    fn nesting(&self) -> Nesting;
}

/// Where a runner's structured report comes from. The eval script acts on it; the parser then
/// finds the report among the files collected from `$VERDICT_OUT` (or in the console).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportSource {
    /// The test command writes it into `$VERDICT_OUT` itself (the spec's `test_cmd` says
    /// where: `--junitxml=$VERDICT_OUT/junit.xml`).
    OutDir,
    /// The runner writes reports where it pleases: these globs (relative to `/testbed`) are
    /// removed before the test command and copied into `$VERDICT_OUT/collected/` after it,
    /// unless the spec's `collect` names others.
    Collect(&'static [&'static str]),
    /// The report is the command's stdout: the eval script tees it into `$VERDICT_OUT/<name>`
    /// and keeps the command's exit code (`set -o pipefail`).
    Stdout(&'static str),
    /// The report, if any, is in the console: the eval script merges the command's stderr
    /// into its stdout, so that lines of the two keep their order.
    Console,
}

/// How a runner's ids nest. An expected id that is not a test id is tried as a file (every
/// test whose [`TestResult::file`](super::TestResult::file) it is), as a class (every test
/// whose class, or a class enclosing it, it is), then as an id prefix; see
/// `grade/granularity.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nesting {
    /// Separators after which an id continues inside a coarser one, tried in order
    /// (`tests/x.py` + `::` + …). The flag says that what comes before the first occurrence
    /// is a file rather than a class (pytest's `path::`, jest's `file > `).
    pub separators: &'static [(&'static str, bool)],
    /// Separators that cut a class into the classes enclosing it (`a.B$C` → `a.B`). The flag
    /// says the first occurrence separates the file, not two classes (pytest's `f.py::A::B`
    /// is nested in `f.py::A`, never in the bare file).
    pub class_separators: &'static [(&'static str, bool)],
    /// Prefixes datasets put in front of ids the runner never prints: an expected id with one
    /// is also tried without it (OmniGIRL's `org.` before Java classes).
    pub dropped_prefixes: &'static [&'static str],
}

impl Nesting {
    /// Every runner's rules at once, for results whose runner is unknown (built by hand).
    pub const ANY: Nesting = Nesting {
        separators: &[("::", true), (" > ", true), (".", false), ("$", false)],
        class_separators: &[("$", false), ("::", true)],
        dropped_prefixes: &["org."],
    };
}

impl Default for Nesting {
    fn default() -> Self {
        Nesting::ANY
    }
}

/// The files of a test patch, as a runner's argument mapping sees them.
pub struct TestFiles<'a> {
    paths: &'a [String],
    runnable: &'a dyn Fn(&str) -> bool,
}

impl<'a> TestFiles<'a> {
    /// `paths`: the files the test patch leaves in the tree, in patch order; `runnable`:
    /// whether a path matches the language's `test_arg_files` globs.
    pub fn new(paths: &'a [String], runnable: &'a dyn Fn(&str) -> bool) -> Self {
        TestFiles { paths, runnable }
    }

    pub fn paths(&self) -> &'a [String] {
        self.paths
    }

    /// Whether `path` is a runnable test file of the language.
    pub fn is_runnable(&self, path: &str) -> bool {
        (self.runnable)(path)
    }
}

/// A runner of the table, by name: what a spec's `log_parser` holds. Compares, hashes, prints
/// and serializes as its name.
#[derive(Clone, Copy)]
pub struct RunnerId(&'static dyn Runner);

impl RunnerId {
    /// The runner of the table named `name`.
    pub fn named(name: &str) -> Option<RunnerId> {
        RUNNERS.iter().find(|r| r.name() == name).map(|r| RunnerId(*r))
    }

    /// A runner outside the table (tests of the pipeline use stand-ins).
    #[cfg(test)]
    pub(crate) fn of(runner: &'static dyn Runner) -> RunnerId {
        RunnerId(runner)
    }

    pub fn name(self) -> &'static str {
        self.0.name()
    }

    pub fn runner(self) -> &'static dyn Runner {
        self.0
    }

    /// The names of every runner, for messages: `pytest, jest, …`.
    pub fn known() -> String {
        RUNNERS.iter().map(|r| r.name()).collect::<Vec<_>>().join(", ")
    }
}

impl std::ops::Deref for RunnerId {
    type Target = dyn Runner;
    fn deref(&self) -> &(dyn Runner + 'static) {
        self.0
    }
}

impl fmt::Debug for RunnerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for RunnerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq for RunnerId {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for RunnerId {}

impl Hash for RunnerId {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl Serialize for RunnerId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for RunnerId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        RunnerId::named(&name).ok_or_else(|| {
            serde::de::Error::custom(format!("unknown log parser {name:?}; verdict knows {}", RunnerId::known()))
        })
    }
}

/// How the files of the test patch become test command arguments (a spec's `test_args`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum TestArgs {
    /// `files`: each file of the test patch that matches the language's `test_arg_files`
    /// globs, as a path.
    #[default]
    Files,
    /// `none`: no arguments; the command runs the whole suite.
    None,
    /// `<runner>`: that runner's own mapping (`jest` maps snapshots to their spec file,
    /// `maven` makes `-Dtest=…` and `-pl …`; see each runner's module).
    Runner(RunnerId),
}

impl TestArgs {
    /// The arguments for `files`, each once, in order.
    pub fn arguments(self, files: &TestFiles<'_>) -> Vec<String> {
        let all: Vec<String> = match self {
            TestArgs::None => Vec::new(),
            TestArgs::Files => files.paths().iter().filter(|p| files.is_runnable(p)).cloned().collect(),
            TestArgs::Runner(runner) => runner.arguments(files).unwrap_or_default(),
        };
        let mut args: Vec<String> = Vec::with_capacity(all.len());
        for arg in all {
            if !args.contains(&arg) {
                args.push(arg);
            }
        }
        args
    }

    fn name(self) -> &'static str {
        match self {
            TestArgs::Files => "files",
            TestArgs::None => "none",
            TestArgs::Runner(runner) => runner.name(),
        }
    }

    /// The runners that have a mapping of their own, for messages.
    fn mappings() -> Vec<&'static str> {
        let nothing: [String; 0] = [];
        let files = TestFiles::new(&nothing, &|_| false);
        RUNNERS.iter().filter(|r| r.arguments(&files).is_some()).map(|r| r.name()).collect()
    }
}

impl std::str::FromStr for TestArgs {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        match name {
            "files" => return Ok(TestArgs::Files),
            "none" => return Ok(TestArgs::None),
            _ => {}
        }
        let nothing: [String; 0] = [];
        match RunnerId::named(name) {
            Some(runner) if runner.arguments(&TestFiles::new(&nothing, &|_| false)).is_some() => {
                Ok(TestArgs::Runner(runner))
            }
            _ => Err(format!(
                "unknown test_args {name:?}; expected files, none, or a runner with its own mapping: {}",
                TestArgs::mappings().join(", ")
            )),
        }
    }
}

impl Serialize for TestArgs {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for TestArgs {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}
