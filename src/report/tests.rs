//! Tests of report serialization, summary counting, the tables and the validation helpers.

use std::collections::BTreeMap;
use std::path::Path;

use super::*;
use crate::dataset::{load_instances, Cost};
use crate::grade::{derive_lists, grade};
use crate::parse::{ResultSource, TestResult};

fn report(id: &str, outcome: Outcome, language: &str, repo: &str) -> InstanceReport {
    let applied = !matches!(outcome, Outcome::PatchApplyFailed | Outcome::EmptyPatch | Outcome::BuildFailed);
    InstanceReport {
        instance_id: id.into(),
        model: "m".into(),
        method: None,
        repo: repo.into(),
        language: language.into(),
        outcome,
        reason: None,
        patch_sha256: patch_sha256(id),
        environment: format!("image-of-{id}"),
        apply: ApplyInfo { step: applied.then_some(ApplyStep::GitApply), strict: applied, lenient: applied },
        flags: Vec::new(),
        suspicious: Vec::new(),
        exit_code: None,
        parse: None,
        tests: None,
        grade: None,
        integrity: Vec::new(),
        cost: None,
        timing: Timing { wall_secs: 2.0, cpu_secs: Some(1.5) },
        clock: Default::default(),
        rules: Default::default(),
        image_bytes: Some(1_000_000),
        image_layers: Vec::new(),
        toolchains: Vec::new(),
        localization: None,
        logs: LogFiles::default(),
        run: None,
    }
}

/// Ten instances, nine submitted, one of every outcome and a second resolved one.
fn sample() -> (Vec<String>, Vec<InstanceReport>) {
    let mut reports = vec![
        report("a", Outcome::ResolvedFull, "python", "o/py"),
        report("b", Outcome::ResolvedFull, "java", "o/jv"),
        report("c", Outcome::ResolvedPartial, "python", "o/py"),
        report("d", Outcome::Unresolved, "python", "o/py"),
        report("e", Outcome::PatchApplyFailed, "java", "o/jv"),
        report("f", Outcome::EmptyPatch, "python", "o/py"),
        report("g", Outcome::Timeout, "python", "o/py"),
        report("h", Outcome::BuildFailed, "java", "o/jv"),
        report("i", Outcome::InfraError, "python", "o/py"),
    ];
    reports[3].apply = ApplyInfo { step: Some(ApplyStep::PatchFuzz), strict: false, lenient: true };
    reports[0].cost = Some(Cost { dollars: Some(0.5), ..Cost::default() });
    reports[1].cost =
        Some(Cost { dollars: Some(0.25), input_tokens: Some(10), output_tokens: Some(2), ..Cost::default() });
    reports[3].flags.push("touches test files: tests/test_x.py".into());
    reports[2].integrity.push("exit 0 but failures".into());
    let total = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"].iter().map(|s| s.to_string()).collect();
    (total, reports)
}

