//! What every command shares: where verdict's own files are, loading a dataset with its
//! defaults, connecting to the engine, making the run context, and Ctrl-C.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;

use super::{exit, DatasetArgs, ImageArgs, RunArgs};
use crate::dataset::repo::RepoStore;
use crate::dataset::spec::SpecRegistry;
use crate::dataset::{load_instances, Instance};
use crate::images::build::Builder;
use crate::images::{host_certs, Planner};
use crate::run::backend::{limits, DockerBackend};
use crate::run::Context;

/// An error with the exit code it should end the process with.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Failure {
    pub code: i32,
    pub message: String,
}

pub fn fail(code: i32, message: impl Into<String>) -> anyhow::Error {
    Failure { code, message: message.into() }.into()
}

/// verdict's own folder (harness/, dockerfiles/): `VERDICT_HOME`, else the source tree it was
/// built from.
pub fn home() -> PathBuf {
    std::env::var_os("VERDICT_HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

pub fn harness_dir() -> PathBuf {
    home().join("harness")
}

pub fn demo_dir() -> PathBuf {
    harness_dir().join("demo")
}

/// A loaded dataset and where its repositories and specs come from.
pub struct Loaded {
    pub path: PathBuf,
    pub instances: Vec<Instance>,
    /// Every instance id of the file, before --instance-ids chose some.
    pub dataset_ids: std::collections::HashSet<String>,
    pub is_demo: bool,
    pub repos: Arc<RepoStore>,
    pub specs: SpecRegistry,
}

/// Loads the dataset (the demo when none is given), filtered by --instance-ids.
pub fn load_dataset(args: &DatasetArgs, logs: &Path) -> anyhow::Result<Loaded> {
    let is_demo = args.dataset.is_none();
    let path = args.dataset.clone().unwrap_or_else(|| demo_dir().join("dataset.jsonl"));
    let mut instances = load_instances(&path).map_err(|e| fail(exit::BAD_INPUT, e.to_string()))?;
    let dataset_ids = instances.iter().map(|i| i.instance_id.clone()).collect();
    if !args.instance_ids.is_empty() {
        let unknown: Vec<&String> =
            args.instance_ids.iter().filter(|id| !instances.iter().any(|i| &&i.instance_id == id)).collect();
        if !unknown.is_empty() {
            return Err(fail(
                exit::BAD_INPUT,
                format!(
                    "--instance-ids names instances that {} does not have: {}",
                    path.display(),
                    unknown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        instances.retain(|i| args.instance_ids.contains(&i.instance_id));
    }
    let mut repo_dirs = args.repos.clone();
    if is_demo && repo_dirs.is_empty() {
        repo_dirs.push(demo_dir().join("repos"));
    }
    let repos = Arc::new(RepoStore::new(repo_dirs, logs.join(".cache"), !args.no_clone));
    let specs = SpecRegistry::load(&harness_dir(), &args.specs).map_err(|e| fail(exit::BAD_INPUT, e.to_string()))?;
    Ok(Loaded { path, instances, dataset_ids, is_demo, repos, specs })
}

/// The run id: given, else `demo` for the bundled demo, else the dataset file's stem.
pub fn run_id(given: Option<&str>, loaded: &Loaded) -> String {
    if let Some(id) = given {
        return id.to_string();
    }
    if loaded.is_demo {
        return "demo".into();
    }
    loaded.path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "run".into())
}

/// Connects to the engine and makes sure the OS image exists.
pub async fn connect() -> anyhow::Result<bollard::Docker> {
    crate::engine::connect().await.map_err(|e| fail(exit::ENGINE, e.to_string()))
}

/// The image builder for a run.
pub async fn builder(
    docker: &bollard::Docker,
    loaded: &Loaded,
    images: &ImageArgs,
    no_cache: bool,
) -> anyhow::Result<(Arc<Builder>, Planner)> {
    let builder = Arc::new(Builder::new(
        docker.clone(),
        loaded.repos.clone(),
        images.logs.join("build_images"),
        no_cache,
        Duration::from_secs(images.build_timeout),
    ));
    builder.ensure_os_image(&images.os_image, &images.os_pull).await.map_err(|e| fail(exit::ENGINE, e.to_string()))?;
    let planner = Planner::new(home().join("dockerfiles"), images.os_image.clone(), host_certs(&images.ca_certs));
    Ok((builder, planner))
}

/// The shared context of a run.
pub async fn context(loaded: &Loaded, run: &RunArgs, run_id: &str, no_cache: bool) -> anyhow::Result<Context> {
    let docker = connect().await?;
    let (builder, planner) = builder(&docker, loaded, &run.images, no_cache).await?;
    Ok(Context {
        backend: DockerBackend::new(docker),
        builder,
        planner,
        specs: loaded.specs.clone(),
        limits: limits(run.memory, run.cpus, run.pids),
        timeout_override: run.timeout,
        run_id: run_id.to_string(),
    })
}

/// Workers: given, else CPUs / per-container CPUs (at least 1).
pub fn workers(run: &RunArgs) -> usize {
    run.workers.unwrap_or_else(|| {
        let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) as f64;
        ((cpus / run.cpus.max(0.1)).floor() as usize).max(1)
    })
}

/// Resolves on Ctrl-C (never, when the signal cannot be listened to).
async fn ctrl_c() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// After Ctrl-C: stops every job (so none starts another container), then removes this
/// process's containers. A second Ctrl-C skips the cleanup.
async fn stop_and_clean<T: 'static>(docker: &bollard::Docker, tasks: &mut tokio::task::JoinSet<T>) {
    eprintln!("\ninterrupted: stopping and removing verdict's containers (Ctrl-C again to force)…");
    let cleanup = async {
        tasks.shutdown().await;
        crate::engine::remove_session_containers(docker).await
    };
    tokio::select! {
        n = cleanup => eprintln!("removed {n} container(s); rerun the same --run-id to resume"),
        () = ctrl_c() => eprintln!("forced exit; containers labelled {}={} may remain", crate::engine::SESSION_LABEL, crate::engine::session_id()),
    }
}

/// Writes JSON to a file, creating its folder.
pub fn write_json(path: &Path, value: &impl serde::Serialize) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let text = serde_json::to_string_pretty(value)?;
    std::fs::write(path, text + "\n").with_context(|| format!("cannot write {}", path.display()))
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub fn progress(len: usize, what: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len as u64);
    let style = indicatif::ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_message(what.to_string());
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// What the summary needs to know of every instance: repository, language (from its spec),
/// single- or cross-file gold patch, images in the issue.
pub fn facts(loaded: &Loaded) -> std::collections::BTreeMap<String, crate::report::InstanceFacts> {
    loaded
        .instances
        .iter()
        .map(|i| {
            let language = crate::run::resolve_spec(&loaded.specs, i).ok().map(|(entry, _)| entry.language);
            (i.instance_id.clone(), crate::report::InstanceFacts::from_instance(i, language.as_deref()))
        })
        .collect()
}

/// Runs `job` on every item, `workers` at a time, with a progress bar; each job returns a line
/// to print and its result. A job that dies still yields a result, made by `lost` from its item
/// and the reason, so no result is ever lost. On Ctrl-C this process's containers are removed
/// and `None` is returned; otherwise the containers are swept once all jobs are done.
pub async fn run_all<I, T, F, Fut>(
    docker: &bollard::Docker,
    items: Vec<I>,
    workers: usize,
    what: &str,
    job: F,
    lost: impl Fn(&I, String) -> T,
) -> Option<Vec<T>>
where
    I: Clone + Send + 'static,
    T: Send + 'static,
    F: Fn(I) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = (String, T)> + Send + 'static,
{
    let bar = progress(items.len(), what);
    let gate = Arc::new(tokio::sync::Semaphore::new(workers.max(1)));
    let job = Arc::new(job);
    let mut tasks = tokio::task::JoinSet::new();
    let mut owners = std::collections::HashMap::new();
    for item in items {
        let (gate, bar, job, owned) = (gate.clone(), bar.clone(), job.clone(), item.clone());
        let handle = tasks.spawn(async move {
            let _permit = gate.acquire_owned().await;
            let (line, result) = job(item).await;
            bar.suspend(|| println!("{line}"));
            bar.inc(1);
            result
        });
        owners.insert(handle.id(), owned);
    }
    let collect = async {
        let mut results = Vec::new();
        while let Some(joined) = tasks.join_next_with_id().await {
            match joined {
                Ok((_, result)) => results.push(result),
                Err(e) => {
                    if let Some(item) = owners.get(&e.id()) {
                        results.push(lost(item, format!("verdict failed on this instance: {e}")));
                    }
                }
            }
        }
        results
    };
    let results = tokio::select! {
        results = collect => Some(results),
        () = ctrl_c() => None,
    };
    bar.finish_and_clear();
    match results {
        Some(_) => {
            crate::engine::remove_session_containers(docker).await;
        }
        None => stop_and_clean(docker, &mut tasks).await,
    }
    results
}
