//! Bad and unusual input: each case gives a recorded reason (an error or a note), never a panic
//! or a silent zero.

use crate::localize::{locate, AppliedWith, FileNote, LocateError, MemorySnapshot};

const CORE: &str = "class Engine:
    def start(self):
        return 1

    def stop(self):
        return 0


def helper():
    return 2
";

fn snapshot() -> MemorySnapshot {
    [("app/core.py", CORE)].into_iter().collect()
}

const START_PATCH: &str = "diff --git a/app/core.py b/app/core.py
--- a/app/core.py
+++ b/app/core.py
@@ -1,4 +1,4 @@
 class Engine:
     def start(self):
-        return 1
+        return 10
 
";

#[test]
fn a_patch_with_a_wrong_hunk_count_does_not_parse() {
    // The header counts a line more than the hunk has, and the next section follows: a corrupt
    // patch to `git apply`, a malformed one to `patch`.
    let next = "diff --git a/app/core.py b/app/core.py\n--- a/app/core.py\n+++ b/app/core.py\n@@ -9,2 +9,2 @@\n def helper():\n-    return 2\n+    return 3\n";
    let patch = START_PATCH.replace("@@ -1,4 +1,4 @@", "@@ -1,5 +1,5 @@") + next;
    let err = locate(&patch, &snapshot()).unwrap_err();
    assert!(matches!(err, LocateError::Parse { line: 4, .. }), "{err}");
    assert!(err.to_string().contains("does not parse at line 4"), "{err}");
    assert!(err.to_string().contains("a malformed patch to `patch`"), "{err}");
}

#[test]
fn a_hunk_cut_short_by_the_end_of_the_patch_applies_as_patch_reads_it() {
    // The same count at the very end of the patch: `git apply` calls it corrupt, GNU patch takes
    // the missing line for an empty context line and applies the hunk with fuzz 1, as in the
    // container.
    let patch = START_PATCH.replace("@@ -1,4 +1,4 @@", "@@ -1,5 +1,5 @@");
    let got = locate(&patch, &snapshot()).unwrap();
    assert_eq!(got.applied_with, AppliedWith::Fuzz);
    assert_eq!(got.functions, ["app/core.py:Engine.start"]);
    assert!(got.notes[0].reason.contains("the hunk at line 4 ends early"), "{}", got.notes[0]);
    assert!(got.notes[0].reason.contains("corrupt patch to `git apply`"), "{}", got.notes[0]);
}

#[test]
fn text_without_any_file_section_is_empty() {
    let err = locate("I fixed it, trust me.\n", &snapshot()).unwrap_err();
    assert_eq!(err, LocateError::Empty);
    assert_eq!(locate("", &snapshot()).unwrap_err(), LocateError::Empty);
}

#[test]
fn paths_outside_the_repository_are_refused() {
    for (old, new) in [
        ("a/../etc/passwd", "b/../etc/passwd"),
        ("/etc/passwd", "/etc/passwd"),
        ("a/app/../../x.py", "b/app/../../x.py"),
        ("a/.git/config", "b/.git/config"),
    ] {
        let patch = format!("--- {old}\n+++ {new}\n@@ -1 +1 @@\n-x\n+y\n");
        let err = locate(&patch, &snapshot()).unwrap_err();
        assert!(matches!(err, LocateError::UnsafePath { .. }), "{old}: {err}");
        assert!(err.to_string().contains("outside the repository"), "{err}");
    }
}

#[test]
fn binary_patches_count_at_file_level_with_a_note() {
    let mut base = snapshot();
    base.insert("img/logo.png", vec![0x89, b'P', b'N', b'G', 0, 1, 2]);
    let patch = "diff --git a/img/logo.png b/img/logo.png
index 1111111..2222222 100644
GIT binary patch
literal 7
OcmeZB4+skJ0000

literal 7
OcmeZB4+skJ0000

";
    let got = locate(patch, &base).unwrap();
    assert_eq!(got.files, ["img/logo.png"]);
    assert_eq!(
        got.notes,
        [FileNote { path: "img/logo.png".into(), reason: "binary patch: scored at file level only".into() }]
    );
}

