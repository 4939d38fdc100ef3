//! Unit tests for localization: hand-checked fixtures per language, bad input, metrics worked
//! out by hand, and dataset scoring.

mod bad_input;
mod fixtures;
mod metrics;
mod scoring;
mod diff;
mod reuse;
