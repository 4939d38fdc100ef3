//! Helpers for the integration tests: run the real `verdict` binary, read what it wrote.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};

/// The Docker-backed tests share one engine and one image cache; they run one at a time so a
/// cold machine builds each shared image once.
pub fn docker_lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `verdict` with `args`, from the repository root.
pub fn verdict(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(args)
        .current_dir(repo_root())
        .env("VERDICT_LOG", "warn")
        .output()
        .expect("the verdict binary runs")
}

/// `verdict evaluate` of `dataset` with `predictions` (a file, or `gold`) on the demo's bundled
/// repositories, into `logs/<run_id>`, with `extra` flags after.
pub fn evaluate_on_demo_repos(dataset: &Path, predictions: &str, logs: &Path, run_id: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "evaluate",
        "--dataset",
        dataset.to_str().unwrap(),
        "--predictions",
        predictions,
        "--repos",
        "harness/demo/repos",
        "--no-clone",
        "--logs",
        logs.to_str().unwrap(),
        "--run-id",
        run_id,
    ];
    args.extend_from_slice(extra);
    verdict(&args)
}

pub fn text(output: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// A logs folder of its own for one test. The repository cache is shared through the
/// bundles; images are shared through the engine.
pub fn logs_dir(name: &str) -> PathBuf {
    let dir = repo_root().join("target").join("test-logs").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The containers on the engine of the run that wrote to `<logs>/<run_id>` (and only that
/// run: other tests and other people's runs on the same engine are not counted).
pub fn containers_of(logs: &Path, run_id: &str) -> Vec<verdict::engine::OwnedContainer> {
    let scope = verdict::engine::RunScope::new(&logs.join(run_id), run_id).expect("a run scope");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let engine = verdict::engine::Engine::connect().await.expect("engine");
        engine.containers(&scope.filter()).await.expect("list containers")
    })
}

/// No container of these runs survives them.
pub fn assert_no_containers_left(logs: &Path, run_ids: &[&str]) {
    for run_id in run_ids {
        let left = containers_of(logs, run_id);
        assert!(left.is_empty(), "containers of run {run_id} in {} left behind: {left:?}", logs.display());
    }
}

/// One instance of the bundled demo dataset, as JSON.
pub fn demo_instance(id: &str) -> serde_json::Value {
    std::fs::read_to_string(repo_root().join("harness/demo/dataset.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["instance_id"] == id)
        .unwrap_or_else(|| panic!("{id} is not in the demo"))
}
