//! The command line: clap definitions, and one module per command. `main.rs` only parses,
//! calls [`run`] and exits with the code it returns ([`exit`] documents them).

mod apply_only;
mod build;
mod check_envs;
mod clean;
mod collect;
mod common;
mod compare;
pub mod error;
mod evaluate;
pub mod exit;
mod localize;
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
    /// Build task instances from a local repository's PRs or commits: find each PR, split its
    /// diff into gold and test patch, and write a dataset for `verdict validate`.
    Collect(collect::CollectArgs),
    /// Remove the containers verdict owns (all of them, or one run's), by label.
    Clean(clean::CleanArgs),
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
    #[arg(short = 'j', long, value_name = "N", value_parser = positive::<usize>)]
    pub workers: Option<usize>,
    /// Test timeout in seconds (wins over the spec's `timeout`; default 1800).
    #[arg(long, value_name = "SECS", value_parser = positive::<u64>)]
    pub timeout: Option<u64>,
    /// Memory limit of an evaluation container, in GiB.
    #[arg(long, default_value_t = 4.0, value_name = "GIB", value_parser = positive_f64)]
    pub memory: f64,
    /// CPUs of an evaluation container.
    #[arg(long, default_value_t = 1.0, value_name = "N", value_parser = positive_f64)]
    pub cpus: f64,
    /// Process limit of an evaluation container.
    #[arg(long, default_value_t = 2048, value_name = "N", value_parser = positive::<i64>)]
    pub pids: i64,
    /// The clock the tests see: `real`, `created_at` (each instance's), or a date
    /// (`2019-11-28`, noon UTC; `2019-11-28T10:00:00Z`). A pinned clock starts at that instant
    /// and runs on; use the same one for validate and evaluate.
    #[arg(long, default_value = "real", value_name = "real|created_at|DATE")]
    pub clock: crate::dataset::clock::ClockSetting,
    /// Output kept of one evaluation, in MiB: beyond it, the middle of the output is left out
    /// of output.txt and the console parse (with a note); structured reports are not affected.
    #[arg(long, default_value_t = crate::run::output::DEFAULT_LIMIT_MIB as f64, value_name = "MIB", value_parser = positive_f64)]
    pub max_output: f64,
    /// How long an engine that stopped answering mid-run is waited for (no new work starts
    /// meanwhile) before the run stops.
    #[arg(long, default_value_t = 300, value_name = "SECS")]
    pub engine_wait: u64,
    /// Where evaluations run: `docker`, containers on the engine at DOCKER_HOST; `swarm`,
    /// Swarm services on the swarm whose manager DOCKER_HOST names (needs --registry).
    #[arg(long, value_enum, default_value_t = BackendKind::Docker)]
    pub backend: BackendKind,
    /// The registry (HOST:PORT) instance images are pushed to for the swarm's nodes.
    #[arg(long, value_name = "HOST:PORT", env = "VERDICT_REGISTRY")]
    pub registry: Option<String>,
    /// With --backend swarm: also reserve each job's memory and CPUs on its node. Only for
    /// engines with the fix for moby/moby#52652 (older ones count finished jobs' reservations
    /// forever and end up refusing every job).
    #[arg(long)]
    pub swarm_reserve: bool,
    #[command(flatten)]
    pub grading: GradeArgs,
    #[command(flatten)]
    pub images: ImageArgs,
}

/// Where evaluations run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendKind {
    Docker,
    Swarm,
}

/// How runs are graded.
#[derive(Debug, Clone, Args)]
pub struct GradeArgs {
    /// How an XPASS (a test marked as expected to fail that passed) grades: `not-regression`
    /// counts it as a pass of a PASS_TO_PASS test (never of a FAIL_TO_PASS one); `fail` never
    /// counts it as a pass.
    #[arg(long, default_value = "not-regression", value_name = "RULE")]
    pub xpass: crate::grade::XpassRule,
}

impl GradeArgs {
    pub fn rules(&self) -> crate::grade::Rules {
        crate::grade::Rules { xpass: self.xpass }
    }
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
    #[arg(long, default_value_t = 3600, value_name = "SECS", value_parser = positive::<u64>)]
    pub build_timeout: u64,
    /// Whether a spec's toolchain version may come from its official image (python:3.9-slim):
    /// `auto` pulls --os-pull once to see whether a registry answers; `no` uses only the
    /// offline providers (Debian suites, the npm registry, Maven Central, the Go module proxy,
    /// rustup).
    #[arg(long, value_enum, default_value_t = RegistryUse::Auto)]
    pub official_images: RegistryUse,
}

/// `--official-images`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RegistryUse {
    Auto,
    Yes,
    No,
}

/// A whole number of at least 1 (clap exits with code 2 and names the flag otherwise).
fn positive<T: std::str::FromStr + PartialOrd + From<u8>>(text: &str) -> Result<T, String> {
    match text.trim().parse::<T>() {
        Ok(n) if n >= T::from(1) => Ok(n),
        _ => Err("must be a whole number of at least 1".into()),
    }
}

/// A number greater than 0.
fn positive_f64(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n > 0.0 => Ok(n),
        _ => Err("must be a number greater than 0".into()),
    }
}

/// Runs the parsed command; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    let result = crate::run::block_on(async {
        match cli.command {
            Command::Evaluate(args) => evaluate::run(args).await,
            Command::Validate(args) => validate::run(args).await,
            Command::CheckEnvs(args) => check_envs::run(args).await,
            Command::Build(args) => build::run(args).await,
            Command::Report(args) => regrade::run(args),
            Command::Localize(args) => localize::run(args),
            Command::Collect(args) => collect::run(args),
            Command::Clean(args) => clean::run(args).await,
            Command::Compare(args) => compare::run(args),
        }
    });
    let result = match result {
        Ok(result) => result,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return exit::INTERNAL;
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code()
        }
    }
}
