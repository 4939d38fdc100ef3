//! Bad input gets a clear error naming the file, line or instance; none of it needs Docker.

use crate::util::*;

fn evaluate(dataset: &std::path::Path, predictions: &std::path::Path) -> (Option<i32>, String) {
    let out = verdict(&[
        "evaluate",
        "--dataset",
        dataset.to_str().unwrap(),
        "--predictions",
        predictions.to_str().unwrap(),
        "--repos",
        "harness/demo/repos",
        "--no-clone",
        "--logs",
        dataset.parent().unwrap().to_str().unwrap(),
    ]);
    (out.status.code(), text(&out))
}

fn demo_line(n: usize) -> String {
    std::fs::read_to_string(repo_root().join("harness/demo/dataset.jsonl")).unwrap().lines().nth(n).unwrap().to_string()
}

fn id_of(line: &str) -> String {
    serde_json::from_str::<serde_json::Value>(line).unwrap()["instance_id"].as_str().unwrap().to_string()
}

#[test]
fn malformed_json_line_names_file_and_line() {
    let dir = logs_dir("bad-json");
    let dataset = dir.join("d.jsonl");
    write(&dataset, &format!("{}\n{{\"instance_id\": \"x\", oops\n", demo_line(0)));
    let (code, text) = evaluate(&dataset, &dataset);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("d.jsonl") && text.contains("line 2"), "{text}");
}

#[test]
fn duplicate_prediction_ids_are_an_error() {
    let dir = logs_dir("dup-preds");
    let dataset = dir.join("d.jsonl");
    let line = demo_line(0);
    write(&dataset, &format!("{line}\n"));
    let id = id_of(&line);
    let preds = dir.join("p.jsonl");
    let p = |patch: &str| {
        serde_json::json!({"instance_id": id, "model_name_or_path": "m", "model_patch": patch}).to_string()
    };
    write(&preds, &format!("{}\n{}\n", p("a"), p("b")));
    let (code, text) = evaluate(&dataset, &preds);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("p.jsonl") && text.contains("more than one prediction"), "{text}");
    assert!(text.contains(&format!("  {id} (model m): line 1, line 2")), "every duplicate with its lines: {text}");
    assert!(text.contains("--duplicates last"), "{text}");
}

#[test]
fn predictions_for_unknown_instances_are_an_error() {
    let dir = logs_dir("unknown-preds");
    let dataset = dir.join("d.jsonl");
    write(&dataset, &format!("{}\n", demo_line(0)));
    let preds = dir.join("p.json");
    write(&preds, r#"[{"instance_id": "nobody__nothing-1", "model_name_or_path": "m", "model_patch": "x"}]"#);
    let (code, text) = evaluate(&dataset, &preds);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("nobody__nothing-1") && text.contains("p.json"), "{text}");
}

#[test]
fn missing_fields_are_named() {
    let dir = logs_dir("missing-field");
    let dataset = dir.join("d.jsonl");
    let mut v: serde_json::Value = serde_json::from_str(&demo_line(0)).unwrap();
    v.as_object_mut().unwrap().remove("base_commit");
    write(&dataset, &format!("{v}\n"));
    let (code, text) = evaluate(&dataset, &dataset);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("base_commit") && text.contains("line 1"), "{text}");
}

#[test]
fn unreachable_engine_says_how_to_start_it() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(["evaluate", "--predictions", "gold", "--logs"])
        .arg(logs_dir("no-engine"))
        .current_dir(repo_root())
        .env("DOCKER_HOST", "unix:///nonexistent/docker.sock")
        .output()
        .unwrap();
    let text = text(&out);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(text.contains("/nonexistent/docker.sock") && text.contains("dockerfiles/engine.sh"), "{text}");
}

