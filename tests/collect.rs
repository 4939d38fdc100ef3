//! `verdict collect` on a fixture repository this test makes with git: a squash-merged PR (with
//! a CRLF file, a non-UTF-8 file and a documentation file), a PR merged by "Merge pull request",
//! two PRs known only by `refs/pull/N/head` (one unmerged, one merged by a plain merge), a commit
//! range, and the bad inputs (a PR that is not there, one without tests, one without source, one
//! whose start git cannot tell). No Docker, no network.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::*;

struct Fixture {
    work: PathBuf,
    /// Commit dates advance one day per commit from this instant.
    clock: i64,
}

impl Fixture {
    fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .arg("-C")
            .arg(&self.work)
            .args(["-c", "core.autocrlf=false", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"])
            .args(args)
            .env("GIT_AUTHOR_NAME", "A")
            .env("GIT_AUTHOR_EMAIL", "a@example.com")
            .env("GIT_COMMITTER_NAME", "C")
            .env("GIT_COMMITTER_EMAIL", "c@example.com")
            .env("GIT_AUTHOR_DATE", format!("{} +0200", self.clock))
            .env("GIT_COMMITTER_DATE", format!("{} +0200", self.clock))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", self.work.parent().unwrap())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    fn write(&self, path: &str, bytes: &[u8]) {
        let p = self.work.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }

    /// Commits everything with `message` at the next day; returns the sha.
    fn commit(&mut self, message: &str) -> String {
        self.clock += 86_400;
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
        self.git(&["rev-parse", "HEAD"])
    }

    fn merge(&mut self, branch: &str, message: &str) -> String {
        self.clock += 86_400;
        self.git(&["merge", "-q", "--no-ff", "-m", message, branch]);
        self.git(&["rev-parse", "HEAD"])
    }
}

/// The fixture's shas, by role.
struct Shas {
    squash: String,
    merge_base: String,
    merge_head: String,
    merge: String,
    unmerged_head: String,
    plain_merge: String,
    range: (String, String),
}

fn fixture(root: &Path) -> (Fixture, Shas) {
    let work = root.join("calc");
    std::fs::create_dir_all(&work).unwrap();
    let mut f = Fixture { work, clock: 1_700_000_000 };
    f.git(&["init", "-q", "-b", "main"]);
    f.write("src/calc.py", b"def add(a, b):\r\n    return a - b\r\n");
    f.write("src/version.py", b"__version__ = \"1.4.2\"\n");
    f.write("src/legacy.py", b"# caf\xe9\nx = 1\n");
    f.write("tests/test_calc.py", b"from src.calc import add\n\ndef test_one():\n    assert add(1, 0) == 1\n");
    f.write("README.md", b"calc\n");
    f.commit("Initial");

    // PR 1, squash-merged: the CRLF file, the latin-1 file, a test, and a doc that is dropped.
    f.write("src/calc.py", b"def add(a, b):\r\n    return a + b\r\n");
    f.write("src/legacy.py", b"# caf\xe9 cr\xe8me\nx = 2\n");
    f.write("tests/test_calc.py", b"from src.calc import add\n\ndef test_one():\n    assert add(1, 0) == 1\n\ndef test_two():\n    assert add(1, 1) == 2\n");
    f.write("README.md", b"calc: adds\n");
    let squash = f.commit("Fix add (#1)\n\nadd subtracted.");

    // PR 2, merged with "Merge pull request": main moves on meanwhile, so the PR's base is the
    // merge base, not the merge's first parent.
    f.git(&["checkout", "-q", "-b", "feature"]);
    f.write("src/mul.py", b"def mul(a, b):\n    return a * b\n");
    f.write("tests/test_mul.py", b"from src.mul import mul\n\ndef test_mul():\n    assert mul(2, 3) == 6\n");
    let merge_head = f.commit("Add mul");
    f.git(&["checkout", "-q", "main"]);
    f.write("src/version.py", b"__version__ = \"1.5.0\"\n");
    f.commit("Release 1.5.0");
    let merge = f.merge("feature", "Merge pull request #2 from someone/feature\n\nAdd mul");

    // PR 3, only as refs/pull/3/head, merged nowhere.
    f.git(&["checkout", "-q", "-b", "div"]);
    f.write("src/div.py", b"def div(a, b):\n    return a / b\n");
    f.write("tests/test_div.py", b"from src.div import div\n\ndef test_div():\n    assert div(6, 3) == 2\n");
    let unmerged_head = f.commit("Add div");
    f.git(&["update-ref", "refs/pull/3/head", &unmerged_head]);
    f.git(&["checkout", "-q", "main"]);
    f.git(&["branch", "-q", "-D", "div"]);

    // PR 4, refs/pull/4/head merged by a plain merge commit.
    f.git(&["checkout", "-q", "-b", "sub"]);
    f.write("src/sub.py", b"def sub(a, b):\n    return a - b\n");
    f.write("tests/test_sub.py", b"from src.sub import sub\n\ndef test_sub():\n    assert sub(3, 1) == 2\n");
    let sub_head = f.commit("Add sub");
    f.git(&["update-ref", "refs/pull/4/head", &sub_head]);
    f.git(&["checkout", "-q", "main"]);
    let plain_merge = f.merge("sub", "Merge branch 'sub'");

    // PR 5 changes no test; PR 6 no source; PR 7's head was fast-forwarded onto main.
    f.write("src/calc.py", b"def add(a, b):\r\n    return b + a\r\n");
    f.write("README.md", b"calc: adds fast\n");
    f.commit("Speed up add (#5)");
    f.write(
        "tests/test_sub.py",
        b"from src.sub import sub\n\ndef test_sub():\n    assert sub(3, 1) == 2\n    assert sub(1, 1) == 0\n",
    );
    f.commit("More tests (#6)");
    let range_start = f.git(&["rev-parse", "HEAD"]);
    f.write("src/sub.py", b"def sub(a, b):\n    return a - b  # plain\n");
    f.write(
        "tests/test_sub.py",
        b"from src.sub import sub\n\ndef test_sub():\n    assert sub(3, 1) == 2\n    assert sub(1, 3) == -2\n",
    );
    let tidy = f.commit("Tidy sub");
    f.git(&["update-ref", "refs/pull/7/head", &tidy]);
    let merge_base = f.git(&["merge-base", &format!("{merge}^1"), &format!("{merge}^2")]);
    let shas = Shas { squash, merge_base, merge_head, merge, unmerged_head, plain_merge, range: (range_start, tidy) };
    (f, shas)
}

const SPEC: &str = r#"
repo = "acme/calc"

[collect]
version_files = ["src/missing.py", "src/version.py"]
version_patterns = ['__version__ = "([^"]+)"']

[versions."1.4"]
language = "python"
test_cmd = "pytest"
log_parser = "pytest"

[versions."1.5"]
language = "python"
test_cmd = "pytest"
log_parser = "pytest"
"#;

/// Applies `patch` to a checkout of `commit` and returns the checkout.
fn apply(root: &Path, repo: &Path, commit: &str, patches: &[&str], name: &str) -> PathBuf {
    let tree = root.join(name);
    let run = |dir: &Path, args: &[&str], input: Option<&str>| {
        let mut child = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "core.autocrlf=false"])
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            if let Some(text) = input {
                stdin.write_all(text.as_bytes()).unwrap();
            }
        }
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "git {args:?} in {}: {}", dir.display(), String::from_utf8_lossy(&out.stderr));
    };
    run(root, &["clone", "-q", "--no-checkout", repo.to_str().unwrap(), tree.to_str().unwrap()], None);
    run(&tree, &["checkout", "-q", commit], None);
    for patch in patches {
        run(&tree, &["apply", "--binary", "-"], Some(patch));
    }
    tree
}

