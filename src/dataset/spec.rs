//! Harness specs: how to build, install and test one repository, as data.
//!
//! A spec file is `harness/specs/<owner>__<name>.toml` (or any `*.toml` in a folder given with
//! `--specs`). It names its repository and holds one entry per dataset `version`; the entry `"*"`
//! applies to versions without an entry of their own. An optional `[defaults]` table holds fields
//! every entry of the file shares; each entry's own fields win. An instance may also carry an
//! inline `harness` (same fields, as JSON): its fields are merged over the matching spec entry
//! (or stand alone when there is none). Merging replaces a field whole, except tables (`env`),
//! which merge key by key. Per-language defaults live in `harness/languages/<language>.toml`;
//! the toolchain versions an entry may name are those of `harness/toolchains.toml`. No
//! repository is named anywhere in Rust.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::Instance;
use crate::images::toolchain::{Catalog, CatalogError, Request, TOOLS};
use crate::parse::{RunnerId, TestArgs};

/// One spec file as written: a repository, fields shared by its entries, and its per-version
/// entries (each a table of [`SpecEntry`] fields, merged over `defaults`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFileText {
    /// `owner/name`, as in the dataset's `repo` field.
    repo: String,
    #[serde(default)]
    defaults: toml::Table,
    #[serde(default)]
    versions: BTreeMap<String, toml::Table>,
    #[serde(default)]
    collect: CollectSpec,
}

/// One spec file, its entries resolved.
#[derive(Debug, Clone)]
pub struct SpecFile {
    pub repo: String,
    pub path: PathBuf,
    /// Version → (the entry's fields as merged, the entry).
    pub versions: BTreeMap<String, (Map<String, Value>, SpecEntry)>,
    /// How `verdict collect` builds instances of this repository (version rule, split rules).
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
    /// Tag globs, for repositories versioned by their tags (setuptools_scm): when no version
    /// file matches, the nearest tag reachable from the base commit whose name matches one of
    /// them (`git describe --tags --abbrev=0 --match GLOB`), normalized as a file's version
    /// (`v5.3.dev` → `5.3`).
    #[serde(default)]
    pub version_tags: Vec<String>,
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
    /// Globs of runnable test files, added to the language's `test_arg_files`: a test-patch file
    /// matching one becomes a test argument under `test_args = "files"` or `"jest"`.
    #[serde(default)]
    pub test_arg_files: Vec<String>,
    /// Globs of test ids `verdict validate` keeps out of PASS_TO_PASS (tests that measure time,
    /// say). `*` matches any run of characters, `/` and `::` included.
    #[serde(default)]
    pub pass_to_pass_exclude: Vec<String>,
    /// Suspicious-code rules ([`SUSPICION_RULES`]) that this repository's own code matches by
    /// nature, so their hits are not held against its candidates: pytest's source imports
    /// `_pytest` and defines `pytest_*` hooks. Every other rule still applies.
    #[serde(default, deserialize_with = "suspicion_rules", skip_serializing_if = "Vec::is_empty")]
    pub allowed_suspicions: Vec<String>,
    /// Default test timeout in seconds for this entry (the `--timeout` flag wins).
    #[serde(default)]
    pub timeout: Option<u64>,
    /// Python version (`"3.9"`); absent: the language default (Debian bookworm's).
    #[serde(default, deserialize_with = "version", skip_serializing_if = "Option::is_none")]
    pub python: Option<String>,
    /// Node.js version (`"16"`).
    #[serde(default, deserialize_with = "version", skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// npm version; absent: the npm of the Node.js release (or Debian's with Debian's Node.js).
    #[serde(default, deserialize_with = "version", skip_serializing_if = "Option::is_none")]
    pub npm: Option<String>,
    /// Java (JDK) version (`"11"`).
    #[serde(default, deserialize_with = "version", skip_serializing_if = "Option::is_none")]
    pub java: Option<String>,
    /// Maven version (`"3.6.3"`).
    #[serde(default, deserialize_with = "version", skip_serializing_if = "Option::is_none")]
    pub maven: Option<String>,
    /// Go version (`"1.21"`).
    #[serde(default, deserialize_with = "version", skip_serializing_if = "Option::is_none")]
    pub go: Option<String>,
    /// Rust version (`"1.70"`).
    #[serde(default, deserialize_with = "version", skip_serializing_if = "Option::is_none")]
    pub rust: Option<String>,
}

impl SpecEntry {
    /// An entry with these required fields and every other field at its default.
    pub fn new(language: impl Into<String>, test_cmd: impl Into<String>, log_parser: RunnerId) -> Self {
        SpecEntry {
            language: language.into(),
            apt: Vec::new(),
            env_setup: Vec::new(),
            install: Vec::new(),
            test_cmd: test_cmd.into(),
            test_args: TestArgs::default(),
            log_parser,
            collect: Vec::new(),
            env: BTreeMap::new(),
            test_files: Vec::new(),
            test_arg_files: Vec::new(),
            pass_to_pass_exclude: Vec::new(),
            allowed_suspicions: Vec::new(),
            timeout: None,
            python: None,
            node: None,
            npm: None,
            java: None,
            maven: None,
            go: None,
            rust: None,
        }
    }

