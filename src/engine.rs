//! The Docker engine connection, the labels on everything verdict makes, and the deadline on
//! every engine call.
//!
//! - [`Engine`] is the one handle on an engine. Every request goes through [`Engine::call`] (or
//!   [`Engine::stream`]), which gives it a deadline and tells a refused request apart from an
//!   engine that is gone: a transport error or a missed deadline is followed by a short ping, and
//!   an engine that does not answer it is marked unreachable ([`Engine::reachable`]) until a ping
//!   succeeds again. The scheduler stops starting work while the engine is unreachable.
//! - Labels: everything verdict makes carries [`OWNER_LABEL`]; everything a run makes also
//!   carries that run's [`RunScope`] ([`RUN_LABEL`], the run's output folder hashed, with the
//!   folder and the run id beside it for people), so a run can remove what an earlier run of the
//!   same folder left behind without touching another folder's run with the same id.
//!
//! bollard's own per-request timeout is set high on purpose (a test run or an image build can
//! take a long time); each call has its own deadline instead.

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bollard::query_parameters::{ListContainersOptionsBuilder, RemoveContainerOptionsBuilder};
use bollard::Docker;
use sha2::{Digest, Sha256};

/// Label on every container, image and service verdict makes.
pub const OWNER_LABEL: &str = "verdict.owned";
/// Label holding the key of the run (its output folder, hashed) a container belongs to.
pub const RUN_LABEL: &str = "verdict.run";
/// The run's output folder, for people reading `docker ps`.
pub const RUN_FOLDER_LABEL: &str = "verdict.run.folder";
/// The run id, for people.
pub const RUN_ID_LABEL: &str = "verdict.run.id";
/// Label holding the id of the verdict process that made a container.
pub const SESSION_LABEL: &str = "verdict.session";

/// bollard's per-request timeout: longer than any of verdict's own deadlines.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(24 * 3600);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// How long the ping after a failed request may take before the engine counts as gone.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);
/// Deadline of the small requests (list, inspect, remove).
pub const SHORT_CALL: Duration = Duration::from_secs(60);

/// Why an engine call failed. The bollard error is kept as the source.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The engine did not answer (connection refused or lost, or no answer to a ping).
    #[error("engine not reachable at {host} (while trying to {operation}): {reason}")]
    Unreachable {
        host: String,
        operation: String,
        reason: String,
        #[source]
        source: Option<bollard::errors::Error>,
    },
    /// The engine answers pings but this request did not finish in time.
    #[error("the engine did not {operation} within {} s", .limit.as_secs())]
    Timeout { operation: String, limit: Duration },
    /// The engine answered with an error.
    #[error("failed to {operation}: {source}")]
    Api {
        operation: String,
        #[source]
        source: bollard::errors::Error,
    },
}

impl EngineError {
    /// True when the engine could not be reached (as opposed to refusing the request).
    pub fn is_unreachable(&self) -> bool {
        matches!(self, EngineError::Unreachable { .. })
    }

    /// True when the engine said the object does not exist (HTTP 404).
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            EngineError::Api { source: bollard::errors::Error::DockerResponseServerError { status_code: 404, .. }, .. }
        )
    }
}

/// No engine answered when verdict started.
#[derive(Debug, thiserror::Error)]
#[error("cannot reach the Docker engine at {host}: {reason}\n  start it with: sudo bash dockerfiles/engine.sh   (installs docker.io when missing and starts dockerd), or set DOCKER_HOST")]
pub struct ConnectError {
    pub host: String,
    pub reason: String,
    #[source]
    pub source: Option<bollard::errors::Error>,
}

/// A connection to one engine, shared by the image builder and the execution backend.
#[derive(Clone)]
pub struct Engine {
    inner: Arc<Inner>,
}

struct Inner {
    docker: Docker,
    host: String,
    lost: AtomicBool,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("host", &self.inner.host).finish()
    }
}

