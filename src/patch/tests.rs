//! Unit tests of the patch model: the header view on every kind of section, and the two
//! dialects' readings of damaged hunks. The patches are written here in the shapes models emit;
//! each dialect's outcome was checked against git 2.39 and GNU patch 2.7.6 (`git apply` and
//! `patch --batch -p1` on a seven-line file `a`…`g`).

use super::*;

#[test]
fn modified_created_deleted_renamed() {
    let patch = "\
diff --git a/src/calc.py b/src/calc.py
index 1111111..2222222 100644
--- a/src/calc.py
+++ b/src/calc.py
@@ -1 +1 @@
-a
+b
diff --git a/tests/test_new.py b/tests/test_new.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/tests/test_new.py
@@ -0,0 +1 @@
+x
diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-x
diff --git a/a.py b/b.py
similarity index 100%
rename from a.py
rename to b.py
";
    let files = changed_files(patch);
    assert_eq!(
        files,
        vec![
            FileChange { old: Some("src/calc.py".into()), new: Some("src/calc.py".into()), binary: false },
            FileChange { old: None, new: Some("tests/test_new.py".into()), binary: false },
            FileChange { old: Some("old.txt".into()), new: None, binary: false },
            FileChange { old: Some("a.py".into()), new: Some("b.py".into()), binary: false },
        ]
    );
}

#[test]
fn plain_unified_diff_without_git_header() {
    let patch = "\n--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1 +1 @@\n-a\n+b\n";
    let files = changed_files(patch);
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].path(), "pkg/mod.py");
    assert!(!files[0].is_created());
}

#[test]
fn binary_and_quoted_paths() {
    let patch =
        "diff --git \"a/sp\\303\\244ce.bin\" \"b/sp\\303\\244ce.bin\"\nindex 1..2\nGIT binary patch\nliteral 3\n";
    let files = changed_files(patch);
    assert_eq!(files[0].path(), "späce.bin");
    assert!(files[0].binary);
}

#[test]
fn garbage_has_no_files() {
    assert!(changed_files("this is not a patch\n\u{0}\u{1}").is_empty());
    assert!(changed_files("").is_empty());
}

const F: &str = "--- a/f.txt\n+++ b/f.txt\n";

fn lines(hunk: &Hunk<'_>) -> Vec<String> {
    hunk.lines
        .iter()
        .map(|l| match l {
            HunkLine::Context(s) => format!(" {}", String::from_utf8_lossy(s)),
            HunkLine::Remove(s) => format!("-{}", String::from_utf8_lossy(s)),
            HunkLine::Add(s) => format!("+{}", String::from_utf8_lossy(s)),
        })
        .collect()
}

fn read(patch: &str, dialect: Dialect) -> Result<Vec<Vec<String>>, PatchError> {
    let parsed = Patch::parse(patch);
    let sections = parsed.read(dialect)?;
    Ok(sections.iter().flat_map(|s| s.hunks.iter().map(lines)).collect())
}

