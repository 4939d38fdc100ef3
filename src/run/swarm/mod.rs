//! [`SwarmBackend`]: one job is one Docker Swarm `replicated-job` service, on the swarm whose
//! manager `DOCKER_HOST` names.
//!
//! - **Images** are built on the manager's engine as for the local backend, then pushed to the
//!   registry (`--registry HOST:PORT`, once per image per run; layers the registry has are not
//!   sent again), and jobs name them by digest, so every node runs the same bytes.
//! - **One job**: a service with the instance image, on a network of its own (an internal
//!   overlay: no gateway, no route out, no other container on it), the memory, CPU and process
//!   limits, the run's labels, restart policy none, and one completion. The limits are also
//!   *reservations* only when asked for (`--swarm-reserve`): Swarm engines without the fix for
//!   moby/moby#52652 count every finished job's reservation against its node forever (the
//!   tasks of a finished replicated-job are never pruned), so after as many jobs as a node has
//!   room for, it refuses all others ("assigned node no longer meets constraints"). verdict's
//!   `-j` bounds the jobs in flight instead, and a job no node could hold is refused by verdict
//!   before it is created. The
//!   inputs travel in its environment and the output folder comes back framed in its logs
//!   ([`frame`]), so nothing needs a node's engine. The deadline is verdict's: a task running
//!   past it is stopped by removing its service.
//! - **The end of a job** is the last line of its frame, in its logs (followed from the
//!   service's creation), with the eval script's exit code and duration: verdict does not wait
//!   for the task's end to reach the manager, nor read the logs a second time. A task that ends
//!   without the frame (killed at its deadline, out of memory) is read whole once it has ended.
//!   The service and its network are removed in the background.
//! - **Faults**: a task whose node goes down (or leaves) is tried again on another node, at most
//!   [`NODE_RETRIES`] times, then the job is `infra_error` naming the nodes. A task the
//!   scheduler cannot place (no node has the memory or CPUs asked) fails at once with the
//!   scheduler's reason. Services and networks are removed when the job ends, on signals, and
//!   by the sweep at the start of a rerun.

pub mod frame;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bollard::models::{
    Limit, NetworkAttachmentConfig, NetworkCreateRequest, ResourceObject, ServiceSpec, ServiceSpecMode,
    ServiceSpecModeReplicatedJob, TaskSpec, TaskSpecContainerSpec, TaskSpecPlacement, TaskSpecResources,
    TaskSpecRestartPolicy, TaskSpecRestartPolicyConditionEnum, TaskState,
};
use bollard::query_parameters::{
    ListNetworksOptionsBuilder, ListServicesOptionsBuilder, ListTasksOptionsBuilder, LogsOptionsBuilder,
    PushImageOptionsBuilder, TagImageOptionsBuilder,
};
use futures_util::future::BoxFuture;
use futures_util::StreamExt;
use tokio::sync::OnceCell;
use tokio_util::task::TaskTracker;

use super::backend::{Backend, CancellationToken, ExecError, Job, JobOutput};
use super::output::OutputSink;
use crate::engine::{self, Engine, EngineError, RunScope, SHORT_CALL};
use frame::{FramedOutput, ENTRY};

/// Times a job is started again on another node after the node it ran on went down.
pub const NODE_RETRIES: usize = 2;
/// How often a job's task is looked at: a cheap call to the manager, for its start (the
/// deadline counts from there), its node, and an end without the frame.
const POLL: Duration = Duration::from_millis(200);
/// How often the node of a running task is checked.
const NODE_CHECK: Duration = Duration::from_secs(2);
/// How long a task may take to be placed and started (its image pulled) before it fails.
const START_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// A task the scheduler reports as unplaceable for this long fails.
const UNPLACEABLE_AFTER: Duration = Duration::from_secs(3);
const PUSH_TIMEOUT: Duration = Duration::from_secs(3600);
const LOGS_TIMEOUT: Duration = Duration::from_secs(600);

/// Runs jobs as Swarm services.
#[derive(Clone)]
pub struct SwarmBackend {
    inner: Arc<Inner>,
}

struct Inner {
    engine: Engine,
    scope: RunScope,
    cancel: CancellationToken,
    tracker: TaskTracker,
    registry: String,
    /// Whether the limits are also reservations.
    reserve: bool,
    /// Local tag → the pushed image's `registry/name@sha256:…`.
    pushed: Mutex<HashMap<String, Arc<OnceCell<String>>>>,
    /// Node id → host name.
    hostnames: Mutex<HashMap<String, String>>,
}

