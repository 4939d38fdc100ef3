//! What every command shares: where verdict's own files are, loading a dataset with its
//! defaults, connecting to the engine, and opening a run (its context and worker pool).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::error::{Error, Result};
use super::{BackendKind, DatasetArgs, ImageArgs, RegistryUse, RunArgs};
use crate::dataset::repo::RepoStore;
use crate::dataset::spec::SpecRegistry;
use crate::dataset::{load_instances, Instance};
use crate::engine::Engine;
use crate::images::build::Builder;
use crate::images::toolchain::Availability;
use crate::images::{host_certs, Planner};
use crate::run::backend::limits;
use crate::run::scheduler::{Scheduler, Stopped};
use crate::run::session::{ensure_writable, BackendChoice, Session};
use crate::run::Context;

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
pub fn load_dataset(args: &DatasetArgs, logs: &Path) -> Result<Loaded> {
    let is_demo = args.dataset.is_none();
    let path = args.dataset.clone().unwrap_or_else(|| demo_dir().join("dataset.jsonl"));
    let mut instances = load_instances(&path)?;
    let dataset_ids = instances.iter().map(|i| i.instance_id.clone()).collect();
    if !args.instance_ids.is_empty() {
        let unknown: Vec<&String> =
            args.instance_ids.iter().filter(|id| !instances.iter().any(|i| &&i.instance_id == id)).collect();
        if !unknown.is_empty() {
            return Err(Error::bad_input(format!(
                "--instance-ids names instances that {} does not have: {}",
                path.display(),
                unknown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            )));
        }
        instances.retain(|i| args.instance_ids.contains(&i.instance_id));
    }
    let mut repo_dirs = args.repos.clone();
    if is_demo && repo_dirs.is_empty() {
        repo_dirs.push(demo_dir().join("repos"));
    }
    let repos = Arc::new(RepoStore::new(repo_dirs, logs.join(".cache"), !args.no_clone));
    let specs = SpecRegistry::load(&harness_dir(), &args.specs)?;
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

/// Connects to the engine.
pub async fn connect() -> Result<Engine> {
    Ok(Engine::connect().await?)
}

/// The image builder for a run (its builds carry `labels`), after making sure the OS image
/// exists.
pub async fn builder(
    engine: &Engine,
    loaded: &Loaded,
    images: &ImageArgs,
    no_cache: bool,
    labels: std::collections::HashMap<String, String>,
) -> Result<(Arc<Builder>, Planner)> {
    let builder = Arc::new(Builder::new(
        engine.clone(),
        loaded.repos.clone(),
        images.logs.join("build_images"),
        no_cache,
        Duration::from_secs(images.build_timeout),
        labels,
    ));
    builder.ensure_os_image(&images.os_image, &images.os_pull).await?;
    // Official toolchain images are an option only when a registry answers; asked once, and
    // only when some instance names a toolchain version.
    let names_a_toolchain =
        loaded.instances.iter().any(|i| loaded.specs.resolve(i).is_ok_and(|(entry, _)| !entry.toolchains().is_empty()));
    let registry = match images.official_images {
        RegistryUse::Yes => true,
        RegistryUse::No => false,
        RegistryUse::Auto => names_a_toolchain && builder.registry_answers(&images.os_pull).await,
    };
    let planner = Planner::new(
        home().join("dockerfiles"),
        images.os_image.clone(),
        host_certs(&images.ca_certs),
        &loaded.specs,
        Availability { registry },
    );
    Ok((builder, planner))
}

/// An open run: its shared context and its worker pool.
pub struct Opened {
    pub ctx: Arc<Context>,
    pub scheduler: Scheduler,
    /// Held for the run's lock and signal handling.
    _session: Session,
}

/// Opens a run: checks the logs folder, connects, removes what an earlier process of the same
/// run left, and makes the run's context.
pub async fn open(loaded: &Loaded, run: &RunArgs, run_id: &str, no_cache: bool) -> Result<Opened> {
    let folder = run.images.logs.join(crate::run::safe_component(run_id));
    let choice = match (run.backend, &run.registry) {
        (BackendKind::Docker, _) => BackendChoice::Docker,
        (BackendKind::Swarm, Some(registry)) => {
            BackendChoice::Swarm { registry: registry.clone(), reserve: run.swarm_reserve }
        }
        (BackendKind::Swarm, None) => {
            return Err(Error::bad_input(
                "--backend swarm needs --registry HOST:PORT (where the nodes pull images from)",
            ))
        }
    };
    ensure_writable(&run.images.logs)?;
    run.clock.check(&loaded.instances).map_err(|e| Error::bad_input(format!("{}: {e}", loaded.path.display())))?;
    let engine = connect().await?;
    let session = Session::open(engine.clone(), &folder, run_id, &choice).await?;
    let (builder, planner) = builder(&engine, loaded, &run.images, no_cache, session.scope.labels()).await?;
    let ctx = Context {
        backend: session.backend.clone(),
        builder,
        planner,
        specs: loaded.specs.clone(),
        limits: limits(run.memory, run.cpus, run.pids),
        timeout_override: run.timeout,
        max_output: (run.max_output * 1024.0 * 1024.0) as usize,
        run_id: run_id.to_string(),
        clock: run.clock,
        rules: run.grading.rules(),
    };
    let scheduler = session.scheduler(workers(run), Duration::from_secs(run.engine_wait));
    Ok(Opened { ctx: Arc::new(ctx), scheduler, _session: session })
}

/// Workers: given, else CPUs / per-container CPUs (at least 1).
pub fn workers(run: &RunArgs) -> usize {
    run.workers.unwrap_or_else(|| {
        let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) as f64;
        ((cpus / run.cpus).floor() as usize).max(1)
    })
}

