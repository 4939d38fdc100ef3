//! Running evaluations. One evaluation ([`execute`]): build (or reuse) the instance's images,
//! render the eval script, run it through the execution backend, save everything it produced,
//! and parse the test output. The result is a [`RawOutcome`]: what happened (the script's
//! markers, what the backend saw of the job, the parse of the test output), with nothing
//! decided. The decide stage ([`crate::grade::decide`]) turns it into an evaluation outcome, a
//! validation stage result or a check-envs verdict.
//!
//! Around it: [`session`] opens a run (its folder, lock, signals, backend, and the sweep of
//! what an earlier process of it left), [`scheduler`] runs its jobs `-j` at a time, [`backend`]
//! is the execution seam and [`docker`] its Docker engine implementation, [`output`] bounds
//! what is kept of a job's console. The async runtime lives here too ([`block_on`]): the
//! command line sees neither tokio nor bollard.

pub mod apply_only;
pub mod backend;
pub mod clean;
pub use crate::dataset::clock;
pub mod docker;
pub mod evaluation;
pub mod output;
pub mod runner_config;
pub mod scheduler;
pub mod script;
pub mod session;
pub mod signals;
pub mod swarm;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::dataset::repo::GitSnapshot;
use crate::dataset::spec::{LanguageSpec, SpecEntry, SpecRegistry};
use crate::dataset::Instance;
use crate::grade::{Execution, JobFacts, RawOutcome, Rules, RunLimits};
use crate::images::build::{Builder, ImageError};
use crate::images::toolchain;
use crate::images::{merged_env, InstanceImages, Planner};
use crate::parse;
use backend::{Backend, ExecError, Job, Limits};
use clock::ClockSetting;
use output::OutputSpec;
use runner_config::{ConfigPlan, Runner};
use script::ScriptInput;

/// Runs `future` to its end on a fresh multi-threaded runtime.
pub fn block_on<F: std::future::Future>(future: F) -> std::io::Result<F::Output> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    Ok(runtime.block_on(future))
}

/// Seconds added to the test timeout for applying patches and collecting reports, after which
/// the container is killed.
const DEADLINE_GRACE: Duration = Duration::from_secs(120);
/// Test timeout when neither the command line nor the spec sets one.
pub const DEFAULT_TIMEOUT_SECS: u64 = 1800;

/// Shared by every evaluation of a run.
pub struct Context {
    pub backend: Arc<dyn Backend>,
    pub builder: Arc<Builder>,
    pub planner: Planner,
    pub specs: SpecRegistry,
    pub limits: Limits,
    /// `--timeout`, which wins over the spec's.
    pub timeout_override: Option<u64>,
    /// Bytes of a job's console output kept (head and tail; see [`output`]).
    pub max_output: usize,
    pub run_id: String,
    /// `--clock`: the clock the tests see.
    pub clock: ClockSetting,
    /// The grading rules the run's decisions follow.
    pub rules: Rules,
}

/// An instance's spec and images, resolved.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub entry: SpecEntry,
    pub language: LanguageSpec,
    pub images: InstanceImages,
}

/// Resolves the spec (inline, else by repository and version) and plans the images. The error
/// says what to add.
pub fn prepare(ctx: &Context, instance: &Instance) -> Result<Prepared, String> {
    plan(&ctx.specs, &ctx.planner, instance)
}

/// [`prepare`] without a run: what `verdict build` needs.
pub fn plan(specs: &SpecRegistry, planner: &Planner, instance: &Instance) -> Result<Prepared, String> {
    let (entry, language) = specs.resolve(instance).map_err(|e| e.to_string())?;
    let images = planner.plan(instance, &entry, &language).map_err(|e| e.to_string())?;
    Ok(Prepared { entry, language, images })
}

/// Runs the tests of `instance` with `candidate` applied (or with the test patch alone when
/// `None`), writing `eval.sh`, `output.txt`, `test_output.txt` and the collected reports under
/// `out_dir`. Returns what happened and decides nothing ([`crate::grade::decide`] does).
pub async fn execute(
    ctx: &Context,
    prepared: &Prepared,
    instance: &Instance,
    candidate: Option<&str>,
    out_dir: &Path,
) -> RawOutcome {
    run_script(ctx, prepared, instance, candidate, out_dir, false).await
}

/// Applies `candidate` with the eval script's own apply chain in a container from the instance
/// image, and stops: no test patch, no tests. The script's `APPLY` line (in the outcome's
/// script facts) says which step applied it, if any. Writes `eval.sh` and `output.txt`.
pub async fn execute_apply_only(
    ctx: &Context,
    prepared: &Prepared,
    instance: &Instance,
    candidate: &str,
    out_dir: &Path,
) -> RawOutcome {
    run_script(ctx, prepared, instance, Some(candidate), out_dir, true).await
}

