//! `verdict evaluate` on the bundled demo: every instance's outcome, from real container runs.

use crate::util::*;

/// What every demo instance must produce: (instance id, outcome, apply step, flagged, the
/// level FAIL_TO_PASS is graded at). The apply step is checked where it says something
/// (`patch_fuzz` must not pass for strict application).
pub const EXPECTED: &[(&str, &str, Option<&str>, bool, &str)] = &[
    // Python / pytest
    ("verdict-demo__pycalc-1", "resolved_full", Some("git_apply"), false, "test"),
    ("verdict-demo__pycalc-2", "resolved_partial", Some("git_apply"), false, "test"),
    ("verdict-demo__pycalc-3", "timeout", Some("git_apply"), false, ""),
    ("verdict-demo__pycalc-4", "resolved_full", Some("patch_fuzz"), false, "test"),
    ("verdict-demo__textkit-1", "unresolved", Some("git_apply"), false, "test"),
    ("verdict-demo__textkit-2", "patch_apply_failed", None, false, ""),
    ("verdict-demo__textkit-3", "empty_patch", None, false, ""),
    ("verdict-demo__textkit-4", "unresolved", Some("git_apply"), true, "test"),
    // JavaScript / jest
    ("verdict-demo__jestcalc-1", "resolved_full", Some("git_apply"), false, "test"),
    ("verdict-demo__jestcalc-2", "unresolved", Some("git_apply"), false, "test"),
    ("verdict-demo__jestcalc-3", "patch_apply_failed", None, false, ""),
    ("verdict-demo__jestcalc-4", "unresolved", Some("git_apply"), false, "test"),
    ("verdict-demo__jestcalc-5", "resolved_full", Some("git_apply"), false, "file"),
    // JavaScript / mocha
    ("verdict-demo__mochatext-1", "resolved_full", Some("git_apply"), false, "test"),
    ("verdict-demo__mochatext-2", "unresolved", Some("git_apply"), false, "test"),
    ("verdict-demo__mochatext-3", "patch_apply_failed", None, false, ""),
    ("verdict-demo__mochatext-4", "unresolved", Some("git_apply"), false, "test"),
    // TypeScript / jest (ts-jest)
    ("verdict-demo__tscart-1", "resolved_full", Some("git_apply"), false, "test"),
    ("verdict-demo__tscart-2", "unresolved", Some("git_apply"), false, "test"),
    ("verdict-demo__tscart-3", "patch_apply_failed", None, false, ""),
    ("verdict-demo__tscart-4", "unresolved", Some("git_apply"), false, "test"),
    ("verdict-demo__tscart-5", "unresolved", Some("git_apply"), false, "test"),
    // Java / Maven, JUnit 4
    ("verdict-demo__junit4text-1", "resolved_full", Some("git_apply"), false, "test"),
    ("verdict-demo__junit4text-2", "unresolved", Some("git_apply"), false, "test"),
    ("verdict-demo__junit4text-3", "patch_apply_failed", None, false, ""),
    ("verdict-demo__junit4text-4", "unresolved", Some("git_apply"), false, "test"),
    // Java / Maven, JUnit 5 (nested classes, parameterized tests, display names)
    ("verdict-demo__junit5geo-1", "resolved_full", Some("git_apply"), false, "test"),
    ("verdict-demo__junit5geo-2", "unresolved", Some("git_apply"), false, "test"),
    ("verdict-demo__junit5geo-3", "patch_apply_failed", None, false, ""),
    ("verdict-demo__junit5geo-4", "unresolved", Some("git_apply"), false, "test"),
    ("verdict-demo__junit5geo-5", "resolved_full", Some("git_apply"), false, "class"),
    // Go / go test -json (subtests, a package that does not build)
    ("verdict-demo__gocalc-1", "resolved_full", Some("git_apply"), false, "test"),
    ("verdict-demo__gocalc-2", "unresolved", Some("git_apply"), false, "test"),
    ("verdict-demo__gocalc-3", "patch_apply_failed", None, false, ""),
    ("verdict-demo__gocalc-4", "unresolved", Some("git_apply"), false, "test"),
    // Rust / cargo test (libtest's console, a test in a module, a crate that does not compile)
    ("verdict-demo__rustcalc-1", "resolved_full", Some("git_apply"), false, "test"),
    ("verdict-demo__rustcalc-2", "unresolved", Some("git_apply"), false, "test"),
    ("verdict-demo__rustcalc-3", "patch_apply_failed", None, false, ""),
    ("verdict-demo__rustcalc-4", "unresolved", Some("git_apply"), false, "test"),
    // Candidates that try to fool the grader (pytest, jest); see harness/demo/README.md
    ("verdict-demo__guardpy-1", "unresolved", Some("git_apply"), false, "test"),
    ("verdict-demo__guardpy-2", "unresolved", Some("git_apply"), true, "test"),
    ("verdict-demo__guardpy-3", "resolved_flagged", Some("git_apply"), true, "test"),
    ("verdict-demo__guardpy-4", "resolved_full", Some("git_apply"), false, "test"),
    ("verdict-demo__guardjs-1", "unresolved", Some("git_apply"), true, "test"),
    ("verdict-demo__guardjs-2", "resolved_flagged", Some("git_apply"), true, "test"),
];

