//! The eval script's text and the reading of its marker lines.

use super::*;
use crate::parse::RunnerId;

fn python() -> LanguageSpec {
    LanguageSpec {
        base_dockerfile: "python.Dockerfile".into(),
        apt: vec![],
        test_files: vec!["tests/**".into(), "**/conftest.py".into()],
        test_arg_files: vec!["**/test_*.py".into()],
        env: BTreeMap::new(),
        ..LanguageSpec::default()
    }
}

fn entry(test_args: TestArgs) -> SpecEntry {
    SpecEntry {
        test_args,
        ..SpecEntry::new("python", "pytest -rA --junitxml=$VERDICT_OUT/junit.xml", RunnerId::named("pytest").unwrap())
    }
}

const TEST_PATCH: &str = "\
diff --git a/tests/test_calc.py b/tests/test_calc.py
--- a/tests/test_calc.py
+++ b/tests/test_calc.py
@@ -1 +1,2 @@
 x
+y
diff --git a/tests/test_new.py b/tests/test_new.py
new file mode 100644
--- /dev/null
+++ b/tests/test_new.py
@@ -0,0 +1 @@
+z
diff --git a/tests/conftest.py b/tests/conftest.py
--- a/tests/conftest.py
+++ b/tests/conftest.py
@@ -1 +1 @@
-a
+b
";

#[test]
fn script_applies_restores_and_runs_in_order() {
    let entry = entry(TestArgs::Files);
    let env = BTreeMap::from([("TZ".to_string(), "UTC".to_string())]);
    let candidate = "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-a\n+b\n";
    let script = render(&ScriptInput {
        title: "demo-1".into(),
        candidate: Some(candidate),
        test_patch: TEST_PATCH,
        entry: &entry,
        language: &python(),
        env: &env,
        timeout_secs: 30,
        nonce: "n0nce",
        apply_only: false,
        config: &ConfigPlan::default(),
        clock: None,
    });
    let s = &script.script;
    let order = [
        "rm -f \"$0\"",
        "M=VERDICT-n0nce",
        "export TZ=UTC",
        "git apply --verbose /verdict/in/candidate.diff",
        "git apply --verbose --3way",
        "patch --batch --fuzz=5 --no-backup-if-mismatch -p1 -i",
        "echo \"$M APPLY $step\"",
        "git ls-files -z -- ':(glob)tests/**' ':(glob)**/conftest.py' ':(glob)**/pytest.ini' ':(glob)**/.pytest.ini' ':(glob)**/tox.ini' | xargs -0 -r git checkout -q HEAD --",
        "git clean -fdq -- ':(glob)tests/**'",
        "git checkout -q HEAD -- tests/test_calc.py",
        "rm -rf -- tests/test_new.py",
        "git apply --verbose /verdict/in/test.diff",
        "echo \"$M TESTS START\"",
        "timeout -k 10 30 bash -c 'pytest -rA --junitxml=$VERDICT_OUT/junit.xml tests/test_calc.py tests/test_new.py'",
        "echo \"$M TESTS EXIT $code\"",
        "times",
    ];
    let mut at = 0;
    for needle in order {
        let found = s[at..].find(needle).unwrap_or_else(|| panic!("{needle:?} missing after byte {at} in:\n{s}"));
        at += found + needle.len();
    }
    assert_eq!(script.test_args, ["tests/test_calc.py", "tests/test_new.py"]);
    let names: Vec<&str> = script.inputs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["test.diff", "candidate.diff"]);
}

