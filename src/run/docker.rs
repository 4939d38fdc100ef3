//! [`DockerBackend`]: one job is one container on one engine (local, or remote through
//! `DOCKER_HOST`).
//!
//! The container's life runs in a task the backend owns (tracked, so [`Backend::drain`] can wait
//! for it): create, copy the inputs in, start, wait until the script exits or the deadline
//! passes (then kill), read the OOM flag, stream the logs into the bounded output sink,
//! download the output folder, and remove the container, whatever happened. Every engine call
//! has its own deadline ([`crate::engine::Engine::call`]). A container that could not be
//! removed because the engine was gone is remembered and removed once the engine answers again.

use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bollard::models::{ContainerCreateBody, HostConfig};
use bollard::query_parameters::{
    CreateContainerOptionsBuilder, DownloadFromContainerOptionsBuilder, KillContainerOptionsBuilder,
    LogsOptionsBuilder, UploadToContainerOptionsBuilder,
};
use futures_util::future::BoxFuture;
use futures_util::StreamExt;
use tokio_util::task::TaskTracker;

use super::backend::{Backend, CancellationToken, ExecError, Job, JobOutput};
use super::output::OutputSink;
use super::script::{IN_DIR, OUT_DIR};
use crate::engine::{self, Engine, RunScope, SHORT_CALL};
use crate::parse::StructuredReport;

/// Deadline for copying a job's inputs in.
const UPLOAD_TIMEOUT: Duration = Duration::from_secs(120);
/// Deadline for reading a finished container's output, or downloading its reports.
const READ_TIMEOUT: Duration = Duration::from_secs(600);
/// Structured reports larger than this (all together) are not kept.
const MAX_REPORT_BYTES: usize = 512 << 20;

/// Runs jobs in containers on one Docker engine.
#[derive(Clone)]
pub struct DockerBackend {
    inner: Arc<Inner>,
}

struct Inner {
    engine: Engine,
    scope: RunScope,
    cancel: CancellationToken,
    tracker: TaskTracker,
    /// Containers whose removal failed because the engine was gone.
    orphans: Mutex<Vec<String>>,
}

impl DockerBackend {
    pub fn new(engine: Engine, scope: RunScope, cancel: CancellationToken) -> Self {
        let inner = Inner { engine, scope, cancel, tracker: TaskTracker::new(), orphans: Mutex::new(Vec::new()) };
        Self { inner: Arc::new(inner) }
    }
}

impl Backend for DockerBackend {
    fn describe(&self) -> String {
        format!("the Docker engine at {}", self.inner.engine.host())
    }

    fn run(&self, job: Job) -> BoxFuture<'_, Result<JobOutput, ExecError>> {
        let inner = self.inner.clone();
        Box::pin(async move {
            if inner.cancel.is_cancelled() {
                return Err(ExecError::Cancelled);
            }
            let task = self.inner.tracker.spawn(run_job(inner, job));
            task.await.unwrap_or(Err(ExecError::Cancelled))
        })
    }

    fn reachable(&self) -> bool {
        self.inner.engine.reachable()
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), ExecError>> {
        Box::pin(async move {
            self.inner.engine.ping().await.map_err(ExecError::Unreachable)?;
            let orphans = std::mem::take(&mut *self.inner.orphans.lock().unwrap_or_else(|e| e.into_inner()));
            for id in orphans {
                if self.inner.engine.remove_container(&id).await.is_err() {
                    self.inner.orphans.lock().unwrap_or_else(|e| e.into_inner()).push(id);
                }
            }
            Ok(())
        })
    }

    fn sweep(&self) -> BoxFuture<'_, Result<usize, ExecError>> {
        Box::pin(async move {
            let removed = self
                .inner
                .engine
                .remove_containers(&self.inner.scope.filter())
                .await
                .map_err(|e| ExecError::engine("remove the run's containers", "-", e))?;
            self.inner.orphans.lock().unwrap_or_else(|e| e.into_inner()).clear();
            Ok(removed)
        })
    }

    fn drain(&self, within: Duration) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            self.inner.tracker.close();
            let _ = tokio::time::timeout(within, self.inner.tracker.wait()).await;
            self.inner.tracker.reopen();
        })
    }
}

