//! What every parser shares once it has read its sources: collecting results under unique ids,
//! and reconciling a structured report with the console into one [`ParsedTests`].

use std::collections::{BTreeMap, HashMap};

use super::{Disagreement, ParseError, ParsedTests, ResultSource, TestResult, TestStatus};

/// What to do when the same id is reported twice within one source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Repeats {
    /// Keep one entry with the most severe status (pytest: a test that passed its call and
    /// errored in teardown is reported twice and is an ERROR).
    Merge,
    /// Keep every run apart: the second occurrence becomes `id [2]`, the third `id [3]`, in
    /// order of appearance (a jest file run once per project, a mocha title used twice).
    Number,
}

/// Results of one source, keyed by id, in the order rules of [`Repeats`].
#[derive(Debug)]
pub(crate) struct TestMap {
    pub tests: BTreeMap<String, TestResult>,
    repeats: Repeats,
    /// For [`Repeats::Number`]: how many times each repeated id has been seen so far.
    seen: HashMap<String, u32>,
    /// How many results were renamed or merged because their id repeated.
    pub repeated: usize,
}

impl TestMap {
    pub fn new(repeats: Repeats) -> Self {
        TestMap {
            tests: BTreeMap::new(),
            repeats,
            seen: HashMap::new(),
            repeated: 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.tests.is_empty()
    }

    pub fn insert(&mut self, id: String, result: TestResult) {
        use std::collections::btree_map::Entry;
        match self.tests.entry(id) {
            Entry::Vacant(slot) => {
                slot.insert(result);
            }
            Entry::Occupied(mut slot) => {
                self.repeated += 1;
                match self.repeats {
                    Repeats::Merge => {
                        let kept = slot.get_mut();
                        kept.status = most_severe(kept.status, result.status);
                    }
                    Repeats::Number => {
                        let base = slot.key().clone();
                        let count = self.seen.entry(base.clone()).or_insert(1);
                        loop {
                            *count += 1;
                            let renamed = format!("{base} [{count}]");
                            if let Entry::Vacant(slot) = self.tests.entry(renamed) {
                                slot.insert(result);
                                break;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Merges `result` into `id` whatever this map's rule (used for refinements that describe
    /// the same test twice, such as a Maven class line and a class-level error line).
    pub fn merge(&mut self, id: String, result: TestResult) {
        match self.tests.get_mut(&id) {
            Some(kept) => kept.status = most_severe(kept.status, result.status),
            None => {
                self.tests.insert(id, result);
            }
        }
    }

    /// A note about repeated ids, when there were any.
    pub fn repeat_note(&self, source: &str) -> Option<String> {
        (self.repeated > 0).then(|| match self.repeats {
            Repeats::Merge => format!(
                "{source}: {} results repeated an earlier id and were merged into it (the most \
                 severe status is kept)",
                self.repeated
            ),
            Repeats::Number => format!(
                "{source}: {} results repeated an earlier id and were numbered ` [2]`, ` [3]`, … \
                 in order of appearance",
                self.repeated
            ),
        })
    }
}

/// Severity order used when one test is reported several times: ERROR > FAILED > XPASS >
/// PASSED > XFAIL > SKIPPED.
pub(crate) fn most_severe(a: TestStatus, b: TestStatus) -> TestStatus {
    fn rank(s: TestStatus) -> u8 {
        match s {
            TestStatus::Error => 5,
            TestStatus::Failed => 4,
            TestStatus::Xpass => 3,
            TestStatus::Passed => 2,
            TestStatus::Xfail => 1,
            TestStatus::Skipped => 0,
        }
    }
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

/// The outcome of reading one source.
#[derive(Debug)]
pub(crate) enum Read {
    /// Results, plus notes about how they were read.
    Found(TestMap, Vec<String>),
    /// Nothing usable; the reason says why (no report, invalid, truncated, no results).
    Unusable(String),
}

/// Builds the final result. A structured source with at least one test wins; the console is
/// then compared with it, and `refine(structured, console)` may turn a difference that is
/// really a refinement (pytest's XPASS, which JUnit XML cannot express) into the kept status
/// instead of a disagreement. Otherwise the console is used and the notes say why.
pub(crate) fn combine(
    structured: Read,
    console: Read,
    refine: impl Fn(TestStatus, TestStatus) -> Option<TestStatus>,
) -> Result<ParsedTests, ParseError> {
    match (structured, console) {
        (Read::Found(mut map, mut notes), console) if !map.is_empty() => {
            let mut disagreements = Vec::new();
            if let Read::Found(console_map, _) = &console {
                for (id, result) in map.tests.iter_mut() {
                    let Some(seen) = console_map.tests.get(id) else {
                        continue;
                    };
                    if seen.status == result.status {
                        continue;
                    }
                    match refine(result.status, seen.status) {
                        Some(refined) => result.status = refined,
                        None => disagreements.push(Disagreement {
                            test: id.clone(),
                            structured: Some(result.status),
                            console: Some(seen.status),
                        }),
                    }
                }
            }
            if !disagreements.is_empty() {
                notes.push(format!(
                    "{} tests have a different status in the console than in the structured \
                     report; the structured status is kept",
                    disagreements.len()
                ));
            }
            Ok(ParsedTests {
                tests: map.tests,
                source: ResultSource::Structured,
                disagreements,
                notes,
            })
        }
        (structured, Read::Found(map, mut console_notes)) if !map.is_empty() => {
            let why = match structured {
                Read::Unusable(reason) => reason,
                Read::Found(..) => "the structured report holds no test results".to_string(),
            };
            let mut notes = vec![format!("read the console because {why}")];
            notes.append(&mut console_notes);
            Ok(ParsedTests {
                tests: map.tests,
                source: ResultSource::Console,
                disagreements: Vec::new(),
                notes,
            })
        }
        (structured, console) => {
            let reason = |read: Read| match read {
                Read::Unusable(reason) => reason,
                Read::Found(..) => "it holds no test results".to_string(),
            };
            Err(ParseError::NoResults(format!(
                "structured report: {}; console: {}",
                reason(structured),
                reason(console)
            )))
        }
    }
}
