//! The surefire console, read when no `TEST-*.xml` report is usable. Surefire prints only
//! failing methods, so this source is coarser than the XML:
//!
//! - **Failing methods** (same id form as the XML, `com.x.FooTest.testBar`), from
//!   - surefire 2: `[ERROR] testBar(com.x.FooTest)  Time elapsed: 0.01 s  <<< FAILURE!` (JUnit 4)
//!     or `[ERROR] testBar  Time elapsed: …` under the preceding class line (JUnit 5);
//!     surefire ≤ 2.19 wrote `sec` and no `[ERROR]` prefix;
//!   - surefire 3: `[ERROR] com.x.FooTest.testBar -- Time elapsed: 0.01 s <<< FAILURE!`.
//!
//!   `<<< FAILURE!` is FAILED, `<<< ERROR!` is ERROR. A nested class the line does not name is
//!   taken from the first stack frame of that method (`at com.x.FooTest$Inner.testBar(`).
//!   A line naming the class alone (a class-level error) gives the class id `com.x.FooTest`.
//! - **One class-level entry per class** (id = the class, `com.x.FooTest`) from its
//!   `Tests run: N, Failures: F, Errors: E, Skipped: S, … in com.x.FooTest` line: FAILED if
//!   F > 0, else ERROR if E > 0, else SKIPPED if S = N, else PASSED. Classes that ran no test
//!   and display names (`in deeper level`) get no entry.
//! - The `Results:` summary (`[ERROR]   FooTest.testBar:12 expected…`, surefire ≤ 2.19's
//!   `  testBar(com.x.FooTest): …`) only adds a failing method that no per-method line gave,
//!   when its simple class name resolves to exactly one class seen in the log.
//!
//! Passing methods never appear, and a note says so.

use std::collections::{HashMap, HashSet};

use super::is_class_name;
use crate::parse::combine::{most_severe, Read, Repeats, TestMap};
use crate::parse::{TestResult, TestStatus};

/// A failing method waiting for its stack trace (which may name a nested class).
struct Pending {
    class: String,
    name: String,
    status: TestStatus,
}

struct State {
    map: TestMap,
    /// Failing methods as (top-level class, method name up to its parameters).
    failing: HashSet<(String, String)>,
    /// Classes named by `Tests run:` lines.
    classes: HashSet<String>,
    /// Class-level statuses, by class.
    class_level: HashMap<String, TestStatus>,
}

pub(crate) fn read_console(text: &str) -> Read {
    let modern = text.contains(" - in ") || text.contains(" -- in ");
    let mut state = State {
        map: TestMap::new(Repeats::Merge),
        failing: HashSet::new(),
        classes: HashSet::new(),
        class_level: HashMap::new(),
    };
    let mut current: Option<String> = None;
    let mut running: Option<String> = None;
    let mut pending: Option<Pending> = None;
    let mut section: Option<Option<TestStatus>> = None;
    let mut summary: Vec<(String, TestStatus)> = Vec::new();
    for raw in text.lines() {
        let body = strip_level(raw);
        if let Some(p) = pending.as_mut() {
            if let Some(frame) = body.trim_start().strip_prefix("at ") {
                refine_from_frame(p, frame);
                continue;
            }
            // The exception message runs until a blank line or the next log line.
            let next_entry = body.trim().is_empty()
                || raw.starts_with('[')
                || body.starts_with("Tests run:")
                || body.starts_with("Running ")
                || method_line(body).is_some();
            if !next_entry {
                continue;
            }
            state.add_method(pending.take());
        }
        if let Some(class) = body.strip_prefix("Running ") {
            let class = class.trim();
            running = Some(class.to_string());
            current = Some(class.to_string());
            continue;
        }
        if let Some(counts) = body.strip_prefix("Tests run:") {
            section = section.map(|_| None);
            let named = class_of_counts_line(counts);
            let class = match named {
                Some(c) => Some(c.to_string()),
                None if !modern => running.take(),
                None => None,
            };
            if let Some(class) = class {
                state.class_line(&class, counts);
                current = Some(class);
            }
            continue;
        }
        if let Some((head, status)) = method_line(body) {
            pending =
                method(head, current.as_deref(), &state.classes).map(|(class, name)| Pending { class, name, status });
            continue;
        }
        let trimmed = body.trim();
        if trimmed == "Results:" || trimmed == "Results :" {
            section = Some(None);
            continue;
        }
        if let Some(kind) = section.as_mut() {
            match trimmed {
                "Failures:" | "Failed tests:" => *kind = Some(TestStatus::Failed),
                "Errors:" | "Tests in error:" => *kind = Some(TestStatus::Error),
                "Flakes:" => *kind = None,
                _ if body.starts_with("  ") && !trimmed.is_empty() => {
                    if let Some(status) = *kind {
                        summary.push((trimmed.to_string(), status));
                    }
                }
                _ => {}
            }
        }
    }
    state.add_method(pending.take());
    let added = state.add_summary(&summary);
    if state.map.is_empty() {
        return Read::Unusable("it shows no surefire `Tests run:` class lines or failing methods".to_string());
    }
    let mut notes = vec!["console: surefire lists only failing methods, so passing methods are \
                          absent; each class has a class-level entry (id = the class) from its \
                          `Tests run:` line"
        .to_string()];
    if added > 0 {
        notes.push(format!("console: {added} failing methods were known only from the Results summary"));
    }
    // A class named by several lines (class line, class-level error) is one entry by design.
    let (tests, _) = state.map.finish(None);
    Read::Found(tests, notes)
}

