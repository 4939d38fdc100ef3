//! Every outcome of the decide stage, from raw outcomes written the way `run::execute` fills
//! them. No Docker.

use std::collections::BTreeMap;

use super::*;
use crate::grade::facts::ScriptFacts;
use crate::grade::Resolution;
use crate::parse::{TestResult, TestStatus};
use TestStatus::*;

const LIMITS: crate::grade::RunLimits = crate::grade::RunLimits { timeout_secs: 30, memory_gib: 4.0 };

fn parsed(tests: &[(&str, TestStatus)]) -> ParsedTests {
    let tests: BTreeMap<String, TestResult> = tests
        .iter()
        .map(|(id, status)| (id.to_string(), TestResult { status: *status, file: None, class: None }))
        .collect();
    ParsedTests {
        tests,
        source: ResultSource::Structured,
        disagreements: Vec::new(),
        notes: Vec::new(),
        nesting: Default::default(),
        console_summary: None,
        incomplete: None,
    }
}

/// A candidate run whose script got to its end: applied with `git apply`, test patch applied,
/// tests ran and exited `exit_code`, with `tests` parsed.
fn ran(exit_code: i64, tests: &[(&str, TestStatus)]) -> RawOutcome {
    let mut raw = RawOutcome::new(true, LIMITS);
    raw.execution = Execution::Ran {
        script: ScriptFacts {
            apply: Some(ApplyStep::GitApply),
            test_patch_applied: Some(true),
            tests_started: true,
            exit_code: Some(exit_code),
            finished: true,
            clock_unavailable: false,
        },
        job: JobFacts { container_exit_code: Some(0), wall_secs: 2.0, ..Default::default() },
    };
    raw.parsed = Some(Ok(parsed(tests)));
    raw
}

/// `ran`, with the script facts and job facts changed by `edit`.
fn ran_with(edit: impl FnOnce(&mut ScriptFacts, &mut JobFacts)) -> RawOutcome {
    let mut raw = ran(0, &[("t::a", Passed), ("t::b", Passed)]);
    if let Execution::Ran { script, job } = &mut raw.execution {
        edit(script, job);
    }
    raw
}

fn f2p() -> Vec<String> {
    vec!["t::a".to_string()]
}

fn p2p() -> Vec<String> {
    vec!["t::b".to_string()]
}

fn decide(raw: &RawOutcome) -> Evaluation {
    let (f, p) = (f2p(), p2p());
    evaluation(Expected { fail_to_pass: &f, pass_to_pass: &p }, raw, &Rules::default())
}

fn reason(decided: &Evaluation) -> &str {
    decided.reason.as_deref().unwrap_or("")
}

// ---------------------------------------------------------------- evaluation

#[test]
fn resolved_full_when_every_listed_test_passes() {
    let d = decide(&ran(0, &[("t::a", Passed), ("t::b", Passed)]));
    assert_eq!(d.outcome, Outcome::ResolvedFull);
    assert!(d.integrity.is_empty(), "{:?}", d.integrity);
    assert_eq!(d.grade.as_ref().map(|g| g.resolution), Some(Resolution::Full));
    assert!(d.parsed.is_some());
}

#[test]
fn a_suspicious_resolution_is_resolved_flagged_and_nothing_else_changes() {
    let suspicion = crate::grade::Suspicion {
        name: "test_framework_import".into(),
        path: "src/x.py".into(),
        line: Some(3),
        excerpt: "import _pytest.reports".into(),
    };
    let resolved = decide(&ran(0, &[("t::a", Passed), ("t::b", Passed)]));
    let d = flagged(resolved.clone(), std::slice::from_ref(&suspicion));
    assert_eq!(d.outcome, Outcome::ResolvedFlagged);
    assert!(
        reason(&d).starts_with(
            "1/1 FAIL_TO_PASS and 1/1 PASS_TO_PASS pass, but the patch is flagged (test_framework_import)"
        ),
        "{}",
        reason(&d)
    );
    assert_eq!(d.grade, resolved.grade, "the grade itself stays");
    // Without suspicions, or for any other outcome, nothing changes.
    assert_eq!(flagged(resolved.clone(), &[]), resolved);
    let unresolved = decide(&ran(1, &[("t::a", Failed), ("t::b", Passed)]));
    assert_eq!(flagged(unresolved.clone(), &[suspicion]), unresolved);
}

