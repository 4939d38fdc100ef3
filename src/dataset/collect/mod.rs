//! `verdict collect`: task instances from a repository's own history.
//!
//! Given a local repository (a work tree or a bare mirror) and PR numbers or commits, each target
//! becomes one instance in SWE-bench's fields, ready for `verdict validate` to derive its test
//! lists. Nothing is fetched from GitHub: everything comes from git.
//!
//! # Finding a PR
//! The whole history of every branch, tag and remote-tracking branch is indexed once. A PR `N`
//! is, in this order:
//! 1. a merge commit whose subject starts with `Merge pull request #N from`: the PR is its
//!    second parent, and its base is the merge base of the two parents;
//! 2. a commit whose subject ends with `(#N)` (a squash or rebase merge): the PR is that commit,
//!    and its base is its parent (when it has two parents, as rule 1);
//! 3. `refs/pull/N/head` (the refs GitHub keeps for every PR, present in a mirror clone): the
//!    base is the merge base of the head with the first parent of `refs/pull/N/merge` when that
//!    ref exists, else with the first parent of the merge commit that brought the head into a
//!    branch, else, for a head on no branch (an unmerged PR), with `HEAD`. A head that is on a
//!    branch without any merge commit (fast-forwarded) does not tell where the PR started:
//!    that is an error that asks for `--commit BASE..HEAD`.
//!
//! When a PR matches several commits of one kind (a fix cherry-picked to a release branch keeps
//! its `(#N)`), the earliest by committer date is taken: the one on the branch the PR targeted.
//!
//! The base is where the PR's changes start, so the instance's `base_commit` is the commit the
//! patches apply to by construction; `patch` and `test_patch` are `git diff BASE HEAD` (the
//! PR's changes as GitHub's "files changed" shows them), split by path.
//!
//! `--commit SHA` takes one commit against its first parent, `--commit A..B` the range; the
//! instance id uses the PR number of the commit's subject when it has one (rules 1 and 2), else
//! the first 7 hex digits of the commit.
//!
//! # The diff
//! `git diff --binary --no-renames` with fixed settings (no colour, no external diff or textconv,
//! unquoted paths, `a/` and `b/` prefixes): a rename is a deletion and a creation, so each side
//! is split on its own. The diff is cut into per-file blocks and copied byte for byte: CRLF
//! files stay CRLF, binary files are git binary patches that `git apply` takes. A file whose
//! diff is not UTF-8 text (JSON cannot hold it) is diffed again as binary.
//!
//! # Splitting
//! OmniGIRL's path rules, as data in `harness/collect.toml` (see that file): test files go into
//! `test_patch`, source files of the repository's language into `patch`, and every other file
//! into neither (listed under `collected.dropped`). A PR with no test file or no source file is
//! an error for that PR naming the files it does have; the other PRs go on.
//!
//! # Fields
//! `instance_id` `owner__name-N`, `repo`, `pull_number`, `base_commit`, `patch`, `test_patch`,
//! `problem_statement` (the merge or squash commit's message, or the PR head's: the issue's text
//! is not in git, so replace it when you have it), `hints_text` (empty), `created_at` (the
//! committer date of the commit that landed the PR, in UTC), `version`,
//! `environment_setup_commit` (as in SWE-bench: the base commit of the newest instance of the
//! same version in this output), empty `FAIL_TO_PASS` and `PASS_TO_PASS`, and `collected`: how
//! the PR was found, its head, and the files of each part.
//!
//! # Version
//! `--version V` wins. Otherwise the spec file's `[collect]` rule: the first of
//! `version_files` that exists at the base commit and that one of `version_patterns` matches;
//! the matched capture groups are joined with `.`, everything but digits and dots is dropped,
//! and the first `version_components` (default 2) parts are kept, as OmniGIRL's versioning
//! does (`4.45.0` → `4.45`). Where no file matches and the rule has `version_tags` (repositories
//! that setuptools_scm versions from their tags), the nearest tag below the base that matches one
//! of those globs (`git describe --tags --abbrev=0 --match GLOB`) gives it, normalized the same
//! way. No match gives `version_default`, or no version (the spec's `"*"` entry then applies). A
//! version with no entry of its own in the spec is noted.

pub mod git;
pub mod split;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use self::git::{iso8601_utc, Commit, Git, GitError, PrIndex};
use self::split::{file_blocks, FileBlock, Role, Rules, SplitConfig};
use crate::dataset::spec::{CollectSpec, SpecRegistry};
use crate::dataset::Instance;

