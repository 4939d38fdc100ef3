//! Toolchain versions as data: which versions verdict can provide, and which provider supplies a
//! spec entry's request.
//!
//! The catalog is `harness/toolchains.toml`. A spec entry names versions (`python = "3.9"`); an
//! absent tool is the language's default, the default suite's Debian package. [`select`] picks,
//! for one request, the OS image the base layer starts from and a provider for every tool:
//!
//! 1. the official image of the language's main tool (`python:3.9-slim`), when a container
//!    registry answers, with the other requested tools from portable providers;
//! 2. otherwise the first suite of `suite_order` (default suite first) on which every tool can be
//!    had, each from that suite's Debian packages or a portable provider (npm registry, Maven
//!    Central, Go module proxy, rustup), in the order the tool's `offline` list gives.
//!
//! A version no provider knows is a load error ([`Catalog::check`]); a known version that no
//! provider can supply here is [`Unavailable`], which the builder turns into `build_failed` with
//! every way that was tried. Selection is pure: what the engine can reach comes in as
//! [`Availability`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The tools a spec entry can name, in the order they are installed and reported.
pub const TOOLS: [&str; 7] = ["python", "node", "npm", "java", "maven", "go", "rust"];

/// `harness/toolchains.toml`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    /// The suite of the default OS image (`--os-image`).
    pub default_suite: String,
    /// Suites tried, in order, when a request needs another suite.
    pub suite_order: Vec<String>,
    /// Suite → tool → versions its main archive ships.
    pub suites: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    pub tools: BTreeMap<String, ToolInfo>,
    pub providers: BTreeMap<String, PortableProvider>,
}

/// How one tool is installed and checked.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ToolInfo {
    /// Debian packages of a suite's version (`{major}` is the version's first part).
    #[serde(default)]
    pub apt: Vec<String>,
    /// Dockerfile lines after the apt step when the suite provides the tool (`{major}`).
    #[serde(default)]
    pub suite_steps: Vec<String>,
    /// Prints the installed version (digits and dots).
    pub version_cmd: String,
    /// The official image, `{version}` replaced by the requested version.
    #[serde(default)]
    pub image: Option<String>,
    /// Version families the official image is published for.
    #[serde(default)]
    pub image_versions: Vec<String>,
    /// Offline providers in order: `suite` and names of `[providers.X]`.
    #[serde(default)]
    pub offline: Vec<String>,
    /// Tools that come with this one when not asked for themselves (npm with Node.js): they
    /// take its provider when that is an image or a portable provider.
    #[serde(default)]
    pub with: Vec<String>,
}

/// A provider that installs from a package registry on any suite.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PortableProvider {
    pub tools: Vec<String>,
    /// Dockerfile fragment under `dockerfiles/`: a build stage, the line `# verdict: steps`, then
    /// the lines that install into the base image.
    pub fragment: String,
    /// The language whose default base image runs the stage (it has the client that fetches).
    #[serde(default)]
    pub fetcher: Option<String>,
    /// Tool → version families (a request matches a family whose parts prefix its own).
    #[serde(default)]
    pub versions: BTreeMap<String, Vec<String>>,
    /// Node.js family → the npm of that release line.
    #[serde(default)]
    pub npm_for_node: BTreeMap<String, String>,
    /// When set, a request must name this many parts (Maven Central takes no version ranges).
    #[serde(default)]
    pub parts: Option<usize>,
    /// The Debian suites it installs on (its packages need that suite's libraries); empty: any
    /// suite, and official images too.
    #[serde(default)]
    pub suites: Vec<String>,
}

impl PortableProvider {
    /// Whether this provider can supply `version` of `tool`.
    pub fn supplies(&self, tool: &str, version: &str) -> bool {
        let whole = self.parts.is_none_or(|n| parts(version).is_some_and(|p| p.len() == n));
        whole && families(self, tool).iter().any(|f| in_family(f, version))
    }

