//! Building layers on the engine: each tag is built at most once per run (concurrent requests for
//! the same tag wait for the first), an existing tag is reused unless `--no-cache` was asked for,
//! and a failed build is remembered with its log so every instance on it reports the same
//! `build_failed` outcome.
//!
//! An image is missing only when the engine says so (404). Any other engine failure (the engine
//! is gone, a request missed its deadline) is an [`ImageError::Engine`], never a build failure,
//! and is not remembered: the next request tries again.
//!
//! Before a base layer builds, the images it starts from are made once each: a Debian suite's
//! `verdict-os:<suite>` is pulled (`debian:<suite>-slim`) when a registry answers, else
//! debootstrapped (`debootstrap --variant=minbase`, a host program run as root) and imported
//! through the engine's import API; an official image is pulled. After a base layer is built,
//! the toolchain versions its build recorded (`/verdict/toolchains.tsv`) are read back once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bollard::query_parameters::{BuildImageOptionsBuilder, CreateImageOptionsBuilder, TagImageOptionsBuilder};
use futures_util::StreamExt;
use tokio::io::AsyncWriteExt;
use tokio::sync::OnceCell;

use super::context::{build_context, ContextFile};
use super::layers::{layers_of, LayerSize};
use super::toolchain::{parse_toolchains_tsv, InstalledTool, OsSource};
use super::{InstanceImages, Layer, LayerKind, OsNeed};
use crate::dataset::repo::RepoStore;
use crate::engine::{Engine, EngineError, SHORT_CALL};

/// How long pulling the OS image may take before verdict concludes no registry answers.
const PULL_TIMEOUT: Duration = Duration::from_secs(90);

/// Why an image could not be built. Kept as an outcome, with the build log's path.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BuildFailure {
    pub layer: LayerKind,
    pub tag: String,
    pub message: String,
    pub log: Option<PathBuf>,
}

impl std::error::Error for BuildFailure {}

/// Why an instance has no image.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// A layer did not build (an outcome: `build_failed`, with the log).
    #[error(transparent)]
    Build(BuildFailure),
    /// The engine failed or is gone; nothing is known about the image.
    #[error("{0}")]
    Engine(#[source] EngineError),
}

impl std::fmt::Display for BuildFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "failed to build {:?} image {}: {}", self.layer, self.tag, self.message)?;
        if let Some(log) = &self.log {
            write!(f, " (build log: {})", log.display())?;
        }
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OsImageError {
    #[error("the base OS image {image} is not on the engine and pulling {pull_from} failed ({reason}).\n  Without a registry, build it offline: sudo bash dockerfiles/engine.sh   (debootstrap + docker import), or pass --os-image")]
    Missing { image: String, pull_from: String, reason: String },
    #[error("cannot check the base OS image {image}: {source}")]
    Engine {
        image: String,
        #[source]
        source: EngineError,
    },
}

/// Facts about a built (or reused) image.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BuiltImage {
    pub size_bytes: u64,
    /// Its layers with their own sizes, so that images sharing a base count it once
    /// ([`super::layers`]); empty when the engine would not say.
    pub layers: Vec<LayerSize>,
    /// False when the image already existed and was reused.
    pub built_now: bool,
}

/// A layer's build, once known: built (or reused), or failed. Engine failures are not kept.
type Slot = Arc<OnceCell<Result<BuiltImage, BuildFailure>>>;
type OsSlot = Arc<OnceCell<Result<(), String>>>;
type FactsSlot = Arc<OnceCell<Vec<InstalledTool>>>;

/// Builds image layers, once each.
pub struct Builder {
    engine: Engine,
    repos: Arc<RepoStore>,
    log_dir: PathBuf,
    no_cache: bool,
    build_timeout: Duration,
    /// Labels on every image built (verdict's, and the run's when there is one).
    labels: HashMap<String, String>,
    slots: Mutex<HashMap<String, Slot>>,
    os_slots: Mutex<HashMap<String, OsSlot>>,
    facts: Mutex<HashMap<String, FactsSlot>>,
    registry: OnceCell<bool>,
}

impl Builder {
    pub fn new(
        engine: Engine,
        repos: Arc<RepoStore>,
        log_dir: PathBuf,
        no_cache: bool,
        build_timeout: Duration,
        labels: HashMap<String, String>,
    ) -> Self {
        Self {
            engine,
            repos,
            log_dir,
            no_cache,
            build_timeout,
            labels,
            slots: Mutex::new(HashMap::new()),
            os_slots: Mutex::new(HashMap::new()),
            facts: Mutex::new(HashMap::new()),
            registry: OnceCell::new(),
        }
    }