#[test]
fn resolved_partial_when_some_fail_to_pass_tests_pass() {
    let (f, p) = (vec!["t::a".to_string(), "t::c".to_string()], p2p());
    let raw = ran(1, &[("t::a", Passed), ("t::b", Passed), ("t::c", Failed)]);
    let d = evaluation(Expected { fail_to_pass: &f, pass_to_pass: &p }, &raw, &Rules::default());
    assert_eq!(d.outcome, Outcome::ResolvedPartial);
}

#[test]
fn unresolved_when_a_listed_test_fails() {
    let d = decide(&ran(1, &[("t::a", Failed), ("t::b", Passed)]));
    assert_eq!(d.outcome, Outcome::Unresolved);
    assert!(d.integrity.is_empty(), "exit 1 fits a failure: {:?}", d.integrity);
}

#[test]
fn an_exit_code_that_contradicts_the_statuses_downgrades_a_resolution() {
    let d = decide(&ran(2, &[("t::a", Passed), ("t::b", Passed)]));
    assert_eq!(d.outcome, Outcome::InfraError);
    assert!(reason(&d).starts_with("graded resolved_full but downgraded: the test command exited 2"), "{d:?}");
    assert_eq!(d.integrity.len(), 1);
    // Exit 0 with a failure on record: the failure already keeps it unresolved.
    let d = decide(&ran(0, &[("t::a", Failed), ("t::b", Passed)]));
    assert_eq!(d.outcome, Outcome::Unresolved);
    assert!(d.integrity[0].contains("exited 0 but 1 test(s) failed"), "{:?}", d.integrity);
}

#[test]
fn build_failed_names_its_log() {
    let mut raw = RawOutcome::new(true, LIMITS);
    raw.execution = Execution::BuildFailed {
        reason: "failed to build instance image x; see logs/build_images/x.log".into(),
        log: Some("logs/build_images/x.log".into()),
    };
    let d = decide(&raw);
    assert_eq!(d.outcome, Outcome::BuildFailed);
    assert_eq!(d.build_log.as_deref(), Some("logs/build_images/x.log"));
    assert!(reason(&d).contains("failed to build"), "{d:?}");
}

#[test]
fn an_engine_failure_is_an_infra_error() {
    let mut raw = RawOutcome::new(true, LIMITS);
    raw.execution = Execution::EngineFailed { reason: "failed to start the container for image x: gone".into() };
    let d = decide(&raw);
    assert_eq!(d.outcome, Outcome::InfraError);
    assert_eq!(reason(&d), "failed to start the container for image x: gone");
}

#[test]
fn no_applying_step_is_patch_apply_failed() {
    let raw = ran_with(|script, _| {
        script.apply = Some(ApplyStep::NotApplied);
        script.tests_started = false;
        script.exit_code = None;
    });
    let d = decide(&raw);
    assert_eq!(d.outcome, Outcome::PatchApplyFailed);
    assert!(reason(&d).starts_with("no step of the apply chain"), "{d:?}");
}

#[test]
fn a_missing_apply_line_is_an_infra_error() {
    let raw = ran_with(|script, job| {
        *script = ScriptFacts::default();
        job.container_exit_code = Some(1);
    });
    let d = decide(&raw);
    assert_eq!(d.outcome, Outcome::InfraError);
    assert_eq!(
        reason(&d),
        "the eval script stopped before the candidate patch was applied (container exit code Some(1)); see output.txt"
    );
    // Without a candidate (validation's "before" runs) there is no apply line to miss.
    let mut raw = ran(0, &[("t::a", Passed), ("t::b", Passed)]);
    raw.candidate = false;
    if let Execution::Ran { script, .. } = &mut raw.execution {
        script.apply = None;
    }
    assert_eq!(decide(&raw).outcome, Outcome::ResolvedFull);
}

#[test]
fn a_test_patch_that_does_not_apply_is_an_infra_error() {
    let raw = ran_with(|script, _| {
        script.test_patch_applied = Some(false);
        script.tests_started = false;
        script.exit_code = None;
    });
    let d = decide(&raw);
    assert_eq!(d.outcome, Outcome::InfraError);
    assert!(reason(&d).starts_with("the test patch did not apply"), "{d:?}");
}

