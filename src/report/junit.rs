//! JUnit XML of a run's verdicts (`verdict evaluate --junit FILE`), so CI systems can show a
//! run: one test suite per model, one test case per instance, failed when the instance is not
//! resolved (`resolved_full`), with the outcome as the failure type and the reason as its message.
//! An instance that verdict could not decide (`build_failed`, `infra_error`) is an error, not a
//! failure, as JUnit tells a broken test from a failing one.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::{model_key, InstanceReport, Outcome, Summary};

/// The run as JUnit XML: `run_id` names the report, each (summary, reports) pair one suite.
pub fn render(run_id: &str, models: &[(Summary, Vec<InstanceReport>)]) -> Result<String, quick_junit::SerializeError> {
    let mut report = Report::new(format!("verdict {run_id}"));
    for (summary, reports) in models {
        let model = summary.model.clone().unwrap_or_else(|| "model".into());
        let key = model_key(&model, summary.method.as_deref());
        let mut suite = TestSuite::new(key.clone());
        for r in reports {
            let mut case = TestCase::new(r.instance_id.clone(), status(r));
            case.set_classname(format!("{key}.{}", r.repo));
            case.set_time(std::time::Duration::from_secs_f64(r.timing.wall_secs.max(0.0)));
            case.properties.extend([
                quick_junit::Property::new("outcome", r.outcome.name()),
                quick_junit::Property::new("language", r.language.clone()),
            ]);
            if let Some(step) = r.apply.step {
                case.properties.push(quick_junit::Property::new("apply_step", step.name()));
            }
            for flag in &r.flags {
                case.properties.push(quick_junit::Property::new("flag", flag.clone()));
            }
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    report.to_string()
}

fn status(r: &InstanceReport) -> TestCaseStatus {
    if r.outcome == Outcome::ResolvedFull {
        return TestCaseStatus::success();
    }
    let kind = if matches!(r.outcome, Outcome::BuildFailed | Outcome::InfraError) {
        NonSuccessKind::Error
    } else {
        NonSuccessKind::Failure
    };
    let mut status = TestCaseStatus::non_success(kind);
    status.set_type(r.outcome.name());
    status.set_message(message(r));
    status
}

/// `resolved_partial: 1 of 2 FAIL_TO_PASS tests fail: a, b` and the like.
fn message(r: &InstanceReport) -> String {
    if let Some(reason) = &r.reason {
        return format!("{}: {reason}", r.outcome);
    }
    let Some(grade) = &r.grade else { return r.outcome.to_string() };
    let f2p = &grade.tests_status.fail_to_pass.failure;
    let p2p = &grade.tests_status.pass_to_pass.failure;
    let mut parts = Vec::new();
    if !f2p.is_empty() {
        parts.push(format!("FAIL_TO_PASS failing: {}", f2p.join(", ")));
    }
    if !p2p.is_empty() {
        parts.push(format!("PASS_TO_PASS failing: {}", p2p.join(", ")));
    }
    if parts.is_empty() {
        r.outcome.to_string()
    } else {
        format!("{}: {}", r.outcome, parts.join("; "))
    }
}
