//! The execution seam: "run this script in a container from this image, with these limits and
//! this deadline, and give back the output, the exit code and the files it left".
//!
//! Everything above this module (images, grading, reports) only sees [`Job`] and [`JobOutput`],
//! so another backend (a Swarm replicated-job, a Kubernetes Job) can take its place. This one
//! drives a local or remote Docker engine through bollard.

use std::io::Read;
use std::time::{Duration, Instant};

use bollard::models::{ContainerCreateBody, HostConfig};
use bollard::query_parameters::{
    CreateContainerOptionsBuilder, DownloadFromContainerOptionsBuilder, KillContainerOptionsBuilder,
    LogsOptionsBuilder, UploadToContainerOptionsBuilder,
};
use bollard::Docker;
use futures_util::StreamExt;

use super::script::{IN_DIR, OUT_DIR};
use crate::engine;
use crate::parse::StructuredReport;

/// Resource limits of an evaluation container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub memory_bytes: i64,
    pub nano_cpus: i64,
    pub pids: i64,
}

/// One script to run.
#[derive(Debug, Clone)]
pub struct Job {
    pub image: String,
    pub script: String,
    /// Files copied to [`IN_DIR`] before the start.
    pub inputs: Vec<(String, Vec<u8>)>,
    pub limits: Limits,
    /// After this long the container is killed.
    pub deadline: Duration,
    pub run_id: String,
}

/// What a job left behind.
#[derive(Debug, Clone)]
pub struct JobOutput {
    /// stdout and stderr, interleaved as the engine recorded them.
    pub output: Vec<u8>,
    /// The script's exit status (`None` when it was killed at the deadline).
    pub exit_code: Option<i64>,
    pub killed_at_deadline: bool,
    /// Whether the kernel's OOM killer stopped the container.
    pub oom_killed: bool,
    /// Files found under [`OUT_DIR`], named relative to it.
    pub files: Vec<StructuredReport>,
    pub wall: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("failed to {operation} for image {image}: {message}")]
    Docker { operation: &'static str, image: String, message: String },
}

/// Runs jobs on a Docker engine.
#[derive(Clone)]
pub struct DockerBackend {
    docker: Docker,
}

impl DockerBackend {
    pub fn new(docker: Docker) -> Self {
        Self { docker }
    }

    pub fn docker(&self) -> &Docker {
        &self.docker
    }

