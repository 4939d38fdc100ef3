//! `verdict report`: regrade a finished run from its saved logs, running nothing. Useful after
//! a parser or grading fix, or with a dataset whose lists changed.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;

use super::common::{self, fail};
use super::{exit, DatasetArgs};
use crate::parse::{self, StructuredReport};
use crate::report::{self, InstanceReport, Outcome};
use crate::run::evaluation::grade_into;
use crate::run::{self, resolve_spec};

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
}

pub fn run(args: ReportArgs) -> anyhow::Result<i32> {
    let loaded = common::load_dataset(&args.dataset, &args.logs)?;
    let run_id = common::run_id(args.run_id.as_deref(), &loaded);
    let run_dir = args.logs.join(run::safe_component(&run_id));
    let models = std::fs::read_dir(&run_dir)
        .map_err(|e| fail(exit::BAD_INPUT, format!("no run {run_id} in {}: {e}", args.logs.display())))?;
    let by_id: BTreeMap<&str, &crate::dataset::Instance> =
        loaded.instances.iter().map(|i| (i.instance_id.as_str(), i)).collect();
    let ids: Vec<String> = loaded.instances.iter().map(|i| i.instance_id.clone()).collect();
    let facts = super::common::facts(&loaded);
    super::evaluate::warn_empty_fail_to_pass(&loaded);
    let mut any = false;
    for model_dir in models.flatten().map(|e| e.path()).filter(|p| p.is_dir()) {
        let mut reports = Vec::new();
        for entry in std::fs::read_dir(&model_dir)?.flatten() {
            let path = entry.path().join("report.json");
            let Ok(mut report) = InstanceReport::read(&path) else { continue };
            let Some(instance) = by_id.get(report.instance_id.as_str()) else {
                eprintln!("warning: {} is not in {}; left out", report.instance_id, loaded.path.display());
                continue;
            };
            if regradable(&report) {
                regrade(&mut report, instance, &loaded.specs, &entry.path());
                report.write(&path).map_err(|e| fail(exit::INTERNAL, e.to_string()))?;
            }
            reports.push(report);
        }
        if reports.is_empty() {
            continue;
        }
        any = true;
        reports.sort_by(|a, b| a.instance_id.cmp(&b.instance_id));
        let mut summary = report::summarize(&ids, &reports, &facts);
        summary.localization = crate::run::evaluation::localization_summary(&reports);
        summary.run_id = Some(run_id.clone());
        // The run's own wall time is not in the reports; keep the one the run recorded.
        let previous: Option<report::Summary> = std::fs::read_to_string(model_dir.join("summary.json"))
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok());
        if let Some(previous) = previous {
            summary.verdict_cost.wall_secs = previous.verdict_cost.wall_secs;
        }
        common::write_json(&model_dir.join("summary.json"), &summary)?;
        super::output::write_text(&model_dir.join("report.html"), &report::html::render_run(&summary, &reports))?;
        let model = model_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        println!("model: {model}\n{}", report::render_table(&summary));
        println!("summary: {}", model_dir.join("summary.json").display());
    }
    if !any {
        return Err(fail(exit::BAD_INPUT, format!("{} holds no instance reports to regrade", run_dir.display())));
    }
    Ok(exit::OK)
}

/// Whether a report came from a test run that finished and was (or should have been) graded:
/// timeouts, apply failures, empty patches and build failures keep their outcome.
fn regradable(report: &InstanceReport) -> bool {
    let graded = report.outcome.is_completed() || report.outcome == Outcome::InfraError;
    graded && report.exit_code.is_some() && report.logs.test_output.is_some()
}

/// Re-parses the saved test output and reports, and grades again.
fn regrade(
    report: &mut InstanceReport,
    instance: &crate::dataset::Instance,
    specs: &crate::dataset::spec::SpecRegistry,
    dir: &std::path::Path,
) {
    let (entry, _) = match resolve_spec(specs, instance) {
        Ok(found) => found,
        Err(reason) => {
            report.outcome = Outcome::InfraError;
            report.reason = Some(reason);
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
    let parsed = match parse::parse(entry.log_parser, &console, &structured) {
        Ok(parsed) => parsed,
        Err(e) => {
            report.outcome = Outcome::InfraError;
            report.reason = Some(format!("the test output could not be read: {e}"));
            return;
        }
    };
    grade_into(report, instance, &parsed);
}
