//! The decide stage: from what a run did ([`RawOutcome`]) to what it means. Pure functions,
//! no I/O: the one place where a run becomes an evaluation outcome ([`evaluation`]), a
//! validation stage result ([`validation_run`], then [`validation`]), or a check-envs verdict
//! ([`check_env`]). The three share [`classify`] and the integrity checks ([`integrity`]).
//!
//! # How a run is classified
//! In this order, the first that holds:
//! 1. an image layer did not build: build failed;
//! 2. the backend could not run the job: an infrastructure failure;
//! 3. with a candidate, the script's `APPLY` line is missing: the script stopped before the
//!    apply chain finished (infrastructure); it says `none`: no step applied the candidate;
//! 4. the test patch did not apply;
//! 5. the container was killed at its deadline: timeout;
//! 6. the tests started and the out-of-memory killer stopped a process of the container: the
//!    tests were killed for memory;
//! 7. the test command exited 124 or 137 (what `timeout` gives) once the timeout had run out:
//!    timeout;
//! 8. the tests never started: a pinned clock without libfaketime in the image, or the script
//!    stopped before them (infrastructure);
//! 9. the tests started but no exit code was recorded: the container stopped under the tests;
//! 10. otherwise the tests ran, and their parsed output is graded.
//!
//! # Evaluation outcomes
//! - The build, apply, test-patch, timeout and infrastructure classes give `build_failed`,
//!   `patch_apply_failed`, `infra_error`, `timeout` and `infra_error`, with the reason.
//! - Killed by the out-of-memory killer: `unresolved`, "killed by the out-of-memory killer at
//!   N GiB" (a candidate that allocates without bound broke the tests; a completed run, not
//!   retried).
//! - The tests ran (markers seen, exit code recorded) and reported no test result (a candidate
//!   that ends the process at import): `unresolved`, with that reason, counted as completed.
//!   `infra_error` is kept for failures of verdict's own steps.
//! - Otherwise graded. Every disagreement between the structured report and the console takes
//!   the worse status, and one on a graded test is an integrity warning; so is a console
//!   summary whose counts contradict the results, and an exit code that contradicts the
//!   statuses. A run with an integrity warning is never resolved (`infra_error`, "graded …
//!   but downgraded: …"), and a run that stopped part-way ([`ParsedTests::incomplete`]) is
//!   never resolved either (`unresolved`, with why). The reason of a graded outcome says how
//!   many tests of each list pass and names those that do not.
//! - Then [`flagged`]: a `resolved_full` candidate that carries suspicions (the report's
//!   `suspicious`: code that reaches into the test framework, a runner configuration that
//!   could not be reset) is `resolved_flagged`, counted apart from the resolve rate.

use super::facts::{ApplyStep, Execution, JobFacts, RawOutcome};
use super::outcome::{Drift, Outcome, ValidationStatus};
use super::{derive_lists_with, granularity, integrity, Derived, Grade, ListName, Rules, Suspicion};
use crate::parse::{ParsedTests, ResultSource};

/// An instance's expected lists.
#[derive(Debug, Clone, Copy)]
pub struct Expected<'a> {
    pub fail_to_pass: &'a [String],
    pub pass_to_pass: &'a [String],
}

/// What a run amounts to before any command reads it its own way.
#[derive(Debug, Clone, PartialEq)]
pub enum RunClass<'a> {
    BuildFailed {
        reason: &'a str,
        log: Option<&'a str>,
    },
    /// verdict's own steps failed: the engine, or the eval script before the tests started.
    Infra {
        reason: String,
    },
    /// No step of the apply chain applied the candidate.
    ApplyFailed,
    /// The test patch did not apply after the test files were restored.
    TestPatchFailed,
    Timeout {
        secs: u64,
    },
    /// The tests started and the out-of-memory killer stopped a process of the container.
    OutOfMemory {
        gib: f64,
        parsed: Option<&'a ParsedTests>,
    },
    /// The tests started, and the container stopped before the script recorded their exit code.
    TestsCrashed {
        reason: String,
    },
    /// The tests ran and their exit code was recorded.
    Ran {
        exit_code: i64,
        parsed: Option<Result<&'a ParsedTests, &'a str>>,
    },
}

