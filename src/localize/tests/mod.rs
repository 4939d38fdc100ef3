//! Unit tests for localization: hand-checked fixtures per language, bad input, metrics worked
//! out by hand, and dataset scoring.

mod bad_input;
mod chain;
mod diff;
mod fixtures;
mod lenient;
mod metrics;
mod reuse;
mod scoring;
mod snapshot;
