//! One predictions record → [`Prediction`], with its optional cost (see the parent module's
//! doc for the fields and how dollars are worked out).

use std::path::Path;

use serde_json::Value;

use super::fields::Fields;
use super::instance::number_text;
use super::{LoadError, Record};
use crate::dataset::{Cost, CostSource, Prediction};

pub(crate) fn from_record(path: &Path, record: Record) -> Result<Prediction, LoadError> {
    let mut f = Fields::open(path, record.at, record.value, "prediction")?;
    // Multi-SWE-bench predictions name the instance by org/repo/number and have no model field.
    let multi = !f.has("instance_id") && f.has("org") && f.has("number");

    let mut instance_id = f.take_str("instance_id")?;
    if multi {
        let org = f.peek_str("org")?;
        let name = f.peek_str("repo")?;
        let number = number_text(&f, f.map.get("number"))?;
        instance_id = Some(format!("{org}__{}-{number}", name.rsplit('/').next().unwrap_or(&name)));
    }
    if let Some(key) = &record.key {
        match &instance_id {
            Some(id) if id != key => {
                return Err(f.conflict(format!(
                    "the prediction's instance_id is {id:?} but its key is {key:?}; make them equal"
                )))
            }
            _ => instance_id = Some(key.clone()),
        }
    }
    let instance_id = match instance_id {
        Some(id) if !id.trim().is_empty() => id,
        Some(_) => return Err(f.wrong_type_text("instance_id", "a non-empty string", "an empty string")),
        None => return Err(f.missing("instance_id", "say which instance each prediction is for")),
    };

    let model_name_or_path = match f.take_str("model_name_or_path")? {
        Some(model) if !model.trim().is_empty() => model,
        Some(_) => return Err(f.wrong_type_text("model_name_or_path", "a non-empty model name", "an empty string")),
        None if multi => {
            path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "model".to_string())
        }
        None => return Err(f.missing("model_name_or_path", "name the model or method that produced the patch")),
    };

    let model_patch = if f.has("model_patch") {
        let patch = f.take_str("model_patch")?;
        if let Some(fix) = f.take_str("fix_patch")? {
            if patch.as_deref() != Some(fix.as_str()) {
                return Err(
                    f.conflict("the prediction has both `model_patch` and `fix_patch`, and they differ; keep one")
                );
            }
        }
        patch
    } else if f.has("fix_patch") {
        f.take_str("fix_patch")?
    } else {
        return Err(f.missing("model_patch", "use null or \"\" when the model produced no patch"));
    };

    let method = match f.take_str("method")? {
        Some(method) if !method.trim().is_empty() => Some(method),
        _ => None,
    };
    let cost = read_cost(&mut f)?;
    Ok(Prediction { instance_id, model_name_or_path, model_patch, method, cost })
}

const DOLLAR_KEYS: [&str; 5] = ["total_cost", "total", "dollars", "usd", "cost"];
const INPUT_KEYS: [&str; 2] = ["input_tokens", "prompt_tokens"];
const OUTPUT_KEYS: [&str; 2] = ["output_tokens", "completion_tokens"];

fn read_cost(f: &mut Fields<'_>) -> Result<Option<Cost>, LoadError> {
    let mut cost = Cost::default();
    match f.map.remove("cost") {
        None | Some(Value::Null) => {}
        Some(value @ Value::Number(_)) => cost.dollars = f.dollars("cost", Some(&value))?,
        Some(Value::Object(map)) => {
            for key in DOLLAR_KEYS {
                if let Some(value) = map.get(key) {
                    cost.dollars = f.dollars(&format!("cost.{key}"), Some(value))?;
                    break;
                }
            }
            cost.input_tokens = first_tokens(f, "cost", &map, &INPUT_KEYS)?;
            cost.output_tokens = first_tokens(f, "cost", &map, &OUTPUT_KEYS)?;
        }
        Some(other) => return Err(f.wrong_type("cost", "a number of dollars or an object", &other)),
    }
    if cost.dollars.is_none() {
        cost.dollars = f.take_dollars("model_cost")?;
    }
    match f.map.remove("usage") {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            if cost.input_tokens.is_none() {
                cost.input_tokens = first_tokens(f, "usage", &map, &INPUT_KEYS)?;
            }
            if cost.output_tokens.is_none() {
                cost.output_tokens = first_tokens(f, "usage", &map, &OUTPUT_KEYS)?;
            }
        }
        Some(other) => return Err(f.wrong_type("usage", "an object of token counts", &other)),
    }
    let price_in = f.take_dollars("price_per_million_input")?;
    let price_out = f.take_dollars("price_per_million_output")?;

    if cost.dollars.is_some() {
        cost.source = Some(CostSource::Reported);
    } else if cost.input_tokens.is_some() || cost.output_tokens.is_some() {
        let part = |tokens: Option<u64>, price: Option<f64>| match (tokens, price) {
            (None, _) => Some(0.0),
            (Some(n), Some(p)) => Some(n as f64 * p / 1_000_000.0),
            (Some(_), None) => None,
        };
        if let (Some(a), Some(b)) = (part(cost.input_tokens, price_in), part(cost.output_tokens, price_out)) {
            cost.dollars = Some(a + b);
            cost.source = Some(CostSource::Tokens);
        }
    }
    if cost == Cost::default() {
        return Ok(None);
    }
    Ok(Some(cost))
}

fn first_tokens(
    f: &Fields<'_>,
    parent: &str,
    map: &serde_json::Map<String, Value>,
    keys: &[&str],
) -> Result<Option<u64>, LoadError> {
    for key in keys {
        if let Some(value) = map.get(*key) {
            return f.tokens(&format!("{parent}.{key}"), Some(value));
        }
    }
    Ok(None)
}
