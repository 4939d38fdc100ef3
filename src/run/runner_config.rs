//! The test runner's configuration in a repository's own files, and putting it back to the base
//! commit before the tests run, while the other edits of the same files stay.
//!
//! A candidate can change what the runner reports without touching a test file: an `addopts =
//! -p pkg.plugin` in `pyproject.toml`, a `reporters` or `setupFiles` entry under `package.json`'s
//! `jest`, a `require` under its `mocha`, an `argLine = -javaagent:…` for surefire. Each runner's
//! configuration lives in two kinds of files:
//!
//! - files that only configure the runner ([`whole_file_globs`]: `pytest.ini`, `jest.config.*`,
//!   `.mocharc.*`, babel's configuration, `.mvn/maven.config`, …) go back to the base commit
//!   whole, with the test files;
//! - files that mostly hold packaging ([`Kind`]: `pyproject.toml`, `setup.cfg`, `package.json`,
//!   `pom.xml`) have only the runner's parts reset ([`reset`]), so a fix that edits a
//!   dependency or a version keeps it.
//!
//! # Where the reset is computed
//! On the host, by [`plan`]: the base file comes from git, and the file as the candidate leaves
//! it is predicted by applying the candidate's section for that file the way the container's
//! apply chain does (the localizer's apply model). Parsing TOML, INI, JSON and XML in the
//! container would need a tool every image has, and the images share only bash and git. The
//! eval script then writes the reset file only when the container's file is byte for byte the
//! predicted one and the image's copy is the base commit's (install did not rewrite it);
//! otherwise, and when [`reset`] cannot separate the runner's parts safely (dotted keys
//! setting `tool.pytest` from another table, a file that does not parse, a removed surefire
//! section that would have to be re-inserted), the script falls back ([`Fallback`]): the
//! runner is started with its base configuration given by verdict (`PYTEST_ADDOPTS=-c …`,
//! jest's and mocha's `--config`, `--no-package`), a `pom.xml` goes back whole, and the
//! candidate is flagged (`runner_config_not_reset`).
//!
//! Every result is checked by parsing it again: the runner's parts must equal the base's and
//! everything else must equal the candidate's, or the reset is refused as unsafe.

use std::ops::Range;

use crate::dataset::patch::file_sections;
use crate::localize::{apply_patch, Snapshot};
use crate::parse::RunnerId;

/// The runners whose configuration verdict knows (a narrower set than the runner table of
/// [`crate::parse::Runner`]: Go and cargo read no configuration a candidate could use to change
/// what they report, beyond the code itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    Pytest,
    Jest,
    Mocha,
    Maven,
}

impl Runner {
    /// The runner a spec's `log_parser` names, when verdict knows its configuration files.
    pub fn of(runner: RunnerId) -> Option<Runner> {
        match runner.name() {
            "pytest" => Some(Runner::Pytest),
            "jest" => Some(Runner::Jest),
            "mocha" => Some(Runner::Mocha),
            "maven" => Some(Runner::Maven),
            _ => None,
        }
    }
}

const BABEL: [&str; 9] = [
    "**/babel.config.js",
    "**/babel.config.cjs",
    "**/babel.config.mjs",
    "**/babel.config.cts",
    "**/babel.config.json",
    "**/.babelrc",
    "**/.babelrc.js",
    "**/.babelrc.cjs",
    "**/.babelrc.json",
];

/// Files whose whole content configures the runner (or transforms the tests on their way to
/// it): restored to the base commit like test files, and flagged when a candidate touches them.
pub fn whole_file_globs(runner: Runner) -> Vec<&'static str> {
    match runner {
        Runner::Pytest => vec!["**/pytest.ini", "**/.pytest.ini", "**/tox.ini", "**/conftest.py"],
        Runner::Jest => {
            let mut globs = vec![
                "**/jest.config.js",
                "**/jest.config.cjs",
                "**/jest.config.mjs",
                "**/jest.config.ts",
                "**/jest.config.cts",
                "**/jest.config.mts",
                "**/jest.config.json",
            ];
            globs.extend(BABEL);
            globs
        }
        Runner::Mocha => {
            let mut globs = vec![
                "**/.mocharc.js",
                "**/.mocharc.cjs",
                "**/.mocharc.json",
                "**/.mocharc.jsonc",
                "**/.mocharc.yml",
                "**/.mocharc.yaml",
                "**/test/mocha.opts",
            ];
            globs.extend(BABEL);
            globs
        }
        Runner::Maven => vec![".mvn/maven.config", ".mvn/jvm.config", ".mvn/extensions.xml"],
    }
}

