//! Ranked localization outputs (no patch): ordered lists of files, classes and functions per
//! instance, as LocAgent, MM-IssueLoc's agents and retrievers emit them.
//!
//! Field names accepted (each list is optional and defaults to empty):
//! - files: `found_files` (LocAgent, MM-IssueLoc), `files`;
//! - classes: `found_modules` (LocAgent), `found_classes`, `classes`, `modules`;
//! - functions: `found_functions`, `found_entities` (LocAgent), `functions`, `entities`.
//!
//! Entries are normalized before scoring: surrounding whitespace and a leading `./` are dropped;
//! in an entity (`path:Name`) the parts after the first
//! single `:` have `::` and `#` turned into `.` (`src/x.cpp:Foo::bar` → `src/x.cpp:Foo.bar`,
//! `Foo.java:Foo#run` → `Foo.java:Foo.run`); a trailing `()` is dropped; duplicates keep their
//! first position. LocAgent's `found_modules` also lists top-level functions as `path:func`;
//! those simply never match a class.

use serde::{Deserialize, Serialize};

/// A candidate's ranked locations, best first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankedLocations {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_id: Option<String>,
    #[serde(default, alias = "found_files")]
    pub files: Vec<String>,
    #[serde(default, alias = "found_modules", alias = "found_classes", alias = "modules")]
    pub classes: Vec<String>,
    #[serde(default, alias = "found_functions", alias = "found_entities", alias = "entities")]
    pub functions: Vec<String>,
}

impl RankedLocations {
    /// The lists with every entry normalized and duplicates removed (first position kept).
    pub fn normalized(&self) -> RankedLocations {
        RankedLocations {
            instance_id: self.instance_id.clone(),
            files: normalize_list(&self.files, false),
            classes: normalize_list(&self.classes, true),
            functions: normalize_list(&self.functions, true),
        }
    }
}

fn normalize_list(list: &[String], entity: bool) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    list.iter()
        .map(|s| if entity { normalize_entity(s) } else { normalize_path(s) })
        .filter(|s| !s.is_empty() && seen.insert(s.clone()))
        .collect()
}

fn normalize_path(path: &str) -> String {
    let mut p = path.trim();
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    p.to_string()
}

/// Splits `path:Name` at the first `:` that is not part of `::`.
fn split_entity(entity: &str) -> Option<(&str, &str)> {
    let bytes = entity.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b':' {
            if bytes.get(i + 1) == Some(&b':') {
                i += 2;
                continue;
            }
            return Some((&entity[..i], &entity[i + 1..]));
        }
        i += 1;
    }
    None
}

fn normalize_entity(entity: &str) -> String {
    let entity = entity.trim();
    let Some((path, name)) = split_entity(entity) else {
        return normalize_path(entity);
    };
    let name = name.trim().replace("::", ".").replace('#', ".");
    let name = name.strip_suffix("()").unwrap_or(&name).trim_matches('.');
    format!("{}:{}", normalize_path(path), name)
}
