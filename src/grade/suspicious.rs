//! Candidate code that reaches into the test framework: the lines a patch adds outside the test
//! files, read for the ways code under test can change what the runner reports (DOMAIN §4).
//!
//! verdict restores test files and resets the runner's configuration, but the code under test
//! runs in the same process as the tests: a package's import-time code can patch pytest's
//! report hooks, replace jest's `expect`, or end the process with the exit code it likes. No
//! harness that runs the tests in-process can stop that. This module makes it visible: each
//! rule below gives a named [`Suspicion`] (file, line, the line itself), which the report
//! carries and which keeps a resolved candidate from counting as resolved without a look
//! (`resolved_flagged`).
//!
//! The rules read one added line at a time, by the file's language (its extension); files the
//! caller names as test files are skipped, since they are restored before the tests run. They
//! catch the plain forms; code that hides what it does (`getattr(__import__('o'+'s'), ...)`)
//! passes them, which is why the README's threat model calls this detection, not prevention.
//!
//! | name | Python | JavaScript / TypeScript | Java |
//! |---|---|---|---|
//! | `test_framework_import` | `import`/`from` `pytest`, `_pytest`, `pluggy`; `__import__`/`import_module` of them | `require`/`import` of `jest`, `@jest/*`, `jest-*`, `expect`, `mocha`, `vitest` | `org.junit`, `org.opentest4j`, `org.testng`, `org.apache.maven.surefire` |
//! | `test_hook` | a pytest hook or plugin name (`pytest_runtest_makereport`, `pytest_plugins`, …), a `pytest11` entry point | mocha root hooks (`mochaHooks`, `mochaGlobalSetup`) | a JUnit Platform service file (`META-INF/services/org.junit…`), `junit-platform.properties` |
//! | `test_framework_globals` | | `expect.extend`/`expect.getState`…, `jest.<anything>`, `global.expect`/`globalThis.it`…, `Symbol.for('…jest…')`, `Mocha.Runner`/`Mocha.Suite`, `Runner.prototype` | |
//! | `process_exit` | `os._exit`, `os.kill(os.getpid(), …)` | `process.exit`, `process.kill(process.pid…)`, `process.abort`, `process.reallyExit` | `System.exit`, `Runtime…halt`, `Runtime…exit` |
//! | `exit_hook` | `atexit` | `process.on('exit' / 'beforeExit')` | `addShutdownHook` |
//! | `module_cache_write` | writes to `sys.modules`, `sys.meta_path`, `sys.path_hooks`, `builtins.__import__` | `require.cache`, `require.extensions`, `Module._cache`, `Module._load`, `Module.prototype.require` | |
//! | `report_access` | any language: `VERDICT_…`, `/verdict/`, `surefire-reports`, `junitxml`, `testResultsProcessor` | | |
//! | `python_startup_hook` | a `sitecustomize.py`, `usercustomize.py` or `.pth` file | | |
//! | `installed_files` | any language: a path under `node_modules/`, `site-packages/`, `dist-packages/`, `*.egg-info/`, `*.dist-info/`, `.venv/`, `venv/`, `target/`, `.m2/` | | |

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::dataset::patch::file_sections;

/// One reason to look at a candidate before calling it resolved.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Suspicion {
    /// The rule's name (see the module doc); stable, for filtering reports.
    pub name: String,
    /// The file, as the patch names it after the change.
    pub path: String,
    /// The post-image line, for rules that read a line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The line (trimmed, at most [`EXCERPT`] characters), or what the path rule saw.
    pub excerpt: String,
}

impl std::fmt::Display for Suspicion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{} at {}:{} (`{}`)", self.name, self.path, line, self.excerpt),
            None => write!(f, "{} at {} ({})", self.name, self.path, self.excerpt),
        }
    }
}

/// Characters of a line kept in [`Suspicion::excerpt`].
pub const EXCERPT: usize = 120;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Python,
    Script,
    Java,
    Other,
}