/// A file that holds the runner's configuration next to other things.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `pyproject.toml`: the `tool.pytest` table (`[tool.pytest.ini_options]`).
    Pyproject,
    /// `setup.cfg`: the `[tool:pytest]` section (and the `[pytest]` one old pytest read).
    SetupCfg,
    /// `package.json`: the runner's key (`jest`, `mocha`) and the scripts the test command runs.
    PackageJson,
    /// `pom.xml`: surefire's `<plugin>` elements and the properties surefire reads.
    Pom,
}

/// The kind of `path` for `runner`, by its file name (at any depth: pytest reads the
/// configuration nearest to its arguments, jest and Maven a package's or module's own).
pub fn kind_of(runner: Runner, path: &str) -> Option<Kind> {
    let name = path.rsplit('/').next().unwrap_or(path);
    match (runner, name) {
        (Runner::Pytest, "pyproject.toml") => Some(Kind::Pyproject),
        (Runner::Pytest, "setup.cfg") => Some(Kind::SetupCfg),
        (Runner::Jest | Runner::Mocha, "package.json") => Some(Kind::PackageJson),
        (Runner::Maven, "pom.xml") => Some(Kind::Pom),
        _ => None,
    }
}

/// What of a `package.json` configures the runner.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackageKeys {
    /// Top-level keys (`jest`, `mocha`).
    pub keys: Vec<String>,
    /// Entries of `scripts` the test command runs (`pretest`, `test`, `posttest`).
    pub scripts: Vec<String>,
}

impl PackageKeys {
    pub fn new(runner: Runner, test_cmd: &str) -> Self {
        let keys = match runner {
            Runner::Jest => vec!["jest".to_string()],
            Runner::Mocha => vec!["mocha".to_string()],
            _ => Vec::new(),
        };
        let mut scripts = Vec::new();
        for name in package_scripts(test_cmd) {
            for s in [format!("pre{name}"), name.clone(), format!("post{name}")] {
                if !scripts.contains(&s) {
                    scripts.push(s);
                }
            }
        }
        PackageKeys { keys, scripts }
    }
}

/// The `package.json` scripts a test command runs: `npm test`, `npm run X`, `yarn X`,
/// `pnpm run X` → `test`, `X`.
pub fn package_scripts(test_cmd: &str) -> Vec<String> {
    const YARN_OWN: [&str; 12] = [
        "install",
        "add",
        "remove",
        "exec",
        "dlx",
        "node",
        "workspace",
        "workspaces",
        "why",
        "info",
        "config",
        "cache",
    ];
    let words: Vec<&str> = test_cmd.split(|c: char| c.is_whitespace() || c == ';' || c == '&' || c == '|').collect();
    let mut names = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let next = |k: usize| words.get(i + k).copied().filter(|s| !s.is_empty() && !s.starts_with('-'));
        let name = match *w {
            "npm" => match next(1) {
                Some("test" | "t" | "tst") => Some("test"),
                Some("run" | "run-script" | "rum" | "urn") => next(2),
                _ => None,
            },
            "yarn" | "pnpm" => match next(1) {
                Some("run") => next(2),
                Some(s) if !YARN_OWN.contains(&s) => Some(s),
                _ => None,
            },
            _ => None,
        };
        if let Some(name) = name {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    names
}

/// The result of resetting one file's runner parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reset {
    /// The runner's parts are as at the base commit: nothing to do.
    Unchanged,
    /// The file with the runner's parts as at the base commit; `parts` names them.
    Content { bytes: Vec<u8>, parts: Vec<String> },
    /// The runner's parts changed and cannot be put back without touching the rest.
    Unsafe { parts: Vec<String>, reason: String },
}

