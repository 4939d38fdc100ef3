//! Patches that `git apply` refuses, applied as GNU `patch --fuzz` applies them: offsets,
//! fuzz, cumulative offsets over several hunks, hunks that match nowhere, the fuzz limit, and
//! the demo candidate with a stale context line. Every placement and post-image below was
//! checked against GNU patch 2.7.6 on this machine (`patch --batch -p1`, whose message is
//! quoted next to each case).

use std::path::Path;

use crate::localize::apply::split_lines;
use crate::localize::lenient::apply_hunks_lenient;
use crate::localize::{
    apply_patch, locate, AppliedWith, Candidate, CandidateOutcome, GoldOutcome, LocalizeItem, Localizer, LocateError,
    MemorySnapshot, PatchLocations, DEFAULT_MAX_FUZZ,
};
use crate::patch::{Dialect, Patch};

const CALC: &str = r#""""Calculator helpers."""

import math


def add(a, b):
    return a + b


def scale(value, factor):
    result = value * factor
    return result


class Meter:
    def __init__(self, unit):
        self.unit = unit

    def read(self, raw):
        value = raw / 10
        return value

    def label(self):
        return self.unit
"#;

/// Made against a copy without the import: stated two lines early.
/// patch: "Hunk #1 succeeded at 8 (offset 2 lines)."
const OFFSET: &str = "--- a/calc.py
+++ b/calc.py
@@ -6,7 +6,7 @@
 
 
 def scale(value, factor):
-    result = value * factor
+    result = value * float(factor)
     return result
 
 
";

/// Stated two lines early, and its first context line is stale.
/// patch: "Hunk #1 succeeded at 17 with fuzz 1 (offset 2 lines)."
const FUZZ_1: &str = "--- a/calc.py
+++ b/calc.py
@@ -15,7 +15,7 @@
         self.unit = unit.strip()
 
     def read(self, raw):
-        value = raw / 10
+        value = raw / 100
         return value
 
     def label(self):
";

/// Its removed line is not in the file. patch: "Hunk #1 FAILED at 15."
const REMOVED_LINE_MISSING: &str = "--- a/calc.py
+++ b/calc.py
@@ -15,7 +15,7 @@
         self.unit = unit
 
     def read(self, raw):
-        value = raw / 8
+        value = raw / 100
         return value
 
     def label(self):
";

/// All three leading context lines are stale. patch (fuzz 2): "Hunk #1 FAILED at 17.";
/// patch --fuzz=5: "Hunk #1 succeeded at 17 with fuzz 3."
const FUZZ_3: &str = "--- a/calc.py
+++ b/calc.py
@@ -17,7 +17,7 @@
         self.unit = unit.strip()
 
     def read(self, raw, base=10):
-        value = raw / 10
+        value = raw / 100
         return value
 
     def label(self):
";

/// The first hunk adds two lines, needs fuzz 1 and sits one line below its stated line; the
/// second inherits that offset and needs one more line. patch:
/// "Hunk #1 succeeded at 3 with fuzz 1 (offset 1 line)."
/// "Hunk #2 succeeded at 19 (offset 2 lines)." (19 counts the two added lines.)
const TWO_HUNKS: &str = "--- a/calc.py
+++ b/calc.py
@@ -2,7 +2,9 @@
 import maths
 
 
 def add(a, b):
+    if a is None:
+        return b
     return a + b
 
 
@@ -15,7 +17,7 @@
         self.unit = unit
 
     def read(self, raw):
-        value = raw / 10
+        value = raw / 100
         return value
 
     def label(self):
";

/// The second hunk's leading context is the line the first hunk changes: `git apply` refuses
/// the overlap, patch applies both where they are stated (no message: no offset, no fuzz).
const OVERLAP: &str = "--- a/calc.py
+++ b/calc.py
@@ -19,3 +19,3 @@
     def read(self, raw):
-        value = raw / 10
+        value = raw / 100
         return value
@@ -20,3 +20,3 @@
         value = raw / 10
-        return value
+        return round(value, 2)
 
";

fn snapshot() -> MemorySnapshot {
    [("calc.py", CALC)].into_iter().collect()
}

