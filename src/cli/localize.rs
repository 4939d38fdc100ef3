//! `verdict localize`: localization scores of candidate patches (or ranked location lists)
//! against the gold patches, computed on the host from the repositories at their base commits.
//! No Docker, no tests run.

use std::path::PathBuf;

use clap::Args;

use super::common;
use super::error::{Error, Result};
use super::{exit, DatasetArgs};
use crate::dataset::repo::GitSnapshot;
use crate::dataset::{gold_predictions, load_predictions, load_ranked, match_predictions};
use crate::localize::{Candidate, LocalizeItem};

#[derive(Debug, Clone, Args)]
pub struct LocalizeArgs {
    #[command(flatten)]
    pub dataset: DatasetArgs,
    /// Candidate patches (as for `evaluate`), or `gold`. Default with the demo: its bundled
    /// predictions.
    #[arg(long, value_name = "FILE|gold", conflicts_with = "ranked")]
    pub predictions: Option<String>,
    /// Ranked localization outputs instead of patches: records with `instance_id` and ordered
    /// `found_files` / `found_modules` (or `found_classes`) / `found_functions` lists.
    #[arg(long, value_name = "FILE")]
    pub ranked: Option<PathBuf>,
    /// Where to write the scores (per instance and aggregated). Default:
    /// <logs>/localization.json.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Root of output and of the repository cache.
    #[arg(long, default_value = "logs", value_name = "DIR")]
    pub logs: PathBuf,
}

pub fn run(args: LocalizeArgs) -> Result<i32> {
    let loaded = common::load_dataset(&args.dataset, &args.logs)?;
    let mut candidates: Vec<(String, Candidate)> = Vec::new();
    if let Some(path) = &args.ranked {
        for ranked in load_ranked(path)? {
            let id = ranked.instance_id.clone().unwrap_or_default();
            if !loaded.instances.iter().any(|i| i.instance_id == id) {
                if args.dataset.instance_ids.is_empty() {
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
    } else {
        let (predictions, path) = match args.predictions.as_deref() {
            Some("gold") => (gold_predictions(&loaded.instances), PathBuf::from("gold")),
            Some(file) => (load_predictions(&PathBuf::from(file))?, PathBuf::from(file)),
            None if loaded.is_demo => {
                let path = common::demo_dir().join("predictions.jsonl");
                (load_predictions(&path)?, path)
            }
            None => return Err(Error::bad_input("give --predictions FILE (or `gold`) or --ranked FILE")),
        };
        let predictions: Vec<_> = predictions
            .into_iter()
            .filter(|p| args.dataset.instance_ids.is_empty() || args.dataset.instance_ids.contains(&p.instance_id))
            .collect();
        let models: std::collections::BTreeSet<&str> =
            predictions.iter().map(|p| p.model_name_or_path.as_str()).collect();
        if models.len() > 1 {
            return Err(Error::bad_input(format!(
                "{} holds predictions of several models ({}); score one model at a time",
                path.display(),
                models.into_iter().collect::<Vec<_>>().join(", ")
            )));
        }
        let matched = match_predictions(&loaded.instances, &predictions, &path)?;
        for (instance, prediction) in matched.pairs {
            let patch = prediction.model_patch.unwrap_or_default();
            let candidate = if patch.trim().is_empty() { Candidate::Missing } else { Candidate::Patch(patch) };
            candidates.push((instance.instance_id, candidate));
        }
    }

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
    let summary = crate::localize::Localizer::like_the_container().score_all(items.collect::<Vec<_>>());
    let output = args.output.clone().unwrap_or_else(|| args.logs.join("localization.json"));
    common::write_json(&output, &summary)?;
    print!("{}", crate::report::render_localization(&summary.aggregate));
    println!("per-instance scores: {}", output.display());
    Ok(exit::OK)
}
