//! Docker images in three layers (base → env → instance), each tagged by a hash of its inputs.
//!
//! - base: the OS image, the language toolchain, Debian packages and the host's CA certificates.
//!   The toolchain is the spec's ([`toolchain`]): its versions are in the tag's name
//!   (`verdict-base-python-python3.9`), and every base with the same toolchain and packages is
//!   one image, whatever the repository. Build stages of portable toolchain providers start
//!   from helper layers (the default base whose client fetches: npm, mvn, pip).
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
use crate::dataset::spec::{LanguageSpec, SpecEntry, SpecRegistry};
use crate::dataset::Instance;
pub use context::ContextFile;
use toolchain::{Availability, Catalog, OsSource, Provider, Request, ToolChoice, ToolchainPlan};

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
    /// Images the Dockerfile starts from that are not verdict layers (OS images, official
    /// images): made or pulled before the build.
    pub needs: Vec<OsNeed>,
    /// For a base layer whose toolchain cannot be had here: why, with every way tried. The
    /// builder reports it as the build failure without building.
    pub unavailable: Option<String>,
    /// What the layer's toolchains are, for build failure messages.
    pub note: Option<String>,
}

/// An image a base layer starts from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OsNeed {
    /// The tag the Dockerfile names.
    pub tag: String,
    pub source: OsSource,
}

/// A repository at a commit.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Snapshot {
    pub repo: String,
    pub commit: String,
}

/// The three layers one instance runs on, and the layers the base layer's build stages start
/// from (`helpers`: the default base images whose clients fetch toolchains).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstanceImages {
    pub helpers: Vec<Layer>,
    pub base: Layer,
    pub env: Layer,
    pub instance: Layer,
    /// The toolchain of the base layer: which provider supplies each tool.
    pub toolchains: Vec<ToolChoice>,
}

impl InstanceImages {
    /// Every layer, in build order.
    pub fn layers(&self) -> Vec<&Layer> {
        self.helpers.iter().chain([&self.base, &self.env, &self.instance]).collect()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("Dockerfile template {path} cannot be read: {source}")]
    Template { path: PathBuf, source: std::io::Error },
    #[error("repository name {0:?} is not owner/name")]
    Repo(String),
    #[error("Dockerfile template {path} has no {{{{{placeholder}}}}} placeholder, so it cannot take {what}; see dockerfiles/python.Dockerfile for the placeholders a base template has")]
    Placeholder { path: PathBuf, placeholder: String, what: String },
    #[error("toolchain provider {provider} needs the fetcher language {language:?}, which has no harness/languages/{language}.toml")]
    Fetcher { provider: String, language: String },
}

/// Renders layers from specs. Holds what every plan shares: templates, certificates, the
/// toolchain catalog and what the engine can reach.
#[derive(Debug, Clone)]
pub struct Planner {
    dockerfiles_dir: PathBuf,
    os_image: String,
    /// The host's CA certificates, `(file name, contents)`.
    certs: Vec<(String, Vec<u8>)>,
    catalog: Catalog,
    languages: BTreeMap<String, LanguageSpec>,
    availability: Availability,
}

/// The line of a toolchain fragment that ends its build stage.
const STEPS_MARKER: &str = "# verdict: steps";

impl Planner {
    /// A planner on the templates of `dockerfiles_dir`, with the toolchain catalog and languages
    /// of `specs` and what the engine can reach (`availability`): every plan of one run must
    /// come from the same three, or the same instance would get other tags.
    pub fn new(
        dockerfiles_dir: PathBuf,
        os_image: String,
        certs: Vec<(String, Vec<u8>)>,
        specs: &SpecRegistry,
        availability: Availability,
    ) -> Self {
        Self {
            dockerfiles_dir,
            os_image,
            certs,
            catalog: specs.catalog().clone(),
            languages: specs.languages().map(|(name, l)| (name.clone(), l.clone())).collect(),
            availability,
        }
    }