#[test]
fn summary_counts_follow_swe_bench() {
    let (total, reports) = sample();
    let s = summarize(&total, &reports, &BTreeMap::new());
    assert_eq!(s.total_instances, 10);
    assert_eq!(s.submitted_instances, 9);
    assert_eq!(s.completed_ids, ["a", "b", "c", "d"]);
    assert_eq!(s.resolved_ids, ["a", "b"]);
    assert_eq!(s.unresolved_ids, ["c", "d"], "partial counts as unresolved, as in SWE-bench");
    assert_eq!(s.resolved_partial_ids, ["c"]);
    assert_eq!(s.empty_patch_ids, ["f"]);
    assert_eq!(s.error_ids, ["e", "g", "h", "i"]);
    assert_eq!(s.incomplete_ids, ["j"]);
    assert_eq!(
        (s.patch_apply_failed_ids.len(), s.timeout_ids.len(), s.build_failed_ids.len(), s.infra_error_ids.len()),
        (1, 1, 1, 1)
    );
    assert_eq!(
        s.completed_instances + s.empty_patch_instances + s.error_instances + s.incomplete_ids.len(),
        s.total_instances,
        "every instance is counted exactly once"
    );
    assert_eq!(s.outcomes[&Outcome::ResolvedFull], 2);
    assert_eq!(s.resolve_rate.to_string(), "20.0% (2/10)");
    // Applied: a b c d(fuzz) g i strictly except d.
    assert_eq!((s.apply_rate_strict.numerator, s.apply_rate_lenient.numerator), (5, 6));
    assert_eq!(s.flagged_ids, ["d"]);
    assert_eq!(s.integrity_warning_ids, ["c"]);
    assert_eq!(s.cost.instances_with_cost, 2);
    assert!((s.cost.total_dollars - 0.75).abs() < 1e-12);
    assert_eq!(s.cost.mean_dollars_per_instance, Some(0.375));
    assert_eq!((s.cost.input_tokens, s.cost.output_tokens), (10, 2));
    assert_eq!(s.verdict_cost, OwnCost { wall_secs: 18.0, cpu_secs: 13.5, image_bytes: 9_000_000 });
    let python = &s.by_language["python"];
    assert_eq!((python.instances, python.submitted, python.resolved), (6, 6, 1));
    assert_eq!(s.by_language["unknown"].instances, 1, "the unsubmitted instance has no language");
    assert_eq!(s.by_repo["o/jv"].resolve_rate.to_string(), "33.3% (1/3)");
    assert!(s.by_patch_scope.is_empty(), "no facts, no scope breakdown");

    let json = serde_json::to_value(&s).unwrap();
    for key in [
        "total_instances",
        "submitted_instances",
        "completed_instances",
        "resolved_instances",
        "unresolved_instances",
        "empty_patch_instances",
        "error_instances",
        "completed_ids",
        "incomplete_ids",
        "empty_patch_ids",
        "submitted_ids",
        "resolved_ids",
        "unresolved_ids",
        "error_ids",
        "schema_version",
    ] {
        assert!(json.get(key).is_some(), "summary lacks SWE-bench's {key}");
    }
    assert_eq!(json["outcomes"]["patch_apply_failed"], 1);
    assert_eq!(json["resolve_rate"], serde_json::json!({"value": 0.2, "numerator": 2, "denominator": 10}));
    let back: Summary = serde_json::from_value(json).unwrap();
    assert_eq!(back, s);
}

#[test]
fn resolved_flagged_is_counted_apart_from_the_resolve_rate() {
    let (total, mut reports) = sample();
    reports[1].outcome = Outcome::ResolvedFlagged;
    reports[1].suspicious.push(crate::grade::Suspicion {
        name: "test_framework_import".into(),
        path: "src/x.py".into(),
        line: Some(1),
        excerpt: "import _pytest".into(),
    });
    let s = summarize(&total, &reports, &BTreeMap::new());
    assert_eq!(s.resolved_ids, ["a"]);
    assert_eq!(s.resolved_flagged_ids, ["b"]);
    assert_eq!(s.resolve_rate.to_string(), "10.0% (1/10)");
    assert_eq!(s.completed_ids, ["a", "b", "c", "d"]);
    assert_eq!(s.unresolved_ids, ["b", "c", "d"], "SWE-bench's fields never count it as resolved");
    assert_eq!(s.outcomes[&Outcome::ResolvedFlagged], 1);
    assert_eq!((s.by_language["java"].resolved, s.by_language["java"].resolved_flagged), (0, 1));
    let table = render_table(&s);
    assert!(table.lines().any(|l| l.split_whitespace().eq(["resolved_flagged", "1"])), "{table}");
    assert!(table.contains("resolved but flagged  1: b (not in the resolve rate; review them)"), "{table}");
    let json = serde_json::to_value(&reports[1]).unwrap();
    assert_eq!(json["outcome"], "resolved_flagged");
    assert_eq!(json["suspicious"][0]["name"], "test_framework_import");
    assert_eq!(json["clock"], serde_json::json!({ "source": "real" }));
}

