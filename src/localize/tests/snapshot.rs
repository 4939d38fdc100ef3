//! Reading a checked-out directory as a snapshot.

use crate::localize::{locate, DirSnapshot, Snapshot};

#[test]
fn a_directory_snapshot_reads_files_and_links_the_git_way() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("app")).expect("mkdir");
    std::fs::write(dir.path().join("app/core.py"), "def f():\n    return 1\n").expect("write");
    std::fs::write(dir.path().join("Makefile"), "all:\n\techo hi\n").expect("write");
    std::os::unix::fs::symlink("/etc/passwd", dir.path().join("app/link.py")).expect("symlink");
    let snapshot = DirSnapshot::new(dir.path());
    assert_eq!(snapshot.read("app/core.py").unwrap().as_deref(), Some(&b"def f():\n    return 1\n"[..]));
    assert_eq!(snapshot.read("app/none.py").unwrap(), None);
    assert_eq!(snapshot.read("app").unwrap(), None, "a directory is not a file");
    // A link reads as its target path, never as the target's contents.
    assert_eq!(snapshot.read("app/link.py").unwrap().as_deref(), Some(&b"/etc/passwd"[..]));

    let patch = "--- a/app/core.py\n+++ b/app/core.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n\
--- a/Makefile\n+++ b/Makefile\n@@ -1,2 +1,2 @@\n all:\n-\techo hi\n+\techo bye\n";
    let got = locate(patch, &snapshot).expect("locate");
    assert_eq!(got.files, ["app/core.py", "Makefile"]);
    assert_eq!(got.functions, ["app/core.py:f"]);
    assert_eq!(got.notes[0].reason, "no grammar for `Makefile` files: scored at file level only");
}