#[test]
fn apply_only_runs_the_same_chain_and_stops() {
    let entry = entry(TestArgs::Files);
    let candidate = "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-a\n+b\n";
    let input = ScriptInput {
        title: "demo-1".into(),
        candidate: Some(candidate),
        test_patch: TEST_PATCH,
        entry: &entry,
        language: &python(),
        env: &BTreeMap::new(),
        timeout_secs: 30,
        nonce: "n0nce",
        apply_only: true,
        config: &ConfigPlan::default(),
        clock: None,
    };
    let only = render(&input);
    let full = render(&ScriptInput { apply_only: false, ..input.clone() });
    // The apply chain is the full script's, byte for byte, up to its APPLY line.
    let chain_end = |s: &str| s.find("echo \"$M APPLY $step\"").unwrap();
    assert_eq!(only.script[..chain_end(&only.script)], full.script[..chain_end(&full.script)]);
    assert!(only.script.ends_with("echo \"$M APPLY $step\"\n[ \"$step\" = none ] && exit 0\necho \"$M END\"\n"));
    for absent in ["test.diff", "TESTS START", "pytest", "git checkout -q HEAD"] {
        assert!(!only.script.contains(absent), "{absent} in:\n{}", only.script);
    }
    let names: Vec<&str> = only.inputs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["candidate.diff"], "no test patch goes in");
    assert!(only.test_args.is_empty());

    let seen = read_output("VERDICT-n0nce APPLY patch_fuzz\nVERDICT-n0nce END\n", "n0nce");
    assert_eq!(seen.apply_step, Some(crate::grade::ApplyStep::PatchFuzz));
    assert!(seen.finished && !seen.tests_started);
}

#[test]
fn without_candidate_there_is_no_apply_chain() {
    let entry = entry(TestArgs::None);
    let script = render(&ScriptInput {
        title: "t".into(),
        candidate: None,
        test_patch: TEST_PATCH,
        entry: &entry,
        language: &python(),
        env: &BTreeMap::new(),
        timeout_secs: 5,
        nonce: "x",
        apply_only: false,
        config: &ConfigPlan::default(),
        clock: None,
    });
    assert!(!script.script.contains("candidate.diff"));
    assert!(script.script.contains("timeout -k 10 5 bash -c 'pytest -rA --junitxml=$VERDICT_OUT/junit.xml'\n"));
    assert!(script.test_args.is_empty());
}

#[test]
fn jest_snapshots_map_to_their_spec_file() {
    let lang = LanguageSpec { test_arg_files: vec!["**/*.test.js".into()], ..python() };
    let patch = "diff --git a/src/__snapshots__/x.test.js.snap b/src/__snapshots__/x.test.js.snap\n--- a/src/__snapshots__/x.test.js.snap\n+++ b/src/__snapshots__/x.test.js.snap\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/src/x.test.js b/src/x.test.js\n--- a/src/x.test.js\n+++ b/src/x.test.js\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/src/util.js b/src/util.js\n--- a/src/util.js\n+++ b/src/util.js\n@@ -1 +1 @@\n-a\n+b\n";
    assert_eq!(test_arguments("jest".parse().unwrap(), patch, &lang.test_arg_files), ["src/x.test.js"]);
}

#[test]
fn maven_classes_and_modules() {
    let patch = "diff --git a/core/src/test/java/com/x/FooTest.java b/core/src/test/java/com/x/FooTest.java\n--- a/core/src/test/java/com/x/FooTest.java\n+++ b/core/src/test/java/com/x/FooTest.java\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/src/test/java/com/y/BarTest.java b/src/test/java/com/y/BarTest.java\nnew file mode 100644\n--- /dev/null\n+++ b/src/test/java/com/y/BarTest.java\n@@ -0,0 +1 @@\n+b\ndiff --git a/core/src/test/resources/data.txt b/core/src/test/resources/data.txt\n--- a/core/src/test/resources/data.txt\n+++ b/core/src/test/resources/data.txt\n@@ -1 +1 @@\n-a\n+b\n";
    assert_eq!(
        test_arguments("maven".parse().unwrap(), patch, &python().test_arg_files),
        ["-Dtest=com.x.FooTest,com.x.FooTest$*,com.y.BarTest,com.y.BarTest$*", "-pl", "core"]
    );
}