#[test]
fn facts_drive_scope_and_image_breakdowns() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dataset/instances.json");
    let instances = load_instances(&path).unwrap();
    let facts: BTreeMap<String, InstanceFacts> =
        instances.iter().map(|i| (i.instance_id.clone(), InstanceFacts::from_instance(i, Some("python")))).collect();
    let one = &facts["verdict-demo__calc-1"];
    let two = &facts["verdict-demo__calc-2"];
    assert!(!one.cross_file && !one.visual);
    assert!(two.cross_file && two.visual);
    let reports = vec![
        report("verdict-demo__calc-1", Outcome::ResolvedFull, "python", "verdict-demo/calc"),
        report("verdict-demo__calc-2", Outcome::Unresolved, "python", "verdict-demo/calc"),
    ];
    let ids: Vec<String> = instances.iter().map(|i| i.instance_id.clone()).collect();
    let s = summarize(&ids, &reports, &facts);
    assert_eq!(s.by_patch_scope["single_file"].resolve_rate.to_string(), "100.0% (1/1)");
    assert_eq!(s.by_patch_scope["cross_file"].resolve_rate.to_string(), "0.0% (0/1)");
    assert_eq!(s.by_images["with_images"].instances, 1);
}

#[test]
fn images_are_found_in_links_not_in_file_names() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dataset/instances.json");
    let mut instance = load_instances(&path).unwrap().remove(0);
    let visual = |text: &str, i: &mut crate::dataset::Instance| {
        i.problem_statement = text.to_string();
        InstanceFacts::from_instance(i, None).visual
    };
    assert!(!visual("savefig('plot.png') writes an empty file", &mut instance));
    assert!(visual("see https://example.invalid/a/shot.PNG?raw=1", &mut instance));
    assert!(visual("<img width=\"300\" src=\"x\">", &mut instance));
    assert!(visual("![image](https://github.com/user-attachments/assets/0b1c)", &mut instance));
}

#[test]
fn patch_files_reads_git_and_plain_diffs() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dataset/instances.json");
    let instances = load_instances(&path).unwrap();
    let files: Vec<_> = summary::patch_files(&instances[1].patch).into_iter().collect();
    assert_eq!(files, ["calc/fmt.py", "calc/ops.py"]);
    // OmniGIRL-style: no `diff --git` header, a leading blank line, a deleted file.
    let plain = "\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n";
    let files: Vec<_> = summary::patch_files(plain).into_iter().collect();
    assert_eq!(files, ["gone.py", "x.py"]);
}

#[test]
fn terminal_table_shows_rates_costs_and_languages() {
    let (total, reports) = sample();
    let text = render_table(&summarize(&total, &reports, &BTreeMap::new()));
    assert!(text.starts_with("10 instances, 9 submitted, 4 completed\n"), "{text}");
    assert!(text.contains("resolve rate          20.0% (2/10)\n"), "{text}");
    assert!(text.contains("apply rate (strict)   50.0% (5/10)\n"), "{text}");
    assert!(text.contains("apply rate (lenient)  60.0% (6/10)\n"), "{text}");
    assert!(text.contains("mean cost             $0.3750 per instance (2 of 9 with a cost, $0.7500 total)"), "{text}");
    assert!(text.contains("verdict's cost        18.0 s wall, 13.5 s CPU, 9.0 MB of images"), "{text}");
    assert!(text.contains("patch_apply_failed      1\n"), "{text}");
    assert!(text.contains("not submitted           1\n"), "{text}");
    assert!(text.contains("flagged               1: d\n"), "{text}");
    let header = text.lines().find(|l| l.starts_with("language")).expect(&text);
    assert_eq!(header, "language  instances     resolved  partial  apply (strict)  apply (lenient)  mean cost");
    assert!(
        text.contains("\npython            6  16.7% (1/6)        1     66.7% (4/6)      83.3% (5/6)    $0.5000\n"),
        "{text}"
    );
}