    /// The toolchain versions the entry names, in [`TOOLS`] order.
    pub fn toolchains(&self) -> Request {
        let named = [&self.python, &self.node, &self.npm, &self.java, &self.maven, &self.go, &self.rust];
        TOOLS.iter().zip(named).filter_map(|(tool, v)| Some((tool.to_string(), v.clone()?))).collect()
    }
}

/// The names of the suspicious-code rules (`grade::suspicious`), which `allowed_suspicions` may
/// name.
pub const SUSPICION_RULES: [&str; 9] = [
    "test_framework_import",
    "test_hook",
    "test_framework_globals",
    "process_exit",
    "exit_hook",
    "module_cache_write",
    "report_access",
    "installed_files",
    "python_startup_hook",
];

/// `allowed_suspicions`: names of known rules only, so a misspelt name is an error, not a rule
/// that silently stays on.
fn suspicion_rules<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    let names = Vec::<String>::deserialize(deserializer)?;
    if let Some(unknown) = names.iter().find(|n| !SUSPICION_RULES.contains(&n.as_str())) {
        return Err(serde::de::Error::custom(format!(
            "unknown suspicious-code rule {unknown:?} in allowed_suspicions: the rules are {}",
            SUSPICION_RULES.join(", ")
        )));
    }
    Ok(names)
}

/// A toolchain version: a string. A bare TOML or JSON number is refused, since `3.10` would
/// read as 3.1.
fn version<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Text(String),
        Number(serde_json::Number),
    }
    match Option::<Raw>::deserialize(deserializer)? {
        None => Ok(None),
        Some(Raw::Text(text)) => Ok(Some(text)),
        Some(Raw::Number(n)) => Err(serde::de::Error::custom(format!(
            "a toolchain version must be a string: write \"{n}\" in quotes (a bare number loses trailing zeros, 3.10 becomes 3.1)"
        ))),
    }
}