    /// Whether it installs on `suite` (`None`: an official image's distribution).
    pub fn installs_on(&self, suite: Option<&str>) -> bool {
        self.suites.is_empty() || suite.is_some_and(|s| self.suites.iter().any(|x| x == s))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("cannot read the toolchain catalog {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("invalid toolchain catalog {path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// What the engine can reach, found once per run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Availability {
    /// A container registry answers, so official images can be pulled.
    pub registry: bool,
}

/// Where one tool comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", content = "name", rename_all = "kebab-case")]
pub enum Provider {
    /// The official image the base starts from (`python:3.9-slim`).
    Image(String),
    /// A Debian suite's package (`bullseye`), or the package of the official image's own
    /// distribution for tools the image does not bring.
    Suite(String),
    /// A portable provider of the catalog (`npm-registry`).
    Portable(String),
}

impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Provider::Image(image) => write!(f, "image:{image}"),
            Provider::Suite(suite) => write!(f, "debian:{suite}"),
            Provider::Portable(name) => f.write_str(name),
        }
    }
}

/// One tool of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ToolChoice {
    pub tool: String,
    /// The version the spec asked for; `None` for a language default.
    pub requested: Option<String>,
    pub provider: Provider,
}

/// The OS image a base layer starts from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "name", rename_all = "kebab-case")]
pub enum OsSource {
    /// `verdict-os:<suite>` (the default suite's image is `--os-image`).
    Suite(String),
    /// An official image, pulled from a registry.
    Image(String),
}

/// What a request resolved to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ToolchainPlan {
    pub os: OsSource,
    pub tools: Vec<ToolChoice>,
}

impl ToolchainPlan {
    /// `python3.9-node16`: the requested tools and versions, for tag names (empty for defaults).
    pub fn label(&self) -> String {
        let parts: Vec<String> =
            self.tools.iter().filter_map(|t| t.requested.as_ref().map(|v| format!("{}{v}", t.tool))).collect();
        parts.join("-")
    }

    /// The suite whose Debian packages the template installs, when the OS is a suite.
    pub fn suite(&self) -> Option<&str> {
        match &self.os {
            OsSource::Suite(s) => Some(s),
            OsSource::Image(_) => None,
        }
    }
}

/// A known version that no provider can supply here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Unavailable {
    pub message: String,
}

/// The dot-separated parts of a version, or `None` when it is not digits and dots.
fn parts(version: &str) -> Option<Vec<&str>> {
    let parts: Vec<&str> = version.split('.').collect();
    (parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))).then_some(parts)
}

/// `request` matches a shipped `version` when its parts are a prefix of the version's.
pub fn offers(version: &str, request: &str) -> bool {
    match (parts(version), parts(request)) {
        (Some(v), Some(r)) => r.len() <= v.len() && v[..r.len()] == r[..],
        _ => false,
    }
}

/// `request` is in `family` when the family's parts are a prefix of the request's.
pub fn in_family(family: &str, request: &str) -> bool {
    offers(request, family)
}

/// The first part of a version (`{major}`): `17` for `17.0.2`.
pub fn major(version: &str) -> &str {
    version.split('.').next().unwrap_or(version)
}

