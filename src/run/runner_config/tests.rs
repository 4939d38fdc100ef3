//! Resetting the runner's parts of configuration files, on files in the shapes real repositories use,
//! and planning the resets from a candidate patch and a base snapshot.

use super::*;
use crate::localize::MemorySnapshot;

fn keys() -> PackageKeys {
    PackageKeys { keys: vec!["jest".into()], scripts: Vec::new() }
}

fn content(reset: Reset) -> (String, Vec<String>) {
    match reset {
        Reset::Content { bytes, parts } => (String::from_utf8(bytes).unwrap(), parts),
        other => panic!("expected a reset, got {other:?}"),
    }
}

const PYPROJECT: &str = r#"[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "guard"
version = "0.1.0"
dependencies = []

[tool.pytest.ini_options]
addopts = "-ra"
testpaths = ["tests"]

[tool.black]
line-length = 100
"#;

#[test]
fn pyproject_packaging_edits_are_left_alone() {
    let post = PYPROJECT.replace("version = \"0.1.0\"", "version = \"0.2.0\"").replace(
        "dependencies = []",
        "dependencies = [\"attrs\"]\n\n[project.entry-points.console_scripts]\nguard = \"guard:main\"",
    );
    let k = PackageKeys::default();
    assert_eq!(reset(Kind::Pyproject, &k, Some(PYPROJECT.as_bytes()), Some(post.as_bytes())), Reset::Unchanged);
}

#[test]
fn pyproject_runner_table_goes_back_and_packaging_stays() {
    let post = PYPROJECT
        .replace("version = \"0.1.0\"", "version = \"0.2.0\"")
        .replace("addopts = \"-ra\"", "addopts = \"-ra -p guard.plugin\"\npython_files = [\"*.py\"]");
    let (text, parts) =
        content(reset(Kind::Pyproject, &PackageKeys::default(), Some(PYPROJECT.as_bytes()), Some(post.as_bytes())));
    assert_eq!(parts, ["[tool.pytest.*]"]);
    assert_eq!(text, PYPROJECT.replace("version = \"0.1.0\"", "version = \"0.2.0\""));
}

#[test]
fn pyproject_runner_table_the_candidate_adds_is_removed() {
    let base = "[project]\nname = \"guard\"\n";
    let post = "[project]\nname = \"guard\"\n\n[tool.pytest.ini_options]\naddopts = \"-p guard.plugin\"\n\n[tool.ruff]\nx = 1\n";
    let (text, _) =
        content(reset(Kind::Pyproject, &PackageKeys::default(), Some(base.as_bytes()), Some(post.as_bytes())));
    assert_eq!(text, "[project]\nname = \"guard\"\n\n[tool.ruff]\nx = 1\n");
    // And one the candidate deletes is put back.
    let (text, _) = content(reset(
        Kind::Pyproject,
        &PackageKeys::default(),
        Some(PYPROJECT.as_bytes()),
        Some(
            PYPROJECT
                .replace("[tool.pytest.ini_options]\naddopts = \"-ra\"\ntestpaths = [\"tests\"]\n\n", "")
                .as_bytes(),
        ),
    ));
    assert_eq!(toml_runner(&text).unwrap(), toml_runner(PYPROJECT).unwrap());
    assert!(text.contains("[tool.black]"));
}