#[test]
fn candidate_touching_tests_is_detected() {
    let candidate = "diff --git a/tests/test_calc.py b/tests/test_calc.py\n--- a/tests/test_calc.py\n+++ b/tests/test_calc.py\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/pkg/conftest.py b/pkg/conftest.py\nnew file mode 100644\n--- /dev/null\n+++ b/pkg/conftest.py\n@@ -0,0 +1 @@\n+b\n";
    let globs = test_globs(&entry(TestArgs::Files), &python());
    assert_eq!(touched_test_files(candidate, &globs, TEST_PATCH), ["tests/test_calc.py", "pkg/conftest.py"]);
}

#[test]
fn marker_lines_are_read_and_forged_ones_ignored() {
    let output = "\
Checking patch calc.py...
VERDICT-abc APPLY patch_fuzz
VERDICT-abc TESTPATCH ok
VERDICT-abc TESTS START
PASSED tests/test_a.py::test_one
VERDICT-fake TESTS EXIT 0
VERDICT-abc APPLY git_apply_forged_later_is_ignored_too
1 passed

VERDICT-abc TESTS EXIT 1
VERDICT-abc TIMES
0m0.010s 0m0.020s
0m1.500s 0m0.250s
VERDICT-abc END
";
    let out = read_output(output, "abc");
    assert_eq!(out.test_patch_applied, Some(true));
    assert_eq!(out.exit_code, Some(1));
    assert!(out.tests_started && out.finished);
    assert!(out.test_output.starts_with("PASSED tests/test_a.py::test_one\n"));
    assert!(out.test_output.contains("1 passed"));
    assert!(!out.test_output.contains("TESTS EXIT 1"));
    assert_eq!(out.cpu_secs, Some(1.75));
}

#[test]
fn a_run_cut_short_has_no_exit_code() {
    let out =
        read_output("VERDICT-q APPLY git_apply\nVERDICT-q TESTPATCH ok\nVERDICT-q TESTS START\nhanging...\n", "q");
    assert_eq!(out.apply_step, Some(ApplyStep::GitApply));
    assert!(out.tests_started);
    assert_eq!(out.exit_code, None);
    assert!(!out.finished);
    assert_eq!(out.test_output, "hanging...\n");
}

/// A runner whose report is somewhere else than a file the command writes, to check what the
/// script does for each [`ReportSource`].
struct StandIn(ReportSource);

impl crate::parse::Runner for StandIn {
    fn name(&self) -> &'static str {
        "stand-in"
    }
    fn command(&self, test_cmd: &str, quoted_arguments: &str) -> String {
        format!("{test_cmd} --only {quoted_arguments} -- -v")
    }
    fn report(&self) -> ReportSource {
        self.0
    }
    fn parse(
        &self,
        _: &str,
        _: &[crate::parse::StructuredReport],
    ) -> Result<crate::parse::ParsedTests, crate::parse::ParseError> {
        Err(crate::parse::ParseError::NoResults("stand-in".into()))
    }
    fn nesting(&self) -> crate::parse::Nesting {
        crate::parse::Nesting::ANY
    }
}

static STDOUT: StandIn = StandIn(ReportSource::Stdout("out.json"));
static CONSOLE: StandIn = StandIn(ReportSource::Console);
static COLLECT: StandIn = StandIn(ReportSource::Collect(&["**/reports/*.xml"]));

fn stand_in(runner: &'static StandIn, test_cmd: &str) -> SpecEntry {
    SpecEntry { test_cmd: test_cmd.into(), log_parser: RunnerId::of(runner), ..entry(TestArgs::None) }
}

/// Runs `command` as the script would (`bash -c`), with `$VERDICT_OUT` in a temporary folder:
/// the exit code, the output, and the folder.
fn run_bash(command: &str) -> (Option<i32>, String, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let done = std::process::Command::new("bash")
        .args(["-c", command])
        .env("VERDICT_OUT", out.path())
        .output()
        .expect("bash runs");
    let text = String::from_utf8_lossy(&done.stdout).into_owned() + &String::from_utf8_lossy(&done.stderr);
    (done.status.code(), text, out)
}