#[test]
fn whole_file_additions_and_deletions_are_recorded() {
    let patch = "diff --git a/app/new.py b/app/new.py
new file mode 100644
--- /dev/null
+++ b/app/new.py
@@ -0,0 +1,2 @@
+def fresh():
+    return 1
diff --git a/app/core.py b/app/core.py
deleted file mode 100644
--- a/app/core.py
+++ /dev/null
@@ -1,10 +0,0 @@
-class Engine:
-    def start(self):
-        return 1
-
-    def stop(self):
-        return 0
-
-
-def helper():
-    return 2
";
    let got = locate(patch, &snapshot()).unwrap();
    assert_eq!(got.files, ["app/core.py"]);
    assert_eq!(got.created_files, ["app/new.py"]);
    assert!(got.functions.is_empty() && got.added_functions.is_empty() && got.classes.is_empty());
    let reasons: Vec<String> = got.notes.iter().map(|n| n.to_string()).collect();
    assert_eq!(
        reasons,
        [
            "app/new.py: created by the patch: listed, not scored",
            "app/core.py: deleted by the patch: scored at file level only"
        ]
    );

    // A deletion that would leave lines behind does not apply (its hunk must end at the end of
    // the file, as with git apply).
    let partial = patch.replace("@@ -1,10 +0,0 @@", "@@ -1,9 +0,0 @@").replace("-    return 2\n", "");
    let err = locate(&partial, &snapshot()).unwrap_err();
    assert!(matches!(err, LocateError::DoesNotApply { ref path, .. } if path == "app/core.py"), "{err}");
}

#[test]
fn a_file_that_is_not_utf8_counts_at_file_level() {
    let mut base = MemorySnapshot::new();
    base.insert("legacy.py", b"def f():\n    return '\xe9t\xe9'\n\ndef g():\n    return 1\n".to_vec());
    let patch = "--- a/legacy.py\n+++ b/legacy.py\n@@ -4,2 +4,2 @@\n def g():\n-    return 1\n+    return 2\n";
    let got = locate(patch, &base).unwrap();
    assert_eq!(got.files, ["legacy.py"]);
    assert!(got.functions.is_empty());
    assert_eq!(got.notes[0].reason, "the pre-image is not UTF-8: scored at file level only");
}

#[test]
fn a_minified_file_is_bounded_and_noted() {
    let body: String = (0..3000).map(|i| format!("function f{i}(a){{return a+{i}}}")).collect();
    let mut base = MemorySnapshot::new();
    base.insert("dist/app.min.js", format!("{body}\n"));
    let changed = body.replace("return a+1500}", "return a-1500}");
    let patch = format!("--- a/dist/app.min.js\n+++ b/dist/app.min.js\n@@ -1 +1 @@\n-{body}\n+{changed}\n");
    let started = std::time::Instant::now();
    let got = locate(&patch, &base).unwrap();
    assert!(started.elapsed().as_secs() < 5);
    assert_eq!(got.files, ["dist/app.min.js"]);
    assert!(got.functions.is_empty());
    assert!(got.notes[0].reason.starts_with("minified or generated: changed line 1"), "{}", got.notes[0]);
}

#[test]
fn a_hunk_whose_removed_line_is_not_there_does_not_apply() {
    // A stale context line would apply with fuzz (see `lenient`); a removed line never does.
    let patch = START_PATCH.replace("-        return 1", "-        return 5");
    let err = locate(&patch, &snapshot()).unwrap_err();
    assert!(matches!(err, LocateError::DoesNotApply { ref path, .. } if path == "app/core.py"), "{err}");
    assert!(err.to_string().contains("hunk 1 (patch line 4)"), "{err}");

    // Modifying a missing file, and creating an existing one, do not apply either.
    let missing = START_PATCH.replace("app/core.py", "app/none.py");
    assert!(locate(&missing, &snapshot()).unwrap_err().to_string().contains("does not exist at the base commit"));
    let create = "--- /dev/null\n+++ b/app/core.py\n@@ -0,0 +1 @@\n+x = 1\n";
    assert!(locate(create, &snapshot()).unwrap_err().to_string().contains("already exists"));
}

#[test]
fn plain_patches_with_leading_blank_lines_and_moved_hunks_apply() {
    // No `diff --git` header, a blank line and prose first, and a hunk whose stated line is
    // off by two (git apply finds it nearby).
    let patch = "\nHere is the fix:\n--- a/app/core.py\n+++ b/app/core.py\n@@ -7,2 +7,2 @@\n def helper():\n-    return 2\n+    return 3\n";
    let got = locate(patch, &snapshot()).unwrap();
    assert_eq!(got.files, ["app/core.py"]);
    assert_eq!(got.functions, ["app/core.py:helper"]);
}

#[test]
fn a_candidate_without_net_change_counts_nothing() {
    let patch = "--- a/app/core.py\n+++ b/app/core.py\n@@ -9,2 +9,3 @@\n def helper():\n-    return 2\n+    return 2\n";
    let err = locate(&patch.replace("@@ -9,2 +9,3 @@", "@@ -9,2 +9,2 @@"), &snapshot()).unwrap();
    assert!(err.files.is_empty());
    assert_eq!(err.notes[0].reason, "the patch leaves this file unchanged: not counted");
    // The miscounted original does not parse.
    assert!(matches!(locate(patch, &snapshot()).unwrap_err(), LocateError::Parse { .. }));
}

