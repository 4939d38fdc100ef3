//! Parser tests on captured real logs and reports (tests/fixtures/parse/<runner>/<case>/),
//! plus robustness tests that feed every parser garbage.

use std::path::{Path, PathBuf};

use super::{parse, ParsedTests, ResultSource, RunnerId, StructuredReport, TestStatus};

mod jest;
mod maven;
mod mocha;
mod pytest;
mod robust;
mod summary;
mod sympy;
mod unittest;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parse").join(rel)
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(fixture(rel)).unwrap_or_else(|e| panic!("fixture {rel}: {e}"))
}

fn console(rel: &str) -> String {
    String::from_utf8(read(rel)).expect("fixture console is UTF-8")
}

/// Reports named as the eval script names them in `$VERDICT_OUT`: `dir/<name>` → `<name>`.
fn reports(dir: &str, names: &[&str]) -> Vec<StructuredReport> {
    names.iter().map(|n| StructuredReport { name: n.to_string(), bytes: read(&format!("{dir}/{n}")) }).collect()
}

/// Every file under `dir/surefire/`, named `surefire/<file>`.
fn surefire_reports(dir: &str) -> Vec<StructuredReport> {
    let mut names: Vec<String> = std::fs::read_dir(fixture(&format!("{dir}/surefire")))
        .expect("surefire fixture folder")
        .map(|e| format!("surefire/{}", e.expect("dir entry").file_name().to_string_lossy()))
        .collect();
    names.sort();
    names.iter().map(|n| StructuredReport { name: n.clone(), bytes: read(&format!("{dir}/{n}")) }).collect()
}

/// The runner of the table named `name`.
fn runner(name: &str) -> RunnerId {
    RunnerId::named(name).unwrap_or_else(|| panic!("no runner {name}"))
}

fn ok(kind: RunnerId, console: &str, structured: &[StructuredReport]) -> ParsedTests {
    parse(kind, console, structured).unwrap_or_else(|e| panic!("{kind:?}: {e}"))
}

/// `(id, status)` pairs, sorted by id, for exact comparison.
fn statuses(parsed: &ParsedTests) -> Vec<(String, TestStatus)> {
    parsed.tests.iter().map(|(id, r)| (id.clone(), r.status)).collect()
}

fn expect(list: &[(&str, TestStatus)]) -> Vec<(String, TestStatus)> {
    let mut v: Vec<(String, TestStatus)> = list.iter().map(|(id, s)| (id.to_string(), *s)).collect();
    v.sort();
    v
}
