//! Typed access to one record's fields, with errors that name the file, the record's place
//! and the field. Fields are taken out of the record as they are read, so what is left is
//! exactly the record's extra fields.

use std::path::Path;

use serde_json::{Map, Value};

use super::{type_name, LoadError, Location};

pub(crate) struct Fields<'a> {
    pub path: &'a Path,
    pub at: Location,
    pub map: Map<String, Value>,
}

impl<'a> Fields<'a> {
    /// Opens a record, which must be a JSON object.
    pub fn open(path: &'a Path, at: Location, value: Value, what: &'static str) -> Result<Self, LoadError> {
        match value {
            Value::Object(map) => Ok(Fields { path, at, map }),
            other => Err(LoadError::NotAnObject { path: path.to_path_buf(), at, what, found: type_name(&other) }),
        }
    }

    pub fn wrong_type(&self, field: &str, expected: &str, found: &Value) -> LoadError {
        self.wrong_type_text(field, expected, type_name(found))
    }

    pub fn wrong_type_text(&self, field: &str, expected: &str, found: &str) -> LoadError {
        LoadError::WrongType {
            path: self.path.to_path_buf(),
            at: self.at.clone(),
            field: field.to_string(),
            expected: expected.to_string(),
            found: found.to_string(),
        }
    }

    pub fn missing(&self, field: &'static str, hint: impl Into<String>) -> LoadError {
        LoadError::MissingField { path: self.path.to_path_buf(), at: self.at.clone(), field, hint: hint.into() }
    }

    pub fn conflict(&self, message: impl Into<String>) -> LoadError {
        LoadError::Conflict { path: self.path.to_path_buf(), at: self.at.clone(), message: message.into() }
    }

    pub fn has(&self, field: &str) -> bool {
        self.map.contains_key(field)
    }

    /// Takes a string field; absent or null is `None`.
    pub fn take_str(&mut self, field: &str) -> Result<Option<String>, LoadError> {
        match self.map.remove(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.wrong_type(field, "a string", &other)),
        }
    }

    /// Reads a required string field and leaves it in the record.
    pub fn peek_str(&self, field: &'static str) -> Result<String, LoadError> {
        match self.map.get(field) {
            Some(Value::String(s)) => Ok(s.clone()),
            None | Some(Value::Null) => Err(self.missing(field, "it is required here")),
            Some(other) => Err(self.wrong_type(field, "a string", other)),
        }
    }

    /// Takes a string field that must be present and not null.
    pub fn require_str(&mut self, field: &'static str, hint: &str) -> Result<String, LoadError> {
        match self.take_str(field)? {
            Some(s) => Ok(s),
            None => Err(self.missing(field, hint)),
        }
    }

    /// Takes a field that may be a string or a number (a dataset `version`), as a string.
    pub fn take_str_or_number(&mut self, field: &str) -> Result<Option<String>, LoadError> {
        match self.map.remove(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(other) => Err(self.wrong_type(field, "a string or a number", &other)),
        }
    }

    /// Takes a test list: a JSON array of strings, or a string holding one. Absent, null and
    /// the empty string are an empty list.
    pub fn take_test_list(&mut self, field: &str) -> Result<Vec<String>, LoadError> {
        const EXPECTED: &str = "a JSON array of test ids, or a string holding one";
        match self.map.remove(field) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => self.strings(field, items),
            Some(Value::String(text)) if text.trim().is_empty() => Ok(Vec::new()),
            Some(Value::String(text)) => match serde_json::from_str::<Value>(&text) {
                Ok(Value::Array(items)) => self.strings(field, items),
                Ok(other) => {
                    Err(self.wrong_type_text(field, EXPECTED, &format!("a string holding {}", type_name(&other))))
                }
                Err(e) => Err(self.wrong_type_text(field, EXPECTED, &format!("a string that is not JSON ({e})"))),
            },
            Some(other) => Err(self.wrong_type(field, EXPECTED, &other)),
        }
    }

    fn strings(&self, field: &str, items: Vec<Value>) -> Result<Vec<String>, LoadError> {
        items
            .into_iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s),
                other => Err(self.wrong_type(&format!("{field}[{i}]"), "a string", &other)),
            })
            .collect()
    }

    /// Takes a non-negative number of dollars; absent or null is `None`.
    pub fn take_dollars(&mut self, field: &str) -> Result<Option<f64>, LoadError> {
        let value = self.map.remove(field);
        self.dollars(field, value.as_ref())
    }

    pub fn dollars(&self, field: &str, value: Option<&Value>) -> Result<Option<f64>, LoadError> {
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => match n.as_f64() {
                Some(x) if x >= 0.0 => Ok(Some(x)),
                _ => Err(self.wrong_type_text(field, "a non-negative number of dollars", &n.to_string())),
            },
            Some(other) => Err(self.wrong_type(field, "a number of dollars", other)),
        }
    }

    pub fn tokens(&self, field: &str, value: Option<&Value>) -> Result<Option<u64>, LoadError> {
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => match n.as_u64() {
                Some(x) => Ok(Some(x)),
                None => Err(self.wrong_type_text(field, "a whole, non-negative token count", &n.to_string())),
            },
            Some(other) => Err(self.wrong_type(field, "a token count", other)),
        }
    }
}
