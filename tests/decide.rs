//! The decide stage's rules on real container runs: a candidate that ends the test process at
//! import is `unresolved` (completed, not retried), and a validation whose runs collect no test
//! is `no_tests_ran`. Both reuse the demo's pycalc images.

use crate::util::*;

fn pycalc_1() -> serde_json::Value {
    std::fs::read_to_string(repo_root().join("harness/demo/dataset.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["instance_id"] == "verdict-demo__pycalc-1")
        .unwrap()
}

/// The gold fix, plus `os._exit(0)` when the package is imported: pytest prints its header,
/// collects, and the process ends with exit 0 before any test reports.
const EXIT_AT_IMPORT: &str = "diff --git a/pycalc/__init__.py b/pycalc/__init__.py
--- a/pycalc/__init__.py
+++ b/pycalc/__init__.py
@@ -1,3 +1,6 @@
 \"\"\"pycalc: a tiny arithmetic expression evaluator with a few statistics helpers.\"\"\"
 
+import os
+os._exit(0)
+
 from .errors import CalcError
";

#[test]
fn a_candidate_that_ends_the_tests_at_import_is_unresolved() {
    let _lock = docker_lock();
    let logs = logs_dir("decide-exit-at-import");
    let instance = pycalc_1();
    let dataset = logs.join("d.jsonl");
    write(&dataset, &format!("{instance}\n"));
    let patch = format!("{}{EXIT_AT_IMPORT}", instance["patch"].as_str().unwrap());
    let preds = logs.join("p.jsonl");
    let pred = serde_json::json!({"instance_id": instance["instance_id"], "model_name_or_path": "exits", "model_patch": patch});
    write(&preds, &format!("{pred}\n"));
    let run = || evaluate_on_demo_repos(&dataset, preds.to_str().unwrap(), &logs, "x", &[]);
    let out = run();
    // A completed run: the candidate broke the tests, verdict's steps worked.
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let path = logs.join("x/exits/verdict-demo__pycalc-1/report.json");
    let report = read_json(&path);
    assert_eq!(report["outcome"], "unresolved", "{report:#}");
    assert_eq!(report["exit_code"], 0, "{report:#}");
    let reason = report["reason"].as_str().unwrap();
    assert!(reason.starts_with("the tests ran (exit code 0) but reported no test result"), "{reason}");
    assert_eq!(report["run"]["execution"]["script"]["finished"], true, "{report:#}");
    let summary = read_json(&logs.join("x/exits/summary.json"));
    assert_eq!(summary["completed_instances"], 1, "{summary:#}");

    // Not retried: a rerun reuses the report.
    let stamp = std::fs::metadata(&path).unwrap().modified().unwrap();
    let again = run();
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), stamp);
    assert_no_containers_left(&logs, &["x"]);
}

#[test]
fn a_validation_that_collects_no_test_is_no_tests_ran() {
    let _lock = docker_lock();
    let logs = logs_dir("decide-no-tests");
    let mut instance = pycalc_1();
    instance["FAIL_TO_PASS"] = serde_json::json!([]);
    instance["PASS_TO_PASS"] = serde_json::json!([]);
    // The spec's own fields (so the images are the demo's), with a test command that deselects
    // every test, as a wrong `-k` or marker expression would.
    instance["harness"] = serde_json::json!({
        "language": "python",
        "env_setup": ["pip install pytest==8.3.4 setuptools==75.8.0"],
        "install": ["pip install --no-build-isolation -e ."],
        "test_cmd": "pytest -rA -p no:cacheprovider -o junit_family=xunit1 --junitxml=$VERDICT_OUT/junit.xml -k no_test_has_this_name",
        "test_args": "files",
        "log_parser": "pytest",
        "timeout": 30
    });
    let dataset = logs.join("d.jsonl");
    write(&dataset, &format!("{instance}\n"));
    let out = verdict(&[
        "validate",
        "--dataset",
        dataset.to_str().unwrap(),
        "--repos",
        "harness/demo/repos",
        "--no-clone",
        "--logs",
        logs.to_str().unwrap(),
        "--repeat",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let report = read_json(&logs.join("d/validation/verdict-demo__pycalc-1/validation.json"));
    assert_eq!(report["status"], "no_tests_ran", "{report:#}");
    let reason = report["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("no test ran, before or with the gold patch: the test command (exit code 5)"),
        "{reason}"
    );
    assert!(reason.contains("tests/test_median.py"), "the reason names the test arguments: {reason}");
    assert_no_containers_left(&logs, &["d"]);
}