/// Classifies a run (see the module doc for the order).
pub fn classify(raw: &RawOutcome) -> RunClass<'_> {
    let (script, job) = match &raw.execution {
        Execution::BuildFailed { reason, log } => {
            return RunClass::BuildFailed { reason, log: log.as_deref() };
        }
        Execution::EngineFailed { reason } => return RunClass::Infra { reason: reason.clone() },
        Execution::Ran { script, job } => (script, job),
    };
    if raw.candidate && !script.apply.is_some_and(ApplyStep::applied) {
        return match script.apply {
            Some(_) => RunClass::ApplyFailed,
            None => RunClass::Infra { reason: crash_reason(job, "before the candidate patch was applied") },
        };
    }
    if script.test_patch_applied == Some(false) {
        return RunClass::TestPatchFailed;
    }
    // `timeout` exits 124 (137 after its kill); a test command killed for another reason (the
    // OOM killer also gives 137) before the timeout is not a timeout.
    let ran_out_of_time = job.wall_secs >= raw.limits.timeout_secs as f64;
    if job.killed_at_deadline {
        return RunClass::Timeout { secs: raw.limits.timeout_secs };
    }
    if job.oom_killed && script.tests_started {
        let parsed = raw.parsed.as_ref().and_then(|p| p.as_ref().ok());
        return RunClass::OutOfMemory { gib: raw.limits.memory_gib, parsed };
    }
    if matches!(script.exit_code, Some(124) | Some(137)) && ran_out_of_time {
        return RunClass::Timeout { secs: raw.limits.timeout_secs };
    }
    if script.clock_unavailable {
        return RunClass::Infra {
            reason: "--clock needs libfaketime in the image (Debian's faketime package, in the language's apt list)"
                .into(),
        };
    }
    if !script.tests_started {
        return RunClass::Infra { reason: crash_reason(job, "before the test command finished") };
    }
    let Some(exit_code) = script.exit_code else {
        return RunClass::TestsCrashed { reason: crash_reason(job, "before the test command finished") };
    };
    let parsed = raw.parsed.as_ref().map(|p| p.as_ref().map_err(String::as_str));
    RunClass::Ran { exit_code, parsed }
}

/// "killed by the out-of-memory killer at 4 GiB".
pub fn oom_reason(gib: f64) -> String {
    format!("killed by the out-of-memory killer at {} GiB", trim_number(gib))
}