#[test]
fn timeouts_need_the_deadline_or_the_time_to_have_run_out() {
    let killed = ran_with(|script, job| {
        script.exit_code = None;
        script.finished = false;
        job.killed_at_deadline = true;
        job.container_exit_code = None;
    });
    let d = decide(&killed);
    assert_eq!(d.outcome, Outcome::Timeout);
    assert_eq!(reason(&d), "the tests did not finish within 30 s");
    let timed_out = ran_with(|script, job| {
        script.exit_code = Some(124);
        job.wall_secs = 30.4;
    });
    assert_eq!(decide(&timed_out).outcome, Outcome::Timeout);
    // 137 well before the timeout is a kill, not a timeout: graded (and the exit code
    // contradicts the passing statuses).
    let early = ran_with(|script, job| {
        script.exit_code = Some(137);
        job.wall_secs = 3.0;
    });
    let d = decide(&early);
    assert_eq!(d.outcome, Outcome::InfraError);
    assert!(reason(&d).contains("137: the command was killed"), "{d:?}");
}

#[test]
fn a_script_that_stops_before_or_under_the_tests_is_an_infra_error() {
    let before = ran_with(|script, _| {
        script.tests_started = false;
        script.exit_code = None;
        script.finished = false;
    });
    let d = decide(&before);
    assert_eq!(d.outcome, Outcome::InfraError);
    assert!(reason(&d).starts_with("the eval script stopped before the test command finished"), "{d:?}");
    let under = ran_with(|script, job| {
        script.exit_code = None;
        script.finished = false;
        job.container_exit_code = Some(137);
    });
    let d = decide(&under);
    assert_eq!(d.outcome, Outcome::InfraError);
    assert_eq!(
        reason(&d),
        "the eval script stopped before the test command finished (container exit code Some(137)); see output.txt"
    );
    // Out of memory before the tests started is verdict's own step failing.
    let early = ran_with(|script, job| {
        script.tests_started = false;
        script.exit_code = None;
        job.oom_killed = true;
    });
    assert_eq!(reason(&decide(&early)), "the container ran out of memory before the test command finished");
}

#[test]
fn tests_killed_by_the_oom_killer_are_unresolved() {
    for exit_code in [Some(137), None] {
        let raw = ran_with(|script, job| {
            script.exit_code = exit_code;
            job.oom_killed = true;
        });
        let d = decide(&raw);
        assert_eq!(d.outcome, Outcome::Unresolved, "{exit_code:?}");
        assert_eq!(reason(&d), "killed by the out-of-memory killer at 4 GiB");
        assert!(d.outcome.is_completed());
        assert_eq!(d.grade, None, "a killed run is not graded");
        assert!(d.parsed.is_some(), "what it reported is kept");
    }
    let mut half = ran_with(|_, job| job.oom_killed = true);
    half.limits.memory_gib = 0.5;
    assert_eq!(reason(&decide(&half)), "killed by the out-of-memory killer at 0.5 GiB");
    // Killed at the deadline is a timeout, whatever the memory did.
    let late = ran_with(|_, job| {
        job.oom_killed = true;
        job.killed_at_deadline = true;
    });
    assert_eq!(decide(&late).outcome, Outcome::Timeout);
}

#[test]
fn tests_that_report_nothing_are_unresolved() {
    // `os._exit(0)` at import: exit 0, only pytest's header printed; verdict's steps worked.
    let mut raw = ran(0, &[]);
    raw.parsed = Some(Err("no test results could be recognized: nothing".into()));
    let d = decide(&raw);
    assert_eq!(d.outcome, Outcome::Unresolved);
    assert_eq!(
        reason(&d),
        "the tests ran (exit code 0) but reported no test result: no test results could be recognized: nothing"
    );
    assert!(d.outcome.is_completed() && !d.outcome.is_error());
    raw.parsed = None;
    assert_eq!(reason(&decide(&raw)), "the tests ran (exit code 0) but reported no test result: nothing was parsed");
}

#[test]
fn the_classes_in_order() {
    assert_eq!(classify(&ran(0, &[])), RunClass::Ran { exit_code: 0, parsed: Some(Ok(&parsed(&[]))) });
    let raw = ran_with(|script, job| {
        // Both a test patch failure and a deadline kill: the earlier rule wins.
        script.test_patch_applied = Some(false);
        job.killed_at_deadline = true;
    });
    assert_eq!(classify(&raw), RunClass::TestPatchFailed);
}