impl State {
    fn class_line(&mut self, class: &str, counts: &str) {
        if !is_class_name(class) {
            return;
        }
        self.classes.insert(class.to_string());
        let number = |label: &str| -> usize {
            counts
                .split(',')
                .find_map(|part| part.trim().strip_prefix(label))
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or(0)
        };
        let run = counts.split(',').next().and_then(|n| n.trim().parse::<usize>().ok()).unwrap_or(0);
        if run == 0 {
            return;
        }
        let status = if number("Failures:") > 0 {
            TestStatus::Failed
        } else if number("Errors:") > 0 {
            TestStatus::Error
        } else if number("Skipped:") >= run {
            TestStatus::Skipped
        } else {
            TestStatus::Passed
        };
        self.record_class(class, status);
    }

    fn record_class(&mut self, class: &str, status: TestStatus) {
        let kept = self.class_level.entry(class.to_string()).or_insert(status);
        *kept = most_severe(*kept, status);
        let result = TestResult { status, file: None, class: Some(class.to_string()) };
        self.map.insert(class.to_string(), result);
    }

    fn add_method(&mut self, pending: Option<Pending>) {
        let Some(p) = pending else { return };
        if p.name.is_empty() {
            self.record_class(&p.class, p.status);
            return;
        }
        self.failing.insert((top_level(&p.class).to_string(), base_name(&p.name).to_string()));
        let result = TestResult { status: p.status, file: None, class: Some(p.class.clone()) };
        self.map.insert(format!("{}.{}", p.class, p.name), result);
    }

    /// Adds summary-only failures; returns how many were added.
    fn add_summary(&mut self, summary: &[(String, TestStatus)]) -> usize {
        let mut added = 0;
        for (line, status) in summary {
            let Some((class, name)) = summary_entry(line, &self.classes) else {
                continue;
            };
            let top = top_level(&class);
            let failed_class = self.class_level.get(top).is_some_and(|s| s.is_failure());
            let known = self.failing.contains(&(top.to_string(), base_name(&name).to_string()));
            let class_error = self.class_level.get(top) == Some(&TestStatus::Error);
            if known || class_error || !failed_class {
                continue;
            }
            self.add_method(Some(Pending { class, name, status: *status }));
            added += 1;
        }
        added
    }
}

/// A line without Maven's `[INFO] ` / `[ERROR] ` / `[WARNING] ` prefix.
fn strip_level(line: &str) -> &str {
    for prefix in ["[INFO] ", "[ERROR] ", "[WARNING] ", "[WARN] "] {
        if let Some(rest) = line.strip_prefix(prefix) {
            return rest;
        }
    }
    line
}

/// The class after ` - in ` (surefire 2.20+) or ` -- in ` (surefire 3).
fn class_of_counts_line(counts: &str) -> Option<&str> {
    let at = counts.rfind(" in ")?;
    let before = counts[..at].trim_end();
    (before.ends_with(" -") || before.ends_with(" --")).then(|| counts[at + 4..].trim()).filter(|c| !c.is_empty())
}