    /// Whether a container registry answers: pulling `reference` (a small image, the default
    /// suite's `debian:<suite>-slim`) succeeds within the pull timeout. Asked once per run.
    pub async fn registry_answers(&self, reference: &str) -> bool {
        *self
            .registry
            .get_or_init(|| async {
                let answered = self.pull(reference).await;
                if let Err(e) = &answered {
                    tracing::info!("no container registry answers ({e}); toolchains come from offline providers");
                }
                answered.is_ok()
            })
            .await
    }

    async fn pull(&self, reference: &str) -> Result<(), String> {
        let options = CreateImageOptionsBuilder::default().from_image(reference).build();
        let docker = self.engine.docker();
        let pull = async {
            let mut stream = docker.create_image(Some(options), None, None);
            while let Some(item) = stream.next().await {
                item?;
            }
            Ok(())
        };
        self.engine.call(&format!("pull {reference}"), PULL_TIMEOUT, pull).await.map_err(|e| e.to_string())
    }

    /// The toolchains a built base layer recorded, read once per tag (empty when the image has
    /// no record, as images of templates without `{{toolchain_check}}` do).
    pub async fn installed_toolchains(&self, base: &Layer) -> Vec<InstalledTool> {
        let slot = {
            let mut facts = self.facts.lock().unwrap_or_else(|e| e.into_inner());
            facts.entry(base.tag.clone()).or_default().clone()
        };
        slot.get_or_init(|| async {
            match self.read_file(&base.tag, "/verdict/toolchains.tsv").await {
                Ok(text) => parse_toolchains_tsv(&text),
                Err(e) => {
                    tracing::debug!(tag = %base.tag, "no toolchain record: {e}");
                    Vec::new()
                }
            }
        })
        .await
        .clone()
    }

    /// One file of an image, through a container that is created and removed, never started.
    async fn read_file(&self, image: &str, path: &str) -> Result<String, String> {
        use bollard::models::ContainerCreateBody;
        use bollard::query_parameters::{CreateContainerOptionsBuilder, DownloadFromContainerOptionsBuilder};
        let docker = self.engine.docker();
        let body = ContainerCreateBody {
            image: Some(image.to_string()),
            cmd: Some(vec!["true".into()]),
            network_disabled: Some(true),
            // Not the run's labels: this container is never started and is removed at once, and
            // must not pass for one of the run's evaluations.
            labels: Some(HashMap::from([
                (crate::engine::OWNER_LABEL.to_string(), "1".to_string()),
                ("verdict.purpose".to_string(), "toolchain-record".to_string()),
            ])),
            ..Default::default()
        };
        let created = self
            .engine
            .call(
                "create a container to read an image's toolchain record",
                SHORT_CALL,
                docker.create_container(Some(CreateContainerOptionsBuilder::default().build()), body),
            )
            .await
            .map_err(|e| e.to_string())?;
        let read = async {
            let options = DownloadFromContainerOptionsBuilder::default().path(path).build();
            let mut stream = docker.download_from_container(&created.id, Some(options));
            let mut tar_bytes = Vec::new();
            while let Some(chunk) = stream.next().await {
                tar_bytes.extend_from_slice(&chunk.map_err(|e| e.to_string())?);
            }
            let mut archive = tar::Archive::new(tar_bytes.as_slice());
            let mut text = String::new();
            for entry in archive.entries().map_err(|e| e.to_string())? {
                let mut entry = entry.map_err(|e| e.to_string())?;
                std::io::Read::read_to_string(&mut entry, &mut text).map_err(|e| e.to_string())?;
            }
            Ok(text)
        };
        let result = read.await;
        let _ = self.engine.remove_container(&created.id).await;
        result
    }

    /// Makes sure an image a base layer starts from exists, once per tag per run.
    async fn ensure_os(&self, need: &OsNeed) -> Result<(), String> {
        let slot = {
            let mut slots = self.os_slots.lock().unwrap_or_else(|e| e.into_inner());
            slots.entry(need.tag.clone()).or_default().clone()
        };
        slot.get_or_init(|| self.make_os(need)).await.clone()
    }