    /// A planner with no toolchain catalog, for tests of the templates alone.
    #[cfg(test)]
    fn bare(dockerfiles_dir: PathBuf, os_image: String, certs: Vec<(String, Vec<u8>)>) -> Self {
        Self {
            dockerfiles_dir,
            os_image,
            certs,
            catalog: Catalog::default(),
            languages: BTreeMap::new(),
            availability: Availability::default(),
        }
    }

    pub fn availability(&self) -> Availability {
        self.availability
    }

    /// The layers for `instance` under `entry` (its spec) and `language`.
    pub fn plan(
        &self,
        instance: &Instance,
        entry: &SpecEntry,
        language: &LanguageSpec,
    ) -> Result<InstanceImages, PlanError> {
        let env_vars = merged_env(language, entry);
        let (base, helpers, toolchains) = self.base_layer(language, &entry.apt, &entry.toolchains())?;

        // Instances of one repository and version share every layer below the instance layer,
        // and the env tag names them.
        let slug = RepoStore::slug(&instance.repo).map_err(|_| PlanError::Repo(instance.repo.clone()))?;
        let version = instance.version.as_deref().unwrap_or("any");
        let env_dockerfile = render(&self.template("env.Dockerfile")?, &[("base_image", &base.tag)]);
        let env_script = shell_script(&env_vars, None, &entry.env_setup);
        let env = layer(
            LayerKind::Env,
            &format!("verdict-env-{}-{}", sanitize(&slug), sanitize(version)),
            env_dockerfile,
            vec![ContextFile::new("env_setup.sh", env_script)],
            None,
            &base.tag,
        );

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
        Ok(InstanceImages { helpers, base, env, instance: instance_layer, toolchains })
    }

    /// The base layer of `language` with extra Debian packages `apt` and toolchain `request`,
    /// the helper layers its build stages start from, and its toolchain.
    fn base_layer(
        &self,
        language: &LanguageSpec,
        apt: &[String],
        request: &Request,
    ) -> Result<(Layer, Vec<Layer>, Vec<ToolChoice>), PlanError> {
        let template_path = self.dockerfiles_dir.join(&language.base_dockerfile);
        let stem = language.base_dockerfile.trim_end_matches(".Dockerfile");
        let mut apt: Vec<String> = language.apt.iter().chain(apt).cloned().collect();
        apt.sort_unstable();
        apt.dedup();
        let certs = self.cert_files();
        let plan = match toolchain::select(&self.catalog, request, &language.toolchains, self.availability) {
            Ok(plan) => plan,
            Err(unavailable) => {
                let label: Vec<String> = request.iter().map(|(t, v)| format!("{t}{v}")).collect();
                let mut layer = layer(
                    LayerKind::Base,
                    &format!("verdict-base-{}-{}", sanitize(stem), sanitize(&label.join("-"))),
                    String::new(),
                    Vec::new(),
                    None,
                    &unavailable.message,
                );
                layer.unavailable = Some(unavailable.message);
                return Ok((layer, Vec::new(), Vec::new()));
            }
        };
        let os = self.os_need(&plan.os);
        let mut needs = vec![os.clone()];
        let mut helpers: Vec<Layer> = Vec::new();
        let mut stages = String::new();
        let mut steps: Vec<String> = Vec::new();
        let mut toolchain_apt: Vec<String> = Vec::new();
        let mut done_providers: Vec<&str> = Vec::new();
        for choice in &plan.tools {
            let info = self.catalog.tools.get(&choice.tool);
            match &choice.provider {
                Provider::Image(_) => {}
                Provider::Suite(suite) => {
                    let version = choice.requested.clone().or_else(|| self.shipped(suite, &choice.tool));
                    let major = version.as_deref().map(toolchain::major).unwrap_or_default();
                    for package in info.map(|i| i.apt.as_slice()).unwrap_or_default() {
                        toolchain_apt.push(package.replace("{major}", major));
                    }
                    for line in info.map(|i| i.suite_steps.as_slice()).unwrap_or_default() {
                        steps.push(line.replace("{major}", major));
                    }
                }
                Provider::Portable(name) => {
                    if done_providers.contains(&name.as_str()) {
                        continue;
                    }
                    done_providers.push(name);
                    let (stage, fragment_steps, helper) = self.fragment(name, &plan)?;
                    stages.push_str(&stage);
                    steps.push(fragment_steps);
                    if let Some(helper) = helper {
                        needs.extend(helper.needs.iter().cloned());
                        if !helpers.iter().any(|h| h.tag == helper.tag) {
                            helpers.extend(helper_chain(helper));
                        }
                    }
                }
            }
        }
        toolchain_apt.dedup();
        let check = self.check_step(&plan);
        let template = self.template(&language.base_dockerfile)?;
        let what = if request.is_empty() {
            "the default toolchain".to_string()
        } else {
            request.iter().map(|(t, v)| format!("{t} {v}")).collect::<Vec<_>>().join(" + ")
        };
        for (placeholder, value) in [("stages", &stages), ("toolchain_steps", &steps.join("\n")), ("os_image", &os.tag)]
        {
            if !value.is_empty() && !template.contains(&format!("{{{{{placeholder}}}}}")) {
                return Err(PlanError::Placeholder { path: template_path, placeholder: placeholder.into(), what });
            }
        }
        let dockerfile = render(
            &template,
            &[
                ("stages", stages.trim_end()),
                ("os_image", &os.tag),
                ("toolchain_apt", &toolchain_apt.join(" ")),
                ("apt", &apt.join(" ")),
                ("toolchain_steps", &steps.join("\n")),
                ("toolchain_check", &check),
            ],
        );
        let label = plan.label();
        let name = if label.is_empty() {
            format!("verdict-base-{}", sanitize(stem))
        } else {
            format!("verdict-base-{}-{}", sanitize(stem), sanitize(&label))
        };
        let parent: String = helpers.iter().map(|h| h.tag.as_str()).collect::<Vec<_>>().join(",");
        let mut base = layer(LayerKind::Base, &name, dockerfile, certs, None, &parent);
        base.needs = needs;
        base.note = Some(describe(&plan));
        Ok((base, helpers, plan.tools))
    }

