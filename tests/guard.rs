//! Docker-backed checks of what keeps a candidate away from the runner and of the pinned clock,
//! on instances made here over the demo's repositories (their images are the demo's).

use crate::util::*;

/// The demo's instances, by id.
fn demo_instance(id: &str) -> serde_json::Value {
    std::fs::read_to_string(repo_root().join("harness/demo/dataset.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["instance_id"] == id)
        .unwrap_or_else(|| panic!("{id} is not a demo instance"))
}

fn demo_prediction(id: &str) -> serde_json::Value {
    std::fs::read_to_string(repo_root().join("harness/demo/predictions.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["instance_id"] == id)
        .unwrap_or_else(|| panic!("{id} has no demo prediction"))
}

/// A patch that creates `path` with `lines`.
fn new_file(path: &str, lines: &[&str]) -> String {
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

fn jsonl(values: &[serde_json::Value]) -> String {
    values.iter().map(|v| format!("{v}\n")).collect()
}

fn report(logs: &std::path::Path, run: &str, model: &str, id: &str) -> serde_json::Value {
    read_json(&logs.join(run).join(model).join(id).join("report.json"))
}

/// guardpy-2's plugin, enabled through dotted keys under `[tool]` instead of the runner's own
/// table: the table cannot be reset without touching the rest, so pytest is started with the
/// base commit's configuration (`-c`), the plugin never loads, and the candidate is flagged.
#[test]
fn a_runner_configuration_that_cannot_be_reset_falls_back() {
    let _lock = docker_lock();
    let logs = logs_dir("guard-fallback");
    let id = "verdict-demo__guardpy-2";
    let instance = demo_instance(id);
    let mut prediction = demo_prediction(id);
    let patch = prediction["model_patch"].as_str().unwrap();
    let old = "-addopts = \"-ra\"\n+addopts = \"-ra -p guardpy.testing\"\n testpaths = [\"tests\"]\n";
    assert!(patch.contains(old), "{patch}");
    // Drop the runner's table and set the same through `[tool]` with dotted keys.
    let dotted = patch
        .replace("@@ -12,5 +12,5 @@", "@@ -12,5 +12,6 @@")
        .replace(
            " [tool.pytest.ini_options]\n-addopts = \"-ra\"\n+addopts = \"-ra -p guardpy.testing\"\n testpaths = [\"tests\"]\n",
            "-[tool.pytest.ini_options]\n-addopts = \"-ra\"\n-testpaths = [\"tests\"]\n+[tool]\n+pytest.ini_options.addopts = \"-ra -p guardpy.testing\"\n+pytest.ini_options.testpaths = [\"tests\"]\n+pytest.ini_options.python_files = [\"test_*.py\"]\n",
        );
    assert_ne!(dotted, patch, "the test rewrites the prediction's pyproject.toml hunk");
    prediction["model_patch"] = dotted.into();
    let dataset = logs.join("fallback.jsonl");
    let predictions = logs.join("fallback-predictions.jsonl");
    write(&dataset, &jsonl(&[instance]));
    write(&predictions, &jsonl(&[prediction]));
    let out = evaluate_on_demo_repos(&dataset, predictions.to_str().unwrap(), &logs, "guard-fallback", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let r = report(&logs, "guard-fallback", "demo-model", id);
    assert_eq!(r["outcome"], "unresolved", "{r:#}");
    let names: Vec<&str> = r["suspicious"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"runner_config_not_reset"), "{r:#}");
    let flags = r["flags"].to_string();
    assert!(flags.contains("pytest was started with -c .verdict-pytest.toml"), "{flags}");
    let script = std::fs::read_to_string(logs.join("guard-fallback/demo-model").join(id).join("eval.sh")).unwrap();
    assert!(script.contains("CONFIG fallback pyproject.toml"), "{script}");
    // The plugin did not run: the two FAIL_TO_PASS tests failed, the others passed.
    assert_eq!(r["tests"]["tests/test_ranges.py::test_reversed_range_raises"], "FAILED", "{r:#}");
    assert_eq!(r["tests"]["tests/test_ranges.py::test_generated_cases"], "PASSED", "{r:#}");
    assert_no_containers_left(&logs, &["guard-fallback"]);
}

/// An instance over a demo repository whose test patch only adds `test_file`, graded on `test_id`.
fn clock_instance(base: &str, id: &str, test_file: &str, lines: &[&str], test_id: &str) -> serde_json::Value {
    let mut instance = demo_instance(base);
    instance["instance_id"] = id.into();
    instance["test_patch"] = new_file(test_file, lines).into();
    instance["FAIL_TO_PASS"] = serde_json::json!([test_id]);
    instance["PASS_TO_PASS"] = serde_json::json!([]);
    instance
}

/// `--clock 2019-11-28` reaches the tests in Python, Node.js and the JVM (surefire's forked
/// JVM included) and is recorded in the report; `--clock real` does not pin it; and `timeout`
/// still ends a hanging test on time under a pinned clock.
#[test]
fn a_pinned_clock_reaches_python_node_and_java() {
    let _lock = docker_lock();
    let logs = logs_dir("guard-clock");
    let instances = [
        clock_instance(
            "verdict-demo__guardpy-4",
            "verdict-demo__guardpy-90",
            "tests/test_clock.py",
            &[
                "import datetime",
                "import time",
                "",
                "",
                "def test_pinned_clock():",
                "    assert datetime.datetime.now(datetime.timezone.utc).date() == datetime.date(2019, 11, 28)",
                "    assert abs(time.time() - 1574942400) < 3600",
            ],
            "tests/test_clock.py::test_pinned_clock",
        ),
        clock_instance(
            "verdict-demo__jestcalc-1",
            "verdict-demo__jestcalc-90",
            "test/clock.test.js",
            &[
                "test('pinned clock', () => {",
                "  const now = new Date();",
                "  expect([now.getUTCFullYear(), now.getUTCMonth() + 1, now.getUTCDate()]).toEqual([2019, 11, 28]);",
                "});",
            ],
            "test/clock.test.js > pinned clock",
        ),
        clock_instance(
            "verdict-demo__junit4text-1",
            "verdict-demo__junit4text-90",
            "src/test/java/com/example/text/ClockTest.java",
            &[
                "package com.example.text;",
                "",
                "import static org.junit.Assert.assertEquals;",
                "",
                "import java.time.LocalDate;",
                "import java.time.ZoneOffset;",
                "import org.junit.Test;",
                "",
                "public class ClockTest {",
                "    @Test",
                "    public void pinnedClock() {",
                "        assertEquals(LocalDate.of(2019, 11, 28), LocalDate.now(ZoneOffset.UTC));",
                "    }",
                "}",
            ],
            "com.example.text.ClockTest.pinnedClock",
        ),
    ];
    let dataset = logs.join("clock.jsonl");
    write(&dataset, &jsonl(&instances));
    let run = |clock: &str, run_id: &str| {
        let out = evaluate_on_demo_repos(&dataset, "gold", &logs, run_id, &["--clock", clock, "-j", "2"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    };
    run("2019-11-28", "pinned");
    run("real", "real");
    for instance in &instances {
        let id = instance["instance_id"].as_str().unwrap();
        let pinned = report(&logs, "pinned", "gold", id);
        assert_eq!(pinned["outcome"], "resolved_full", "{id} under a pinned clock: {pinned:#}");
        assert_eq!(pinned["clock"], serde_json::json!({ "source": "given", "at": "2019-11-28T12:00:00Z" }), "{id}");
        let real = report(&logs, "real", "gold", id);
        assert_eq!(real["outcome"], "unresolved", "{id} under the real clock: {real:#}");
        assert_eq!(real["clock"], serde_json::json!({ "source": "real" }), "{id}");
    }

    // created_at pins each instance to its own date; a hanging test still times out on time.
    let mut hanging = clock_instance(
        "verdict-demo__guardpy-4",
        "verdict-demo__guardpy-91",
        "tests/test_hang.py",
        &["import time", "", "", "def test_hangs():", "    time.sleep(600)"],
        "tests/test_hang.py::test_hangs",
    );
    hanging["created_at"] = "2019-11-28T09:30:00Z".into();
    let dataset = logs.join("hang.jsonl");
    write(&dataset, &jsonl(&[hanging]));
    let started = std::time::Instant::now();
    let out = evaluate_on_demo_repos(&dataset, "gold", &logs, "hang", &["--clock", "created_at", "--timeout", "5"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let r = report(&logs, "hang", "gold", "verdict-demo__guardpy-91");
    assert_eq!(r["outcome"], "timeout", "{r:#}");
    assert_eq!(r["clock"], serde_json::json!({ "source": "created_at", "at": "2019-11-28T09:30:00Z" }));
    assert!(started.elapsed().as_secs() < 90, "the timeout ran on the real clock: {:?}", started.elapsed());

    // An instance without a usable created_at is bad input, before anything runs.
    let mut undated = instances[0].clone();
    undated.as_object_mut().unwrap().remove("created_at");
    let dataset = logs.join("undated.jsonl");
    write(&dataset, &jsonl(&[undated]));
    let out = verdict(&[
        "evaluate",
        "--dataset",
        dataset.to_str().unwrap(),
        "--predictions",
        "gold",
        "--repos",
        "harness/demo/repos",
        "--logs",
        logs.to_str().unwrap(),
        "--clock",
        "created_at",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("verdict-demo__guardpy-90 has no created_at"), "{}", text(&out));
    assert_no_containers_left(&logs, &["pinned", "real", "hang"]);
}