impl Engine {
    /// Connects to the engine named by `DOCKER_HOST` (unix socket, tcp, or tcp with TLS when
    /// `DOCKER_TLS_VERIFY` is set) and checks that it answers.
    pub async fn connect() -> Result<Engine, ConnectError> {
        let host = std::env::var("DOCKER_HOST").unwrap_or_else(|_| "unix:///var/run/docker.sock".into());
        let docker = Docker::connect_with_defaults()
            .map_err(|e| ConnectError { host: host.clone(), reason: e.to_string(), source: Some(e) })?
            .with_timeout(CLIENT_TIMEOUT);
        match tokio::time::timeout(CONNECT_TIMEOUT, docker.ping()).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Err(ConnectError { host, reason: e.to_string(), source: Some(e) }),
            Err(_) => {
                let reason = format!("no answer within {} s", CONNECT_TIMEOUT.as_secs());
                return Err(ConnectError { host, reason, source: None });
            }
        }
        Ok(Engine { inner: Arc::new(Inner { docker, host, lost: AtomicBool::new(false) }) })
    }

    /// The engine's address, as `DOCKER_HOST` gave it.
    pub fn host(&self) -> &str {
        &self.inner.host
    }

    pub(crate) fn docker(&self) -> &Docker {
        &self.inner.docker
    }

    /// False after a request found the engine gone, until a ping succeeds again.
    pub fn reachable(&self) -> bool {
        !self.inner.lost.load(Ordering::SeqCst)
    }

    /// Pings the engine (within a few seconds); success marks it reachable again.
    pub async fn ping(&self) -> Result<(), EngineError> {
        let unreachable = |reason: String, source| EngineError::Unreachable {
            host: self.inner.host.clone(),
            operation: "answer a ping".into(),
            reason,
            source,
        };
        let result = match tokio::time::timeout(PROBE_TIMEOUT, self.inner.docker.ping()).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(unreachable(e.to_string(), Some(e))),
            Err(_) => Err(unreachable(format!("no answer within {} s", PROBE_TIMEOUT.as_secs()), None)),
        };
        self.inner.lost.store(result.is_err(), Ordering::SeqCst);
        result
    }

    /// Runs one request with a deadline. A request the engine refused is [`EngineError::Api`];
    /// a transport failure or a missed deadline is checked with a ping, and becomes
    /// [`EngineError::Unreachable`] (marking the engine so) when the ping fails too.
    pub async fn call<T>(
        &self,
        operation: &str,
        limit: Duration,
        request: impl Future<Output = Result<T, bollard::errors::Error>>,
    ) -> Result<T, EngineError> {
        match tokio::time::timeout(limit, request).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(self.classify(operation, e).await),
            Err(_) => Err(self.missed(operation, limit).await),
        }
    }

    /// What a failed request means: refused (the engine answered) or unreachable.
    pub(crate) async fn classify(&self, operation: &str, e: bollard::errors::Error) -> EngineError {
        if answered(&e) {
            return EngineError::Api { operation: operation.into(), source: e };
        }
        match self.ping().await {
            Ok(()) => EngineError::Api { operation: operation.into(), source: e },
            Err(_) => EngineError::Unreachable {
                host: self.inner.host.clone(),
                operation: operation.into(),
                reason: e.to_string(),
                source: Some(e),
            },
        }
    }

    /// What a missed deadline means: a slow request, or an engine that is gone.
    pub(crate) async fn missed(&self, operation: &str, limit: Duration) -> EngineError {
        match self.ping().await {
            Ok(()) => EngineError::Timeout { operation: operation.into(), limit },
            Err(_) => EngineError::Unreachable {
                host: self.inner.host.clone(),
                operation: operation.into(),
                reason: format!("no answer within {} s", limit.as_secs()),
                source: None,
            },
        }
    }

    /// Containers carrying every label of `filter` (`key=value` or `key`), stopped ones too.
    pub async fn containers(&self, filter: &[String]) -> Result<Vec<OwnedContainer>, EngineError> {
        let filters = HashMap::from([("label".to_string(), filter.to_vec())]);
        let options = ListContainersOptionsBuilder::default().all(true).filters(&filters).build();
        let listed = self.call("list containers", SHORT_CALL, self.inner.docker.list_containers(Some(options))).await?;
        Ok(listed
            .into_iter()
            .filter_map(|c| {
                let labels = c.labels.unwrap_or_default();
                Some(OwnedContainer {
                    id: c.id?,
                    name: c.names.unwrap_or_default().first().map(|n| n.trim_start_matches('/').to_string()),
                    state: c.state.map(|s| s.to_string()).unwrap_or_default(),
                    run_key: labels.get(RUN_LABEL).cloned(),
                    run_folder: labels.get(RUN_FOLDER_LABEL).cloned(),
                })
            })
            .collect())
    }

    /// Force-removes one container and its anonymous volumes. A container already gone is
    /// not an error.
    pub async fn remove_container(&self, id: &str) -> Result<(), EngineError> {
        let options = RemoveContainerOptionsBuilder::default().force(true).v(true).build();
        match self.call("remove a container", SHORT_CALL, self.inner.docker.remove_container(id, Some(options))).await {
            Err(e) if e.is_not_found() => Ok(()),
            other => other,
        }
    }

    /// Removes every container carrying every label of `filter`; returns how many.
    pub async fn remove_containers(&self, filter: &[String]) -> Result<usize, EngineError> {
        let mut removed = 0;
        for container in self.containers(filter).await? {
            self.remove_container(&container.id).await?;
            removed += 1;
        }
        Ok(removed)
    }
}

