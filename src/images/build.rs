//! Building layers on the engine: each tag is built at most once per run (concurrent requests for
//! the same tag wait for the first), an existing tag is reused unless `--no-cache` was asked for,
//! and a failed build is remembered with its log so every instance on it reports the same
//! `build_failed` outcome.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bollard::query_parameters::{BuildImageOptionsBuilder, CreateImageOptionsBuilder, TagImageOptionsBuilder};
use bollard::Docker;
use futures_util::StreamExt;
use tokio::io::AsyncWriteExt;
use tokio::sync::OnceCell;

use super::context::build_context;
use super::layers::{image_layers, LayerSize};
use super::{InstanceImages, Layer, LayerKind};
use crate::dataset::repo::RepoStore;
use crate::engine::OWNER_LABEL;

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

type Slot = Arc<OnceCell<Result<BuiltImage, BuildFailure>>>;

/// Builds image layers, once each.
pub struct Builder {
    docker: Docker,
    repos: Arc<RepoStore>,
    log_dir: PathBuf,
    no_cache: bool,
    build_timeout: Duration,
    slots: Mutex<HashMap<String, Slot>>,
}

impl Builder {
    pub fn new(
        docker: Docker,
        repos: Arc<RepoStore>,
        log_dir: PathBuf,
        no_cache: bool,
        build_timeout: Duration,
    ) -> Self {
        Self { docker, repos, log_dir, no_cache, build_timeout, slots: Mutex::new(HashMap::new()) }
    }

    /// Makes sure the OS image exists: present, else pulled from `pull_from` and tagged.
    pub async fn ensure_os_image(&self, image: &str, pull_from: &str) -> Result<(), OsImageError> {
        if self.docker.inspect_image(image).await.is_ok() {
            return Ok(());
        }
        let missing =
            |reason: String| OsImageError::Missing { image: image.into(), pull_from: pull_from.into(), reason };
        let options = CreateImageOptionsBuilder::default().from_image(pull_from).build();
        let pull = async {
            let mut stream = self.docker.create_image(Some(options), None, None);
            while let Some(item) = stream.next().await {
                item.map_err(|e| e.to_string())?;
            }
            Ok::<(), String>(())
        };
        match tokio::time::timeout(PULL_TIMEOUT, pull).await {
            Ok(Ok(())) => {}
            Ok(Err(reason)) => return Err(missing(reason)),
            Err(_) => return Err(missing(format!("no answer within {} s", PULL_TIMEOUT.as_secs()))),
        }
        let (repo, tag) = image.rsplit_once(':').unwrap_or((image, "latest"));
        let options = TagImageOptionsBuilder::default().repo(repo).tag(tag).build();
        self.docker.tag_image(pull_from, Some(options)).await.map_err(|e| missing(e.to_string()))
    }

    /// Builds (or reuses) the three layers of an instance, in order. The instance layer's facts
    /// are returned; the first failing layer ends the chain.
    pub async fn ensure(&self, images: &InstanceImages) -> Result<BuiltImage, BuildFailure> {
        let mut last = None;
        for layer in images.layers() {
            last = Some(self.ensure_layer(layer).await?);
        }
        Ok(last.expect("three layers"))
    }