#[test]
fn raw_outcomes_round_trip_without_their_parse() {
    let raw = ran(1, &[("t::a", Failed)]);
    let json = serde_json::to_value(&raw).unwrap();
    assert_eq!(json["execution"]["kind"], "ran");
    assert_eq!(json["execution"]["script"]["apply"], "git_apply");
    let back: RawOutcome = serde_json::from_value(json).unwrap();
    assert_eq!(back.parsed, None);
    assert_eq!(back.execution, raw.execution);
    for step in ApplyStep::ALL {
        assert_eq!(serde_json::to_value(step).unwrap(), step.name());
        assert_eq!(ApplyStep::from_name(step.name()), Some(step));
    }
    assert_eq!(ApplyStep::from_name("git_apply_reject"), None);
}

// ---------------------------------------------------------------- validation

fn before_run(tests: &[(&str, TestStatus)]) -> RawOutcome {
    let mut raw = ran(1, tests);
    raw.candidate = false;
    if let Execution::Ran { script, .. } = &mut raw.execution {
        script.apply = None;
    }
    raw
}

fn stop_status(run: &PhaseRun) -> Option<ValidationStatus> {
    match run {
        PhaseRun::Stop { status, .. } => Some(*status),
        _ => None,
    }
}

#[test]
fn validation_of_a_sound_instance_is_valid() {
    let before = [validation_run(Phase::Before, &before_run(&[("t::a", Failed), ("t::b", Passed)]), "b/output.txt")];
    let after = [validation_run(Phase::Gold, &ran(0, &[("t::a", Passed), ("t::b", Passed)]), "g/output.txt")];
    let v = validation(&before, &after, &Rules::default());
    assert_eq!(v.status, ValidationStatus::Valid);
    let derived = v.derived.unwrap();
    assert_eq!((derived.fail_to_pass, derived.pass_to_pass), (f2p(), p2p()));
}

#[test]
fn validation_stops_on_build_apply_and_test_patch_failures() {
    let mut built = RawOutcome::new(false, LIMITS);
    built.execution = Execution::BuildFailed { reason: "failed to build".into(), log: None };
    assert_eq!(stop_status(&validation_run(Phase::Before, &built, "o")), Some(ValidationStatus::BuildFailed));
    let test_patch = ran_with(|script, _| script.test_patch_applied = Some(false));
    let run = validation_run(Phase::Before, &test_patch, "x/before-1/output.txt");
    assert_eq!(stop_status(&run), Some(ValidationStatus::TestPatchDoesNotApply));
    let v = validation(&[run], &[], &Rules::default());
    assert_eq!(v.status, ValidationStatus::TestPatchDoesNotApply);
    assert_eq!(v.reason, "the test patch does not apply at the base commit; see x/before-1/output.txt");
    let gold = ran_with(|script, _| script.apply = Some(ApplyStep::NotApplied));
    assert_eq!(stop_status(&validation_run(Phase::Gold, &gold, "o")), Some(ValidationStatus::GoldDoesNotApply));
}

#[test]
fn validation_with_a_failing_gold_patch() {
    let before = [validation_run(Phase::Before, &before_run(&[("t::a", Failed)]), "o")];
    let after = [validation_run(Phase::Gold, &ran(1, &[("t::a", Failed)]), "o")];
    assert_eq!(validation(&before, &after, &Rules::default()).status, ValidationStatus::GoldFails);
    let timeout = ran_with(|_, job| job.killed_at_deadline = true);
    let run = validation_run(Phase::Gold, &timeout, "o");
    assert_eq!(
        run,
        PhaseRun::Stop {
            status: ValidationStatus::GoldFails,
            reason: "the tests with the gold patch did not finish within 30 s".into()
        }
    );
    let crashed = ran_with(|script, _| script.exit_code = None);
    assert_eq!(stop_status(&validation_run(Phase::Gold, &crashed, "o")), Some(ValidationStatus::GoldFails));
}

