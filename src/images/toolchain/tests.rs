//! Toolchain selection on the real catalog: registry path against offline path, version to
//! provider, and the errors for versions nobody knows or nobody can supply here.

use super::*;

fn catalog() -> Catalog {
    Catalog::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("harness/toolchains.toml")).unwrap()
}

fn req(pairs: &[(&str, &str)]) -> Request {
    pairs.iter().map(|(t, v)| (t.to_string(), v.to_string())).collect()
}

fn tools(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

const OFFLINE: Availability = Availability { registry: false };
const REGISTRY: Availability = Availability { registry: true };

fn provider(plan: &ToolchainPlan, tool: &str) -> Provider {
    plan.tools.iter().find(|t| t.tool == tool).unwrap_or_else(|| panic!("{tool} not in {plan:?}")).provider.clone()
}

fn suite(name: &str) -> Provider {
    Provider::Suite(name.into())
}

fn portable(name: &str) -> Provider {
    Provider::Portable(name.into())
}

#[test]
fn no_request_is_the_default_suite_whatever_the_registry() {
    for availability in [OFFLINE, REGISTRY] {
        let plan = select(&catalog(), &req(&[]), &tools(&["python"]), availability).unwrap();
        assert_eq!(plan.os, OsSource::Suite("bookworm".into()));
        assert_eq!(
            plan.tools,
            vec![ToolChoice { tool: "python".into(), requested: None, provider: suite("bookworm") }]
        );
        assert_eq!(plan.label(), "");
    }
}

#[test]
fn offline_python_versions_come_from_the_suite_that_ships_them() {
    let c = catalog();
    let py = tools(&["python"]);
    for (version, want) in [("3.9", "bullseye"), ("3.11", "bookworm"), ("3.13", "trixie"), ("3.11.2", "bookworm")] {
        let plan = select(&c, &req(&[("python", version)]), &py, OFFLINE).unwrap();
        assert_eq!(plan.os, OsSource::Suite(want.into()), "python {version}");
        assert_eq!(provider(&plan, "python"), suite(want), "python {version}");
    }
    assert_eq!(select(&c, &req(&[("python", "3.9")]), &py, OFFLINE).unwrap().label(), "python3.9");
}

#[test]
fn with_a_registry_the_official_image_comes_first() {
    let c = catalog();
    let plan = select(&c, &req(&[("python", "3.9")]), &tools(&["python"]), REGISTRY).unwrap();
    assert_eq!(plan.os, OsSource::Image("python:3.9-slim".into()));
    assert_eq!(provider(&plan, "python"), Provider::Image("python:3.9-slim".into()));

    // Node's image brings its npm; Java's image gets the distribution's Maven unless one is named.
    let plan = select(&c, &req(&[("node", "16")]), &tools(&["node", "npm"]), REGISTRY).unwrap();
    assert_eq!(plan.os, OsSource::Image("node:16-slim".into()));
    assert_eq!(provider(&plan, "npm"), Provider::Image("node:16-slim".into()));
    let plan = select(&c, &req(&[("java", "8"), ("maven", "3.6.3")]), &tools(&["java", "maven"]), REGISTRY).unwrap();
    assert_eq!(plan.os, OsSource::Image("eclipse-temurin:8-jdk".into()));
    assert_eq!(provider(&plan, "maven"), portable("maven-central"));

    // A version the images are not published for falls back to the offline providers.
    let plan = select(&c, &req(&[("python", "3.9.2")]), &tools(&["python"]), REGISTRY).unwrap();
    assert_eq!(plan.os, OsSource::Image("python:3.9.2-slim".into()), "3.9.2 is in the image family 3.9");
    let plan = select(&c, &req(&[("java", "21")]), &tools(&["java", "maven"]), REGISTRY).unwrap();
    assert_eq!(plan.os, OsSource::Image("eclipse-temurin:21-jdk".into()));
}

#[test]
fn offline_node_comes_from_the_npm_registry_with_its_npm() {
    let c = catalog();
    let node = tools(&["node", "npm"]);
    for version in ["16", "18", "12.22.12", "20"] {
        let plan = select(&c, &req(&[("node", version)]), &node, OFFLINE).unwrap();
        assert_eq!(plan.os, OsSource::Suite("bookworm".into()), "node {version} stays on the default suite");
        assert_eq!(provider(&plan, "node"), portable("npm-registry"));
        assert_eq!(provider(&plan, "npm"), portable("npm-registry"), "npm goes with node {version}");
    }
    assert_eq!(c.npm_for_node("npm-registry", "16"), Some("8"));
    assert_eq!(c.npm_for_node("npm-registry", "16.20.2"), Some("8"));
    assert_eq!(c.npm_for_node("npm-registry", "0.10.48"), Some("2"));

    // npm alone: over Debian's Node.js, from the npm registry.
    let plan = select(&c, &req(&[("npm", "8")]), &node, OFFLINE).unwrap();
    assert_eq!(provider(&plan, "node"), suite("bookworm"));
    assert_eq!(provider(&plan, "npm"), portable("npm-registry"));
}

#[test]
fn offline_java_and_maven_pick_one_suite_for_both() {
    let c = catalog();
    let java = tools(&["java", "maven"]);
    let plan = select(&c, &req(&[("java", "11")]), &java, OFFLINE).unwrap();
    assert_eq!(plan.os, OsSource::Suite("bullseye".into()));
    assert_eq!(provider(&plan, "maven"), suite("bullseye"), "the suite's own Maven goes with its JDK");

    let plan = select(&c, &req(&[("java", "11"), ("maven", "3.6.3")]), &java, OFFLINE).unwrap();
    assert_eq!((provider(&plan, "java"), provider(&plan, "maven")), (suite("bullseye"), suite("bullseye")));

    let plan = select(&c, &req(&[("java", "17"), ("maven", "3.6.3")]), &java, OFFLINE).unwrap();
    assert_eq!(plan.os, OsSource::Suite("bookworm".into()));
    assert_eq!(provider(&plan, "maven"), portable("maven-central"));

    let plan = select(&c, &req(&[("java", "21"), ("maven", "3.9.9")]), &java, OFFLINE).unwrap();
    assert_eq!(plan.os, OsSource::Suite("trixie".into()));
}

#[test]
fn offline_python_3_7_and_3_10_come_from_maven_central_on_the_default_suite() {
    let c = catalog();
    let py = tools(&["python"]);
    for version in ["3.7", "3.10", "3.7.9", "3.10.8"] {
        let plan = select(&c, &req(&[("python", version)]), &py, OFFLINE).unwrap();
        assert_eq!(plan.os, OsSource::Suite("bookworm".into()), "python {version}");
        assert_eq!(provider(&plan, "python"), portable("maven-central-cpython"), "python {version}");
    }
    // The suites still come first for what they ship; 3.8 has no provider here.
    let plan = select(&c, &req(&[("python", "3.9")]), &py, OFFLINE).unwrap();
    assert_eq!(provider(&plan, "python"), suite("bullseye"));
    let err = select(&c, &req(&[("python", "3.8")]), &py, OFFLINE).unwrap_err();
    assert!(err.message.contains("maven-central-cpython has 3.7, 3.10;"), "no range that reads as holding 3.8: {err}");
}

#[test]
fn offline_java_8_comes_from_debian_sid_on_trixie_only() {
    let c = catalog();
    let java = tools(&["java", "maven"]);
    let plan = select(&c, &req(&[("java", "8")]), &java, OFFLINE).unwrap();
    assert_eq!(plan.os, OsSource::Suite("trixie".into()), "sid's JDK needs trixie's libc");
    assert_eq!(provider(&plan, "java"), portable("debian-sid"));
    assert_eq!(provider(&plan, "maven"), suite("trixie"));
    let plan = select(&c, &req(&[("java", "8"), ("maven", "3.9.4")]), &java, OFFLINE).unwrap();
    assert_eq!(
        (provider(&plan, "java"), provider(&plan, "maven")),
        (portable("debian-sid"), portable("maven-central"))
    );

    // A provider bound to suites never goes on an official image: Java 8 beside Python 3.9 has
    // no image to go on and no suite with both.
    let err = select(&c, &req(&[("python", "3.9"), ("java", "8")]), &tools(&["python"]), REGISTRY).unwrap_err();
    assert!(err.message.contains("python 3.9 + java 8"), "{err}");
    assert!(c.providers["debian-sid"].installs_on(Some("trixie")));
    assert!(!c.providers["debian-sid"].installs_on(Some("bookworm")));
    assert!(!c.providers["debian-sid"].installs_on(None));
    assert!(c.providers["npm-registry"].installs_on(None));
}

#[test]
fn go_and_rust_come_from_their_own_registries() {
    let c = catalog();
    let plan = select(&c, &req(&[("go", "1.21")]), &tools(&["go"]), OFFLINE).unwrap();
    assert_eq!(provider(&plan, "go"), portable("go-proxy"));
    let plan = select(&c, &req(&[("rust", "1.70")]), &tools(&["rust"]), OFFLINE).unwrap();
    assert_eq!(provider(&plan, "rust"), portable("rustup"));
    // A secondary tool of another language: Node.js 16 beside the default Python.
    let plan = select(&c, &req(&[("node", "16")]), &tools(&["python"]), OFFLINE).unwrap();
    assert_eq!(provider(&plan, "python"), suite("bookworm"));
    assert_eq!(provider(&plan, "node"), portable("npm-registry"));
}

#[test]
fn a_version_nobody_can_supply_here_names_the_version_and_the_ways_tried() {
    let c = catalog();
    let err = select(&c, &req(&[("java", "19")]), &tools(&["java", "maven"]), OFFLINE).unwrap_err();
    assert!(err.message.contains("java 19"), "{err}");
    assert!(err.message.contains("no container registry answered"), "{err}");
    assert!(err.message.contains("Debian ships 17.0.19 (bookworm), 11.0.24, 17.0.12 (bullseye)"), "{err}");
    assert!(err.message.contains("eclipse-temurin:{version}-jdk"), "{err}");
    assert!(err.message.contains("debian-sid has 8 on trixie"), "{err}");

    // Each alone is fine, together no suite has both.
    let err = select(&c, &req(&[("python", "3.13"), ("java", "11")]), &tools(&["python"]), OFFLINE).unwrap_err();
    assert!(err.message.contains("python 3.13 + java 11"), "{err}");
}

#[test]
fn versions_are_checked_against_every_provider() {
    let c = catalog();
    assert!(c.check("python", "3.9").is_ok());
    assert!(c.check("python", "3.6").is_ok(), "known to the official images");
    assert!(c.check("node", "16.20.2").is_ok());
    assert!(c.check("maven", "3.6.3").is_ok());
    let err = c.check("python", "3.99").unwrap_err();
    assert!(err.contains("python = \"3.99\" is a version no toolchain provider knows"), "{err}");
    assert!(err.contains("3.9.2 (bullseye)"), "{err}");
    let err = c.check("node", "sixteen").unwrap_err();
    assert!(err.contains("not a version"), "{err}");
    assert!(c.check("java", "9").is_err(), "no provider has Java 9");
}

#[test]
fn version_matching() {
    assert!(offers("3.9.2", "3.9"));
    assert!(offers("3.9.2", "3.9.2"));
    assert!(!offers("3.9.2", "3.9.18"));
    assert!(!offers("3.9.2", "3.1"));
    assert!(!offers("3.10.1", "3.1"));
    assert!(in_family("16", "16.20.2"));
    assert!(!in_family("1.2", "1.21"));
    assert_eq!(major("17.0.2"), "17");
}