#[test]
fn no_newline_at_end_of_file_and_crlf_lines_apply_exactly() {
    let mut base = MemorySnapshot::new();
    base.insert("win.py", "def a():\r\n    return 1\r\n".to_string());
    base.insert("tail.py", "def b():\n    return 1".to_string());
    let patch = "--- a/win.py\n+++ b/win.py\n@@ -1,2 +1,2 @@\n def a():\r\n-    return 1\r\n+    return 2\r\n\
--- a/tail.py\n+++ b/tail.py\n@@ -1,2 +1,2 @@\n def b():\n-    return 1\n\\ No newline at end of file\n+    return 2\n\\ No newline at end of file\n";
    let got = locate(patch, &base).unwrap();
    assert_eq!(got.files, ["win.py", "tail.py"]);
    assert_eq!(got.functions, ["win.py:a", "tail.py:b"]);
    // Without the marker the last line does not match.
    let wrong =
        patch.replace("\\ No newline at end of file\n+    return 2\n\\ No newline at end of file\n", "+    return 2\n");
    assert!(matches!(locate(&wrong, &base).unwrap_err(), LocateError::DoesNotApply { .. }));
}

#[test]
fn quoted_paths_with_spaces_and_unicode() {
    let mut base = MemorySnapshot::new();
    base.insert("docs/my file.py", "def x():\n    return 1\n");
    base.insert("src/caf\u{e9}.py", "def y():\n    return 1\n");
    let patch = "diff --git a/docs/my file.py b/docs/my file.py\n--- a/docs/my file.py\n+++ b/docs/my file.py\n@@ -1,2 +1,2 @@\n def x():\n-    return 1\n+    return 2\n\
diff --git \"a/src/caf\\303\\251.py\" \"b/src/caf\\303\\251.py\"\n--- \"a/src/caf\\303\\251.py\"\n+++ \"b/src/caf\\303\\251.py\"\n@@ -1,2 +1,2 @@\n def y():\n-    return 1\n+    return 2\n";
    let got = locate(patch, &base).unwrap();
    assert_eq!(got.files, ["docs/my file.py", "src/caf\u{e9}.py"]);
    assert_eq!(got.functions, ["docs/my file.py:x", "src/caf\u{e9}.py:y"]);
}

#[test]
fn a_huge_rewrite_is_bounded_and_noted() {
    let pre: String = (0..1500).map(|i| format!("def f{i}():\n    return {i}\n")).collect();
    let post: String = (0..1500).map(|i| format!("def f{i}():\n    return -{i}\n")).collect();
    let mut base = MemorySnapshot::new();
    base.insert("big.py", pre.clone());
    let body: String = pre.lines().map(|l| format!("-{l}\n")).chain(post.lines().map(|l| format!("+{l}\n"))).collect();
    let patch = format!("--- a/big.py\n+++ b/big.py\n@@ -1,3000 +1,3000 @@\n{body}");
    let started = std::time::Instant::now();
    let got = locate(&patch, &base).unwrap();
    assert!(started.elapsed().as_secs() < 10);
    assert_eq!(got.functions.len(), 1500);
    assert!(got.notes.iter().any(|n| n.reason.starts_with("too many changes for an exact line diff")));
}

#[test]
fn a_file_without_a_grammar_counts_at_file_level() {
    let mut base = snapshot();
    base.insert("setup.cfg", "[metadata]\nname = app\n");
    let patch = "--- a/setup.cfg\n+++ b/setup.cfg\n@@ -1,2 +1,2 @@\n [metadata]\n-name = app\n+name = app2\n";
    let got = locate(patch, &base).unwrap();
    assert_eq!(got.files, ["setup.cfg"]);
    assert_eq!(got.notes[0].reason, "no grammar for `.cfg` files: scored at file level only");
}

#[test]
fn a_rename_onto_an_existing_file_does_not_apply() {
    let mut base = snapshot();
    base.insert("app/other.py", "x = 1\n");
    let patch = "diff --git a/app/core.py b/app/other.py\nsimilarity index 100%\nrename from app/core.py\nrename to app/other.py\n";
    let err = locate(patch, &base).unwrap_err();
    assert!(err.to_string().contains("renames a file onto one that exists"), "{err}");
    // A pure rename counts at file level under the old path.
    let got = locate(&patch.replace("other.py", "engine.py"), &snapshot()).unwrap();
    assert_eq!(got.files, ["app/core.py"]);
    assert!(got.functions.is_empty());
}