/// The exit of a run that stopped early: a signal's code, or the engine's with the reason.
pub fn stopped(stop: Stopped) -> Result<i32> {
    match stop {
        Stopped::Signal(signal) => Ok(signal.exit_code()),
        Stopped::EngineLost { .. } => Err(Error::EngineLost(format!(
            "{stop}\n  the finished instances' reports are kept; rerun the same --run-id once the engine answers"
        ))),
    }
}

/// Writes JSON to a file atomically, creating its folder.
pub fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::Internal(format!("cannot serialize {}: {e}", path.display())))?;
    crate::atomic::write(path, (text + "\n").as_bytes()).map_err(|e| Error::io("write", path, e))
}

/// Writes a text file (an HTML or JUnit report, a comparison) atomically, creating its folder.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    crate::atomic::write(path, text.as_bytes()).map_err(|e| Error::io("write", path, e))
}

/// What the summary needs to know of every instance: repository, language (from its spec),
/// single- or cross-file gold patch, images in the issue.
pub fn facts(loaded: &Loaded) -> std::collections::BTreeMap<String, crate::report::InstanceFacts> {
    loaded
        .instances
        .iter()
        .map(|i| {
            let language = loaded.specs.resolve(i).ok().map(|(entry, _)| entry.language);
            (i.instance_id.clone(), crate::report::InstanceFacts::from_instance(i, language.as_deref()))
        })
        .collect()
}

/// The jobs of one model of a run: each of its predictions with its instance and the folder its
/// report goes to (`<logs>/<run-id>/<model key>/<instance>`).
pub fn model_jobs(
    selected: &crate::dataset::sources::Assembled,
    (model, method): (&str, &Option<String>),
    logs: &std::path::Path,
    run_id: &str,
) -> Vec<(crate::dataset::Instance, crate::dataset::Prediction, std::path::PathBuf)> {
    let key = crate::report::model_key(model, method.as_deref());
    selected
        .pairs
        .iter()
        .filter(|(_, p)| p.model_name_or_path == model && &p.method == method)
        .map(|(instance, prediction)| {
            let dir = crate::run::instance_dir(logs, run_id, &key, &instance.instance_id);
            (instance.clone(), prediction.clone(), dir)
        })
        .collect()
}
