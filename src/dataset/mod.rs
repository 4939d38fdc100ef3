//! Datasets and predictions: reading SWE-bench, OmniGIRL and Multi-SWE-bench style files
//! (JSON arrays, JSONL, or objects keyed by instance id) into [`Instance`] and [`Prediction`],
//! and what an instance is run under that is not its environment: the clock ([`clock`]).

pub mod clock;
pub mod collect;
pub mod load;
pub mod patch;
pub mod repo;
pub mod sources;
pub mod spec;

pub use load::{
    examples, gold_predictions, load_instances, load_predictions, load_predictions_with, load_ranked,
    match_predictions, write_instances_jsonl, Duplicate, Duplicates, LoadError, Location, Matched, PredictionFile,
    GOLD_MODEL,
};

use serde::{Deserialize, Serialize};

/// One task instance. Unknown fields are kept in `extra` and written back unchanged when
/// verdict writes a completed dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    pub instance_id: String,
    /// `owner/name`.
    pub repo: String,
    pub base_commit: String,
    /// The gold patch.
    pub patch: String,
    pub test_patch: String,
    #[serde(default)]
    pub problem_statement: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(rename = "FAIL_TO_PASS", default)]
    pub fail_to_pass: Vec<String>,
    #[serde(rename = "PASS_TO_PASS", default)]
    pub pass_to_pass: Vec<String>,
    /// An inline harness spec entry (fields of a spec file's version entry, merged over the
    /// matching entry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness: Option<spec::InlineHarness>,
    /// Every other field of the input, kept as it was.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// One candidate patch for one instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub instance_id: String,
    pub model_name_or_path: String,
    /// `None` or empty means the model produced no patch.
    pub model_patch: Option<String>,
    /// The method that produced the patch (Agentless, AutoCodeRover, …), when the file or the
    /// command line says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// What producing this patch cost, when the prediction file says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

/// The cost of producing a prediction, from the prediction file's optional fields:
/// `cost` (dollars), or `usage` token counts with per-million-token prices. The fields and
/// the arithmetic are documented in [`load`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dollars: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Where `dollars` came from; `None` when there is no dollar figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<CostSource>,
}

/// Where a prediction's dollar cost came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CostSource {
    /// A dollar figure in the predictions file (`cost`, `model_cost`).
    Reported,
    /// Token counts times the per-million-token prices given in the file.
    Tokens,
}
