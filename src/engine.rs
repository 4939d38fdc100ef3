//! The Docker engine connection and the containers verdict owns.
//!
//! Every container verdict makes carries [`OWNER_LABEL`] and a per-process [`SESSION_LABEL`], so
//! one cleanup path ([`remove_session_containers`]) can remove all of them: after each
//! evaluation, at the end of a run, and on Ctrl-C. bollard's own per-request timeout is set high
//! on purpose (a test run or an image build can take a long time); every wait in verdict has its
//! own deadline instead.

use std::collections::HashMap;
use std::time::Duration;

use bollard::query_parameters::{ListContainersOptionsBuilder, RemoveContainerOptionsBuilder};
use bollard::Docker;

/// Label on every container and image verdict makes.
pub const OWNER_LABEL: &str = "verdict.owned";
/// Label holding the id of the verdict process that made a container.
pub const SESSION_LABEL: &str = "verdict.session";
/// Label holding the run id an evaluation container belongs to.
pub const RUN_LABEL: &str = "verdict.run";

/// bollard's per-request timeout: long enough for any build or test run; verdict's own
/// deadlines are shorter.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(24 * 3600);
const PING_TIMEOUT: Duration = Duration::from_secs(15);

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("cannot reach the Docker engine at {host}: {reason}\n  start it with: sudo bash dockerfiles/engine.sh   (installs docker.io when missing and starts dockerd), or set DOCKER_HOST")]
    Unreachable { host: String, reason: String },
}

/// Connects to the engine named by `DOCKER_HOST` (unix socket, tcp, or tcp with TLS when
/// `DOCKER_TLS_VERIFY` is set) and checks that it answers.
pub async fn connect() -> Result<Docker, EngineError> {
    let host = std::env::var("DOCKER_HOST").unwrap_or_else(|_| "unix:///var/run/docker.sock".into());
    let unreachable = |reason: String| EngineError::Unreachable { host: host.clone(), reason };
    let docker = Docker::connect_with_defaults().map_err(|e| unreachable(e.to_string()))?.with_timeout(CLIENT_TIMEOUT);
    match tokio::time::timeout(PING_TIMEOUT, docker.ping()).await {
        Ok(Ok(_)) => Ok(docker),
        Ok(Err(e)) => Err(unreachable(e.to_string())),
        Err(_) => Err(unreachable(format!("no answer within {} s", PING_TIMEOUT.as_secs()))),
    }
}

/// This process's session id, used in [`SESSION_LABEL`].
pub fn session_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| format!("{}-{:08x}", std::process::id(), rand::random::<u32>()))
}

/// The labels every container of this process carries.
pub fn container_labels(run_id: &str) -> HashMap<String, String> {
    HashMap::from([
        (OWNER_LABEL.to_string(), "1".to_string()),
        (SESSION_LABEL.to_string(), session_id().to_string()),
        (RUN_LABEL.to_string(), run_id.to_string()),
    ])
}

/// Removes (forcibly) every container this process made. Returns how many were removed.
pub async fn remove_session_containers(docker: &Docker) -> usize {
    remove_labelled(docker, &format!("{SESSION_LABEL}={}", session_id())).await
}

/// Removes every container carrying `label` (`key=value`).
pub async fn remove_labelled(docker: &Docker, label: &str) -> usize {
    let filters = HashMap::from([("label".to_string(), vec![label.to_string()])]);
    let options = ListContainersOptionsBuilder::default().all(true).filters(&filters).build();
    let Ok(Ok(containers)) = tokio::time::timeout(Duration::from_secs(30), docker.list_containers(Some(options))).await
    else {
        return 0;
    };
    let mut removed = 0;
    for c in containers {
        if let Some(id) = c.id {
            if remove_container(docker, &id).await {
                removed += 1;
            }
        }
    }
    removed
}

/// Force-removes one container (and its anonymous volumes); true when it is gone.
pub async fn remove_container(docker: &Docker, id: &str) -> bool {
    let options = RemoveContainerOptionsBuilder::default().force(true).v(true).build();
    matches!(
        tokio::time::timeout(Duration::from_secs(60), docker.remove_container(id, Some(options))).await,
        Ok(Ok(()))
    )
}
