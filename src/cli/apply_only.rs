//! `verdict evaluate --apply-only`: every candidate through the apply chain in its instance's
//! container, no tests; strict and lenient apply rates per model.

use std::path::PathBuf;

use super::common::{self, Loaded};
use super::error::Result;
use super::evaluate::EvaluateArgs;
use super::exit;
use crate::dataset::sources::{label, Assembled};
use crate::dataset::{Instance, Prediction};
use crate::report::apply::{render_apply_table, summarize_apply, ApplyOutcome, ApplyReport};
use crate::report::model_key;
use crate::run;

pub async fn run(args: &EvaluateArgs, loaded: &Loaded, selected: Assembled, run_id: &str) -> Result<i32> {
    let logs = args.run.images.logs.clone();
    let several = selected.models.len() > 1;
    let opened = common::open(loaded, &args.run, run_id, false).await?;
    let ids: Vec<String> = loaded.instances.iter().map(|i| i.instance_id.clone()).collect();
    let facts = common::facts(loaded);
    let mut code = exit::OK;
    for (model, method) in &selected.models {
        let key = model_key(model, method.as_deref());
        let jobs = common::model_jobs(&selected, (model, method), &logs, run_id);
        let (ctx, shown) = (opened.ctx.clone(), key.clone());
        let check = move |(instance, prediction, dir): (Instance, Prediction, PathBuf)| {
            let (ctx, shown) = (ctx.clone(), shown.clone());
            async move {
                let report = run::apply_only::apply_one(&ctx, &instance, &prediction, &dir).await;
                let step = report.apply.step.map_or(report.outcome.name(), |s| s.name());
                let line = if several {
                    format!("{:<40} {shown:<24} {step}", instance.instance_id)
                } else {
                    format!("{:<40} {step}", instance.instance_id)
                };
                (line, report)
            }
        };
        let started = std::time::Instant::now();
        let mut mine = match opened.scheduler.run_all(jobs, "applying", check, lost).await {
            Ok(reports) => reports,
            Err(stop) => return common::stopped(stop),
        };
        mine.sort_by(|a, b| a.instance_id.cmp(&b.instance_id));
        let mut summary = summarize_apply(&ids, &mine, &facts);
        summary.run_id = Some(run_id.to_string());
        summary.model = Some(model.clone());
        summary.method = method.clone();
        summary.wall_secs = started.elapsed().as_secs_f64();
        let path = logs.join(run::safe_component(run_id)).join(run::safe_component(&key)).join("apply_summary.json");
        common::write_json(&path, &summary)?;
        println!("model: {}\n{}", label(&(model.clone(), method.clone())), render_apply_table(&summary));
        println!("apply summary: {}", path.display());
        if mine.iter().any(|r| matches!(r.outcome, ApplyOutcome::BuildFailed | ApplyOutcome::InfraError)) {
            code = exit::SOME_FAILED;
        }
    }
    Ok(code)
}

fn lost((instance, prediction, _): &(Instance, Prediction, PathBuf), reason: String) -> ApplyReport {
    ApplyReport {
        instance_id: instance.instance_id.clone(),
        model: prediction.model_name_or_path.clone(),
        method: prediction.method.clone(),
        repo: instance.repo.clone(),
        language: "unknown".into(),
        outcome: ApplyOutcome::InfraError,
        reason: Some(reason),
        patch_sha256: crate::report::patch_sha256(prediction.model_patch.as_deref().unwrap_or_default()),
        environment: String::new(),
        apply: Default::default(),
        timing: Default::default(),
        logs: Default::default(),
    }
}