/// Applies a one-file patch leniently: the post-image and each hunk's (fuzz, offset).
fn lenient(patch: &str, max_fuzz: usize) -> Result<(String, Vec<(usize, isize)>), String> {
    let patch = Patch::parse(patch);
    let sections = patch.read(Dialect::Gnu).map_err(|e| e.to_string())?;
    let pre = split_lines(CALC.as_bytes());
    let applied = apply_hunks_lenient(&pre, &sections[0].hunks, max_fuzz, true).map_err(|m| m.reason)?;
    let post = String::from_utf8(applied.lines.concat()).map_err(|e| e.to_string())?;
    Ok((post, applied.placements.iter().map(|p| (p.fuzz, p.offset())).collect()))
}

fn reasons(locations: &PatchLocations) -> Vec<String> {
    locations.notes.iter().map(|n| n.to_string()).collect()
}

#[test]
fn an_exact_patch_records_exact_and_no_notes() {
    let patch = OFFSET.replace("@@ -6,7 +6,7 @@", "@@ -8,7 +8,7 @@");
    let got = locate(&patch, &snapshot()).expect("applies");
    assert_eq!(got.applied_with, AppliedWith::Exact);
    assert!(got.notes.is_empty(), "{:?}", got.notes);
    assert_eq!(got.functions, ["calc.py:scale"]);
}

#[test]
fn an_offset_alone_is_found_by_either_step() {
    let (post, placements) = lenient(OFFSET, DEFAULT_MAX_FUZZ).expect("applies");
    assert_eq!(placements, [(0, 2)]);
    assert_eq!(post, CALC.replace("value * factor", "value * float(factor)"));

    // `git apply` moves hunks too, so the first step takes it.
    let got = locate(OFFSET, &snapshot()).expect("applies");
    assert_eq!(got.applied_with, AppliedWith::Offset);
    assert_eq!(got.functions, ["calc.py:scale"]);
    assert_eq!(
        reasons(&got),
        ["calc.py: hunks applied away from their stated lines, as `git apply` allows: \
          hunk 1 (patch line 3) at line 8: offset +2 lines"]
    );
}

#[test]
fn a_stale_context_line_applies_with_fuzz_1() {
    let (post, placements) = lenient(FUZZ_1, DEFAULT_MAX_FUZZ).expect("applies");
    assert_eq!(placements, [(1, 2)]);
    // The file keeps its own context line, not the patch's stale one.
    assert_eq!(post, CALC.replace("raw / 10\n", "raw / 100\n"));

    let got = locate(FUZZ_1, &snapshot()).expect("applies with fuzz");
    assert_eq!(got.applied_with, AppliedWith::Fuzz);
    assert_eq!(got.files, ["calc.py"]);
    assert_eq!(got.classes, ["calc.py:Meter"]);
    assert_eq!(got.functions, ["calc.py:Meter.read"]);
    assert_eq!(
        reasons(&got),
        [
            "calc.py: `git apply` refuses the patch here (hunk 1 (patch line 3): its 7 context \
             and removed lines are not found (searched around line 15, as `git apply` does, in the \
             file as the earlier hunks left it)); the whole patch was applied as `patch --fuzz=2` \
             applies it",
            "calc.py: hunks applied as `patch --fuzz=2` places them: hunk 1 (patch line 3) at \
             line 17: offset +2 lines, fuzz 1",
        ]
    );
    let files = apply_patch(FUZZ_1, &snapshot()).expect("applies");
    assert_eq!(files[0].contents.as_deref(), Some(post.as_bytes()), "apply_patch takes the same steps");
}