/// Why the engine at `DOCKER_HOST` cannot run Swarm jobs.
#[derive(Debug, thiserror::Error)]
pub enum SwarmError {
    #[error("{host} is not a Swarm manager ({reason}): run `docker swarm init` there (or point DOCKER_HOST at a manager), or use --backend docker")]
    NotManager { host: String, reason: String },
    #[error(transparent)]
    Engine(#[from] EngineError),
}

impl SwarmBackend {
    /// A backend for `scope` on the swarm managed by `engine`, pushing to `registry`.
    pub async fn new(
        engine: Engine,
        scope: RunScope,
        cancel: CancellationToken,
        registry: String,
        reserve: bool,
    ) -> Result<Self, SwarmError> {
        let not_manager = |reason: String| SwarmError::NotManager { host: engine.host().to_string(), reason };
        let info = engine.call("read the engine's info", SHORT_CALL, engine.docker().info()).await?;
        let swarm = info.swarm.unwrap_or_default();
        if swarm.control_available != Some(true) {
            let state = swarm.local_node_state.map(|s| s.to_string()).unwrap_or_else(|| "unknown".into());
            return Err(not_manager(format!("swarm state {state}, not a manager")));
        }
        let inner = Inner {
            engine,
            scope,
            cancel,
            tracker: TaskTracker::new(),
            registry: registry.trim_end_matches('/').to_string(),
            reserve,
            pushed: Mutex::new(HashMap::new()),
            hostnames: Mutex::new(HashMap::new()),
        };
        Ok(Self { inner: Arc::new(inner) })
    }
}

impl Backend for SwarmBackend {
    fn describe(&self) -> String {
        format!("the Swarm managed by {}", self.inner.engine.host())
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
        Box::pin(async move { self.inner.engine.ping().await.map_err(ExecError::Unreachable) })
    }

