//! `verdict report`: regrade a finished run from its saved logs, running nothing. Useful after
//! a parser or grading fix, or with a dataset whose lists changed.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;

use super::common;
use super::error::{Error, Result};
use super::{exit, DatasetArgs, GradeArgs};
use crate::grade::decide;
use crate::grade::{Execution, JobFacts, RawOutcome, Rules, RunLimits, ScriptFacts};
use crate::parse::{self, StructuredReport};
use crate::report::{self, InstanceReport, Outcome};
use crate::run;
use crate::run::evaluation::expected;

#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub dataset: DatasetArgs,
    /// The run to regrade. Default: `demo` for the bundled demo, else the dataset file's name.
    #[arg(long, value_name = "ID")]
    pub run_id: Option<String>,
    /// Root of run output.
    #[arg(long, default_value = "logs", value_name = "DIR")]
    pub logs: PathBuf,
    #[command(flatten)]
    pub grading: GradeArgs,
}

pub fn run(args: ReportArgs) -> Result<i32> {
    let loaded = common::load_dataset(&args.dataset, &args.logs)?;
    let run_id = common::run_id(args.run_id.as_deref(), &loaded);
    let run_dir = args.logs.join(run::safe_component(&run_id));
    let models = std::fs::read_dir(&run_dir)
        .map_err(|e| Error::bad_input(format!("no run {run_id} in {}: {e}", args.logs.display())))?;
    let by_id: BTreeMap<&str, &crate::dataset::Instance> =
        loaded.instances.iter().map(|i| (i.instance_id.as_str(), i)).collect();
    let ids: Vec<String> = loaded.instances.iter().map(|i| i.instance_id.clone()).collect();
    let facts = super::common::facts(&loaded);
    super::evaluate::warn_empty_fail_to_pass(&loaded);
    let mut any = false;
    let mut unreadable = 0;
    for model_dir in models.flatten().map(|e| e.path()).filter(|p| p.is_dir()) {
        let mut reports = Vec::new();
        let mut broken = 0;
        for entry in std::fs::read_dir(&model_dir).map_err(|e| Error::io("read", &model_dir, e))?.flatten() {
            let path = entry.path().join("report.json");
            // A folder without a report is an instance that never finished (a rerun does it).
            if !path.exists() {
                continue;
            }
            let mut report = match InstanceReport::read(&path) {
                Ok(report) => report,
                Err(e) => {
                    eprintln!("error: {e}");
                    broken += 1;
                    continue;
                }
            };
            let Some(instance) = by_id.get(report.instance_id.as_str()) else {
                eprintln!("warning: {} is not in {}; left out", report.instance_id, loaded.path.display());
                continue;
            };
            if regradable(&report) {
                regrade(&mut report, instance, &loaded.specs, &entry.path(), &args.grading.rules());
                report.write(&path)?;
            }
            reports.push(report);
        }
        if broken > 0 {
            // A summary without these instances would undercount the run without saying so.
            any = true;
            unreadable += broken;
            eprintln!(
                "error: {broken} report(s) under {} cannot be read; its summary.json is left as it was",
                model_dir.display()
            );
            continue;
        }
        if reports.is_empty() {
            continue;
        }
        any = true;
        reports.sort_by(|a, b| a.instance_id.cmp(&b.instance_id));
        let mut summary = report::summarize(&ids, &reports, &facts);
        summary.localization = crate::report::localization::aggregate(&reports);
        summary.run_id = Some(run_id.clone());
        // The run's own wall time is not in the reports; keep the one the run recorded.
        let previous: Option<report::Summary> = std::fs::read_to_string(model_dir.join("summary.json"))
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok());
        if let Some(previous) = previous {
            summary.verdict_cost.wall_secs = previous.verdict_cost.wall_secs;
        }
        common::write_json(&model_dir.join("summary.json"), &summary)?;
        common::write_text(&model_dir.join("report.html"), &report::html::render_run(&summary, &reports))?;
        let model = model_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        println!("model: {model}\n{}", report::render_table(&summary));
        println!("summary: {}", model_dir.join("summary.json").display());
    }
    if !any {
        return Err(Error::bad_input(format!("{} holds no instance reports to regrade", run_dir.display())));
    }
    if unreadable > 0 {
        return Err(Error::bad_input(format!(
            "{unreadable} report(s) cannot be read (listed above); rerun the same --run-id to redo those instances (an unreadable report is redone), then run verdict report again"
        )));
    }
    Ok(exit::OK)
}

/// Whether a report came from a test run that finished and was (or should have been) graded:
/// timeouts, apply failures, empty patches and build failures keep their outcome.
fn regradable(report: &InstanceReport) -> bool {
    let graded = report.outcome.is_completed() || report.outcome == Outcome::InfraError;
    graded && report.exit_code.is_some() && report.logs.test_output.is_some()
}

/// Re-parses the saved test output and reports, and decides again from the run's recorded
/// facts (or, for a report written before they were recorded, from its exit code).
fn regrade(
    report: &mut InstanceReport,
    instance: &crate::dataset::Instance,
    specs: &crate::dataset::spec::SpecRegistry,
    dir: &std::path::Path,
    rules: &Rules,
) {
    let (entry, _) = match specs.resolve(instance) {
        Ok(found) => found,
        Err(reason) => {
            report.outcome = Outcome::InfraError;
            report.reason = Some(reason.to_string());
            return;
        }
    };
    let console = std::fs::read_to_string(dir.join("test_output.txt")).unwrap_or_default();
    let structured: Vec<StructuredReport> = report
        .logs
        .reports
        .iter()
        .filter_map(|name| {
            let bytes = std::fs::read(dir.join(name)).ok()?;
            Some(StructuredReport { name: name.trim_start_matches("reports/").to_string(), bytes })
        })
        .collect();
    let mut raw = report.run.clone().unwrap_or_else(|| recorded_before_facts(report));
    raw.parsed = Some(parse::parse(entry.log_parser, &console, &structured).map_err(|e| e.to_string()));
    let decided = decide::flagged(decide::evaluation(expected(instance), &raw, rules), &report.suspicious);
    report.decided(decided);
    report.rules = *rules;
    report.run = Some(raw);
}

/// The facts of a finished run whose report predates recorded facts: the script ran to its
/// end with the recorded apply step and exit code (only such reports are regraded).
fn recorded_before_facts(report: &InstanceReport) -> RawOutcome {
    let limits = RunLimits { timeout_secs: u64::MAX, memory_gib: 0.0 };
    let mut raw = RawOutcome::new(report.apply.step.is_some(), limits);
    raw.execution = Execution::Ran {
        script: ScriptFacts {
            apply: report.apply.step,
            test_patch_applied: Some(true),
            tests_started: true,
            exit_code: report.exit_code,
            finished: true,
            clock_unavailable: false,
        },
        job: JobFacts { container_exit_code: Some(0), wall_secs: report.timing.wall_secs, ..Default::default() },
    };
    raw.cpu_secs = report.timing.cpu_secs;
    raw.image_bytes = report.image_bytes;
    raw
}