    /// Runs one job in a fresh container, which is removed afterwards whatever happens.
    pub async fn run(&self, job: &Job) -> Result<JobOutput, ExecError> {
        let err = |operation: &'static str| {
            let image = job.image.clone();
            move |e: bollard::errors::Error| ExecError::Docker { operation, image, message: e.to_string() }
        };
        let config = ContainerCreateBody {
            image: Some(job.image.clone()),
            cmd: Some(vec!["bash".into(), format!("{IN_DIR}/eval.sh")]),
            working_dir: Some("/testbed".into()),
            labels: Some(engine::container_labels(&job.run_id)),
            network_disabled: Some(true),
            host_config: Some(HostConfig {
                network_mode: Some("none".into()),
                memory: Some(job.limits.memory_bytes),
                memory_swap: Some(job.limits.memory_bytes),
                nano_cpus: Some(job.limits.nano_cpus),
                pids_limit: Some(job.limits.pids),
                ..Default::default()
            }),
            ..Default::default()
        };
        let name = format!("verdict-{}-{:08x}", engine::session_id(), rand::random::<u32>());
        let options = CreateContainerOptionsBuilder::default().name(&name).build();
        let created = self.docker.create_container(Some(options), config).await.map_err(err("create a container"))?;
        let id = created.id;
        let result = self.run_in(&id, job).await;
        engine::remove_container(&self.docker, &id).await;
        result
    }

    async fn run_in(&self, id: &str, job: &Job) -> Result<JobOutput, ExecError> {
        let err = |operation: &'static str| {
            let image = job.image.clone();
            move |e: bollard::errors::Error| ExecError::Docker { operation, image, message: e.to_string() }
        };
        let mut files = job.inputs.clone();
        files.push(("eval.sh".into(), job.script.clone().into_bytes()));
        let archive = inputs_tar(&files).map_err(|e| ExecError::Docker {
            operation: "pack the inputs",
            image: job.image.clone(),
            message: e.to_string(),
        })?;
        let options = UploadToContainerOptionsBuilder::default().path("/").build();
        self.docker
            .upload_to_container(id, Some(options), bollard::body_full(archive.into()))
            .await
            .map_err(err("copy the patches into the container"))?;

        let started = Instant::now();
        self.docker.start_container(id, None).await.map_err(err("start the container"))?;
        let mut wait = self.docker.wait_container(id, None);
        let waited = tokio::time::timeout(job.deadline, wait.next()).await;
        let (exit_code, killed_at_deadline) = match waited {
            Ok(Some(Ok(response))) => (Some(response.status_code), false),
            // bollard reports a non-zero exit as an error; it is a result, not a failure.
            Ok(Some(Err(bollard::errors::Error::DockerContainerWaitError { code, .. }))) => (Some(code), false),
            Ok(Some(Err(e))) => return Err(err("wait for the container")(e)),
            Ok(None) => (None, false),
            Err(_) => {
                let options = KillContainerOptionsBuilder::default().signal("SIGKILL").build();
                let _ = self.docker.kill_container(id, Some(options)).await;
                (None, true)
            }
        };
        let wall = started.elapsed();
        let oom_killed = self
            .docker
            .inspect_container(id, None)
            .await
            .ok()
            .and_then(|i| i.state)
            .and_then(|s| s.oom_killed)
            .unwrap_or(false);

        let options = LogsOptionsBuilder::default().stdout(true).stderr(true).build();
        let mut logs = self.docker.logs(id, Some(options));
        let mut output = Vec::new();
        while let Some(chunk) = logs.next().await {
            output.extend_from_slice(&chunk.map_err(err("read the container's output"))?.into_bytes());
        }

        let options = DownloadFromContainerOptionsBuilder::default().path(OUT_DIR).build();
        let mut download = self.docker.download_from_container(id, Some(options));
        let mut tar_bytes = Vec::new();
        let mut files = Vec::new();
        let mut download_ok = true;
        while let Some(chunk) = download.next().await {
            match chunk {
                Ok(bytes) => tar_bytes.extend_from_slice(&bytes),
                Err(_) => {
                    // No output folder: the script stopped before making it. Not an error here;
                    // the caller sees the missing markers.
                    download_ok = false;
                    break;
                }
            }
        }
        if download_ok {
            files = untar_reports(&tar_bytes);
        }
        Ok(JobOutput { output, exit_code, killed_at_deadline, oom_killed, files, wall })
    }
}

/// Inputs under `verdict/in/`, as a tar for the archive API (extracted at `/`).
fn inputs_tar(files: &[(String, Vec<u8>)]) -> std::io::Result<Vec<u8>> {
    let mut builder = tar::Builder::new(Vec::new());
    let dir = IN_DIR.trim_start_matches('/');
    for (name, bytes) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        builder.append_data(&mut header, format!("{dir}/{name}"), bytes.as_slice())?;
    }
    builder.into_inner()
}

/// Regular files of the downloaded output folder, named relative to it (the archive API puts
/// them under `out/`).
fn untar_reports(tar_bytes: &[u8]) -> Vec<StructuredReport> {
    let mut reports = Vec::new();
    let mut archive = tar::Archive::new(tar_bytes);
    let Ok(entries) = archive.entries() else { return reports };
    for entry in entries.flatten() {
        let mut entry = entry;
        if entry.header().entry_type() != tar::EntryType::Regular {
            continue;
        }
        let Ok(path) = entry.path() else { continue };
        let path = path.to_string_lossy().into_owned();
        let name = path.split_once('/').map(|(_, rest)| rest.to_string()).unwrap_or(path);
        let mut bytes = Vec::new();
        if entry.read_to_end(&mut bytes).is_ok() {
            reports.push(StructuredReport { name, bytes });
        }
    }
    reports.sort_by(|a, b| a.name.cmp(&b.name));
    reports
}

/// Limits from the command line's units.
pub fn limits(memory_gib: f64, cpus: f64, pids: i64) -> Limits {
    Limits { memory_bytes: (memory_gib * 1024.0 * 1024.0 * 1024.0) as i64, nano_cpus: (cpus * 1e9) as i64, pids }
}
