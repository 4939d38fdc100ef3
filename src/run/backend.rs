//! The execution seam: "run this script in a container from this image, with these limits and
//! this deadline, and give back the output, the exit code and the files it left".
//!
//! Everything above this module (images, grading, reports) only sees [`Backend`], [`Job`] and
//! [`JobOutput`]. A backend belongs to one run ([`crate::engine::RunScope`]): everything it
//! starts carries the run's labels, and [`Backend::sweep`] removes whatever of the run is still
//! there (leftovers of an earlier process of the same run at start; what interrupted jobs left
//! at the end). [`super::docker::DockerBackend`] drives one engine; another backend (a Swarm
//! replicated-job, a Kubernetes Job) takes its place behind the same trait.
//!
//! Cancellation: a backend is made with the run's [`CancellationToken`]. A job in flight when
//! it fires stops (its container is killed and removed) and ends in [`ExecError::Cancelled`];
//! [`Backend::drain`] waits for all of them. A job's future may be dropped at any point: the
//! container's life is owned by the backend, not by the caller's future.

use std::time::Duration;

use futures_util::future::BoxFuture;
pub use tokio_util::sync::CancellationToken;

use super::output::{Captured, OutputSpec};
use crate::engine::EngineError;
use crate::parse::StructuredReport;

/// Resource limits of an evaluation container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub memory_bytes: i64,
    pub nano_cpus: i64,
    pub pids: i64,
}

impl Limits {
    /// The memory limit in GiB, as the command line gave it.
    pub fn memory_gib(&self) -> f64 {
        self.memory_bytes as f64 / (1024.0 * 1024.0 * 1024.0)
    }
}

/// One script to run.
#[derive(Debug, Clone)]
pub struct Job {
    pub image: String,
    pub script: String,
    /// Files copied to [`super::script::IN_DIR`] before the start.
    pub inputs: Vec<(String, Vec<u8>)>,
    pub limits: Limits,
    /// After this long the container is killed.
    pub deadline: Duration,
    /// Where the console output is streamed, and how much of it is kept.
    pub output: OutputSpec,
    /// The nonce of the script's markers (a backend that frames files into the output uses it).
    pub nonce: String,
}

/// What a job left behind.
#[derive(Debug, Clone)]
pub struct JobOutput {
    /// stdout and stderr, interleaved as the engine recorded them, bounded.
    pub output: Captured,
    /// The container's exit status (`None` when it was killed at the deadline).
    pub exit_code: Option<i64>,
    pub killed_at_deadline: bool,
    /// Whether the kernel's OOM killer killed a process of the container (read for every run).
    pub oom_killed: bool,
    /// Files found under [`super::script::OUT_DIR`], named relative to it.
    pub files: Vec<StructuredReport>,
    /// Things the backend noticed about the job (a report too large to keep, …).
    pub notes: Vec<String>,
    pub wall: Duration,
    /// Where the job ran, when the backend spreads jobs over machines.
    pub node: Option<String>,
}

/// Why a job gave no output.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The engine (or cluster manager) cannot be reached.
    #[error("{0}")]
    Unreachable(#[source] EngineError),
    /// The engine refused or failed a step of the job.
    #[error("{step} for image {image}: {source}")]
    Engine {
        step: &'static str,
        image: String,
        #[source]
        source: EngineError,
    },
    /// The job could not be placed anywhere (a cluster with no node that meets its limits).
    #[error("the job for image {image} cannot be placed: {constraint}")]
    Unplaceable { image: String, constraint: String },
    /// The cluster refused to run the job's task (its image could not be pulled, …).
    #[error("the job for image {image} was refused: {reason}")]
    Rejected { image: String, reason: String },
    /// The nodes the job ran on went down or left, one after the other.
    #[error("the node(s) the job ran on went down or left the cluster: {}", .nodes.join(", "))]
    NodeLost { nodes: Vec<String> },
    /// The job's inputs could not be packed.
    #[error("cannot pack the inputs for image {image}: {source}")]
    Inputs {
        image: String,
        #[source]
        source: std::io::Error,
    },
    /// The run was interrupted; the job was stopped and its container removed.
    #[error("interrupted")]
    Cancelled,
}

impl ExecError {
    /// An engine error at `step`, with unreachability kept apart.
    pub fn engine(step: &'static str, image: &str, source: EngineError) -> ExecError {
        if source.is_unreachable() {
            ExecError::Unreachable(source)
        } else {
            ExecError::Engine { step, image: image.to_string(), source }
        }
    }

    pub fn is_unreachable(&self) -> bool {
        matches!(self, ExecError::Unreachable(_))
    }
}

/// Runs jobs for one run.
pub trait Backend: Send + Sync {
    /// Where jobs run, for messages (`the Docker engine at unix:///var/run/docker.sock`).
    fn describe(&self) -> String;

    /// Runs one job to its end (or its deadline), removing what it made afterwards.
    fn run(&self, job: Job) -> BoxFuture<'_, Result<JobOutput, ExecError>>;

    /// False after a job found the engine gone, until [`Backend::ping`] succeeds again.
    fn reachable(&self) -> bool;

    /// Checks that the engine answers; success makes it [`Backend::reachable`] again.
    fn ping(&self) -> BoxFuture<'_, Result<(), ExecError>>;

    /// Removes everything of this run the engine still holds; returns how many things it
    /// removed. Only call it when no job of this run is in flight.
    fn sweep(&self) -> BoxFuture<'_, Result<usize, ExecError>>;

    /// After cancellation: waits (at most `within`) for the jobs in flight to stop.
    fn drain(&self, within: Duration) -> BoxFuture<'_, ()>;
}

/// Limits from the command line's units.
pub fn limits(memory_gib: f64, cpus: f64, pids: i64) -> Limits {
    Limits { memory_bytes: (memory_gib * 1024.0 * 1024.0 * 1024.0) as i64, nano_cpus: (cpus * 1e9) as i64, pids }
}