/// What to collect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A PR number.
    Pr(u64),
    /// A commit (against its first parent) or a range `A..B`.
    Commit(String),
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Pr(n) => write!(f, "PR #{n}"),
            Target::Commit(c) => write!(f, "commit {c}"),
        }
    }
}

/// Options of one collection.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `owner/name`.
    pub repo: String,
    pub targets: Vec<Target>,
    /// The language whose split rules apply (default: the spec entry's).
    pub language: Option<String>,
    /// The version every instance gets (default: the spec's rule).
    pub version: Option<String>,
    /// Globs that make a file a test file / a source file, before every other rule.
    pub test_globs: Vec<String>,
    pub source_globs: Vec<String>,
}

/// Whole-run failures (per-target problems are [`TargetResult`]s).
#[derive(Debug, thiserror::Error)]
pub enum CollectError {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error("{0}")]
    Setup(String),
}

/// What became of one target.
#[derive(Debug, Clone, Serialize)]
pub struct TargetResult {
    /// `PR #12` or `commit abc..def`.
    pub target: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_id: Option<String>,
    pub ok: bool,
    /// How the PR was found (ok), or what went wrong.
    pub message: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The instances collected, and one result per target, in the order given.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub instances: Vec<Instance>,
    pub results: Vec<TargetResult>,
}

/// Where a target's changes start and end.
struct Located {
    base: String,
    head: String,
    /// The commit whose date is `created_at` and whose message is the problem statement.
    landed: Commit,
    pull_number: Option<u64>,
    how: String,
}

/// Collects every target from the repository `git`. See the module doc for the rules.
pub fn collect(
    git: &Git,
    specs: &SpecRegistry,
    split: &SplitConfig,
    options: &Options,
) -> Result<Outcome, CollectError> {
    let (owner, name) = options
        .repo
        .split_once('/')
        .filter(|(o, n)| !o.is_empty() && !n.is_empty() && !n.contains('/'))
        .ok_or_else(|| CollectError::Setup(format!("--repo {:?} is not of the form owner/name", options.repo)))?;
    let spec = specs.file(&options.repo);
    let collect_spec = spec.map(|s| s.collect.clone()).unwrap_or_default();
    let version_re = compile_patterns(&collect_spec, spec.map(|s| s.path.display().to_string()))?;
    let rules = |language: &str| {
        Rules::new(
            split,
            language,
            &collect_spec.test_globs,
            &collect_spec.source_globs,
            &options.test_globs,
            &options.source_globs,
        )
        .map_err(CollectError::Setup)
    };
    // The language is checked before any PR is read, so a missing spec fails once, clearly.
    let default_language = match (&options.language, spec) {
        (Some(l), _) => l.clone(),
        (None, Some(s)) => s.versions.values().next().map(|(_, e)| e.language.clone()).unwrap_or_default(),
        (None, None) => {
            return Err(CollectError::Setup(format!(
                "no harness spec for {} (harness/specs/{owner}__{name}.toml or --specs DIR), so its language is unknown; pass --language python|javascript|typescript|java",
                options.repo
            )))
        }
    };
    rules(&default_language)?;

    let index = PrIndex::build(git)?;
    let mut instances: Vec<Instance> = Vec::new();
    let mut results = Vec::new();
    let mut seen: Vec<&Target> = Vec::new();
    for target in &options.targets {
        if seen.contains(&target) {
            continue;
        }
        seen.push(target);
        let mut notes = Vec::new();
        let made = (|| -> Result<Instance, String> {
            let located = match target {
                Target::Pr(n) => locate_pr(git, &index, *n)?,
                Target::Commit(c) => locate_commit(git, c)?,
            };
            let id = match located.pull_number {
                Some(n) => format!("{owner}__{name}-{n}"),
                None => format!("{owner}__{name}-{}", &located.head[..7.min(located.head.len())]),
            };
            if instances.iter().any(|i| i.instance_id == id) {
                return Err(format!("{id} was already collected from another target"));
            }
            let version = match &options.version {
                Some(v) => Some(v.clone()),
                None => version_of(git, &located.base, &collect_spec, &version_re).map_err(|e| e.to_string())?,
            };
            let language = options
                .language
                .clone()
                .or_else(|| specs.entry(&options.repo, version.as_deref()).map(|e| e.language.clone()))
                .unwrap_or_else(|| default_language.clone());
            if let Some(s) = spec {
                match &version {
                    Some(v) if !s.versions.contains_key(v) && !s.versions.contains_key("*") => notes.push(format!(
                        "version {v} has no entry in the spec (and there is no \"*\" entry); add one before validating"
                    )),
                    None if !s.versions.contains_key("*") => {
                        notes.push("no version found and the spec has no \"*\" entry; pass --version".into())
                    }
                    _ => {}
                }
            }
            let rules = rules(&language).map_err(|e| e.to_string())?;
            let blocks = diff_blocks(git, &located.base, &located.head).map_err(|e| {
                let e = e.to_string();
                let hint = if e.contains("unable to read") || e.contains("bad object") {
                    "; the repository lacks objects of this PR (a partial or shallow copy): fetch it whole"
                } else {
                    ""
                };
                format!("{target} ({}): {e}{hint}", located.how)
            })?;
            build_instance(&options.repo, id, &located, version, blocks, &rules, target)
        })();
        match made {
            Ok(instance) => {
                let how = instance.extra.get("collected").and_then(|c| c.get("how")).and_then(Value::as_str);
                results.push(TargetResult {
                    target: target.to_string(),
                    instance_id: Some(instance.instance_id.clone()),
                    ok: true,
                    message: how.unwrap_or_default().to_string(),
                    notes,
                });
                instances.push(instance);
            }
            Err(message) => {
                results.push(TargetResult { target: target.to_string(), instance_id: None, ok: false, message, notes })
            }
        }
    }
    set_environment_setup_commits(&mut instances);
    Ok(Outcome { instances, results })
}