/// `4` for 4.0, `1.5` for 1.5.
fn trim_number(x: f64) -> String {
    let text = format!("{x:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// "the tests ran (exit code 0) but reported no test result: …".
fn no_result_reason(exit_code: i64, why: &str) -> String {
    format!("the tests ran (exit code {exit_code}) but reported no test result: {why}")
}

fn crash_reason(job: &JobFacts, when: &str) -> String {
    if job.oom_killed {
        format!("the container ran out of memory {when}")
    } else {
        format!("the eval script stopped {when} (container exit code {:?}); see output.txt", job.container_exit_code)
    }
}

// ---------------------------------------------------------------- evaluation

/// The decision on one evaluation, for `report.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub outcome: Outcome,
    pub reason: Option<String>,
    pub grade: Option<Grade>,
    pub integrity: Vec<String>,
    /// The parsed tests the grade was made from.
    pub parsed: Option<ParsedTests>,
    /// The build log, for `build_failed`.
    pub build_log: Option<String>,
}

impl Evaluation {
    fn ended(outcome: Outcome, reason: impl Into<String>) -> Self {
        Evaluation {
            outcome,
            reason: Some(reason.into()),
            grade: None,
            integrity: Vec::new(),
            parsed: None,
            build_log: None,
        }
    }
}

/// Decides an evaluation: classifies the run, and grades it when the tests ran. A run whose exit
/// code contradicts its parsed statuses is never counted as resolved.
pub fn evaluation(expected: Expected<'_>, raw: &RawOutcome, rules: &Rules) -> Evaluation {
    match classify(raw) {
        RunClass::BuildFailed { reason, log } => {
            let mut decided = Evaluation::ended(Outcome::BuildFailed, reason);
            decided.build_log = log.map(str::to_string);
            decided
        }
        RunClass::Infra { reason } | RunClass::TestsCrashed { reason } => Evaluation::ended(Outcome::InfraError, reason),
        RunClass::ApplyFailed => Evaluation::ended(
            Outcome::PatchApplyFailed,
            "no step of the apply chain (git apply, git apply --3way, patch --fuzz=5) applied the patch; see output.txt",
        ),
        RunClass::TestPatchFailed => Evaluation::ended(
            Outcome::InfraError,
            "the test patch did not apply after the test files were restored; see output.txt",
        ),
        RunClass::Timeout { secs } => Evaluation::ended(Outcome::Timeout, format!("the tests did not finish within {secs} s")),
        RunClass::OutOfMemory { gib, parsed } => {
            let mut decided = Evaluation::ended(Outcome::Unresolved, oom_reason(gib));
            decided.parsed = parsed.cloned();
            decided
        }
        RunClass::Ran { exit_code, parsed } => match parsed {
            Some(Ok(parsed)) => graded(expected, parsed, exit_code, rules),
            Some(Err(why)) => Evaluation::ended(Outcome::Unresolved, no_result_reason(exit_code, why)),
            None => Evaluation::ended(Outcome::Unresolved, no_result_reason(exit_code, "nothing was parsed")),
        },
    }
}

/// A flagged candidate is never published as a resolution without a look: an evaluation that
/// would be `resolved_full` while the candidate carries any [`Suspicion`] (its code reaches into
/// the test framework, or its runner configuration could not be reset) is `resolved_flagged`,
/// and its reason names the suspicions. Every other outcome is left as it is.
pub fn flagged(mut decided: Evaluation, suspicious: &[Suspicion]) -> Evaluation {
    if decided.outcome == Outcome::ResolvedFull && !suspicious.is_empty() {
        decided.outcome = Outcome::ResolvedFlagged;
        let how = decided.reason.take().unwrap_or_default();
        decided.reason = Some(format!(
            "{how}, but the patch is flagged ({}): not counted as resolved until someone has looked",
            super::suspicious::names(suspicious).join(", ")
        ));
    }
    decided
}

/// Grades a parsed run: the integrity checks, the grade, the outcome and its reason (see the
/// module doc).
pub fn graded(expected: Expected<'_>, parsed: &ParsedTests, exit_code: i64, rules: &Rules) -> Evaluation {
    let graded_ids =
        granularity::graded_tests(&[expected.fail_to_pass, expected.pass_to_pass], &parsed.tests, parsed.nesting);
    let (worse, disagreement) = integrity::worse_of_disagreements(parsed, &graded_ids);
    let integrity: Vec<String> = disagreement
        .into_iter()
        .chain(integrity::check_console_summary(parsed))
        .chain(integrity::check_exit_code(exit_code, parsed))
        .collect();
    let grade = super::grade_with(expected.fail_to_pass, expected.pass_to_pass, &worse, rules);
    let mut outcome = Outcome::from(grade.resolution);
    let how = grade_reason(&grade, &worse);
    let reason = if let Some(why) = &parsed.incomplete {
        // A run cut short explains its exit code; the tests broke, not verdict's steps.
        let reason = if outcome == Outcome::Unresolved {
            format!("{how}; and {why}")
        } else {
            format!("graded {outcome} on the tests it reported ({how}), but {why}")
        };
        outcome = Outcome::Unresolved;
        reason
    } else if !integrity.is_empty() && outcome != Outcome::Unresolved {
        let reason = format!("graded {outcome} but downgraded: {}", integrity.join("; "));
        outcome = Outcome::InfraError;
        reason
    } else {
        how
    };
    Evaluation { outcome, reason: Some(reason), grade: Some(grade), integrity, parsed: Some(worse), build_log: None }
}

/// How many tests of each list pass, and which do not: "2/2 FAIL_TO_PASS and 66/66
/// PASS_TO_PASS pass", or "…; not passing: FAIL_TO_PASS t::a (FAILED), PASS_TO_PASS t::b
/// (missing)", naming five and then "and N more".
pub fn grade_reason(grade: &Grade, parsed: &ParsedTests) -> String {
    let (f2p, p2p) = (&grade.tests_status.fail_to_pass, &grade.tests_status.pass_to_pass);
    if f2p.success.is_empty() && f2p.failure.is_empty() {
        return "the instance has no FAIL_TO_PASS tests, so no test can show the issue resolved".to_string();
    }
    let counts = format!(
        "{}/{} FAIL_TO_PASS and {}/{} PASS_TO_PASS pass",
        f2p.success.len(),
        f2p.success.len() + f2p.failure.len(),
        p2p.success.len(),
        p2p.success.len() + p2p.failure.len()
    );
    let drift: Vec<String> =
        drift_from_grade(grade, parsed).into_iter().map(|d| format!("{} {} ({})", d.list, d.id, d.now)).collect();
    if drift.is_empty() {
        counts
    } else {
        format!("{counts}; not passing: {}", some(&drift))
    }
}

// ---------------------------------------------------------------- validation

/// Which runs of a validation a run belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The test patch alone.
    Before,
    /// The test patch and the gold patch.
    Gold,
}

