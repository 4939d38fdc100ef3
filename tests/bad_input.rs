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
    assert!(
        text.contains("p.jsonl") && text.contains(&id) && text.contains("twice") || text.contains("two predictions"),
        "{text}"
    );
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