/// Resets the runner's parts of one file: `base` is the file at the base commit, `post` as the
/// candidate leaves it (`None`: absent). A file the candidate deletes comes back whole when it
/// configured the runner.
pub fn reset(kind: Kind, keys: &PackageKeys, base: Option<&[u8]>, post: Option<&[u8]>) -> Reset {
    let text = |bytes: Option<&[u8]>| -> Result<String, ()> {
        match bytes {
            None => Ok(String::new()),
            Some(b) => String::from_utf8(b.to_vec()).map_err(|_| ()),
        }
    };
    let (Ok(base_text), Ok(post_text)) = (text(base), text(post)) else {
        return Reset::Unsafe { parts: vec![kind.parts(keys)], reason: "the file is not UTF-8".into() };
    };
    if post.is_none() {
        return match base {
            Some(bytes) if has_runner_parts(kind, keys, &base_text) => {
                Reset::Content { bytes: bytes.to_vec(), parts: vec!["the whole file (the patch deletes it)".into()] }
            }
            _ => Reset::Unchanged,
        };
    }
    let result = match kind {
        Kind::Pyproject => reset_pyproject(&base_text, &post_text),
        Kind::SetupCfg => reset_ini(&base_text, &post_text, &["tool:pytest", "pytest"]),
        Kind::PackageJson => reset_package_json(&base_text, &post_text, keys),
        Kind::Pom => reset_pom(&base_text, &post_text),
    };
    match result {
        Ok(None) => Reset::Unchanged,
        Ok(Some((text, parts))) => Reset::Content { bytes: text.into_bytes(), parts },
        Err(reason) => Reset::Unsafe { parts: vec![kind.parts(keys)], reason },
    }
}

impl Kind {
    /// The runner's parts of this kind of file, in words.
    fn parts(self, keys: &PackageKeys) -> String {
        match self {
            Kind::Pyproject => "[tool.pytest.*]".into(),
            Kind::SetupCfg => "[tool:pytest]".into(),
            Kind::PackageJson => {
                let mut parts: Vec<String> = keys.keys.iter().map(|k| format!("\"{k}\"")).collect();
                parts.extend(keys.scripts.iter().map(|s| format!("\"scripts.{s}\"")));
                parts.join(", ")
            }
            Kind::Pom => "surefire's <plugin> and properties".into(),
        }
    }
}

fn has_runner_parts(kind: Kind, keys: &PackageKeys, text: &str) -> bool {
    match kind {
        Kind::Pyproject => toml_runner(text).ok().flatten().is_some(),
        Kind::SetupCfg => ini_blocks(text).iter().any(|b| b.name.as_deref().is_some_and(|n| n == "tool:pytest")),
        Kind::PackageJson => serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| {
            keys.keys.iter().any(|k| v.get(k).is_some())
                || keys.scripts.iter().any(|s| v.get("scripts").and_then(|x| x.get(s)).is_some())
        }),
        Kind::Pom => pom_elements(text).is_ok_and(|e| !e.is_empty()),
    }
}

type Outcome = Result<Option<(String, Vec<String>)>, String>;

// ---- pyproject.toml ----

/// The `tool.pytest` value of a TOML document.
fn toml_runner(text: &str) -> Result<Option<toml::Value>, String> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| e.message().to_string())?;
    Ok(table.get("tool").and_then(|t| t.get("pytest")).cloned())
}

/// The document without `tool.pytest` (and without a `tool` table left empty by that).
fn toml_without_runner(text: &str) -> Result<toml::Table, String> {
    let mut table: toml::Table = text.parse().map_err(|e: toml::de::Error| e.message().to_string())?;
    if let Some(toml::Value::Table(tool)) = table.get_mut("tool") {
        tool.remove("pytest");
        if tool.is_empty() {
            table.remove("tool");
        }
    }
    Ok(table)
}

/// A run of lines from one table header (or the start) to the next.
struct Block<'a> {
    /// The header's dotted name without spaces and quotes (`None` for the lines before any).
    name: Option<String>,
    text: &'a str,
}

fn is_pytest_table(name: &str) -> bool {
    name == "tool.pytest" || name.starts_with("tool.pytest.")
}

fn toml_blocks(text: &str) -> Vec<Block<'_>> {
    blocks(text, |line| {
        let t = line.trim();
        let inner = t.strip_prefix("[[").and_then(|s| s.split("]]").next()).or_else(|| {
            t.strip_prefix('[').and_then(|s| s.split_once(']')).map(|(name, rest)| {
                if rest.trim().is_empty() || rest.trim_start().starts_with('#') {
                    name
                } else {
                    ""
                }
            })
        })?;
        let name: String = inner.chars().filter(|c| !c.is_whitespace() && *c != '"' && *c != '\'').collect();
        let valid = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || "._-:".contains(c));
        valid.then_some(name)
    })
}

