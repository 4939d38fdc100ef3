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

use crate::parse::ParserKind;

/// One spec file: a repository and its per-version entries.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SpecFile {
    /// `owner/name`, as in the dataset's `repo` field.
    pub repo: String,
    pub versions: BTreeMap<String, SpecEntry>,
    /// How `verdict collect` builds instances of this repository (version rule, split rules).
    #[serde(default)]
    pub collect: CollectSpec,
}

/// A spec file's `[collect]` table: how `verdict collect` tells an instance's `version` and how
/// it splits a PR's diff, on top of the language's rules in `harness/collect.toml`. See
/// [`crate::dataset::collect`] for the rules themselves.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CollectSpec {
    /// Files read at the base commit, in order; the first one that exists and that one of
    /// `version_patterns` matches gives the version.
    #[serde(default)]
    pub version_files: Vec<String>,
    /// Regular expressions tried in order on each file. The capture groups that matched are
    /// joined with `.`, everything but digits and dots is dropped, and the first
    /// `version_components` dot-separated parts are kept.
    #[serde(default)]
    pub version_patterns: Vec<String>,
    /// How many leading version parts to keep (default 2: `4.45.0` → `4.45`).
    #[serde(default)]
    pub version_components: Option<usize>,
    /// The version when no file matches (unset: the instance gets no version, so the spec's
    /// `"*"` entry applies).
    #[serde(default)]
    pub version_default: Option<String>,
    /// Extra globs of paths that count as tests (added to the language's `test_globs`).
    #[serde(default)]
    pub test_globs: Vec<String>,
    /// Extra globs of paths that count as source and go into the gold patch (added to the
    /// language's `source_globs`).
    #[serde(default)]
    pub source_globs: Vec<String>,
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

    /// The spec file of a repository, and where it was read from.
    pub fn spec(&self, repo: &str) -> Option<(&Path, &SpecFile)> {
        self.specs.get(repo).map(|(path, spec)| (path.as_path(), spec))
    }

    /// Every spec file, by repository.
    pub fn specs(&self) -> impl Iterator<Item = (&Path, &SpecFile)> {
        self.specs.values().map(|(path, spec)| (path.as_path(), spec))
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
