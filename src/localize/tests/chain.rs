//! The container's apply chain, one cause of disagreement at a time: patches in the shapes
//! models emit that `git apply` and GNU `patch --batch --fuzz=5` read or place differently from
//! a naive reading. Each case states what the two programs did with it (git 2.39, GNU patch
//! 2.7.6, on a repository holding `app/shapes.py` below); the localizer must count the same
//! patches as applied and give the same post-images.

use crate::localize::{
    apply_patch, AppliedWith, Candidate, CandidateOutcome, LocalizeItem, Localizer, MemorySnapshot, PatchLocations,
};

const SHAPES: &str = r#""""Shapes."""

import math


class Circle:
    def __init__(self, r):
        self.r = r

    def area(self):
        return math.pi * self.r ** 2

    def perimeter(self):
        return 2 * math.pi * self.r


class Square:
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side ** 2


def describe(shape):
    return type(shape).__name__
"#;

const H: &str = "--- a/app/shapes.py\n+++ b/app/shapes.py\n";
const CIRCLE_AREA: &str = "@@ -10,3 +10,3 @@ class Circle:\n     def area(self):\n-        return math.pi * self.r ** 2\n+        return math.pi * self.r * self.r\n \n";
const SQUARE_AREA: &str = "@@ -21,3 +21,3 @@ class Square:\n     def area(self):\n-        return self.side ** 2\n+        return self.side * self.side\n \n";

fn snapshot() -> MemorySnapshot {
    [("app/shapes.py", SHAPES)].into_iter().collect()
}

/// SHAPES with both `area` methods rewritten, as `CIRCLE_AREA` and `SQUARE_AREA` leave it.
fn both_areas() -> String {
    SHAPES.replace("self.r ** 2", "self.r * self.r").replace("self.side ** 2", "self.side * self.side")
}

/// Localizes `patch` as a candidate with the container's fuzz limit.
fn candidate(patch: &str) -> CandidateOutcome {
    let gold = format!("{H}{CIRCLE_AREA}");
    Localizer::new()
        .with_max_fuzz(5)
        .score(LocalizeItem {
            instance_id: "shapes-1".into(),
            language: None,
            gold_patch: gold,
            candidate: Candidate::Patch(patch.to_string()),
            snapshot: Box::new(snapshot()),
        })
        .candidate
}

fn applied(patch: &str) -> PatchLocations {
    match candidate(patch) {
        CandidateOutcome::Applied { locations } => locations,
        other => panic!("expected applied, got {other:?}"),
    }
}

fn not_applied(patch: &str) -> String {
    match candidate(patch) {
        CandidateOutcome::NotApplied { error } => error,
        other => panic!("expected not applied, got {other:?}"),
    }
}

fn post_image(patch: &str, path: &str) -> Option<String> {
    let files = apply_patch(patch, &snapshot()).expect("applies");
    let file = files.into_iter().find(|f| f.new_path == path).expect("touched");
    file.contents.map(|c| String::from_utf8(c).expect("utf-8"))
}

#[test]
fn a_file_created_without_dev_null() {
    // `git apply`: "Applied patch app/util.py cleanly" (a headerless section whose one hunk has
    // no old lines creates a missing file). `patch`: "patching file app/util.py".
    let patch = "--- a/app/util.py\n+++ b/app/util.py\n@@ -0,0 +1,2 @@\n+def helper():\n+    return 1\n";
    let got = applied(patch);
    assert_eq!(got.applied_with, AppliedWith::Exact);
    assert_eq!(got.created_files, ["app/util.py"]);
    assert_eq!(post_image(patch, "app/util.py").as_deref(), Some("def helper():\n    return 1\n"));

    // With a `diff --git` header, `git apply` wants the file to exist ("No such file or
    // directory"); `patch` creates it all the same.
    let git = format!("diff --git a/app/util.py b/app/util.py\n{patch}");
    let got = applied(&git);
    assert_eq!(got.applied_with, AppliedWith::Offset);
    assert_eq!(got.created_files, ["app/util.py"]);
    assert!(got.notes[0].reason.contains("`git apply` refuses the patch here"), "{:?}", got.notes);
}

#[test]
fn hunks_out_of_file_order_apply_as_git_applies_them() {
    // `git apply`: "Applied patch app/shapes.py cleanly"; each hunk applies to the file as the
    // earlier hunks left it. (`patch` would say "misordered hunks", but it never runs.)
    let patch = format!("{H}{SQUARE_AREA}{CIRCLE_AREA}");
    let got = applied(&patch);
    assert_eq!(got.applied_with, AppliedWith::Exact);
    assert!(got.notes.is_empty(), "{:?}", got.notes);
    // Entities come in file order, whatever the order of the hunks (the normalized diff).
    assert_eq!(got.functions, ["app/shapes.py:Circle.area", "app/shapes.py:Square.area"]);
    assert_eq!(post_image(&patch, "app/shapes.py"), Some(both_areas()));
}

#[test]
fn a_hunk_whose_edits_lie_beyond_its_header_is_refused() {
    // The header counts three context lines; the edit after them is not part of the hunk.
    // `git apply`: "corrupt patch at line 7". `patch`: "malformed patch at line 6".
    let patch = format!(
        "{H}@@ -10,3 +10,3 @@ class Circle:\n     def area(self):\n         return math.pi * self.r ** 2\n \n-    def \
         perimeter(self):\n+    def circumference(self):\n"
    );
    let error = not_applied(&patch);
    assert!(error.contains("has no added or removed line among the lines its header counts"), "{error}");
    assert!(error.contains("a malformed patch to `patch`"), "{error}");
}