fn blocks<'a>(text: &'a str, header: impl Fn(&str) -> Option<String>) -> Vec<Block<'a>> {
    let mut out: Vec<(Option<String>, usize)> = vec![(None, 0)];
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if let Some(name) = header(line) {
            out.push((Some(name), offset));
        }
        offset += line.len();
    }
    let ends: Vec<usize> = out.iter().skip(1).map(|(_, s)| *s).chain(std::iter::once(text.len())).collect();
    out.into_iter().zip(ends).map(|((name, start), end)| Block { name, text: &text[start..end] }).collect()
}

/// Replaces the blocks `is_runner` selects in `post` by those of `base`, at the place of the
/// first one (or at the end).
fn swap_blocks(base: &[Block<'_>], post: &[Block<'_>], is_runner: impl Fn(&str) -> bool) -> String {
    let runner = |b: &&Block<'_>| b.name.as_deref().is_some_and(&is_runner);
    let from_base: String = base.iter().filter(runner).map(|b| b.text).collect();
    let mut out = String::new();
    let mut placed = false;
    for block in post {
        if runner(&block) {
            if !placed {
                out.push_str(&from_base);
                placed = true;
            }
        } else {
            out.push_str(block.text);
        }
    }
    if !placed && !from_base.is_empty() {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str(&from_base);
    }
    out
}

fn reset_pyproject(base: &str, post: &str) -> Outcome {
    let unparsable = |which: &str, e: String| format!("pyproject.toml does not parse {which} ({e})");
    let base_runner = toml_runner(base).map_err(|e| unparsable("at the base commit", e))?;
    let post_runner = toml_runner(post).map_err(|e| unparsable("after the patch", e))?;
    if base_runner == post_runner {
        return Ok(None);
    }
    let new = swap_blocks(&toml_blocks(base), &toml_blocks(post), is_pytest_table);
    let refused = || {
        "tool.pytest is set outside its own [tool.pytest…] tables (dotted keys or an inline table), \
         so it cannot be put back without touching the rest"
            .to_string()
    };
    let (Ok(new_runner), Ok(new_rest), Ok(post_rest)) =
        (toml_runner(&new), toml_without_runner(&new), toml_without_runner(post))
    else {
        return Err(refused());
    };
    if new_runner != base_runner || new_rest != post_rest {
        return Err(refused());
    }
    Ok(Some((new, vec!["[tool.pytest.*]".into()])))
}

// ---- setup.cfg ----

/// Sections of an INI file as pytest's iniconfig and configparser read them: a header is a line
/// that starts with `[` (not indented) and ends with `]` once a trailing comment is dropped.
fn ini_blocks(text: &str) -> Vec<Block<'_>> {
    blocks(text, |line| {
        if !line.starts_with('[') {
            return None;
        }
        let real = line.split(['#', ';']).next().unwrap_or("").trim_end();
        real.strip_prefix('[')?.strip_suffix(']').map(|n| n.trim().to_string())
    })
}

