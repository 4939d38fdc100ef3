//! `verdict check-envs`: do the environments still build, and does the gold patch still grade
//! as the dataset says?

use std::time::Instant;

use clap::Args;

use super::common;
use super::error::Result;
use super::{exit, DatasetArgs, RunArgs};
use crate::dataset::Instance;
use crate::grade::decide;
use crate::report::{CheckEnvReport, Outcome, Timing};
use crate::run::evaluation::expected;
use crate::run::{self, execute, prepare, Context};

#[derive(Debug, Clone, Args)]
pub struct CheckEnvsArgs {
    #[command(flatten)]
    pub dataset: DatasetArgs,
    /// Rebuild every layer from scratch instead of reusing images and the build cache.
    #[arg(long)]
    pub no_cache: bool,
    #[command(flatten)]
    pub run: RunArgs,
}

pub async fn run(args: CheckEnvsArgs) -> Result<i32> {
    let logs = args.run.images.logs.clone();
    let loaded = common::load_dataset(&args.dataset, &logs)?;
    let run_id = common::run_id(args.run.run_id.as_deref(), &loaded);
    let opened = common::open(&loaded, &args.run, &run_id, args.no_cache).await?;
    let ctx = opened.ctx.clone();
    let root = logs.join(run::safe_component(&run_id)).join("check_envs");

    let job_root = root.clone();
    let check = move |instance: Instance| {
        let ctx = ctx.clone();
        let dir = job_root.join(run::safe_component(&instance.instance_id));
        async move {
            let report = check_one(&ctx, &instance, &dir).await;
            let _ = common::write_json(&dir.join("check.json"), &report);
            let outcome = report.outcome.map(|o| o.to_string()).unwrap_or_else(|| "-".into());
            (format!("{:<40} {outcome}", instance.instance_id), report)
        }
    };
    let lost = |instance: &Instance, reason: String| CheckEnvReport {
        instance_id: instance.instance_id.clone(),
        builds: false,
        build_log: None,
        outcome: None,
        drift: Vec::new(),
        reason: Some(reason),
        integrity: Vec::new(),
        timing: Timing::default(),
    };
    let scheduler = &opened.scheduler;
    let mut reports = match scheduler.run_all(loaded.instances.clone(), "checking environments", check, lost).await {
        Ok(reports) => reports,
        Err(stop) => return common::stopped(stop),
    };
    reports.sort_by(|a, b| a.instance_id.cmp(&b.instance_id));
    common::write_json(&root.join("summary.json"), &reports)?;

    println!("{:<40} {:<7} {:<18} drift", "instance", "builds", "gold outcome");
    let mut healthy = 0;
    for r in &reports {
        let drift = if r.drift.is_empty() {
            r.reason.clone().unwrap_or_else(|| "none".into())
        } else {
            r.drift.iter().map(|d| format!("{} {} now {}", d.list, d.id, d.now)).collect::<Vec<_>>().join("; ")
        };
        let outcome = r.outcome.map(|o| o.to_string()).unwrap_or_else(|| "-".into());
        println!("{:<40} {:<7} {:<18} {}", r.instance_id, if r.builds { "yes" } else { "NO" }, outcome, drift);
        if r.builds && r.drift.is_empty() && r.outcome == Some(Outcome::ResolvedFull) {
            healthy += 1;
        }
    }
    println!(
        "\n{healthy} of {} environment(s) build and grade the gold patch as the dataset says; reports: {}",
        reports.len(),
        root.display()
    );
    Ok(if healthy == reports.len() { exit::OK } else { exit::SOME_FAILED })
}

async fn check_one(ctx: &Context, instance: &Instance, dir: &std::path::Path) -> CheckEnvReport {
    let started = Instant::now();
    let mut report = CheckEnvReport {
        instance_id: instance.instance_id.clone(),
        builds: false,
        build_log: None,
        outcome: None,
        drift: Vec::new(),
        reason: None,
        integrity: Vec::new(),
        timing: Timing::default(),
    };
    let prepared = match prepare(ctx, instance) {
        Ok(p) => p,
        Err(reason) => {
            report.reason = Some(reason);
            return report;
        }
    };
    let raw = execute(ctx, &prepared, instance, Some(&instance.patch), dir).await;
    report.timing = Timing { wall_secs: started.elapsed().as_secs_f64(), cpu_secs: raw.cpu_secs };
    let decided = decide::check_env(expected(instance), &raw, &ctx.rules);
    report.builds = decided.builds;
    report.build_log = decided.build_log;
    report.outcome = Some(decided.outcome);
    report.drift = decided.drift;
    report.reason = decided.reason;
    report.integrity = decided.integrity;
    report
}
