//! Opening a run: its output folder is writable and locked (one process per run folder), the
//! stop signals are listened to, the execution backend is made for the run, and whatever an
//! earlier process of the same run left on the engine (after a SIGKILL, or an engine that died
//! under it) is removed before anything starts.

use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::backend::{Backend, CancellationToken, ExecError};
use super::docker::DockerBackend;
use super::scheduler::Scheduler;
use super::signals::Signals;
use super::swarm::{SwarmBackend, SwarmError};
use crate::engine::{Engine, RunScope, RUN_LABEL};

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot write to the logs folder {}: {source}; pass a writable --logs DIR", .folder.display())]
    Unwritable {
        folder: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the run folder {} is in use by another verdict process ({holder}); wait for it to end, or choose another --run-id or --logs", .folder.display())]
    Busy { folder: PathBuf, holder: String },
    #[error("cannot listen for SIGINT, SIGTERM and SIGHUP: {0}")]
    Signals(#[source] std::io::Error),
    #[error(transparent)]
    Swarm(Box<SwarmError>),
    #[error("cannot remove what an earlier run of {} left on the engine: {source}", .folder.display())]
    Sweep {
        folder: PathBuf,
        #[source]
        source: Box<ExecError>,
    },
}

impl SessionError {
    /// True when the engine is the cause (the CLI exits with the engine's code).
    pub fn is_engine(&self) -> bool {
        matches!(self, SessionError::Sweep { .. } | SessionError::Swarm(_))
    }
}

/// Where a run's jobs run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackendChoice {
    /// Containers on the engine at `DOCKER_HOST`.
    Docker,
    /// Services on the swarm `DOCKER_HOST` manages, with images through this registry (and the
    /// limits also reserved when `reserve`).
    Swarm { registry: String, reserve: bool },
}

/// One open run.
pub struct Session {
    pub engine: Engine,
    pub scope: RunScope,
    pub backend: Arc<dyn Backend>,
    pub signals: Signals,
    _lock: RunLock,
}

impl Session {
    /// Opens the run whose output goes to `folder` (`<logs>/<run-id>`) on `engine`.
    pub async fn open(
        engine: Engine,
        folder: &Path,
        run_id: &str,
        choice: &BackendChoice,
    ) -> Result<Session, SessionError> {
        ensure_writable(folder)?;
        let lock = RunLock::acquire(folder)?;
        let scope = RunScope::new(folder, run_id)
            .map_err(|source| SessionError::Unwritable { folder: folder.into(), source })?;
        let token = CancellationToken::new();
        let signals = Signals::listen(token.clone()).map_err(SessionError::Signals)?;
        let backend: Arc<dyn Backend> = match choice {
            BackendChoice::Docker => Arc::new(DockerBackend::new(engine.clone(), scope.clone(), token)),
            BackendChoice::Swarm { registry, reserve } => {
                let backend = SwarmBackend::new(engine.clone(), scope.clone(), token, registry.clone(), *reserve);
                Arc::new(backend.await.map_err(|e| SessionError::Swarm(Box::new(e)))?)
            }
        };
        let swept = backend
            .sweep()
            .await
            .map_err(|e| SessionError::Sweep { folder: folder.to_path_buf(), source: Box::new(e) })?;
        if swept > 0 {
            let what = match choice {
                BackendChoice::Docker => "container(s)",
                BackendChoice::Swarm { .. } => "service(s)",
            };
            eprintln!("removed {swept} {what} left by an earlier run of {}", scope.folder().display());
        }
        signals.set_forced_note(format!(
            "Containers labelled {RUN_LABEL}={} may remain; the next run of this --run-id (same --logs) removes them when it starts, and `verdict clean` removes every container verdict owns.",
            scope.key()
        ));
        Ok(Session { engine, scope, backend, signals, _lock: lock })
    }

    /// The worker pool for this run.
    pub fn scheduler(&self, workers: usize, engine_wait: Duration) -> Scheduler {
        Scheduler { backend: self.backend.clone(), signals: self.signals.clone(), workers, engine_wait }
    }
}

/// Makes `folder` and checks that a file can be written in it.
pub fn ensure_writable(folder: &Path) -> Result<(), SessionError> {
    let unwritable = |source| SessionError::Unwritable { folder: folder.to_path_buf(), source };
    std::fs::create_dir_all(folder).map_err(unwritable)?;
    let probe = folder.join(format!(".verdict-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(unwritable)?;
    std::fs::remove_file(&probe).map_err(unwritable)
}

/// Who holds the lock of the run folder `folder`, when a live process does.
pub fn lock_holder(folder: &Path) -> Option<String> {
    if !folder.join(".verdict.lock").exists() {
        return None;
    }
    match RunLock::acquire(folder) {
        Err(SessionError::Busy { holder, .. }) => Some(holder),
        _ => None,
    }
}

/// An exclusive lock on a run folder, held while the run is open (the kernel drops it when the
/// process ends, however it ends).
struct RunLock {
    _file: std::fs::File,
}

impl RunLock {
    fn acquire(folder: &Path) -> Result<RunLock, SessionError> {
        let path = folder.join(".verdict.lock");
        let unwritable = |source| SessionError::Unwritable { folder: folder.to_path_buf(), source };
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(unwritable)?;
        // SAFETY: flock on a descriptor this function owns; no memory is shared.
        let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
        if !locked {
            let holder = std::fs::read_to_string(&path).unwrap_or_default().trim().to_string();
            let holder = if holder.is_empty() { "another process".to_string() } else { holder };
            return Err(SessionError::Busy { folder: folder.to_path_buf(), holder });
        }
        let _ = file.set_len(0);
        let _ = writeln!(file, "pid {}", std::process::id());
        Ok(RunLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_folder_is_locked_by_one_holder_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let first = RunLock::acquire(dir.path()).unwrap();
        match RunLock::acquire(dir.path()) {
            Err(SessionError::Busy { holder, .. }) => assert_eq!(holder, format!("pid {}", std::process::id())),
            other => panic!("a second lock must fail: {:?}", other.err()),
        }
        assert_eq!(lock_holder(dir.path()), Some(format!("pid {}", std::process::id())));
        drop(first);
        assert!(lock_holder(dir.path()).is_none(), "the lock is released with its holder");
        assert!(RunLock::acquire(dir.path()).is_ok());
    }

    #[test]
    fn an_unwritable_folder_is_found_before_anything_runs() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "not a folder").unwrap();
        let err = ensure_writable(&blocker.join("logs")).unwrap_err();
        assert!(err.to_string().contains("--logs"), "{err}");
        assert!(ensure_writable(&dir.path().join("fresh")).is_ok());
    }
}