fn reset_ini(base: &str, post: &str, sections: &[&str]) -> Outcome {
    let is_runner = |name: &str| sections.contains(&name);
    let base_blocks = ini_blocks(base);
    let post_blocks = ini_blocks(post);
    for (which, blocks) in [("at the base commit", &base_blocks), ("after the patch", &post_blocks)] {
        let mut names: Vec<&str> = blocks.iter().filter_map(|b| b.name.as_deref()).filter(|n| is_runner(n)).collect();
        names.sort_unstable();
        if names.windows(2).any(|w| w[0] == w[1]) {
            return Err(format!("a runner section appears twice {which}"));
        }
    }
    let runner_text = |blocks: &[Block<'_>]| -> Vec<(String, String)> {
        let mut found: Vec<(String, String)> = blocks
            .iter()
            .filter(|b| b.name.as_deref().is_some_and(is_runner))
            .map(|b| (b.name.clone().unwrap_or_default(), b.text.trim_end().to_string()))
            .collect();
        found.sort();
        found
    };
    if runner_text(&base_blocks) == runner_text(&post_blocks) {
        return Ok(None);
    }
    let new = swap_blocks(&base_blocks, &post_blocks, is_runner);
    let new_blocks = ini_blocks(&new);
    let rest = |blocks: &[Block<'_>]| -> Vec<(Option<String>, String)> {
        blocks
            .iter()
            .filter(|b| !b.name.as_deref().is_some_and(is_runner))
            .map(|b| (b.name.clone(), b.text.trim_end().to_string()))
            .filter(|(n, t)| n.is_some() || !t.is_empty())
            .collect()
    };
    if runner_text(&new_blocks) != runner_text(&base_blocks) || rest(&new_blocks) != rest(&post_blocks) {
        return Err("the runner's section cannot be separated from the rest of the file".into());
    }
    let parts = sections
        .iter()
        .filter(|s| runner_text(&base_blocks).iter().chain(&runner_text(&post_blocks)).any(|(n, _)| n == *s))
        .map(|s| format!("[{s}]"))
        .collect();
    Ok(Some((new, parts)))
}

// ---- package.json ----

fn reset_package_json(base: &str, post: &str, keys: &PackageKeys) -> Outcome {
    use serde_json::Value;
    let parse = |text: &str, which: &str| -> Result<Value, String> {
        if text.trim().is_empty() {
            return Ok(Value::Object(Default::default()));
        }
        serde_json::from_str(text).map_err(|e| format!("package.json does not parse {which} ({e})"))
    };
    let base_value = parse(base, "at the base commit")?;
    let mut value = parse(post, "after the patch")?;
    let Value::Object(object) = &mut value else {
        return Err("package.json is not a JSON object after the patch".into());
    };
    let mut parts = Vec::new();
    for key in &keys.keys {
        let want = base_value.get(key);
        if object.get(key) != want {
            match want {
                Some(v) => object.insert(key.clone(), v.clone()),
                None => object.remove(key),
            };
            parts.push(format!("\"{key}\""));
        }
    }
    let base_scripts = base_value.get("scripts");
    for script in &keys.scripts {
        let want = base_scripts.and_then(|s| s.get(script));
        let have = object.get("scripts").and_then(|s| s.get(script));
        if have == want {
            continue;
        }
        parts.push(format!("\"scripts.{script}\""));
        match (object.get_mut("scripts"), want) {
            (Some(Value::Object(scripts)), Some(v)) => {
                scripts.insert(script.clone(), v.clone());
            }
            (Some(Value::Object(scripts)), None) => {
                scripts.remove(script);
            }
            (None, Some(v)) => {
                let mut scripts = serde_json::Map::new();
                scripts.insert(script.clone(), v.clone());
                object.insert("scripts".into(), Value::Object(scripts));
            }
            _ => return Err("package.json's \"scripts\" is not an object after the patch".into()),
        }
    }
    if parts.is_empty() {
        return Ok(None);
    }
    let mut text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
    text.push('\n');
    Ok(Some((text, parts)))
}

// ---- pom.xml ----

/// Properties surefire reads that change what runs or how it reports.
const SUREFIRE_PROPERTIES: [&str; 8] =
    ["argLine", "skipTests", "skip", "test", "groups", "excludedGroups", "testFailureIgnore", "jacoco.agent"];

fn is_surefire_property(name: &str) -> bool {
    SUREFIRE_PROPERTIES.contains(&name)
        || ["maven.test.", "surefire.", "junit.", "failsafe."].iter().any(|p| name.starts_with(p))
}

/// One element of a pom that configures surefire: its key (where it sits and what it is) and
/// its byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PomElement {
    key: String,
    span: Range<usize>,
}

