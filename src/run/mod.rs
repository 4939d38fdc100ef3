//! Running one evaluation: build (or reuse) the instance's images, render the eval script, run
//! it through the execution backend, save everything it produced, and parse the test output.
//!
//! The result is a [`RunRecord`]: what happened, in terms a grader can use. Deciding the
//! outcome from it is the caller's job (evaluate, validate and check-envs decide differently).

pub mod apply_only;
pub mod backend;
pub mod evaluation;
pub mod script;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::dataset::spec::{LanguageSpec, SpecEntry, SpecRegistry};
use crate::dataset::Instance;
use crate::images::build::{BuildFailure, Builder};
use crate::images::{merged_env, InstanceImages, Planner};
use crate::parse::{self, ParsedTests};
use backend::{DockerBackend, Job, Limits};
use script::ScriptInput;

/// Seconds added to the test timeout for applying patches and collecting reports, after which
/// the container is killed.
const DEADLINE_GRACE: Duration = Duration::from_secs(120);
/// Test timeout when neither the command line nor the spec sets one.
pub const DEFAULT_TIMEOUT_SECS: u64 = 1800;

/// Shared by every evaluation of a run.
pub struct Context {
    pub backend: DockerBackend,
    pub builder: Arc<Builder>,
    pub planner: Planner,
    pub specs: SpecRegistry,
    pub limits: Limits,
    /// `--timeout`, which wins over the spec's.
    pub timeout_override: Option<u64>,
    pub run_id: String,
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
    let (entry, language) = resolve_spec(specs, instance)?;
    let images = planner.plan(instance, &entry, &language).map_err(|e| e.to_string())?;
    Ok(Prepared { entry, language, images })
}

/// The spec entry of an instance (its inline `harness` merged over the spec entry of its
/// repository and version) and its language's defaults.
pub fn resolve_spec(specs: &SpecRegistry, instance: &Instance) -> Result<(SpecEntry, LanguageSpec), String> {
    let entry = specs
        .entry_with_inline(&instance.repo, instance.version.as_deref(), instance.harness.as_ref())
        .map_err(|e| format!("instance {}: its harness spec is not usable: {e}", instance.instance_id))?
        .ok_or_else(|| {
            format!(
                "no harness spec for repository {} (version {}): add harness/specs/{}.toml, pass --specs DIR, or give the instance a `harness` field",
                instance.repo,
                instance.version.as_deref().unwrap_or("unset"),
                instance.repo.replace('/', "__")
            )
        })?;
    let language = specs.language(&entry.language).cloned().ok_or_else(|| {
        format!(
            "instance {}: unknown language {:?}; add harness/languages/{}.toml",
            instance.instance_id, entry.language, entry.language
        )
    })?;
    Ok((entry, language))
}

/// How a run ended, before grading.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunStatus {
    BuildFailed {
        failure: BuildFailure,
    },
    /// No step of the apply chain applied the candidate.
    ApplyFailed,
    /// The test patch did not apply after the test files were restored.
    TestPatchFailed,
    /// The test command hit its timeout, or the container its deadline.
    Timeout {
        secs: u64,
    },
    /// The container ran but the script did not get to the end, or the engine failed.
    Crashed {
        reason: String,
    },
    /// The tests ran; see `parsed`.
    Ran,
}

/// Everything one evaluation produced.
#[derive(Debug, Clone, Serialize)]
pub struct RunRecord {
    pub status: RunStatus,
    pub apply_step: Option<String>,
    pub exit_code: Option<i64>,
    #[serde(skip)]
    pub parsed: Option<Result<ParsedTests, String>>,
    pub test_args: Vec<String>,
    pub wall_secs: f64,
    pub cpu_secs: Option<f64>,
    pub image_bytes: Option<u64>,
    /// The instance image's layers, for counting shared layers once.
    pub image_layers: Vec<crate::images::layers::LayerSize>,
    /// Files written to the output folder, relative to it.
    pub files: Vec<String>,
}

impl RunRecord {
    fn failed(status: RunStatus) -> Self {
        Self {
            status,
            apply_step: None,
            exit_code: None,
            parsed: None,
            test_args: Vec::new(),
            wall_secs: 0.0,
            cpu_secs: None,
            image_bytes: None,
            image_layers: Vec::new(),
            files: Vec::new(),
        }
    }
}

