//! A streaming reader for JUnit-style XML reports, shared by the pytest (`--junitxml`, root
//! `<testsuites>`) and Maven surefire (`TEST-*.xml`, root `<testsuite>`) parsers.
//!
//! It yields one [`Case`] per `<testcase>` with the outcome taken from its direct children:
//! `<error>` beats `<failure>` beats `<skipped>`; anything else (surefire's `flakyFailure`,
//! `rerunFailure`, `system-out`, properties) is ignored. Stack traces are never copied.

use std::rc::Rc;

use quick_xml::events::attributes::Attribute;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

/// How one test case ended, as the report says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    Failed,
    Error,
    /// `<skipped>`; `xfail` is true for pytest's `type="pytest.xfail"`.
    Skipped {
        xfail: bool,
    },
}

/// One `<testcase>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// `name` of the innermost enclosing `<testsuite>`, when it has one (shared, not copied,
    /// between the suite's cases).
    pub suite: Option<Rc<str>>,
    pub classname: String,
    pub name: String,
    /// pytest's `file` attribute (xunit1), when present.
    pub file: Option<String>,
    pub outcome: Outcome,
}

/// Why a report could not be read to its end. `cases` tells how many test cases were
/// delivered before the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JunitError {
    #[error("is not JUnit XML (no <testsuite> or <testcase> element)")]
    NotJunit,
    #[error("is truncated: the XML ends inside <{open}> after {cases} test cases")]
    Truncated { open: String, cases: usize },
    #[error("is invalid XML at byte {position} after {cases} test cases: {message}")]
    Invalid { position: u64, message: String, cases: usize },
}

/// Reads `xml` and calls `each` for every test case, in document order. Returns the number of
/// test cases, or why the document could not be read to its end (cases already delivered
/// stay delivered; callers decide whether a partial report is usable).
pub fn read_cases(xml: &str, mut each: impl FnMut(Case)) -> Result<usize, JunitError> {
    let mut reader = Reader::from_str(xml);
    // Open elements, innermost last; only names are kept (for the truncation message).
    let mut open: Vec<String> = Vec::new();
    let mut suites: Vec<Option<Rc<str>>> = Vec::new();
    // The test case being read and the depth of its start tag in `open`.
    let mut current: Option<(Case, usize)> = None;
    let mut cases = 0usize;
    let mut saw_junit = false;
    loop {
        let event = match reader.read_event() {
            Ok(event) => event,
            // Every syntax error quick-xml reports is a construct left open at the end.
            Err(quick_xml::Error::Syntax(_)) => {
                let open = open.last().cloned().unwrap_or_else(|| "document".to_string());
                return Err(JunitError::Truncated { open, cases });
            }
            Err(err) => {
                return Err(JunitError::Invalid { position: reader.error_position(), message: err.to_string(), cases })
            }
        };
        match event {
            Event::Start(tag) => {
                let depth = open.len();
                handle_tag(&tag, depth, false, &mut suites, &mut current, &mut saw_junit, &mut cases, &mut each);
                open.push(tag.local_name().as_ref().to_string());
            }
            Event::Empty(tag) => {
                let depth = open.len();
                handle_tag(&tag, depth, true, &mut suites, &mut current, &mut saw_junit, &mut cases, &mut each);
            }
            Event::End(_) => {
                let Some(name) = open.pop() else { continue };
                match name.as_str() {
                    "testsuite" => {
                        suites.pop();
                    }
                    "testcase" => {
                        if let Some((case, depth)) = current.take() {
                            if depth == open.len() {
                                cases += 1;
                                each(case);
                            } else {
                                current = Some((case, depth));
                            }
                        }
                    }
                    _ => {}
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if let Some(name) = open.last() {
        return Err(JunitError::Truncated { open: name.clone(), cases });
    }
    if !saw_junit {
        return Err(JunitError::NotJunit);
    }
    Ok(cases)
}

#[allow(clippy::too_many_arguments)]
fn handle_tag(
    tag: &BytesStart<'_>,
    depth: usize,
    empty: bool,
    suites: &mut Vec<Option<Rc<str>>>,
    current: &mut Option<(Case, usize)>,
    saw_junit: &mut bool,
    cases: &mut usize,
    each: &mut impl FnMut(Case),
) {
    match tag.local_name().as_ref() {
        "testsuite" => {
            *saw_junit = true;
            if !empty {
                suites.push(attr(tag, "name").map(Rc::from));
            }
        }
        "testsuites" => *saw_junit = true,
        "testcase" => {
            *saw_junit = true;
            let mut case = Case {
                suite: suites.iter().rev().flatten().next().cloned(),
                classname: String::new(),
                name: String::new(),
                file: None,
                outcome: Outcome::Passed,
            };
            // One pass over the attributes (a test case has several; `time` is not needed).
            for found in tag.attributes().with_checks(false).flatten() {
                let slot = match found.key.as_ref() {
                    "classname" => &mut case.classname,
                    "name" => &mut case.name,
                    "file" => case.file.get_or_insert_with(String::new),
                    _ => continue,
                };
                *slot = value_of(&found);
            }
            if empty {
                *cases += 1;
                each(case);
            } else {
                *current = Some((case, depth));
            }
        }
        child @ ("failure" | "error" | "skipped") => {
            // Only direct children of the open test case count.
            let Some((case, case_depth)) = current.as_mut() else {
                return;
            };
            if depth != *case_depth + 1 {
                return;
            }
            let outcome = match child {
                "error" => Outcome::Error,
                "failure" => Outcome::Failed,
                _ => Outcome::Skipped { xfail: attr(tag, "type").is_some_and(|t| t == "pytest.xfail") },
            };
            case.outcome = worse(case.outcome, outcome);
        }
        _ => {}
    }
}

fn worse(a: Outcome, b: Outcome) -> Outcome {
    fn rank(o: Outcome) -> u8 {
        match o {
            Outcome::Passed => 0,
            Outcome::Skipped { .. } => 1,
            Outcome::Failed => 2,
            Outcome::Error => 3,
        }
    }
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

/// An attribute's value with entities resolved; `None` when absent or malformed.
fn attr(tag: &BytesStart<'_>, key: &str) -> Option<String> {
    let found = tag.try_get_attribute(key).ok()??;
    Some(value_of(&found))
}

/// An attribute's value with entities resolved (a malformed escape keeps the raw text).
fn value_of(found: &Attribute<'_>) -> String {
    match found.normalized_value(XmlVersion::Implicit1_0) {
        Ok(value) => value.into_owned(),
        Err(_) => found.value.to_string(),
    }
}