    async fn make_os(&self, need: &OsNeed) -> Result<(), String> {
        if self.inspect(&need.tag).await.map_err(|e| e.to_string())?.is_some() {
            return Ok(());
        }
        match &need.source {
            OsSource::Image(image) => self
                .pull(image)
                .await
                .map_err(|e| format!("the official image {image} is not on the engine and pulling it failed ({e})")),
            OsSource::Suite(suite) => {
                let pull_from = format!("debian:{suite}-slim");
                if self.pull(&pull_from).await.is_ok() {
                    let (repo, tag) = need.tag.rsplit_once(':').unwrap_or((&need.tag, "latest"));
                    let options = TagImageOptionsBuilder::default().repo(repo).tag(tag).build();
                    let docker = self.engine.docker();
                    return self
                        .engine
                        .call("tag an OS image", SHORT_CALL, docker.tag_image(&pull_from, Some(options)))
                        .await
                        .map_err(|e| e.to_string());
                }
                self.debootstrap(suite, &need.tag).await.map_err(|e| {
                    format!(
                        "the OS image {} (Debian {suite}) is missing, no registry answered, and building it offline failed: {e}. Make it by hand with: sudo bash dockerfiles/engine.sh --suite {suite}",
                        need.tag
                    )
                })
            }
        }
    }