fn family(path: &str) -> Family {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "py" | "pyw" => Family::Python,
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => Family::Script,
        "java" | "kt" | "groovy" | "scala" => Family::Java,
        _ => Family::Other,
    }
}

/// A line rule: its name, the languages it reads, and its pattern.
struct Rule {
    name: &'static str,
    families: &'static [Family],
    pattern: Regex,
}

const PY: &[Family] = &[Family::Python];
const JS: &[Family] = &[Family::Script];
const JAVA: &[Family] = &[Family::Java];
const ANY: &[Family] = &[Family::Python, Family::Script, Family::Java, Family::Other];

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let rule = |name, families, pattern: &str| Rule {
        name,
        families,
        pattern: Regex::new(pattern).expect("the suspicious-code patterns are valid regexes"),
    };
    const JS_MODULES: &str = r#"(jest|@jest/[^'"]*|jest-[^'"]*|expect|mocha|mocha/[^'"]*|vitest|vitest/[^'"]*)"#;
    vec![
        // Python
        rule("test_framework_import", PY, r"^\s*(import|from)\s+(_pytest|pytest|pluggy)\b"),
        rule("test_framework_import", PY, r#"(__import__|import_module)\(\s*['"](_pytest|pytest|pluggy)\b"#),
        rule("test_hook", PY, r"\bpytest_[a-z_]+\b"),
        rule("test_hook", ANY, r"\bpytest11\b"),
        rule("process_exit", PY, r"\bos\._exit\s*\(|\bos\.kill\s*\(\s*os\.getpid\(\)"),
        rule("exit_hook", PY, r"\batexit\b"),
        rule(
            "module_cache_write",
            PY,
            r"\bsys\.modules\s*(\[[^\]]*\]\s*=[^=]|\.(update|setdefault|pop|popitem|clear)\s*\()|\bdel\s+sys\.modules\b|\bsys\.(meta_path|path_hooks)\b|\b(builtins|__builtins__)\.__import__\s*=",
        ),
        // JavaScript / TypeScript
        rule("test_framework_import", JS, &format!(r#"\brequire\s*\(\s*['"]{JS_MODULES}['"]\s*\)"#)),
        rule("test_framework_import", JS, &format!(r#"(\bfrom\s*|\bimport\s*\(?\s*)['"]{JS_MODULES}['"]"#)),
        rule("test_hook", JS, r"\b(mochaHooks|mochaGlobalSetup|mochaGlobalTeardown)\b"),
        rule(
            "test_framework_globals",
            JS,
            r#"\bexpect\s*\.\s*(extend|getState|setState|addSnapshotSerializer|assertions|hasAssertions)\b|\bjest\s*\.\s*\w+|\b(global|globalThis|window|self)\s*(\.\s*|\[\s*['"])(expect|jest|it|test|describe|beforeAll|beforeEach|afterAll|afterEach)\b|Symbol\.for\(\s*['"][^'"]*jest|\bMocha\s*\.\s*(Runner|Suite|Test|Runnable|Hook|reporters)\b|\bRunner\.prototype\b|\bRunnable\.prototype\b"#,
        ),
        rule(
            "process_exit",
            JS,
            r"\bprocess\s*\.\s*(exit|abort|reallyExit)\s*\(|\bprocess\s*\.\s*kill\s*\(\s*process\s*\.\s*pid",
        ),
        rule(
            "exit_hook",
            JS,
            r#"\bprocess\s*\.\s*(on|once|addListener|prependListener)\s*\(\s*['"](exit|beforeExit)['"]"#,
        ),
        rule(
            "module_cache_write",
            JS,
            r"\brequire\s*\.\s*(cache|extensions)\b|\bModule\s*\.\s*(_cache|_load|_resolveFilename|_extensions)\b|\bModule\s*\.\s*prototype\s*\.\s*(require|_compile)\b",
        ),
        // Java
        rule(
            "test_framework_import",
            JAVA,
            r"\b(org\.junit|org\.opentest4j|org\.testng|org\.apache\.maven\.surefire)\b",
        ),
        rule(
            "process_exit",
            JAVA,
            r"\bSystem\s*\.\s*exit\s*\(|\bRuntime\s*\.\s*getRuntime\s*\(\s*\)\s*\.\s*(halt|exit)\s*\(|\.\s*halt\s*\(",
        ),
        rule("exit_hook", JAVA, r"\baddShutdownHook\b"),
        // Every language: where verdict reads results from.
        rule(
            "report_access",
            ANY,
            r"VERDICT_[A-Z]|/verdict/|surefire-reports|\bjunitxml\b|--junit-?xml|\btestResultsProcessor\b",
        ),
    ]
});

/// Paths under folders that installers write (never part of a repository's own code).
static INSTALLED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(^|/)(node_modules|site-packages|dist-packages|[^/]+\.egg-info|[^/]+\.dist-info|\.venv|venv|target|\.m2)/",
    )
    .expect("the installed-path pattern is a valid regex")
});

