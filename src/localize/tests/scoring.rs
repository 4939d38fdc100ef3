//! Dataset scoring: invalid gold, failed and missing candidates, ranked candidates, the
//! applied-only and per-language aggregates, and the ranked-output field names.

use crate::localize::{
    score_instances, Candidate, CandidateOutcome, GoldOutcome, LocalizeItem, MemorySnapshot, RankedLocations,
};

const CORE: &str = "class Engine:
    def start(self):
        return 1

    def stop(self):
        return 0


def helper():
    return 2
";

/// Changes Engine.start and helper.
const GOLD: &str = "--- a/app/core.py
+++ b/app/core.py
@@ -1,4 +1,4 @@
 class Engine:
     def start(self):
-        return 1
+        return 10
 
@@ -9,2 +9,2 @@
 def helper():
-    return 2
+    return 20
";

/// Changes Engine.stop only.
const STOP: &str = "--- a/app/core.py
+++ b/app/core.py
@@ -4,4 +4,4 @@
 
     def stop(self):
-        return 0
+        return -1
 
";

fn item(id: &str, language: Option<&str>, gold: &str, candidate: Candidate) -> LocalizeItem<'static> {
    let snapshot: MemorySnapshot = [("app/core.py", CORE)].into_iter().collect();
    LocalizeItem {
        instance_id: id.to_string(),
        language: language.map(str::to_string),
        gold_patch: gold.to_string(),
        candidate,
        snapshot: Box::new(snapshot),
    }
}