    /// The stage, the steps and the helper layer of a portable provider.
    fn fragment(&self, name: &str, plan: &ToolchainPlan) -> Result<(String, String, Option<Layer>), PlanError> {
        let provider = self.catalog.providers.get(name).cloned().unwrap_or_default();
        let text = self.template(&provider.fragment)?;
        let helper = match &provider.fetcher {
            Some(language) => {
                let spec = self
                    .languages
                    .get(language)
                    .ok_or_else(|| PlanError::Fetcher { provider: name.into(), language: language.clone() })?;
                Some(self.base_layer(spec, &[], &Vec::new())?.0)
            }
            None => None,
        };
        let mut values: Vec<(String, String)> = vec![
            ("fetcher".into(), helper.as_ref().map(|h| h.tag.clone()).unwrap_or_else(|| self.os_image.clone())),
            ("os_image".into(), self.os_image.clone()),
        ];
        for tool in &provider.tools {
            let choice = plan.tools.iter().find(|c| &c.tool == tool && c.provider == Provider::Portable(name.into()));
            let mut version = choice.and_then(|c| c.requested.clone()).unwrap_or_default();
            if tool == "npm" && version.is_empty() {
                // npm goes with its Node.js release line.
                let node = plan.tools.iter().find(|c| c.tool == "node").and_then(|c| c.requested.clone());
                version = node
                    .and_then(|n| self.catalog.npm_for_node(name, &n).map(str::to_string))
                    .unwrap_or_else(|| "latest".into());
            }
            values.push((tool.clone(), version));
        }
        let refs: Vec<(&str, &str)> = values.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let rendered = render(&text, &refs);
        let (stage, steps) = rendered.split_once(STEPS_MARKER).unwrap_or(("", rendered.as_str()));
        let strip = |part: &str| -> String {
            part.lines()
                .filter(|l| !l.trim_start().starts_with('#') || l.trim().is_empty())
                .collect::<Vec<_>>()
                .join("\n")
        };
        let mut stage = strip(stage).trim().to_string();
        if !stage.is_empty() {
            stage.push('\n');
        }
        Ok((stage, strip(steps).trim().to_string(), helper))
    }

