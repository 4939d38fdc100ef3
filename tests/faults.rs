//! Faults an operator meets: stop signals mid-run, containers left by a killed run, reports cut
//! in half, flags that make no sense, a logs folder that cannot be written. Each has its true
//! outcome, and no container of verdict's outlives its run.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::engines::{demo_image_tags, SecondEngine};
use crate::util::*;

/// pycalc-3's candidate hangs until its 30 s timeout: time to send a signal mid-run.
const HANGS: &str = "verdict-demo__pycalc-3";

fn spawn_evaluate(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(args)
        .current_dir(repo_root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until the run has a container on the engine.
fn wait_for_container(logs: &std::path::Path, run_id: &str) {
    let started = Instant::now();
    while containers_of(logs, run_id).is_empty() {
        assert!(started.elapsed() < Duration::from_secs(180), "no evaluation container appeared");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn signal(child: &std::process::Child, signal: i32) {
    // SAFETY: sending a signal to the child this test spawned.
    unsafe {
        libc::kill(child.id() as i32, signal);
    }
}

#[test]
fn sigterm_mid_run_removes_containers_and_the_rerun_finishes() {
    let _lock = docker_lock();
    let logs = logs_dir("sigterm");
    let logs_arg = logs.to_str().unwrap();
    let args = ["evaluate", "--logs", logs_arg, "--run-id", "t", "--instance-ids", HANGS];
    let child = spawn_evaluate(&args);
    wait_for_container(&logs, "t");
    signal(&child, libc::SIGTERM);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143), "{}", text(&out));
    assert!(text(&out).contains("interrupted by SIGTERM"), "{}", text(&out));
    assert!(text(&out).contains("rerun the same --run-id"), "{}", text(&out));
    assert_no_containers_left(&logs, &["t"]);
    let report = logs.join("t/demo-model").join(HANGS).join("report.json");
    assert!(!report.exists(), "an interrupted instance has no report");

    let again = verdict(&[&args[..], &["--timeout", "3"]].concat());
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert_eq!(read_json(&report)["outcome"], "timeout");
    assert_no_containers_left(&logs, &["t"]);
}

#[test]
fn sighup_stops_the_run_like_sigint() {
    let _lock = docker_lock();
    let logs = logs_dir("sighup");
    let child =
        spawn_evaluate(&["evaluate", "--logs", logs.to_str().unwrap(), "--run-id", "h", "--instance-ids", HANGS]);
    wait_for_container(&logs, "h");
    signal(&child, libc::SIGHUP);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(129), "{}", text(&out));
    assert_no_containers_left(&logs, &["h"]);
}

/// A container left by a run that was killed (SIGKILL cannot be handled) is removed by the next
/// run of the same folder, which says so; a run with the same id in another folder keeps its
/// own.
#[test]
fn leftovers_of_the_same_run_are_removed_at_start_and_no_one_elses() {
    let _lock = docker_lock();
    let logs = logs_dir("leftovers");
    let other_logs = logs_dir("leftovers-other");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let docker = bollard::Docker::connect_with_defaults().unwrap();
    let make = |folder: &std::path::Path| {
        let scope = verdict::engine::RunScope::new(folder, "r").unwrap();
        let config = bollard::models::ContainerCreateBody {
            image: Some("verdict-os:bookworm".into()),
            cmd: Some(vec!["sleep".into(), "600".into()]),
            labels: Some(scope.labels()),
            network_disabled: Some(true),
            ..Default::default()
        };
        runtime.block_on(async {
            let id = docker
                .create_container(None::<bollard::query_parameters::CreateContainerOptions>, config)
                .await
                .unwrap()
                .id;
            docker.start_container(&id, None::<bollard::query_parameters::StartContainerOptions>).await.unwrap();
            id
        })
    };
    make(&logs.join("r"));
    make(&logs.join("r"));
    let other = make(&other_logs.join("r"));
    assert_eq!(containers_of(&logs, "r").len(), 2);

    // An instance that needs no container: the sweep alone is what is tested.
    let out = verdict(&[
        "evaluate",
        "--logs",
        logs.to_str().unwrap(),
        "--run-id",
        "r",
        "--instance-ids",
        "verdict-demo__textkit-3",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("removed 2 container(s) left by an earlier run of"), "{}", text(&out));
    assert_no_containers_left(&logs, &["r"]);
    assert_eq!(containers_of(&other_logs, "r").len(), 1, "another folder's run with the same id is not touched");

    // `verdict clean` finds that one by its run, lists it on a dry run, and removes it.
    let (other_arg, id_prefix) = (other_logs.to_str().unwrap(), &other[..12]);
    let dry = verdict(&["clean", "--run-id", "r", "--logs", other_arg, "--dry-run"]);
    assert_eq!(dry.status.code(), Some(0), "{}", text(&dry));
    assert!(text(&dry).contains("1 container(s) of run") && text(&dry).contains("would be removed"), "{}", text(&dry));
    assert_eq!(containers_of(&other_logs, "r").len(), 1, "a dry run removes nothing");
    let clean = verdict(&["clean", "--run-id", "r", "--logs", other_arg]);
    assert_eq!(clean.status.code(), Some(0), "{}", text(&clean));
    assert!(text(&clean).contains("removed 1 container(s)"), "{} ({id_prefix})", text(&clean));
    assert_no_containers_left(&other_logs, &["r"]);
}

/// A report cut in half (a kill mid-write before writes were atomic, a full disk) is an error
/// `verdict report` names, and the summary is not rewritten without it.
#[test]
fn a_truncated_report_is_an_error_under_verdict_report() {
    let _lock = docker_lock();
    let logs = logs_dir("truncated");
    let logs_arg = logs.to_str().unwrap();
    let ids = "verdict-demo__textkit-1,verdict-demo__textkit-3";
    let out = verdict(&["evaluate", "--logs", logs_arg, "--run-id", "cut", "--instance-ids", ids]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let model = logs.join("cut/demo-model");
    let report = model.join("verdict-demo__textkit-1/report.json");
    let whole = std::fs::read_to_string(&report).unwrap();
    std::fs::write(&report, &whole[..whole.len() / 2]).unwrap();
    let summary_before = std::fs::read_to_string(model.join("summary.json")).unwrap();

    let out = verdict(&["report", "--logs", logs_arg, "--run-id", "cut"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains(report.to_str().unwrap()), "names the file: {}", text(&out));
    assert!(text(&out).contains("EOF while parsing"), "says why: {}", text(&out));
    assert_eq!(std::fs::read_to_string(model.join("summary.json")).unwrap(), summary_before, "summary untouched");

    // The rerun redoes the broken one, and the regrade is whole again.
    let again = verdict(&["evaluate", "--logs", logs_arg, "--run-id", "cut", "--instance-ids", ids]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert_eq!(read_json(&report)["outcome"], "unresolved");
    let out = verdict(&["report", "--logs", logs_arg, "--run-id", "cut"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_no_containers_left(&logs, &["cut"]);
}

/// Every limit must be positive; the error names the flag and nothing runs (the engine is not
/// even asked for: an unreachable one would exit 3).
#[test]
fn invalid_flags_are_refused_before_anything_runs() {
    let logs = logs_dir("flags");
    let logs_arg = logs.to_str().unwrap();
    for (flag, value) in [
        ("-j", "0"),
        ("--workers", "-2"),
        ("--timeout", "0"),
        ("--memory", "0"),
        ("--memory", "-1"),
        ("--memory", "NaN"),
        ("--cpus", "0"),
        ("--pids", "0"),
        ("--max-output", "0"),
    ] {
        let given =
            if flag.starts_with("--") { vec![format!("{flag}={value}")] } else { vec![flag.into(), value.into()] };
        let out = Command::new(env!("CARGO_BIN_EXE_verdict"))
            .args(["evaluate", "--logs", logs_arg])
            .args(&given)
            .current_dir(repo_root())
            .env("DOCKER_HOST", "unix:///nonexistent/docker.sock")
            .output()
            .unwrap();
        let text = text(&out);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {text}");
        // clap names the long form (`-j` is `--workers`).
        let long = if flag == "-j" { "--workers" } else { flag };
        assert!(text.contains(&format!("for '{long} <")), "{flag} {value} names the flag: {text}");
    }
    // An unwritable logs folder is found at start, before the engine.
    let blocker = logs.join("a-file");
    write(&blocker, "not a folder");
    let out = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(["evaluate", "--logs", blocker.join("logs").to_str().unwrap()])
        .current_dir(repo_root())
        .env("DOCKER_HOST", "unix:///nonexistent/docker.sock")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("cannot write to the logs folder") && text(&out).contains("a-file"), "{}", text(&out));
}

/// The engine stops mid-run (on an engine of the test's own, never the shared one): the
/// instance it was running is `infra_error` "engine not reachable" (never `build_failed`), no
/// new work starts until the engine answers again, then the run resumes; a rerun finishes the
/// instance. An engine that does not come back within `--engine-wait` stops the run (exit 3),
/// and the next run removes the container it could not.
#[test]
fn an_engine_lost_mid_run_pauses_the_run_and_it_resumes() {
    let _lock = docker_lock();
    if let Some(why) = SecondEngine::unavailable() {
        eprintln!("skipped: {why} (CI runs this test as root)");
        return;
    }
    let logs = logs_dir("engine-lost");
    let logs_arg = logs.to_str().unwrap();
    let ids = [HANGS, "verdict-demo__pycalc-4"];
    let tags = demo_image_tags(&ids, &logs);
    let mut engine = SecondEngine::start("lost");
    engine.load_images(&tags);
    let host = engine.host();
    let on_engine = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_verdict"))
            .args(args)
            .current_dir(repo_root())
            .env("DOCKER_HOST", &host)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let wait_for_run = |engine: &SecondEngine, run_id: &str| {
        let started = Instant::now();
        while engine.containers_of(&logs, run_id) == 0 {
            assert!(started.elapsed() < Duration::from_secs(120), "no container on the second engine");
            std::thread::sleep(Duration::from_millis(200));
        }
    };

    // -j 1: the hanging instance runs first, the other waits its turn.
    let joined = ids.join(",");
    let args = ["evaluate", "--logs", logs_arg, "--run-id", "lost", "--instance-ids", &joined, "-j", "1"];
    let child = on_engine(&[&args[..], &["--engine-wait", "120"]].concat());
    wait_for_run(&engine, "lost");
    engine.stop();
    std::thread::sleep(Duration::from_secs(3));
    engine.restart();
    let out = child.wait_with_output().unwrap();
    let printed = text(&out);
    assert_eq!(out.status.code(), Some(4), "{printed}");
    assert!(printed.contains("is not reachable: no new work starts until it answers"), "{printed}");
    assert!(printed.contains("answers again after"), "{printed}");
    let report = |run: &str, id: &str| read_json(&logs.join(run).join("demo-model").join(id).join("report.json"));
    let lost = report("lost", HANGS);
    assert_eq!(lost["outcome"], "infra_error", "{lost:#}");
    assert!(lost["reason"].as_str().unwrap().contains("engine not reachable"), "{lost:#}");
    assert_eq!(report("lost", "verdict-demo__pycalc-4")["outcome"], "resolved_full", "the run resumed");
    assert_eq!(
        engine.containers_of(&logs, "lost"),
        0,
        "the container the outage left is removed once the engine is back"
    );

    let rerun = on_engine(&[&args[..], &["--timeout", "3"]].concat()).wait_with_output().unwrap();
    assert_eq!(rerun.status.code(), Some(0), "{}", text(&rerun));
    assert_eq!(report("lost", HANGS)["outcome"], "timeout", "the rerun finishes it");

    // An engine that does not come back within --engine-wait stops the run.
    let args = ["evaluate", "--logs", logs_arg, "--run-id", "gone", "--instance-ids", HANGS, "--engine-wait", "3"];
    let child = on_engine(&args);
    wait_for_run(&engine, "gone");
    engine.stop();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains("has not answered for 3 s"), "{}", text(&out));
    assert!(text(&out).contains("rerun the same --run-id"), "{}", text(&out));
    engine.restart();
    assert_eq!(engine.containers_of(&logs, "gone"), 1, "the container verdict could not remove is still there");
    let rerun = on_engine(&[&args[..], &["--timeout", "3"]].concat()).wait_with_output().unwrap();
    assert_eq!(rerun.status.code(), Some(0), "{}", text(&rerun));
    assert!(text(&rerun).contains("removed 1 container(s) left by an earlier run"), "{}", text(&rerun));
    assert_eq!(report("gone", HANGS)["outcome"], "timeout");
    assert_eq!(engine.containers_of(&logs, "gone"), 0);
}

/// pycalc-1's gold patch with `extra` (indented for the body of `median`) run on its first call.
fn pycalc_gold_with(extra: &[&str]) -> String {
    let gold = demo_instance("verdict-demo__pycalc-1")["patch"].as_str().unwrap().to_string();
    let mut lines = vec!["+    import os".to_string(), "+    if not os.environ.get(\"PYCALC_FIXTURE_RAN\"):".into()];
    lines.push("+        os.environ[\"PYCALC_FIXTURE_RAN\"] = \"1\"".into());
    lines.extend(extra.iter().map(|l| format!("+        {l}")));
    let added = lines.len();
    let patched =
        gold.replacen("+    mid = len(data) // 2\n", &format!("+    mid = len(data) // 2\n{}\n", lines.join("\n")), 1);
    patched.replacen("@@ -19,9 +19,12 @@", &format!("@@ -19,9 +19,{} @@", 12 + added), 1)
}

/// A candidate that prints far more than `--max-output` is graded from its JUnit report, and
/// what is kept of its console is bounded, with a note; a candidate that allocates past
/// `--memory` is killed by the OOM killer, which the backend reports.
#[test]
fn huge_output_is_bounded_and_oom_kills_are_reported() {
    let _lock = docker_lock();
    let logs = logs_dir("huge-and-oom");
    let instance = demo_instance("verdict-demo__pycalc-1");
    let dataset = logs.join("d.jsonl");
    write(&dataset, &format!("{instance}\n"));
    let loud = pycalc_gold_with(&["line = b\"x\" * 99 + b\"\\n\"", "for _ in range(60_000):", "    os.write(1, line)"]);
    let hog = pycalc_gold_with(&["hog = []", "while True:", "    hog.append(b\"x\" * (1 << 24))"]);
    let pred = |model: &str, patch: &str| {
        serde_json::json!({"instance_id": "verdict-demo__pycalc-1", "model_name_or_path": model, "model_patch": patch})
            .to_string()
    };
    let preds = logs.join("p.jsonl");
    write(&preds, &format!("{}\n{}\n", pred("loud", &loud), pred("hog", &hog)));
    let out = evaluate_on_demo_repos(
        &dataset,
        preds.to_str().unwrap(),
        &logs,
        "f",
        &["--max-output", "1", "--memory", "0.25"],
    );
    let dir = |model: &str| logs.join("f").join(model).join("verdict-demo__pycalc-1");
    let loud_report = read_json(&dir("loud").join("report.json"));
    assert_eq!(loud_report["outcome"], "resolved_full", "{}\n{loud_report:#}", text(&out));
    assert_eq!(loud_report["parse"]["source"], "structured", "{loud_report:#}");
    let kept = std::fs::metadata(dir("loud").join("output.txt")).unwrap().len();
    assert!(kept < 1_100_000, "6 MB printed, at most 1 MiB kept: {kept}");
    let console = std::fs::read_to_string(dir("loud").join("output.txt")).unwrap();
    assert!(console.contains("of output left out here"), "the note says what was left out");
    assert!(console.contains(" END"), "the tail (with the script's end marker) is kept");
    let notes = loud_report["run"]["notes"].to_string();
    assert!(notes.contains("left out of output.txt"), "{loud_report:#}");

    // The backend reports the OOM kill (read for every run); the decide stage names it.
    let hog_report = read_json(&dir("hog").join("report.json"));
    assert_eq!(hog_report["run"]["execution"]["job"]["oom_killed"], true, "{hog_report:#}");
    assert_eq!(loud_report["run"]["execution"]["job"]["oom_killed"], false, "{loud_report:#}");
    assert_eq!(hog_report["outcome"], "unresolved", "{hog_report:#}");
    let reason = hog_report["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("killed by the out-of-memory killer at 0.25 GiB"), "{hog_report:#}");
    assert_no_containers_left(&logs, &["f"]);
}