#[test]
fn a_hunk_that_matches_nowhere_even_with_fuzz_does_not_apply() {
    let err = locate(REMOVED_LINE_MISSING, &snapshot()).unwrap_err();
    assert_eq!(
        err,
        LocateError::DoesNotApply {
            path: "calc.py".into(),
            reason: "hunk 1 (patch line 3): its 7 context and removed lines match nowhere \
                     between lines 1 and 18 (stated line 15), not even ignoring up to 2 of its \
                     context lines at either end (fuzz 2)"
                .into(),
        }
    );

    // As a candidate it scores 0 and stays out of the applied-only aggregates.
    let gold = OFFSET.replace("@@ -6,7 +6,7 @@", "@@ -8,7 +8,7 @@");
    let result = Localizer::new().score(LocalizeItem {
        instance_id: "calc-1".into(),
        language: None,
        gold_patch: gold,
        candidate: Candidate::Patch(REMOVED_LINE_MISSING.into()),
        snapshot: Box::new(snapshot()),
    });
    let CandidateOutcome::NotApplied { error } = &result.candidate else {
        panic!("not applied: {:?}", result.candidate)
    };
    assert!(error.contains("not even ignoring up to 2"), "{error}");
    assert!(!result.candidate.counts_as_applied());
    let scores = result.scores.expect("valid instance");
    assert_eq!(scores.function.map(|s| s.f1), Some(0.0));
}

#[test]
fn the_fuzz_limit_is_the_callers() {
    assert_eq!(Localizer::new().max_fuzz(), 2);
    let err = lenient(FUZZ_3, DEFAULT_MAX_FUZZ).unwrap_err();
    assert!(err.contains("(fuzz 2)"), "{err}");
    assert!(locate(FUZZ_3, &snapshot()).is_err());

    // verdict's apply chain runs `patch --fuzz=5`; three stale lines need fuzz 3.
    let (post, placements) = lenient(FUZZ_3, 5).expect("applies with fuzz 3");
    assert_eq!(placements, [(3, 0)]);
    assert_eq!(post, CALC.replace("raw / 10\n", "raw / 100\n"));
    let mut localizer = Localizer::new().with_max_fuzz(5);
    let got = localizer.locate(FUZZ_3, &snapshot(), &mut Default::default()).expect("applies");
    assert_eq!(got.applied_with, AppliedWith::Fuzz);
    assert_eq!(got.functions, ["calc.py:Meter.read"]);

    // Fuzz 0 still allows offsets, as `patch --fuzz=0` does.
    assert_eq!(lenient(OFFSET, 0).map(|r| r.1), Ok(vec![(0, 2)]));
    assert!(lenient(FUZZ_1, 0).is_err());
}

#[test]
fn a_second_hunk_finds_its_offset_after_the_first_changed_the_line_count() {
    let (post, placements) = lenient(TWO_HUNKS, DEFAULT_MAX_FUZZ).expect("applies");
    assert_eq!(placements, [(1, 1), (0, 2)]);
    assert_eq!(
        post,
        CALC.replace("    return a + b\n", "    if a is None:\n        return b\n    return a + b\n")
            .replace("raw / 10\n", "raw / 100\n")
    );

    let got = locate(TWO_HUNKS, &snapshot()).expect("applies");
    assert_eq!(got.applied_with, AppliedWith::Fuzz);
    assert_eq!(got.functions, ["calc.py:add", "calc.py:Meter.read"]);
    assert_eq!(
        reasons(&got)[1],
        "calc.py: hunks applied as `patch --fuzz=2` places them: hunk 1 (patch line 3) at line \
         3: offset +1 line, fuzz 1; hunk 2 (patch line 13) at line 17: offset +2 lines"
    );
}

#[test]
fn context_overlapping_the_previous_hunk_applies_as_patch_allows() {
    let (post, placements) = lenient(OVERLAP, DEFAULT_MAX_FUZZ).expect("applies");
    assert_eq!(placements, [(0, 0), (0, 0)]);
    assert_eq!(
        post,
        CALC.replace("raw / 10\n", "raw / 100\n").replace("        return value\n", "        return round(value, 2)\n")
    );
    // No hunk moved or needed fuzz, but only `patch` accepts it: recorded as `offset`.
    let got = locate(OVERLAP, &snapshot()).expect("applies");
    assert_eq!(got.applied_with, AppliedWith::Offset);
    assert_eq!(got.functions, ["calc.py:Meter.read"]);
    assert_eq!(got.notes.len(), 1, "{:?}", got.notes);
    assert!(got.notes[0].reason.starts_with("`git apply` refuses the patch here (hunk 2"));
}

