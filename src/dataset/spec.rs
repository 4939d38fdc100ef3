//! Harness specs: how to build, install and test one repository, as data.
//!
//! A spec file is `harness/specs/<owner>__<name>.toml` (or any `*.toml` in a folder given with
//! `--specs`). It names its repository and holds one entry per dataset `version`; the entry `"*"`
//! applies to versions without an entry of their own. An instance may also carry an inline
//! entry in its `harness` field (same fields, as JSON). Per-language defaults live in
//! `harness/languages/<language>.toml`. No repository is named anywhere in Rust.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Instance;
use crate::parse::ParserKind;

/// One spec file: a repository and its per-version entries.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SpecFile {
    /// `owner/name`, as in the dataset's `repo` field.
    pub repo: String,
    pub versions: BTreeMap<String, SpecEntry>,
}

/// How to set up and test a repository at one version.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SpecEntry {
    /// Selects `harness/languages/<language>.toml` and its Dockerfile templates.
    pub language: String,
    /// Extra Debian packages for the base layer, on top of the language's own.
    #[serde(default)]
    pub apt: Vec<String>,
    /// Commands run in the env layer (dependencies; the repository is not there yet).
    #[serde(default)]
    pub env_setup: Vec<String>,
    /// Commands run in `/testbed` in the instance layer, after the repository is copied in.
    #[serde(default)]
    pub install: Vec<String>,
    /// The test command, run in `/testbed`. `$VERDICT_OUT` is the folder verdict collects
    /// structured reports from; the command should write its report there.
    pub test_cmd: String,
    /// How the files of the test patch become arguments of the test command.
    #[serde(default)]
    pub test_args: TestArgs,
    /// Which log parser reads the output.
    pub log_parser: ParserKind,
    /// Globs (relative to `/testbed`) of reports to copy into `$VERDICT_OUT` after the test
    /// command, for runners that write them where they please (surefire).
    #[serde(default)]
    pub collect: Vec<String>,
    /// Extra environment for the install and test commands.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Globs of test files and test configuration. A candidate patch touching them is flagged,
    /// and they are restored to the base commit before the test patch is applied. Added to
    /// the language's own list.
    #[serde(default)]
    pub test_files: Vec<String>,
    /// Default test timeout in seconds for this entry (the `--timeout` flag wins).
    #[serde(default)]
    pub timeout: Option<u64>,
}

/// How test-patch files become test command arguments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TestArgs {
    /// Each file of the test patch that matches the language's `test_arg_files` globs, as a path.
    #[default]
    Files,
    /// Like `files`, with jest snapshots (`__snapshots__/x.test.js.snap`) mapped to their
    /// spec file (`x.test.js`).
    Jest,
    /// `-Dtest=com.x.FooTest,...` from `src/test/java` paths, plus `-pl module,...` when the
    /// files sit in modules of a multi-module build.
    Maven,
    /// No arguments: the command runs the whole suite.
    None,
}

/// Per-language defaults: `harness/languages/<language>.toml`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LanguageSpec {
    /// Base-layer Dockerfile template, in `dockerfiles/`.
    pub base_dockerfile: String,
    /// Debian packages every base image of this language gets.
    #[serde(default)]
    pub apt: Vec<String>,
    /// Test-file globs every repository of this language gets.
    #[serde(default)]
    pub test_files: Vec<String>,
    /// Globs of files that are runnable tests (a test patch file matching one becomes a test
    /// argument under `test_args = "files"` or `"jest"`); conftest-like helpers are left out.
    #[serde(default)]
    pub test_arg_files: Vec<String>,
    /// Environment every container of this language gets.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("cannot read harness spec {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("invalid harness spec {path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("harness specs {first} and {second} both describe repository {repo}; keep one")]
    Duplicate { repo: String, first: PathBuf, second: PathBuf },
}

/// Every spec verdict knows about, by repository.
#[derive(Debug, Clone, Default)]
pub struct SpecRegistry {
    specs: BTreeMap<String, (PathBuf, SpecFile)>,
    languages: BTreeMap<String, LanguageSpec>,
}

impl SpecRegistry {
    /// Loads `<harness>/specs/*.toml`, `<harness>/languages/*.toml`, then each extra folder's
    /// `*.toml` spec files. A repository described twice is an error, not a silent override.
    pub fn load(harness_dir: &Path, extra_dirs: &[PathBuf]) -> Result<Self, SpecError> {
        let mut registry = SpecRegistry::default();
        for path in toml_files(&harness_dir.join("languages"))? {
            let language: LanguageSpec = read_toml(&path)?;
            let name = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
            registry.languages.insert(name, language);
        }
        let mut dirs = vec![harness_dir.join("specs")];
        dirs.extend(extra_dirs.iter().cloned());
        for dir in dirs {
            for path in toml_files(&dir)? {
                let spec: SpecFile = read_toml(&path)?;
                if spec.versions.is_empty() {
                    return Err(SpecError::Invalid { path, message: "it has no [versions.\"...\"] entry".into() });
                }
                if let Some((first, _)) = registry.specs.get(&spec.repo) {
                    return Err(SpecError::Duplicate { repo: spec.repo.clone(), first: first.clone(), second: path });
                }
                registry.specs.insert(spec.repo.clone(), (path, spec));
            }
        }
        Ok(registry)
    }

