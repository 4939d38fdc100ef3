//! Matching a dataset's expected id to the tests a run produced, at the dataset's level: one
//! test, a test file, or a class.
//!
//! How ids nest is the runner's knowledge ([`Nesting`], from the runner that parsed the run).
//! Order of attempts for an id that is not itself a test id, first for the id as given and
//! then without each prefix the runner says datasets add (Maven: OmniGIRL put `org.` in front
//! of every Java class):
//! 1. a file: tests whose [`TestResult::file`] equals it (`./` and `/testbed/` prefixes are
//!    ignored on both sides);
//! 2. a class: tests whose [`TestResult::class`] equals it, or is nested in it by the runner's
//!    class separators (`Class$Inner`, pytest `path.py::Class::Inner`);
//! 3. an id prefix, for parsers that left `file`/`class` empty: test ids that start with the
//!    id followed by one of the runner's separators (`::` pytest, ` > ` jest/mocha, `.` or `$`
//!    Java).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use serde::{Deserialize, Serialize};

use super::{ListName, Rules};
use crate::parse::{Nesting, TestResult, TestStatus};

/// The level an expected id, or a whole list, was graded at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Granularity {
    Test,
    File,
    Class,
    /// A list whose ids were matched at more than one level.
    Mixed,
}

impl fmt::Display for Granularity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Granularity::Test => "test",
            Granularity::File => "file",
            Granularity::Class => "class",
            Granularity::Mixed => "mixed",
        })
    }
}

/// One expected id graded at file or class level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoarseMatch {
    pub list: ListName,
    pub id: String,
    pub level: Granularity,
    /// The form that matched, when it is not `id` itself (the id without `org.`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_as: Option<String>,
    /// How many tests it matched, how many passed, how many were skipped.
    pub tests: usize,
    pub passing: usize,
    pub skipped: usize,
    /// The tests in it that failed, errored or XPASSed, as `id (STATUS)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failing: Vec<String>,
    pub passed: bool,
}

/// Lookup tables from file and class to test ids, built once per run.
pub(crate) struct Index<'a> {
    by_file: HashMap<String, Vec<&'a str>>,
    by_class: HashMap<&'a str, Vec<&'a str>>,
    nesting: Nesting,
}

impl<'a> Index<'a> {
    pub fn new(tests: &'a BTreeMap<String, TestResult>, nesting: Nesting) -> Self {
        let mut by_file: HashMap<String, Vec<&'a str>> = HashMap::new();
        let mut by_class: HashMap<&'a str, Vec<&'a str>> = HashMap::new();
        for (id, result) in tests {
            if let Some(file) = &result.file {
                by_file.entry(normalize_path(file).to_string()).or_default().push(id);
            }
            if let Some(class) = &result.class {
                for enclosing in enclosing_classes(class, &nesting) {
                    by_class.entry(enclosing).or_default().push(id);
                }
            }
        }
        Index { by_file, by_class, nesting }
    }
}

/// A class and every class it is nested in, by the runner's class separators:
/// `a.B$C$D` → `a.B$C$D`, `a.B$C`, `a.B`; `f.py::A::B` → `f.py::A::B`, `f.py::A` (never the
/// bare file, since pytest's first `::` follows the file).
fn enclosing_classes<'c>(class: &'c str, nesting: &Nesting) -> Vec<&'c str> {
    let mut cuts: Vec<usize> = Vec::new();
    for (separator, after_file) in nesting.class_separators {
        let skip = usize::from(*after_file);
        cuts.extend(class.match_indices(separator).skip(skip).map(|(i, _)| i));
    }
    cuts.sort_unstable();
    cuts.dedup();
    std::iter::once(class).chain(cuts.into_iter().map(|i| &class[..i])).collect()
}

fn normalize_path(path: &str) -> &str {
    let path = path.trim();
    let path = path.strip_prefix("/testbed/").unwrap_or(path);
    path.strip_prefix("./").unwrap_or(path)
}

pub(crate) struct Found<'a> {
    pub level: Granularity,
    pub matched_as: Option<String>,
    pub tests: Vec<(&'a str, &'a TestResult)>,
}

