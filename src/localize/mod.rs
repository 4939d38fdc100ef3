//! Localization scores (merged from the localize branch).
use crate::dataset::repo::RepoStore;
use crate::dataset::Instance;
pub fn for_report(_repos: &RepoStore, _instance: &Instance, _patch: &str) -> Option<serde_json::Value> {
    None
}