    /// The entry for a repository at a version: the exact version, else `"*"`.
    pub fn entry(&self, repo: &str, version: Option<&str>) -> Option<&SpecEntry> {
        let (_, spec) = self.specs.get(repo)?;
        version.and_then(|v| spec.versions.get(v)).or_else(|| spec.versions.get("*"))
    }

    pub fn language(&self, name: &str) -> Option<&LanguageSpec> {
        self.languages.get(name)
    }

    /// The spec entry of an instance (its inline `harness`, else by repository and version) and
    /// its language's defaults. The error says what to add.
    pub fn resolve(&self, instance: &Instance) -> Result<(SpecEntry, LanguageSpec), ResolveError> {
        let entry = match &instance.harness {
            Some(inline) => inline.clone(),
            None => self.entry(&instance.repo, instance.version.as_deref()).cloned().ok_or_else(|| {
                ResolveError::NoSpec {
                    repo: instance.repo.clone(),
                    version: instance.version.clone().unwrap_or_else(|| "unset".into()),
                }
            })?,
        };
        let language = self.language(&entry.language).cloned().ok_or_else(|| ResolveError::UnknownLanguage {
            instance: instance.instance_id.clone(),
            language: entry.language.clone(),
        })?;
        Ok((entry, language))
    }
}

/// An instance no spec describes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    #[error(
        "no harness spec for repository {repo} (version {version}): add harness/specs/{}.toml, pass --specs DIR, or give the instance a `harness` field",
        repo.replace('/', "__")
    )]
    NoSpec { repo: String, version: String },
    #[error("instance {instance}: unknown language {language:?}; add harness/languages/{language}.toml")]
    UnknownLanguage { instance: String, language: String },
}

fn toml_files(dir: &Path) -> Result<Vec<PathBuf>, SpecError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(SpecError::Read { path: dir.to_path_buf(), source }),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| SpecError::Read { path: dir.to_path_buf(), source })?;
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "toml") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

fn read_toml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, SpecError> {
    let text = std::fs::read_to_string(path).map_err(|source| SpecError::Read { path: path.to_path_buf(), source })?;
    toml::from_str(&text).map_err(|e| SpecError::Invalid { path: path.to_path_buf(), message: e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instance(json: serde_json::Value) -> Instance {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.jsonl");
        std::fs::write(&path, format!("{json}\n")).unwrap();
        crate::dataset::load_instances(&path).unwrap().remove(0)
    }

    #[test]
    fn resolve_finds_the_entry_by_version_or_inline_and_says_what_is_missing() {
        let harness = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(harness.path().join("specs")).unwrap();
        std::fs::create_dir_all(harness.path().join("languages")).unwrap();
        std::fs::write(harness.path().join("languages/python.toml"), "base_dockerfile = \"python.Dockerfile\"\n")
            .unwrap();
        std::fs::write(
            harness.path().join("specs/o__r.toml"),
            "repo = \"o/r\"\n[versions.\"1.0\"]\nlanguage = \"python\"\ntest_cmd = \"pytest\"\nlog_parser = \"pytest\"\n\
             [versions.\"*\"]\nlanguage = \"python\"\ntest_cmd = \"pytest -x\"\nlog_parser = \"pytest\"\n",
        )
        .unwrap();
        let specs = SpecRegistry::load(harness.path(), &[]).unwrap();
        let base = serde_json::json!({"instance_id": "o__r-1", "repo": "o/r", "base_commit": "abc", "patch": "", "test_patch": ""});
        let mut v1 = base.clone();
        v1["version"] = "1.0".into();
        assert_eq!(specs.resolve(&instance(v1)).unwrap().0.test_cmd, "pytest");
        assert_eq!(
            specs.resolve(&instance(base.clone())).unwrap().0.test_cmd,
            "pytest -x",
            "`*` for any other version"
        );
        let mut inline = base.clone();
        inline["harness"] = serde_json::json!({"language": "python", "test_cmd": "pytest -q", "log_parser": "pytest"});
        assert_eq!(specs.resolve(&instance(inline)).unwrap().0.test_cmd, "pytest -q");
        let mut other = base.clone();
        other["repo"] = "x/y".into();
        let err = specs.resolve(&instance(other)).unwrap_err().to_string();
        assert_eq!(
            err,
            "no harness spec for repository x/y (version unset): add harness/specs/x__y.toml, pass --specs DIR, or give \
             the instance a `harness` field"
        );
        let mut go = base;
        go["harness"] = serde_json::json!({"language": "go", "test_cmd": "go test", "log_parser": "pytest"});
        let err = specs.resolve(&instance(go)).unwrap_err().to_string();
        assert_eq!(err, "instance o__r-1: unknown language \"go\"; add harness/languages/go.toml");
    }
}
