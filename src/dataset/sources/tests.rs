//! Tests of assembling a run's predictions: duplicates (refused with every line listed, or the
//! first or last kept), predictions outside the dataset, --instance-ids, several files and
//! their model names. Fixtures are written here, in the shapes OmniGIRL publishes.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::*;
use crate::dataset::load::load_predictions;

fn instance(id: &str) -> Instance {
    serde_json::from_value(serde_json::json!({
        "instance_id": id, "repo": "o/r", "base_commit": "abc", "patch": format!("gold of {id}"), "test_patch": "t",
    }))
    .unwrap()
}

fn line(id: &str, model: &str, patch: &str) -> String {
    serde_json::json!({"instance_id": id, "model_name_or_path": model, "model_patch": patch}).to_string()
}

struct Files(tempfile::TempDir);

impl Files {
    fn new() -> Self {
        Files(tempfile::tempdir().unwrap())
    }
    fn write(&self, name: &str, lines: &[String]) -> PathBuf {
        let path = self.0.path().join(name);
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        path
    }
}

fn source(path: &Path) -> Source {
    Source { file: SourceFile::Path(path.to_path_buf()), model: None, method: None }
}

fn ids(instances: &[Instance]) -> HashSet<String> {
    instances.iter().map(|i| i.instance_id.clone()).collect()
}

fn run(sources: &[Source], instances: &[Instance], duplicates: Duplicates, strict: bool) -> Result<Assembled, String> {
    assemble(sources, instances, &ids(instances), Path::new("d.jsonl"), duplicates, strict).map_err(|e| e.to_string())
}

/// OmniGIRL's DeepSeek autocoderoverX file has `iamkun__dayjs-1954` twice with different patches.
fn dayjs_with_duplicates(files: &Files) -> PathBuf {
    files.write(
        "deepseek_acr.jsonl",
        &[
            line("iamkun__dayjs-1954", "autocoderover", "first patch"),
            line("iamkun__dayjs-1023", "autocoderover", "a"),
            line("iamkun__dayjs-1954", "autocoderover", "second patch"),
            line("iamkun__dayjs-1023", "autocoderover", "b"),
            line("iamkun__dayjs-2000", "autocoderover", "c"),
            line("iamkun__dayjs-1023", "autocoderover", "c"),
        ],
    )
}

#[test]
fn duplicates_are_refused_with_every_line_listed() {
    let files = Files::new();
    let path = dayjs_with_duplicates(&files);
    let err = load_predictions(&path).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{}: 2 instance(s) have more than one prediction", path.display())), "{err}");
    assert!(err.contains("\n  iamkun__dayjs-1954 (model autocoderover): line 1, line 3\n"), "{err}");
    assert!(err.contains("\n  iamkun__dayjs-1023 (model autocoderover): line 2, line 4, line 6\n"), "{err}");
    assert!(err.contains("--duplicates last") && err.contains("OmniGIRL"), "{err}");
    assert!(!err.contains("dayjs-2000"), "{err}");
}

#[test]
fn duplicates_keep_the_first_or_the_last() {
    let files = Files::new();
    let path = dayjs_with_duplicates(&files);
    let instances: Vec<Instance> =
        ["iamkun__dayjs-1023", "iamkun__dayjs-1954", "iamkun__dayjs-2000"].map(instance).to_vec();
    let patch_of = |a: &Assembled, id: &str| {
        let found: Vec<&str> = a
            .pairs
            .iter()
            .filter(|(i, _)| i.instance_id == id)
            .map(|(_, p)| p.model_patch.as_deref().unwrap())
            .collect();
        assert_eq!(found.len(), 1, "{id}: one prediction kept");
        found[0].to_string()
    };
    let last = run(&[source(&path)], &instances, Duplicates::Last, false).unwrap();
    assert_eq!(patch_of(&last, "iamkun__dayjs-1954"), "second patch");
    assert_eq!(patch_of(&last, "iamkun__dayjs-1023"), "c");
    assert_eq!(last.pairs.len(), 3);
    assert_eq!(last.warnings.len(), 1, "{:?}", last.warnings);
    assert!(last.warnings[0].contains("kept the last of each"), "{}", last.warnings[0]);
    assert!(last.warnings[0].contains("iamkun__dayjs-1954 (model autocoderover): line 1, line 3"));

    let first = run(&[source(&path)], &instances, Duplicates::First, false).unwrap();
    assert_eq!(patch_of(&first, "iamkun__dayjs-1954"), "first patch");
    assert_eq!(patch_of(&first, "iamkun__dayjs-1023"), "a");
    assert!(first.warnings[0].contains("kept the first of each"));

    let refused = run(&[source(&path)], &instances, Duplicates::Refuse, false).unwrap_err();
    assert!(refused.contains("more than one prediction"), "{refused}");
}

#[test]
fn predictions_outside_the_dataset_are_skipped_and_counted() {
    let files = Files::new();
    let mut lines: Vec<String> = (0..20).map(|k| line(&format!("other__repo-{k}"), "m", "x")).collect();
    lines.push(line("other__repo-3", "m2", "x"));
    lines.push(line("o__r-1", "m", "x"));
    let path = files.write("all_repos.jsonl", &lines);
    let instances = vec![instance("o__r-1")];

    let ok = run(&[source(&path)], &instances, Duplicates::Refuse, false).unwrap();
    assert_eq!(ok.pairs.len(), 1);
    assert_eq!(ok.warnings.len(), 1);
    let warning = &ok.warnings[0];
    assert!(warning.contains("skipped 21 prediction(s) for 20 instance(s) that d.jsonl does not have"), "{warning}");
    assert!(warning.contains("other__repo-0, other__repo-1, other__repo-2, other__repo-3, other__repo-4 and 15 more"));
    assert!(warning.len() < 400, "a short warning, not every id: {warning}");

    let err = run(&[source(&path)], &instances, Duplicates::Refuse, true).unwrap_err();
    assert!(err.starts_with(&format!("{}: 21 prediction(s) name 20 instance(s)", path.display())), "{err}");
    assert!(err.contains("and 15 more") && err.len() < 400, "{err}");
}