/// True when bollard's error carries the engine's own answer (so the engine is there).
fn answered(e: &bollard::errors::Error) -> bool {
    use bollard::errors::Error as E;
    matches!(e, E::DockerResponseServerError { .. } | E::DockerContainerWaitError { .. } | E::JsonDataError { .. })
}

/// A container verdict owns, as `verdict clean` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedContainer {
    pub id: String,
    pub name: Option<String>,
    pub state: String,
    pub run_key: Option<String>,
    pub run_folder: Option<String>,
}

/// One run, named by its output folder: two runs with the same id under different `--logs`
/// folders are different runs and never touch each other's containers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunScope {
    folder: PathBuf,
    run_id: String,
    key: String,
}

impl RunScope {
    /// The scope of the run whose output goes to `folder` (`<logs>/<run-id>`). The folder is
    /// made absolute (its parent must exist), so `logs` and `./logs` are the same run.
    pub fn new(folder: &Path, run_id: &str) -> std::io::Result<RunScope> {
        let folder = absolute(folder)?;
        let key = hex::encode(&Sha256::digest(folder.to_string_lossy().as_bytes())[..8]);
        Ok(RunScope { folder, run_id: run_id.to_string(), key })
    }

    pub fn folder(&self) -> &Path {
        &self.folder
    }

    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The value of [`RUN_LABEL`] for this run.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The label filter (`verdict.run=<key>`) that finds this run's containers.
    pub fn filter(&self) -> Vec<String> {
        vec![format!("{RUN_LABEL}={}", self.key)]
    }

    /// The labels on everything this run makes.
    pub fn labels(&self) -> HashMap<String, String> {
        HashMap::from([
            (OWNER_LABEL.to_string(), "1".to_string()),
            (RUN_LABEL.to_string(), self.key.clone()),
            (RUN_FOLDER_LABEL.to_string(), self.folder.display().to_string()),
            (RUN_ID_LABEL.to_string(), self.run_id.clone()),
            (SESSION_LABEL.to_string(), session_id().to_string()),
        ])
    }
}

/// `path` made absolute without resolving its last component (which may not exist yet); the
/// parent is canonicalized so symlinks and `..` name one folder one way.
fn absolute(path: &Path) -> std::io::Result<PathBuf> {
    let path = if path.is_absolute() { path.to_path_buf() } else { std::env::current_dir()?.join(path) };
    if let Ok(canonical) = path.canonicalize() {
        return Ok(canonical);
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => Ok(absolute(parent)?.join(name)),
        _ => Ok(path),
    }
}

/// This process's session id, used in [`SESSION_LABEL`].
pub fn session_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| format!("{}-{:08x}", std::process::id(), rand::random::<u32>()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_its_folder_not_its_id() {
        let dir = tempfile::tempdir().unwrap();
        let a = RunScope::new(&dir.path().join("alice").join("r1"), "r1").unwrap();
        let b = RunScope::new(&dir.path().join("bob").join("r1"), "r1").unwrap();
        assert_ne!(a.key(), b.key(), "same run id, different folders");
        std::fs::create_dir_all(dir.path().join("alice")).unwrap();
        let again = RunScope::new(&dir.path().join("alice").join(".").join("..").join("alice").join("r1"), "r1");
        assert_eq!(again.unwrap().key(), a.key(), "one folder spelled two ways is one run");
        assert_eq!(a.filter(), vec![format!("verdict.run={}", a.key())]);
        let labels = a.labels();
        assert_eq!(labels[OWNER_LABEL], "1");
        assert_eq!(labels[RUN_ID_LABEL], "r1");
        assert!(labels[RUN_FOLDER_LABEL].ends_with("alice/r1"), "{labels:?}");
    }
}