/// The suspicions of a patch, in patch order. `skip` names files to leave out (the test files,
/// which are restored before the tests run). Deterministic; no duplicates.
/// [`scan`] without the hits of the rules a repository's spec allows (`allowed_suspicions`).
pub fn scan_allowing(patch: &str, skip: &[String], allowed: &[String]) -> Vec<Suspicion> {
    scan(patch, skip).into_iter().filter(|s| !allowed.contains(&s.name)).collect()
}

pub fn scan(patch: &str, skip: &[String]) -> Vec<Suspicion> {
    let mut found: Vec<Suspicion> = Vec::new();
    let mut push = |s: Suspicion| {
        if !found.contains(&s) {
            found.push(s);
        }
    };
    for section in file_sections(patch) {
        let paths: Vec<&str> =
            [section.change.old.as_deref(), section.change.new.as_deref()].into_iter().flatten().collect();
        if paths.iter().any(|p| skip.iter().any(|s| s == p)) {
            continue;
        }
        let path = section.change.path().to_string();
        for p in &paths {
            if let Some(m) = INSTALLED.find(p) {
                push(Suspicion {
                    name: "installed_files".into(),
                    path: p.to_string(),
                    line: None,
                    excerpt: format!("under {}", m.as_str().trim_start_matches('/')),
                });
            }
        }
        let name = path.rsplit('/').next().unwrap_or(&path);
        if matches!(name, "sitecustomize.py" | "usercustomize.py") || name.ends_with(".pth") {
            push(Suspicion {
                name: "python_startup_hook".into(),
                path: path.clone(),
                line: None,
                excerpt: "Python runs it at every interpreter start".into(),
            });
        }
        if path.contains("META-INF/services/org.junit") || name == "junit-platform.properties" {
            push(Suspicion {
                name: "test_hook".into(),
                path: path.clone(),
                line: None,
                excerpt: "JUnit Platform reads it from the class path".into(),
            });
        }
        let fam = family(&path);
        for added in &section.added {
            for rule in RULES.iter().filter(|r| r.families.contains(&fam)) {
                if rule.pattern.is_match(added.text) {
                    push(Suspicion {
                        name: rule.name.into(),
                        path: path.clone(),
                        line: Some(added.line),
                        excerpt: excerpt(added.text),
                    });
                }
            }
        }
    }
    found
}

fn excerpt(line: &str) -> String {
    let trimmed = line.trim();
    if trimmed.chars().count() <= EXCERPT {
        return trimmed.to_string();
    }
    let mut cut: String = trimmed.chars().take(EXCERPT - 1).collect();
    cut.push('…');
    cut
}

