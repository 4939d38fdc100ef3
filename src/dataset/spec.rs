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

use crate::parse::{RunnerId, TestArgs};

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
    /// How the files of the test patch become arguments of the test command: `files`, `none`,
    /// or a runner's own mapping (`jest`, `maven`, …; see [`TestArgs`]).
    #[serde(default)]
    pub test_args: TestArgs,
    /// Which runner reads the output (a name of the runner table, `crate::parse::RUNNERS`).
    pub log_parser: RunnerId,
    /// Globs (relative to `/testbed`) of reports to copy into `$VERDICT_OUT` after the test
    /// command, for runners that write them where they please. Empty: the runner's own
    /// (surefire's `**/target/surefire-reports/TEST-*.xml`).
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

    pub fn languages(&self) -> impl Iterator<Item = (&String, &LanguageSpec)> {
        self.languages.iter()
    }
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
