//! The predictions flags `evaluate` and `localize` share (several files, naming each file's
//! model and method, duplicates, predictions outside the dataset), turned into the run's
//! predictions by [`crate::dataset::sources`].

use std::path::Path;

use clap::{Args, ValueEnum};

use super::common::{self, Loaded};
use super::error::{Error, Result};
use crate::dataset::sources::{assemble, Assembled, Source, SourceFile};
use crate::dataset::Duplicates;

#[derive(Debug, Clone, Default, Args)]
pub struct PredictionArgs {
    /// Candidate patches: JSONL, a JSON array, or an object keyed by instance_id, with
    /// instance_id, model_name_or_path, model_patch (and optional method and cost fields).
    /// `gold` uses each instance's own gold patch. Repeat it to score several files in one
    /// run, each model on its own. Default with the demo: its bundled predictions.
    #[arg(long, value_name = "FILE|gold")]
    pub predictions: Vec<String>,
    /// The model of the --predictions file in the same position (one per file, in order),
    /// replacing the file's model_name_or_path. Needed when files share a model name
    /// (OmniGIRL's agentlessX files all say `agentless`).
    #[arg(long, value_name = "NAME")]
    pub model: Vec<String>,
    /// Name each file's model by its file name, without the extension.
    #[arg(long, conflicts_with = "model")]
    pub model_from_path: bool,
    /// The method that produced the patches (shown beside the model in reports and
    /// comparisons): one for every file, or one per --predictions file, in order.
    #[arg(long, value_name = "NAME")]
    pub method: Vec<String>,
    /// Two predictions of one model for one instance in a file: `refuse` (every one is
    /// listed with its lines), keep the `first`, or keep the `last` (what OmniGIRL's
    /// harness does, since it reads the file into a dict).
    #[arg(long, value_enum, default_value_t = DuplicatesArg::Refuse, value_name = "POLICY")]
    pub duplicates: DuplicatesArg,
    /// Predictions for instances the dataset does not have are an error. Without it they are
    /// skipped, and counted in a warning.
    #[arg(long)]
    pub strict_predictions: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum DuplicatesArg {
    #[default]
    Refuse,
    First,
    Last,
}

impl From<DuplicatesArg> for Duplicates {
    fn from(arg: DuplicatesArg) -> Self {
        match arg {
            DuplicatesArg::Refuse => Duplicates::Refuse,
            DuplicatesArg::First => Duplicates::First,
            DuplicatesArg::Last => Duplicates::Last,
        }
    }
}

/// The run's predictions, paired with the chosen instances; warnings go to stderr.
pub fn select(args: &PredictionArgs, loaded: &Loaded) -> Result<Assembled> {
    let bad = |message: String| Error::bad_input(message);
    let mut files = args.predictions.clone();
    if files.is_empty() {
        if !loaded.is_demo {
            return Err(bad("--predictions FILE (or `gold`) is required with --dataset".into()));
        }
        files.push(common::demo_dir().join("predictions.jsonl").display().to_string());
    }
    if !args.model.is_empty() && args.model.len() != files.len() {
        return Err(bad(format!(
            "{} --model for {} --predictions: give one --model per predictions file, in the same order",
            args.model.len(),
            files.len()
        )));
    }
    if args.method.len() > 1 && args.method.len() != files.len() {
        return Err(bad(format!(
            "{} --method for {} --predictions: give one --method for all files, or one per file in order",
            args.method.len(),
            files.len()
        )));
    }
    let sources: Vec<Source> = files
        .iter()
        .enumerate()
        .map(|(i, file)| {
            let file = SourceFile::parse(file);
            let model = args.model.get(i).cloned().or_else(|| match (&file, args.model_from_path) {
                (SourceFile::Path(p), true) => Some(stem(p)),
                _ => None,
            });
            let method = args.method.get(i).or(args.method.first()).cloned();
            Source { file, model, method }
        })
        .collect();
    let assembled = assemble(
        &sources,
        &loaded.instances,
        &loaded.dataset_ids,
        &loaded.path,
        args.duplicates.into(),
        args.strict_predictions,
    )
    .map_err(|e| bad(e.to_string()))?;
    for warning in &assembled.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(assembled)
}

fn stem(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}