impl Catalog {
    /// Reads `path`; an absent file is an empty catalog (defaults only).
    pub fn load(path: &Path) -> Result<Self, CatalogError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Catalog::default()),
            Err(source) => return Err(CatalogError::Read { path: path.to_path_buf(), source }),
        };
        let catalog: Catalog = toml::from_str(&text)
            .map_err(|e| CatalogError::Invalid { path: path.to_path_buf(), message: e.to_string() })?;
        catalog.validate().map_err(|message| CatalogError::Invalid { path: path.to_path_buf(), message })?;
        Ok(catalog)
    }

    fn validate(&self) -> Result<(), String> {
        for tool in TOOLS {
            if !self.tools.contains_key(tool) {
                return Err(format!("[tools.{tool}] is missing"));
            }
        }
        if !self.suites.contains_key(&self.default_suite) {
            return Err(format!("default_suite {:?} has no [suites.{}] table", self.default_suite, self.default_suite));
        }
        for suite in &self.suite_order {
            if !self.suites.contains_key(suite) {
                return Err(format!("suite_order names {suite:?}, which has no [suites.{suite}] table"));
            }
        }
        for (name, provider) in &self.providers {
            for suite in &provider.suites {
                if !self.suites.contains_key(suite) {
                    return Err(format!(
                        "[providers.{name}] suites names {suite:?}, which has no [suites.{suite}] table"
                    ));
                }
            }
        }
        for (tool, info) in &self.tools {
            for name in &info.offline {
                if name != "suite" && !self.providers.get(name).is_some_and(|p| p.tools.contains(tool)) {
                    return Err(format!("[tools.{tool}] offline names {name:?}, which is no provider of {tool}"));
                }
            }
        }
        Ok(())
    }

    /// Whether any provider knows `version` of `tool`; the error lists what is known.
    pub fn check(&self, tool: &str, version: &str) -> Result<(), String> {
        if parts(version).is_none() {
            return Err(format!("{tool} = {version:?} is not a version (digits and dots, such as \"3.9\")"));
        }
        let Some(info) = self.tools.get(tool) else {
            return Err(format!("{tool} is not a toolchain verdict knows"));
        };
        let by_suite =
            self.suites.values().any(|s| s.get(tool).is_some_and(|vs| vs.iter().any(|v| offers(v, version))));
        let by_image = info.image.is_some() && info.image_versions.iter().any(|f| in_family(f, version));
        let by_portable = self.portable_for(tool).any(|(_, p)| p.supplies(tool, version));
        if by_suite || by_image || by_portable {
            return Ok(());
        }
        Err(format!("{tool} = {version:?} is a version no toolchain provider knows ({})", self.known(tool)))
    }

    /// What every provider knows of `tool`, for messages.
    pub fn known(&self, tool: &str) -> String {
        let mut known = Vec::new();
        let shipped: Vec<String> = self
            .suite_names()
            .filter_map(|s| Some(format!("{} ({s})", self.suites.get(s)?.get(tool)?.join(", "))))
            .collect();
        if !shipped.is_empty() {
            known.push(format!("Debian ships {}", shipped.join(", ")));
        }
        for (name, p) in self.portable_for(tool) {
            let whole = p.parts.map(|n| format!(" (full {n}-part versions)")).unwrap_or_default();
            let on = if p.suites.is_empty() { String::new() } else { format!(" on {}", p.suites.join(", ")) };
            known.push(format!("{name} has {}{whole}{on}", span(families(p, tool))));
        }
        if let Some(image) = self.tools.get(tool).and_then(|i| i.image.as_ref().map(|im| (im, &i.image_versions))) {
            known.push(format!("official images {} exist for {}", image.0, span(image.1)));
        }
        known.join("; ")
    }

    fn suite_names(&self) -> impl Iterator<Item = &str> {
        let mut names: Vec<&str> = self.suite_order.iter().map(String::as_str).collect();
        for s in self.suites.keys() {
            if !names.contains(&s.as_str()) {
                names.push(s);
            }
        }
        names.into_iter()
    }

    fn portable_for<'a>(&'a self, tool: &'a str) -> impl Iterator<Item = (&'a String, &'a PortableProvider)> + 'a {
        self.providers.iter().filter(move |(_, p)| p.tools.iter().any(|t| t == tool))
    }

    fn ships(&self, suite: &str, tool: &str, version: &str) -> bool {
        self.suites.get(suite).and_then(|s| s.get(tool)).is_some_and(|vs| vs.iter().any(|v| offers(v, version)))
    }

    /// The npm of a Node.js request's release line, when the npm-registry provider knows it.
    pub fn npm_for_node(&self, provider: &str, node: &str) -> Option<&str> {
        let p = self.providers.get(provider)?;
        p.npm_for_node
            .iter()
            .filter(|(family, _)| in_family(family, node))
            .max_by_key(|(family, _)| family.len())
            .map(|(_, npm)| npm.as_str())
    }
}

fn families<'a>(p: &'a PortableProvider, tool: &str) -> &'a [String] {
    p.versions.get(tool).map(Vec::as_slice).unwrap_or(&[])
}

/// `3.5 … 3.14` for a list of families.
/// The versions of a list, each named when there are three or fewer ("3.7, 3.10" must not read
/// as 3.7 to 3.10), else the first and the last.
fn span(families: &[String]) -> String {
    match (families.first(), families.last()) {
        _ if families.len() > 1 && families.len() <= 3 => families.join(", "),
        (Some(a), Some(b)) if a != b => format!("{a} … {b}"),
        (Some(a), _) => a.clone(),
        _ => "nothing".into(),
    }
}

