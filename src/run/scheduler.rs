//! The worker pool of a run: runs one job per item, `workers` at a time, prints a line per
//! finished item above a progress bar, and never loses a result (a job that panics still
//! yields one, made by the caller's `lost`).
//!
//! It stops starting work in two cases:
//! - **A stop signal** ([`super::signals`]): the running jobs are stopped, the backend removes
//!   their containers, and whatever of the run is still on the engine is swept. Jobs that had
//!   not finished leave no report, so a rerun of the same run does them.
//! - **The engine is gone** (a job found it unreachable): no new job starts; the engine is
//!   pinged with backoff (1 s doubling to 30 s) for up to `engine_wait`. When it answers, the
//!   run resumes; when it does not, the run stops as after a signal, with
//!   [`Stopped::EngineLost`]. The jobs that met the outage are recorded by their callers
//!   (`infra_error`, "engine not reachable"), and a rerun does them again.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;

use super::backend::Backend;
use super::signals::{Signal, Signals};

/// How long jobs get to stop (and remove their containers) after a signal.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(60);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// Why a run stopped before every item was done.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Stopped {
    #[error("interrupted by {}", .0.name())]
    Signal(Signal),
    #[error("the engine has not answered for {} s: {reason}", .waited.as_secs())]
    EngineLost { waited: Duration, reason: String },
}

/// Runs a run's jobs.
pub struct Scheduler {
    pub backend: Arc<dyn Backend>,
    pub signals: Signals,
    pub workers: usize,
    /// How long to wait for an unreachable engine before stopping the run.
    pub engine_wait: Duration,
}

impl Scheduler {
    /// Runs `job` on every item; each job returns a line to print and its result.
    pub async fn run_all<I, T, F, Fut>(
        &self,
        items: Vec<I>,
        what: &str,
        job: F,
        lost: impl Fn(&I, String) -> T,
    ) -> Result<Vec<T>, Stopped>
    where
        I: Clone + Send + 'static,
        T: Send + 'static,
        F: Fn(I) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = (String, T)> + Send + 'static,
    {
        let bar = progress(items.len(), what);
        let token = self.signals.token();
        let job = Arc::new(job);
        let mut queue: VecDeque<I> = items.into();
        let mut running = tokio::task::JoinSet::new();
        let mut owners = HashMap::new();
        let mut results = Vec::new();
        let mut reconnect: Option<BoxFuture<'_, Result<Duration, String>>> = None;
        let mut stopped = None;
        loop {
            if reconnect.is_none() && !self.backend.reachable() {
                bar.suspend(|| {
                    eprintln!(
                        "{} is not reachable: no new work starts until it answers (waiting up to {} s)",
                        self.backend.describe(),
                        self.engine_wait.as_secs()
                    )
                });
                reconnect = Some(wait_for(self.backend.as_ref(), self.engine_wait));
            }
            while reconnect.is_none() && running.len() < self.workers.max(1) && !token.is_cancelled() {
                let Some(item) = queue.pop_front() else { break };
                let (job, bar, owned) = (job.clone(), bar.clone(), item.clone());
                let handle = running.spawn(async move {
                    let (line, result) = job(item).await;
                    bar.suspend(|| println!("{line}"));
                    bar.inc(1);
                    result
                });
                owners.insert(handle.id(), owned);
            }
            if running.is_empty() && queue.is_empty() && reconnect.is_none() {
                break;
            }
            tokio::select! {
                biased;
                () = token.cancelled() => {
                    stopped = Some(match self.signals.received() {
                        Some(signal) => Stopped::Signal(signal),
                        None => Stopped::EngineLost { waited: Duration::ZERO, reason: "stopped".into() },
                    });
                    break;
                }
                waited = async { reconnect.as_mut().expect("guarded").await }, if reconnect.is_some() => match waited {
                    Ok(after) => {
                        bar.suspend(|| eprintln!("{} answers again after {} s; resuming", self.backend.describe(), after.as_secs()));
                        reconnect = None;
                    }
                    Err(reason) => {
                        stopped = Some(Stopped::EngineLost { waited: self.engine_wait, reason });
                        token.cancel();
                        break;
                    }
                },
                Some(joined) = running.join_next_with_id(), if !running.is_empty() => match joined {
                    Ok((id, result)) => {
                        owners.remove(&id);
                        results.push(result);
                    }
                    Err(e) => {
                        if let Some(item) = owners.remove(&e.id()) {
                            results.push(lost(&item, format!("verdict failed on this instance: {e}")));
                        }
                    }
                },
            }
        }
        bar.finish_and_clear();
        match stopped {
            None => {
                if let Err(e) = self.backend.sweep().await {
                    tracing::warn!("cannot remove the run's containers: {e}");
                }
                Ok(results)
            }
            Some(stop) => {
                self.stop(&mut running, &stop).await;
                Err(stop)
            }
        }
    }

    /// Stops every job and removes what the run left on the engine.
    async fn stop<T: 'static>(&self, running: &mut tokio::task::JoinSet<T>, stop: &Stopped) {
        eprintln!("\n{stop}: stopping {} job(s) and removing this run's containers…", running.len());
        // The jobs' futures are dropped; the backend's own tasks see the cancelled token,
        // stop their containers and remove them.
        running.shutdown().await;
        self.backend.drain(DRAIN_TIMEOUT).await;
        match self.backend.sweep().await {
            Ok(0) => eprintln!("this run's containers are removed; rerun the same --run-id to resume"),
            Ok(n) => eprintln!("this run's containers are removed ({n} found by label); rerun the same --run-id to resume"),
            Err(e) => eprintln!(
                "cannot remove this run's containers ({e}); the next run of the same --run-id removes them when it starts"
            ),
        }
    }
}

/// Pings with backoff until the backend answers (`Ok(after)`) or `limit` has passed.
fn wait_for(backend: &dyn Backend, limit: Duration) -> BoxFuture<'_, Result<Duration, String>> {
    Box::pin(async move {
        let started = Instant::now();
        let mut delay = Duration::from_secs(1);
        loop {
            let left = limit.saturating_sub(started.elapsed());
            tokio::time::sleep(delay.min(left)).await;
            let last = match backend.ping().await {
                Ok(()) => return Ok(started.elapsed()),
                Err(e) => e.to_string(),
            };
            if started.elapsed() >= limit {
                return Err(last);
            }
            delay = (delay * 2).min(MAX_BACKOFF);
        }
    })
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub fn progress(len: usize, what: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len as u64);
    let style = indicatif::ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_message(what.to_string());
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}
