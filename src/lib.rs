//! verdict: decides, by running them, whether code changes really resolve GitHub issues.
//!
//! The modules follow the pipeline: [`dataset`] → [`images`] → [`run`] → [`parse`] → [`grade`]
//! → [`report`], with [`localize`] beside it.

pub mod dataset;
pub mod localize;
pub mod parse;