    /// A RUN step that checks each tool's installed version against the request and records
    /// `tool, provider, requested, installed` in `/verdict/toolchains.tsv`.
    fn check_step(&self, plan: &ToolchainPlan) -> String {
        let mut script = vec!["set -e".to_string(), "mkdir -p /verdict".into(), ": > /verdict/toolchains.tsv".into()];
        for choice in &plan.tools {
            let Some(info) = self.catalog.tools.get(&choice.tool) else { continue };
            let want = choice.requested.clone().unwrap_or_default();
            script.push(format!("v=$({})", info.version_cmd));
            if !want.is_empty() {
                script.push(format!(
                    "case \"$v\" in {w}|{w}.*) ;; *) echo \"verdict: {tool} {w} was asked for ({provider}) but the image has ${{v:-none}}\" >&2; exit 1;; esac",
                    w = want,
                    tool = choice.tool,
                    provider = choice.provider
                ));
            }
            script.push(format!(
                "printf '%s\\t%s\\t%s\\t%s\\n' {} {} {} \"$v\" >> /verdict/toolchains.tsv",
                shell_quote(&choice.tool),
                shell_quote(&choice.provider.to_string()),
                shell_quote(if want.is_empty() { "-" } else { &want })
            ));
        }
        format!("RUN {}", shell_quote(&script.join("; ")).replace('\n', " ")).replacen("RUN ", "RUN bash -c ", 1)
    }

    /// The first version `suite` ships of `tool`.
    fn shipped(&self, suite: &str, tool: &str) -> Option<String> {
        self.catalog.suites.get(suite)?.get(tool)?.first().cloned()
    }

    fn os_need(&self, os: &OsSource) -> OsNeed {
        let tag = match os {
            OsSource::Suite(suite) if *suite == self.catalog.default_suite || self.catalog.default_suite.is_empty() => {
                self.os_image.clone()
            }
            OsSource::Suite(suite) => format!("verdict-os:{}", sanitize(suite)),
            OsSource::Image(image) => image.clone(),
        };
        OsNeed { tag, source: os.clone() }
    }

    fn cert_files(&self) -> Vec<ContextFile> {
        let mut files: Vec<ContextFile> =
            self.certs.iter().map(|(name, bytes)| ContextFile::new(format!("certs/{name}"), bytes.clone())).collect();
        files.push(ContextFile::new("certs/.keep", ""));
        files
    }

    fn template(&self, name: &str) -> Result<String, PlanError> {
        let path = self.dockerfiles_dir.join(name);
        std::fs::read_to_string(&path).map_err(|source| PlanError::Template { path, source })
    }
}

/// A helper layer and, first, the helpers it needs itself (none today: helpers are default
/// bases).
fn helper_chain(helper: Layer) -> Vec<Layer> {
    vec![helper]
}

/// `python 3.9 from debian bullseye; ...` for messages.
fn describe(plan: &ToolchainPlan) -> String {
    plan.tools
        .iter()
        .map(|c| format!("{} {} from {}", c.tool, c.requested.as_deref().unwrap_or("(default)"), c.provider))
        .collect::<Vec<_>>()
        .join("; ")
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
        // The files' dating rule is part of what the layer is built from.
        hasher.update(b"\0mtime: commit, from\0");
        hasher.update(context::SNAPSHOT_MTIME.to_le_bytes());
    }
    let digest = hex::encode(hasher.finalize());
    Layer {
        kind,
        tag: format!("{name}:{}", &digest[..16]),
        dockerfile,
        files,
        snapshot,
        needs: Vec::new(),
        unavailable: None,
        note: None,
    }
}

/// Replaces `{{key}}` placeholders, on every line but comments (which name placeholders).
fn render(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    for line in template.split_inclusive('\n') {
        if line.trim_start().starts_with('#') {
            out.push_str(line);
            continue;
        }
        let mut line = line.to_string();
        for (key, value) in values {
            line = line.replace(&format!("{{{{{key}}}}}"), value);
        }
        out.push_str(&line);
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