/// `head  Time elapsed: 0.01 s  <<< FAILURE!`: the part before `Time elapsed` and the status.
fn method_line(body: &str) -> Option<(&str, TestStatus)> {
    let body = body.trim_end();
    let status = if body.ends_with("<<< FAILURE!") {
        TestStatus::Failed
    } else if body.ends_with("<<< ERROR!") {
        TestStatus::Error
    } else {
        return None;
    };
    let at = body.find("Time elapsed:")?;
    let head = body[..at].trim_end();
    let head = head.strip_suffix(" --").unwrap_or(head).trim_end();
    (!head.is_empty()).then_some((head, status))
}

/// Class and method name of a failing-method line's head. An empty name means the line names
/// a class alone.
fn method(head: &str, current: Option<&str>, classes: &HashSet<String>) -> Option<(String, String)> {
    // surefire 2, JUnit 4: `name(com.x.Class)`.
    if let Some(body) = head.strip_suffix(')') {
        if let Some(open) = body.rfind('(') {
            let class = &body[open + 1..];
            if is_class_name(class) && (class.contains('.') || Some(class) == current) {
                return Some((class.to_string(), body[..open].to_string()));
            }
        }
    }
    if Some(head) == current || classes.contains(head) {
        return Some((head.to_string(), String::new()));
    }
    // surefire 3: `com.x.Class.name`.
    if let Some(class) = current.filter(|c| is_class_name(c)) {
        if let Some(name) = head.strip_prefix(class).and_then(|r| r.strip_prefix('.')) {
            return Some((class.to_string(), name.to_string()));
        }
    }
    let prefix_end = head.find(['(', '[', '{', ' ']).unwrap_or(head.len());
    if let Some(dot) = head[..prefix_end].rfind('.') {
        let class = &head[..dot];
        if is_class_name(class) && (class.contains('.') || classes.contains(class)) {
            return Some((class.to_string(), head[dot + 1..].to_string()));
        }
    }
    // surefire 2, JUnit 5: a bare method name under the current class.
    Some((current?.to_string(), head.to_string()))
}

/// `com.x.Foo$Inner` → `com.x.Foo`.
fn top_level(class: &str) -> &str {
    class.split('$').next().unwrap_or(class)
}

/// The method name without parameters: `testAdd{int}[2]` → `testAdd`.
fn base_name(name: &str) -> &str {
    &name[..name.find(['(', '[', '{', ' ']).unwrap_or(name.len())]
}

/// `at com.x.FooTest$Inner.testBar(FooTest.java:12)`: if it is the pending method in a class
/// nested in (or equal to) the pending class, file the method under that class.
fn refine_from_frame(p: &mut Pending, frame: &str) {
    let Some(call) = frame.split('(').next() else {
        return;
    };
    let Some(dot) = call.rfind('.') else { return };
    let (class, method) = (&call[..dot], &call[dot + 1..]);
    if method == base_name(&p.name)
        && class.len() > p.class.len()
        && class.starts_with(&p.class)
        && class[p.class.len()..].starts_with('$')
    {
        p.class = class.to_string();
    }
}

/// A Results-summary entry: `FooTest.testBar:12 message`, `FooTest$Inner.testBar message`, or
/// surefire ≤ 2.19's `testBar(com.x.FooTest): message`. Resolves the class among `classes`.
fn summary_entry(line: &str, classes: &HashSet<String>) -> Option<(String, String)> {
    let first = line.split(' ').next()?;
    let first = first.split(':').next()?;
    if let Some(open) = first.find('(') {
        let class = first[open + 1..].strip_suffix(')')?;
        return (is_class_name(class)).then(|| (class.to_string(), first[..open].to_string()));
    }
    let dot = first.rfind('.')?;
    let (simple, name) = (&first[..dot], &first[dot + 1..]);
    if name.is_empty() || !is_class_name(simple) {
        return None;
    }
    // `Outer$Inner`: resolve `Outer`, keep the nesting.
    let (outer, nested) = simple.split_at(simple.find('$').unwrap_or(simple.len()));
    let dotted = format!(".{outer}");
    let mut matches = classes.iter().filter(|c| *c == outer || c.ends_with(&dotted));
    let class = matches.next()?;
    matches.next().is_none().then(|| (format!("{class}{nested}"), name.to_string()))
}