/// Surefire's `<plugin>` elements and surefire's properties, in document order.
fn pom_elements(text: &str) -> Result<Vec<PomElement>, String> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    let mut open: Vec<OpenElement> = Vec::new();
    // For each open `plugin`, its artifactId; for each open `profile`, its id.
    let mut found = Vec::new();
    let mut artifact: Vec<Option<String>> = Vec::new();
    let mut profile: Vec<Option<String>> = Vec::new();
    loop {
        let before = reader.buffer_position() as usize;
        let event = reader.read_event().map_err(|e| format!("pom.xml is not well-formed XML ({e})"))?;
        let after = reader.buffer_position() as usize;
        match event {
            Event::Start(tag) => {
                let name = tag.local_name().as_ref().to_string();
                if name == "plugin" {
                    artifact.push(None);
                }
                if name == "profile" {
                    profile.push(None);
                }
                open.push(OpenElement { name, start: before, text: String::new() });
            }
            Event::Empty(tag) => {
                let name = tag.local_name().as_ref().to_string();
                if open.last().is_some_and(|o| o.name == "properties") && is_surefire_property(&name) {
                    found.push(PomElement {
                        key: pom_key(&open, &profile, &format!("property {name}")),
                        span: before..after,
                    });
                }
            }
            Event::Text(t) => {
                if let Some(o) = open.last_mut() {
                    o.text.push_str(t.as_ref());
                }
            }
            Event::End(_) => {
                let Some(closed) = open.pop() else { return Err("pom.xml closes an element it never opened".into()) };
                let parent = open.last().map(|o| o.name.as_str());
                let value = closed.text.trim().to_string();
                match closed.name.as_str() {
                    "artifactId" if parent == Some("plugin") => {
                        if let Some(slot) = artifact.last_mut() {
                            *slot = Some(value);
                        }
                    }
                    "id" if parent == Some("profile") => {
                        if let Some(slot) = profile.last_mut() {
                            *slot = Some(value);
                        }
                    }
                    "plugin" => {
                        let id = artifact.pop().flatten();
                        if id.as_deref() == Some("maven-surefire-plugin") {
                            found.push(PomElement {
                                key: pom_key(&open, &profile, "surefire plugin"),
                                span: closed.start..after,
                            });
                        }
                    }
                    "profile" => {
                        profile.pop();
                    }
                    name if parent == Some("properties") && is_surefire_property(name) => {
                        found.push(PomElement {
                            key: pom_key(&open, &profile, &format!("property {name}")),
                            span: closed.start..after,
                        });
                    }
                    _ => {}
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !open.is_empty() {
        return Err("pom.xml ends inside an element".into());
    }
    // Nested matches (a property inside a plugin's configuration is not a property element;
    // `properties` under a plugin does not exist in a pom) are kept as found.
    Ok(found)
}

/// An element being read: its name, where its start tag begins, its text so far.
struct OpenElement {
    name: String,
    start: usize,
    text: String,
}

fn pom_key(open: &[OpenElement], profile: &[Option<String>], what: &str) -> String {
    let path: Vec<&str> = open.iter().map(|o| o.name.as_str()).collect();
    let profiles: Vec<&str> = profile.iter().map(|p| p.as_deref().unwrap_or("?")).collect();
    if profiles.is_empty() {
        format!("{what} in {}", path.join("/"))
    } else {
        format!("{what} in {} (profile {})", path.join("/"), profiles.join("/"))
    }
}

fn reset_pom(base: &str, post: &str) -> Outcome {
    let base_elements = pom_elements(base).map_err(|e| format!("{e} at the base commit"))?;
    let post_elements = pom_elements(post).map_err(|e| format!("{e} after the patch"))?;
    let texts = |text: &str, elements: &[PomElement]| -> Vec<(String, String)> {
        elements.iter().map(|e| (e.key.clone(), text[e.span.clone()].to_string())).collect()
    };
    let base_texts = texts(base, &base_elements);
    if base_texts == texts(post, &post_elements) {
        return Ok(None);
    }
    // Pair elements by key and occurrence; the base's must all have a place in the patched file.
    let mut replacements: Vec<(Range<usize>, String)> = Vec::new();
    let mut used = vec![false; base_texts.len()];
    let mut parts: Vec<String> = Vec::new();
    for element in &post_elements {
        let slot = base_texts.iter().enumerate().position(|(i, (k, _))| !used[i] && *k == element.key);
        let replacement = match slot {
            Some(i) => {
                used[i] = true;
                base_texts[i].1.clone()
            }
            None => String::new(),
        };
        if post[element.span.clone()] != replacement {
            replacements.push((element.span.clone(), replacement));
            if !parts.contains(&element.key) {
                parts.push(element.key.clone());
            }
        }
    }
    if let Some(i) = used.iter().position(|u| !u) {
        return Err(format!(
            "the patch removes the {} of the base commit; putting it back would mean re-inserting it",
            base_texts[i].0
        ));
    }
    let mut new = post.to_string();
    for (span, text) in replacements.into_iter().rev() {
        new.replace_range(span, &text);
    }
    let check = pom_elements(&new).map_err(|e| format!("{e} after the reset"))?;
    if texts(&new, &check) != base_texts {
        return Err("surefire's configuration cannot be separated from the rest of pom.xml".into());
    }
    Ok(Some((new, parts)))
}

// ---- planning ----

/// What the eval script does about one file whose runner parts the candidate changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedReset {
    pub path: String,
    /// When falling back, the file also goes back to the base commit whole: a `pom.xml`
    /// (surefire takes no configuration file on the command line), and a `package.json` whose
    /// scripts the test command runs.
    pub whole_on_fallback: bool,
    /// The runner's parts that differ from the base commit (for the report).
    pub parts: Vec<String>,
    pub action: Action,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Write `reset` over the file when it holds `predicted` after the candidate and the image
    /// holds `base` (`None`: absent); otherwise fall back.
    Reset { base: Option<Vec<u8>>, predicted: Option<Vec<u8>>, reset: Vec<u8> },
    /// Fall back, for this reason.
    Fallback { reason: String },
}

/// How the runner is started with its base configuration when a reset is not safe.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fallback {
    /// Files written into /testbed (path relative to it, contents).
    pub files: Vec<(String, Vec<u8>)>,
    /// Shell lines run once: `export PYTEST_ADDOPTS=…`, `VERDICT_RUNNER_ARGS=…`.
    pub lines: Vec<String>,
    /// What the fallback does, in words (for the report).
    pub description: String,
}

/// The runner-configuration part of one evaluation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigPlan {
    pub resets: Vec<PlannedReset>,
    pub fallback: Fallback,
}

