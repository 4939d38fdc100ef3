//! Process exit codes, documented in the README.

/// Every instance got an outcome (resolved or not) and no infrastructure failed.
pub const OK: i32 = 0;
/// verdict itself failed unexpectedly.
pub const INTERNAL: i32 = 1;
/// Bad input: a dataset, predictions or spec file that cannot be used, or a bad flag.
pub const BAD_INPUT: i32 = 2;
/// The Docker engine cannot be reached, or the base OS image cannot be had.
pub const ENGINE: i32 = 3;
/// The run finished, but some instances ended in `build_failed` or `infra_error`
/// (validate: some instances are not valid; check-envs: some environments drifted).
pub const SOME_FAILED: i32 = 4;
/// Interrupted by Ctrl-C; rerun the same run id to resume.
pub const INTERRUPTED: i32 = 130;