fn locate_pr(git: &Git, index: &PrIndex, n: u64) -> Result<Located, String> {
    let commit = |sha: &str| -> Result<Commit, String> {
        git.commit(sha).map_err(|e| e.to_string())?.ok_or_else(|| format!("PR #{n}: commit {sha} cannot be read"))
    };
    let merge_base = |a: &str, b: &str| -> Result<String, String> {
        let out = git.run(&["merge-base", a, b]).map_err(|e| format!("PR #{n}: {e}"))?;
        let base = String::from_utf8_lossy(&out).trim().to_string();
        if base.is_empty() {
            return Err(format!("PR #{n}: {a} and {b} have no common ancestor"));
        }
        Ok(base)
    };
    let as_merge = |m: Commit, how: String| -> Result<Located, String> {
        let base = merge_base(&m.parents[0], &m.parents[1])?;
        Ok(Located { base, head: m.parents[1].clone(), landed: m, pull_number: Some(n), how })
    };
    if let Some(sha) = index.merges.get(&n) {
        let m = commit(sha)?;
        let how = format!("merge commit {} ({})", short(sha), m.subject());
        return as_merge(m, how);
    }
    if let Some(sha) = index.squashes.get(&n) {
        let c = commit(sha)?;
        let how = format!("commit {} ({})", short(sha), c.subject());
        return match c.parents.len() {
            0 => Err(format!("PR #{n}: commit {} ({}) has no parent to diff against", short(sha), c.subject())),
            1 => Ok(Located { base: c.parents[0].clone(), head: c.sha.clone(), landed: c, pull_number: Some(n), how }),
            _ => as_merge(c, how),
        };
    }
    if let Some(head) = index.pull_heads.get(&n) {
        let head_commit = commit(head)?;
        if let Some(test_merge) = index.pull_merges.get(&n) {
            let tm = commit(test_merge)?;
            if let Some(target) = tm.parents.first() {
                let base = merge_base(target, head)?;
                return Ok(Located {
                    base,
                    head: head.clone(),
                    landed: head_commit,
                    pull_number: Some(n),
                    how: format!(
                        "refs/pull/{n}/head {}, based where it meets refs/pull/{n}/merge's target",
                        short(head)
                    ),
                });
            }
        }
        if let Some(m) = index.merged_by.get(head) {
            let mc = commit(m)?;
            let base = merge_base(&mc.parents[0], head)?;
            let how = format!("refs/pull/{n}/head {}, merged by {} ({})", short(head), short(m), mc.subject());
            return Ok(Located { base, head: head.clone(), landed: mc, pull_number: Some(n), how });
        }
        if !index.on_branches.contains(head) {
            let base = merge_base("HEAD", head)?;
            return Ok(Located {
                base,
                head: head.clone(),
                landed: head_commit,
                pull_number: Some(n),
                how: format!("refs/pull/{n}/head {} (on no branch), forked from HEAD", short(head)),
            });
        }
        return Err(format!(
            "PR #{n}: refs/pull/{n}/head ({}) is on a branch that no merge commit brought it into (fast-forwarded), so git cannot tell where the PR started; give its range as --commit BASE..{}",
            short(head),
            short(head)
        ));
    }
    Err(format!(
        "PR #{n} is not in {}: no merge commit \"Merge pull request #{n} from …\", no commit whose subject ends with \"(#{n})\" on a branch or tag, and no refs/pull/{n}/head (a mirror clone has them: git clone --mirror)",
        git.dir().display()
    ))
}

