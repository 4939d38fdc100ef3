//! `verdict evaluate`: score candidate patches.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::common::{self, Loaded};
use super::error::{Error, Result};
use super::predictions::{self, PredictionArgs};
use super::{exit, DatasetArgs, RunArgs};
use crate::dataset::sources::label;
use crate::dataset::{Instance, Prediction};
use crate::report::{self, model_key, InstanceReport, Outcome};
use crate::run;

#[derive(Debug, Clone, Args)]
pub struct EvaluateArgs {
    #[command(flatten)]
    pub dataset: DatasetArgs,
    #[command(flatten)]
    pub predictions: PredictionArgs,
    /// Only apply each candidate, with the same apply chain in the instance's container, and
    /// report strict and lenient apply rates: no test patch, no tests. Writes apply.json per
    /// instance and apply_summary.json per model.
    #[arg(long)]
    pub apply_only: bool,
    /// Also write the verdicts as JUnit XML: one test case per instance and model, failed
    /// when not resolved.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    #[command(flatten)]
    pub run: RunArgs,
}

pub async fn run(args: EvaluateArgs) -> Result<i32> {
    let logs = args.run.images.logs.clone();
    let loaded = common::load_dataset(&args.dataset, &logs)?;
    let selected = predictions::select(&args.predictions, &loaded)?;
    let run_id = common::run_id(args.run.run_id.as_deref(), &loaded);
    if args.apply_only {
        return super::apply_only::run(&args, &loaded, selected, &run_id).await;
    }
    warn_empty_fail_to_pass(&loaded);
    let several = selected.models.len() > 1;
    let opened = common::open(&loaded, &args.run, &run_id, false).await?;
    let ids: Vec<String> = loaded.instances.iter().map(|i| i.instance_id.clone()).collect();
    let facts = common::facts(&loaded);
    let mut code = exit::OK;
    let mut written: Vec<(report::Summary, Vec<InstanceReport>)> = Vec::new();
    // Models run one after another, each with every worker, so each gets its own wall time.
    for (model, method) in &selected.models {
        let key = model_key(model, method.as_deref());
        let jobs = common::model_jobs(&selected, (model, method), &logs, &run_id);
        let (ctx, repos, shown) = (opened.ctx.clone(), loaded.repos.clone(), key.clone());
        let evaluate = move |(instance, prediction, dir): (Instance, Prediction, PathBuf)| {
            let (ctx, repos, shown) = (ctx.clone(), repos.clone(), shown.clone());
            async move {
                let report = run::evaluation::evaluate_one(&ctx, &repos, &instance, &prediction, &dir).await;
                let node = report.run.as_ref().and_then(|run| run.node.as_deref());
                let on = node.map(|n| format!(" (on {n})")).unwrap_or_default();
                let line = if several {
                    format!("{:<40} {:<24} {}{on}", instance.instance_id, shown, report.outcome)
                } else {
                    format!("{:<40} {}{on}", instance.instance_id, report.outcome)
                };
                (line, report)
            }
        };
        let lost = |(instance, prediction, dir): &(Instance, Prediction, PathBuf), reason: String| {
            run::evaluation::infra_error_report(instance, prediction, dir, reason)
        };
        let started = Instant::now();
        let mut reports = match opened.scheduler.run_all(jobs, "evaluating", evaluate, lost).await {
            Ok(reports) => reports,
            Err(stop) => return common::stopped(stop),
        };
        let wall_secs = started.elapsed().as_secs_f64();
        reports.sort_by(|a, b| a.instance_id.cmp(&b.instance_id));
        let mut summary = report::summarize(&ids, &reports, &facts);
        summary.run_id = Some(run_id.clone());
        summary.model = Some(model.clone());
        summary.method = method.clone();
        summary.localization = report::localization::aggregate(&reports);
        summary.verdict_cost.wall_secs = wall_secs;
        let dir = logs.join(run::safe_component(&run_id)).join(run::safe_component(&key));
        let path = dir.join("summary.json");
        common::write_json(&path, &summary)?;
        let html = dir.join("report.html");
        common::write_text(&html, &report::html::render_run(&summary, &reports))?;
        println!("model: {}\n{}", label(&(model.clone(), method.clone())), report::render_table(&summary));
        if let Some(aggregate) = &summary.localization {
            println!("{}", report::render_localization(aggregate));
        }
        println!("summary: {}\nreport:  {}", path.display(), html.display());
        if reports.iter().any(|r| matches!(r.outcome, Outcome::BuildFailed | Outcome::InfraError)) {
            code = exit::SOME_FAILED;
        }
        written.push((summary, reports));
    }
    if let Some(path) = &args.junit {
        let xml = report::junit::render(&run_id, &written)
            .map_err(|e| Error::Internal(format!("cannot write JUnit XML: {e}")))?;
        common::write_text(path, &xml)?;
        println!("junit:   {}", path.display());
    }
    Ok(code)
}

/// Says on the terminal, before anything runs, when instances have no FAIL_TO_PASS test: such
/// an instance grades unresolved whatever the candidate does.
pub fn warn_empty_fail_to_pass(loaded: &Loaded) {
    let empty: Vec<String> =
        loaded.instances.iter().filter(|i| i.fail_to_pass.is_empty()).map(|i| i.instance_id.clone()).collect();
    if empty.is_empty() {
        return;
    }
    let all = if empty.len() == loaded.instances.len() { "every instance" } else { "these instances" };
    eprintln!(
        "warning: {} of {} instance(s) in {} have an empty FAIL_TO_PASS list ({}); {all} will grade unresolved \
         whatever the patch does. Derive the lists with `verdict validate`, or check the dataset file.",
        empty.len(),
        loaded.instances.len(),
        loaded.path.display(),
        crate::dataset::examples(&empty)
    );
}