#[test]
fn instance_report_round_trips_through_a_file() {
    let parsed = ParsedTests {
        tests: [("t::a".to_string(), TestResult { status: TestStatus::Passed, file: None, class: None })].into(),
        source: ResultSource::Structured,
        disagreements: Vec::new(),
        notes: vec!["junit report".into()],
        nesting: Default::default(),
        console_summary: None,
        incomplete: None,
    };
    let mut r = report("x", Outcome::ResolvedFull, "python", "o/r");
    r.grade = Some(grade(&["t::a".to_string()], &[], &parsed));
    r.tests = Some(tests_map(&parsed));
    r.parse = Some(ParseInfo::from(&parsed));
    r.exit_code = Some(0);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.json");
    r.write(&path).unwrap();
    assert_eq!(InstanceReport::read(&path).unwrap(), r);
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(json["outcome"], "resolved_full");
    assert_eq!(json["tests"]["t::a"], "PASSED");
    assert_eq!(json["grade"]["tests_status"]["FAIL_TO_PASS"]["success"][0], "t::a");
    std::fs::write(&path, "{}").unwrap();
    let err = InstanceReport::read(&path).unwrap_err().to_string();
    assert!(err.contains("is not a verdict report") && err.contains("delete it to rerun"), "{err}");
}

#[test]
fn outcome_names_and_resolution_mapping() {
    let names: Vec<String> =
        Outcome::ALL.iter().map(|o| serde_json::to_value(o).unwrap().as_str().unwrap().to_string()).collect();
    assert_eq!(
        names,
        [
            "resolved_full",
            "resolved_flagged",
            "resolved_partial",
            "unresolved",
            "patch_apply_failed",
            "empty_patch",
            "timeout",
            "build_failed",
            "infra_error"
        ]
    );
    for o in Outcome::ALL {
        assert_eq!(o.to_string(), serde_json::to_value(o).unwrap().as_str().unwrap());
    }
    assert_eq!(Outcome::from(crate::grade::Resolution::Partial), Outcome::ResolvedPartial);
    assert_eq!(patch_sha256(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

fn parsed(tests: &[(&str, TestStatus)]) -> ParsedTests {
    ParsedTests {
        tests: tests
            .iter()
            .map(|(id, s)| (id.to_string(), TestResult { status: *s, file: None, class: None }))
            .collect(),
        source: ResultSource::Console,
        disagreements: Vec::new(),
        notes: Vec::new(),
        nesting: Default::default(),
        console_summary: None,
        incomplete: None,
    }
}

#[test]
fn validation_statuses_from_derived_lists() {
    use TestStatus::*;
    let before = [parsed(&[("t::new", Failed), ("t::old", Passed), ("t::flaky", Passed)])];
    let after = [parsed(&[("t::new", Passed), ("t::old", Passed), ("t::flaky", Failed)])];
    let flaky_after = [parsed(&[("t::new", Passed), ("t::old", Passed), ("t::flaky", Passed)])];
    let d = derive_lists(&before, &[after[0].clone(), flaky_after[0].clone()]);
    let (status, reason) = validation_status(&d);
    assert_eq!(status, ValidationStatus::Valid);
    assert_eq!(reason, "1 FAIL_TO_PASS and 1 PASS_TO_PASS test(s) over 1 run(s) before and 2 after; 1 flaky test(s) left out of both lists");

    let still_failing = derive_lists(&before, &[parsed(&[("t::new", Failed), ("t::old", Passed)])]);
    let (status, reason) = validation_status(&still_failing);
    assert_eq!(status, ValidationStatus::GoldFails);
    assert!(reason.contains("1 test(s) still fail with the gold patch: t::new"), "{reason}");

    let nothing_new = derive_lists(&[parsed(&[("t::old", Passed)])], &[parsed(&[("t::old", Passed)])]);
    assert_eq!(validation_status(&nothing_new).0, ValidationStatus::NoFailToPass);
    let (status, reason) = validation_status(&derive_lists(&[], &[]));
    assert_eq!(status, ValidationStatus::NoFailToPass);
    assert!(reason.contains("no test result was parsed"), "{reason}");
    assert_eq!(serde_json::to_value(ValidationStatus::TestPatchDoesNotApply).unwrap(), "test_patch_does_not_apply");
}

#[test]
fn drift_names_each_test_that_no_longer_grades_as_expected() {
    use TestStatus::*;
    let run = parsed(&[("t::a", Passed), ("t::b", Skipped), ("t::c", Failed)]);
    let f2p = vec!["t::a".to_string(), "t::b".to_string()];
    let p2p = vec!["t::c".to_string(), "t::gone".to_string()];
    let g = grade(&f2p, &p2p, &run);
    let drift = drift_from_grade(&g, &run);
    let pairs: Vec<(String, &str, &str)> =
        drift.iter().map(|d| (d.list.to_string(), d.id.as_str(), d.now.as_str())).collect();
    assert_eq!(
        pairs,
        [
            ("FAIL_TO_PASS".to_string(), "t::b", "SKIPPED"),
            ("PASS_TO_PASS".to_string(), "t::c", "FAILED"),
            ("PASS_TO_PASS".to_string(), "t::gone", "missing"),
        ]
    );
}

#[test]
fn image_bytes_count_each_instance_image_once() {
    let mut a = report("a", Outcome::ResolvedFull, "python", "o/r");
    let mut b = report("b", Outcome::Unresolved, "python", "o/r");
    a.environment = "verdict-instance-o__r:1".into();
    b.environment = "verdict-instance-o__r:1".into();
    let c = report("c", Outcome::Unresolved, "python", "o/r");
    let ids: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
    let s = summarize(&ids, &[a, b, c], &BTreeMap::new());
    assert_eq!(s.verdict_cost.image_bytes, 2_000_000, "a and b share one image");
}

#[test]
fn image_bytes_count_each_shared_layer_once() {
    use crate::images::layers::LayerSize;
    let layer = |id: &str, bytes: u64| LayerSize { chain_id: id.into(), bytes };
    let base = [layer("os", 199_000_000), layer("node", 473_000_000)];
    let reports: Vec<InstanceReport> = (0..3)
        .map(|k| {
            let mut r = report(&format!("i{k}"), Outcome::Unresolved, "javascript", "o/r");
            r.image_bytes = Some(672_000_000 + 141_000);
            r.image_layers = [&base[..], &[layer(&format!("repo{k}"), 141_000)]].concat();
            r
        })
        .collect();
    // A report from before layers were recorded adds its whole image once.
    let old = report("old", Outcome::Unresolved, "python", "o/py");
    let ids: Vec<String> = ["i0", "i1", "i2", "old"].map(String::from).to_vec();
    let s = summarize(&ids, &[reports, vec![old]].concat(), &BTreeMap::new());
    assert_eq!(s.verdict_cost.image_bytes, 672_000_000 + 3 * 141_000 + 1_000_000);
}

/// Two models of one sample: the comparison's figures are each summary's own, the instances
/// resolved by one and not the other are listed, and every format carries them.
#[test]
fn comparison_rows_are_the_summaries_figures() {
    use super::compare::{compare, render, Compared, Format};
    let (total, reports) = sample();
    let mut first = summarize(&total, &reports, &BTreeMap::new());
    first.model = Some("m|pipe".into());
    let mut other_reports = reports.clone();
    other_reports[0].outcome = Outcome::Unresolved; // a: resolved by the first only
    other_reports[3].outcome = Outcome::ResolvedFull; // d: by the second only
    other_reports[6].outcome = Outcome::ResolvedFlagged; // g: flagged, not resolved, no difference
    let mut second = summarize(&total, &other_reports, &BTreeMap::new());
    second.model = Some("m2".into());
    second.method = Some("agentless".into());
    let runs =
        [Compared { run: "r1".into(), summary: first.clone() }, Compared { run: "r2".into(), summary: second.clone() }];
    let c = compare(&runs);
    assert_eq!(c.rows.len(), 2);
    assert_eq!(c.rows[1].label, "m2 (agentless)");
    assert_eq!((c.rows[0].figures.resolved_flagged, c.rows[1].figures.resolved_flagged), (0, 1));
    for (row, s) in c.rows.iter().zip([&first, &second]) {
        assert_eq!(row.figures.resolve_rate, s.resolve_rate);
        assert_eq!(row.figures.apply_rate_strict, s.apply_rate_strict);
        assert_eq!(row.figures.apply_rate_lenient, s.apply_rate_lenient);
        assert_eq!(row.figures.mean_cost_dollars, s.cost.mean_dollars_per_instance);
    }
    let language = c.breakdowns.iter().find(|t| t.kind == "language").unwrap();
    let python = language.rows.iter().find(|g| g.label == "m2 (agentless)" && g.group == "python").unwrap();
    assert_eq!(python.figures.resolve_rate, second.by_language["python"].resolve_rate);
    let differing: Vec<(&str, Vec<Option<&str>>)> = c
        .differences
        .iter()
        .map(|d| (d.instance_id.as_str(), d.outcomes.iter().map(|o| o.as_deref()).collect()))
        .collect();
    assert_eq!(
        differing,
        [
            ("a", vec![Some("resolved_full"), Some("unresolved")]),
            ("d", vec![Some("unresolved"), Some("resolved_full")])
        ]
    );
    // The same model in two runs is told apart by its run.
    let twice = compare(&[runs[0].clone(), Compared { run: "r3".into(), summary: first.clone() }]);
    assert_eq!(twice.rows[1].label, "r3 / m|pipe");

    let markdown = render(&c, Format::Markdown, true).unwrap();
    assert!(markdown.contains("| m\\|pipe | 10 | 20.0% (2/10) | 1 |"), "{markdown}");
    assert!(markdown.contains("| d | unresolved | resolved_full |"), "{markdown}");
    let terminal = render(&c, Format::Terminal, false).unwrap();
    assert!(terminal.lines().any(|l| l.starts_with("m2 (agentless)") && l.contains("20.0% (2/10)")), "{terminal}");
    assert!(markdown.contains("| m2 (agentless) | 10 | 20.0% (2/10) | 1 | 1 |"), "{markdown}");
    assert!(!terminal.contains("resolved by some"), "differences only when asked");
    let csv_text = render(&c, Format::Csv, false).unwrap();
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    let all = rows.iter().find(|r| &r[1] == "m|pipe" && &r[3] == "all").unwrap();
    assert_eq!((&all[5], &all[6], &all[9], &all[10], &all[12]), ("10", "2", "0", "5", "6"));
    let json: serde_json::Value = serde_json::from_str(&render(&c, Format::Json, false).unwrap()).unwrap();
    assert_eq!(json["rows"][0]["resolve_rate"]["numerator"], 2);
    assert_eq!(json["differences"].as_array().unwrap().len(), 2);
}

#[test]
fn junit_has_one_case_per_instance_failed_when_not_resolved() {
    use quick_xml::events::Event;
    let (total, reports) = sample();
    let mut summary = summarize(&total, &reports, &BTreeMap::new());
    summary.model = Some("m".into());
    let xml = super::junit::render("run-1", &[(summary, reports.clone())]).unwrap();
    let mut reader = quick_xml::Reader::from_str(&xml);
    let mut cases: Vec<(String, Option<(String, String)>)> = Vec::new();
    loop {
        match reader.read_event().unwrap() {
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) => {
                let get = |k: &str| {
                    e.try_get_attribute(k)
                        .unwrap()
                        .map(|a| a.normalized_value(quick_xml::XmlVersion::Implicit1_0).unwrap().into_owned())
                };
                match e.name().as_ref() {
                    "testcase" => cases.push((get("name").unwrap(), None)),
                    kind @ ("failure" | "error") => {
                        cases.last_mut().unwrap().1 = Some((kind.to_string(), get("type").unwrap()))
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    assert_eq!(cases.len(), reports.len());
    for r in &reports {
        let (_, status) = cases.iter().find(|(name, _)| name == &r.instance_id).unwrap();
        let expected = match r.outcome {
            Outcome::ResolvedFull => None,
            Outcome::BuildFailed | Outcome::InfraError => Some(("error".to_string(), r.outcome.name().to_string())),
            _ => Some(("failure".to_string(), r.outcome.name().to_string())),
        };
        assert_eq!(status, &expected, "{}", r.instance_id);
    }
}

#[test]
fn localization_scores_are_typed_and_keep_their_json_shape() {
    // The shape `report.json` has carried since localization scores were added, written before
    // `applied_with` existed (it reads as `exact`).
    let written = serde_json::json!({
        "instance_id": "a",
        "language": "python",
        "gold": {"status": "located", "locations": {
            "files": ["app/core.py"], "created_files": [], "classes": [], "added_classes": [],
            "functions": ["app/core.py:helper"], "added_functions": []}},
        "candidate": {"status": "not_applied", "error": "the patch does not apply to `app/core.py`: hunk 1"},
        "scores": {"file": {"gold": 1, "predicted": 0, "correct": 0, "precision": 0.0, "recall": 0.0, "f1": 0.0,
            "acc_at_1": 0.0, "acc_at_5": 0.0, "acc_at_10": 0.0, "hit_at_1": 0.0, "hit_at_5": 0.0, "hit_at_10": 0.0,
            "recall_at_1": 0.0, "recall_at_5": 0.0, "recall_at_10": 0.0, "first_hit_rank": null, "reciprocal_rank": 0.0},
            "class": null, "function": {"gold": 1, "predicted": 0, "correct": 0, "precision": 0.0, "recall": 0.0,
            "f1": 0.0, "acc_at_1": 0.0, "acc_at_5": 0.0, "acc_at_10": 0.0, "hit_at_1": 0.0, "hit_at_5": 0.0,
            "hit_at_10": 0.0, "recall_at_1": 0.0, "recall_at_5": 0.0, "recall_at_10": 0.0, "first_hit_rank": null, "reciprocal_rank": 0.0}}
    });
    let mut value = serde_json::to_value(report("a", Outcome::Unresolved, "python", "o/py")).unwrap();
    value["localization"] = written.clone();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.json");
    std::fs::write(&path, serde_json::to_vec(&value).unwrap()).unwrap();

    let read = InstanceReport::read(&path).expect("an existing report reads");
    let localization = read.localization.as_ref().expect("typed scores");
    assert!(matches!(
        &localization.gold,
        crate::localize::GoldOutcome::Located { locations } if locations.applied_with == crate::localize::AppliedWith::Exact
    ));
    assert!(matches!(localization.candidate, crate::localize::CandidateOutcome::NotApplied { .. }));
    let again = serde_json::to_value(&read).unwrap();
    assert_eq!(again["localization"]["candidate"], written["candidate"]);
    assert_eq!(again["localization"]["scores"], written["scores"]);
    assert_eq!(again["localization"]["gold"]["locations"]["functions"], written["gold"]["locations"]["functions"]);

    // The summary's aggregate is typed too and counts the candidate as not applied.
    let aggregate = localization::aggregate(std::slice::from_ref(&read)).expect("aggregate");
    assert_eq!((aggregate.valid, aggregate.candidates_not_applied), (1, 1));
}
