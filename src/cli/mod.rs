//! The command line: clap definitions, and one module per command. `main.rs` only parses,
//! calls [`run`] and exits with the code it returns ([`exit`] documents them).

mod apply_only;
mod build;
mod check_envs;
mod common;
mod compare;
mod evaluate;
pub mod exit;
mod localize;
mod output;
mod predictions;
mod regrade;
mod validate;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Decides, by running them, whether code changes really resolve GitHub issues.
#[derive(Debug, Parser)]
#[command(name = "verdict", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Score repair submissions: apply each candidate patch, run the tests, grade, report.
    /// With no --dataset, runs the bundled demo and its bundled predictions.
    Evaluate(evaluate::EvaluateArgs),
    /// Check new task instances: run the tests with the test patch alone, then with the gold
    /// patch, --repeat times each; derive FAIL_TO_PASS/PASS_TO_PASS and write a completed dataset.
    Validate(validate::ValidateArgs),
    /// Rebuild the images and run each instance's gold patch: does the environment still build,
    /// and does every FAIL_TO_PASS and PASS_TO_PASS test still grade as the dataset says?
    CheckEnvs(check_envs::CheckEnvsArgs),
    /// Build the images of a dataset's instances, and nothing else.
    Build(build::BuildArgs),
    /// Regrade a finished run from its saved logs, without running anything.
    Report(regrade::ReportArgs),
    /// Localization scores from patches (or ranked location lists), with no Docker.
    Localize(localize::LocalizeArgs),
    /// Finished runs side by side (run ids, run or model folders, or summary.json files):
    /// resolve and apply rates, cost and localization per model, by language, repository,
    /// patch scope and images, as a table, Markdown, CSV or JSON, and optionally HTML.
    Compare(compare::CompareArgs),
}

/// Where the dataset and its repositories and specs come from.
#[derive(Debug, Clone, Args)]
pub struct DatasetArgs {
    /// Task instances: a JSON array, JSONL, or an object keyed by instance_id. Default: the
    /// bundled demo (harness/demo/dataset.jsonl).
    #[arg(long, value_name = "FILE")]
    pub dataset: Option<PathBuf>,
    /// Only these instances (comma-separated or repeated).
    #[arg(long, value_name = "IDS", value_delimiter = ',')]
    pub instance_ids: Vec<String>,
    /// A folder of local repositories: git bundles (owner__name.bundle), bare mirrors
    /// (owner__name.git) or checkouts (owner__name/ or owner/name/). Repeatable. Without one,
    /// repositories are cloned from GitHub. Default with the demo: harness/demo/repos.
    #[arg(long, value_name = "DIR")]
    pub repos: Vec<PathBuf>,
    /// Never clone from GitHub; every repository must be in a --repos folder.
    #[arg(long)]
    pub no_clone: bool,
    /// A folder of extra harness spec files (*.toml), added to the built-in ones in
    /// harness/specs. Repeatable.
    #[arg(long, value_name = "DIR")]
    pub specs: Vec<PathBuf>,
}

/// How evaluation containers run.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Names this run; output goes to <logs>/<run-id>/. Rerunning a run id reuses every
    /// finished instance whose patch is unchanged. Default: `demo` for the bundled demo, else the
    /// dataset file's name.
    #[arg(long, value_name = "ID")]
    pub run_id: Option<String>,
    /// Instances evaluated at once. Default: the number of CPUs divided by --cpus.
    #[arg(short = 'j', long, value_name = "N")]
    pub workers: Option<usize>,
    /// Test timeout in seconds (wins over the spec's `timeout`; default 1800).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<u64>,
    /// Memory limit of an evaluation container, in GiB.
    #[arg(long, default_value_t = 4.0, value_name = "GIB")]
    pub memory: f64,
    /// CPUs of an evaluation container.
    #[arg(long, default_value_t = 1.0, value_name = "N")]
    pub cpus: f64,
    /// Process limit of an evaluation container.
    #[arg(long, default_value_t = 2048, value_name = "N")]
    pub pids: i64,
    #[command(flatten)]
    pub images: ImageArgs,
}

/// How images are built.
#[derive(Debug, Clone, Args)]
pub struct ImageArgs {
    /// Root of run output (per-instance logs, reports, build logs, repository cache).
    #[arg(long, default_value = "logs", value_name = "DIR")]
    pub logs: PathBuf,
    /// The base OS image the language layers start from.
    #[arg(long, default_value = "verdict-os:bookworm", value_name = "IMAGE", env = "VERDICT_OS_IMAGE")]
    pub os_image: String,
    /// Pulled and tagged as --os-image when that image is missing and a registry answers.
    #[arg(long, default_value = "debian:bookworm-slim", value_name = "IMAGE")]
    pub os_pull: String,
    /// Folder of CA certificates (*.crt) copied into every base image, for builds behind a
    /// TLS-intercepting proxy.
    #[arg(long, default_value = "/usr/local/share/ca-certificates", value_name = "DIR")]
    pub ca_certs: PathBuf,
    /// Seconds one image build may take.
    #[arg(long, default_value_t = 3600, value_name = "SECS")]
    pub build_timeout: u64,
}

/// Runs the parsed command; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return exit::INTERNAL;
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Evaluate(args) => evaluate::run(args).await,
            Command::Validate(args) => validate::run(args).await,
            Command::CheckEnvs(args) => check_envs::run(args).await,
            Command::Build(args) => build::run(args).await,
            Command::Report(args) => regrade::run(args),
            Command::Localize(args) => localize::run(args),
            Command::Compare(args) => compare::run(args),
        }
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            e.downcast_ref::<common::Failure>().map_or(exit::INTERNAL, |f| f.code)
        }
    }
}