fn blob(repo: &Path, commit: &str, path: &str) -> Vec<u8> {
    let out = Command::new("git").arg("-C").arg(repo).args(["show", &format!("{commit}:{path}")]).output().unwrap();
    assert!(out.status.success(), "{commit}:{path}");
    out.stdout
}

#[test]
fn collect_builds_instances_from_squash_merge_and_pull_ref_prs() {
    let root = logs_dir("collect");
    let (f, shas) = fixture(&root);
    let specs = root.join("specs");
    write(&specs.join("acme__calc.toml"), SPEC);
    let output = root.join("out").join("calc.jsonl");
    let out = verdict(&[
        "collect",
        "--repo",
        "acme/calc",
        "--git",
        f.work.to_str().unwrap(),
        "--specs",
        specs.to_str().unwrap(),
        "--pr",
        "1,2,3,4,99,5,6,7",
        "--commit",
        &format!("{}..{}", shas.range.0, shas.range.1),
        "--output",
        output.to_str().unwrap(),
    ]);
    let log = text(&out);
    assert_eq!(out.status.code(), Some(4), "some targets failed, the others were written: {log}");

    // Each bad PR is named, with what to do, and the run went on.
    assert!(log.contains("PR #99 is not in") && log.contains("refs/pull/99/head"), "{log}");
    assert!(log.contains("PR #5") && log.contains("has no test changes") && log.contains("src/calc.py"), "{log}");
    assert!(log.contains("PR #6") && log.contains("has no source changes") && log.contains("--source GLOB"), "{log}");
    assert!(log.contains("PR #7") && log.contains("--commit BASE.."), "{log}");
    let summary = read_json(&output.with_extension("summary.json"));
    let results = summary.as_array().unwrap();
    assert_eq!(results.len(), 9);
    let failed: Vec<&str> =
        results.iter().filter(|r| r["ok"] == false).map(|r| r["target"].as_str().unwrap()).collect();
    assert_eq!(failed, ["PR #99", "PR #5", "PR #6", "PR #7"]);

    let instances: Vec<serde_json::Value> =
        std::fs::read_to_string(&output).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let ids: Vec<&str> = instances.iter().map(|i| i["instance_id"].as_str().unwrap()).collect();
    let range_id = format!("acme__calc-{}", &shas.range.1[..7]);
    assert_eq!(ids, ["acme__calc-1", "acme__calc-2", "acme__calc-3", "acme__calc-4", range_id.as_str()]);
    let by_id = |id: &str| instances.iter().find(|i| i["instance_id"] == id).unwrap();

    // The squash PR: base is the parent; CRLF and latin-1 bytes survive; the doc is dropped.
    let pr1 = by_id("acme__calc-1");
    assert_eq!(pr1["base_commit"], f.git(&["rev-parse", &format!("{}^", shas.squash)]));
    assert_eq!(pr1["pull_number"], 1);
    assert_eq!(pr1["version"], "1.4", "the second version file matched; 1.4.2 keeps two parts");
    assert_eq!(pr1["created_at"], "2023-11-16T22:13:20Z", "the squash commit's date, in UTC");
    assert_eq!(pr1["problem_statement"], "Fix add (#1)\n\nadd subtracted.");
    assert_eq!(pr1["collected"]["dropped"], serde_json::json!(["README.md"]));
    assert_eq!(pr1["collected"]["test_files"], serde_json::json!(["tests/test_calc.py"]));
    let patch = pr1["patch"].as_str().unwrap();
    assert!(patch.contains("+    return a + b\r\n"), "CRLF kept: {patch:?}");
    assert!(patch.contains("GIT binary patch"), "the latin-1 file is a binary patch: {patch}");
    assert!(!patch.contains("README") && !pr1["test_patch"].as_str().unwrap().contains("README"));
    let tree = apply(
        &root,
        &f.work,
        pr1["base_commit"].as_str().unwrap(),
        &[patch, pr1["test_patch"].as_str().unwrap()],
        "apply-1",
    );
    for path in ["src/calc.py", "src/legacy.py", "tests/test_calc.py"] {
        assert_eq!(std::fs::read(tree.join(path)).unwrap(), blob(&f.work, &shas.squash, path), "{path}");
    }
    assert_eq!(std::fs::read(tree.join("README.md")).unwrap(), b"calc\n", "dropped files are not changed");

    // "Merge pull request": the base is the merge base; the head is the second parent.
    let pr2 = by_id("acme__calc-2");
    assert_eq!(pr2["base_commit"], shas.merge_base);
    assert_eq!(pr2["collected"]["head"], shas.merge_head);
    assert!(pr2["collected"]["how"].as_str().unwrap().contains(&shas.merge[..10]));
    assert_eq!(pr2["version"], "1.4", "the version at the PR's base, before the release");
    assert!(pr2["patch"].as_str().unwrap().contains("+++ b/src/mul.py"));
    assert!(pr2["test_patch"].as_str().unwrap().contains("+++ b/tests/test_mul.py"));
    assert!(!pr2["patch"].as_str().unwrap().contains("version.py"), "main's own changes are not the PR's");

    // Pull refs: unmerged, forked from HEAD; and merged by a plain merge commit.
    let pr3 = by_id("acme__calc-3");
    assert_eq!(pr3["collected"]["head"], shas.unmerged_head);
    assert_eq!(pr3["base_commit"], f.git(&["rev-parse", &format!("{}^", shas.unmerged_head)]));
    assert_eq!(pr3["version"], "1.5");
    let pr4 = by_id("acme__calc-4");
    assert_eq!(pr4["base_commit"], f.git(&["rev-parse", &format!("{}^1", shas.plain_merge)]));
    assert!(pr4["collected"]["how"].as_str().unwrap().contains("merged by"));
    let tree = apply(
        &root,
        &f.work,
        pr4["base_commit"].as_str().unwrap(),
        &[pr4["patch"].as_str().unwrap(), pr4["test_patch"].as_str().unwrap()],
        "apply-4",
    );
    assert_eq!(std::fs::read(tree.join("src/sub.py")).unwrap(), b"def sub(a, b):\n    return a - b\n");

    // A commit range: the instance id falls back to the head's short sha.
    let range = by_id(&range_id);
    assert_eq!(range["base_commit"], shas.range.0);
    assert!(range.get("pull_number").is_none());

    // SWE-bench's environment_setup_commit: the newest base commit of each version.
    assert_eq!(pr1["environment_setup_commit"], pr2["environment_setup_commit"]);
    assert_eq!(pr2["environment_setup_commit"], pr2["base_commit"]);
    assert_eq!(pr3["environment_setup_commit"], range["base_commit"]);
    assert!(instances.iter().all(|i| i["FAIL_TO_PASS"] == serde_json::json!([])));
}

