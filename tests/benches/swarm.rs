//! The per-job overhead of the Swarm backend over the local one, on warm images, measured in
//! the same run on the same machine.
//!
//! Run with `DOCKER_HOST=<a swarm manager> VERDICT_REGISTRY=HOST:PORT cargo bench --bench swarm`
//! (the engine must be a swarm manager with the demo's images; `docs/benchmarks.md` says how to
//! make one without touching a shared engine). It evaluates one demo instance
//! (`VERDICT_BENCH_INSTANCE`, default `verdict-demo__pycalc-1`, gold patch) `VERDICT_BENCH_RUNS`
//! times (default 5) through verdict's whole per-instance path, alternating:
//! - **local**: the Docker backend, a container on the manager's engine;
//! - **swarm**: the Swarm backend, a replicated-job service (its image pushed once, before the
//!   timed runs).
//!
//! It prints the medians and the overhead per job. Goal: at most 1 s per job over the local
//! backend.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use verdict::dataset::repo::RepoStore;
use verdict::dataset::spec::SpecRegistry;
use verdict::dataset::{gold_predictions, load_instances};
use verdict::engine::{Engine, RunScope};
use verdict::images::build::Builder;
use verdict::images::toolchain::Availability;
use verdict::images::{host_certs, Planner};
use verdict::run::backend::{limits, Backend, CancellationToken};
use verdict::run::docker::DockerBackend;
use verdict::run::swarm::SwarmBackend;
use verdict::run::{evaluation, prepare, Context};

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(bench());
}

async fn bench() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let id = std::env::var("VERDICT_BENCH_INSTANCE").unwrap_or_else(|_| "verdict-demo__pycalc-1".into());
    let runs: usize = std::env::var("VERDICT_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    let registry = std::env::var("VERDICT_REGISTRY").expect("VERDICT_REGISTRY=HOST:PORT, a registry the swarm reaches");
    let instances = load_instances(&root.join("harness/demo/dataset.jsonl")).expect("demo dataset");
    let instance = instances.iter().find(|i| i.instance_id == id).expect("instance in the demo").clone();
    let prediction = gold_predictions(std::slice::from_ref(&instance)).remove(0);

    let engine = Engine::connect().await.expect("a swarm manager at DOCKER_HOST");
    let work = tempfile::tempdir().expect("temp dir");
    let specs = SpecRegistry::load(&root.join("harness"), &[]).expect("specs");
    let repos = Arc::new(RepoStore::new(vec![root.join("harness/demo/repos")], work.path().join("cache"), false));
    let context = |backend: Arc<dyn Backend>, scope: &RunScope| Context {
        backend,
        builder: Arc::new(Builder::new(
            engine.clone(),
            repos.clone(),
            work.path().join("build"),
            false,
            Duration::from_secs(3600),
            scope.labels(),
        )),
        // The images `verdict evaluate` builds offline: the same toolchain layers, the same tags.
        planner: Planner::new(
            root.join("dockerfiles"),
            "verdict-os:bookworm".into(),
            host_certs("/usr/local/share/ca-certificates".as_ref()),
            &specs,
            Availability::default(),
        ),
        specs: specs.clone(),
        limits: limits(4.0, 1.0, 2048),
        timeout_override: None,
        max_output: 32 << 20,
        run_id: "bench".into(),
        rules: Default::default(),
        clock: Default::default(),
    };
    let local_scope = RunScope::new(&work.path().join("local"), "local").expect("scope");
    let swarm_scope = RunScope::new(&work.path().join("swarm"), "swarm").expect("scope");
    let local = context(
        Arc::new(DockerBackend::new(engine.clone(), local_scope.clone(), CancellationToken::new())),
        &local_scope,
    );
    let swarm_backend =
        SwarmBackend::new(engine.clone(), swarm_scope.clone(), CancellationToken::new(), registry, false)
            .await
            .expect("DOCKER_HOST is a swarm manager");
    let swarm = context(Arc::new(swarm_backend), &swarm_scope);

    let prepared = prepare(&local, &instance).expect("spec");
    local.builder.ensure(&prepared.images).await.expect("warm image");
    // One untimed run each: the swarm's pushes the image to the registry.
    for (ctx, name) in [(&local, "warm-local"), (&swarm, "warm-swarm")] {
        let report = evaluation::evaluate_one(ctx, &repos, &instance, &prediction, &work.path().join(name)).await;
        assert_eq!(report.outcome.name(), "resolved_full", "{name}: {:?}", report.reason);
    }

    let (mut local_times, mut swarm_times) = (Vec::new(), Vec::new());
    for k in 0..runs {
        for (ctx, times, name) in [(&local, &mut local_times, "local"), (&swarm, &mut swarm_times, "swarm")] {
            let started = Instant::now();
            let report =
                evaluation::evaluate_one(ctx, &repos, &instance, &prediction, &work.path().join(format!("{name}-{k}")))
                    .await;
            times.push(started.elapsed().as_secs_f64());
            assert_eq!(report.outcome.name(), "resolved_full", "{name}: {:?}", report.reason);
        }
    }
    let (l, s) = (median(&mut local_times), median(&mut swarm_times));
    println!("instance {id}, {runs} runs each, medians:");
    println!("  local backend   {l:.3} s");
    println!("  swarm backend   {s:.3} s");
    println!("  overhead        {:.3} s per job = {:.2}x the local run (goal: at most 1 s)", s - l, s / l);
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}