#[test]
fn validation_with_nothing_new_is_no_fail_to_pass() {
    let before = [validation_run(Phase::Before, &before_run(&[("t::b", Passed)]), "o")];
    let after = [validation_run(Phase::Gold, &ran(0, &[("t::b", Passed)]), "o")];
    assert_eq!(validation(&before, &after, &Rules::default()).status, ValidationStatus::NoFailToPass);
}

#[test]
fn before_the_fix_tests_that_cannot_run_count_as_failing() {
    let mut hanging = before_run(&[]);
    if let Execution::Ran { job, .. } = &mut hanging.execution {
        job.killed_at_deadline = true;
    }
    let run = validation_run(Phase::Before, &hanging, "o");
    assert_eq!(run, PhaseRun::Failing { reason: "the tests did not finish within 30 s".into() });
    let after = [validation_run(Phase::Gold, &ran(0, &[("t::a", Passed)]), "o")];
    let v = validation(&[run], &after, &Rules::default());
    assert_eq!(v.status, ValidationStatus::Valid);
    assert_eq!(v.derived.unwrap().fail_to_pass, f2p());
}

#[test]
fn a_validation_run_that_verdict_could_not_run_is_an_infra_error() {
    let mut raw = RawOutcome::new(true, LIMITS);
    raw.execution = Execution::EngineFailed { reason: "failed to create a container: gone".into() };
    for phase in [Phase::Before, Phase::Gold] {
        let run = validation_run(phase, &raw, "o");
        assert_eq!(stop_status(&run), Some(ValidationStatus::InfraError), "{phase:?}");
    }
    assert_eq!(serde_json::to_value(ValidationStatus::InfraError).unwrap(), "infra_error");
}

// ---------------------------------------------------------------- check-envs

fn check(raw: &RawOutcome) -> CheckEnv {
    let (f, p) = (f2p(), p2p());
    check_env(Expected { fail_to_pass: &f, pass_to_pass: &p }, raw, &Rules::default())
}

#[test]
fn check_env_of_a_healthy_environment() {
    let c = check(&ran(0, &[("t::a", Passed), ("t::b", Passed)]));
    assert!(c.builds);
    assert_eq!(c.outcome, Outcome::ResolvedFull);
    assert_eq!((c.drift.len(), c.reason.as_deref()), (0, None));
}

#[test]
fn check_env_reports_drift() {
    let c = check(&ran(1, &[("t::a", Passed), ("t::b", Failed)]));
    assert_eq!(c.outcome, Outcome::Unresolved);
    assert_eq!(c.drift, [Drift { list: ListName::PassToPass, id: "t::b".into(), now: "FAILED".into() }]);
    assert_eq!(c.reason, None);
}

#[test]
fn check_env_checks_the_exit_code() {
    let c = check(&ran(1, &[("t::a", Passed), ("t::b", Passed)]));
    assert_eq!(c.outcome, Outcome::InfraError);
    assert_eq!(c.integrity.len(), 1);
    assert!(c.reason.as_deref().unwrap_or("").contains("graded resolved_full but downgraded"), "{c:?}");
}

#[test]
fn check_env_of_broken_environments() {
    let mut built = RawOutcome::new(true, LIMITS);
    built.execution = Execution::BuildFailed { reason: "failed".into(), log: Some("b.log".into()) };
    let c = check(&built);
    assert!(!c.builds);
    assert_eq!((c.outcome, c.build_log.as_deref()), (Outcome::BuildFailed, Some("b.log")));
    let cases: [(RawOutcome, Outcome, &str); 3] = [
        (
            ran_with(|script, _| script.apply = Some(ApplyStep::NotApplied)),
            Outcome::PatchApplyFailed,
            "the gold patch no longer applies",
        ),
        (
            ran_with(|script, _| script.test_patch_applied = Some(false)),
            Outcome::InfraError,
            "the test patch no longer applies",
        ),
        (ran_with(|_, job| job.killed_at_deadline = true), Outcome::Timeout, "the gold run did not finish within 30 s"),
    ];
    for (raw, outcome, reason) in cases {
        let c = check(&raw);
        assert!(c.builds);
        assert_eq!((c.outcome, c.reason.as_deref()), (outcome, Some(reason)));
    }
}

// ---------------------------------------------------------------- fidelity