    async fn ensure_layer(&self, layer: &Layer) -> Result<BuiltImage, BuildFailure> {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            slots.entry(layer.tag.clone()).or_default().clone()
        };
        slot.get_or_init(|| self.build_layer(layer)).await.clone()
    }

    async fn build_layer(&self, layer: &Layer) -> Result<BuiltImage, BuildFailure> {
        if !self.no_cache {
            if let Ok(info) = self.docker.inspect_image(&layer.tag).await {
                return Ok(self.facts(&layer.tag, info, false).await);
            }
        }
        let log_path = self.log_dir.join(format!("{}.log", layer.tag.replace([':', '/'], "_")));
        let fail = |message: String, log: Option<&Path>| BuildFailure {
            layer: layer.kind,
            tag: layer.tag.clone(),
            message,
            log: log.map(Path::to_path_buf),
        };
        let snapshot = match &layer.snapshot {
            Some(s) => {
                let repos = self.repos.clone();
                let (repo, commit) = (s.repo.clone(), s.commit.clone());
                let tar = tokio::task::spawn_blocking(move || repos.archive(&repo, &commit))
                    .await
                    .map_err(|e| fail(format!("snapshot task failed: {e}"), None))?;
                Some(tar.map_err(|e| fail(e.to_string(), None))?)
            }
            None => None,
        };
        let context = build_context(&layer.dockerfile, &layer.files, snapshot.as_deref())
            .map_err(|e| fail(e.to_string(), None))?;
        tokio::fs::create_dir_all(&self.log_dir)
            .await
            .map_err(|e| fail(format!("cannot create {}: {e}", self.log_dir.display()), None))?;
        let mut log = tokio::fs::File::create(&log_path)
            .await
            .map_err(|e| fail(format!("cannot write {}: {e}", log_path.display()), None))?;
        let _ = log.write_all(format!("# verdict build of {} ({:?} layer)\n", layer.tag, layer.kind).as_bytes()).await;
        let _ = log.write_all(layer.dockerfile.as_bytes()).await;
        let _ = log.write_all(b"\n# ---- build output ----\n").await;

        let labels = HashMap::from([(OWNER_LABEL.to_string(), "1".to_string())]);
        let options = BuildImageOptionsBuilder::default()
            .t(&layer.tag)
            .rm(true)
            .forcerm(true)
            .nocache(self.no_cache)
            .labels(&labels)
            .build();
        let started = std::time::Instant::now();
        let run = async {
            let mut stream = self.docker.build_image(options, None, Some(bollard::body_full(context.into())));
            let mut error = None;
            while let Some(item) = stream.next().await {
                match item {
                    Ok(info) => {
                        if let Some(text) = info.stream.as_deref().or(info.status.as_deref()) {
                            let _ = log.write_all(text.as_bytes()).await;
                        }
                        if let Some(detail) = info.error_detail {
                            let message = detail.message.unwrap_or_else(|| "build error".into());
                            let _ = log.write_all(format!("\nERROR: {message}\n").as_bytes()).await;
                            error = Some(message);
                        }
                    }
                    Err(e) => {
                        let _ = log.write_all(format!("\nERROR: {e}\n").as_bytes()).await;
                        error = Some(e.to_string());
                        break;
                    }
                }
            }
            error
        };
        let outcome = tokio::time::timeout(self.build_timeout, run).await;
        let _ = log.flush().await;
        match outcome {
            Err(_) => {
                return Err(fail(
                    format!("build did not finish within {} s", self.build_timeout.as_secs()),
                    Some(&log_path),
                ))
            }
            Ok(Some(message)) => return Err(fail(last_line(&message), Some(&log_path))),
            Ok(None) => {}
        }
        tracing::info!(tag = %layer.tag, secs = started.elapsed().as_secs_f64(), "built image");
        match self.docker.inspect_image(&layer.tag).await {
            Ok(info) => Ok(self.facts(&layer.tag, info, true).await),
            Err(e) => Err(fail(format!("build finished but the image is missing: {e}"), Some(&log_path))),
        }
    }
}

impl Builder {
    async fn facts(&self, tag: &str, info: bollard::models::ImageInspect, built_now: bool) -> BuiltImage {
        let layers = match image_layers(&self.docker, tag, &info).await {
            Ok(layers) => layers,
            Err(e) => {
                tracing::warn!(%tag, "cannot read the image's layers: {e}");
                Vec::new()
            }
        };
        BuiltImage { size_bytes: info.size.unwrap_or(0).max(0) as u64, layers, built_now }
    }
}

fn last_line(message: &str) -> String {
    message.trim().lines().last().unwrap_or(message).to_string()
}