/// patch: "Hunk #1 succeeded at 3 (offset -999999997 lines)." and "Hunk #2 succeeded at 19
/// (offset 1 line)." after 12 seconds of searching below the file's first line.
#[test]
fn absurd_line_numbers_stay_cheap() {
    let patch = "--- a/calc.py
+++ b/calc.py
@@ -1000000000,3 +1000000000,3 @@
 import math
-
+# helpers
 
@@ -18,3 +18,3 @@
     def read(self, raw):
-        value = raw / 10
+        value = raw / 100
         return value
";
    let started = std::time::Instant::now();
    let (post, placements) = lenient(patch, DEFAULT_MAX_FUZZ).expect("applies");
    assert!(started.elapsed().as_secs() < 2);
    assert_eq!(placements, [(0, -999_999_997), (0, 1)]);
    assert_eq!(
        post,
        CALC.replacen("import math\n\n", "import math\n# helpers\n", 1).replace("raw / 10\n", "raw / 100\n")
    );
}

#[test]
fn reports_written_before_applied_with_read_as_exact() {
    let old = r#"{"files":["a.py"],"created_files":[],"classes":[],"added_classes":[],
        "functions":["a.py:f"],"added_functions":[]}"#;
    let locations: PatchLocations = serde_json::from_str(old).expect("old report");
    assert_eq!(locations.applied_with, AppliedWith::Exact);
    let json = serde_json::to_value(PatchLocations { applied_with: AppliedWith::Fuzz, ..PatchLocations::default() })
        .expect("serializes");
    assert_eq!(json["applied_with"], "fuzz");
}

/// The bundled demo's verdict-demo__pycalc-4 (see tests/fixtures/localize/demo_pycalc_4/).
#[test]
fn the_demo_candidate_with_a_stale_context_line_scores_as_applied() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/localize/demo_pycalc_4");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let path = "pycalc/evaluate.py";
    let base: MemorySnapshot = [(path, read("before/pycalc/evaluate.py"))].into_iter().collect();
    let log = read("apply_log.txt");
    assert!(log.contains("Hunk #1 succeeded at 82 with fuzz 1 (offset 1 line)."));

    // The post-image is the one `patch` left in the scratch repository.
    let files = apply_patch(&read("candidate.diff"), &base).expect("applies");
    assert_eq!(files[0].contents.as_deref(), Some(read("after_patch/pycalc/evaluate.py").as_bytes()));

    let summary = Localizer::new().score_all([LocalizeItem {
        instance_id: "verdict-demo__pycalc-4".into(),
        language: Some("python".into()),
        gold_patch: read("gold.diff"),
        candidate: Candidate::Patch(read("candidate.diff")),
        snapshot: Box::new(base),
    }]);
    let result = &summary.instances[0];
    let GoldOutcome::Located { locations: gold } = &result.gold else { panic!("gold located: {:?}", result.gold) };
    assert_eq!(gold.applied_with, AppliedWith::Exact);
    let CandidateOutcome::Applied { locations } = &result.candidate else {
        panic!("candidate applied: {:?}", result.candidate)
    };
    assert_eq!(locations.applied_with, AppliedWith::Fuzz);
    assert_eq!(gold.functions, ["pycalc/evaluate.py:_Parser.atom"]);
    assert_eq!(locations.functions, gold.functions);
    assert_eq!(locations.classes, gold.classes);
    assert_eq!(locations.files, gold.files);
    assert!(
        reasons(locations).iter().any(|r| r.ends_with("hunk 1 (patch line 4) at line 82: offset +1 line, fuzz 1")),
        "{:?}",
        locations.notes
    );
    let scores = result.scores.as_ref().expect("valid");
    assert_eq!(scores.function.as_ref().map(|s| s.f1), Some(1.0));

    let agg = &summary.aggregate;
    assert_eq!((agg.candidates_applied, agg.candidates_applied_with_fuzz), (1, 1));
    assert_eq!(agg.applied_only.function.n, 1);
    assert_eq!(agg.applied_only.function.f1, 1.0);
}
