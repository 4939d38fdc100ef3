//! `verdict evaluate`: score candidate patches.

use std::path::PathBuf;

use clap::Args;

use super::common::{self, Loaded};
use super::error::{Error, Result};
use super::{exit, DatasetArgs, RunArgs};
use crate::dataset::{gold_predictions, load_predictions, match_predictions, Instance, Prediction};
use crate::report::{self, InstanceReport, Outcome};
use crate::run;

#[derive(Debug, Clone, Args)]
pub struct EvaluateArgs {
    #[command(flatten)]
    pub dataset: DatasetArgs,
    /// Candidate patches: JSONL, a JSON array, or an object keyed by instance_id, with
    /// instance_id, model_name_or_path, model_patch (and optional cost fields). `gold` uses
    /// each instance's own gold patch. Default with the demo: its bundled predictions.
    #[arg(long, value_name = "FILE|gold")]
    pub predictions: Option<String>,
    #[command(flatten)]
    pub run: RunArgs,
}

pub async fn run(args: EvaluateArgs) -> Result<i32> {
    let started = std::time::Instant::now();
    let logs = args.run.images.logs.clone();
    let loaded = common::load_dataset(&args.dataset, &logs)?;
    let predictions = load(&args, &loaded)?;
    let run_id = common::run_id(args.run.run_id.as_deref(), &loaded);
    let opened = common::open(&loaded, &args.run, &run_id, false).await?;
    let ctx = opened.ctx.clone();
    let jobs: Vec<(Instance, Prediction, PathBuf)> = predictions
        .into_iter()
        .map(|(instance, prediction)| {
            let dir = run::instance_dir(&logs, &run_id, &prediction.model_name_or_path, &instance.instance_id);
            (instance, prediction, dir)
        })
        .collect();
    let repos = loaded.repos.clone();
    let evaluate = move |(instance, prediction, dir): (Instance, Prediction, PathBuf)| {
        let (ctx, repos) = (ctx.clone(), repos.clone());
        async move {
            let report = run::evaluation::evaluate_one(&ctx, &repos, &instance, &prediction, &dir).await;
            let node = report.run.as_ref().and_then(|run| run.node.as_deref());
            let on = node.map(|n| format!(" (on {n})")).unwrap_or_default();
            (format!("{:<40} {}{on}", instance.instance_id, report.outcome), report)
        }
    };
    let lost = |(instance, prediction, dir): &(Instance, Prediction, PathBuf), reason: String| {
        run::evaluation::infra_error_report(instance, prediction, dir, reason)
    };
    let mut reports = match opened.scheduler.run_all(jobs, "evaluating", evaluate, lost).await {
        Ok(reports) => reports,
        Err(stop) => return common::stopped(stop),
    };
    reports.sort_by(|a, b| (&a.model, &a.instance_id).cmp(&(&b.model, &b.instance_id)));

    let mut code = exit::OK;
    let mut by_model: std::collections::BTreeMap<String, Vec<InstanceReport>> = Default::default();
    for report in reports {
        by_model.entry(report.model.clone()).or_default().push(report);
    }
    for (model, reports) in by_model {
        let ids: Vec<String> = loaded.instances.iter().map(|i| i.instance_id.clone()).collect();
        let facts = super::common::facts(&loaded);
        let mut summary = report::summarize(&ids, &reports, &facts);
        summary.localization = report::localization::aggregate(&reports);
        summary.verdict_cost.wall_secs = started.elapsed().as_secs_f64();
        let path = logs.join(run::safe_component(&run_id)).join(run::safe_component(&model)).join("summary.json");
        common::write_json(&path, &summary)?;
        println!("model: {model}\n{}", report::render_table(&summary));
        if let Some(aggregate) = &summary.localization {
            println!("{}", report::render_localization(aggregate));
        }
        println!("summary: {}", path.display());
        if reports.iter().any(|r| matches!(r.outcome, Outcome::BuildFailed | Outcome::InfraError)) {
            code = exit::SOME_FAILED;
        }
    }
    Ok(code)
}

fn load(args: &EvaluateArgs, loaded: &Loaded) -> Result<Vec<(Instance, Prediction)>> {
    let (predictions, path) = match args.predictions.as_deref() {
        Some("gold") => (gold_predictions(&loaded.instances), PathBuf::from("gold")),
        Some(file) => {
            let path = PathBuf::from(file);
            (load_predictions(&path)?, path)
        }
        None if loaded.is_demo => {
            let path = common::demo_dir().join("predictions.jsonl");
            (load_predictions(&path)?, path)
        }
        None => return Err(Error::bad_input("--predictions FILE (or `gold`) is required with --dataset")),
    };
    // With --instance-ids the dataset was filtered; predictions for the others are left out
    // on purpose, not reported as unknown.
    let predictions: Vec<Prediction> = if args.dataset.instance_ids.is_empty() {
        predictions
    } else {
        predictions.into_iter().filter(|p| args.dataset.instance_ids.contains(&p.instance_id)).collect()
    };
    let matched = match_predictions(&loaded.instances, &predictions, &path)?;
    Ok(matched.pairs)
}