async fn run_script(
    ctx: &Context,
    prepared: &Prepared,
    instance: &Instance,
    candidate: Option<&str>,
    out_dir: &Path,
    apply_only: bool,
) -> RawOutcome {
    let timeout_secs = ctx.timeout_override.or(prepared.entry.timeout).unwrap_or(DEFAULT_TIMEOUT_SECS);
    let memory_gib = ctx.limits.memory_bytes as f64 / (1024.0 * 1024.0 * 1024.0);
    let mut raw = RawOutcome::new(candidate.is_some(), RunLimits { timeout_secs, memory_gib });
    let built = match ctx.builder.ensure(&prepared.images).await {
        Ok(built) => built,
        Err(ImageError::Build(failure)) => {
            let log = failure.log.as_ref().map(|p| p.display().to_string());
            raw.execution = Execution::BuildFailed { reason: failure.to_string(), log };
            raw.toolchains = toolchain::records(&prepared.images.toolchains, &[]);
            return raw;
        }
        // The engine, not the image, failed (it may be gone): never `build_failed`.
        Err(ImageError::Engine(e)) => {
            raw.execution = Execution::EngineFailed { reason: e.to_string() };
            return raw;
        }
    };
    raw.image_bytes = Some(built.size_bytes);
    raw.image_layers = built.layers.clone();
    let installed = ctx.builder.installed_toolchains(&prepared.images.base).await;
    raw.toolchains = toolchain::records(&prepared.images.toolchains, &installed);
    let nonce = format!("{:016x}{:016x}", rand::random::<u64>(), rand::random::<u64>());
    let env = merged_env(&prepared.language, &prepared.entry);
    let clock = match ctx.clock.for_instance(instance) {
        Ok(clock) => clock,
        Err(reason) => {
            raw.execution = Execution::EngineFailed { reason };
            return raw;
        }
    };
    // Reading the base commit's configuration files runs git: off the async workers' toes. An
    // apply-only run stops before the tests, so it has no configuration to reset.
    let config = match (candidate, Runner::of(prepared.entry.log_parser)) {
        (Some(patch), Some(runner)) if !apply_only => tokio::task::block_in_place(|| {
            let base = GitSnapshot {
                store: ctx.builder.repos(),
                repo: instance.repo.clone(),
                commit: instance.base_commit.clone(),
            };
            runner_config::plan(runner, &prepared.entry.test_cmd, patch, &base)
        }),
        _ => ConfigPlan::default(),
    };
    let rendered = script::render(&ScriptInput {
        title: format!("{} (run {})", instance.instance_id, ctx.run_id),
        candidate,
        test_patch: &instance.test_patch,
        entry: &prepared.entry,
        language: &prepared.language,
        env: &env,
        timeout_secs,
        nonce: &nonce,
        apply_only,
        config: &config,
        clock: clock.epoch(),
    });
    raw.test_args = rendered.test_args.clone();
    let mut files = Vec::new();
    let mut save = |name: &str, bytes: &[u8]| {
        let path = out_dir.join(name);
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        match std::fs::write(&path, bytes) {
            Ok(()) => files.push(name.to_string()),
            Err(e) => tracing::warn!("cannot write {}: {e}", path.display()),
        }
    };
    save("eval.sh", rendered.script.as_bytes());

    let job = Job {
        image: prepared.images.instance.tag.clone(),
        script: rendered.script.clone(),
        inputs: rendered.inputs.clone(),
        limits: ctx.limits,
        deadline: if apply_only { DEADLINE_GRACE } else { Duration::from_secs(timeout_secs) + DEADLINE_GRACE },
        output: OutputSpec { path: out_dir.join("output.txt"), limit_bytes: ctx.max_output },
        nonce: nonce.clone(),
    };
    let output = match ctx.backend.run(job).await {
        Ok(output) => output,
        // The run is being stopped: this evaluation has no result, and the scheduler drops it.
        Err(ExecError::Cancelled) => std::future::pending().await,
        Err(e) => {
            raw.execution = Execution::EngineFailed { reason: e.to_string() };
            raw.files = files;
            return raw;
        }
    };
    let seen = script::read_output(&output.output.text, &nonce);
    if !apply_only {
        save("test_output.txt", seen.test_output.as_bytes());
    }
    for report in &output.files {
        save(&format!("reports/{}", report.name), &report.bytes);
    }
    // The backend streamed the console to output.txt.
    files.push("output.txt".to_string());

    raw.cpu_secs = seen.cpu_secs;
    raw.guards = script::guards(&config, &seen);
    raw.node = output.node.clone();
    raw.notes = output.notes.clone();
    raw.execution = Execution::Ran {
        script: seen.facts(),
        job: JobFacts {
            container_exit_code: output.exit_code,
            killed_at_deadline: output.killed_at_deadline,
            oom_killed: output.oom_killed,
            wall_secs: output.wall.as_secs_f64(),
        },
    };
    if seen.tests_started {
        raw.parsed =
            Some(parse::parse(prepared.entry.log_parser, &seen.test_output, &output.files).map_err(|e| e.to_string()));
    }
    raw.files = files;
    raw
}

/// The folder an instance's files go to: `logs/<run_id>/<model>/<instance_id>/`.
pub fn instance_dir(log_root: &Path, run_id: &str, model: &str, instance_id: &str) -> PathBuf {
    log_root.join(safe_component(run_id)).join(safe_component(model)).join(safe_component(instance_id))
}

/// A name usable as one path component (`/` in model names becomes `__`).
pub fn safe_component(name: &str) -> String {
    let cleaned: String =
        name.replace('/', "__").chars().map(|c| if c.is_control() || c == '\\' { '_' } else { c }).collect();
    match cleaned.as_str() {
        "" | "." | ".." => format!("_{cleaned}"),
        _ => cleaned,
    }
}
