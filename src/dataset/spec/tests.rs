//! Spec loading: the built-in specs, file defaults, toolchain versions checked at load, and
//! inline `harness` fields merged over the spec entry.

use super::*;

fn harness() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("harness")
}

/// A registry of the real harness plus one extra spec file.
fn with_spec(text: &str) -> (tempfile::TempDir, Result<SpecRegistry, SpecError>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("acme__tool.toml"), text).unwrap();
    let loaded = SpecRegistry::load(&harness(), &[dir.path().to_path_buf()]);
    (dir, loaded)
}

const TOOL: &str = r#"
repo = "acme/tool"

[defaults]
language = "python"
test_cmd = "pytest -rA"
log_parser = "pytest"
env = { A = "1", B = "2" }

[versions."1.0"]
python = "3.9"
test_arg_files = ["tests/tests_*.py"]
env = { B = "two" }

[versions."*"]
install = ["pip install ."]
"#;

#[test]
fn the_built_in_specs_load() {
    let registry = SpecRegistry::load(&harness(), &[]).unwrap();
    assert!(registry.entry("verdict-demo/pycalc", Some("0.1")).is_some());
    assert!(registry.language("python").is_some_and(|l| l.toolchains == ["python"]));
    assert_eq!(registry.catalog().default_suite, "bookworm");
}

#[test]
fn entries_merge_over_the_file_defaults() {
    let (_dir, registry) = with_spec(TOOL);
    let registry = registry.unwrap();
    let one = registry.entry("acme/tool", Some("1.0")).unwrap();
    assert_eq!(one.test_cmd, "pytest -rA");
    assert_eq!(one.python.as_deref(), Some("3.9"));
    assert_eq!(one.test_arg_files, ["tests/tests_*.py"]);
    assert_eq!(one.env, BTreeMap::from([("A".into(), "1".into()), ("B".into(), "two".into())]), "tables merge by key");
    assert_eq!(one.toolchains(), vec![("python".to_string(), "3.9".to_string())]);
    let other = registry.entry("acme/tool", Some("2.0")).unwrap();
    assert_eq!(other.install, ["pip install ."]);
    assert_eq!(other.python, None);
}

#[test]
fn an_unknown_toolchain_version_names_the_file_the_entry_and_the_version() {
    let (dir, registry) = with_spec(&TOOL.replace("python = \"3.9\"", "python = \"3.99\""));
    let err = registry.unwrap_err().to_string();
    assert!(err.contains(&dir.path().join("acme__tool.toml").display().to_string()), "{err}");
    assert!(err.contains("entry versions.\"1.0\""), "{err}");
    assert!(err.contains("python = \"3.99\" is a version no toolchain provider knows"), "{err}");

    let (_dir, registry) = with_spec(&TOOL.replace("python = \"3.9\"", "python = 3.10"));
    let err = registry.unwrap_err().to_string();
    assert!(err.contains("must be a string") && err.contains("3.1"), "{err}");

    let (_dir, registry) = with_spec(&TOOL.replace("python = \"3.9\"", "pyhton = \"3.9\""));
    let err = registry.unwrap_err().to_string();
    assert!(err.contains("unknown field `pyhton`"), "{err}");
}

#[test]
fn an_inline_harness_overrides_only_the_fields_it_names() {
    let (_dir, registry) = with_spec(TOOL);
    let registry = registry.unwrap();
    let inline = InlineHarness::check(serde_json::json!({"test_cmd": "pytest -x", "env": {"C": "3"}})).unwrap();
    let entry = registry.entry_with_inline("acme/tool", Some("1.0"), Some(&inline)).unwrap().unwrap();
    assert_eq!(entry.test_cmd, "pytest -x");
    assert_eq!(entry.python.as_deref(), Some("3.9"), "the spec entry's other fields stay");
    assert_eq!(entry.test_arg_files, ["tests/tests_*.py"]);
    assert_eq!(entry.env.get("A").map(String::as_str), Some("1"));
    assert_eq!(entry.env.get("C").map(String::as_str), Some("3"));

    // Without a spec entry the inline fields stand alone, and must then be complete.
    let alone = registry.entry_with_inline("acme/other", None, Some(&inline)).unwrap_err();
    assert!(alone.contains("missing field `language`"), "{alone}");
    // An inline version is checked like a spec file's.
    let bad = InlineHarness::check(serde_json::json!({"node": "99"})).unwrap();
    let err = registry.entry_with_inline("acme/tool", Some("1.0"), Some(&bad)).unwrap_err();
    assert!(err.contains("node = \"99\""), "{err}");
    // Field names and types are checked when the dataset is read.
    assert!(InlineHarness::check(serde_json::json!({"tset_cmd": "x"})).unwrap_err().contains("tset_cmd"));
    assert!(InlineHarness::check(serde_json::json!(["x"])).is_err());
}

#[test]
fn allowed_suspicions_name_known_rules_only() {
    let ok = InlineHarness::check(serde_json::json!({"allowed_suspicions": ["test_framework_import"]}));
    assert!(ok.is_ok(), "{ok:?}");
    let err = InlineHarness::check(serde_json::json!({"allowed_suspicions": ["test_framwork_import"]})).unwrap_err();
    assert!(err.contains("unknown suspicious-code rule \"test_framwork_import\""), "{err}");
    assert!(err.contains("test_framework_import, test_hook"), "the message lists the rules: {err}");
}

fn instance(json: serde_json::Value) -> Instance {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.jsonl");
    std::fs::write(&path, format!("{json}\n")).unwrap();
    crate::dataset::load_instances(&path).unwrap().remove(0)
}

#[test]
fn resolve_finds_the_entry_by_version_or_inline_and_says_what_is_missing() {
    let (_dir, specs) = with_spec(TOOL);
    let specs = specs.unwrap();
    let base = serde_json::json!({"instance_id": "acme__tool-1", "repo": "acme/tool", "base_commit": "abc", "patch": "", "test_patch": ""});
    let mut v1 = base.clone();
    v1["version"] = "1.0".into();
    let (entry, language) = specs.resolve(&instance(v1)).unwrap();
    assert_eq!(
        (entry.test_arg_files, language.toolchains),
        (vec!["tests/tests_*.py".to_string()], vec!["python".to_string()])
    );
    assert_eq!(
        specs.resolve(&instance(base.clone())).unwrap().0.install,
        ["pip install ."],
        "`*` for any other version"
    );
    let mut inline = base.clone();
    inline["harness"] = serde_json::json!({"test_cmd": "pytest -q"});
    let (entry, _) = specs.resolve(&instance(inline)).unwrap();
    assert_eq!((entry.test_cmd.as_str(), entry.install.len()), ("pytest -q", 1), "inline fields merge over the entry");
    let mut other = base.clone();
    other["repo"] = "x/y".into();
    let err = specs.resolve(&instance(other)).unwrap_err().to_string();
    assert_eq!(
        err,
        "no harness spec for repository x/y (version unset): add harness/specs/x__y.toml, pass --specs DIR, or give \
         the instance a `harness` field"
    );
    let mut cobol = base;
    cobol["harness"] = serde_json::json!({"language": "cobol"});
    let err = specs.resolve(&instance(cobol)).unwrap_err().to_string();
    assert!(err.starts_with("instance acme__tool-1: "), "{err}");
}