/// One validation run, decided.
#[derive(Debug, Clone, PartialEq)]
pub enum PhaseRun {
    /// Test results to derive the lists from.
    Tests(ParsedTests),
    /// Before the fix only: the tests could not run (a timeout, a crash, the out-of-memory
    /// killer); they count as failing.
    Failing { reason: String },
    /// The tests ran to their end (exit code recorded) and reported no test result.
    NoTests { reason: String, exit_code: i64, test_args: Vec<String> },
    /// Validation of the instance stops here with this status.
    Stop { status: ValidationStatus, reason: String },
}

/// Decides one validation run. `output` names the run's `output.txt` in reasons.
pub fn validation_run(phase: Phase, raw: &RawOutcome, output: &str) -> PhaseRun {
    let gold = phase == Phase::Gold;
    let stop = |status, reason: String| PhaseRun::Stop { status, reason };
    match classify(raw) {
        RunClass::BuildFailed { reason, .. } => stop(ValidationStatus::BuildFailed, reason.to_string()),
        RunClass::TestPatchFailed => stop(
            ValidationStatus::TestPatchDoesNotApply,
            format!("the test patch does not apply at the base commit; see {output}"),
        ),
        RunClass::ApplyFailed => {
            stop(ValidationStatus::GoldDoesNotApply, format!("the gold patch does not apply; see {output}"))
        }
        RunClass::Infra { reason } => stop(ValidationStatus::InfraError, reason),
        RunClass::Timeout { secs } if gold => {
            stop(ValidationStatus::GoldFails, format!("the tests with the gold patch did not finish within {secs} s"))
        }
        RunClass::Timeout { secs } => PhaseRun::Failing { reason: format!("the tests did not finish within {secs} s") },
        RunClass::TestsCrashed { reason } if gold => stop(ValidationStatus::GoldFails, reason),
        RunClass::TestsCrashed { reason } => PhaseRun::Failing { reason },
        RunClass::OutOfMemory { gib, .. } if gold => {
            stop(ValidationStatus::GoldFails, format!("the tests with the gold patch were {}", oom_reason(gib)))
        }
        RunClass::OutOfMemory { gib, .. } => {
            PhaseRun::Failing { reason: format!("the tests were {}", oom_reason(gib)) }
        }
        RunClass::Ran { parsed, exit_code } => {
            let reason = match parsed {
                Some(Ok(parsed)) => return PhaseRun::Tests(parsed.clone()),
                Some(Err(why)) => why.to_string(),
                None => "nothing was parsed".to_string(),
            };
            PhaseRun::NoTests { reason, exit_code, test_args: raw.test_args.clone() }
        }
    }
}

