//! Bad input that only a real run can judge: garbage and binary patches, an image build that
//! fails, and a run resumed after it was cut short. Each is a recorded outcome, not a crash.

use crate::util::*;

fn demo_instance(id: &str) -> serde_json::Value {
    std::fs::read_to_string(repo_root().join("harness/demo/dataset.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["instance_id"] == id)
        .unwrap()
}

#[test]
fn garbage_binary_and_broken_builds_are_outcomes() {
    let _lock = docker_lock();
    let logs = logs_dir("docker-input");
    let good = demo_instance("verdict-demo__pycalc-1");
    let mut broken = good.clone();
    broken["instance_id"] = "verdict-demo__pycalc-broken".into();
    // An inline spec whose install step fails: the image cannot build.
    broken["harness"] = serde_json::json!({
        "language": "python",
        "install": ["echo installing && exit 7"],
        "test_cmd": "pytest -rA",
        "log_parser": "pytest"
    });
    let dataset = logs.join("d.jsonl");
    write(&dataset, &format!("{good}\n{broken}\n"));
    let preds = logs.join("p.jsonl");
    let pred = |id: &str, model: &str, patch: &str| {
        serde_json::json!({"instance_id": id, "model_name_or_path": model, "model_patch": patch}).to_string()
    };
    let binary = "diff --git a/logo.png b/logo.png\nnew file mode 100644\nindex 0000000..1111111\nGIT binary patch\nliteral 5\nMcmZ?wbaG$y0\n\nliteral 0\nHcmV?d00001\n\n";
    write(
        &preds,
        &[
            pred("verdict-demo__pycalc-1", "garbage", "this is not a patch \u{1} at all\n+++ nonsense\n"),
            pred("verdict-demo__pycalc-1", "binary", binary),
            pred("verdict-demo__pycalc-broken", "garbage", good["patch"].as_str().unwrap()),
        ]
        .join("\n"),
    );
    let out = evaluate_on_demo_repos(&dataset, preds.to_str().unwrap(), &logs, "bad", &[]);
    // Some instances could not build: the run says so with its exit code, and still reports.
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let report = |model: &str, id: &str| read_json(&logs.join("bad").join(model).join(id).join("report.json"));
    assert_eq!(report("garbage", "verdict-demo__pycalc-1")["outcome"], "patch_apply_failed");
    let bin = report("binary", "verdict-demo__pycalc-1");
    assert!(bin["outcome"] == "patch_apply_failed" || bin["outcome"] == "unresolved", "{bin:#}");
    let failed = report("garbage", "verdict-demo__pycalc-broken");
    assert_eq!(failed["outcome"], "build_failed", "{failed:#}");
    let log = failed["logs"]["build_log"].as_str().expect("the build log's path");
    let log_text = std::fs::read_to_string(log).unwrap();
    assert!(log_text.contains("installing"), "{log_text}");
    assert!(failed["reason"].as_str().unwrap().contains(log), "{failed:#}");
    assert_no_containers_left(&logs, &["bad"]);
}

#[test]
fn an_interrupted_run_resumes() {
    let _lock = docker_lock();
    let logs = logs_dir("resume");
    let logs_arg = logs.to_str().unwrap();
    let ids = "verdict-demo__textkit-1,verdict-demo__textkit-3";
    // The first run stops after some instances (as a Ctrl-C would leave it)…
    let first =
        verdict(&["evaluate", "--logs", logs_arg, "--run-id", "r", "--instance-ids", "verdict-demo__textkit-1"]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    let report = logs.join("r/demo-model/verdict-demo__textkit-1/report.json");
    let stamp = std::fs::metadata(&report).unwrap().modified().unwrap();
    // …and the rerun keeps what was finished and does the rest.
    let second = verdict(&["evaluate", "--logs", logs_arg, "--run-id", "r", "--instance-ids", ids]);
    assert_eq!(second.status.code(), Some(0), "{}", text(&second));
    assert_eq!(std::fs::metadata(&report).unwrap().modified().unwrap(), stamp);
    assert_eq!(read_json(&logs.join("r/demo-model/verdict-demo__textkit-3/report.json"))["outcome"], "empty_patch");
}

#[test]
fn ctrl_c_removes_containers_and_the_rerun_finishes() {
    let _lock = docker_lock();
    let logs = logs_dir("ctrl-c");
    let logs_arg = logs.to_str().unwrap();
    // pycalc-3's candidate hangs until its 30 s timeout: plenty of time to interrupt it.
    let args = ["evaluate", "--logs", logs_arg, "--run-id", "i", "--instance-ids", "verdict-demo__pycalc-3"];
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(args)
        .current_dir(repo_root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while containers_of(&logs, "i").is_empty() {
        assert!(started.elapsed().as_secs() < 120, "no evaluation container appeared");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    // SAFETY: sending SIGINT to the child we spawned.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));
    assert!(text(&out).contains("rerun the same --run-id"), "{}", text(&out));
    assert_no_containers_left(&logs, &["i"]);
    assert!(
        !logs.join("i/demo-model/verdict-demo__pycalc-3/report.json").exists(),
        "an interrupted instance has no report"
    );

    let again = verdict(&[&args[..], &["--timeout", "5"]].concat());
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert_eq!(read_json(&logs.join("i/demo-model/verdict-demo__pycalc-3/report.json"))["outcome"], "timeout");
    assert_no_containers_left(&logs, &["i"]);
}