/// A request: tool → version, in [`TOOLS`] order.
pub type Request = Vec<(String, String)>;

/// Picks the OS image and a provider for every tool of `request` and every tool the language's
/// template installs (`template_tools`, the first being the language's main tool).
pub fn select(
    catalog: &Catalog,
    request: &Request,
    template_tools: &[String],
    availability: Availability,
) -> Result<ToolchainPlan, Unavailable> {
    let requested = |tool: &str| request.iter().find(|(t, _)| t == tool).map(|(_, v)| v.clone());
    let mut tools: Vec<String> = Vec::new();
    for tool in TOOLS {
        if requested(tool).is_some() || template_tools.iter().any(|t| t == tool) {
            tools.push(tool.to_string());
        }
    }
    let default = catalog.default_suite.clone();
    if request.is_empty() {
        let tools = tools
            .into_iter()
            .map(|tool| ToolChoice { tool, requested: None, provider: Provider::Suite(default.clone()) })
            .collect();
        return Ok(ToolchainPlan { os: OsSource::Suite(default), tools });
    }

    // 1. The official image of the main tool, when a registry answers.
    let main = template_tools.first().cloned();
    if availability.registry {
        if let Some((main, version)) = main.as_ref().and_then(|m| requested(m).map(|v| (m.clone(), v))) {
            let info = catalog.tools.get(&main);
            if let Some(image) = info.and_then(|i| {
                let known = i.image_versions.iter().any(|f| in_family(f, &version));
                i.image.as_ref().filter(|_| known).map(|im| im.replace("{version}", &version))
            }) {
                if let Some(plan) = on_image(catalog, &image, &main, &tools, &requested) {
                    return Ok(plan);
                }
            }
        }
    }

    // 2. Offline: the first suite on which every tool can be had.
    let mut order: Vec<String> = vec![default.clone()];
    order.extend(catalog.suite_order.iter().filter(|s| **s != default).cloned());
    'suites: for suite in &order {
        let mut choices = Vec::new();
        for tool in &tools {
            let Some(version) = requested(tool) else {
                choices.push(ToolChoice {
                    tool: tool.clone(),
                    requested: None,
                    provider: Provider::Suite(suite.clone()),
                });
                continue;
            };
            match offline_provider(catalog, suite, tool, &version, &requested) {
                Some(provider) => choices.push(ToolChoice { tool: tool.clone(), requested: Some(version), provider }),
                None => continue 'suites,
            }
        }
        attach_companions(catalog, &mut choices);
        return Ok(ToolchainPlan { os: OsSource::Suite(suite.clone()), tools: choices });
    }
    Err(unavailable(catalog, request, availability, main.as_deref()))
}

/// The provider of `tool` at `version` on `suite`, offline.
fn offline_provider(
    catalog: &Catalog,
    suite: &str,
    tool: &str,
    version: &str,
    requested: &dyn Fn(&str) -> Option<String>,
) -> Option<Provider> {
    let info = catalog.tools.get(tool)?;
    for name in &info.offline {
        if name == "suite" {
            // npm from the suite only goes with the suite's Node.js.
            let node_ok = tool != "npm" || requested("node").is_none_or(|n| catalog.ships(suite, "node", &n));
            if node_ok && catalog.ships(suite, tool, version) {
                return Some(Provider::Suite(suite.to_string()));
            }
        } else if let Some(p) = catalog.providers.get(name) {
            if p.supplies(tool, version) && p.installs_on(Some(suite)) {
                return Some(Provider::Portable(name.clone()));
            }
        }
    }
    None
}

