//! `verdict collect`: task instances from a local repository's PRs or commits (rules in
//! [`crate::dataset::collect`]).

use std::path::PathBuf;

use clap::Args;

use super::common;
use super::error::{Error, Result};
use super::exit;
use crate::dataset::collect::git::Git;
use crate::dataset::collect::split::SplitConfig;
use crate::dataset::collect::{collect, CollectError, Options, Target};
use crate::dataset::repo::RepoStore;
use crate::dataset::spec::SpecRegistry;
use crate::dataset::write_instances_jsonl;

#[derive(Debug, Clone, Args)]
pub struct CollectArgs {
    /// The repository, as `owner/name` (instance ids become `owner__name-N`).
    #[arg(long, value_name = "OWNER/NAME")]
    pub repo: String,
    /// The repository's git directory or work tree. Default: found in the --repos folders
    /// (owner__name.git, owner__name.bundle, owner__name/ or owner/name/), else cloned from GitHub.
    #[arg(long, value_name = "DIR")]
    pub git: Option<PathBuf>,
    /// A folder of local repositories, as for the other commands. Repeatable.
    #[arg(long, value_name = "DIR")]
    pub repos: Vec<PathBuf>,
    /// Never clone from GitHub.
    #[arg(long)]
    pub no_clone: bool,
    /// PR numbers (comma-separated or repeated).
    #[arg(long = "pr", value_name = "N", value_delimiter = ',')]
    pub prs: Vec<u64>,
    /// Commits against their first parent, or ranges BASE..HEAD (comma-separated or repeated).
    #[arg(long = "commit", value_name = "SHA|A..B", value_delimiter = ',')]
    pub commits: Vec<String>,
    /// Where to write the instances (JSONL). Default: <logs>/collect/<owner>__<name>.jsonl.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The language whose split rules apply (harness/collect.toml). Default: the spec's.
    #[arg(long, value_name = "LANGUAGE")]
    pub language: Option<String>,
    /// The `version` of every instance. Default: the spec's [collect] version rule.
    #[arg(long, value_name = "V")]
    pub version: Option<String>,
    /// Files matching this glob go into the test patch, before every other rule. Repeatable.
    #[arg(long = "test", value_name = "GLOB")]
    pub test_globs: Vec<String>,
    /// Files matching this glob go into the gold patch, before the test rules. Repeatable.
    #[arg(long = "source", value_name = "GLOB")]
    pub source_globs: Vec<String>,
    /// A folder of extra harness spec files, as for the other commands. Repeatable.
    #[arg(long, value_name = "DIR")]
    pub specs: Vec<PathBuf>,
    /// Root of output and of the repository cache.
    #[arg(long, default_value = "logs", value_name = "DIR")]
    pub logs: PathBuf,
}

pub fn run(args: CollectArgs) -> Result<i32> {
    let mut targets: Vec<Target> = args.prs.iter().map(|&n| Target::Pr(n)).collect();
    targets.extend(args.commits.iter().map(|c| Target::Commit(c.trim().to_string())));
    if targets.is_empty() {
        return Err(Error::bad_input("give the PRs to collect with --pr N,... or commits with --commit SHA|A..B"));
    }
    let slug = RepoStore::slug(&args.repo).map_err(|e| Error::bad_input(e.to_string()))?;
    let dir = match &args.git {
        Some(dir) => dir.clone(),
        None => RepoStore::new(args.repos.clone(), args.logs.join(".cache"), !args.no_clone)
            .repository(&args.repo)
            .map_err(|e| Error::bad_input(e.to_string()))?,
    };
    let git =
        Git::open(&dir).map_err(|e| Error::bad_input(format!("{} is not a git repository: {e}", dir.display())))?;
    let harness = common::harness_dir();
    let specs = SpecRegistry::load(&harness, &args.specs)?;
    let split = SplitConfig::load(&harness.join("collect.toml")).map_err(Error::bad_input)?;
    let options = Options {
        repo: args.repo.clone(),
        targets,
        language: args.language.clone(),
        version: args.version.clone(),
        test_globs: args.test_globs.clone(),
        source_globs: args.source_globs.clone(),
    };
    let outcome = collect(&git, &specs, &split, &options).map_err(|e| match e {
        CollectError::Setup(m) => Error::bad_input(m),
        CollectError::Git(g) => Error::Internal(g.to_string()),
    })?;

    let output = args.output.clone().unwrap_or_else(|| args.logs.join("collect").join(format!("{slug}.jsonl")));
    if let Some(parent) = output.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
    }
    write_instances_jsonl(&output, &outcome.instances)?;
    let summary = output.with_extension("summary.json");
    common::write_json(&summary, &outcome.results)?;

    for r in &outcome.results {
        let label = r.instance_id.as_deref().unwrap_or(&r.target);
        if r.ok {
            println!("{label:<40} collected: {}", r.message);
        } else {
            println!("{label:<40} FAILED: {}", r.message);
        }
        for note in &r.notes {
            println!("{:<40}   note: {note}", "");
        }
    }
    let failed = outcome.results.iter().filter(|r| !r.ok).count();
    println!(
        "\n{} of {} target(s) collected into {}; summary: {}",
        outcome.instances.len(),
        outcome.results.len(),
        output.display(),
        summary.display()
    );
    if failed > 0 {
        println!("{failed} target(s) failed; the others were written");
        return Ok(exit::SOME_FAILED);
    }
    Ok(exit::OK)
}