/// The decision on a validated instance.
#[derive(Debug, Clone, PartialEq)]
pub struct Validation {
    pub status: ValidationStatus,
    pub reason: String,
    pub derived: Option<Derived>,
}

/// Decides a validation from its runs: the first run that stopped it decides; when no run
/// reported a test, before or with the gold patch, no test ran (`no_tests_ran`: the test
/// arguments, the command or a plugin is wrong, not the gold patch); when only runs with the
/// gold patch reported none, the gold patch fails; otherwise the lists are derived and
/// [`validation_status`] decides.
pub fn validation(before: &[PhaseRun], after: &[PhaseRun], rules: &Rules) -> Validation {
    if let Some(PhaseRun::Stop { status, reason }) =
        before.iter().chain(after).find(|run| matches!(run, PhaseRun::Stop { .. }))
    {
        return Validation { status: *status, reason: reason.clone(), derived: None };
    }
    let no_tests = |run: &PhaseRun| matches!(run, PhaseRun::NoTests { .. });
    if let Some(PhaseRun::NoTests { reason, exit_code, test_args }) = after.iter().find(|r| no_tests(r)) {
        if before.iter().chain(after).all(no_tests) {
            let args = if test_args.is_empty() {
                "no arguments (the whole suite)".to_string()
            } else {
                format!("the arguments `{}`", test_args.join(" "))
            };
            let reason = format!(
                "no test ran, before or with the gold patch: the test command (exit code {exit_code}) reported no \
                 test result ({reason}); it ran with {args}: check them, the spec's test_cmd, and that the runner \
                 and its plugins are installed"
            );
            return Validation { status: ValidationStatus::NoTestsRan, reason, derived: None };
        }
        let reason = format!("the test output with the gold patch could not be read: {reason}");
        return Validation { status: ValidationStatus::GoldFails, reason, derived: None };
    }
    let runs = |phase: &[PhaseRun]| -> Vec<ParsedTests> {
        phase
            .iter()
            .map(|run| match run {
                PhaseRun::Tests(parsed) => parsed.clone(),
                PhaseRun::Failing { reason } | PhaseRun::NoTests { reason, .. } | PhaseRun::Stop { reason, .. } => {
                    empty_run(reason.clone())
                }
            })
            .collect()
    };
    let derived = derive_lists_with(&runs(before), &runs(after), rules);
    let (status, reason) = validation_status(&derived);
    Validation { status, reason, derived: Some(derived) }
}

/// A run with no results, standing for tests that could not run.
fn empty_run(note: String) -> ParsedTests {
    ParsedTests {
        tests: Default::default(),
        source: ResultSource::Console,
        disagreements: Vec::new(),
        notes: vec![note],
        nesting: Default::default(),
        console_summary: None,
        incomplete: None,
    }
}