fn reason(result: Result<Vec<Vec<String>>, PatchError>) -> String {
    match result {
        Err(PatchError::Parse { reason, .. }) => reason,
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn a_complete_patch_reads_the_same_in_both_dialects() {
    let patch = format!("{F}@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    let want = vec![vec![" a\n".to_string(), "-b\n".into(), "+B\n".into(), " c\n".into()]];
    assert_eq!(read(&patch, Dialect::Git).unwrap(), want);
    assert_eq!(read(&patch, Dialect::Gnu).unwrap(), want);
}

#[test]
fn a_hunk_cut_short_by_the_end_of_the_patch() {
    // `git apply`: corrupt patch at line 8. `patch`: Hunk #1 succeeded at 1 with fuzz 1 (the
    // two missing lines are taken as empty context lines).
    let patch = format!("{F}@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n");
    assert!(reason(read(&patch, Dialect::Git)).contains("ends early: 1 old and 1 new lines missing"));
    let gnu = read(&patch, Dialect::Gnu).unwrap();
    assert_eq!(gnu[0], [" a\n", "-b\n", "+B\n", " c\n", " \n"]);

    // Three missing lines on each side are the most `patch` fills in.
    let three = format!("{F}@@ -1,6 +1,6 @@\n a\n-b\n+B\n c\n");
    assert_eq!(read(&three, Dialect::Gnu).unwrap()[0].len(), 7);
    let four = format!("{F}@@ -1,7 +1,7 @@\n a\n-b\n+B\n c\n");
    assert!(reason(read(&four, Dialect::Gnu)).contains("unexpected end of file"));
    // A missing added line is not a blank context line: malformed to `patch`.
    let added = format!("{F}@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n");
    assert!(reason(read(&added, Dialect::Gnu)).contains("ends early: 0 old and 1 new lines missing"));
}

#[test]
fn a_last_line_without_its_newline() {
    // `git apply`: corrupt patch at line 7. `patch`: "patch unexpectedly ends in middle of line",
    // the line is dropped and taken as a blank context line (fuzz 1).
    let patch = format!("{F}@@ -1,3 +1,3 @@\n a\n-b\n+B\n c");
    assert!(reason(read(&patch, Dialect::Git)).contains("line 7 does not continue the hunk"));
    assert_eq!(read(&patch, Dialect::Gnu).unwrap()[0], [" a\n", "-b\n", "+B\n", " \n"]);
    // Dropping an added line leaves the hunk short on its new side: malformed.
    let added = format!("{F}@@ -1,2 +1,2 @@\n a\n-b\n+B");
    assert!(read(&added, Dialect::Gnu).is_err());
}

#[test]
fn a_hunk_longer_than_its_header_loses_its_edits_and_is_refused() {
    // The header counts only context lines; the edits come after them. `git apply`: corrupt
    // patch. `patch`: malformed patch at line 5.
    let patch = format!("{F}@@ -1,2 +1,2 @@\n a\n b\n-c\n+C\n");
    for dialect in [Dialect::Git, Dialect::Gnu] {
        assert!(reason(read(&patch, dialect)).contains("has no added or removed line"), "{dialect:?}");
    }
}

#[test]
fn lines_after_a_complete_hunk_end_its_section() {
    // An extra context line after a complete hunk, then a hunk without a file header: `git
    // apply` refuses ("patch fragment without header at line 8"); `patch` applies the first
    // hunk and skips the second.
    let patch = format!("{F}@@ -1,2 +1,2 @@\n a\n-b\n+B\n c\n@@ -5,2 +5,2 @@\n e\n-f\n+F\n");
    assert!(reason(read(&patch, Dialect::Git)).contains("a hunk without a file header"));
    let gnu = read(&patch, Dialect::Gnu).unwrap();
    assert_eq!(gnu, [vec![" a\n", "-b\n", "+B\n"]]);
    // The header view still names the file once.
    assert_eq!(changed_files(&patch).len(), 1);
}

#[test]
fn a_crlf_patch_is_stripped_by_patch_only() {
    // `git apply` compares `a\r\n` with the file's `a\n`: "patch does not apply". `patch`:
    // "(Stripping trailing CRs from patch; use --binary to disable.)".
    let patch = format!("{F}@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n").replace('\n', "\r\n");
    assert_eq!(read(&patch, Dialect::Git).unwrap()[0], [" a\r\n", "-b\r\n", "+B\r\n", " c\r\n"]);
    assert_eq!(read(&patch, Dialect::Gnu).unwrap()[0], [" a\n", "-b\n", "+B\n", " c\n"]);
    assert_eq!(changed_files(&patch)[0].path(), "f.txt");
}

#[test]
fn a_line_starting_with_a_tab_is_context_to_patch_only() {
    let patch = format!("{F}@@ -1,3 +1,3 @@\n a\n-b\n+B\n\tc\n");
    assert!(read(&patch, Dialect::Git).is_err());
    assert_eq!(read(&patch, Dialect::Gnu).unwrap()[0][3], " \tc\n");
}

#[test]
fn hunk_lines_that_look_like_headers_stay_hunk_lines() {
    // A removed `-- note` line and an added `++ note` line read as `--- note`/`+++ note`.
    let patch = format!("{F}@@ -1,2 +1,2 @@\n a\n--- note\n+++ note\n@@ -5,1 +5,1 @@\n-e\n+E\n");
    let files = changed_files(&patch);
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(read(&patch, Dialect::Git).unwrap().len(), 2);
}

#[test]
fn a_damaged_hunk_does_not_hide_its_file_from_the_header_view() {
    let patch = format!(
        "{F}@@ -1,9 +1,9 @@\n a\n-b\n+B\ndiff --git a/g.txt b/g.txt\n--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-x\n+y\n"
    );
    let paths: Vec<String> = changed_files(&patch).iter().map(|c| c.path().to_string()).collect();
    assert_eq!(paths, ["f.txt", "g.txt"]);
    for dialect in [Dialect::Git, Dialect::Gnu] {
        assert!(reason(read(&patch, dialect)).contains("line 7 does not continue the hunk at line 3"));
    }
}

#[test]
fn a_creation_without_dev_null_is_a_plain_modify_section() {
    // `--- a/new.txt` with `@@ -0,0 +1,2 @@`: the headers say modify; whether the file is created
    // is the applier's decision (both programs create a missing file here).
    let patch = "--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n";
    let parsed = Patch::parse(patch);
    let sections = parsed.read(Dialect::Git).unwrap();
    assert_eq!(sections[0].kind, SectionKind::Modify);
    assert!(!sections[0].git);
    assert_eq!((sections[0].hunks[0].old_start, sections[0].hunks[0].old_len), (0, 0));
    assert!(!changed_files(patch)[0].is_created());
}

#[test]
fn unsafe_paths_and_empty_patches_are_errors_of_the_hunk_view() {
    let patch = "--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n";
    assert!(matches!(Patch::parse(patch).read(Dialect::Gnu), Err(PatchError::UnsafePath { .. })));
    assert_eq!(changed_files(patch)[0].path(), "../x");
    assert!(matches!(Patch::parse("no patch here\n").read(Dialect::Git), Err(PatchError::Empty)));
}

#[test]
fn an_indented_header_is_a_header_to_patch_only() {
    // The second file's `---` line is indented by a space. `git apply`: "patch fragment without
    // header at line 10". `patch` skips the blank, finds `g.txt`, and patches both files.
    let patch = format!("{F}@@ -1,2 +1,2 @@\n a\n-b\n+B\n\n --- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-x\n+y\n");
    assert!(reason(read(&patch, Dialect::Git)).contains("a hunk without a file header"));
    let parsed = Patch::parse(&patch);
    let gnu = parsed.read(Dialect::Gnu).unwrap();
    assert_eq!(gnu.iter().map(FileSection::path).collect::<Vec<_>>(), ["f.txt", "g.txt"]);
}

#[test]
fn a_plus_line_without_its_minus_line_is_a_header_to_patch_only() {
    // The `---` line of the second file was eaten as the last context line of the first hunk.
    // `git apply`: "patch fragment without header at line 9". `patch` takes the file from the
    // `+++` line.
    let patch = format!("{F}@@ -1,3 +1,3 @@\n a\n-b\n+B\n --- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-x\n+y\n");
    assert!(reason(read(&patch, Dialect::Git)).contains("a hunk without a file header"));
    let parsed = Patch::parse(&patch);
    let gnu = parsed.read(Dialect::Gnu).unwrap();
    assert_eq!(gnu.iter().map(FileSection::path).collect::<Vec<_>>(), ["f.txt", "g.txt"]);
}

#[test]
fn the_body_of_a_hunk_without_a_header_is_read_on_line_by_line() {
    // A hunk with no file header whose counts run into the next file's header. `patch` skips
    // the `@@` line and finds `g.txt` below it, whose hunk is cut short: "unexpected end of
    // file in patch".
    let patch = format!(
        "{F}@@ -1,2 +1,2 @@\n a\n-b\n+B\nxyz\n@@ -5,3 +5,3 @@\n e\n--- a/g.txt\n+++ b/g.txt\n@@ -1,6 +1,6 @@\n-x\n+y\n"
    );
    let parsed = Patch::parse(&patch);
    assert_eq!(changed_files(&patch).len(), 2);
    assert!(reason(parsed.read(Dialect::Gnu).map(|_| Vec::new())).contains("unexpected end of file"));
}

#[test]
fn edit_view_carries_each_sections_text_and_added_lines() {
    let patch = "\
diff --git a/pkg/a.py b/pkg/a.py
--- a/pkg/a.py
+++ b/pkg/a.py
@@ -1,3 +1,4 @@
 import os
-x = 1
+x = 2
+import _pytest
 y = 3
@@ -10,2 +11,3 @@ def f():
     pass
+    os._exit(0)
 z = 4
diff --git a/b.txt b/b.txt
new file mode 100644
--- /dev/null
+++ b/b.txt
@@ -0,0 +1,2 @@
+one
+two\r
";
    let sections = file_sections(patch);
    assert_eq!(sections.len(), 2);
    let added: Vec<(usize, &str)> = sections[0].added.iter().map(|a| (a.line, a.text)).collect();
    assert_eq!(added, vec![(2, "x = 2"), (3, "import _pytest"), (12, "    os._exit(0)")]);
    assert!(sections[0].text.starts_with("diff --git a/pkg/a.py"));
    assert!(sections[0].text.ends_with(" z = 4\n"));
    assert!(sections[1].text.starts_with("diff --git a/b.txt"));
    assert!(sections[1].change.is_created());
    assert_eq!(sections[1].added.iter().map(|a| a.text).collect::<Vec<_>>(), ["one", "two"]);
}

#[test]
fn edit_view_keeps_header_lookalikes_in_their_hunk() {
    // A removed line `-- x` and an added line `++ y` read `--- x` / `+++ y` in the patch.
    let patch = "\
--- a/notes.md
+++ b/notes.md
@@ -1,2 +1,2 @@
 title
--- x
+++ y
";
    let sections = file_sections(patch);
    assert_eq!(sections.len(), 1, "{sections:?}");
    assert_eq!(sections[0].change.path(), "notes.md");
    assert_eq!(sections[0].added[0].text, "++ y");
}

#[test]
fn edit_view_reads_a_damaged_body_as_far_as_it_goes() {
    // The hunk promises more lines than it has; the added line before the damage still counts.
    let patch = "\
diff --git a/a.py b/a.py
--- a/a.py
+++ b/a.py
@@ -1,5 +1,6 @@
 one
+import _pytest
this line does not continue the hunk
";
    let sections = file_sections(patch);
    assert_eq!(sections[0].added.iter().map(|a| (a.line, a.text)).collect::<Vec<_>>(), [(2, "import _pytest")]);
}