#[test]
fn pyproject_runner_set_through_dotted_keys_is_unsafe() {
    let base = PYPROJECT.replace("[tool.pytest.ini_options]\naddopts = \"-ra\"\ntestpaths = [\"tests\"]\n\n", "");
    let post = base.replace("[tool.black]", "[tool]\npytest.ini_options.addopts = \"-p guard.plugin\"\n\n[tool.black]");
    match reset(Kind::Pyproject, &PackageKeys::default(), Some(base.as_bytes()), Some(post.as_bytes())) {
        Reset::Unsafe { reason, .. } => assert!(reason.contains("dotted keys"), "{reason}"),
        other => panic!("{other:?}"),
    }
    let broken = format!("{PYPROJECT}\n[tool.pytest.ini_options\n");
    match reset(Kind::Pyproject, &PackageKeys::default(), Some(PYPROJECT.as_bytes()), Some(broken.as_bytes())) {
        Reset::Unsafe { reason, .. } => assert!(reason.contains("does not parse after the patch"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

const SETUP_CFG: &str = "[metadata]\nname = guard\nversion = 0.1\n\n[tool:pytest] # pytest's\naddopts = -ra\n    --strict-markers\n\n[flake8]\nmax-line-length = 100\n";

#[test]
fn setup_cfg_section_goes_back_and_metadata_stays() {
    let post = SETUP_CFG.replace("version = 0.1", "version = 0.2").replace("--strict-markers", "-p guard.plugin");
    let (text, parts) =
        content(reset(Kind::SetupCfg, &PackageKeys::default(), Some(SETUP_CFG.as_bytes()), Some(post.as_bytes())));
    assert_eq!(parts, ["[tool:pytest]"]);
    assert_eq!(text, SETUP_CFG.replace("version = 0.1", "version = 0.2"));
    let only_metadata = SETUP_CFG.replace("version = 0.1", "version = 0.2");
    let k = PackageKeys::default();
    assert_eq!(reset(Kind::SetupCfg, &k, Some(SETUP_CFG.as_bytes()), Some(only_metadata.as_bytes())), Reset::Unchanged);
    // An indented `[x]` is a continuation line, not a section.
    let continued = SETUP_CFG.replace("    --strict-markers", "    --strict-markers\n    [not-a-section]");
    let (text, _) = content(reset(Kind::SetupCfg, &k, Some(SETUP_CFG.as_bytes()), Some(continued.as_bytes())));
    assert_eq!(text, SETUP_CFG);
}

#[test]
fn package_json_runner_key_and_scripts_go_back() {
    let base = r#"{
  "name": "guard",
  "version": "1.0.0",
  "scripts": { "test": "jest", "build": "tsc" },
  "jest": { "testEnvironment": "node" },
  "devDependencies": { "jest": "29.7.0" }
}
"#;
    let post = base
        .replace("\"1.0.0\"", "\"1.1.0\"")
        .replace("\"testEnvironment\": \"node\"", "\"testEnvironment\": \"node\", \"setupFiles\": [\"./src/hook.js\"]")
        .replace("\"test\": \"jest\"", "\"test\": \"jest --testResultsProcessor ./src/fake.js\"")
        .replace("\"build\": \"tsc\"", "\"build\": \"tsc -p .\"");
    let k = PackageKeys::new(Runner::Jest, "npm test -- --json --outputFile=$VERDICT_OUT/jest.json");
    assert_eq!(k.scripts, ["pretest", "test", "posttest"]);
    let (text, parts) = content(reset(Kind::PackageJson, &k, Some(base.as_bytes()), Some(post.as_bytes())));
    assert_eq!(parts, ["\"jest\"", "\"scripts.test\""]);
    let got: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(got["jest"], serde_json::json!({ "testEnvironment": "node" }));
    assert_eq!(got["scripts"]["test"], "jest");
    assert_eq!(got["scripts"]["build"], "tsc -p .", "other scripts keep the candidate's edit");
    assert_eq!(got["version"], "1.1.0");
    let order: Vec<&str> = got.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(order, ["name", "version", "scripts", "jest", "devDependencies"], "key order is kept");
    // `npx jest` runs no script: scripts are the candidate's business.
    let direct = PackageKeys::new(Runner::Jest, "npx jest --ci");
    assert!(direct.scripts.is_empty());
    let unchanged = base.replace("\"1.0.0\"", "\"1.1.0\"");
    assert_eq!(reset(Kind::PackageJson, &direct, Some(base.as_bytes()), Some(unchanged.as_bytes())), Reset::Unchanged);
}

#[test]
fn scripts_a_test_command_runs() {
    assert_eq!(package_scripts("npm test -- --ci"), ["test"]);
    assert_eq!(package_scripts("npm run test:unit -- -u && npm run lint"), ["test:unit", "lint"]);
    assert_eq!(package_scripts("yarn jest --ci"), ["jest"]);
    assert_eq!(package_scripts("CI=1 pnpm run spec"), ["spec"]);
    assert!(package_scripts("npx jest --ci; npm ci").is_empty());
    assert!(package_scripts("yarn install && yarn --silent").is_empty());
}

const POM: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>guard</artifactId>
  <version>1.0</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
  </properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.10.1</version>
      </plugin>
      <plugin>
        <artifactId>maven-surefire-plugin</artifactId>
        <version>2.22.3</version>
        <configuration><trimStackTrace>false</trimStackTrace></configuration>
      </plugin>
    </plugins>
  </build>
</project>
"#;

#[test]
fn pom_surefire_plugin_and_properties_go_back() {
    let post = POM
        .replace("<version>1.0</version>", "<version>1.1</version>")
        .replace(
            "<configuration><trimStackTrace>false</trimStackTrace></configuration>",
            "<configuration><testFailureIgnore>true</testFailureIgnore><argLine>-javaagent:agent.jar</argLine></configuration>",
        )
        .replace(
            "<maven.compiler.release>17</maven.compiler.release>",
            "<maven.compiler.release>17</maven.compiler.release>\n    <argLine>-javaagent:x.jar</argLine>\n    <maven.test.failure.ignore>true</maven.test.failure.ignore>",
        );
    let k = PackageKeys::default();
    let (text, parts) = content(reset(Kind::Pom, &k, Some(POM.as_bytes()), Some(post.as_bytes())));
    assert_eq!(
        parts,
        [
            "property argLine in project/properties",
            "property maven.test.failure.ignore in project/properties",
            "surefire plugin in project/build/plugins",
        ]
    );
    assert!(text.contains("<version>1.1</version>"), "{text}");
    assert!(!text.contains("javaagent") && !text.contains("failure.ignore"), "{text}");
    assert!(text.contains("<configuration><trimStackTrace>false</trimStackTrace></configuration>"), "{text}");
    // A compiler or dependency edit is not surefire's.
    let compiler = POM.replace("<version>3.10.1</version>", "<version>3.11.0</version>");
    assert_eq!(reset(Kind::Pom, &k, Some(POM.as_bytes()), Some(compiler.as_bytes())), Reset::Unchanged);
}

#[test]
fn pom_without_the_base_surefire_plugin_is_unsafe() {
    let start = POM.find("      <plugin>\n        <artifactId>maven-surefire-plugin").unwrap();
    let end = POM[start..].find("</plugin>\n").unwrap() + start + "</plugin>\n".len();
    let post = format!("{}{}", &POM[..start], &POM[end..]);
    match reset(Kind::Pom, &PackageKeys::default(), Some(POM.as_bytes()), Some(post.as_bytes())) {
        Reset::Unsafe { reason, .. } => assert!(reason.contains("re-inserting"), "{reason}"),
        other => panic!("{other:?}"),
    }
    match reset(Kind::Pom, &PackageKeys::default(), Some(POM.as_bytes()), Some(b"<project><build>".as_slice())) {
        Reset::Unsafe { reason, .. } => assert!(reason.contains("after the patch"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_deleted_configuration_comes_back_whole() {
    let (text, parts) = content(reset(Kind::Pyproject, &PackageKeys::default(), Some(PYPROJECT.as_bytes()), None));
    assert_eq!(text, PYPROJECT);
    assert_eq!(parts, ["the whole file (the patch deletes it)"]);
    let plain = "[project]\nname = \"x\"\n";
    assert_eq!(reset(Kind::Pyproject, &PackageKeys::default(), Some(plain.as_bytes()), None), Reset::Unchanged);
    assert_eq!(reset(Kind::PackageJson, &keys(), None, None), Reset::Unchanged);
}

fn snapshot() -> MemorySnapshot {
    [
        ("pyproject.toml", PYPROJECT.to_string()),
        ("src/guard/__init__.py", "VALUE = 1\n".to_string()),
        ("package.json", "{\n  \"name\": \"g\",\n  \"jest\": { \"testEnvironment\": \"node\" }\n}\n".to_string()),
    ]
    .into_iter()
    .collect()
}

const CANDIDATE: &str = r#"diff --git a/pyproject.toml b/pyproject.toml
--- a/pyproject.toml
+++ b/pyproject.toml
@@ -6,7 +6,7 @@ build-backend = "setuptools.build_meta"
 name = "guard"
-version = "0.1.0"
+version = "0.2.0"
 dependencies = []
 
 [tool.pytest.ini_options]
-addopts = "-ra"
+addopts = "-ra -p guard.plugin"
 testpaths = ["tests"]
diff --git a/src/guard/__init__.py b/src/guard/__init__.py
--- a/src/guard/__init__.py
+++ b/src/guard/__init__.py
@@ -1 +1 @@
-VALUE = 1
+VALUE = 2
"#;

#[test]
fn plan_predicts_the_file_and_resets_it() {
    let plan = plan(Runner::Pytest, "pytest -rA", CANDIDATE, &snapshot());
    assert_eq!(plan.resets.len(), 1, "{plan:?}");
    let planned = &plan.resets[0];
    assert_eq!(planned.path, "pyproject.toml");
    assert!(!planned.whole_on_fallback);
    let Action::Reset { base, predicted, reset } = &planned.action else { panic!("{planned:?}") };
    assert_eq!(base.as_deref(), Some(PYPROJECT.as_bytes()));
    let predicted = String::from_utf8(predicted.clone().unwrap()).unwrap();
    assert!(predicted.contains("-p guard.plugin") && predicted.contains("0.2.0"));
    assert_eq!(String::from_utf8(reset.clone()).unwrap(), PYPROJECT.replace("0.1.0", "0.2.0"));
    // The fallback starts pytest with the base commit's table.
    assert_eq!(
        plan.fallback.lines,
        ["export PYTEST_ADDOPTS=\"-c /testbed/.verdict-pytest.toml${PYTEST_ADDOPTS:+ $PYTEST_ADDOPTS}\""]
    );
    let (name, bytes) = &plan.fallback.files[0];
    assert_eq!(name, ".verdict-pytest.toml");
    assert_eq!(toml_runner(std::str::from_utf8(bytes).unwrap()).unwrap(), toml_runner(PYPROJECT).unwrap());
}

#[test]
fn plan_is_empty_without_runner_files_and_falls_back_when_it_cannot_predict() {
    let source_only = CANDIDATE.split("diff --git a/src").nth(1).map(|rest| format!("diff --git a/src{rest}")).unwrap();
    assert_eq!(plan(Runner::Pytest, "pytest", &source_only, &snapshot()), ConfigPlan::default());
    // jest does not read pyproject.toml.
    assert_eq!(plan(Runner::Jest, "npx jest", CANDIDATE, &snapshot()).resets, vec![]);
    let stale = CANDIDATE
        .replace(" name = \"guard\"", " name = \"other\"")
        .replace("[tool.pytest.ini_options]\n-", "[tool.pytest]\n-");
    let planned = plan(Runner::Pytest, "pytest", &stale, &snapshot());
    assert_eq!(planned.resets.len(), 1);
    let Action::Fallback { reason } = &planned.resets[0].action else { panic!("{planned:?}") };
    assert!(reason.contains("cannot be predicted"), "{reason}");
}

#[test]
fn jest_fallback_gives_the_base_key_as_a_config_file() {
    let candidate = "--- a/package.json\n+++ b/package.json\n@@ -1,4 +1,4 @@\n {\n   \"name\": \"g\",\n-  \"jest\": { \"testEnvironment\": \"node\" }\n+  \"jest\": { \"testEnvironment\": \"node\", \"reporters\": [\"./src/r.js\"] }\n }\n";
    let planned = plan(Runner::Jest, "npx jest --ci", candidate, &snapshot());
    assert_eq!(planned.resets.len(), 1);
    assert_eq!(planned.resets[0].parts, ["\"jest\""]);
    assert_eq!(planned.fallback.lines, ["export VERDICT_RUNNER_ARGS=--config=/testbed/.verdict-jest.json"]);
    let (name, bytes) = &planned.fallback.files[0];
    assert_eq!(name, ".verdict-jest.json");
    let value: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    assert_eq!(value, serde_json::json!({ "testEnvironment": "node" }));
}
