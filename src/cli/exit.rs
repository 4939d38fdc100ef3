//! Process exit codes, documented in the README.

/// Every instance got an outcome (resolved or not) and no infrastructure failed.
pub const OK: i32 = 0;
/// verdict itself failed unexpectedly.
pub const INTERNAL: i32 = 1;
/// Bad input: a dataset, predictions or spec file that cannot be used, or a bad flag.
pub const BAD_INPUT: i32 = 2;
/// The Docker engine cannot be reached (at start, or mid-run for longer than `--engine-wait`),
/// or the base OS image cannot be had.
pub const ENGINE: i32 = 3;
/// The run finished, but some instances ended in `build_failed` or `infra_error`
/// (validate: some instances are not valid; check-envs: some environments drifted).
pub const SOME_FAILED: i32 = 4;
/// Interrupted by Ctrl-C; rerun the same run id to resume. SIGTERM and SIGHUP end a run the
/// same way with 143 and 129 (128 + the signal; see `run::signals`).
pub const INTERRUPTED: i32 = 130;
