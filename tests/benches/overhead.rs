//! verdict's overhead per instance, against a raw container run of the same eval script,
//! measured in the same run.
//!
//! Run with `cargo bench --bench overhead` (needs the engine: `bash dockerfiles/engine.sh`).
//! It evaluates one demo instance (`VERDICT_BENCH_INSTANCE`, default
//! `verdict-demo__pycalc-1`, gold patch) on its warm instance image, `VERDICT_BENCH_RUNS`
//! times (default 5), alternating:
//! - **verdict**: the whole per-instance path (`run::evaluation::evaluate_one`): eval script,
//!   container with limits, patches copied in, logs and reports copied out, parsing, grading,
//!   localization, `report.json`;
//! - **raw**: the same rendered eval script in a container from the same image with bollard
//!   alone: create, copy the inputs in, start, wait, read the logs, remove.
//!
//! It prints the median of each and the overhead, as a ratio and in seconds. Goal: overhead
//! ≤ 10 % of the raw run, or ≤ 0.5 s.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bollard::models::{ContainerCreateBody, HostConfig};
use bollard::query_parameters::{LogsOptionsBuilder, RemoveContainerOptionsBuilder, UploadToContainerOptionsBuilder};
use futures_util::StreamExt;
use verdict::dataset::repo::RepoStore;
use verdict::dataset::spec::SpecRegistry;
use verdict::dataset::{gold_predictions, load_instances};
use verdict::engine::{Engine, RunScope};
use verdict::images::build::Builder;
use verdict::images::toolchain::Availability;
use verdict::images::{host_certs, merged_env, Planner};
use verdict::run::backend::{limits, CancellationToken};
use verdict::run::docker::DockerBackend;
use verdict::run::script::{self, ScriptInput};
use verdict::run::{evaluation, prepare, Context};

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(bench());
}

async fn bench() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let id = std::env::var("VERDICT_BENCH_INSTANCE").unwrap_or_else(|_| "verdict-demo__pycalc-1".into());
    let runs: usize = std::env::var("VERDICT_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    let instances = load_instances(&root.join("harness/demo/dataset.jsonl")).expect("demo dataset");
    let instance = instances.iter().find(|i| i.instance_id == id).expect("instance in the demo").clone();
    let prediction = gold_predictions(std::slice::from_ref(&instance)).remove(0);

    let engine = Engine::connect().await.expect("a running engine (bash dockerfiles/engine.sh)");
    let docker = bollard::Docker::connect_with_defaults().expect("the same engine, for the raw runs");
    let work = tempfile::tempdir().expect("temp dir");
    let specs = SpecRegistry::load(&root.join("harness"), &[]).expect("specs");
    let scope = RunScope::new(&work.path().join("bench"), "bench").expect("run scope");
    let repos = Arc::new(RepoStore::new(vec![root.join("harness/demo/repos")], work.path().join("cache"), false));
    let builder = Arc::new(Builder::new(
        engine.clone(),
        repos.clone(),
        work.path().join("build"),
        false,
        Duration::from_secs(3600),
        scope.labels(),
    ));
    builder.ensure_os_image("verdict-os:bookworm", "debian:bookworm-slim").await.expect("OS image");
    let ctx = Context {
        backend: Arc::new(DockerBackend::new(engine.clone(), scope, CancellationToken::new())),
        builder: builder.clone(),
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
        clock: Default::default(),
        rules: Default::default(),
    };
    let prepared = prepare(&ctx, &instance).expect("spec");
    builder.ensure(&prepared.images).await.expect("warm image");

    let env = merged_env(&prepared.language, &prepared.entry);
    let rendered = script::render(&ScriptInput {
        title: "bench".into(),
        candidate: Some(&instance.patch),
        test_patch: &instance.test_patch,
        entry: &prepared.entry,
        language: &prepared.language,
        env: &env,
        timeout_secs: 300,
        nonce: "bench",
        apply_only: false,
        config: &Default::default(),
        clock: None,
    });

    let mut verdict_times = Vec::new();
    let mut raw_times = Vec::new();
    for k in 0..runs {
        let dir = work.path().join(format!("eval-{k}"));
        let started = Instant::now();
        let report = evaluation::evaluate_one(&ctx, &repos, &instance, &prediction, &dir).await;
        verdict_times.push(started.elapsed().as_secs_f64());
        assert_eq!(report.outcome.name(), "resolved_full", "{:?}", report.reason);

        let started = Instant::now();
        raw_run(&docker, &prepared.images.instance.tag, &rendered).await;
        raw_times.push(started.elapsed().as_secs_f64());
    }
    let (v, r) = (median(&mut verdict_times), median(&mut raw_times));
    println!("instance {id}, {runs} runs each, medians:");
    println!("  verdict evaluation  {v:.3} s");
    println!("  raw container run   {r:.3} s");
    println!(
        "  overhead            {:.3} s = {:.1} % of the raw run (goal: ≤ 10 % or ≤ 0.5 s)",
        v - r,
        (v / r - 1.0) * 100.0
    );
}

/// The eval script in a container with bollard alone: no limits beyond the network, no
/// reports copied out, nothing parsed.
async fn raw_run(docker: &bollard::Docker, image: &str, rendered: &script::EvalScript) {
    let config = ContainerCreateBody {
        image: Some(image.into()),
        cmd: Some(vec!["bash".into(), "/verdict/in/eval.sh".into()]),
        network_disabled: Some(true),
        host_config: Some(HostConfig { network_mode: Some("none".into()), ..Default::default() }),
        ..Default::default()
    };
    let id = docker.create_container(None, config).await.expect("create").id;
    let mut tar = tar::Builder::new(Vec::new());
    let mut files = rendered.inputs.clone();
    files.push(("eval.sh".into(), rendered.script.clone().into_bytes()));
    for (name, bytes) in &files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        tar.append_data(&mut header, format!("verdict/in/{name}"), bytes.as_slice()).expect("tar");
    }
    let options = UploadToContainerOptionsBuilder::default().path("/").build();
    docker
        .upload_to_container(&id, Some(options), bollard::body_full(tar.into_inner().expect("tar").into()))
        .await
        .expect("upload");
    docker.start_container(&id, None).await.expect("start");
    let _ = docker.wait_container(&id, None).next().await;
    let mut logs = docker.logs(&id, Some(LogsOptionsBuilder::default().stdout(true).stderr(true).build()));
    while logs.next().await.is_some() {}
    let options = RemoveContainerOptionsBuilder::default().force(true).build();
    docker.remove_container(&id, Some(options)).await.expect("remove");
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}