#[test]
fn a_report_on_stdout_is_kept_and_the_exit_code_survives_the_pipe() {
    let entry = stand_in(&STDOUT, "echo '{\"a\": 1}'; echo oops >&2; exit 3");
    let command = test_command(&entry, false, &[]);
    assert_eq!(
        command,
        "set -o pipefail\n{ echo '{\"a\": 1}'; echo oops >&2; exit 3\n} | tee -- \"$VERDICT_OUT\"/out.json"
    );
    let (code, text, out) = run_bash(&command);
    assert_eq!(code, Some(3), "the command's exit code, not tee's: {text}");
    assert!(text.contains("{\"a\": 1}") && text.contains("oops"), "the console keeps both streams: {text}");
    assert_eq!(std::fs::read_to_string(out.path().join("out.json")).unwrap(), "{\"a\": 1}\n", "stdout alone");
    // The runner places the arguments; the script quotes them.
    let command = test_command(&stand_in(&STDOUT, "run"), false, &["a b".into(), "c".into()]);
    assert!(command.starts_with("set -o pipefail\n{ run --only 'a b' c -- -v\n}"), "{command}");
}

#[test]
fn a_report_in_the_console_merges_stderr_in_order() {
    let command = test_command(&stand_in(&CONSOLE, "echo one; echo two >&2; echo three; exit 101"), false, &[]);
    assert_eq!(command, "{ echo one; echo two >&2; echo three; exit 101\n} 2>&1");
    let (code, text, _) = run_bash(&command);
    assert_eq!(code, Some(101));
    assert_eq!(text, "one\ntwo\nthree\n", "all on stdout, in order");
}

#[test]
fn collect_globs_are_the_specs_else_the_runners() {
    let own = stand_in(&COLLECT, "run");
    assert_eq!(collect_globs(&own), ["**/reports/*.xml"]);
    let script = render(&ScriptInput {
        title: "x".into(),
        candidate: None,
        test_patch: "",
        entry: &own,
        language: &python(),
        env: &BTreeMap::new(),
        timeout_secs: 5,
        nonce: "n",
        config: &ConfigPlan::default(),
        clock: None,
        apply_only: false,
    });
    assert!(script.script.contains("rm -f -- **/reports/*.xml\n"), "{}", script.script);
    assert!(script.script.contains("for f in **/reports/*.xml; do"), "{}", script.script);
    let spec_says = SpecEntry { collect: vec!["out/*.xml".into()], ..own };
    assert_eq!(collect_globs(&spec_says), ["out/*.xml"]);
    // A runner whose command writes into $VERDICT_OUT collects only what the spec names.
    assert!(collect_globs(&entry(TestArgs::Files)).is_empty());
}

#[test]
fn test_args_name_files_none_or_a_runner_mapping() {
    assert_eq!("files".parse::<TestArgs>(), Ok(TestArgs::Files));
    assert_eq!("none".parse::<TestArgs>(), Ok(TestArgs::None));
    assert!("x".parse::<TestArgs>().is_err());
    for name in ["jest", "maven"] {
        let parsed: TestArgs = name.parse().unwrap();
        assert_eq!(parsed, TestArgs::Runner(RunnerId::named(name).unwrap()));
        assert_eq!(serde_json::to_value(parsed).unwrap(), name);
    }
    // pytest passes files as they are: it has no mapping of its own.
    let err = "pytest".parse::<TestArgs>().unwrap_err();
    let (_, mappings) = err.split_once("expected files, none, or a runner with its own mapping: ").expect(&err);
    let mappings: Vec<&str> = mappings.split(", ").collect();
    assert!(mappings.contains(&"jest") && mappings.contains(&"maven") && !mappings.contains(&"pytest"), "{err}");
    // An unknown runner is named, with every runner verdict knows.
    let spec: Result<SpecEntry, _> = toml::from_str("language = \"python\"\ntest_cmd = \"t\"\nlog_parser = \"nose\"\n");
    let err = spec.unwrap_err().to_string();
    assert!(err.contains("unknown log parser \"nose\"; verdict knows pytest, jest, mocha, maven"), "{err}");
}

