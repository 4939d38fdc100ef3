//! What every parser shares once it has read its sources: collecting results under unique ids,
//! and reconciling a structured report with the console into one [`ParsedTests`].

use std::collections::BTreeMap;
use std::hash::{BuildHasherDefault, Hasher};

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

/// Results of one source in order of appearance, turned into a map keyed by id (under the
/// [`Repeats`] rule) by [`TestMap::finish`]. Collecting first and sorting once is several
/// times faster than inserting into a map one by one on large logs.
#[derive(Debug)]
pub(crate) struct TestMap {
    entries: Vec<(String, TestResult)>,
    repeats: Repeats,
}

impl TestMap {
    pub fn new(repeats: Repeats) -> Self {
        TestMap { entries: Vec::new(), repeats }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The ids inserted so far, repeats included.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(id, _)| id.as_str())
    }

    pub fn insert(&mut self, id: String, result: TestResult) {
        self.entries.push((id, result));
    }

    /// The map, and a note about repeated ids when there were any (`source` names the source
    /// in it; `None` leaves repeats unmentioned, where they are expected).
    pub fn finish(self, source: Option<&str>) -> (BTreeMap<String, TestResult>, Option<String>) {
        // Sort (id, position) pairs, not the (large) entries: the ids are compared without
        // going through the entries, and ties keep their order of appearance.
        let order: Vec<usize> = {
            let mut keyed: Vec<(&str, usize)> =
                self.entries.iter().enumerate().map(|(i, (id, _))| (id.as_str(), i)).collect();
            keyed.sort_unstable();
            keyed.into_iter().map(|(_, i)| i).collect()
        };
        let mut slots: Vec<Option<(String, TestResult)>> = self.entries.into_iter().map(Some).collect();
        let mut unique: Vec<(String, TestResult)> = Vec::with_capacity(slots.len());
        let mut numbered: Vec<(String, u32, TestResult)> = Vec::new();
        let mut seen = 0u32;
        let mut repeated = 0usize;
        for (id, result) in order.into_iter().filter_map(|i| slots[i].take()) {
            match unique.last_mut() {
                Some((last, kept)) if *last == id => {
                    seen += 1;
                    repeated += 1;
                    match self.repeats {
                        Repeats::Merge => kept.status = most_severe(kept.status, result.status),
                        Repeats::Number => numbered.push((id, seen, result)),
                    }
                }
                _ => {
                    seen = 1;
                    unique.push((id, result));
                }
            }
        }
        let mut map: BTreeMap<String, TestResult> = unique.into_iter().collect();
        for (base, mut n, result) in numbered {
            // A literal `x [2]` may exist already: take the next free number.
            loop {
                if let std::collections::btree_map::Entry::Vacant(slot) = map.entry(format!("{base} [{n}]")) {
                    slot.insert(result);
                    break;
                }
                n += 1;
            }
        }
        let note = source.filter(|_| repeated > 0).map(|source| match self.repeats {
            Repeats::Merge => format!(
                "{source}: {repeated} results repeated an earlier id and were merged into it (the \
                 most severe status is kept)"
            ),
            Repeats::Number => format!(
                "{source}: {repeated} results repeated an earlier id and were numbered ` [2]`, \
                 ` [3]`, … in order of appearance"
            ),
        });
        (map, note)
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
    /// Results by id, plus notes about how they were read.
    Found(BTreeMap<String, TestResult>, Vec<String>),
    /// Nothing usable; the reason says why (no report, invalid, truncated, no results).
    Unusable(String),
}

impl Read {
    /// Finishes `map` into a found result, noting repeated ids as coming from `source`.
    pub fn found(map: TestMap, mut notes: Vec<String>, source: &str) -> Read {
        let (tests, note) = map.finish(Some(source));
        notes.extend(note);
        Read::Found(tests, notes)
    }
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
                for (id, result) in map.iter_mut() {
                    let Some(seen) = console_map.get(id) else {
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
                     report; the structured status is kept here, and grading takes the worse of the two",
                    disagreements.len()
                ));
            }
            Ok(ParsedTests {
                tests: map,
                source: ResultSource::Structured,
                disagreements,
                notes,
                nesting: Default::default(),
                console_summary: None,
                incomplete: None,
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
                tests: map,
                source: ResultSource::Console,
                disagreements: Vec::new(),
                notes,
                nesting: Default::default(),
                console_summary: None,
                incomplete: None,
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

/// A `HashMap` with a fast non-cryptographic hash for ids and titles (the FxHash mix used by
/// rustc). Only the parser's own lookups use it; a crafted log can make them slower, never wrong.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FxHasher>>;
pub(crate) type FastSet<K> = std::collections::HashSet<K, BuildHasherDefault<FxHasher>>;

#[derive(Default)]
pub(crate) struct FxHasher {
    hash: u64,
}

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 56));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}
