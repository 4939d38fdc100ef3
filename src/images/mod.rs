//! Docker images in three layers (base → env → instance), each tagged by a hash of its inputs.
//!
//! - base: the OS image, the language toolchain, Debian packages and the host's CA certificates.
//! - env: the repository's dependencies (the spec's `env_setup`).
//! - instance: the repository at `base_commit` in `/testbed`, installed (the spec's `install`).
//!
//! A layer's tag hashes its rendered Dockerfile, its context files and its parent's tag (and,
//! for the instance layer, the repository and commit), so an unchanged dataset rebuilds nothing
//! and a changed spec rebuilds exactly the layers below the change. Planning is pure; building
//! is in [`build`].

pub mod build;
pub mod context;
pub mod layers;
pub mod toolchain;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::dataset::repo::RepoStore;
use crate::dataset::spec::{LanguageSpec, SpecEntry};
use crate::dataset::Instance;
pub use context::ContextFile;

/// Which of the three layers an image is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LayerKind {
    Base,
    Env,
    Instance,
}

/// Everything needed to build one image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    pub kind: LayerKind,
    pub tag: String,
    pub dockerfile: String,
    pub files: Vec<ContextFile>,
    /// For the instance layer: the repository snapshot to put under `repo/`.
    pub snapshot: Option<Snapshot>,
}

/// A repository at a commit.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Snapshot {
    pub repo: String,
    pub commit: String,
}

/// The three layers one instance runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstanceImages {
    pub base: Layer,
    pub env: Layer,
    pub instance: Layer,
}

impl InstanceImages {
    pub fn layers(&self) -> [&Layer; 3] {
        [&self.base, &self.env, &self.instance]
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("Dockerfile template {path} cannot be read: {source}")]
    Template { path: PathBuf, source: std::io::Error },
    #[error("repository name {0:?} is not owner/name")]
    Repo(String),
}

/// Renders layers from specs. Holds what every plan shares: templates and certificates.
#[derive(Debug, Clone)]
pub struct Planner {
    dockerfiles_dir: PathBuf,
    os_image: String,
    /// The host's CA certificates, `(file name, contents)`.
    certs: Vec<(String, Vec<u8>)>,
}

impl Planner {
    pub fn new(dockerfiles_dir: PathBuf, os_image: String, certs: Vec<(String, Vec<u8>)>) -> Self {
        Self { dockerfiles_dir, os_image, certs }
    }

    /// The three layers for `instance` under `entry` (its spec) and `language`.
    pub fn plan(
        &self,
        instance: &Instance,
        entry: &SpecEntry,
        language: &LanguageSpec,
    ) -> Result<InstanceImages, PlanError> {
        let env_vars = merged_env(language, entry);

        let mut apt: Vec<&str> = language.apt.iter().chain(&entry.apt).map(String::as_str).collect();
        apt.sort_unstable();
        apt.dedup();
        let base_dockerfile = render(
            &self.template(&language.base_dockerfile)?,
            &[("os_image", &self.os_image), ("apt", &apt.join(" "))],
        );
        let mut base_files: Vec<ContextFile> =
            self.certs.iter().map(|(name, bytes)| ContextFile::new(format!("certs/{name}"), bytes.clone())).collect();
        base_files.push(ContextFile::new("certs/.keep", ""));
        let base = layer(
            LayerKind::Base,
            &format!("verdict-base-{}", sanitize(&entry.language)),
            base_dockerfile,
            base_files,
            None,
            "",
        );

        let env_dockerfile = render(&self.template("env.Dockerfile")?, &[("base_image", &base.tag)]);
        let env_script = shell_script(&env_vars, None, &entry.env_setup);
        let env = layer(
            LayerKind::Env,
            &format!("verdict-env-{}", sanitize(&entry.language)),
            env_dockerfile,
            vec![ContextFile::new("env_setup.sh", env_script)],
            None,
            &base.tag,
        );

        let slug = RepoStore::slug(&instance.repo).map_err(|_| PlanError::Repo(instance.repo.clone()))?;
        let instance_dockerfile = render(&self.template("instance.Dockerfile")?, &[("env_image", &env.tag)]);
        let install_script = shell_script(&env_vars, Some("/testbed"), &entry.install);
        let snapshot = Snapshot { repo: instance.repo.clone(), commit: instance.base_commit.clone() };
        let instance_layer = layer(
            LayerKind::Instance,
            &format!("verdict-instance-{}", sanitize(&slug)),
            instance_dockerfile,
            vec![ContextFile::new("install.sh", install_script)],
            Some(snapshot),
            &env.tag,
        );
        Ok(InstanceImages { base, env, instance: instance_layer })
    }

    fn template(&self, name: &str) -> Result<String, PlanError> {
        let path = self.dockerfiles_dir.join(name);
        std::fs::read_to_string(&path).map_err(|source| PlanError::Template { path, source })
    }
}

/// The language's environment overlaid with the entry's.
pub fn merged_env(language: &LanguageSpec, entry: &SpecEntry) -> BTreeMap<String, String> {
    let mut env = language.env.clone();
    env.extend(entry.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    env
}

/// A bash script that exports `env`, enters `dir`, and runs `commands`, stopping at the first
/// failure and echoing each command.
pub fn shell_script(env: &BTreeMap<String, String>, dir: Option<&str>, commands: &[String]) -> String {
    let mut script = String::from("#!/bin/bash\nset -euxo pipefail\n");
    for (k, v) in env {
        script.push_str(&format!("export {k}={}\n", shell_quote(v)));
    }
    if let Some(dir) = dir {
        script.push_str(&format!("cd {}\n", shell_quote(dir)));
    }
    for command in commands {
        script.push_str(command);
        script.push('\n');
    }
    script
}

/// Quotes a string for bash with single quotes.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-=:,+@".contains(&b)) {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn layer(
    kind: LayerKind,
    name: &str,
    dockerfile: String,
    files: Vec<ContextFile>,
    snapshot: Option<Snapshot>,
    parent: &str,
) -> Layer {
    let mut hasher = Sha256::new();
    hasher.update(b"verdict-layer-v1\0");
    hasher.update(parent.as_bytes());
    hasher.update(b"\0");
    hasher.update(dockerfile.as_bytes());
    let mut sorted: Vec<&ContextFile> = files.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    for f in sorted {
        hasher.update(b"\0file\0");
        hasher.update(f.path.as_bytes());
        hasher.update(b"\0");
        hasher.update(f.mode.to_le_bytes());
        hasher.update(&f.bytes);
    }
    if let Some(s) = &snapshot {
        hasher.update(b"\0snapshot\0");
        hasher.update(s.repo.as_bytes());
        hasher.update(b"@");
        hasher.update(s.commit.as_bytes());
    }
    let digest = hex::encode(hasher.finalize());
    Layer { kind, tag: format!("{name}:{}", &digest[..16]), dockerfile, files, snapshot }
}

fn render(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (key, value) in values {
        out = out.replace(&format!("{{{{{key}}}}}"), value);
    }
    out
}

/// A Docker repository name component: lowercase letters, digits, `.`, `_` and `-`.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(
            |c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-' {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            },
        )
        .collect()
}

/// The host's CA certificates from `dir` (`*.crt`, recursively), sorted by name.
pub fn host_certs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "crt") {
                if let Ok(bytes) = std::fs::read(&path) {
                    let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
                    found.push((name, bytes));
                }
            }
        }
    }
    found.sort();
    found
}

#[cfg(test)]
mod tests;
