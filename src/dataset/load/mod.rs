//! Reading dataset and prediction files into [`Instance`] and [`Prediction`], pairing them,
//! and writing a completed dataset back out.
//!
//! # Accepted file shapes
//! The shape is recognised from the content, never from the file name:
//! - a JSON array of records;
//! - JSONL: one record per line, blank lines allowed;
//! - a JSON object keyed by instance id (`{"id": {record}, ...}`); a record without its own
//!   `instance_id` takes the key, and a record whose `instance_id` differs from its key is an
//!   error.
//!
//! A single object that has an `instance_id` (or Multi-SWE-bench's `org` and `number`) is one
//! record, as a one-line JSONL file would be.
//!
//! # Instances
//! Required: `instance_id`, `repo` (`owner/name`), `base_commit`, `patch`, `test_patch`.
//! Optional: `problem_statement`, `version` (a string or a number), `FAIL_TO_PASS` and
//! `PASS_TO_PASS` (a JSON array of strings, or a string holding one; missing or null is an
//! empty list), `harness` (an inline spec entry). Every other field is kept in
//! [`Instance::extra`] and written back by [`write_instances_jsonl`].
//!
//! Multi-SWE-bench records (`org`, `repo` = name, `number`, `base.sha`, `fix_patch`,
//! `resolved_issues`, and per-test maps `f2p_tests`, `s2p_tests`, `n2p_tests`, `p2p_tests`) are
//! mapped when they carry no `patch`: the id defaults to `org__repo-number`, `repo` becomes
//! `org/repo`, `patch` is `fix_patch`, `base_commit` is `base.sha`, `problem_statement` joins
//! the resolved issues' titles and bodies, FAIL_TO_PASS is the keys of `f2p_tests`,
//! `s2p_tests` and `n2p_tests` (each must go from not passing to passing), and PASS_TO_PASS the
//! keys of `p2p_tests`. The original maps stay in `extra`.
//!
//! # Predictions
//! Required: `instance_id` and `model_patch` (a string; `null` or `""` means no patch, which
//! is graded as the `empty_patch` outcome). `model_name_or_path` is required too, except in
//! Multi-SWE-bench prediction records (`org`, `repo`, `number`, `fix_patch`), which have no
//! model field: there it defaults to the file's stem. `fix_patch` is read when `model_patch`
//! is absent; a record with both, differing, is an error.
//!
//! An optional `method` (a string) names the method that produced the patch (Agentless,
//! AutoCodeRover, …); reports and comparisons show it beside the model.
//!
//! Two predictions for the same instance, model and method are refused by default, with every
//! such pair listed by its lines ([`Duplicates::Refuse`]); [`Duplicates::First`] keeps the first
//! of them and [`Duplicates::Last`] the last (what OmniGIRL's harness does: it reads the file
//! into a dict keyed by instance id). Predictions for instances the dataset lacks are skipped
//! and counted by [`match_predictions`], or refused when it is asked to be strict.
//!
//! # Prediction cost
//! No public prediction file carries cost, so verdict reads these optional fields, in order:
//! - `cost`: a number of dollars, or an object with a dollar figure under `total_cost`,
//!   `total`, `dollars`, `usd` or `cost`, and optionally token counts (`input_tokens` or
//!   `prompt_tokens`, `output_tokens` or `completion_tokens`);
//! - `model_cost`: a number of dollars, read only when `cost` gives no dollar figure;
//! - `usage`: an object with `prompt_tokens` or `input_tokens`, and `completion_tokens` or
//!   `output_tokens`;
//! - `price_per_million_input` and `price_per_million_output`: dollars per million tokens.
//!
//! A dollar figure found in the file is used as is ([`CostSource::Reported`](crate::dataset::CostSource::Reported)). Without one,
//! when token counts and a price for each counted kind are present, the dollars are
//! `input × price_in / 10⁶ + output × price_out / 10⁶` ([`CostSource::Tokens`](crate::dataset::CostSource::Tokens)). Token counts
//! without prices are kept with no dollar figure. A negative figure or a field of the wrong
//! type is an error naming the field.

mod document;
mod fields;
mod instance;
mod prediction;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Instance, Prediction};