    fn sweep(&self) -> BoxFuture<'_, Result<usize, ExecError>> {
        Box::pin(async move {
            let fail = |e| ExecError::engine("remove the run's services", "-", e);
            let removed = remove_services(&self.inner.engine, &self.inner.scope.filter()).await.map_err(fail)?;
            remove_networks(&self.inner.engine, &self.inner.scope.filter()).await.map_err(fail)?;
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

/// How one attempt at a job ended, when it did not give output.
enum Attempt {
    /// The node went down or left: try again elsewhere.
    NodeLost {
        node: String,
    },
    /// The task was refused before it ran (Swarm refuses a task whose node's free resources
    /// changed between placement and start, and says so): try again.
    Refused {
        reason: String,
    },
    Failed(ExecError),
}

/// Times a job whose task was refused before it ran is tried again (with backoff from 250 ms
/// to 2 s: about half a minute in all, time for the scheduler to release the resources of the
/// jobs that just ended).
const REFUSED_RETRIES: u32 = 20;

impl From<ExecError> for Attempt {
    fn from(e: ExecError) -> Self {
        Attempt::Failed(e)
    }
}

async fn run_job(inner: Arc<Inner>, job: Job) -> Result<JobOutput, ExecError> {
    let image = push(&inner, &job.image).await?;
    let mut files = job.inputs.clone();
    files.push(("eval.sh".into(), job.script.clone().into_bytes()));
    let env = frame::input_env(&files, &job.nonce)
        .map_err(|source| ExecError::Inputs { image: job.image.clone(), source })?;
    let mut lost_nodes: Vec<String> = Vec::new();
    let mut excluded: Vec<String> = Vec::new();
    let mut refused = 0;
    loop {
        check_capacity(&inner, &job, &excluded).await?;
        match run_once(&inner, &job, &image, &env, &excluded).await {
            Ok(output) => return Ok(output),
            Err(Attempt::Failed(e)) => return Err(e),
            Err(Attempt::Refused { reason }) => {
                refused += 1;
                if refused > REFUSED_RETRIES {
                    return Err(ExecError::Rejected { image: job.image.clone(), reason });
                }
                tokio::time::sleep(Duration::from_millis(250 << refused.min(3))).await;
            }
            Err(Attempt::NodeLost { node }) => {
                let name = hostname(&inner, &node).await;
                tracing::warn!(node = %name, "a node went down under a job; trying another");
                lost_nodes.push(name);
                excluded.push(node);
                if lost_nodes.len() > NODE_RETRIES {
                    return Err(ExecError::NodeLost { nodes: lost_nodes });
                }
            }
        }
    }
}

/// One service for one attempt, removed (with its network) whatever happens.
async fn run_once(
    inner: &Arc<Inner>,
    job: &Job,
    image: &str,
    env: &[String],
    excluded: &[String],
) -> Result<JobOutput, Attempt> {
    let engine = &inner.engine;
    let docker = engine.docker();
    let fail = |step: &'static str| move |e| ExecError::engine(step, &job.image, e);
    let name = format!("verdict-{}-{:08x}", engine::session_id(), rand::random::<u32>());
    let labels = inner.scope.labels();
    let network = NetworkCreateRequest {
        name: name.clone(),
        driver: Some("overlay".into()),
        scope: Some("swarm".into()),
        internal: Some(true),
        labels: Some(labels.clone()),
        ..Default::default()
    };
    let network_id = engine
        .call("create the job's network", SHORT_CALL, docker.create_network(network))
        .await
        .map_err(fail("create the job's network"))?
        .id;
    let spec = service_spec(inner, &name, image, env, job, &network_id, excluded);
    let created = engine.call("create the job's service", SHORT_CALL, docker.create_service(spec, None)).await;
    let (service, result) = match created {
        Err(e) => (None, Err(Attempt::Failed(fail("create the job's service")(e)))),
        Ok(created) => {
            let id = created.id.unwrap_or_else(|| name.clone());
            let result = tokio::select! {
                biased;
                () = inner.cancel.cancelled() => Err(Attempt::Failed(ExecError::Cancelled)),
                result = follow(inner, &id, job) => result,
            };
            (Some(id), result)
        }
    };
    // The service and its network go in the background: the job has its output, and the
    // network is free only once the task's container is gone. The run's sweep at its end (and
    // a rerun's at its start) removes what is left.
    let engine = engine.clone();
    inner.tracker.spawn(async move {
        if let Some(id) = service {
            let _ = engine.call("remove the job's service", SHORT_CALL, engine.docker().delete_service(&id)).await;
        }
        for _ in 0..50 {
            match engine.call("remove the job's network", SHORT_CALL, engine.docker().remove_network(&network_id)).await
            {
                Err(e) if !e.is_not_found() && !e.is_unreachable() => {
                    tokio::time::sleep(Duration::from_millis(200)).await
                }
                _ => return,
            }
        }
    });
    result
}

fn service_spec(
    inner: &Inner,
    name: &str,
    image: &str,
    env: &[String],
    job: &Job,
    network: &str,
    excluded: &[String],
) -> ServiceSpec {
    let limits = &job.limits;
    let (labels, reserve) = (&inner.scope.labels(), inner.reserve);
    ServiceSpec {
        name: Some(name.to_string()),
        labels: Some(labels.clone()),
        task_template: Some(TaskSpec {
            container_spec: Some(TaskSpecContainerSpec {
                image: Some(image.to_string()),
                command: Some(vec!["bash".into(), "-c".into(), ENTRY.into()]),
                env: Some(env.to_vec()),
                dir: Some("/testbed".into()),
                labels: Some(labels.clone()),
                ..Default::default()
            }),
            resources: Some(TaskSpecResources {
                limits: Some(Limit {
                    nano_cpus: Some(limits.nano_cpus),
                    memory_bytes: Some(limits.memory_bytes),
                    pids: Some(limits.pids),
                }),
                reservations: reserve.then(|| ResourceObject {
                    nano_cpus: Some(limits.nano_cpus),
                    memory_bytes: Some(limits.memory_bytes),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            restart_policy: Some(TaskSpecRestartPolicy {
                condition: Some(TaskSpecRestartPolicyConditionEnum::NONE),
                max_attempts: Some(0),
                ..Default::default()
            }),
            placement: Some(TaskSpecPlacement {
                constraints: Some(excluded.iter().map(|node| format!("node.id!={node}")).collect()),
                ..Default::default()
            }),
            networks: Some(vec![NetworkAttachmentConfig { target: Some(network.to_string()), ..Default::default() }]),
            ..Default::default()
        }),
        mode: Some(ServiceSpecMode {
            replicated_job: Some(ServiceSpecModeReplicatedJob { max_concurrent: Some(1), total_completions: Some(1) }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Follows the service's logs from its creation and its task's state, until the frame's last
/// line arrives (the job is done: everything it printed has come, with its exit code) or the
/// task ends without it (killed, out of memory, at its deadline, its wrapper failed), when the
/// logs are read again whole.
async fn follow(inner: &Arc<Inner>, service: &str, job: &Job) -> Result<JobOutput, Attempt> {
    let engine = &inner.engine;
    let docker = engine.docker();
    let fail = |step: &'static str| move |e| ExecError::engine(step, &job.image, e);
    let created = Instant::now();
    let mut running_since: Option<Instant> = None;
    let mut unplaceable_since: Option<Instant> = None;
    let mut node_checked = Instant::now();
    let mut killed_at_deadline = false;
    let mut node: Option<String> = None;
    let filters = HashMap::from([("service".to_string(), vec![service.to_string()])]);
    let list_tasks = || async {
        let options = ListTasksOptionsBuilder::default().filters(&filters).build();
        let tasks = engine
            .call("list the job's tasks", SHORT_CALL, docker.list_tasks(Some(options)))
            .await
            .map_err(fail("follow the job"))?;
        Ok::<_, ExecError>(tasks.into_iter().max_by_key(|t| t.created_at.as_ref().map(|d| d.to_string())))
    };
    let mut framed = FramedOutput::new(OutputSink::create(&job.output), &job.nonce);
    let options = LogsOptionsBuilder::default().stdout(true).stderr(true).follow(true).build();
    let mut logs = docker.service_logs(service, Some(options));
    let mut following = true;
    let mut poll = tokio::time::interval(POLL);
    poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    poll.tick().await;
    // The task's end, when it came before the frame's.
    let mut ended: Option<bollard::models::Task> = None;
    while ended.is_none() && !framed.is_done() {
        tokio::select! {
            chunk = logs.next(), if following => match chunk {
                Some(Ok(chunk)) => framed.push(&chunk.into_bytes()),
                // Without the stream the task's end decides, and the logs are read whole then.
                Some(Err(e)) => {
                    tracing::debug!(service, "the job's log stream broke: {e}");
                    following = false;
                }
                None => following = false,
            },
            _ = poll.tick() => {
                let Some(task) = list_tasks().await? else { continue };
                let status = task.status.clone().unwrap_or_default();
                node = task.node_id.clone().filter(|n| !n.is_empty()).or(node);
                match status.state {
                    Some(TaskState::COMPLETE | TaskState::FAILED | TaskState::SHUTDOWN) => {
                        ended = Some(task);
                        continue;
                    }
                    Some(TaskState::REJECTED) => {
                        let reason = status.err.or(status.message).unwrap_or_default();
                        return Err(Attempt::Refused { reason });
                    }
                    Some(TaskState::ORPHANED) => return Err(Attempt::NodeLost { node: node.unwrap_or_default() }),
                    Some(TaskState::RUNNING) => {
                        running_since.get_or_insert_with(Instant::now);
                    }
                    Some(TaskState::PENDING) if status.err.as_deref().is_some_and(|e| e.contains("no suitable node")) => {
                        let since = *unplaceable_since.get_or_insert_with(Instant::now);
                        if since.elapsed() >= UNPLACEABLE_AFTER {
                            let constraint = status.err.unwrap_or_default();
                            return Err(Attempt::Failed(ExecError::Unplaceable { image: job.image.clone(), constraint }));
                        }
                    }
                    _ => unplaceable_since = None,
                }
                if let Some(node) = &node {
                    if node_checked.elapsed() >= NODE_CHECK {
                        node_checked = Instant::now();
                        if node_is_down(engine, node).await {
                            return Err(Attempt::NodeLost { node: node.clone() });
                        }
                    }
                }
                match running_since {
                    Some(since) if since.elapsed() >= job.deadline => {
                        killed_at_deadline = true;
                        ended = Some(task);
                    }
                    None if created.elapsed() >= START_TIMEOUT => {
                        let reason = format!("the task did not start within {} s", START_TIMEOUT.as_secs());
                        return Err(Attempt::Failed(ExecError::Rejected { image: job.image.clone(), reason }));
                    }
                    _ => {}
                }
            }
        }
    }
    drop(logs);
    let waited = running_since.unwrap_or(created).elapsed();
    let (got, exit_code) = match ended {
        // The frame came whole: its exit code is the eval script's.
        None => {
            let got = framed.finish();
            let exit_code = got.exit_code;
            (got, exit_code)
        }
        Some(task) => {
            drop(framed);
            let status = task.status.unwrap_or_default();
            let exit_code = if killed_at_deadline { None } else { status.container_status.and_then(|c| c.exit_code) };
            (read_logs(engine, service, job).await?, exit_code)
        }
    };
    // Where it ran, when the job ended before a poll saw its node: worth a call, not the result.
    if node.is_none() {
        node = list_tasks().await.ok().flatten().and_then(|t| t.node_id).filter(|n| !n.is_empty());
    }
    // The container's own measure when the frame has it: the task's start reaches verdict late
    // by up to a poll, and a test command stopped by its `timeout` must show the time it ran.
    let wall = got.wall.unwrap_or(waited);
    let mut notes = got.notes;
    if let Some(e) = got.write_error {
        notes.push(format!("cannot write {}: {e}", job.output.path.display()));
    }
    if got.output.omitted_bytes > 0 {
        notes.push(format!(
            "the job printed {} bytes; {} in the middle were left out of output.txt (see --max-output)",
            got.output.total_bytes, got.output.omitted_bytes
        ));
    }
    // Without the framing (the wrapper itself was killed), an exit of 137 is the OOM killer's
    // or a SIGKILL's; the job's cgroup count is the sure answer when it was printed.
    let oom_killed = match got.oom_kills {
        Some(n) => n > 0,
        None => exit_code == Some(137) && !killed_at_deadline,
    };
    let node = match node {
        Some(id) => Some(hostname(inner, &id).await),
        None => None,
    };
    Ok(JobOutput { output: got.output, exit_code, killed_at_deadline, oom_killed, files: got.files, notes, wall, node })
}

/// Reads the logs of a service whose task has ended, whole, into a fresh output file.
async fn read_logs(engine: &Engine, service: &str, job: &Job) -> Result<frame::Unframed, Attempt> {
    let mut framed = FramedOutput::new(OutputSink::create(&job.output), &job.nonce);
    let options = LogsOptionsBuilder::default().stdout(true).stderr(true).build();
    let read = async {
        let mut logs = engine.docker().service_logs(service, Some(options));
        while let Some(chunk) = logs.next().await {
            framed.push(&chunk?.into_bytes());
        }
        Ok(())
    };
    engine
        .call("read the job's output", LOGS_TIMEOUT, read)
        .await
        .map_err(|e| ExecError::engine("read the output", &job.image, e))?;
    Ok(framed.finish())
}

/// Fails a job that no ready node (other than `excluded`) has the memory and CPUs for.
async fn check_capacity(inner: &Inner, job: &Job, excluded: &[String]) -> Result<(), ExecError> {
    use bollard::models::{NodeSpecAvailabilityEnum, NodeState};
    let engine = &inner.engine;
    let nodes = engine
        .call(
            "list the swarm's nodes",
            SHORT_CALL,
            engine.docker().list_nodes(None::<bollard::query_parameters::ListNodesOptions>),
        )
        .await
        .map_err(|e| ExecError::engine("list the swarm's nodes", &job.image, e))?;
    let mut largest: Option<(i64, i64, String)> = None;
    for node in nodes {
        let ready = node.status.as_ref().and_then(|s| s.state) == Some(NodeState::READY);
        let active = node.spec.as_ref().and_then(|s| s.availability) == Some(NodeSpecAvailabilityEnum::ACTIVE);
        if !ready || !active || node.id.as_ref().is_some_and(|id| excluded.contains(id)) {
            continue;
        }
        let description = node.description.unwrap_or_default();
        let resources = description.resources.unwrap_or_default();
        let (memory, cpus) = (resources.memory_bytes.unwrap_or(0), resources.nano_cpus.unwrap_or(0));
        if memory >= job.limits.memory_bytes && cpus >= job.limits.nano_cpus {
            return Ok(());
        }
        if largest.as_ref().is_none_or(|(m, _, _)| memory > *m) {
            largest = Some((memory, cpus, description.hostname.unwrap_or_default()));
        }
    }
    let gib = |bytes: i64| bytes as f64 / (1u64 << 30) as f64;
    let asked = format!(
        "no ready node has {:.1} GiB of memory and {} CPU(s)",
        gib(job.limits.memory_bytes),
        job.limits.nano_cpus as f64 / 1e9
    );
    let constraint = match largest {
        Some((memory, cpus, host)) => {
            format!("{asked} (the largest, {host}, has {:.1} GiB and {} CPU(s))", gib(memory), cpus as f64 / 1e9)
        }
        None => format!("{asked} (no node is ready and active)"),
    };
    Err(ExecError::Unplaceable { image: job.image.clone(), constraint })
}

async fn node_is_down(engine: &Engine, node: &str) -> bool {
    use bollard::models::NodeState;
    match engine.call("inspect a node", SHORT_CALL, engine.docker().inspect_node(node)).await {
        Ok(info) => {
            let state = info.status.and_then(|s| s.state);
            matches!(state, Some(NodeState::DOWN | NodeState::DISCONNECTED | NodeState::UNKNOWN))
        }
        // A node removed from the swarm has left it.
        Err(e) => e.is_not_found(),
    }
}

async fn hostname(inner: &Inner, node: &str) -> String {
    if let Some(name) = inner.hostnames.lock().unwrap_or_else(|e| e.into_inner()).get(node) {
        return name.clone();
    }
    let engine = &inner.engine;
    let name = match engine.call("inspect a node", SHORT_CALL, engine.docker().inspect_node(node)).await {
        Ok(info) => info.description.and_then(|d| d.hostname).unwrap_or_else(|| node.to_string()),
        Err(_) => return node.to_string(),
    };
    inner.hostnames.lock().unwrap_or_else(|e| e.into_inner()).insert(node.to_string(), name.clone());
    name
}

/// Pushes a local image to the registry (once per run) and returns its reference by digest.
async fn push(inner: &Inner, local: &str) -> Result<String, ExecError> {
    let cell = {
        let mut pushed = inner.pushed.lock().unwrap_or_else(|e| e.into_inner());
        pushed.entry(local.to_string()).or_default().clone()
    };
    cell.get_or_try_init(|| push_now(inner, local)).await.cloned()
}

async fn push_now(inner: &Inner, local: &str) -> Result<String, ExecError> {
    let engine = &inner.engine;
    let docker = engine.docker();
    let fail = |step: &'static str| move |e| ExecError::engine(step, local, e);
    let (name, tag) = local.rsplit_once(':').unwrap_or((local, "latest"));
    let target = format!("{}/{name}", inner.registry);
    let options = TagImageOptionsBuilder::default().repo(&target).tag(tag).build();
    engine
        .call("tag the image for the registry", SHORT_CALL, docker.tag_image(local, Some(options)))
        .await
        .map_err(fail("tag the image for the registry"))?;
    let pushing = async {
        let options = PushImageOptionsBuilder::default().tag(tag).build();
        let mut stream = docker.push_image(&target, Some(options), None);
        while let Some(item) = stream.next().await {
            item?;
        }
        Ok(())
    };
    engine
        .call(&format!("push {target}:{tag} to the registry"), PUSH_TIMEOUT, pushing)
        .await
        .map_err(fail("push the image to the registry"))?;
    let info = engine
        .call("inspect the pushed image", SHORT_CALL, docker.inspect_image(&format!("{target}:{tag}")))
        .await
        .map_err(fail("inspect the pushed image"))?;
    let prefix = format!("{target}@");
    info.repo_digests.unwrap_or_default().into_iter().find(|d| d.starts_with(&prefix)).ok_or_else(|| {
        ExecError::Rejected {
            image: local.to_string(),
            reason: format!("the registry gave no digest for {target}:{tag}"),
        }
    })
}

/// Removes every service carrying every label of `filter`; returns how many.
pub async fn remove_services(engine: &Engine, filter: &[String]) -> Result<usize, EngineError> {
    let filters = HashMap::from([("label".to_string(), filter.to_vec())]);
    let options = ListServicesOptionsBuilder::default().filters(&filters).build();
    let services = engine.call("list services", SHORT_CALL, engine.docker().list_services(Some(options))).await?;
    let mut removed = 0;
    for service in services {
        let Some(id) = service.id else { continue };
        match engine.call("remove a service", SHORT_CALL, engine.docker().delete_service(&id)).await {
            Err(e) if !e.is_not_found() => return Err(e),
            _ => removed += 1,
        }
    }
    Ok(removed)
}

/// Removes the networks carrying every label of `filter` (those still in use stay).
pub async fn remove_networks(engine: &Engine, filter: &[String]) -> Result<usize, EngineError> {
    let filters = HashMap::from([("label".to_string(), filter.to_vec())]);
    let options = ListNetworksOptionsBuilder::default().filters(&filters).build();
    let networks = engine.call("list networks", SHORT_CALL, engine.docker().list_networks(Some(options))).await?;
    let mut removed = 0;
    for network in networks {
        let Some(id) = network.id else { continue };
        if engine.call("remove a network", SHORT_CALL, engine.docker().remove_network(&id)).await.is_ok() {
            removed += 1;
        }
    }
    Ok(removed)
}