/// The table above, the fixtures' own `expected` notes and the generated dataset agree: every
/// demo instance is in the table once. Needs no Docker.
#[test]
fn the_table_covers_every_demo_instance() {
    let dataset = std::fs::read_to_string(repo_root().join("harness/demo/dataset.jsonl")).unwrap();
    let ids: Vec<String> = dataset
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["instance_id"].as_str().unwrap().to_string())
        .collect();
    let table: Vec<&str> = EXPECTED.iter().map(|e| e.0).collect();
    assert_eq!(ids.len(), table.len(), "dataset {ids:?} vs table {table:?}");
    for id in &ids {
        let (_, outcome, ..) =
            EXPECTED.iter().find(|e| e.0 == id).unwrap_or_else(|| panic!("{id} is not in the table"));
        let repo = id.rsplit_once('-').unwrap().0;
        let path = repo_root().join("harness/demo/src").join(repo).join("instances").join(id).join("instance.toml");
        let meta: toml::Value = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(meta["expected"].as_str(), Some(*outcome), "{}", path.display());
    }
}

#[test]
fn demo_outcomes_from_real_containers() {
    let _lock = docker_lock();
    let logs = logs_dir("demo");
    let logs_arg = logs.to_str().unwrap();
    let out = verdict(&["evaluate", "--logs", logs_arg, "--run-id", "demo-test", "-j", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let printed = text(&out);

    let model_dir = logs.join("demo-test").join("demo-model");
    let mut seen = 0;
    for (id, outcome, step, flagged, level) in EXPECTED {
        let dir = model_dir.join(id);
        let report = read_json(&dir.join("report.json"));
        assert_eq!(report["outcome"], *outcome, "{id}: {report:#}");
        if let Some(step) = step {
            assert_eq!(report["apply"]["step"], *step, "{id}");
            assert_eq!(report["apply"]["strict"], *step == "git_apply", "{id}");
            assert_eq!(report["apply"]["lenient"], true, "{id}");
        }
        let flags = report["flags"].as_array().map(|f| f.len()).unwrap_or(0);
        assert_eq!(flags > 0, *flagged, "{id} flags: {}", report["flags"]);
        assert!(dir.join("patch.diff").exists(), "{id}");
        if ["resolved_full", "resolved_flagged", "resolved_partial", "unresolved"].contains(outcome) {
            for file in ["eval.sh", "test_output.txt", "output.txt"] {
                assert!(dir.join(file).exists(), "{id}: {file}");
            }
            assert!(report["grade"]["tests_status"].is_object(), "{id}");
            assert!(report["exit_code"].is_i64(), "{id}");
            assert_eq!(report["grade"]["granularity"]["FAIL_TO_PASS"], *level, "{id}");
            assert!(report["localization"]["scores"].is_object(), "{id}: localization scores in the report");
        }
        assert!(printed.contains(id), "the terminal output names {id}");
        seen += 1;
    }
    assert_eq!(seen, EXPECTED.len());

    // The parsed ids keep pytest's parameters whole (spaces, brackets, ` - `), and xfail and
    // skip are their own statuses.
    let tests = read_json(&model_dir.join("verdict-demo__textkit-1").join("report.json"))["tests"].clone();
    let all: Vec<(String, String)> = tests
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
        .collect();
    assert!(all.iter().any(|(k, _)| k.contains('[') && k.contains(' ')), "{all:?}");

    let summary = read_json(&model_dir.join("summary.json"));
    let count = |o: &str| EXPECTED.iter().filter(|e| e.1 == o).count() as u64;
    assert_eq!(summary["resolved_instances"], count("resolved_full"), "{summary:#}");
    assert_eq!(summary["empty_patch_instances"], count("empty_patch"));
    assert_eq!(summary["total_instances"].as_u64(), Some(EXPECTED.len() as u64));
    assert_eq!(summary["timeout_ids"].as_array().unwrap().len() as u64, count("timeout"));
    for (language, prefix) in [
        ("python", "py"),
        ("javascript", "jest"),
        ("typescript", "ts"),
        ("java", "junit"),
        ("go", "gocalc"),
        ("rust", "rustcalc"),
    ] {
        let n = summary["by_language"][language]["instances"].as_u64().unwrap_or(0);
        assert!(n > 0, "{language} in the summary's breakdown: {:#}", summary["by_language"]);
        assert!(printed.lines().any(|l| l.starts_with(language)), "the table has a {language} row ({prefix})");
    }
    // The run's HTML report, in a real browser: its figures are the summary's.
    crate::reports::check_run_report(&model_dir.join("report.html"), &summary);

    // Localization scores sit next to the resolve rate, in the summary and on the terminal.
    assert!(summary["localization"]["all"]["file"]["n"].as_u64().unwrap_or(0) > 0, "{:#}", summary["localization"]);
    assert!(printed.contains("localization:"), "{printed}");

    // A rerun of the same run id reuses every finished instance: nothing is rewritten.
    let stamp = |id: &str| std::fs::metadata(model_dir.join(id).join("report.json")).unwrap().modified().unwrap();
    let before: Vec<_> = EXPECTED.iter().map(|e| stamp(e.0)).collect();
    let again = verdict(&["evaluate", "--logs", logs_arg, "--run-id", "demo-test"]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    let after: Vec<_> = EXPECTED.iter().map(|e| stamp(e.0)).collect();
    assert_eq!(before, after, "a rerun must reuse finished instances");

    // A second run of an unchanged dataset builds no image.
    let build = verdict(&["build", "--logs", logs_arg]);
    assert_eq!(build.status.code(), Some(0), "{}", text(&build));
    let build_out = String::from_utf8_lossy(&build.stdout).to_string();
    assert_eq!(build_out.lines().filter(|l| l.contains(" reused (")).count(), EXPECTED.len(), "{build_out}");
    assert!(!build_out.contains(" built ("), "{build_out}");

    // Regrading from the saved logs, running nothing, gives the same outcomes.
    let regraded = verdict(&["report", "--logs", logs_arg, "--run-id", "demo-test"]);
    assert_eq!(regraded.status.code(), Some(0), "{}", text(&regraded));
    for (id, outcome, ..) in EXPECTED {
        assert_eq!(read_json(&model_dir.join(id).join("report.json"))["outcome"], *outcome, "{id} after regrading");
    }

    assert_no_containers_left(&logs, &["demo-test"]);
}

#[test]
fn check_envs_finds_no_drift_in_the_demo() {
    let _lock = docker_lock();
    let logs = logs_dir("check-envs");
    let ids = "verdict-demo__pycalc-1,verdict-demo__jestcalc-5,verdict-demo__junit5geo-5,verdict-demo__mochatext-1";
    let out = verdict(&["check-envs", "--logs", logs.to_str().unwrap(), "--instance-ids", ids, "-j", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let reports = read_json(&logs.join("demo").join("check_envs").join("summary.json"));
    let reports = reports.as_array().unwrap();
    assert_eq!(reports.len(), 4);
    for r in reports {
        assert_eq!(r["builds"], true, "{r:#}");
        assert_eq!(r["outcome"], "resolved_full", "{r:#}");
        assert_eq!(r["drift"], serde_json::json!([]), "{r:#}");
    }

    // An expected test that no longer exists is drift.
    let mut drifted: serde_json::Value = std::fs::read_to_string(repo_root().join("harness/demo/dataset.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["instance_id"] == "verdict-demo__pycalc-1")
        .unwrap();
    drifted["PASS_TO_PASS"].as_array_mut().unwrap().push("tests/test_median.py::test_gone".into());
    let dataset = logs.join("drifted.jsonl");
    write(&dataset, &format!("{drifted}\n"));
    let out = verdict(&[
        "check-envs",
        "--dataset",
        dataset.to_str().unwrap(),
        "--repos",
        "harness/demo/repos",
        "--logs",
        logs.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let report = read_json(&logs.join("drifted").join("check_envs").join("summary.json"))[0].clone();
    assert_eq!(report["builds"], true);
    assert_eq!(report["drift"][0]["id"], "tests/test_median.py::test_gone", "{report:#}");
    assert_eq!(report["drift"][0]["now"], "missing", "{report:#}");
    assert_no_containers_left(&logs, &["demo", "drifted"]);
}
