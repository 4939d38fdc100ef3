//! The tables printed at the end of a run: pure functions from summaries to text.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::summary::{Breakdown, Summary};

/// The end-of-run table: outcome counts, resolve and apply rates with counts, mean cost,
/// verdict's own cost, flagged instances, and a table per language (plus per patch scope
/// and images when the pipeline gave those facts).
pub fn render_table(summary: &Summary) -> String {
    let mut out = String::new();
    let s = summary;
    let _ = writeln!(
        out,
        "{} instances, {} submitted, {} completed",
        s.total_instances, s.submitted_instances, s.completed_instances
    );
    let mut rows: Vec<Vec<String>> = vec![vec!["outcome".into(), "count".into()]];
    for (outcome, count) in &s.outcomes {
        rows.push(vec![outcome.to_string(), count.to_string()]);
    }
    if !s.incomplete_ids.is_empty() {
        rows.push(vec!["not submitted".into(), s.incomplete_ids.len().to_string()]);
    }
    out.push_str(&grid(&rows, &[false, true]));
    out.push('\n');

    let mean = match s.cost.mean_dollars_per_instance {
        Some(mean) => format!(
            "{} per instance ({} of {} with a cost, {} total)",
            dollars(mean),
            s.cost.instances_with_cost,
            s.submitted_instances,
            dollars(s.cost.total_dollars)
        ),
        None => "not given by the predictions".to_string(),
    };
    let own = format!(
        "{:.1} s wall, {:.1} s CPU, {} of images",
        s.verdict_cost.wall_secs,
        s.verdict_cost.cpu_secs,
        bytes(s.verdict_cost.image_bytes)
    );
    let mut facts = vec![
        ("resolve rate", s.resolve_rate.to_string()),
        ("partially resolved", s.resolved_partial_ids.len().to_string()),
        (
            "resolved but flagged",
            if s.resolved_flagged_ids.is_empty() {
                "0".to_string()
            } else {
                format!("{} (not in the resolve rate; review them)", list(&s.resolved_flagged_ids))
            },
        ),
        ("apply rate (strict)", s.apply_rate_strict.to_string()),
        ("apply rate (lenient)", s.apply_rate_lenient.to_string()),
        ("mean cost", mean),
        ("verdict's cost", own),
    ];
    if !s.flagged_ids.is_empty() {
        facts.push(("flagged", list(&s.flagged_ids)));
    }
    if !s.integrity_warning_ids.is_empty() {
        facts.push(("integrity warnings", list(&s.integrity_warning_ids)));
    }
    let width = facts.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (key, value) in facts {
        let _ = writeln!(out, "{key:<width$}  {value}");
    }
    for (title, groups) in [("language", &s.by_language), ("patch scope", &s.by_patch_scope), ("images", &s.by_images)]
    {
        if !groups.is_empty() {
            out.push('\n');
            out.push_str(&breakdown_table(title, groups));
        }
    }
    out
}

fn header(first: &str) -> Vec<String> {
    [first, "instances", "resolved", "partial", "apply (strict)", "apply (lenient)", "mean cost"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

fn breakdown_table(title: &str, groups: &BTreeMap<String, Breakdown>) -> String {
    let mut rows = vec![header(title)];
    for (name, b) in groups {
        rows.push(vec![
            name.clone(),
            b.instances.to_string(),
            b.resolve_rate.to_string(),
            b.resolved_partial.to_string(),
            b.apply_rate_strict.to_string(),
            b.apply_rate_lenient.to_string(),
            b.mean_cost_dollars.map_or("-".into(), dollars),
        ]);
    }
    grid(&rows, &[false, true, true, true, true, true, true])
}

/// Aligned columns, two spaces apart; `right[i]` right-aligns column i.
pub(crate) fn grid(rows: &[Vec<String>], right: &[bool]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().filter_map(|r| r.get(c)).map(|s| s.chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                let pad = widths[c].saturating_sub(cell.chars().count());
                if right.get(c).copied().unwrap_or(false) {
                    format!("{}{cell}", " ".repeat(pad))
                } else {
                    format!("{cell}{}", " ".repeat(pad))
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

pub(crate) fn dollars(x: f64) -> String {
    if x >= 1.0 {
        format!("${x:.2}")
    } else {
        format!("${x:.4}")
    }
}

pub(crate) fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn list(ids: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text = format!("{}: {}", ids.len(), ids.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", "));
    if ids.len() > SHOWN {
        let _ = write!(text, " and {} more", ids.len() - SHOWN);
    }
    text
}