#[test]
fn aggregates_follow_the_exclusion_rules() {
    let ranked = RankedLocations {
        files: vec!["./app/core.py".into()],
        functions: vec!["app/core.py:helper".into(), "app/core.py:Engine.start".into()],
        ..RankedLocations::default()
    };
    let summary = score_instances([
        item("i1-wrong-function", None, GOLD, Candidate::Patch(STOP.into())),
        item(
            "i2-not-applied",
            None,
            GOLD,
            // A removed line that is not there: no offset or fuzz finds it.
            Candidate::Patch(STOP.replace("-        return 0", "-        return 7")),
        ),
        item("i3-missing", Some(" Python "), GOLD, Candidate::Missing),
        item("i4-invalid-gold", None, &GOLD.replace("-    return 2\n", "-    return 3\n"), Candidate::Missing),
        item("i5-ranked", Some("java"), GOLD, Candidate::Ranked(ranked)),
    ]);

    let by_id = |id: &str| summary.instances.iter().find(|r| r.instance_id == id).expect(id);
    let i1 = by_id("i1-wrong-function");
    assert_eq!(i1.language, "python");
    let GoldOutcome::Located { locations } = &i1.gold else { panic!("gold located") };
    assert_eq!(locations.files, ["app/core.py"]);
    assert_eq!(locations.classes, ["app/core.py:Engine"]);
    assert_eq!(locations.functions, ["app/core.py:Engine.start", "app/core.py:helper"]);
    let scores = i1.scores.as_ref().expect("scored");
    // Right file, right class, wrong function.
    assert_eq!(scores.file.as_ref().map(|s| s.f1), Some(1.0));
    assert_eq!(scores.class.as_ref().map(|s| s.acc_at_1), Some(1.0));
    let function = scores.function.as_ref().expect("function level");
    assert_eq!((function.correct, function.f1, function.hit_at_10), (0, 0.0, 0.0));

    assert!(matches!(by_id("i2-not-applied").candidate, CandidateOutcome::NotApplied { .. }));
    assert_eq!(by_id("i3-missing").language, "python");
    assert!(by_id("i4-invalid-gold").scores.is_none());
    let i5 = by_id("i5-ranked").scores.as_ref().expect("scored");
    // Ranked [helper, Engine.start] against gold {Engine.start, helper}: all found, both in
    // the top 5 but not the top 1; no class predicted.
    let f = i5.function.as_ref().expect("function level");
    assert_eq!((f.f1, f.acc_at_1, f.acc_at_5, f.hit_at_1, f.reciprocal_rank), (1.0, 0.0, 1.0, 1.0, 1.0));
    assert_eq!(i5.class.as_ref().map(|c| c.f1), Some(0.0));

    let agg = &summary.aggregate;
    assert_eq!((agg.instances, agg.valid), (5, 4));
    assert_eq!(agg.invalid.len(), 1);
    assert_eq!(agg.invalid[0].instance_id, "i4-invalid-gold");
    assert!(agg.invalid[0].error.contains("does not apply"), "{}", agg.invalid[0].error);
    assert_eq!(
        (agg.candidates_applied, agg.candidates_not_applied, agg.candidates_missing, agg.candidates_ranked),
        (1, 1, 1, 1)
    );
    // All valid instances (i1, i2, i3, i5):
    //   file F1 (1 + 0 + 0 + 1) / 4 = 0.5; class F1 (1 + 0 + 0 + 0) / 4 = 0.25;
    //   function F1 (0 + 0 + 0 + 1) / 4 = 0.25, Acc@5 likewise 0.25.
    assert_eq!(agg.all.file.n, 4);
    assert_eq!(agg.all.file.f1, 0.5);
    assert_eq!(agg.all.class.f1, 0.25);
    assert_eq!(agg.all.function.f1, 0.25);
    assert_eq!(agg.all.function.acc_at_5, 0.25);
    // Applied only (i1, i5): file (1 + 1) / 2, class (1 + 0) / 2, function (0 + 1) / 2.
    assert_eq!(agg.applied_only.file.n, 2);
    assert_eq!(agg.applied_only.file.f1, 1.0);
    assert_eq!(agg.applied_only.class.f1, 0.5);
    assert_eq!(agg.applied_only.function.f1, 0.5);
    // Per language: python = i1, i2, i3 (file F1 1/3); java = i5 (given, not inferred).
    let python = &agg.by_language["python"];
    assert_eq!(python.instances, 3);
    assert!((python.all.file.f1 - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(python.applied_only.file.n, 1);
    assert_eq!(agg.by_language["java"].all.function.f1, 1.0);
    assert!(agg.ordering.contains("first appearance"));

    // The summary serializes, and reads back the same.
    let json = serde_json::to_string(&summary).expect("serialize");
    assert!(json.contains("\"status\":\"not_applied\""), "{json}");
    let back: crate::localize::LocalizationSummary = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(back, summary);
}

#[test]
fn an_instance_without_gold_at_a_level_is_left_out_of_that_level() {
    // The gold only changes a module-level line: file level only.
    let gold = "--- a/app/core.py\n+++ b/app/core.py\n@@ -9,2 +9,3 @@\n def helper():\n     return 2\n+CONSTANT = 1\n";
    let summary = score_instances([item("only-file", None, gold, Candidate::Patch(STOP.into()))]);
    let scores = summary.instances[0].scores.as_ref().expect("scored");
    assert!(scores.file.is_some() && scores.class.is_none() && scores.function.is_none());
    let agg = &summary.aggregate;
    assert_eq!((agg.all.file.n, agg.all.class.n, agg.all.function.n), (1, 0, 0));
    assert_eq!(agg.all.function.f1, 0.0);
}

#[test]
fn ranked_outputs_accept_locagent_and_mm_issueloc_field_names() {
    let locagent: RankedLocations = serde_json::from_str(
        r#"{"instance_id": "x__y-1", "found_files": ["a/b.py", " ./c.py "],
            "found_modules": ["a/b.py:Foo", "a/b.py:Foo"],
            "found_entities": ["a/b.py:Foo.bar", "src/x.cpp:ns::Box::get()", "A.java:A#run"],
            "raw_output_loc": ["ignored"]}"#,
    )
    .expect("LocAgent shape");
    assert_eq!(locagent.instance_id.as_deref(), Some("x__y-1"));
    let n = locagent.normalized();
    assert_eq!(n.files, ["a/b.py", "c.py"]);
    assert_eq!(n.classes, ["a/b.py:Foo"]);
    assert_eq!(n.functions, ["a/b.py:Foo.bar", "src/x.cpp:ns.Box.get", "A.java:A.run"]);

    let mm: RankedLocations = serde_json::from_str(
        r#"{"found_files": ["f.ts"], "found_classes": ["f.ts:C"], "found_functions": ["f.ts:C.m"]}"#,
    )
    .expect("MM-IssueLoc shape");
    assert_eq!((mm.files.len(), mm.classes.len(), mm.functions.len()), (1, 1, 1));
    let plain: RankedLocations = serde_json::from_str(r#"{"files": [], "functions": ["f.go:F"]}"#).expect("plain");
    assert_eq!(plain.functions, ["f.go:F"]);
}