    /// `debootstrap --variant=minbase SUITE DIR`, then DIR as a tar stream into the engine's
    /// import API (what `docker import` does), tagged `tag`.
    async fn debootstrap(&self, suite: &str, tag: &str) -> Result<(), String> {
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            return Err("debootstrap needs root".into());
        }
        tokio::fs::create_dir_all(&self.log_dir).await.map_err(|e| e.to_string())?;
        let root = tempfile::Builder::new()
            .prefix(&format!("verdict-rootfs-{suite}-"))
            .tempdir()
            .map_err(|e| format!("cannot make a folder for the root file system: {e}"))?;
        let log_path = self.log_dir.join(format!("verdict-os_{suite}.debootstrap.log"));
        let log = std::fs::File::create(&log_path).map_err(|e| format!("cannot write {}: {e}", log_path.display()))?;
        let err_log = log.try_clone().map_err(|e| e.to_string())?;
        tracing::info!(suite, "no registry answered: making {tag} with debootstrap");
        let started = std::time::Instant::now();
        let status = tokio::process::Command::new("debootstrap")
            .args(["--variant=minbase", suite])
            .arg(root.path())
            .stdout(log)
            .stderr(err_log)
            .status()
            .await
            .map_err(|e| format!("cannot run debootstrap ({e}); install it with apt-get install debootstrap"))?;
        if !status.success() {
            return Err(format!("debootstrap {suite} failed ({status}); see {}", log_path.display()));
        }
        let mut tar = tokio::process::Command::new("tar")
            .arg("-C")
            .arg(root.path())
            .args(["-c", "."])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run tar: {e}"))?;
        let stdout = tar.stdout.take().ok_or("tar has no output")?;
        let stream = futures_util::stream::unfold(stdout, |mut out| async move {
            use tokio::io::AsyncReadExt;
            let mut buf = bytes::BytesMut::with_capacity(1 << 20);
            match out.read_buf(&mut buf).await {
                Ok(0) => None,
                Ok(_) => Some((Ok(buf.freeze()), out)),
                Err(e) => Some((Err(e), out)),
            }
        });
        let (repo, image_tag) = tag.rsplit_once(':').unwrap_or((tag, "latest"));
        let options = CreateImageOptionsBuilder::default().from_src("-").repo(repo).tag(image_tag).build();
        let docker = self.engine.docker();
        let mut import = docker.create_image(Some(options), Some(bollard::body_try_stream(stream)), None);
        while let Some(item) = import.next().await {
            item.map_err(|e| format!("importing the root file system failed: {e}"))?;
        }
        let tar_status = tar.wait().await.map_err(|e| e.to_string())?;
        if !tar_status.success() {
            return Err(format!("tar of the root file system failed ({tar_status})"));
        }
        tracing::info!(suite, secs = started.elapsed().as_secs_f64(), "made {tag}");
        Ok(())
    }

    /// The image's size, or `None` when the engine says it does not exist.
    async fn inspect(&self, tag: &str) -> Result<Option<bollard::models::ImageInspect>, EngineError> {
        let docker = self.engine.docker();
        match self.engine.call("inspect an image", SHORT_CALL, docker.inspect_image(tag)).await {
            Ok(info) => Ok(Some(info)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The image's size and its layers with their sizes (from its history; none when the
    /// engine would not say, which only makes the run's image bytes count this image whole).
    async fn facts(&self, tag: &str, info: bollard::models::ImageInspect, built_now: bool) -> BuiltImage {
        let docker = self.engine.docker();
        let layers = match self.engine.call("read an image's history", SHORT_CALL, docker.image_history(tag)).await {
            Ok(history) => layers_of(&info, &history),
            Err(e) => {
                tracing::warn!(%tag, "cannot read the image's layers: {e}");
                Vec::new()
            }
        };
        BuiltImage { size_bytes: info.size.unwrap_or(0).max(0) as u64, layers, built_now }
    }

    /// Makes sure the OS image exists: present, else pulled from `pull_from` and tagged.
    pub async fn ensure_os_image(&self, image: &str, pull_from: &str) -> Result<(), OsImageError> {
        let engine_error = |source| OsImageError::Engine { image: image.into(), source };
        if self.inspect(image).await.map_err(engine_error)?.is_some() {
            return Ok(());
        }
        let missing =
            |reason: String| OsImageError::Missing { image: image.into(), pull_from: pull_from.into(), reason };
        let options = CreateImageOptionsBuilder::default().from_image(pull_from).build();
        let docker = self.engine.docker();
        let pull = async {
            let mut stream = docker.create_image(Some(options), None, None);
            while let Some(item) = stream.next().await {
                item?;
            }
            Ok(())
        };
        self.engine.call("pull the OS image", PULL_TIMEOUT, pull).await.map_err(|e| match e {
            EngineError::Unreachable { .. } => engine_error(e),
            other => missing(other.to_string()),
        })?;
        let (repo, tag) = image.rsplit_once(':').unwrap_or((image, "latest"));
        let options = TagImageOptionsBuilder::default().repo(repo).tag(tag).build();
        self.engine
            .call("tag the OS image", SHORT_CALL, docker.tag_image(pull_from, Some(options)))
            .await
            .map_err(|e| missing(e.to_string()))
    }

    /// Where the builder reads repositories from.
    pub fn repos(&self) -> &RepoStore {
        &self.repos
    }

    /// Builds (or reuses) the layers of an instance, in order (helpers, base, env, instance).
    /// The instance layer's facts are returned; the first failing layer ends the chain.
    pub async fn ensure(&self, images: &InstanceImages) -> Result<BuiltImage, ImageError> {
        let mut last = None;
        for layer in images.layers() {
            last = Some(self.ensure_layer(layer).await?);
        }
        Ok(last.expect("three layers"))
    }

    async fn ensure_layer(&self, layer: &Layer) -> Result<BuiltImage, ImageError> {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            slots.entry(layer.tag.clone()).or_default().clone()
        };
        let known = slot.get_or_try_init(|| self.build_layer(layer)).await.map_err(ImageError::Engine)?;
        known.clone().map_err(ImageError::Build)
    }

    /// Builds one layer. `Ok(Err(_))` is a build failure (kept); `Err(_)` an engine failure.
    async fn build_layer(&self, layer: &Layer) -> Result<Result<BuiltImage, BuildFailure>, EngineError> {
        let failure = |message: String| BuildFailure { layer: layer.kind, tag: layer.tag.clone(), message, log: None };
        if let Some(why) = &layer.unavailable {
            return Ok(Err(failure(why.clone())));
        }
        if !self.no_cache {
            if let Some(info) = self.inspect(&layer.tag).await? {
                return Ok(Ok(self.facts(&layer.tag, info, false).await));
            }
        }
        // Only a layer that must be built needs the images it starts from.
        for need in &layer.needs {
            if let Err(message) = self.ensure_os(need).await {
                return Ok(Err(failure(with_note(message, layer))));
            }
        }
        self.build_fresh(layer).await
    }

    /// Builds a layer that is not on the engine (or `--no-cache`).
    async fn build_fresh(&self, layer: &Layer) -> Result<Result<BuiltImage, BuildFailure>, EngineError> {
        let log_path = self.log_dir.join(format!("{}.log", layer.tag.replace([':', '/'], "_")));
        let fail = |message: String, log: Option<&Path>| BuildFailure {
            layer: layer.kind,
            tag: layer.tag.clone(),
            message,
            log: log.map(Path::to_path_buf),
        };
        let mut files = layer.files.clone();
        let snapshot = match &layer.snapshot {
            Some(s) => {
                let repos = self.repos.clone();
                let (repo, commit) = (s.repo.clone(), s.commit.clone());
                let read = tokio::task::spawn_blocking(move || {
                    Ok::<_, crate::dataset::repo::RepoError>((
                        repos.archive(&repo, &commit)?,
                        repos.tree_listing(&repo, &commit)?,
                    ))
                });
                match read.await {
                    Ok(Ok((tar, listing))) => {
                        // What /testbed must hold: the Dockerfile compares it with its own git tree.
                        files.push(ContextFile::new("tree.txt", listing));
                        Some(tar)
                    }
                    Ok(Err(e)) => return Ok(Err(fail(e.to_string(), None))),
                    Err(e) => return Ok(Err(fail(format!("snapshot task failed: {e}"), None))),
                }
            }
            None => None,
        };
        let context = match build_context(&layer.dockerfile, &files, snapshot.as_deref()) {
            Ok(context) => context,
            Err(e) => return Ok(Err(fail(e.to_string(), None))),
        };
        if let Err(e) = tokio::fs::create_dir_all(&self.log_dir).await {
            return Ok(Err(fail(format!("cannot create {}: {e}", self.log_dir.display()), None)));
        }
        let mut log = match tokio::fs::File::create(&log_path).await {
            Ok(log) => log,
            Err(e) => return Ok(Err(fail(format!("cannot write {}: {e}", log_path.display()), None))),
        };
        let _ = log.write_all(format!("# verdict build of {} ({:?} layer)\n", layer.tag, layer.kind).as_bytes()).await;
        let _ = log.write_all(layer.dockerfile.as_bytes()).await;
        let _ = log.write_all(b"\n# ---- build output ----\n").await;

        let options = BuildImageOptionsBuilder::default()
            .t(&layer.tag)
            .rm(true)
            .forcerm(true)
            .nocache(self.no_cache)
            .labels(&self.labels)
            .build();
        let started = std::time::Instant::now();
        let docker = self.engine.docker();
        // A step that fails is the build's failure; a stream that breaks may be the engine's.
        let run = async {
            let mut stream = docker.build_image(options, None, Some(bollard::body_full(context.into())));
            while let Some(item) = stream.next().await {
                match item {
                    Ok(info) => {
                        if let Some(text) = info.stream.as_deref().or(info.status.as_deref()) {
                            let _ = log.write_all(text.as_bytes()).await;
                        }
                        if let Some(detail) = info.error_detail {
                            let message = detail.message.unwrap_or_else(|| "build error".into());
                            let _ = log.write_all(format!("\nERROR: {message}\n").as_bytes()).await;
                            return Ok(Some(message));
                        }
                    }
                    Err(e) => {
                        let _ = log.write_all(format!("\nERROR: {e}\n").as_bytes()).await;
                        return Err(e);
                    }
                }
            }
            Ok(None)
        };
        let outcome = self.engine.call(&format!("build image {}", layer.tag), self.build_timeout, run).await;
        let _ = log.flush().await;
        match outcome {
            Err(e @ EngineError::Unreachable { .. }) => return Err(e),
            Err(EngineError::Timeout { .. }) => {
                let message = format!("build did not finish within {} s", self.build_timeout.as_secs());
                return Ok(Err(fail(message, Some(&log_path))));
            }
            Err(e) => return Ok(Err(fail(with_note(last_line(&e.to_string()), layer), Some(&log_path)))),
            Ok(Some(message)) => return Ok(Err(fail(with_note(last_line(&message), layer), Some(&log_path)))),
            Ok(None) => {}
        }
        tracing::info!(tag = %layer.tag, secs = started.elapsed().as_secs_f64(), "built image");
        match self.inspect(&layer.tag).await? {
            Some(info) => Ok(Ok(self.facts(&layer.tag, info, true).await)),
            None => Ok(Err(fail("build finished but the image is missing".into(), Some(&log_path)))),
        }
    }
}

/// A base layer's failure says which toolchain it was building.
fn with_note(message: String, layer: &Layer) -> String {
    match &layer.note {
        Some(note) => format!("{message} (toolchain: {note})"),
        None => message,
    }
}

fn last_line(message: &str) -> String {
    message.trim().lines().last().unwrap_or(message).to_string()
}