/// The status that the derived lists alone decide (the runs decide the apply and build
/// statuses before any list is derived), with its reason.
pub fn validation_status(derived: &Derived) -> (ValidationStatus, String) {
    let flaky = match derived.flaky.len() {
        0 => String::new(),
        n => format!("; {n} flaky test(s) left out of both lists"),
    };
    if !derived.fail_to_pass.is_empty() {
        let broken = match derived.pass_to_fail.len() {
            0 => String::new(),
            n => format!("; the gold patch breaks {n} test(s) that passed before: {}", some(&derived.pass_to_fail)),
        };
        return (
            ValidationStatus::Valid,
            format!(
                "{} FAIL_TO_PASS and {} PASS_TO_PASS test(s) over {} run(s) before and {} after{flaky}{broken}",
                derived.fail_to_pass.len(),
                derived.pass_to_pass.len(),
                derived.before_runs,
                derived.after_runs
            ),
        );
    }
    if !derived.failing_after.is_empty() {
        return (
            ValidationStatus::GoldFails,
            format!(
                "no test goes from failing to passing, and {} test(s) still fail with the gold \
                 patch: {}{flaky}",
                derived.failing_after.len(),
                some(&derived.failing_after)
            ),
        );
    }
    let reason = if derived.pass_to_pass.is_empty() && derived.flaky.is_empty() {
        "no test result was parsed from the runs with the gold patch".to_string()
    } else {
        format!("no test fails before the gold patch and passes after it{flaky}")
    };
    (ValidationStatus::NoFailToPass, reason)
}

// ---------------------------------------------------------------- check-envs

/// The decision on one environment: does it build, and how does the gold patch grade?
#[derive(Debug, Clone, PartialEq)]
pub struct CheckEnv {
    pub builds: bool,
    pub build_log: Option<String>,
    pub outcome: Outcome,
    pub drift: Vec<Drift>,
    pub reason: Option<String>,
    pub integrity: Vec<String>,
}

/// Decides a check-envs run of the gold patch: the evaluation decision (integrity checks
/// included), read as drift.
pub fn check_env(expected: Expected<'_>, raw: &RawOutcome, rules: &Rules) -> CheckEnv {
    let class = classify(raw);
    let decided = evaluation(expected, raw, rules);
    let reason = match &class {
        RunClass::ApplyFailed => Some("the gold patch no longer applies".to_string()),
        RunClass::OutOfMemory { gib, .. } => Some(format!("the gold run was {}", oom_reason(*gib))),
        RunClass::TestPatchFailed => Some("the test patch no longer applies".to_string()),
        RunClass::Timeout { secs } => Some(format!("the gold run did not finish within {secs} s")),
        // A graded run that kept its outcome: the drift says what changed.
        RunClass::Ran { .. } if decided.grade.is_some() && decided.integrity.is_empty() => None,
        _ => decided.reason.clone(),
    };
    let drift = match (&decided.grade, &decided.parsed) {
        (Some(grade), Some(parsed)) => drift_from_grade(grade, parsed),
        _ => Vec::new(),
    };
    CheckEnv {
        builds: !matches!(class, RunClass::BuildFailed { .. }),
        build_log: decided.build_log,
        outcome: decided.outcome,
        drift,
        reason,
        integrity: decided.integrity,
    }
}

/// Every FAIL_TO_PASS and PASS_TO_PASS id that did not pass in a graded run.
pub fn drift_from_grade(grade: &Grade, parsed: &ParsedTests) -> Vec<Drift> {
    let mut drift = Vec::new();
    for (list, status) in [
        (ListName::FailToPass, &grade.tests_status.fail_to_pass),
        (ListName::PassToPass, &grade.tests_status.pass_to_pass),
    ] {
        for id in &status.failure {
            let coarse = grade.coarse.iter().find(|c| c.list == list && &c.id == id);
            let now = if let Some(c) = coarse {
                if c.failing.is_empty() {
                    format!("{} level: no test in it passed ({} skipped)", c.level, c.skipped)
                } else {
                    format!("{} level: {}", c.level, c.failing.join(", "))
                }
            } else {
                match parsed.tests.get(id) {
                    Some(result) => super::granularity::status_name(result.status).to_string(),
                    None => "missing".to_string(),
                }
            };
            drift.push(Drift { list, id: id.clone(), now });
        }
    }
    drift
}

/// Up to five ids, then "and N more".
fn some(ids: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text = ids.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if ids.len() > SHOWN {
        text.push_str(&format!(" and {} more", ids.len() - SHOWN));
    }
    text
}

#[cfg(test)]
mod tests;
