//! `verdict localize`: localization scores of candidate patches (or ranked location lists)
//! against the gold patches, computed on the host from the repositories at their base commits.
//! No Docker, no tests run.

use std::path::PathBuf;

use clap::Args;

use super::common::{self, Loaded};
use super::error::{Error, Result};
use super::predictions::{self, PredictionArgs};
use super::{exit, DatasetArgs};
use crate::dataset::load_ranked;
use crate::dataset::repo::GitSnapshot;
use crate::dataset::sources::label;
use crate::localize::{Candidate, LocalizationSummary, LocalizeItem};

#[derive(Debug, Clone, Args)]
pub struct LocalizeArgs {
    #[command(flatten)]
    pub dataset: DatasetArgs,
    /// Candidate patches, read as `evaluate` reads them (several files, --model, --method,
    /// --duplicates, --strict-predictions); a file of several models scores each model.
    #[command(flatten)]
    pub predictions: PredictionArgs,
    /// Ranked localization outputs instead of patches: records with `instance_id` and ordered
    /// `found_files` / `found_modules` (or `found_classes`) / `found_functions` lists.
    #[arg(long, value_name = "FILE", conflicts_with = "predictions")]
    pub ranked: Option<PathBuf>,
    /// Where to write the scores (per instance and aggregated). Default:
    /// <logs>/localization.json. With several models the file holds an object keyed by model.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Root of output and of the repository cache.
    #[arg(long, default_value = "logs", value_name = "DIR")]
    pub logs: PathBuf,
}

pub fn run(args: LocalizeArgs) -> Result<i32> {
    let loaded = common::load_dataset(&args.dataset, &args.logs)?;
    let output = args.output.clone().unwrap_or_else(|| args.logs.join("localization.json"));
    if let Some(path) = &args.ranked {
        let mut candidates: Vec<(String, Candidate)> = Vec::new();
        for ranked in load_ranked(path)? {
            let id = ranked.instance_id.clone().unwrap_or_default();
            if !loaded.instances.iter().any(|i| i.instance_id == id) {
                if !loaded.dataset_ids.contains(&id) && args.predictions.strict_predictions {
                    return Err(Error::bad_input(format!(
                        "{}: instance {id} is not in {}",
                        path.display(),
                        loaded.path.display()
                    )));
                }
                continue;
            }
            candidates.push((id, Candidate::Ranked(ranked)));
        }
        let summary = score(&loaded, candidates);
        common::write_json(&output, &summary)?;
        print!("{}", crate::report::render_localization(&summary.aggregate));
    } else {
        let selected = predictions::select(&args.predictions, &loaded)?;
        let mut by_model: serde_json::Map<String, serde_json::Value> = serde_json::Map::new();
        let mut last = None;
        for key in &selected.models {
            let candidates: Vec<(String, Candidate)> = selected
                .pairs
                .iter()
                .filter(|(_, p)| p.model_name_or_path == key.0 && p.method == key.1)
                .map(|(instance, prediction)| {
                    let patch = prediction.model_patch.clone().unwrap_or_default();
                    let candidate = if patch.trim().is_empty() { Candidate::Missing } else { Candidate::Patch(patch) };
                    (instance.instance_id.clone(), candidate)
                })
                .collect();
            let summary = score(&loaded, candidates);
            if selected.models.len() > 1 {
                println!("model: {}", label(key));
            }
            print!("{}", crate::report::render_localization(&summary.aggregate));
            let value =
                serde_json::to_value(&summary).map_err(|e| Error::Internal(format!("cannot serialize scores: {e}")))?;
            by_model.insert(crate::report::model_key(&key.0, key.1.as_deref()), value);
            last = Some(summary);
        }
        match last {
            Some(summary) if by_model.len() == 1 => common::write_json(&output, &summary)?,
            _ => common::write_json(&output, &by_model)?,
        }
    }
    println!("per-instance scores: {}", output.display());
    Ok(exit::OK)
}

/// Scores one model's candidates (instances without one score as missing).
fn score(loaded: &Loaded, mut candidates: Vec<(String, Candidate)>) -> LocalizationSummary {
    let items = loaded.instances.iter().map(|instance| {
        let candidate = candidates
            .iter()
            .position(|(id, _)| id == &instance.instance_id)
            .map(|at| candidates.swap_remove(at).1)
            .unwrap_or(Candidate::Missing);
        let language = loaded.specs.resolve(instance).ok().map(|(entry, _)| entry.language);
        LocalizeItem {
            instance_id: instance.instance_id.clone(),
            language,
            gold_patch: instance.patch.clone(),
            candidate,
            snapshot: Box::new(GitSnapshot {
                store: &loaded.repos,
                repo: instance.repo.clone(),
                commit: instance.base_commit.clone(),
            }),
        }
    });
    crate::localize::Localizer::like_the_container().score_all(items.collect::<Vec<_>>())
}