/// Runs the tests of `instance` with `candidate` applied (or with the test patch alone when
/// `None`), writing `eval.sh`, `output.txt`, `test_output.txt` and the collected reports under
/// `out_dir`.
pub async fn execute(
    ctx: &Context,
    prepared: &Prepared,
    instance: &Instance,
    candidate: Option<&str>,
    out_dir: &Path,
) -> RunRecord {
    run_script(ctx, prepared, instance, candidate, out_dir, false).await
}

/// Applies `candidate` with the eval script's own apply chain in a container from the instance
/// image, and stops: no test patch, no tests. The record's status is `Ran` when a step applied
/// it (see `apply_step`), `ApplyFailed` when none did. Writes `eval.sh` and `output.txt`.
pub async fn execute_apply_only(
    ctx: &Context,
    prepared: &Prepared,
    instance: &Instance,
    candidate: &str,
    out_dir: &Path,
) -> RunRecord {
    run_script(ctx, prepared, instance, Some(candidate), out_dir, true).await
}

async fn run_script(
    ctx: &Context,
    prepared: &Prepared,
    instance: &Instance,
    candidate: Option<&str>,
    out_dir: &Path,
    apply_only: bool,
) -> RunRecord {
    let built = match ctx.builder.ensure(&prepared.images).await {
        Ok(built) => built,
        Err(failure) => return RunRecord::failed(RunStatus::BuildFailed { failure }),
    };
    let timeout_secs = ctx.timeout_override.or(prepared.entry.timeout).unwrap_or(DEFAULT_TIMEOUT_SECS);
    let nonce = format!("{:016x}{:016x}", rand::random::<u64>(), rand::random::<u64>());
    let env = merged_env(&prepared.language, &prepared.entry);
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
    });
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
        run_id: ctx.run_id.clone(),
    };
    let output = match ctx.backend.run(&job).await {
        Ok(output) => output,
        Err(e) => {
            let mut record = RunRecord::failed(RunStatus::Crashed { reason: e.to_string() });
            record.files = files;
            return record;
        }
    };
    let text = String::from_utf8_lossy(&output.output).into_owned();
    save("output.txt", text.as_bytes());
    let seen = script::read_output(&text, &nonce);
    if !apply_only {
        save("test_output.txt", seen.test_output.as_bytes());
    }
    for report in &output.files {
        save(&format!("reports/{}", report.name), &report.bytes);
    }

    let mut record = RunRecord {
        status: RunStatus::Ran,
        apply_step: seen.apply_step.clone().filter(|s| s != "none"),
        exit_code: seen.exit_code,
        parsed: None,
        test_args: rendered.test_args.clone(),
        wall_secs: output.wall.as_secs_f64(),
        cpu_secs: seen.cpu_secs,
        image_bytes: Some(built.size_bytes),
        image_layers: built.layers.clone(),
        files: Vec::new(),
    };
    // `timeout` exits 124 (137 after its kill); a test command killed for another reason (the
    // OOM killer also gives 137) before the timeout is not a timeout.
    let ran_out_of_time = output.wall.as_secs() >= timeout_secs;
    record.status = if candidate.is_some() && seen.apply_step.as_deref().is_none_or(|s| s == "none") {
        if seen.apply_step.is_some() {
            RunStatus::ApplyFailed
        } else {
            RunStatus::Crashed { reason: crash_reason(&output, "before the candidate patch was applied") }
        }
    } else if apply_only {
        if seen.finished {
            RunStatus::Ran
        } else {
            RunStatus::Crashed { reason: crash_reason(&output, "after the candidate patch was applied") }
        }
    } else if seen.test_patch_applied == Some(false) {
        RunStatus::TestPatchFailed
    } else if output.killed_at_deadline || (matches!(seen.exit_code, Some(124) | Some(137)) && ran_out_of_time) {
        RunStatus::Timeout { secs: timeout_secs }
    } else if !seen.tests_started || seen.exit_code.is_none() {
        RunStatus::Crashed { reason: crash_reason(&output, "before the test command finished") }
    } else {
        RunStatus::Ran
    };
    if record.status == RunStatus::Ran && !apply_only {
        let parsed =
            parse::parse(prepared.entry.log_parser, &seen.test_output, &output.files).map_err(|e| e.to_string());
        record.parsed = Some(parsed);
    }
    record.files = files;
    record
}

fn crash_reason(output: &backend::JobOutput, when: &str) -> String {
    if output.oom_killed {
        format!("the container ran out of memory {when}")
    } else {
        format!("the eval script stopped {when} (container exit code {:?}); see output.txt", output.exit_code)
    }
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
