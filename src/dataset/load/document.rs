//! Splitting a dataset or predictions file into records, recognising its shape (JSON array,
//! JSONL, object keyed by instance id, or one record) from the content. A keyed object that
//! repeats a key is an error: a plain JSON parser would silently keep the last value.

use std::fmt;
use std::path::Path;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::{LoadError, Location, Record};

/// Reads a file and splits it into records, recognising its shape from the content.
pub(super) fn read_records(path: &Path, what: &'static str) -> Result<Vec<Record>, LoadError> {
    let bytes = std::fs::read(path).map_err(|source| LoadError::Read { path: path.to_path_buf(), source })?;
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = 1 + valid.iter().filter(|&&b| b == b'\n').count();
            return Err(LoadError::NotUtf8 { path: path.to_path_buf(), line });
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if text.trim().is_empty() {
        return Err(LoadError::Empty { path: path.to_path_buf(), what });
    }
    let records = match serde_json::from_str::<TopLevel>(text) {
        Ok(top) => {
            let start = text.len() - text.trim_start().len();
            whole_document(path, top, 1 + text[..start].matches('\n').count())?
        }
        Err(whole) => {
            // A document that is not one JSON value is JSONL when its first non-blank line
            // is a JSON value on its own; otherwise the whole-document error is the one to show.
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            if serde_json::from_str::<Value>(first).is_ok() {
                jsonl(path, text)?
            } else {
                return Err(LoadError::Json {
                    path: path.to_path_buf(),
                    at: Location::Line(whole.line().max(1)),
                    message: json_message(&whole),
                });
            }
        }
    };
    if records.is_empty() {
        return Err(LoadError::Empty { path: path.to_path_buf(), what });
    }
    Ok(records)
}

/// A top-level JSON value, with an object's entries kept in order and duplicates kept.
enum TopLevel {
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
    Scalar(Value),
}

impl<'de> Deserialize<'de> for TopLevel {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TopLevelVisitor)
    }
}

struct TopLevelVisitor;

impl<'de> Visitor<'de> for TopLevelVisitor {
    type Value = TopLevel;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON array or object")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TopLevel, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Value>()? {
            items.push(item);
        }
        Ok(TopLevel::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopLevel, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry::<String, Value>()? {
            entries.push(entry);
        }
        Ok(TopLevel::Object(entries))
    }

    fn visit_bool<E>(self, v: bool) -> Result<TopLevel, E> {
        Ok(TopLevel::Scalar(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<TopLevel, E> {
        Ok(TopLevel::Scalar(Value::from(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<TopLevel, E> {
        Ok(TopLevel::Scalar(Value::from(v)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<TopLevel, E> {
        Ok(TopLevel::Scalar(Value::from(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<TopLevel, E> {
        Ok(TopLevel::Scalar(Value::from(v)))
    }
    fn visit_unit<E>(self) -> Result<TopLevel, E> {
        Ok(TopLevel::Scalar(Value::Null))
    }
}

/// The records of a file that is one JSON value; `line` is where that value starts.
fn whole_document(path: &Path, top: TopLevel, line: usize) -> Result<Vec<Record>, LoadError> {
    Ok(match top {
        TopLevel::Array(items) => items
            .into_iter()
            .enumerate()
            .map(|(i, value)| Record { at: Location::Index(i), key: None, value })
            .collect(),
        TopLevel::Object(entries) if is_single_record(&entries) => {
            let map = entries.into_iter().collect();
            vec![Record { at: Location::Line(line), key: None, value: Value::Object(map) }]
        }
        TopLevel::Object(entries) => {
            let mut seen = std::collections::HashSet::new();
            for (key, _) in &entries {
                if !seen.insert(key.as_str()) {
                    return Err(LoadError::DuplicateKey { path: path.to_path_buf(), key: key.clone() });
                }
            }
            entries
                .into_iter()
                .map(|(key, value)| Record { at: Location::Key(key.clone()), key: Some(key), value })
                .collect()
        }
        // A scalar at the top level: reported as a record that is not an object.
        TopLevel::Scalar(other) => {
            vec![Record { at: Location::Line(line), key: None, value: other }]
        }
    })
}

/// One object that is itself a record (a one-line JSONL file), not an object keyed by id.
fn is_single_record(entries: &[(String, Value)]) -> bool {
    let has = |name: &str| entries.iter().any(|(k, _)| k == name);
    entries.iter().any(|(k, v)| k == "instance_id" && v.is_string()) || (has("org") && has("number"))
}

fn jsonl(path: &Path, text: &str) -> Result<Vec<Record>, LoadError> {
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value = serde_json::from_str::<Value>(line).map_err(|e| LoadError::Json {
            path: path.to_path_buf(),
            at: Location::Line(i + 1),
            message: json_message(&e),
        })?;
        records.push(Record { at: Location::Line(i + 1), key: None, value });
    }
    Ok(records)
}

/// serde_json's message without its trailing "at line L column C", with the column kept.
fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let base = text.rsplit_once(" at line ").map_or(text.as_str(), |(base, _)| base);
    format!("{base} at column {}", e.column())
}