/// Per-language defaults: `harness/languages/<language>.toml`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
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
    /// Tools the base template installs (`harness/toolchains.toml`), the language's main tool
    /// first: with no version named they are the default suite's Debian packages.
    #[serde(default)]
    pub toolchains: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("cannot read harness spec {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("invalid harness spec {path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("harness specs {first} and {second} both describe repository {repo}; keep one")]
    Duplicate { repo: String, first: PathBuf, second: PathBuf },
    #[error(transparent)]
    Catalog(#[from] CatalogError),
}

/// An instance's inline `harness`: spec entry fields, merged over the matching spec entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct InlineHarness(pub Map<String, Value>);

impl InlineHarness {
    /// Checks the fields' names and types (whether the entry is complete is known only once it
    /// is merged over its spec entry).
    pub fn check(value: Value) -> Result<Self, String> {
        let Value::Object(map) = value else {
            return Err("it must be an object of spec entry fields".into());
        };
        let mut probe = Map::new();
        probe.insert("language".into(), "-".into());
        probe.insert("test_cmd".into(), "-".into());
        probe.insert("log_parser".into(), "pytest".into());
        merge(&mut probe, &map);
        serde_json::from_value::<SpecEntry>(Value::Object(probe)).map_err(|e| e.to_string())?;
        Ok(InlineHarness(map))
    }
}

/// Merges `over` into `base`: each field of `over` replaces the field of `base`, except that
/// tables merge key by key.
pub fn merge(base: &mut Map<String, Value>, over: &Map<String, Value>) {
    for (key, value) in over {
        match (base.get_mut(key), value) {
            (Some(Value::Object(below)), Value::Object(above)) => merge(below, above),
            _ => {
                base.insert(key.clone(), value.clone());
            }
        }
    }
}

/// Every spec verdict knows about, by repository.
#[derive(Debug, Clone, Default)]
pub struct SpecRegistry {
    specs: BTreeMap<String, SpecFile>,
    languages: BTreeMap<String, LanguageSpec>,
    catalog: Catalog,
}

impl SpecRegistry {
    /// Loads `<harness>/specs/*.toml`, `<harness>/languages/*.toml`, then each extra folder's
    /// `*.toml` spec files. A repository described twice is an error, not a silent override.
    pub fn load(harness_dir: &Path, extra_dirs: &[PathBuf]) -> Result<Self, SpecError> {
        let mut registry =
            SpecRegistry { catalog: Catalog::load(&harness_dir.join("toolchains.toml"))?, ..SpecRegistry::default() };
        for path in toml_files(&harness_dir.join("languages"))? {
            let language: LanguageSpec = read_toml(&path)?;
            let name = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
            registry.languages.insert(name, language);
        }
        let mut dirs = vec![harness_dir.join("specs")];
        dirs.extend(extra_dirs.iter().cloned());
        for dir in dirs {
            for path in toml_files(&dir)? {
                let text: SpecFileText = read_toml(&path)?;
                if text.versions.is_empty() {
                    return Err(SpecError::Invalid { path, message: "it has no [versions.\"...\"] entry".into() });
                }
                if let Some(first) = registry.specs.get(&text.repo) {
                    return Err(SpecError::Duplicate {
                        repo: text.repo.clone(),
                        first: first.path.clone(),
                        second: path,
                    });
                }
                let spec = registry.resolve_file(text, path)?;
                registry.specs.insert(spec.repo.clone(), spec);
            }
        }
        Ok(registry)
    }

    /// Every spec file, by repository.
    pub fn specs(&self) -> impl Iterator<Item = &SpecFile> {
        self.specs.values()
    }

    /// Merges each entry over the file's defaults and checks it: its fields, and that every
    /// toolchain version it names is one some provider knows.
    fn resolve_file(&self, text: SpecFileText, path: PathBuf) -> Result<SpecFile, SpecError> {
        let defaults = to_json(&text.defaults);
        let mut versions = BTreeMap::new();
        for (version, table) in text.versions {
            let invalid = |message: String| SpecError::Invalid {
                path: path.clone(),
                message: format!("entry versions.{version:?}: {message}"),
            };
            let mut fields = defaults.clone();
            merge(&mut fields, &to_json(&table));
            let entry = self.entry_from_fields(&fields).map_err(invalid)?;
            versions.insert(version, (fields, entry));
        }
        Ok(SpecFile { repo: text.repo, path, versions, collect: text.collect })
    }

    /// An entry from merged fields, its toolchain versions checked against the catalog.
    fn entry_from_fields(&self, fields: &Map<String, Value>) -> Result<SpecEntry, String> {
        let entry: SpecEntry = serde_json::from_value(Value::Object(fields.clone())).map_err(|e| e.to_string())?;
        for (tool, version) in entry.toolchains() {
            self.catalog.check(&tool, &version)?;
        }
        Ok(entry)
    }

    /// The entry for a repository at a version: the exact version, else `"*"`.
    pub fn entry(&self, repo: &str, version: Option<&str>) -> Option<&SpecEntry> {
        self.entry_fields(repo, version).map(|(_, entry)| entry)
    }

    fn entry_fields(&self, repo: &str, version: Option<&str>) -> Option<&(Map<String, Value>, SpecEntry)> {
        let spec = self.specs.get(repo)?;
        version.and_then(|v| spec.versions.get(v)).or_else(|| spec.versions.get("*"))
    }

    /// The spec file describing `repo`.
    pub fn file(&self, repo: &str) -> Option<&SpecFile> {
        self.specs.get(repo)
    }

    /// The entry an instance runs with: its inline `harness` merged over the spec entry of its
    /// repository and version (the spec entry alone without one, the inline fields alone
    /// without a spec entry). `Ok(None)` when there is neither.
    pub fn entry_with_inline(
        &self,
        repo: &str,
        version: Option<&str>,
        inline: Option<&InlineHarness>,
    ) -> Result<Option<SpecEntry>, String> {
        let spec = self.entry_fields(repo, version);
        match (spec, inline) {
            (None, None) => Ok(None),
            (Some((_, entry)), None) => Ok(Some(entry.clone())),
            (below, Some(inline)) => {
                let mut fields = below.map(|(fields, _)| fields.clone()).unwrap_or_default();
                merge(&mut fields, &inline.0);
                self.entry_from_fields(&fields).map(Some)
            }
        }
    }

    /// The toolchain catalog (`harness/toolchains.toml`).
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    pub fn language(&self, name: &str) -> Option<&LanguageSpec> {
        self.languages.get(name)
    }

    /// Every language's defaults, by name.
    pub fn languages(&self) -> impl Iterator<Item = (&String, &LanguageSpec)> {
        self.languages.iter()
    }

    /// The spec entry of an instance (its inline `harness` merged over the spec entry of its
    /// repository and version, [`SpecRegistry::entry_with_inline`]) and its language's
    /// defaults. The error says what to add.
    pub fn resolve(&self, instance: &Instance) -> Result<(SpecEntry, LanguageSpec), ResolveError> {
        let entry = self
            .entry_with_inline(&instance.repo, instance.version.as_deref(), instance.harness.as_ref())
            .map_err(|message| ResolveError::Unusable { instance: instance.instance_id.clone(), message })?
            .ok_or_else(|| ResolveError::NoSpec {
                repo: instance.repo.clone(),
                version: instance.version.clone().unwrap_or_else(|| "unset".into()),
            })?;
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
    #[error("instance {instance}: its harness spec is not usable: {message}")]
    Unusable { instance: String, message: String },
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

fn to_json(table: &toml::Table) -> Map<String, Value> {
    match serde_json::to_value(table) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

fn read_toml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, SpecError> {
    let text = std::fs::read_to_string(path).map_err(|source| SpecError::Read { path: path.to_path_buf(), source })?;
    toml::from_str(&text).map_err(|e| SpecError::Invalid { path: path.to_path_buf(), message: e.to_string() })
}

#[cfg(test)]
mod tests;