/// Plans the resets for `candidate` against the base commit: every file of the candidate that
/// is a [`Kind`] for `runner` is read from `base`, predicted after the patch, and reset. Reads
/// nothing when the candidate touches no such file.
pub fn plan(runner: Runner, test_cmd: &str, candidate: &str, base: &dyn Snapshot) -> ConfigPlan {
    let keys = PackageKeys::new(runner, test_cmd);
    let mut resets = Vec::new();
    for section in file_sections(candidate) {
        let change = &section.change;
        let Some(path) = [change.new.as_deref(), change.old.as_deref()]
            .into_iter()
            .flatten()
            .find(|p| kind_of(runner, p).is_some())
            .map(str::to_string)
        else {
            continue;
        };
        let kind = kind_of(runner, &path).expect("found by kind_of");
        let whole_on_fallback = kind == Kind::Pom || (kind == Kind::PackageJson && !keys.scripts.is_empty());
        let fallback = |reason: String, parts: Vec<String>| PlannedReset {
            path: path.clone(),
            whole_on_fallback,
            parts,
            action: Action::Fallback { reason },
        };
        if change.old != change.new && change.old.is_some() && change.new.is_some() {
            resets.push(fallback("the patch renames the file".into(), vec![kind.parts(&keys)]));
            continue;
        }
        let base_bytes = match base.read(&path) {
            Ok(b) => b,
            Err(e) => {
                resets.push(fallback(
                    format!("the file cannot be read at the base commit: {e}"),
                    vec![kind.parts(&keys)],
                ));
                continue;
            }
        };
        let predicted = match apply_patch(section.text, base) {
            Ok(files) => files.into_iter().find(|f| f.new_path == path || f.old_path.as_deref() == Some(&path)),
            Err(e) => {
                resets.push(fallback(
                    format!("the file after the patch cannot be predicted: {e}"),
                    vec![kind.parts(&keys)],
                ));
                continue;
            }
        };
        let Some(predicted) = predicted else { continue };
        let predicted = predicted.contents;
        match reset(kind, &keys, base_bytes.as_deref(), predicted.as_deref()) {
            Reset::Unchanged => {}
            Reset::Content { bytes, parts } => resets.push(PlannedReset {
                path,
                whole_on_fallback,
                parts,
                action: Action::Reset { base: base_bytes, predicted, reset: bytes },
            }),
            Reset::Unsafe { parts, reason } => resets.push(fallback(reason, parts)),
        }
    }
    let fallback = if resets.is_empty() { Fallback::default() } else { fallback(runner, base) };
    ConfigPlan { resets, fallback }
}