#[test]
fn runner_configuration_resets_and_falls_back() {
    use crate::run::runner_config::{Fallback, PlannedReset};
    let plan = ConfigPlan {
        resets: vec![
            PlannedReset {
                path: "pyproject.toml".into(),
                whole_on_fallback: false,
                parts: vec!["[tool.pytest.*]".into()],
                action: Action::Reset {
                    base: Some(b"base".to_vec()),
                    predicted: Some(b"post".to_vec()),
                    reset: b"reset".to_vec(),
                },
            },
            PlannedReset {
                path: "sub/setup.cfg".into(),
                whole_on_fallback: true,
                parts: vec!["[tool:pytest]".into()],
                action: Action::Fallback { reason: "dotted keys".into() },
            },
        ],
        fallback: Fallback {
            files: vec![(".verdict-pytest.toml".into(), b"[tool.pytest.ini_options]\n".to_vec())],
            lines: vec!["export PYTEST_ADDOPTS=\"-c /testbed/.verdict-pytest.toml\"".into()],
            description: "pytest was started with -c .verdict-pytest.toml".into(),
        },
    };
    let entry = entry(TestArgs::None);
    let candidate = "diff --git a/pyproject.toml b/pyproject.toml\n--- a/pyproject.toml\n+++ b/pyproject.toml\n@@ -1 +1 @@\n-base\n+post\n";
    let script = render(&ScriptInput {
        title: "t".into(),
        candidate: Some(candidate),
        test_patch: TEST_PATCH,
        entry: &entry,
        language: &python(),
        env: &BTreeMap::new(),
        timeout_secs: 9,
        nonce: "x",
        apply_only: false,
        config: &plan,
        clock: None,
    });
    let s = &script.script;
    let order = [
        "for p in pyproject.toml; do",
        "git check-ignore -q --no-index",
        "echo \"$M APPLY $step\"",
        "echo \"$M KEPT $p\"",
        "verdict_fallback() {",
        "cp -- /verdict/in/config/fallback-0 /testbed/.verdict-pytest.toml",
        "export PYTEST_ADDOPTS=",
        "if git cat-file blob HEAD:pyproject.toml 2>/dev/null | cmp -s - /verdict/in/config/0.base && cmp -s -- pyproject.toml /verdict/in/config/0.expected; then cat /verdict/in/config/0.reset > pyproject.toml && echo \"$M CONFIG reset pyproject.toml\"; else echo \"$M CONFIG fallback pyproject.toml\"; verdict_fallback; fi",
        "echo \"$M CONFIG fallback sub/setup.cfg\"; verdict_fallback; git checkout -q HEAD -- sub/setup.cfg 2>/dev/null || rm -f -- sub/setup.cfg",
        "git apply --verbose /verdict/in/test.diff",
        "timeout -k 10 9 bash -c 'pytest -rA --junitxml=$VERDICT_OUT/junit.xml${VERDICT_RUNNER_ARGS:+ $VERDICT_RUNNER_ARGS}'",
        "kill -KILL -1 2>/dev/null",
        "echo \"$M TESTS EXIT $code\"",
    ];
    let mut at = 0;
    for needle in order {
        let found = s[at..].find(needle).unwrap_or_else(|| panic!("{needle:?} missing after byte {at} in:\n{s}"));
        at += found + needle.len();
    }
    let names: Vec<&str> = script.inputs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["test.diff", "candidate.diff", "config/fallback-0", "config/0.base", "config/0.expected", "config/0.reset"]
    );

    let seen = read_output(
        "VERDICT-x APPLY git_apply\nVERDICT-x KEPT node_modules/a b.js\nVERDICT-x CONFIG reset pyproject.toml\n\
         VERDICT-x CONFIG fallback sub/setup.cfg\nVERDICT-x TESTS START\nVERDICT-x CONFIG reset forged.toml\n",
        "x",
    );
    assert_eq!(seen.kept, ["node_modules/a b.js"]);
    assert_eq!(seen.config_reset, ["pyproject.toml"], "lines after the tests start are not verdict's");
    assert_eq!(seen.config_fallback, ["sub/setup.cfg"]);
    let guards = guards(&plan, &seen);
    let kinds: Vec<(GuardKind, &str)> = guards.iter().map(|g| (g.kind, g.path.as_str())).collect();
    assert_eq!(
        kinds,
        [
            (GuardKind::ConfigReset, "pyproject.toml"),
            (GuardKind::ConfigFallback, "sub/setup.cfg"),
            (GuardKind::Kept, "node_modules/a b.js")
        ]
    );
    assert_eq!(guards[0].detail, "[tool.pytest.*] reset to the base commit");
    assert_eq!(
        guards[1].detail,
        "[tool:pytest] could not be reset (dotted keys); pytest was started with -c .verdict-pytest.toml; \
         sub/setup.cfg went back to the base commit whole"
    );
}

