//! One dataset record → [`Instance`]: SWE-bench / OmniGIRL fields, or a Multi-SWE-bench
//! record mapped onto them (see the parent module's doc).

use std::path::Path;

use serde_json::Value;

use super::fields::Fields;
use super::{LoadError, Record};
use crate::dataset::spec::InlineHarness;
use crate::dataset::Instance;

pub(crate) fn from_record(path: &Path, record: Record) -> Result<Instance, LoadError> {
    let mut f = Fields::open(path, record.at, record.value, "instance")?;
    let multi = f.has("org") && f.has("number") && !f.has("patch");

    let mut instance_id = f.take_str("instance_id")?;
    if let Some(key) = &record.key {
        match &instance_id {
            Some(id) if id != key => {
                return Err(
                    f.conflict(format!("the record's instance_id is {id:?} but its key is {key:?}; make them equal"))
                )
            }
            _ => instance_id = Some(key.clone()),
        }
    }

    let (repo, base_commit, patch, problem_statement);
    let (fail_to_pass, pass_to_pass);
    if multi {
        let org = f.peek_str("org")?;
        let name = f.require_str("repo", "give the repository name")?;
        let number = number_text(&f, f.map.get("number"))?;
        if instance_id.is_none() {
            instance_id = Some(format!("{org}__{name}-{number}"));
        }
        repo = if name.contains('/') { name } else { format!("{org}/{name}") };
        base_commit = match f.take_str("base_commit")? {
            Some(sha) => sha,
            None => base_sha(&f)?,
        };
        patch = f.require_str("fix_patch", "Multi-SWE-bench records carry the gold patch in `fix_patch`")?;
        problem_statement = match f.take_str("problem_statement")? {
            Some(text) => text,
            None => resolved_issues_text(&f),
        };
        fail_to_pass = {
            let mut ids = test_map_keys(&f, "f2p_tests")?;
            ids.extend(test_map_keys(&f, "s2p_tests")?);
            ids.extend(test_map_keys(&f, "n2p_tests")?);
            ids
        };
        pass_to_pass = test_map_keys(&f, "p2p_tests")?;
    } else {
        repo = f.require_str("repo", "give the repository as \"owner/name\"")?;
        base_commit = f.require_str("base_commit", "give the commit the task starts from")?;
        patch = f.require_str("patch", "give the gold patch (a unified diff)")?;
        problem_statement = f.take_str("problem_statement")?.unwrap_or_default();
        fail_to_pass = f.take_test_list("FAIL_TO_PASS")?;
        pass_to_pass = f.take_test_list("PASS_TO_PASS")?;
    }
    let instance_id = match instance_id {
        Some(id) if !id.trim().is_empty() => id,
        Some(_) => return Err(f.wrong_type_text("instance_id", "a non-empty string", "an empty string")),
        None => return Err(f.missing("instance_id", "give each instance a unique id such as \"owner__repo-123\"")),
    };
    let test_patch = f.require_str("test_patch", "give the patch that adds the tests (it may be empty)")?;
    let version = f.take_str_or_number("version")?;
    let harness = match f.map.remove("harness") {
        None | Some(Value::Null) => None,
        Some(value) => Some(InlineHarness::check(value).map_err(|e| {
            f.wrong_type_text("harness", "an inline harness spec entry", &format!("an invalid one ({e})"))
        })?),
    };
    Ok(Instance {
        instance_id,
        repo,
        base_commit,
        patch,
        test_patch,
        problem_statement,
        version,
        fail_to_pass,
        pass_to_pass,
        harness,
        extra: f.map,
    })
}

/// A Multi-SWE-bench `number`: an integer or a string of digits.
pub(crate) fn number_text(f: &Fields<'_>, value: Option<&Value>) -> Result<String, LoadError> {
    match value {
        Some(Value::Number(n)) if n.is_u64() => Ok(n.to_string()),
        Some(Value::String(s)) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => Ok(s.clone()),
        Some(other) => Err(f.wrong_type("number", "a pull-request number", other)),
        None => Err(f.missing("number", "give the pull-request number")),
    }
}

fn base_sha(f: &Fields<'_>) -> Result<String, LoadError> {
    match f.map.get("base").and_then(|base| base.get("sha")) {
        Some(Value::String(sha)) => Ok(sha.clone()),
        Some(other) => Err(f.wrong_type("base.sha", "a commit id", other)),
        None => Err(f.missing("base_commit", "Multi-SWE-bench records give it as `base.sha`")),
    }
}

/// The titles and bodies of a Multi-SWE-bench record's `resolved_issues`, or its own
/// `title` and `body`.
fn resolved_issues_text(f: &Fields<'_>) -> String {
    let pieces = |v: &Value| -> Vec<String> {
        ["title", "body"]
            .iter()
            .filter_map(|k| v.get(k).and_then(Value::as_str))
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    };
    let mut parts = Vec::new();
    if let Some(Value::Array(issues)) = f.map.get("resolved_issues") {
        for issue in issues {
            parts.extend(pieces(issue));
        }
    }
    if parts.is_empty() {
        parts = pieces(&Value::Object(f.map.clone()));
    }
    parts.join("\n\n")
}

/// The test ids of a Multi-SWE-bench per-test map (`{"test id": {"run": …, "test": …,
/// "fix": …}}`), in file order; a list of ids is accepted too. The field stays in the record.
fn test_map_keys(f: &Fields<'_>, field: &str) -> Result<Vec<String>, LoadError> {
    match f.map.get(field) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => Ok(map.keys().cloned().collect()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(f.wrong_type(&format!("{field}[{i}]"), "a test id", other)),
            })
            .collect(),
        Some(other) => Err(f.wrong_type(field, "an object keyed by test id", other)),
    }
}
