//! The predictions of a run, from one or several files: naming each file's model (OmniGIRL's
//! three agentlessX files all say `agentless`), the duplicates policy, and the rule for
//! predictions outside the dataset, shared by `evaluate` and `localize`.
//!
//! # Rules
//! - Each source is a predictions file or `gold`. A source may rename its model (`--model`,
//!   or the file's stem); a file that holds several models cannot be renamed to one.
//! - A model (with its method) may come from one source only: two files that both say
//!   `agentless` are an error that says how to name them apart.
//! - Two predictions of one model for one instance within a file follow [`Duplicates`].
//! - A prediction for an instance the dataset file does not have is skipped, and counted in a
//!   warning with a few of its ids; with `strict` it is an error. A prediction for an
//!   instance the dataset has but `--instance-ids` did not choose is left out silently: that
//!   is what choosing means.
//! - When no prediction is left for the chosen instances, that is an error: nothing would run.
//!
//! Pairs come model by model, in the order the sources were given, each in dataset order.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use super::load::{examples, gold_predictions, load_predictions_with, match_predictions, Duplicates, LoadError};
use super::{Instance, Prediction};

/// A model and its method: what a run's results are kept apart by.
pub type ModelKey = (String, Option<String>);

/// Where one source's predictions come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceFile {
    /// Each instance's own gold patch (`--predictions gold`).
    Gold,
    Path(PathBuf),
}

impl SourceFile {
    pub fn parse(text: &str) -> Self {
        if text == "gold" {
            SourceFile::Gold
        } else {
            SourceFile::Path(PathBuf::from(text))
        }
    }

    fn path(&self) -> &Path {
        match self {
            SourceFile::Gold => Path::new("gold"),
            SourceFile::Path(p) => p,
        }
    }
}

/// One predictions source and how to name its model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub file: SourceFile,
    /// Replaces the file's `model_name_or_path`.
    pub model: Option<String>,
    /// Sets the method of every prediction of the file.
    pub method: Option<String>,
}

/// The predictions of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Assembled {
    /// Model by model in source order, each in dataset order.
    pub pairs: Vec<(Instance, Prediction)>,
    /// (model, method) in the order they were given.
    pub models: Vec<ModelKey>,
    /// Things the user should read: duplicates kept, predictions skipped.
    pub warnings: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(
        "model {model} comes from both {} and {}; name each file's model with --model NAME (one per \
         --predictions, in the same order) or --model-from-path",
        .first.display(), .second.display()
    )]
    Collision { model: String, first: PathBuf, second: PathBuf },
    #[error(
        "{}: --model renames one model, but the file holds predictions of several ({}); split the file \
         or leave out --model",
        .path.display(), .models.join(", ")
    )]
    SeveralModels { path: PathBuf, models: Vec<String> },
    #[error("no prediction is for an instance chosen from {}: {}", .dataset.display(), .why)]
    Nothing { dataset: PathBuf, why: String },
}

/// Reads every source and pairs its predictions with the chosen `instances` (see the module doc).
/// `dataset_ids` holds every id of the dataset file, chosen or not.
pub fn assemble(
    sources: &[Source],
    instances: &[Instance],
    dataset_ids: &HashSet<String>,
    dataset_path: &Path,
    duplicates: Duplicates,
    strict: bool,
) -> Result<Assembled, SourceError> {
    let mut assembled = Assembled { pairs: Vec::new(), models: Vec::new(), warnings: Vec::new() };
    let mut owner: BTreeMap<ModelKey, PathBuf> = BTreeMap::new();
    let mut per_model: Vec<(ModelKey, Vec<(Instance, Prediction)>)> = Vec::new();
    let mut read_any = 0usize;
    let chosen: HashSet<&str> = instances.iter().map(|i| i.instance_id.as_str()).collect();
    for source in sources {
        let path = source.file.path().to_path_buf();
        let mut predictions = match &source.file {
            SourceFile::Gold => gold_predictions(instances),
            SourceFile::Path(p) => {
                let file = load_predictions_with(p, duplicates)?;
                if !file.duplicates.is_empty() {
                    let which = if duplicates == Duplicates::First { "first" } else { "last" };
                    let lines: Vec<String> = file.duplicates.iter().map(|d| format!("\n  {d}")).collect();
                    assembled.warnings.push(format!(
                        "{}: {} instance(s) have several predictions of one model; kept the {which} of each:{}",
                        p.display(),
                        file.duplicates.len(),
                        lines.concat()
                    ));
                }
                file.predictions
            }
        };
        read_any += predictions.len();
        if let Some(name) = &source.model {
            let models: Vec<String> = distinct(predictions.iter().map(|p| p.model_name_or_path.clone()));
            if models.len() > 1 {
                return Err(SourceError::SeveralModels { path, models });
            }
            predictions.iter_mut().for_each(|p| p.model_name_or_path = name.clone());
        }
        if let Some(method) = &source.method {
            predictions.iter_mut().for_each(|p| p.method = Some(method.clone()));
        }
        // Instances of the dataset that --instance-ids left out are not "outside".
        predictions.retain(|p| chosen.contains(p.instance_id.as_str()) || !dataset_ids.contains(&p.instance_id));
        let matched = match_predictions(instances, &predictions, &path, strict)?;
        if !matched.outside.is_empty() {
            assembled.warnings.push(format!(
                "{}: skipped {} prediction(s) for {} instance(s) that {} does not have ({}); \
                 --strict-predictions makes this an error",
                path.display(),
                matched.outside_predictions,
                matched.outside.len(),
                dataset_path.display(),
                examples(&matched.outside)
            ));
        }
        for (instance, prediction) in matched.pairs {
            let key = (prediction.model_name_or_path.clone(), prediction.method.clone());
            match owner.get(&key) {
                Some(first) if first != &path => {
                    return Err(SourceError::Collision { model: label(&key), first: first.clone(), second: path })
                }
                Some(_) => {}
                None => {
                    owner.insert(key.clone(), path.clone());
                    assembled.models.push(key.clone());
                    per_model.push((key.clone(), Vec::new()));
                }
            }
            if let Some((_, list)) = per_model.iter_mut().find(|(k, _)| *k == key) {
                list.push((instance, prediction));
            }
        }
    }
    assembled.pairs = per_model.into_iter().flat_map(|(_, pairs)| pairs).collect();
    if assembled.pairs.is_empty() {
        let why = if read_any == 0 {
            "the predictions files hold no predictions".to_string()
        } else {
            format!("none of the {read_any} prediction(s) read names one; check --dataset and --instance-ids")
        };
        let why = std::iter::once(why).chain(assembled.warnings.iter().cloned()).collect::<Vec<_>>().join("\n  ");
        return Err(SourceError::Nothing { dataset: dataset_path.to_path_buf(), why });
    }
    Ok(assembled)
}

/// `model` or `model (method)`.
pub fn label(key: &ModelKey) -> String {
    match &key.1 {
        Some(method) => format!("{} ({method})", key.0),
        None => key.0.clone(),
    }
}

fn distinct(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

#[cfg(test)]
mod tests;
