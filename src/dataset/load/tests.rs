//! Tests of the dataset and prediction readers: every accepted shape on fixtures made from a
//! real repository (tests/fixtures/dataset/make_fixtures.sh), and every bad input's message.

use std::path::{Path, PathBuf};

use super::*;
use crate::dataset::{Cost, CostSource};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dataset").join(name)
}

/// Writes `text` to a file named `name` in a fresh temp dir (kept alive by the guard).
fn temp_file(name: &str, text: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write temp file");
    (dir, path)
}

fn instance_error(name: &str, text: &str) -> (String, PathBuf, tempfile::TempDir) {
    let (dir, path) = temp_file(name, text.as_bytes());
    let err = load_instances(&path).expect_err("should fail");
    (err.to_string(), path, dir)
}

fn prediction_error(name: &str, text: &str) -> (String, PathBuf, tempfile::TempDir) {
    let (dir, path) = temp_file(name, text.as_bytes());
    let err = load_predictions(&path).expect_err("should fail");
    (err.to_string(), path, dir)
}

const ROW: &str = r#""repo": "o/r", "base_commit": "abc", "patch": "p", "test_patch": "t""#;

#[test]
fn array_jsonl_and_keyed_datasets_load_the_same_instances() {
    let array = load_instances(&fixture("instances.json")).unwrap();
    let jsonl = load_instances(&fixture("instances.jsonl")).unwrap();
    let keyed = load_instances(&fixture("instances_keyed.json")).unwrap();
    assert_eq!(array.len(), 2);
    assert_eq!(array, jsonl, "string-encoded test lists decode to the same arrays");
    let ids: Vec<_> = keyed.iter().map(|i| i.instance_id.as_str()).collect();
    assert_eq!(ids, ["verdict-demo__calc-1", "verdict-demo__calc-2"]);
    // Keyed records take their id from the key; field order differs, content does not.
    for (a, k) in array.iter().zip(&keyed) {
        assert_eq!(a.fail_to_pass, k.fail_to_pass);
        assert_eq!(a.patch, k.patch);
        assert_eq!(a.extra.get("hints_text"), k.extra.get("hints_text"));
    }
    let first = &array[0];
    assert_eq!(first.repo, "verdict-demo/calc");
    assert_eq!(first.base_commit.len(), 40);
    assert!(first.patch.starts_with("diff --git a/calc/ops.py"));
    assert_eq!(first.fail_to_pass, ["tests/test_ops.py::test_div"]);
    assert_eq!(first.pass_to_pass, ["tests/test_ops.py::test_add"]);
    assert_eq!(first.version.as_deref(), Some("1.0"));
    assert_eq!(array[1].version.as_deref(), Some("1.1"), "a numeric version becomes a string");
    assert!(first.extra.contains_key("environment_setup_commit"));
    assert!(array[1].extra.contains_key("image_urls"));
}

#[test]
fn multi_swe_bench_records_are_mapped() {
    let msb = load_instances(&fixture("multi_swe_bench.jsonl")).unwrap();
    let swe = load_instances(&fixture("instances.json")).unwrap();
    let (m, s) = (&msb[0], &swe[0]);
    assert_eq!(m.instance_id, "verdict-demo__calc-1");
    assert_eq!(m.repo, "verdict-demo/calc");
    assert_eq!(m.base_commit, s.base_commit);
    assert_eq!(m.patch, s.patch);
    assert_eq!(m.test_patch, s.test_patch);
    assert_eq!(m.fail_to_pass, s.fail_to_pass);
    assert_eq!(m.pass_to_pass, s.pass_to_pass);
    assert_eq!(m.problem_statement, "div multiplies\n\ndiv(6, 3) gives 18");
    assert!(m.extra.contains_key("f2p_tests") && m.extra.contains_key("org"));
    assert!(!m.extra.contains_key("repo"), "repo is an Instance field, not an extra one");
}