#[test]
fn graded_outcomes_give_their_reason() {
    let d = decide(&ran(0, &[("t::a", Passed), ("t::b", Passed)]));
    assert_eq!(reason(&d), "1/1 FAIL_TO_PASS and 1/1 PASS_TO_PASS pass");
    let d = decide(&ran(1, &[("t::a", Failed), ("t::b", Skipped)]));
    assert_eq!(
        reason(&d),
        "0/1 FAIL_TO_PASS and 0/1 PASS_TO_PASS pass; not passing: FAIL_TO_PASS t::a (FAILED), PASS_TO_PASS t::b (SKIPPED)"
    );
    let many: Vec<String> = (0..8).map(|i| format!("t::{i}")).collect();
    let tests: Vec<(&str, TestStatus)> = many.iter().map(|id| (id.as_str(), Failed)).collect();
    let d = evaluation(Expected { fail_to_pass: &many, pass_to_pass: &[] }, &ran(1, &tests), &Rules::default());
    assert!(reason(&d).starts_with("0/8 FAIL_TO_PASS and 0/0 PASS_TO_PASS pass; not passing: FAIL_TO_PASS t::0"));
    assert!(reason(&d).ends_with("FAIL_TO_PASS t::4 (FAILED) and 3 more"), "{}", reason(&d));
    let d = evaluation(
        Expected { fail_to_pass: &[], pass_to_pass: &p2p() },
        &ran(0, &[("t::b", Passed)]),
        &Rules::default(),
    );
    assert_eq!(d.outcome, Outcome::Unresolved);
    assert!(reason(&d).contains("no FAIL_TO_PASS tests"), "{d:?}");
}

/// The structured report says PASSED where the console says FAILED.
fn disagreeing(test: &str) -> RawOutcome {
    let mut raw = ran(0, &[("t::a", Passed), ("t::b", Passed), ("t::other", Passed)]);
    if let Some(Ok(parsed)) = &mut raw.parsed {
        parsed.disagreements.push(crate::parse::Disagreement {
            test: test.into(),
            structured: Some(Passed),
            console: Some(Failed),
        });
    }
    raw
}

#[test]
fn a_disagreement_on_a_graded_test_takes_the_worse_status() {
    let d = decide(&disagreeing("t::a"));
    assert_eq!(d.outcome, Outcome::Unresolved);
    assert_eq!(d.parsed.as_ref().unwrap().tests["t::a"].status, Failed, "graded as the console says");
    assert_eq!(d.integrity.len(), 1, "exit 0 fits the report's statuses: {:?}", d.integrity);
    assert!(
        d.integrity[0].starts_with("the structured report and the console disagree on 1 graded test(s): t::a (structured PASSED, console FAILED)"),
        "{:?}",
        d.integrity
    );
    // On a test no list grades: the worse status is kept, and nothing is graded differently.
    let d = decide(&disagreeing("t::other"));
    assert_eq!(d.parsed.as_ref().unwrap().tests["t::other"].status, Failed);
    assert!(!d.integrity.iter().any(|w| w.contains("disagree")), "{:?}", d.integrity);
}

#[test]
fn a_disagreement_inside_a_graded_file_counts() {
    let (f, p) = (vec!["test/a.test.js".to_string()], Vec::new());
    let mut raw = ran(0, &[]);
    let mut parsed = parsed(&[]);
    for id in ["test/a.test.js > x", "test/a.test.js > y"] {
        parsed.tests.insert(id.into(), TestResult { status: Passed, file: Some("test/a.test.js".into()), class: None });
    }
    parsed.disagreements.push(crate::parse::Disagreement {
        test: "test/a.test.js > y".into(),
        structured: Some(Passed),
        console: Some(Skipped),
    });
    raw.parsed = Some(Ok(parsed));
    let d = evaluation(Expected { fail_to_pass: &f, pass_to_pass: &p }, &raw, &Rules::default());
    assert_eq!(d.outcome, Outcome::Unresolved, "a skipped test leaves the file unproven");
    assert!(d.integrity[0].contains("test/a.test.js > y (structured PASSED, console SKIPPED)"), "{:?}", d.integrity);
}