#[test]
fn collect_refuses_unusable_input_clearly() {
    let root = logs_dir("collect-bad");
    let (f, _) = fixture(&root);
    let o = root.join("o.jsonl");
    let run = |args: &[&str]| {
        let mut all = vec!["collect", "--repo", "acme/calc", "--git", f.work.to_str().unwrap()];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--output", o.to_str().unwrap()]);
        let out = verdict(&all);
        (out.status.code(), text(&out))
    };
    let (code, log) = run(&["--pr", "1"]);
    assert_eq!(code, Some(2), "{log}");
    assert!(log.contains("no harness spec for acme/calc") && log.contains("--language"), "{log}");
    let (code, log) = run(&[]);
    assert_eq!(code, Some(2), "{log}");
    assert!(log.contains("--pr N"), "{log}");
    let (code, log) = run(&["--pr", "1", "--language", "cobol"]);
    assert_eq!(code, Some(2), "{log}");
    assert!(log.contains("cobol") && log.contains("harness/collect.toml"), "{log}");
    // With the language given and nothing else, the PR is collected and no version is set.
    let (code, log) = run(&["--pr", "1", "--language", "python"]);
    assert_eq!(code, Some(0), "{log}");
    let not_git = root.join("plain");
    std::fs::create_dir_all(&not_git).unwrap();
    let out = verdict(&["collect", "--repo", "acme/calc", "--git", not_git.to_str().unwrap(), "--pr", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("is not a git repository"), "{}", text(&out));
}

#[test]
fn collect_versions_by_the_nearest_matching_tag_where_no_version_file_matches() {
    let root = logs_dir("collect-tags");
    let (f, shas) = fixture(&root);
    // The release commit is tagged; a later tag that the glob does not match is passed over.
    f.git(&["tag", "v1.5.0", &format!("{}^1", shas.merge)]);
    f.git(&["tag", "nightly", &shas.merge]);
    let specs = root.join("specs");
    write(
        &specs.join("acme__calc.toml"),
        &SPEC.replace(
            "version_patterns = ['__version__ = \"([^\"]+)\"']",
            "version_patterns = ['__nothing__ = \"([^\"]+)\"']\nversion_tags = [\"v[0-9]*\"]\nversion_default = \"get_version\"",
        ),
    );
    let output = root.join("out").join("calc.jsonl");
    let out = verdict(&[
        "collect",
        "--repo",
        "acme/calc",
        "--git",
        f.work.to_str().unwrap(),
        "--specs",
        specs.to_str().unwrap(),
        "--pr",
        "1,2,3",
        "--output",
        output.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let versions: Vec<String> = std::fs::read_to_string(&output)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["version"].as_str().unwrap().to_string())
        .collect();
    // PR 1 and PR 2 start before the tagged release: no tag below them, so the default; PR 3
    // starts after it (at the merge tagged `nightly`, which the glob skips).
    assert_eq!(versions, ["get_version", "get_version", "1.5"]);
}