/// Where in a file a record sits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A 1-based line (JSONL records, and JSON syntax errors).
    Line(usize),
    /// A 0-based position in a top-level JSON array.
    Index(usize),
    /// A key of a top-level JSON object.
    Key(String),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Line(line) => write!(f, "line {line}"),
            Location::Index(index) => write!(f, "array element [{index}]"),
            Location::Key(key) => write!(f, "key {key:?}"),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path}, line {line}: not UTF-8 text; save the file as UTF-8 JSON or JSONL")]
    NotUtf8 { path: PathBuf, line: usize },
    #[error(
        "{path} holds no {what}; give a JSON array, JSONL (one object per line) or an object \
         keyed by instance_id"
    )]
    Empty { path: PathBuf, what: &'static str },
    #[error("{path}, {at}: malformed JSON ({message}); fix or remove it")]
    Json { path: PathBuf, at: Location, message: String },
    #[error("{path}, {at}: expected a JSON object for one {what}, found {found}")]
    NotAnObject { path: PathBuf, at: Location, what: &'static str, found: &'static str },
    #[error("{path}, {at}: missing required field `{field}`; {hint}")]
    MissingField { path: PathBuf, at: Location, field: &'static str, hint: String },
    #[error("{path}, {at}: field `{field}` should be {expected}, found {found}")]
    WrongType { path: PathBuf, at: Location, field: String, expected: String, found: String },
    #[error("{path}, {at}: {message}")]
    Conflict { path: PathBuf, at: Location, message: String },
    #[error(
        "{path}: key {key:?} appears twice in the object; each instance id may be a key only \
         once, so remove one (verdict does not keep the last one)"
    )]
    DuplicateKey { path: PathBuf, key: String },
    #[error(
        "{path}: instance {id} appears twice ({first} and {second}); remove one of them, \
         instance ids must be unique"
    )]
    DuplicateInstance { path: PathBuf, id: String, first: Location, second: Location },
    #[error(
        "{path}: {} instance(s) have more than one prediction of the same model:\n{}\nkeep one \
         prediction each, or pass --duplicates last (keep the last, as OmniGIRL's harness does) or \
         --duplicates first",
        .duplicates.len(), .duplicates.iter().map(|d| format!("  {d}")).collect::<Vec<_>>().join("\n")
    )]
    DuplicatePredictions { path: PathBuf, duplicates: Vec<Duplicate> },
    #[error(
        "{path}: {count} prediction(s) name {} instance(s) the dataset does not have: {}; check \
         that --dataset is the right file, or remove these predictions",
        .ids.len(), examples(.ids)
    )]
    UnknownInstances { path: PathBuf, count: usize, ids: Vec<String> },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
}

/// One record of a file: where it is, the key it sat under (keyed objects), and its value.
pub(crate) struct Record {
    pub at: Location,
    pub key: Option<String>,
    pub value: Value,
}

/// Reads every instance of a dataset file. See the module doc for the accepted shapes.
pub fn load_instances(path: &Path) -> Result<Vec<Instance>, LoadError> {
    let records = document::read_records(path, "instances")?;
    let mut seen: HashMap<String, Location> = HashMap::new();
    let mut instances = Vec::with_capacity(records.len());
    for record in records {
        let at = record.at.clone();
        let instance = instance::from_record(path, record)?;
        if let Some(first) = seen.get(&instance.instance_id) {
            return Err(LoadError::DuplicateInstance {
                path: path.to_path_buf(),
                id: instance.instance_id,
                first: first.clone(),
                second: at,
            });
        }
        seen.insert(instance.instance_id.clone(), at);
        instances.push(instance);
    }
    Ok(instances)
}