pub(crate) enum Match<'a> {
    Test(&'a TestResult),
    Coarse(Found<'a>),
    Missing,
}

/// Every test id that one of `ids` grades: the id itself, or the tests of its file or class.
pub(crate) fn graded_tests<'a>(
    ids: &[&[String]],
    tests: &'a BTreeMap<String, TestResult>,
    nesting: Nesting,
) -> BTreeSet<&'a str> {
    let index = Index::new(tests, nesting);
    let mut graded = BTreeSet::new();
    for id in ids.iter().flat_map(|list| list.iter()) {
        match match_id(id, tests, &index) {
            Match::Test(_) => graded.extend(tests.get_key_value(id.as_str()).map(|(k, _)| k.as_str())),
            Match::Coarse(found) => graded.extend(found.tests.iter().map(|(t, _)| *t)),
            Match::Missing => {}
        }
    }
    graded
}

pub(crate) fn match_id<'a>(id: &str, tests: &'a BTreeMap<String, TestResult>, index: &Index<'a>) -> Match<'a> {
    if let Some(result) = tests.get(id) {
        return Match::Test(result);
    }
    let mut candidates = vec![id];
    candidates.extend(index.nesting.dropped_prefixes.iter().filter_map(|prefix| id.strip_prefix(prefix)));
    for candidate in candidates {
        if let Some((level, ids)) = coarse_ids(candidate, tests, index) {
            let found: Vec<_> =
                ids.into_iter().filter_map(|t| tests.get_key_value(t).map(|(k, v)| (k.as_str(), v))).collect();
            if !found.is_empty() {
                let matched_as = (candidate != id).then(|| candidate.to_string());
                return Match::Coarse(Found { level, matched_as, tests: found });
            }
        }
    }
    Match::Missing
}

fn coarse_ids<'a>(
    candidate: &str,
    tests: &'a BTreeMap<String, TestResult>,
    index: &Index<'a>,
) -> Option<(Granularity, Vec<&'a str>)> {
    if let Some(ids) = index.by_file.get(normalize_path(candidate)) {
        return Some((Granularity::File, ids.clone()));
    }
    if let Some(ids) = index.by_class.get(candidate) {
        return Some((Granularity::Class, ids.clone()));
    }
    for (sep, after_file) in index.nesting.separators {
        let prefix = format!("{candidate}{sep}");
        let ids: Vec<&str> =
            tests.range(prefix.clone()..).map(|(k, _)| k.as_str()).take_while(|k| k.starts_with(&prefix)).collect();
        if !ids.is_empty() {
            let level = if *after_file && !candidate.contains(sep) { Granularity::File } else { Granularity::Class };
            return Some((level, ids));
        }
    }
    None
}

impl Found<'_> {
    /// Whether the file or class passes, and its counts, for the grade report.
    pub fn into_report(self, list: ListName, id: &str, rules: &Rules) -> CoarseMatch {
        let passes = |status: TestStatus| rules.passes(list, status);
        let passing = self.tests.iter().filter(|(_, r)| passes(r.status)).count();
        let skipped = self.tests.iter().filter(|(_, r)| r.status == TestStatus::Skipped).count();
        let failing: Vec<String> = self
            .tests
            .iter()
            .filter(|(_, r)| !passes(r.status) && r.status != TestStatus::Skipped)
            .map(|(t, r)| format!("{t} ({})", status_name(r.status)))
            .collect();
        CoarseMatch {
            list,
            id: id.to_string(),
            level: self.level,
            matched_as: self.matched_as,
            tests: self.tests.len(),
            passing,
            skipped,
            // Every test in it ran and passed: a skipped test leaves the file or class unproven.
            passed: failing.is_empty() && skipped == 0 && passing > 0,
            failing,
        }
    }
}

pub(crate) fn status_name(status: TestStatus) -> &'static str {
    match status {
        TestStatus::Passed => "PASSED",
        TestStatus::Failed => "FAILED",
        TestStatus::Error => "ERROR",
        TestStatus::Skipped => "SKIPPED",
        TestStatus::Xfail => "XFAIL",
        TestStatus::Xpass => "XPASS",
    }
}
