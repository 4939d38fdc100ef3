//! The Swarm backend on a single-node swarm of the test's own (a second `dockerd`, never the
//! shared engine) with a loopback registry: the same outcomes as the local backend, a timeout
//! and a structured report among them, the node in each report, an unplaceable job as
//! `infra_error` naming the scheduler's reason, and no service left behind.

use std::process::Command;

use crate::engines::{demo_image_tags, on_path, Registry, SecondEngine};
use crate::util::*;

#[test]
fn swarm_backend_gives_the_local_outcomes() {
    let _lock = docker_lock();
    let missing = SecondEngine::unavailable()
        .or_else(|| (!on_path("docker-registry")).then(|| "no docker-registry (bash dockerfiles/engine.sh)".into()));
    if let Some(why) = missing {
        eprintln!("skipped: {why} (CI runs this test as root)");
        return;
    }
    let logs = logs_dir("swarm");
    let logs_arg = logs.to_str().unwrap();
    let ids = ["verdict-demo__pycalc-1", "verdict-demo__pycalc-2", "verdict-demo__pycalc-3", "verdict-demo__pycalc-4"];
    let tags = demo_image_tags(&ids, &logs);
    let engine = SecondEngine::start("swarm");
    engine.load_images(&tags);
    engine.init_swarm();
    let registry = Registry::start_in(&engine);
    let on_swarm = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_verdict"))
            .args(args)
            .args(["--backend", "swarm", "--registry", &registry.addr, "--logs", logs_arg])
            .current_dir(repo_root())
            .env("DOCKER_HOST", engine.host())
            .output()
            .unwrap()
    };

    // pycalc-3 hangs: with --timeout 10 it times out (the others take about a second).
    let joined = ids.join(",");
    let out = on_swarm(&["evaluate", "--run-id", "s", "--instance-ids", &joined, "-j", "2", "--timeout", "10"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report = |run: &str, id: &str| read_json(&logs.join(run).join("demo-model").join(id).join("report.json"));
    for id in ids {
        let (_, outcome, step, ..) = crate::demo::EXPECTED.iter().find(|e| e.0 == id).unwrap();
        let r = report("s", id);
        assert_eq!(r["outcome"], *outcome, "{id}: {r:#}");
        if let Some(step) = step {
            assert_eq!(r["apply"]["step"], *step, "{id}");
        }
        if *outcome != "empty_patch" {
            assert!(r["run"]["node"].as_str().is_some_and(|n| !n.is_empty()), "{id} names its node: {r:#}");
        }
    }
    let pycalc1 = report("s", "verdict-demo__pycalc-1");
    assert_eq!(pycalc1["parse"]["source"], "structured", "the JUnit report came back framed in the logs: {pycalc1:#}");
    assert!(logs.join("s/demo-model/verdict-demo__pycalc-1/reports/junit.xml").is_file());
    assert_eq!(engine.services_of(&logs, "s"), 0, "no service left behind");

    // No node has 4 TiB: the scheduler's reason, not a hang.
    let out = on_swarm(&["evaluate", "--run-id", "u", "--instance-ids", "verdict-demo__pycalc-1", "--memory", "4096"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let r = report("u", "verdict-demo__pycalc-1");
    assert_eq!(r["outcome"], "infra_error", "{r:#}");
    let reason = r["reason"].as_str().unwrap();
    assert!(reason.contains("cannot be placed") && reason.contains("no ready node has 4096.0 GiB"), "{reason}");
    assert_eq!(engine.services_of(&logs, "u"), 0);
}