/// Reads ranked localization outputs (see [`crate::localize::RankedLocations`] for the field
/// names), in any of the accepted shapes. Each record needs an `instance_id` (or its key in a
/// keyed file); an id given twice is an error.
pub fn load_ranked(path: &Path) -> Result<Vec<crate::localize::RankedLocations>, LoadError> {
    let records = document::read_records(path, "ranked locations")?;
    let mut seen: HashMap<String, Location> = HashMap::new();
    let mut ranked = Vec::with_capacity(records.len());
    for record in records {
        let at = record.at.clone();
        let mut locations: crate::localize::RankedLocations =
            serde_json::from_value(record.value).map_err(|e| LoadError::WrongType {
                path: path.to_path_buf(),
                at: at.clone(),
                field: "(record)".into(),
                expected: "an object with instance_id and lists of files, classes, functions".into(),
                found: e.to_string(),
            })?;
        let id = match (locations.instance_id.clone(), record.key) {
            (Some(id), _) | (None, Some(id)) => id,
            (None, None) => {
                return Err(LoadError::MissingField {
                    path: path.to_path_buf(),
                    at,
                    field: "instance_id",
                    hint: "each ranked record names the instance it localizes".into(),
                })
            }
        };
        if let Some(first) = seen.get(&id) {
            return Err(LoadError::DuplicateInstance {
                path: path.to_path_buf(),
                id,
                first: first.clone(),
                second: at,
            });
        }
        seen.insert(id.clone(), at);
        locations.instance_id = Some(id);
        ranked.push(locations);
    }
    Ok(ranked)
}

/// Reads every prediction of a predictions file, refusing duplicates. See the module doc for
/// the accepted shapes and the cost fields.
pub fn load_predictions(path: &Path) -> Result<Vec<Prediction>, LoadError> {
    Ok(load_predictions_with(path, Duplicates::Refuse)?.predictions)
}

/// What to do when a file has two predictions of one model (and method) for one instance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Duplicates {
    /// An error listing every repeated instance with its lines.
    #[default]
    Refuse,
    /// Keep the first prediction.
    First,
    /// Keep the last prediction (what OmniGIRL's harness does).
    Last,
}

/// An instance that one model (and method) has several predictions for, with where each sits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    pub instance_id: String,
    pub model: String,
    pub method: Option<String>,
    /// Every record for it, in file order.
    pub at: Vec<Location>,
}

/// `iamkun__dayjs-1954 (model agentless): line 3, line 9`.
impl fmt::Display for Duplicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (model {}", self.instance_id, self.model)?;
        if let Some(method) = &self.method {
            write!(f, ", method {method}")?;
        }
        let at: Vec<String> = self.at.iter().map(Location::to_string).collect();
        write!(f, "): {}", at.join(", "))
    }
}

/// The predictions of one file, with the duplicates the policy resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictionFile {
    /// In file order (with [`Duplicates::Last`], a repeated prediction sits where its last
    /// record does).
    pub predictions: Vec<Prediction>,
    /// Every repeated (model, method, instance), empty with [`Duplicates::Refuse`].
    pub duplicates: Vec<Duplicate>,
}

/// Reads every prediction of a predictions file; two predictions of one model and method for
/// one instance are handled by `policy`.
pub fn load_predictions_with(path: &Path, policy: Duplicates) -> Result<PredictionFile, LoadError> {
    let records = document::read_records(path, "predictions")?;
    type Key = (String, Option<String>, String);
    let mut read: Vec<(Location, Prediction)> = Vec::with_capacity(records.len());
    let mut seen: HashMap<Key, Vec<usize>> = HashMap::new();
    let mut order: Vec<Key> = Vec::new();
    for record in records {
        let at = record.at.clone();
        let prediction = prediction::from_record(path, record)?;
        let key = (prediction.model_name_or_path.clone(), prediction.method.clone(), prediction.instance_id.clone());
        let slots = seen.entry(key.clone()).or_default();
        if slots.is_empty() {
            order.push(key);
        }
        slots.push(read.len());
        read.push((at, prediction));
    }
    let duplicates: Vec<Duplicate> = order
        .iter()
        .filter(|key| seen[*key].len() > 1)
        .map(|key| Duplicate {
            model: key.0.clone(),
            method: key.1.clone(),
            instance_id: key.2.clone(),
            at: seen[key].iter().map(|&i| read[i].0.clone()).collect(),
        })
        .collect();
    let keep: Vec<bool> = match policy {
        Duplicates::Refuse if !duplicates.is_empty() => {
            return Err(LoadError::DuplicatePredictions { path: path.to_path_buf(), duplicates })
        }
        Duplicates::Refuse => vec![true; read.len()],
        Duplicates::First | Duplicates::Last => {
            let mut keep = vec![false; read.len()];
            for slots in seen.values() {
                let chosen = if policy == Duplicates::First { slots[0] } else { slots[slots.len() - 1] };
                keep[chosen] = true;
            }
            keep
        }
    };
    let predictions = read.into_iter().zip(keep).filter(|(_, k)| *k).map(|((_, p), _)| p).collect();
    Ok(PredictionFile { predictions, duplicates })
}