#[test]
fn predictions_outside_the_dataset_are_an_error_only_when_strict() {
    let dir = logs_dir("outside-strict");
    let dataset = dir.join("d.jsonl");
    write(&dataset, &format!("{}\n", demo_line(0)));
    let lines: Vec<String> = (0..40)
        .map(|k| {
            serde_json::json!({"instance_id": format!("other__repo-{k}"), "model_name_or_path": "m", "model_patch": "x"})
                .to_string()
        })
        .collect();
    let preds = dir.join("all_repos.jsonl");
    write(&preds, &(lines.join("\n") + "\n"));
    let out = verdict(&[
        "evaluate",
        "--dataset",
        dataset.to_str().unwrap(),
        "--predictions",
        preds.to_str().unwrap(),
        "--strict-predictions",
        "--logs",
        dir.to_str().unwrap(),
    ]);
    let text = text(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("all_repos.jsonl: 40 prediction(s) name 40 instance(s)"), "{text}");
    assert!(text.contains("and 35 more"), "a few examples, not every id: {text}");
    assert!(text.lines().all(|l| l.len() < 400), "no 20,000-character line: {text}");
}

#[test]
fn files_that_share_a_model_name_must_be_named_apart() {
    let dir = logs_dir("model-collision");
    let dataset = dir.join("d.jsonl");
    let line = demo_line(0);
    write(&dataset, &format!("{line}\n"));
    let id = id_of(&line);
    let p = |name: &str| {
        let path = dir.join(name);
        write(
            &path,
            &format!(
                "{}\n",
                serde_json::json!({"instance_id": id, "model_name_or_path": "agentless", "model_patch": ""})
            ),
        );
        path
    };
    let (a, b) = (p("gpt4o_agentlessX.jsonl"), p("claude_agentlessX.jsonl"));
    let base = ["evaluate", "--dataset", dataset.to_str().unwrap(), "--logs", dir.to_str().unwrap()];
    let files = ["--predictions", a.to_str().unwrap(), "--predictions", b.to_str().unwrap()];
    let out = verdict(&[&base[..], &files[..]].concat());
    let printed = text(&out);
    assert_eq!(out.status.code(), Some(2), "{printed}");
    assert!(printed.contains("model agentless comes from both") && printed.contains("--model NAME"), "{printed}");

    let out = verdict(&[&base[..], &files[..], &["--model", "gpt-4o"]].concat());
    let printed = text(&out);
    assert_eq!(out.status.code(), Some(2), "{printed}");
    assert!(printed.contains("1 --model for 2 --predictions"), "{printed}");
}

#[test]
fn localize_scores_each_model_of_a_file() {
    let dir = logs_dir("localize-models");
    let preds = dir.join("two_models.jsonl");
    let demo = std::fs::read_to_string(repo_root().join("harness/demo/predictions.jsonl")).unwrap();
    let mut lines: Vec<String> = Vec::new();
    for line in demo.lines().take(4) {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        lines.push(v.to_string());
        v["model_name_or_path"] = "other-0".into();
        v["model_patch"] = "".into();
        lines.push(v.to_string());
    }
    write(&preds, &(lines.join("\n") + "\n"));
    let output = dir.join("loc.json");
    let out = verdict(&[
        "localize",
        "--predictions",
        preds.to_str().unwrap(),
        "--output",
        output.to_str().unwrap(),
        "--logs",
        dir.to_str().unwrap(),
    ]);
    let text = text(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("model: demo-model") && text.contains("model: other-0"), "{text}");
    let scores = read_json(&output);
    let demo_model = &scores["demo-model"]["aggregate"];
    let other = &scores["other-0"]["aggregate"];
    assert_eq!(demo_model["candidates_missing"].as_u64().unwrap() + 4, other["candidates_missing"].as_u64().unwrap());
}

#[test]
fn empty_fail_to_pass_lists_are_a_warning_on_the_terminal() {
    let dir = logs_dir("empty-f2p");
    let dataset = dir.join("d.jsonl");
    let mut v: serde_json::Value = serde_json::from_str(&demo_line(0)).unwrap();
    v["FAIL_TO_PASS"] = serde_json::json!([]);
    write(&dataset, &format!("{v}\n"));
    // The warning comes before anything runs, so an engine that does not answer does not hide it.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(["evaluate", "--predictions", "gold", "--repos", "harness/demo/repos", "--no-clone", "--dataset"])
        .arg(&dataset)
        .arg("--logs")
        .arg(&dir)
        .current_dir(repo_root())
        .env("DOCKER_HOST", "unix:///nonexistent/docker.sock")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("warning: 1 of 1 instance(s)") && stderr.contains("empty FAIL_TO_PASS list"), "{stderr}");
    assert!(
        stderr.contains("every instance will grade unresolved") && stderr.contains(&id_of(&demo_line(0))),
        "{stderr}"
    );
}