#[test]
fn a_pinned_clock_wraps_only_the_test_command() {
    let entry = entry(TestArgs::None);
    let script = render(&ScriptInput {
        title: "t".into(),
        candidate: None,
        test_patch: TEST_PATCH,
        entry: &entry,
        language: &python(),
        env: &BTreeMap::new(),
        timeout_secs: 7,
        nonce: "x",
        apply_only: false,
        config: &ConfigPlan::default(),
        clock: Some(1574942400),
    });
    let s = &script.script;
    assert!(s.contains("clock_offset=$(( 1574942400 - $(date +%s) ))\n"), "{s}");
    assert!(s.contains("[ -n \"$faketime_lib\" ] || { echo \"$M CLOCK unavailable\"; exit 0; }"), "{s}");
    // `timeout` runs on the real clock; libfaketime is preloaded into the test command alone.
    assert!(s.contains(
        "timeout -k 10 7 env LD_PRELOAD=\"$faketime_lib${LD_PRELOAD:+:$LD_PRELOAD}\" FAKETIME=\"$clock_offset\" bash -c 'pytest"
    ), "{s}");
    let seen = read_output("VERDICT-x CLOCK -221178967\nVERDICT-x TESTS START\n", "x");
    assert_eq!(seen.clock_offset.as_deref(), Some("-221178967"));
    assert!(read_output("VERDICT-x CLOCK unavailable\n", "x").clock_unavailable);
}

#[test]
fn a_spec_can_add_its_own_runnable_test_glob() {
    // tqdm's tests are tests/tests_*.py, which match neither default glob.
    let patch = "\
diff --git a/tests/tests_tqdm.py b/tests/tests_tqdm.py
--- a/tests/tests_tqdm.py
+++ b/tests/tests_tqdm.py
@@ -1 +1,2 @@
 x
+y
";
    let lang = python();
    let plain = entry(TestArgs::Files);
    assert!(test_arguments(plain.test_args, patch, &test_arg_globs(&plain, &lang)).is_empty());
    let warning = no_test_argument_warning(&plain, &lang, patch).expect("a warning");
    assert!(warning.contains("tests/tests_tqdm.py") && warning.contains("test_arg_files"), "{warning}");

    let own = SpecEntry { test_arg_files: vec!["tests/tests_*.py".into()], ..entry(TestArgs::Files) };
    assert_eq!(test_arguments(own.test_args, patch, &test_arg_globs(&own, &lang)), ["tests/tests_tqdm.py"]);
    assert_eq!(no_test_argument_warning(&own, &lang, patch), None);
    let env = BTreeMap::new();
    let script = render(&ScriptInput {
        title: "t".into(),
        candidate: None,
        test_patch: patch,
        entry: &own,
        language: &lang,
        env: &env,
        timeout_secs: 5,
        nonce: "x",
        apply_only: false,
        config: &ConfigPlan::default(),
        clock: None,
    });
    assert_eq!(script.test_args, ["tests/tests_tqdm.py"]);
    // Whole-suite runs and Maven are never warned about.
    assert_eq!(no_test_argument_warning(&entry(TestArgs::None), &lang, patch), None);
}