#[test]
fn instance_ids_leave_out_chosen_away_instances_but_still_count_outside_ones() {
    let files = Files::new();
    let path = files.write("p.jsonl", &[line("o__r-1", "m", "x"), line("o__r-2", "m", "y"), line("ghost-1", "m", "z")]);
    let all = vec![instance("o__r-1"), instance("o__r-2")];
    let chosen = vec![instance("o__r-2")];
    let out = assemble(&[source(&path)], &chosen, &ids(&all), Path::new("d.jsonl"), Duplicates::Refuse, false).unwrap();
    assert_eq!(out.pairs.len(), 1);
    assert_eq!(out.pairs[0].0.instance_id, "o__r-2");
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    assert!(
        out.warnings[0].contains("skipped 1 prediction(s) for 1 instance(s)") && out.warnings[0].contains("ghost-1")
    );
    // Strict: the prediction for o__r-1 (in the dataset, not chosen) is no error; ghost-1 is.
    let err =
        assemble(&[source(&path)], &chosen, &ids(&all), Path::new("d.jsonl"), Duplicates::Refuse, true).unwrap_err();
    assert!(err.to_string().contains("1 prediction(s) name 1 instance(s)") && err.to_string().contains("ghost-1"));
    assert!(!err.to_string().contains("o__r-1"), "{err}");
}

#[test]
fn several_files_with_one_model_name_need_names() {
    let files = Files::new();
    let instances = vec![instance("o__r-1"), instance("o__r-2")];
    let gpt =
        files.write("gpt4o_agentlessX.jsonl", &[line("o__r-1", "agentless", "g1"), line("o__r-2", "agentless", "g2")]);
    let claude = files.write("claude_agentlessX.jsonl", &[line("o__r-2", "agentless", "c2")]);

    let err = run(&[source(&gpt), source(&claude)], &instances, Duplicates::Refuse, false).unwrap_err();
    assert!(err.contains("model agentless comes from both") && err.contains("gpt4o_agentlessX.jsonl"), "{err}");
    assert!(err.contains("--model NAME") && err.contains("--model-from-path"), "{err}");

    let named = [
        Source { model: Some("gpt-4o".into()), method: Some("agentless-x".into()), ..source(&gpt) },
        Source { model: Some("claude-3.5".into()), method: Some("agentless-x".into()), ..source(&claude) },
    ];
    let out = run(&named, &instances, Duplicates::Refuse, false).unwrap();
    assert_eq!(
        out.models,
        [("gpt-4o".to_string(), Some("agentless-x".to_string())), ("claude-3.5".into(), Some("agentless-x".into()))]
    );
    let order: Vec<(&str, &str)> =
        out.pairs.iter().map(|(i, p)| (p.model_name_or_path.as_str(), i.instance_id.as_str())).collect();
    assert_eq!(order, [("gpt-4o", "o__r-1"), ("gpt-4o", "o__r-2"), ("claude-3.5", "o__r-2")], "model by model");
    assert!(out.pairs.iter().all(|(_, p)| p.method.as_deref() == Some("agentless-x")));
}

#[test]
fn a_file_of_several_models_is_not_renamed_to_one() {
    let files = Files::new();
    let path = files.write("mixed.jsonl", &[line("o__r-1", "a", "x"), line("o__r-1", "b", "y")]);
    let instances = vec![instance("o__r-1")];
    let both = run(&[source(&path)], &instances, Duplicates::Refuse, false).unwrap();
    assert_eq!(both.models.len(), 2, "a file of several models runs each model");
    let err = run(&[Source { model: Some("one".into()), ..source(&path) }], &instances, Duplicates::Refuse, false)
        .unwrap_err();
    assert!(err.contains("mixed.jsonl") && err.contains("several (a, b)"), "{err}");
}

#[test]
fn gold_is_a_source_like_any_file() {
    let files = Files::new();
    let instances = vec![instance("o__r-1")];
    let path = files.write("p.jsonl", &[line("o__r-1", "m", "x")]);
    let gold = Source { file: SourceFile::parse("gold"), model: None, method: None };
    let out = run(&[source(&path), gold], &instances, Duplicates::Refuse, false).unwrap();
    assert_eq!(out.models, [("m".to_string(), None), ("gold".to_string(), None)]);
    assert_eq!(out.pairs[1].1.model_patch.as_deref(), Some("gold of o__r-1"));
}

#[test]
fn nothing_to_run_is_an_error() {
    let files = Files::new();
    let path = files.write("p.jsonl", &[line("ghost-1", "m", "x")]);
    let err = run(&[source(&path)], &[instance("o__r-1")], Duplicates::Refuse, false).unwrap_err();
    assert!(err.contains("no prediction is for an instance chosen from d.jsonl"), "{err}");
}

#[test]
fn a_method_field_is_read_and_keeps_predictions_apart() {
    let files = Files::new();
    let with_method = |method: &str, patch: &str| {
        serde_json::json!({"instance_id": "o__r-1", "model_name_or_path": "m", "model_patch": patch, "method": method})
            .to_string()
    };
    let path = files.write("p.jsonl", &[with_method("oracle", "x"), with_method("agentless", "y")]);
    let out = run(&[source(&path)], &[instance("o__r-1")], Duplicates::Refuse, false).unwrap();
    assert_eq!(out.models, [("m".to_string(), Some("oracle".to_string())), ("m".into(), Some("agentless".into()))]);
}
