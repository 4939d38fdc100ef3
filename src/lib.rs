//! verdict: decides, by running them, whether code changes really resolve GitHub issues.
//!
//! The modules follow the pipeline: [`dataset`] → [`images`] → [`run`] → [`parse`] → [`grade`]
//! → [`report`], with [`localize`] beside it. [`patch`], on the ground floor, is the one patch
//! model they all read patches through. [`engine`] owns the Docker connection and the labels on
//! what verdict makes; [`cli`] the command line; [`atomic`] writes files whole.

pub mod atomic;
pub mod cli;
pub mod dataset;
pub mod engine;
pub mod grade;
pub mod images;
pub mod localize;
pub mod parse;
pub mod patch;
pub mod report;
pub mod run;