fn locate_commit(git: &Git, spec: &str) -> Result<Located, String> {
    let read = |rev: &str| -> Result<Commit, String> {
        git.commit(rev)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("commit {rev} is not in {}", git.dir().display()))
    };
    let (base, head) = match spec.split_once("..") {
        Some((a, b)) => {
            let (a, b) = (read(a)?, read(b)?);
            (a.sha, b)
        }
        None => {
            let c = read(spec)?;
            let Some(parent) = c.parents.first().cloned() else {
                return Err(format!("commit {spec} has no parent to diff against; give a range A..B"));
            };
            (parent, c)
        }
    };
    let pull_number = pr_number_of(head.subject());
    let how = format!("commits {}..{} ({})", short(&base), short(&head.sha), head.subject());
    Ok(Located { base, head: head.sha.clone(), landed: head, pull_number, how })
}

/// The PR number a commit subject names: `Merge pull request #N from …` or `… (#N)`.
pub fn pr_number_of(subject: &str) -> Option<u64> {
    let merge = regex::Regex::new(r"^Merge pull request #(\d+) from ").expect("valid regex");
    let squash = regex::Regex::new(r"\(#(\d+)\)\s*$").expect("valid regex");
    merge.captures(subject).or_else(|| squash.captures(subject)).and_then(|c| c[1].parse().ok())
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(10)]
}

/// `git diff BASE HEAD` as per-file blocks; files whose diff is not UTF-8 are diffed again as
/// binary.
fn diff_blocks(git: &Git, base: &str, head: &str) -> Result<Vec<FileBlock>, GitError> {
    const ARGS: &[&str] = &["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", "--binary"];
    let mut args: Vec<&str> = ARGS.to_vec();
    args.extend(["--src-prefix=a/", "--dst-prefix=b/", base, head, "--"]);
    let diff = git.run(&args)?;
    let mut blocks = file_blocks(&diff);
    let not_text: Vec<String> =
        blocks.iter().filter(|b| std::str::from_utf8(&b.bytes).is_err()).map(|b| b.path().to_string()).collect();
    if not_text.is_empty() {
        return Ok(blocks);
    }
    let attributes =
        tempfile::NamedTempFile::new().map_err(|source| GitError::Spawn { dir: git.dir().to_path_buf(), source })?;
    let lines: String = not_text.iter().map(|p| format!("/{} binary\n", p.replace(' ', "[ ]"))).collect();
    std::fs::write(attributes.path(), lines)
        .map_err(|source| GitError::Spawn { dir: git.dir().to_path_buf(), source })?;
    let config = vec![format!("core.attributesFile={}", attributes.path().display())];
    let mut again: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    again.extend(not_text.iter().map(|p| format!(":(literal){p}")));
    let again_refs: Vec<&str> = again.iter().map(String::as_str).collect();
    let binary = file_blocks(&git.run_with(&again_refs, &config)?);
    for block in &mut blocks {
        if std::str::from_utf8(&block.bytes).is_err() {
            if let Some(b) = binary.iter().find(|b| b.path() == block.path()) {
                block.bytes = b.bytes.clone();
            }
        }
    }
    Ok(blocks)
}