/// One container, start to end.
async fn run_job(inner: Arc<Inner>, job: Job) -> Result<JobOutput, ExecError> {
    let engine = &inner.engine;
    let config = ContainerCreateBody {
        image: Some(job.image.clone()),
        cmd: Some(vec!["bash".into(), format!("{IN_DIR}/eval.sh")]),
        working_dir: Some("/testbed".into()),
        labels: Some(inner.scope.labels()),
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
    let created = engine
        .call("create a container", SHORT_CALL, engine.docker().create_container(Some(options), config))
        .await
        .map_err(|e| ExecError::engine("create a container", &job.image, e))?;
    let id = created.id;
    let result = tokio::select! {
        biased;
        () = inner.cancel.cancelled() => Err(ExecError::Cancelled),
        result = run_in(engine, &id, &job) => result,
    };
    if engine.remove_container(&id).await.is_err() {
        inner.orphans.lock().unwrap_or_else(|e| e.into_inner()).push(id);
    }
    result
}

async fn run_in(engine: &Engine, id: &str, job: &Job) -> Result<JobOutput, ExecError> {
    let docker = engine.docker();
    let fail = |step: &'static str| move |e| ExecError::engine(step, &job.image, e);
    let mut files = job.inputs.clone();
    files.push(("eval.sh".into(), job.script.clone().into_bytes()));
    let archive = inputs_tar(&files).map_err(|source| ExecError::Inputs { image: job.image.clone(), source })?;
    let options = UploadToContainerOptionsBuilder::default().path("/").build();
    let upload = docker.upload_to_container(id, Some(options), bollard::body_full(archive.into()));
    engine.call("copy the inputs into the container", UPLOAD_TIMEOUT, upload).await.map_err(fail("copy the inputs"))?;

    let started = Instant::now();
    engine.call("start the container", SHORT_CALL, docker.start_container(id, None)).await.map_err(fail("start"))?;
    let mut wait = docker.wait_container(id, None);
    let (exit_code, killed_at_deadline) = match tokio::time::timeout(job.deadline, wait.next()).await {
        Ok(Some(Ok(response))) => (Some(response.status_code), false),
        // bollard reports a non-zero exit as an error; it is a result, not a failure.
        Ok(Some(Err(bollard::errors::Error::DockerContainerWaitError { code, .. }))) => (Some(code), false),
        Ok(Some(Err(e))) => {
            return Err(ExecError::engine("wait", &job.image, engine.classify("wait for the container", e).await))
        }
        Ok(None) => (None, false),
        Err(_) => {
            let options = KillContainerOptionsBuilder::default().signal("SIGKILL").build();
            engine
                .call("kill the container", SHORT_CALL, docker.kill_container(id, Some(options)))
                .await
                .map_err(fail("kill at the deadline"))?;
            (None, true)
        }
    };
    let wall = started.elapsed();
    let state = engine
        .call("inspect the container", SHORT_CALL, docker.inspect_container(id, None))
        .await
        .map_err(fail("inspect"))?
        .state;
    let oom_killed = state.and_then(|s| s.oom_killed).unwrap_or(false);

    let mut sink = OutputSink::create(&job.output);
    let options = LogsOptionsBuilder::default().stdout(true).stderr(true).build();
    let read_logs = async {
        let mut logs = docker.logs(id, Some(options));
        while let Some(chunk) = logs.next().await {
            sink.push(&chunk?.into_bytes());
        }
        Ok(())
    };
    engine.call("read the container's output", READ_TIMEOUT, read_logs).await.map_err(fail("read the output"))?;
    let (output, write_error) = sink.finish();
    let mut notes = Vec::new();
    if let Some(e) = write_error {
        notes.push(format!("cannot write {}: {e}", job.output.path.display()));
    }
    if output.omitted_bytes > 0 {
        notes.push(format!(
            "the job printed {} bytes; {} in the middle were left out of output.txt (see --max-output)",
            output.total_bytes, output.omitted_bytes
        ));
    }

    let options = DownloadFromContainerOptionsBuilder::default().path(OUT_DIR).build();
    let download = async {
        let mut stream = docker.download_from_container(id, Some(options));
        let mut tar_bytes = Vec::new();
        while let Some(chunk) = stream.next().await {
            match chunk {
                Ok(bytes) => tar_bytes.extend_from_slice(&bytes),
                // No output folder: the script stopped before making it. Not an error here;
                // the caller sees the missing markers.
                Err(bollard::errors::Error::DockerResponseServerError { status_code: 404, .. }) => return Ok(None),
                Err(e) => return Err(e),
            }
            if tar_bytes.len() > MAX_REPORT_BYTES {
                return Ok(Some(Err(tar_bytes.len())));
            }
        }
        Ok(Some(Ok(tar_bytes)))
    };
    let files = match engine.call("download the reports", READ_TIMEOUT, download).await.map_err(fail("download"))? {
        Some(Ok(tar_bytes)) => untar_reports(&tar_bytes),
        Some(Err(size)) => {
            notes.push(format!(
                "the structured reports exceed {} MiB ({size} bytes read); none kept",
                MAX_REPORT_BYTES >> 20
            ));
            Vec::new()
        }
        None => Vec::new(),
    };
    Ok(JobOutput { output, exit_code, killed_at_deadline, oom_killed, files, notes, wall, node: None })
}

/// Inputs under `verdict/in/`, as a tar for the archive API (extracted at `/`).
pub(crate) fn inputs_tar(files: &[(String, Vec<u8>)]) -> std::io::Result<Vec<u8>> {
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
pub(crate) fn untar_reports(tar_bytes: &[u8]) -> Vec<StructuredReport> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_land_under_the_in_folder_and_reports_come_back_by_name() {
        let tar_bytes = inputs_tar(&[("eval.sh".into(), b"echo hi".to_vec())]).unwrap();
        let mut archive = tar::Archive::new(tar_bytes.as_slice());
        let names: Vec<String> =
            archive.entries().unwrap().map(|e| e.unwrap().path().unwrap().display().to_string()).collect();
        assert_eq!(names, vec!["verdict/in/eval.sh"]);

        let mut builder = tar::Builder::new(Vec::new());
        for (name, body) in [("out/junit.xml", "<x/>"), ("out/collected/a/b.xml", "<y/>")] {
            let mut header = tar::Header::new_gnu();
            header.set_size(body.len() as u64);
            header.set_mode(0o644);
            builder.append_data(&mut header, name, body.as_bytes()).unwrap();
        }
        let reports = untar_reports(&builder.into_inner().unwrap());
        let names: Vec<&str> = reports.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, vec!["collected/a/b.xml", "junit.xml"]);
    }
}
