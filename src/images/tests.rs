//! Layer planning: tags are hashes of inputs, and a change rebuilds only the layers below it.

use super::*;
use crate::parse::ParserKind;

fn planner(dir: &Path, certs: Vec<(String, Vec<u8>)>) -> Planner {
    std::fs::write(dir.join("python.Dockerfile"), "FROM {{os_image}}\nRUN apt-get install -y {{apt}}\n").unwrap();
    std::fs::write(dir.join("env.Dockerfile"), "FROM {{base_image}}\n").unwrap();
    std::fs::write(dir.join("instance.Dockerfile"), "FROM {{env_image}}\n").unwrap();
    Planner::new(dir.to_path_buf(), "verdict-os:bookworm".into(), certs)
}

fn instance() -> Instance {
    serde_json::from_value(serde_json::json!({
        "instance_id": "acme__tool-1", "repo": "Acme/Tool", "base_commit": "abc",
        "patch": "", "test_patch": ""
    }))
    .unwrap()
}

fn entry() -> SpecEntry {
    SpecEntry {
        apt: vec!["libxml2".into()],
        env_setup: vec!["pip install pytest".into()],
        install: vec!["pip install -e .".into()],
        ..SpecEntry::new("python", "pytest", ParserKind::Pytest)
    }
}

fn language() -> LanguageSpec {
    LanguageSpec {
        base_dockerfile: "python.Dockerfile".into(),
        apt: vec!["git".into()],
        test_files: vec![],
        test_arg_files: vec![],
        env: BTreeMap::from([("TZ".into(), "UTC".into())]),
        toolchains: vec!["python".into()],
    }
}

#[test]
fn templates_are_rendered_and_tags_are_valid_docker_names() {
    let dir = tempfile::tempdir().unwrap();
    let images = planner(dir.path(), vec![]).plan(&instance(), &entry(), &language()).unwrap();
    assert_eq!(images.base.dockerfile, "FROM verdict-os:bookworm\nRUN apt-get install -y git libxml2\n");
    assert_eq!(images.env.dockerfile, format!("FROM {}\n", images.base.tag));
    assert_eq!(images.instance.dockerfile, format!("FROM {}\n", images.env.tag));
    assert!(images.instance.tag.starts_with("verdict-instance-acme__tool:"), "{}", images.instance.tag);
    let install = &images.instance.files[0];
    assert_eq!(install.path, "install.sh");
    assert_eq!(
        String::from_utf8_lossy(&install.bytes),
        "#!/bin/bash\nset -euxo pipefail\nexport TZ=UTC\ncd /testbed\npip install -e .\n"
    );
}

#[test]
fn a_change_rebuilds_only_the_layers_below_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = planner(dir.path(), vec![]);
    let one = p.plan(&instance(), &entry(), &language()).unwrap();
    let same = p.plan(&instance(), &entry(), &language()).unwrap();
    assert_eq!(one, same);

    let mut install_changed = entry();
    install_changed.install = vec!["pip install .".into()];
    let two = p.plan(&instance(), &install_changed, &language()).unwrap();
    assert_eq!(one.base.tag, two.base.tag);
    assert_eq!(one.env.tag, two.env.tag);
    assert_ne!(one.instance.tag, two.instance.tag);

    let mut env_changed = entry();
    env_changed.env_setup = vec!["pip install pytest==8".into()];
    let three = p.plan(&instance(), &env_changed, &language()).unwrap();
    assert_eq!(one.base.tag, three.base.tag);
    assert_ne!(one.env.tag, three.env.tag);
    assert_ne!(one.instance.tag, three.instance.tag);

    let mut other_commit = instance();
    other_commit.base_commit = "def".into();
    let four = p.plan(&other_commit, &entry(), &language()).unwrap();
    assert_eq!(one.env.tag, four.env.tag);
    assert_ne!(one.instance.tag, four.instance.tag);

    let with_cert = planner(dir.path(), vec![("proxy.crt".into(), b"CERT".to_vec())]);
    let five = with_cert.plan(&instance(), &entry(), &language()).unwrap();
    assert_ne!(one.base.tag, five.base.tag);
    assert_ne!(one.instance.tag, five.instance.tag);
    assert!(five.base.files.iter().any(|f| f.path == "certs/proxy.crt"));
}

#[test]
fn missing_template_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = Planner::new(dir.path().to_path_buf(), "os".into(), vec![]);
    let err = p.plan(&instance(), &entry(), &language()).unwrap_err();
    assert!(err.to_string().contains("python.Dockerfile"), "{err}");
}

#[test]
fn shell_quoting() {
    assert_eq!(shell_quote("tests/test_a.py"), "tests/test_a.py");
    assert_eq!(shell_quote("a b"), "'a b'");
    assert_eq!(shell_quote("it's"), r"'it'\''s'");
    assert_eq!(shell_quote(""), "''");
}