fn build_instance(
    repo: &str,
    id: String,
    located: &Located,
    version: Option<String>,
    blocks: Vec<FileBlock>,
    rules: &Rules,
    target: &Target,
) -> Result<Instance, String> {
    if blocks.is_empty() {
        return Err(format!("{target} ({}) changes no file", located.how));
    }
    let mut patch = Vec::new();
    let mut test_patch = Vec::new();
    let (mut sources, mut tests, mut dropped) = (Vec::new(), Vec::new(), Vec::new());
    for block in &blocks {
        match rules.role(&block.paths()) {
            Role::Test => {
                test_patch.extend_from_slice(&block.bytes);
                tests.push(block.path().to_string());
            }
            Role::Source => {
                patch.extend_from_slice(&block.bytes);
                sources.push(block.path().to_string());
            }
            Role::Dropped => dropped.push(block.path().to_string()),
        }
    }
    let listing = |files: &[String]| {
        if files.is_empty() {
            "nothing".to_string()
        } else if files.len() > 8 {
            format!("{} and {} more", files[..8].join(", "), files.len() - 8)
        } else {
            files.join(", ")
        }
    };
    let all: Vec<String> = blocks.iter().map(|b| b.path().to_string()).collect();
    if tests.is_empty() {
        return Err(format!(
            "{target} ({}) has no test changes: it changes {}. By the split rules, {}; pass --test GLOB to count other files as tests",
            located.how,
            listing(&all),
            rules.describe
        ));
    }
    if sources.is_empty() {
        return Err(format!(
            "{target} ({}) has no source changes: it changes {}. By the split rules, {}; pass --source GLOB to count other files as source",
            located.how,
            listing(&all),
            rules.describe
        ));
    }
    let text = |bytes: Vec<u8>, what: &str| {
        String::from_utf8(bytes)
            .map_err(|_| format!("{target}: the {what} is not UTF-8 text even after re-diffing as binary"))
    };
    let patch = text(patch, "gold patch")?;
    let test_patch = text(test_patch, "test patch")?;
    let mut extra = serde_json::Map::new();
    if let Some(n) = located.pull_number {
        extra.insert("pull_number".into(), json!(n));
    }
    extra.insert("hints_text".into(), json!(""));
    extra.insert("created_at".into(), json!(iso8601_utc(located.landed.committer_time)));
    extra.insert("environment_setup_commit".into(), json!(located.base));
    extra.insert(
        "collected".into(),
        json!({
            "how": located.how,
            "head": located.head,
            "source_files": sources,
            "test_files": tests,
            "dropped": dropped,
        }),
    );
    Ok(Instance {
        instance_id: id,
        repo: repo.to_string(),
        base_commit: located.base.clone(),
        patch,
        test_patch,
        problem_statement: located.landed.message.trim_end().to_string(),
        version,
        fail_to_pass: Vec::new(),
        pass_to_pass: Vec::new(),
        harness: None,
        extra,
    })
}

fn compile_patterns(spec: &CollectSpec, path: Option<String>) -> Result<Vec<regex::Regex>, CollectError> {
    spec.version_patterns
        .iter()
        .map(|p| {
            regex::Regex::new(p).map_err(|e| {
                CollectError::Setup(format!(
                    "harness spec {}: [collect] version_patterns has an invalid regular expression {p:?}: {e}",
                    path.as_deref().unwrap_or("?")
                ))
            })
        })
        .collect()
}

/// The version at `base` by the spec's rule (module doc).
fn version_of(
    git: &Git,
    base: &str,
    spec: &CollectSpec,
    patterns: &[regex::Regex],
) -> Result<Option<String>, GitError> {
    for file in &spec.version_files {
        let Some(bytes) = git.blob(base, file)? else { continue };
        let text = String::from_utf8_lossy(&bytes);
        for re in patterns {
            let Some(caps) = re.captures(&text) else { continue };
            let joined: Vec<&str> = if caps.len() > 1 {
                caps.iter().skip(1).flatten().map(|m| m.as_str()).collect()
            } else {
                vec![caps.get(0).map_or("", |m| m.as_str())]
            };
            let version = normalize_version(&joined.join("."), spec.version_components.unwrap_or(2));
            if !version.is_empty() {
                return Ok(Some(version));
            }
        }
    }
    if !spec.version_tags.is_empty() {
        let mut args = vec!["describe", "--tags", "--abbrev=0"];
        for glob in &spec.version_tags {
            args.extend(["--match", glob.as_str()]);
        }
        args.push(base);
        // No matching tag below the base is no version, not an error.
        if let Ok(out) = git.run(&args) {
            let version = normalize_version(String::from_utf8_lossy(&out).trim(), spec.version_components.unwrap_or(2));
            if !version.is_empty() {
                return Ok(Some(version));
            }
        }
    }
    Ok(spec.version_default.clone())
}

/// Digits and dots only, first `components` parts: `v4.45.0-rc1` → `4.45`.
pub fn normalize_version(raw: &str, components: usize) -> String {
    let digits: String = raw.chars().filter(|c| c.is_ascii_digit() || *c == '.').collect();
    digits.split('.').filter(|p| !p.is_empty()).take(components.max(1)).collect::<Vec<_>>().join(".")
}

/// SWE-bench's `environment_setup_commit`: per version, the base commit of the newest instance.
fn set_environment_setup_commits(instances: &mut [Instance]) {
    let mut newest: BTreeMap<Option<String>, (String, String)> = BTreeMap::new();
    for i in instances.iter() {
        let created = i.extra.get("created_at").and_then(Value::as_str).unwrap_or("").to_string();
        let entry = newest.entry(i.version.clone()).or_insert_with(|| (created.clone(), i.base_commit.clone()));
        if created > entry.0 {
            *entry = (created, i.base_commit.clone());
        }
    }
    for i in instances.iter_mut() {
        if let Some((_, commit)) = newest.get(&i.version) {
            i.extra.insert("environment_setup_commit".into(), json!(commit));
        }
    }
}