/// The runner's base configuration, given on the command line.
fn fallback(runner: Runner, base: &dyn Snapshot) -> Fallback {
    let read = |path: &str| base.read(path).ok().flatten().and_then(|b| String::from_utf8(b).ok());
    match runner {
        Runner::Pytest => {
            let (file, contents): (String, Option<Vec<u8>>) = if read("pytest.ini").is_some() {
                ("pytest.ini".into(), None)
            } else if read(".pytest.ini").is_some() {
                (".pytest.ini".into(), None)
            } else if let Some(value) = read("pyproject.toml").and_then(|t| toml_runner(&t).ok().flatten()) {
                let mut tool = toml::Table::new();
                tool.insert("pytest".into(), value);
                let mut doc = toml::Table::new();
                doc.insert("tool".into(), toml::Value::Table(tool));
                (".verdict-pytest.toml".into(), Some(toml::to_string(&doc).unwrap_or_default().into_bytes()))
            } else if read("tox.ini")
                .is_some_and(|t| ini_blocks(&t).iter().any(|b| b.name.as_deref() == Some("pytest")))
            {
                ("tox.ini".into(), None)
            } else if let Some(section) = read("setup.cfg").and_then(|t| {
                ini_blocks(&t).iter().find(|b| b.name.as_deref() == Some("tool:pytest")).map(|b| b.text.to_string())
            }) {
                (".verdict-pytest.cfg".into(), Some(section.into_bytes()))
            } else {
                (".verdict-pytest.ini".into(), Some(b"[pytest]\n".to_vec()))
            };
            Fallback {
                lines: vec![format!(
                    "export PYTEST_ADDOPTS=\"-c /testbed/{file}${{PYTEST_ADDOPTS:+ $PYTEST_ADDOPTS}}\""
                )],
                description: format!("pytest was started with -c {file} (the base commit's configuration)"),
                files: contents.map(|c| vec![(file, c)]).unwrap_or_default(),
            }
        }
        Runner::Jest => {
            let existing = ["js", "ts", "mjs", "cjs", "cts", "mts", "json"]
                .iter()
                .map(|ext| format!("jest.config.{ext}"))
                .find(|p| read(p).is_some());
            let (file, contents) = match existing {
                Some(file) => (file, None),
                None => {
                    let value = read("package.json")
                        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                        .and_then(|v| v.get("jest").cloned())
                        .unwrap_or_else(|| serde_json::json!({}));
                    (".verdict-jest.json".to_string(), Some(format!("{value:#}\n").into_bytes()))
                }
            };
            Fallback {
                lines: vec![format!("export VERDICT_RUNNER_ARGS=--config=/testbed/{file}")],
                description: format!("jest was started with --config {file} (the base commit's configuration)"),
                files: contents.map(|c| vec![(file, c)]).unwrap_or_default(),
            }
        }
        Runner::Mocha => {
            let has_rc =
                ["js", "cjs", "json", "jsonc", "yml", "yaml"].iter().any(|e| read(&format!(".mocharc.{e}")).is_some());
            let key = read("package.json")
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                .and_then(|v| v.get("mocha").cloned());
            match key {
                Some(value) if !has_rc => Fallback {
                    files: vec![(".verdict-mocharc.json".into(), format!("{value:#}\n").into_bytes())],
                    lines: vec![
                        "export VERDICT_RUNNER_ARGS='--no-package --config=/testbed/.verdict-mocharc.json'".into()
                    ],
                    description: "mocha was started with --no-package and the base commit's \"mocha\" options".into(),
                },
                _ => Fallback {
                    files: Vec::new(),
                    lines: vec!["export VERDICT_RUNNER_ARGS=--no-package".into()],
                    description: "mocha was started with --no-package".into(),
                },
            }
        }
        Runner::Maven => Fallback {
            files: Vec::new(),
            lines: Vec::new(),
            description:
                "pom.xml went back to the base commit whole (surefire takes no configuration file on the command line)"
                    .into(),
        },
    }
}

#[cfg(test)]
mod tests;