/// The distinct rule names of `found`, in first-appearance order.
pub fn names(found: &[Suspicion]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for s in found {
        if !names.contains(&s.name.as_str()) {
            names.push(&s.name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_allows_only_the_rules_it_names() {
        let patch = adding(
            "src/_pytest/hooks.py",
            &["import _pytest.nodes", "def pytest_collection(session):", "    os._exit(0)"],
        );
        let names = |allowed: &[&str]| -> Vec<String> {
            let allowed: Vec<String> = allowed.iter().map(|a| a.to_string()).collect();
            scan_allowing(&patch, &[], &allowed).into_iter().map(|s| s.name).collect()
        };
        assert_eq!(names(&[]), ["test_framework_import", "test_hook", "process_exit"]);
        assert_eq!(names(&["test_framework_import", "test_hook"]), ["process_exit"], "the other rules stay");
    }

    #[test]
    fn every_rule_is_one_a_spec_may_allow() {
        use crate::dataset::spec::SUSPICION_RULES;
        let mut names: Vec<&str> = RULES.iter().map(|r| r.name).collect();
        names.extend(["installed_files", "python_startup_hook", "test_hook"]);
        for name in &names {
            assert!(SUSPICION_RULES.contains(name), "{name} is missing from SUSPICION_RULES");
        }
        for name in SUSPICION_RULES {
            assert!(names.contains(&name), "SUSPICION_RULES names {name}, which no rule has");
        }
    }

    /// A one-file patch adding `lines` to `path` (a new file).
    fn adding(path: &str, lines: &[&str]) -> String {
        let mut patch = format!(
            "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{} @@\n",
            lines.len()
        );
        for line in lines {
            patch.push('+');
            patch.push_str(line);
            patch.push('\n');
        }
        patch
    }

    fn names_of(patch: &str) -> Vec<String> {
        scan(patch, &[]).into_iter().map(|s| s.name).collect()
    }

    #[test]
    fn python_reaching_into_pytest() {
        let patch = adding(
            "src/pkg/__init__.py",
            &[
                "import os",
                "import _pytest.runner",
                "from pluggy import HookimplMarker",
                "def pytest_runtest_makereport(item, call):",
                "    pass",
                "mod = importlib.import_module('_pytest.reports')",
                "sys.modules['_pytest.terminal'] = fake",
                "atexit.register(lambda: os._exit(0))",
            ],
        );
        let found = scan(&patch, &[]);
        let lines: Vec<(&str, Option<usize>)> = found.iter().map(|s| (s.name.as_str(), s.line)).collect();
        assert_eq!(
            lines,
            vec![
                ("test_framework_import", Some(2)),
                ("test_framework_import", Some(3)),
                ("test_hook", Some(4)),
                ("test_framework_import", Some(6)),
                ("module_cache_write", Some(7)),
                ("process_exit", Some(8)),
                ("exit_hook", Some(8)),
            ]
        );
        assert_eq!(found[0].path, "src/pkg/__init__.py");
        assert_eq!(found[0].excerpt, "import _pytest.runner");
        assert_eq!(
            names(&found),
            ["test_framework_import", "test_hook", "module_cache_write", "process_exit", "exit_hook"]
        );
    }

    #[test]
    fn ordinary_python_is_not_suspicious() {
        let patch = adding(
            "src/pkg/calc.py",
            &[
                "# pytest is not imported here",
                "import os, sys",
                "def median(values):",
                "    values = sorted(values)",
                "    if sys.modules.get('numpy'):",
                "        return float(values[len(values) // 2])",
                "    return os.path.join('a', 'b')",
            ],
        );
        assert_eq!(scan(&patch, &[]), vec![]);
    }

    #[test]
    fn javascript_reaching_into_jest_and_mocha() {
        let patch = adding(
            "src/index.js",
            &[
                "const { expect: e } = require('@jest/globals');",
                "import { Runner } from 'mocha';",
                "globalThis.expect = () => ({ toBe() {} });",
                "expect.extend({ toBe: () => ({ pass: true }) });",
                "Mocha.Runner.prototype.fail = function () {};",
                "delete require.cache[key];",
                "process.on('exit', () => process.exit(0));",
                "global[Symbol.for('$$jest-matchers-object')] = {};",
            ],
        );
        assert_eq!(
            names_of(&patch),
            [
                "test_framework_import",
                "test_framework_import",
                "test_framework_globals",
                "test_framework_globals",
                "test_framework_globals",
                "module_cache_write",
                "process_exit",
                "exit_hook",
                "test_framework_globals",
            ]
        );
    }

    #[test]
    fn ordinary_javascript_is_not_suspicious() {
        let patch = adding(
            "src/stats.js",
            &[
                "const expectation = require('./expectation');",
                "// jest runs these tests",
                "function median(xs) { return /\\d+/.test(xs[0]) ? xs.sort()[0] : null; }",
                "module.exports = { median, expected: 1 };",
            ],
        );
        assert_eq!(scan(&patch, &[]), vec![]);
    }

    #[test]
    fn java_reaching_into_junit_or_halting() {
        let patch = adding(
            "src/main/java/com/x/Util.java",
            &[
                "import org.junit.platform.launcher.TestExecutionListener;",
                "class Util {",
                "  static { Runtime.getRuntime().addShutdownHook(new Thread(() -> Runtime.getRuntime().halt(0))); }",
                "  void quit() { System.exit(0); }",
                "}",
            ],
        );
        assert_eq!(names_of(&patch), ["test_framework_import", "process_exit", "exit_hook", "process_exit"]);
        let services = adding(
            "src/main/resources/META-INF/services/org.junit.platform.launcher.TestExecutionListener",
            &["com.x.Listener"],
        );
        assert_eq!(names_of(&services), ["test_hook"]);
    }

    #[test]
    fn paths_that_reach_the_runner() {
        assert_eq!(names_of(&adding("node_modules/jest-circus/build/run.js", &["x"])), ["installed_files"]);
        assert_eq!(
            names_of(&adding("src/pkg.egg-info/entry_points.txt", &["[pytest11]"])),
            ["installed_files", "test_hook"]
        );
        assert_eq!(names_of(&adding("src/sitecustomize.py", &["x = 1"])), ["python_startup_hook"]);
        assert_eq!(
            names_of(&adding("pyproject.toml", &["[project.entry-points.pytest11]", "evil = 'pkg.plugin'"])),
            ["test_hook"]
        );
        assert_eq!(
            names_of(&adding("src/report.py", &["path = os.environ['VERDICT_OUT'] + '/junit.xml'"])),
            ["report_access"]
        );
        // `targets/` and `venvs.py` are not installer folders.
        assert_eq!(scan(&adding("src/targets/venvs.py", &["x = 1"]), &[]), vec![]);
    }

    #[test]
    fn test_files_are_skipped_and_removed_lines_are_not_read() {
        let test_file = adding("tests/conftest.py", &["import pytest", "def pytest_configure(config): pass"]);
        assert_eq!(scan(&test_file, &["tests/conftest.py".to_string()]), vec![]);
        let removing = "--- a/src/pkg/x.py\n+++ b/src/pkg/x.py\n@@ -1,2 +1,1 @@\n-import pytest\n keep = 1\n";
        assert_eq!(scan(removing, &[]), vec![]);
    }

    #[test]
    fn long_lines_are_cut_in_the_excerpt() {
        let long = format!("import pytest  # {}", "x".repeat(300));
        let found = scan(&adding("src/a.py", &[&long]), &[]);
        assert_eq!(found[0].excerpt.chars().count(), EXCERPT);
        assert!(found[0].excerpt.ends_with('…'));
        assert_eq!(found[0].to_string(), format!("test_framework_import at src/a.py:1 (`{}`)", found[0].excerpt));
    }
}
