//! Unit tests of the rules that need no repository (the fixture-repository tests are in
//! `tests/collect.rs`).

use super::*;

#[test]
fn versions_keep_digits_and_the_leading_parts() {
    assert_eq!(normalize_version("4.45.0", 2), "4.45");
    assert_eq!(normalize_version("0.920+dev", 2), "0.920");
    assert_eq!(normalize_version("v1.4.0-rc1", 2), "1.4");
    assert_eq!(normalize_version("2.8.6-SNAPSHOT", 2), "2.8");
    assert_eq!(normalize_version("4.1.50.Final", 3), "4.1.50");
    assert_eq!(normalize_version("5", 2), "5");
    assert_eq!(normalize_version("dev", 2), "");
}

#[test]
fn pr_numbers_come_from_merge_and_squash_subjects() {
    assert_eq!(pr_number_of("Merge pull request #12 from a/b"), Some(12));
    assert_eq!(pr_number_of("fix: thing (#1954)"), Some(1954));
    assert_eq!(pr_number_of("Revert \"fix (#3)\" (#9)"), Some(9), "the last number is the PR's own");
    assert_eq!(pr_number_of("see #12 for details"), None);
    assert_eq!(pr_number_of("Merge branch 'devel'"), None);
}

#[test]
fn environment_setup_commit_is_the_newest_base_per_version() {
    let make = |id: &str, version: &str, created: &str, base: &str| Instance {
        instance_id: id.into(),
        repo: "a/b".into(),
        base_commit: base.into(),
        patch: String::new(),
        test_patch: String::new(),
        problem_statement: String::new(),
        version: Some(version.into()),
        fail_to_pass: Vec::new(),
        pass_to_pass: Vec::new(),
        harness: None,
        extra: serde_json::Map::from_iter([("created_at".to_string(), json!(created))]),
    };
    let mut instances = vec![
        make("a", "1.0", "2020-01-02T00:00:00Z", "b1"),
        make("b", "1.0", "2021-01-01T00:00:00Z", "b2"),
        make("c", "2.0", "2019-01-01T00:00:00Z", "b3"),
    ];
    set_environment_setup_commits(&mut instances);
    let setup: Vec<&str> = instances.iter().map(|i| i.extra["environment_setup_commit"].as_str().unwrap()).collect();
    assert_eq!(setup, ["b2", "b2", "b3"]);
}