#[test]
fn write_instances_jsonl_round_trips_extra_fields() {
    let instances = load_instances(&fixture("instances.jsonl")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("completed.jsonl");
    write_instances_jsonl(&out, &instances).unwrap();
    let again = load_instances(&out).unwrap();
    assert_eq!(again, instances);
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), 2);
    assert!(text.contains(r#""FAIL_TO_PASS":["tests/test_ops.py::test_div"]"#), "lists are written as arrays");
    assert!(text.contains(r#""image_urls":["https://example.invalid/shot.png"]"#));
}

#[test]
fn predictions_read_every_cost_form() {
    let preds = load_predictions(&fixture("predictions.jsonl")).unwrap();
    assert_eq!(preds.len(), 4);
    assert_eq!(
        preds[0].cost,
        Some(Cost { dollars: Some(0.42), source: Some(CostSource::Reported), ..Cost::default() })
    );
    let tokens = preds[1].cost.clone().unwrap();
    assert_eq!((tokens.input_tokens, tokens.output_tokens), (Some(12000), Some(800)));
    assert_eq!(tokens.source, Some(CostSource::Tokens));
    assert!((tokens.dollars.unwrap() - (0.03 + 0.008)).abs() < 1e-12);
    let object = preds[2].cost.clone().unwrap();
    assert_eq!((object.dollars, object.input_tokens, object.output_tokens), (Some(0.1), Some(100), Some(5)));
    assert_eq!(preds[2].model_patch.as_deref(), Some(""), "an empty patch is kept, not an error");
    assert_eq!(preds[3].model_patch, None);
    assert_eq!(preds[3].cost.as_ref().and_then(|c| c.dollars), Some(0.05), "model_cost");
}

#[test]
fn token_counts_without_prices_have_no_dollars() {
    let text = r#"{"instance_id": "a", "model_name_or_path": "m", "model_patch": "", "usage": {"input_tokens": 10}}"#;
    let (_dir, path) = temp_file("p.jsonl", text.as_bytes());
    let cost = load_predictions(&path).unwrap()[0].cost.clone().unwrap();
    assert_eq!(cost, Cost { input_tokens: Some(10), ..Cost::default() });
}

#[test]
fn keyed_and_multi_swe_bench_predictions() {
    let keyed = load_predictions(&fixture("predictions_keyed.json")).unwrap();
    assert_eq!(keyed.len(), 2);
    assert_eq!(keyed[1].instance_id, "verdict-demo__calc-2");
    let msb = load_predictions(&fixture("predictions_multi_swe_bench.jsonl")).unwrap();
    assert_eq!(msb[0].instance_id, "verdict-demo__calc-1");
    assert_eq!(msb[0].model_name_or_path, "predictions_multi_swe_bench", "defaults to the file stem");
    assert!(msb[0].model_patch.as_deref().unwrap().starts_with("diff --git"));
}

#[test]
fn matching_pairs_predictions_and_lists_unpredicted_instances() {
    let instances = load_instances(&fixture("instances.json")).unwrap();
    let preds = load_predictions(&fixture("predictions_multi_swe_bench.jsonl")).unwrap();
    let matched = match_predictions(&instances, &preds, Path::new("p.jsonl"), true).unwrap();
    assert_eq!(matched.pairs.len(), 1);
    assert_eq!(matched.pairs[0].0.instance_id, "verdict-demo__calc-1");
    assert_eq!(matched.unpredicted, ["verdict-demo__calc-2"]);

    let all = load_predictions(&fixture("predictions.jsonl")).unwrap();
    let matched = match_predictions(&instances, &all, Path::new("p.jsonl"), true).unwrap();
    let order: Vec<_> =
        matched.pairs.iter().map(|(i, p)| (i.instance_id.as_str(), p.model_name_or_path.as_str())).collect();
    assert_eq!(
        order,
        [
            ("verdict-demo__calc-1", "m1"),
            ("verdict-demo__calc-1", "m2"),
            ("verdict-demo__calc-2", "m1"),
            ("verdict-demo__calc-2", "m2")
        ]
    );
}

#[test]
fn predictions_for_unknown_instances_are_listed() {
    let instances = load_instances(&fixture("instances.json")).unwrap();
    let mut preds = gold_predictions(&instances);
    for id in ["ghost-1", "ghost-2", "ghost-1"] {
        preds.push(Prediction {
            instance_id: id.into(),
            model_name_or_path: "m".into(),
            model_patch: None,
            method: None,
            cost: None,
        });
    }
    let err = match_predictions(&instances, &preds, Path::new("preds.jsonl"), true).unwrap_err().to_string();
    assert!(err.starts_with("preds.jsonl: 3 prediction(s) name 2 instance(s)"), "{err}");
    assert!(err.contains("ghost-1, ghost-2;"), "{err}");
    // Not strict: skipped, counted, and listed once each.
    let matched = match_predictions(&instances, &preds, Path::new("preds.jsonl"), false).unwrap();
    assert_eq!(matched.outside, ["ghost-1", "ghost-2"]);
    assert_eq!(matched.outside_predictions, 3);
    assert_eq!(matched.pairs.len(), instances.len());
}

#[test]
fn gold_predictions_use_the_gold_patch() {
    let instances = load_instances(&fixture("instances.json")).unwrap();
    let gold = gold_predictions(&instances);
    assert_eq!(gold.len(), 2);
    assert_eq!(gold[0].model_name_or_path, GOLD_MODEL);
    assert_eq!(gold[1].model_patch.as_deref(), Some(instances[1].patch.as_str()));
}

#[test]
fn malformed_jsonl_line_names_file_and_line() {
    let text = format!("{{\"instance_id\": \"a\", {ROW}}}\n\n{{\"instance_id\": \"b\", {ROW}\n");
    let (err, path, _dir) = instance_error("data.jsonl", &text);
    assert!(err.starts_with(&format!("{}, line 3: malformed JSON", path.display())), "{err}");
    assert!(err.contains("fix or remove it"), "{err}");
}

#[test]
fn malformed_json_array_names_the_line() {
    let (err, path, _dir) = instance_error("data.json", "[\n  {\"instance_id\": \"a\",\n   \"repo\": }\n]\n");
    assert!(err.starts_with(&format!("{}, line 3: malformed JSON", path.display())), "{err}");
}

#[test]
fn missing_field_names_file_line_and_field() {
    let text = format!("{{\"instance_id\": \"a\", {ROW}}}\n{{\"instance_id\": \"b\", \"repo\": \"o/r\", \"patch\": \"p\", \"test_patch\": \"t\"}}\n");
    let (err, path, _dir) = instance_error("data.jsonl", &text);
    assert_eq!(
        err,
        format!(
            "{}, line 2: missing required field `base_commit`; give the commit the task starts from",
            path.display()
        )
    );
}

#[test]
fn missing_field_in_array_names_the_element() {
    let (err, _path, _dir) = instance_error("data.json", &format!("[{{{ROW}}}]"));
    assert!(err.contains(", array element [0]: missing required field `instance_id`"), "{err}");
}

#[test]
fn wrong_types_name_the_field() {
    let text = format!("{{\"instance_id\": \"a\", {ROW}, \"FAIL_TO_PASS\": 3}}\n");
    let (err, path, _dir) = instance_error("d.jsonl", &text);
    assert!(err.starts_with(&format!("{}, line 1: field `FAIL_TO_PASS` should be", path.display())), "{err}");
    assert!(err.ends_with("found a number"), "{err}");

    let text = format!("{{\"instance_id\": \"a\", {ROW}, \"PASS_TO_PASS\": \"[\\\"x\\\", 4]\"}}\n");
    let (err, _, _dir) = instance_error("d.jsonl", &text);
    assert!(err.contains("field `PASS_TO_PASS[1]` should be a string, found a number"), "{err}");

    let text = format!("{{\"instance_id\": \"a\", {ROW}, \"FAIL_TO_PASS\": \"tests/x.py::t\"}}\n");
    let (err, _, _dir) = instance_error("d.jsonl", &text);
    assert!(err.contains("found a string that is not JSON"), "{err}");

    let (err, _, _dir) = instance_error("d.jsonl", "[1]");
    assert!(err.ends_with("array element [0]: expected a JSON object for one instance, found a number"), "{err}");
}

#[test]
fn duplicate_instances_are_an_error() {
    let text = format!(
        "{{\"instance_id\": \"a\", {ROW}}}\n{{\"instance_id\": \"b\", {ROW}}}\n{{\"instance_id\": \"a\", {ROW}}}\n"
    );
    let (err, path, _dir) = instance_error("d.jsonl", &text);
    assert_eq!(
        err,
        format!(
            "{}: instance a appears twice (line 1 and line 3); remove one of them, instance ids must be unique",
            path.display()
        )
    );
}

#[test]
fn a_repeated_key_in_a_keyed_file_is_an_error() {
    let text = "{\"a\": {\"model_name_or_path\": \"m\", \"model_patch\": \"x\"},\n \"a\": {\"model_name_or_path\": \"m\", \"model_patch\": \"y\"}}";
    let (err, path, _dir) = prediction_error("p.json", text);
    assert_eq!(
        err,
        format!(
            "{}: key \"a\" appears twice in the object; each instance id may be a key only once, so remove one (verdict does not keep the last one)",
            path.display()
        )
    );
}

#[test]
fn keyed_record_whose_id_differs_from_its_key_is_an_error() {
    let (err, _, _dir) = instance_error("d.json", &format!("{{\"a\": {{\"instance_id\": \"b\", {ROW}}}}}"));
    assert!(err.contains("key \"a\": the record's instance_id is \"b\" but its key is \"a\""), "{err}");
}

#[test]
fn duplicate_predictions_for_one_model_are_an_error() {
    let text = "{\"instance_id\": \"a\", \"model_name_or_path\": \"m\", \"model_patch\": \"x\"}\n\
                {\"instance_id\": \"a\", \"model_name_or_path\": \"other\", \"model_patch\": \"x\"}\n\
                {\"instance_id\": \"a\", \"model_name_or_path\": \"m\", \"model_patch\": \"y\"}\n";
    let (err, path, _dir) = prediction_error("p.jsonl", text);
    assert_eq!(
        err,
        format!(
            "{}: 1 instance(s) have more than one prediction of the same model:\n  a (model m): line 1, line 3\nkeep one \
             prediction each, or pass --duplicates last (keep the last, as OmniGIRL's harness does) or --duplicates first",
            path.display()
        )
    );
}

#[test]
fn prediction_field_errors_name_file_line_and_field() {
    let (err, path, _dir) = prediction_error("p.jsonl", "{\"instance_id\": \"a\", \"model_name_or_path\": \"m\"}\n");
    assert_eq!(
        err,
        format!(
            "{}, line 1: missing required field `model_patch`; use null or \"\" when the model produced no patch",
            path.display()
        )
    );
    let (err, _, _dir) = prediction_error("p.jsonl", "\n{\"instance_id\": \"a\", \"model_patch\": \"\"}\n");
    assert!(err.contains(", line 2: missing required field `model_name_or_path`"), "{err}");
    let (err, _, _dir) =
        prediction_error("p.jsonl", "{\"instance_id\": \"a\", \"model_name_or_path\": \"m\", \"model_patch\": 5}");
    assert!(err.contains("line 1: field `model_patch` should be a string, found a number"), "{err}");
    let (err, _, _dir) = prediction_error(
        "p.jsonl",
        "{\"instance_id\": \"a\", \"model_name_or_path\": \"m\", \"model_patch\": \"\", \"cost\": -1}",
    );
    assert!(err.contains("field `cost` should be a non-negative number of dollars, found -1"), "{err}");
    let (err, _, _dir) = prediction_error(
        "p.jsonl",
        "{\"instance_id\": \"a\", \"model_name_or_path\": \"m\", \"model_patch\": \"\", \"usage\": {\"prompt_tokens\": 1.5}}",
    );
    assert!(
        err.contains("field `usage.prompt_tokens` should be a whole, non-negative token count, found 1.5"),
        "{err}"
    );
    let (err, _, _dir) = prediction_error(
        "p.jsonl",
        "{\"instance_id\": \"a\", \"model_name_or_path\": \"m\", \"model_patch\": \"x\", \"fix_patch\": \"y\"}",
    );
    assert!(err.contains("both `model_patch` and `fix_patch`"), "{err}");
}

#[test]
fn empty_and_binary_files_are_reported() {
    let (err, path, _dir) = instance_error("d.jsonl", "\n  \n");
    assert!(err.starts_with(&format!("{} holds no instances", path.display())), "{err}");
    let (err, _, _dir) = instance_error("d.json", "[]");
    assert!(err.contains("holds no instances"), "{err}");
    let (_dir, path) = temp_file("p.jsonl", b"{\"instance_id\": \"a\"}\n\xff\xfe\x00garbage\n");
    let err = load_predictions(&path).unwrap_err().to_string();
    assert_eq!(err, format!("{}, line 2: not UTF-8 text; save the file as UTF-8 JSON or JSONL", path.display()));
    let err = load_predictions(Path::new("/nonexistent/p.jsonl")).unwrap_err().to_string();
    assert!(err.starts_with("cannot read /nonexistent/p.jsonl"), "{err}");
}

#[test]
fn a_single_record_object_is_one_record() {
    let (_dir, path) = temp_file("one.json", format!("{{\n \"instance_id\": \"a\", {ROW}\n}}\n").as_bytes());
    let instances = load_instances(&path).unwrap();
    assert_eq!(instances.len(), 1);
    assert!(instances[0].fail_to_pass.is_empty(), "missing test lists are empty");
}