#[test]
fn a_crlf_patch_applies_once_patch_strips_its_crs() {
    // `git apply`: "patch does not apply" (the CRs are content). `patch`: "(Stripping trailing
    // CRs from patch; use --binary to disable.)", then applies it exactly.
    let patch = format!("{H}{CIRCLE_AREA}").replace('\n', "\r\n");
    let got = applied(&patch);
    assert_eq!(got.applied_with, AppliedWith::Offset);
    assert_eq!(got.functions, ["app/shapes.py:Circle.area"]);
    assert_eq!(
        post_image(&patch, "app/shapes.py"),
        Some(SHAPES.replace("self.r ** 2", "self.r * self.r")),
        "the file keeps its LF line ends"
    );
}

#[test]
fn a_reversed_patch_is_undone_when_every_hunk_undoes() {
    // A patch whose sides are swapped (already applied, or written backwards). `patch`:
    // "Reversed (or previously applied) patch detected!  Assuming -R." and succeeds: the file
    // ends up as the patch's old side says.
    let undo = |hunk: &str| {
        hunk.replace(
            "-        return math.pi * self.r ** 2\n+        return math.pi * self.r * self.r\n",
            "-        return math.pi * self.r * self.r\n+        return math.pi * self.r ** 2\n",
        )
        .replace(
            "-        return self.side ** 2\n+        return self.side * self.side\n",
            "-        return self.side * self.side\n+        return self.side ** 2\n",
        )
    };
    let patch = format!("{H}{}{}", undo(CIRCLE_AREA), undo(SQUARE_AREA));
    let got = applied(&patch);
    assert!(got.notes.iter().any(|n| n.reason.contains("took this file's section as reversed")), "{:?}", got.notes);
    assert_eq!(got.functions, ["app/shapes.py:Circle.area", "app/shapes.py:Square.area"]);
    assert_eq!(post_image(&patch, "app/shapes.py"), Some(both_areas()));

    // When the first hunk undoes but a later one does not, `patch` fails: "Reversed (or
    // previously applied) patch detected!  Assuming -R.  Hunk #2 FAILED at 21."
    let mixed = format!("{H}{}{SQUARE_AREA}", undo(CIRCLE_AREA));
    let error = not_applied(&mixed);
    assert!(error.contains("hunk 2"), "{error}");
}

#[test]
fn an_indented_file_header_is_read_by_patch() {
    // The second section's `---` line is indented. `git apply`: "patch fragment without header
    // at line 11". `patch` patches the file twice.
    let patch = format!("diff --git a/app/shapes.py b/app/shapes.py\n{H}{CIRCLE_AREA} {H}{SQUARE_AREA}");
    let got = applied(&patch);
    assert_eq!(got.functions, ["app/shapes.py:Circle.area", "app/shapes.py:Square.area"]);
    assert!(got.notes[0].reason.contains("a hunk without a file header"), "{:?}", got.notes);
}

#[test]
fn a_hunk_cut_short_or_ending_without_a_newline() {
    // The blank line after `perimeter` was lost at the end of the patch. `git apply`: "corrupt
    // patch at line 7". `patch` takes the missing line for an empty context line, which the
    // file has: "patching file app/shapes.py".
    let patch = format!(
        "{H}@@ -13,4 +13,4 @@ class Circle:\n     def perimeter(self):\n-        return 2 * math.pi * self.r\n+        \
         return math.tau * self.r\n"
    );
    let got = applied(&patch);
    assert_eq!(got.functions, ["app/shapes.py:Circle.perimeter"]);
    let want = SHAPES.replace("2 * math.pi * self.r\n", "math.tau * self.r\n");
    assert_eq!(post_image(&patch, "app/shapes.py").as_deref(), Some(want.as_str()));

    // The same hunk with a last line ` ` lacking its newline: "patch unexpectedly ends in
    // middle of line", the line dropped and filled in as above.
    let unterminated = format!("{patch} \n ");
    assert_eq!(applied(&unterminated).functions, ["app/shapes.py:Circle.perimeter"]);
}

#[test]
fn creating_an_existing_file_or_deleting_a_missing_one_is_taken_as_reversed() {
    // `patch`: "The next patch would create the file app/shapes.py, which already exists!
    // Assuming -R." The file holds exactly the created lines, so it is deleted.
    let created: String = SHAPES.lines().map(|l| format!("+{l}\n")).collect();
    let patch = format!("--- /dev/null\n+++ b/app/shapes.py\n@@ -0,0 +1,{} @@\n{created}", SHAPES.lines().count());
    let files = apply_patch(&patch, &snapshot()).expect("applies");
    assert_eq!(files.len(), 1);
    assert_eq!((files[0].old_path.as_deref(), files[0].contents.as_ref()), (Some("app/shapes.py"), None));
    // With other contents: "Not deleting file app/shapes.py as content differs from patch".
    let partial = "--- /dev/null\n+++ b/app/shapes.py\n@@ -0,0 +1,2 @@\n+\"\"\"Shapes.\"\"\"\n+\n";
    assert!(not_applied(partial).contains("content differs"));

    // "The next patch would delete the file app/old.py, which does not exist!  Assuming -R."
    let delete = "--- a/app/old.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-def old():\n-    return 0\n";
    assert_eq!(post_image(delete, "app/old.py").as_deref(), Some("def old():\n    return 0\n"));
}