#[test]
fn console_counts_that_contradict_the_report_are_never_resolved() {
    let mut raw = ran(0, &[("t::a", Passed), ("t::b", Passed)]);
    if let Some(Ok(parsed)) = &mut raw.parsed {
        parsed.console_summary = Some(crate::parse::SummaryCounts {
            failed: 1,
            passed: 1,
            line: "1 failed, 1 passed in 0.1s".into(),
            ..Default::default()
        });
    }
    let d = decide(&raw);
    assert_eq!(d.outcome, Outcome::InfraError);
    assert!(reason(&d).starts_with("graded resolved_full but downgraded: the console's closing summary"), "{d:?}");
}

#[test]
fn a_run_that_stopped_part_way_is_never_resolved() {
    let mut raw = ran(0, &[("t::a", Passed), ("t::b", Passed)]);
    if let Some(Ok(parsed)) = &mut raw.parsed {
        parsed.incomplete = Some("jest printed no closing `Test Suites:` summary".into());
    }
    let d = decide(&raw);
    assert_eq!(d.outcome, Outcome::Unresolved);
    assert_eq!(
        reason(&d),
        "graded resolved_full on the tests it reported (1/1 FAIL_TO_PASS and 1/1 PASS_TO_PASS pass), but jest printed \
         no closing `Test Suites:` summary"
    );
    // process.exit(1): the exit code contradicts the passing tests, and the cut explains it.
    if let Execution::Ran { script, .. } = &mut raw.execution {
        script.exit_code = Some(1);
    }
    let d = decide(&raw);
    assert_eq!(d.outcome, Outcome::Unresolved);
    assert_eq!(d.integrity.len(), 1);
}

#[test]
fn validation_where_no_test_ran() {
    let mut nothing = before_run(&[]);
    nothing.parsed = Some(Err("no test results could be recognized".into()));
    nothing.test_args = vec!["tests/test_a.py".into()];
    if let Execution::Ran { script, .. } = &mut nothing.execution {
        script.exit_code = Some(5);
    }
    let mut gold_nothing = nothing.clone();
    gold_nothing.candidate = true;
    if let Execution::Ran { script, .. } = &mut gold_nothing.execution {
        script.apply = Some(ApplyStep::GitApply);
    }
    let before = [validation_run(Phase::Before, &nothing, "o"), validation_run(Phase::Before, &nothing, "o")];
    let after = [validation_run(Phase::Gold, &gold_nothing, "o")];
    let v = validation(&before, &after, &Rules::default());
    assert_eq!(v.status, ValidationStatus::NoTestsRan);
    assert!(
        v.reason.starts_with("no test ran, before or with the gold patch: the test command (exit code 5)"),
        "{}",
        v.reason
    );
    assert!(v.reason.contains("`tests/test_a.py`"), "{}", v.reason);
    assert_eq!(serde_json::to_value(ValidationStatus::NoTestsRan).unwrap(), "no_tests_ran");
    // Tests before, none with the gold patch: the gold patch broke them.
    let before = [validation_run(Phase::Before, &before_run(&[("t::a", Failed)]), "o")];
    let v = validation(&before, &after, &Rules::default());
    assert_eq!(v.status, ValidationStatus::GoldFails);
    assert!(v.reason.starts_with("the test output with the gold patch could not be read"), "{}", v.reason);
    // None before (new test files that did not load), tests with the gold patch: valid.
    let before = [validation_run(Phase::Before, &nothing, "o")];
    let after = [validation_run(Phase::Gold, &ran(0, &[("t::a", Passed)]), "o")];
    assert_eq!(validation(&before, &after, &Rules::default()).status, ValidationStatus::Valid);
}

#[test]
fn validation_runs_killed_for_memory() {
    let oom = ran_with(|_, job| job.oom_killed = true);
    let run = validation_run(Phase::Gold, &oom, "o");
    assert_eq!(
        run,
        PhaseRun::Stop {
            status: ValidationStatus::GoldFails,
            reason: "the tests with the gold patch were killed by the out-of-memory killer at 4 GiB".into()
        }
    );
    let mut before = oom.clone();
    before.candidate = false;
    assert!(matches!(validation_run(Phase::Before, &before, "o"), PhaseRun::Failing { .. }));
    let c = check(&oom);
    assert_eq!(c.outcome, Outcome::Unresolved);
    assert_eq!(c.reason.as_deref(), Some("the gold run was killed by the out-of-memory killer at 4 GiB"));
}