/// A plan on an official image: the main tool from the image, other requested tools from
/// portable providers, other template tools from the image's own distribution.
fn on_image(
    catalog: &Catalog,
    image: &str,
    main: &str,
    tools: &[String],
    requested: &dyn Fn(&str) -> Option<String>,
) -> Option<ToolchainPlan> {
    let mut choices = Vec::new();
    for tool in tools {
        let version = requested(tool);
        let provider = if tool == main {
            Provider::Image(image.to_string())
        } else if let Some(v) = &version {
            let portable = catalog.tools.get(tool)?.offline.iter().find(|name| {
                catalog.providers.get(*name).is_some_and(|p| p.supplies(tool, v) && p.installs_on(None))
            })?;
            Provider::Portable(portable.clone())
        } else {
            Provider::Suite(image.to_string())
        };
        choices.push(ToolChoice { tool: tool.clone(), requested: version, provider });
    }
    attach_companions(catalog, &mut choices);
    Some(ToolchainPlan { os: OsSource::Image(image.to_string()), tools: choices })
}

/// A tool nobody asked for goes with the tool it comes with (`with`), when that one comes from an
/// image or a portable provider that supplies it too.
fn attach_companions(catalog: &Catalog, choices: &mut [ToolChoice]) {
    let leaders: Vec<(String, Provider)> = choices
        .iter()
        .filter(|c| !matches!(c.provider, Provider::Suite(_)))
        .map(|c| (c.tool.clone(), c.provider.clone()))
        .collect();
    for choice in choices.iter_mut().filter(|c| c.requested.is_none()) {
        for (leader, provider) in &leaders {
            let comes_with = catalog.tools.get(leader).is_some_and(|i| i.with.contains(&choice.tool));
            let supplies = match provider {
                Provider::Image(_) => true,
                Provider::Portable(name) => catalog.providers.get(name).is_some_and(|p| p.tools.contains(&choice.tool)),
                Provider::Suite(_) => false,
            };
            if comes_with && supplies {
                choice.provider = provider.clone();
            }
        }
    }
}

fn unavailable(catalog: &Catalog, request: &Request, availability: Availability, main: Option<&str>) -> Unavailable {
    let asked: Vec<String> = request.iter().map(|(t, v)| format!("{t} {v}")).collect();
    let mut tried = Vec::new();
    match main.and_then(|m| request.iter().find(|(t, _)| t == m)) {
        Some((tool, version)) if availability.registry => {
            tried.push(format!("the official {tool} image (none for {version}, or the other tools cannot go on it)"))
        }
        Some((tool, _)) if catalog.tools.get(tool).is_some_and(|i| i.image.is_some()) => {
            tried.push(format!("no container registry answered, so the official {tool} image could not be pulled"))
        }
        _ => {}
    }
    for (tool, version) in request {
        tried.push(format!("{tool} {version}: {}", catalog.known(tool)));
    }
    let suites: Vec<&str> = catalog.suite_names().collect();
    Unavailable {
        message: format!(
            "no provider can supply {} together here; tried: {}; Debian suites tried: {}",
            asked.join(" + "),
            tried.join("; "),
            suites.join(", ")
        ),
    }
}

/// A toolchain as the base layer's build recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstalledTool {
    pub tool: String,
    pub provider: String,
    /// The version the spec asked for (`None`: the language default).
    pub requested: Option<String>,
    /// The version the image has.
    pub installed: String,
}

/// Reads `/verdict/toolchains.tsv`: `tool, provider, requested (- for none), installed`.
pub fn parse_toolchains_tsv(text: &str) -> Vec<InstalledTool> {
    text.lines()
        .filter_map(|line| {
            let mut cols = line.split('\t');
            let (tool, provider, requested, installed) = (cols.next()?, cols.next()?, cols.next()?, cols.next()?);
            Some(InstalledTool {
                tool: tool.to_string(),
                provider: provider.to_string(),
                requested: (requested != "-").then(|| requested.to_string()),
                installed: installed.trim().to_string(),
            })
        })
        .collect()
}

pub use crate::grade::ToolchainRecord;

/// The planned toolchain with the installed versions filled in.
pub fn records(planned: &[ToolChoice], installed: &[InstalledTool]) -> Vec<ToolchainRecord> {
    planned
        .iter()
        .map(|c| ToolchainRecord {
            tool: c.tool.clone(),
            provider: c.provider.to_string(),
            requested: c.requested.clone(),
            installed: installed.iter().find(|i| i.tool == c.tool).map(|i| i.installed.clone()),
        })
        .collect()
}

#[cfg(test)]
mod tests;