/// Each instance's own gold patch as a prediction of the model `gold`
/// (`--predictions gold`).
pub fn gold_predictions(instances: &[Instance]) -> Vec<Prediction> {
    instances
        .iter()
        .map(|instance| Prediction {
            instance_id: instance.instance_id.clone(),
            model_name_or_path: GOLD_MODEL.to_string(),
            model_patch: Some(instance.patch.clone()),
            method: None,
            cost: None,
        })
        .collect()
}

/// The model name of [`gold_predictions`].
pub const GOLD_MODEL: &str = "gold";

/// Predictions paired with their instances.
#[derive(Debug, Clone, PartialEq)]
pub struct Matched {
    /// In dataset order; an instance's predictions in the order of the predictions file.
    pub pairs: Vec<(Instance, Prediction)>,
    /// Ids of dataset instances that no prediction names, in dataset order.
    pub unpredicted: Vec<String>,
    /// Ids the predictions name that the dataset does not have, each once, in file order.
    pub outside: Vec<String>,
    /// How many predictions name them.
    pub outside_predictions: usize,
}

/// Pairs each prediction with its instance. Predictions for instances the dataset does not
/// have are left out and listed in [`Matched::outside`]; with `strict` they are an error that
/// names `predictions_path`, counts them and gives a few of their ids.
pub fn match_predictions(
    instances: &[Instance],
    predictions: &[Prediction],
    predictions_path: &Path,
    strict: bool,
) -> Result<Matched, LoadError> {
    let known: HashMap<&str, usize> =
        instances.iter().enumerate().map(|(i, instance)| (instance.instance_id.as_str(), i)).collect();
    let mut by_instance: BTreeMap<usize, Vec<&Prediction>> = BTreeMap::new();
    let mut outside: Vec<String> = Vec::new();
    let mut outside_seen: std::collections::HashSet<&str> = Default::default();
    let mut outside_predictions = 0;
    for prediction in predictions {
        match known.get(prediction.instance_id.as_str()) {
            Some(&i) => by_instance.entry(i).or_default().push(prediction),
            None => {
                outside_predictions += 1;
                if outside_seen.insert(prediction.instance_id.as_str()) {
                    outside.push(prediction.instance_id.clone());
                }
            }
        }
    }
    if strict && !outside.is_empty() {
        return Err(LoadError::UnknownInstances {
            path: predictions_path.to_path_buf(),
            count: outside_predictions,
            ids: outside,
        });
    }
    let mut matched = Matched { pairs: Vec::new(), unpredicted: Vec::new(), outside, outside_predictions };
    for (i, instance) in instances.iter().enumerate() {
        match by_instance.get(&i) {
            Some(list) => matched.pairs.extend(list.iter().map(|p| (instance.clone(), (*p).clone()))),
            None => matched.unpredicted.push(instance.instance_id.clone()),
        }
    }
    Ok(matched)
}

/// A few ids of a list, for messages that must stay readable: `a, b, c, d, e and 12 more`.
pub fn examples(ids: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text = ids.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if ids.len() > SHOWN {
        text.push_str(&format!(" and {} more", ids.len() - SHOWN));
    }
    text
}

/// Writes instances as JSONL, one per line, with their extra fields as they were read and
/// the test lists as JSON arrays. The file is replaced atomically (written beside it, then
/// renamed), so an interrupted write never leaves half a dataset.
pub fn write_instances_jsonl(path: &Path, instances: &[Instance]) -> Result<(), LoadError> {
    let write_err = |source: std::io::Error| LoadError::Write { path: path.to_path_buf(), source };
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(write_err)?;
    for instance in instances {
        let line = serde_json::to_string(instance).map_err(|e| write_err(std::io::Error::other(e)))?;
        writeln!(file, "{line}").map_err(write_err)?;
    }
    file.flush().map_err(write_err)?;
    file.persist(path).map_err(|e| write_err(e.error))?;
    Ok(())
}

/// The name a JSON value's type goes by in error messages.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
