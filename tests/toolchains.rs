//! A non-default toolchain built offline: a demo instance whose inline `harness` names Node.js
//! 16 (merged over the jestcalc spec, one field) runs on the official Node 16 binary from the npm
//! registry, and the report says which provider and version. A Java version no provider has
//! here is `build_failed` with the version and the ways tried, without building anything; and a
//! spec naming a version no provider knows is bad input, naming the file, the entry and the version.

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
fn node_16_from_the_npm_registry_runs_a_demo_instance() {
    let _lock = docker_lock();
    let logs = logs_dir("toolchains");
    let mut node16 = demo_instance("verdict-demo__jestcalc-1");
    node16["instance_id"] = "verdict-demo__jestcalc-1-node16".into();
    node16["harness"] = serde_json::json!({"node": "16"});
    let mut java19 = demo_instance("verdict-demo__junit5geo-1");
    java19["instance_id"] = "verdict-demo__junit5geo-1-java19".into();
    java19["harness"] = serde_json::json!({"java": "19"});
    let dataset = logs.join("d.jsonl");
    write(&dataset, &format!("{node16}\n{java19}\n"));
    let out = evaluate_on_demo_repos(&dataset, "gold", &logs, "tc", &["--official-images", "no"]);
    assert_eq!(out.status.code(), Some(4), "the Java 19 instance cannot build: {}", text(&out));
    let report = |id: &str| read_json(&logs.join("tc/gold").join(id).join("report.json"));

    let node = report("verdict-demo__jestcalc-1-node16");
    assert_eq!(node["outcome"], "resolved_full", "{node:#}");
    let tools = node["toolchains"].as_array().expect("toolchains recorded");
    let tool = |name: &str| tools.iter().find(|t| t["tool"] == name).unwrap_or_else(|| panic!("{name}: {node:#}"));
    assert_eq!(tool("node")["provider"], "npm-registry", "{node:#}");
    assert_eq!(tool("node")["requested"], "16");
    assert!(tool("node")["installed"].as_str().unwrap().starts_with("16."), "{node:#}");
    assert_eq!(tool("npm")["provider"], "npm-registry");
    assert!(tool("npm")["installed"].as_str().unwrap().starts_with("8."), "npm of the Node 16 line: {node:#}");
    // The base's build checked `node --version` against the request; the instance image is
    // the jestcalc one, on that base.
    let env = node["environment"].as_str().unwrap();
    assert!(env.starts_with("verdict-instance-verdict-demo__jestcalc:"), "{env}");

    let java = report("verdict-demo__junit5geo-1-java19");
    assert_eq!(java["outcome"], "build_failed", "{java:#}");
    let reason = java["reason"].as_str().unwrap();
    assert!(reason.contains("java 19") && reason.contains("no container registry answered"), "{reason}");
    assert!(reason.contains("eclipse-temurin"), "the registry's way is named too: {reason}");
    assert_no_containers_left(&logs, &["tc"]);
}

#[test]
fn a_spec_naming_an_unknown_version_is_bad_input() {
    let dir = logs_dir("toolchains-bad-spec");
    let specs = dir.join("specs");
    write(
        &specs.join("acme__tool.toml"),
        "repo = \"acme/tool\"\n[versions.\"1.0\"]\nlanguage = \"python\"\ntest_cmd = \"pytest\"\nlog_parser = \"pytest\"\npython = \"3.99\"\n",
    );
    let out = verdict(&["build", "--specs", specs.to_str().unwrap(), "--logs", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("acme__tool.toml") && t.contains("entry versions.\"1.0\""), "{t}");
    assert!(t.contains("python = \"3.99\" is a version no toolchain provider knows"), "{t}");
}
