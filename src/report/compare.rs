//! Runs side by side (`verdict compare`): one row per model (and method) of each run, with
//! resolve rate, partially resolved and `resolved_flagged` counts, strict and lenient apply rate
//! and mean cost, the same per language, repository, patch scope (single- vs cross-file) and
//! images, localization (file and function Acc@1, Acc@5, F1) beside them, and the instances
//! whose outcome differs between rows. Built from the runs' `summary.json` alone, so any finished
//! run can be compared; rendered as a terminal table, Markdown, CSV or JSON. Pure functions, no
//! I/O.
//!
//! Every figure is the summary's own (same counting, same denominators); a comparison never
//! recomputes one. Rows whose instance sets differ are compared as they are, and the headline
//! table says how many instances each row counts.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use serde::Serialize;

use super::summary::{Breakdown, Rate, Summary};
use crate::localize::{LevelAggregate, LocalizationAggregate};

/// One compared model of one run.
#[derive(Debug, Clone)]
pub struct Compared {
    /// The run id (or the summary file's folder when no run id is recorded).
    pub run: String,
    pub summary: Summary,
}

/// Figures of one row or one group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figures {
    pub instances: usize,
    pub resolve_rate: Rate,
    pub resolved_partial: usize,
    /// Every listed test passed but the candidate is flagged as suspicious (not resolved).
    pub resolved_flagged: usize,
    pub apply_rate_strict: Rate,
    pub apply_rate_lenient: Rate,
    pub mean_cost_dollars: Option<f64>,
}

impl Figures {
    fn of(b: &Breakdown) -> Self {
        Figures {
            instances: b.instances,
            resolve_rate: b.resolve_rate,
            resolved_partial: b.resolved_partial,
            resolved_flagged: b.resolved_flagged,
            apply_rate_strict: b.apply_rate_strict,
            apply_rate_lenient: b.apply_rate_lenient,
            mean_cost_dollars: b.mean_cost_dollars,
        }
    }
}

/// File and function localization of one row or group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Localization {
    pub file: LevelFigures,
    pub function: LevelFigures,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LevelFigures {
    pub n: usize,
    pub acc_at_1: f64,
    pub acc_at_5: f64,
    pub f1: f64,
}

impl LevelFigures {
    fn of(a: &LevelAggregate) -> Self {
        LevelFigures { n: a.n, acc_at_1: a.acc_at_1, acc_at_5: a.acc_at_5, f1: a.f1 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// `model`, `model (method)`, or `run / model` when one model appears in several runs.
    pub label: String,
    pub run: String,
    pub model: String,
    pub method: Option<String>,
    #[serde(flatten)]
    pub figures: Figures,
    pub localization: Option<Localization>,
}

/// One group of a breakdown, for one row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupRow {
    pub label: String,
    pub group: String,
    #[serde(flatten)]
    pub figures: Figures,
    pub localization: Option<Localization>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BreakdownTable {
    /// `language`, `repository`, `patch_scope`, `images`.
    pub kind: String,
    pub rows: Vec<GroupRow>,
}

/// An instance resolved by some rows and not by others, with each row's outcome
/// (`not_submitted` when the row has no report for it, `None` when it is not in the row's
/// instances).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    pub instance_id: String,
    pub outcomes: Vec<Option<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub rows: Vec<Row>,
    pub breakdowns: Vec<BreakdownTable>,
    pub differences: Vec<Difference>,
}

/// Builds the comparison, rows in the order given.
pub fn compare(runs: &[Compared]) -> Comparison {
    let models: Vec<(String, Option<String>)> = runs
        .iter()
        .map(|c| (c.summary.model.clone().unwrap_or_else(|| "model".into()), c.summary.method.clone()))
        .collect();
    let repeated = |key: &(String, Option<String>)| models.iter().filter(|k| *k == key).count() > 1;
    let labels: Vec<String> = runs
        .iter()
        .zip(&models)
        .map(|(c, key)| {
            let name = crate::dataset::sources::label(key);
            if repeated(key) {
                format!("{} / {name}", c.run)
            } else {
                name
            }
        })
        .collect();
    let locs: Vec<Option<&LocalizationAggregate>> = runs.iter().map(|c| c.summary.localization.as_ref()).collect();

    let rows = runs
        .iter()
        .zip(&models)
        .zip(&labels)
        .zip(&locs)
        .map(|(((c, (model, method)), label), loc)| Row {
            label: label.clone(),
            run: c.run.clone(),
            model: model.clone(),
            method: method.clone(),
            figures: headline(&c.summary),
            localization: loc.as_ref().map(|l| Localization {
                file: LevelFigures::of(&l.all.file),
                function: LevelFigures::of(&l.all.function),
            }),
        })
        .collect();

    type Groups = fn(&Summary) -> &BTreeMap<String, Breakdown>;
    let kinds: [(&str, Groups); 4] = [
        ("language", |s| &s.by_language),
        ("repository", |s| &s.by_repo),
        ("patch_scope", |s| &s.by_patch_scope),
        ("images", |s| &s.by_images),
    ];
    let breakdowns = kinds
        .iter()
        .map(|(kind, groups_of)| {
            let mut rows = Vec::new();
            for ((c, label), loc) in runs.iter().zip(&labels).zip(&locs) {
                for (group, b) in groups_of(&c.summary) {
                    let localization = (*kind == "language")
                        .then(|| loc.as_ref().and_then(|l| l.by_language.get(group)))
                        .flatten()
                        .map(|l| Localization {
                            file: LevelFigures::of(&l.all.file),
                            function: LevelFigures::of(&l.all.function),
                        });
                    rows.push(GroupRow {
                        label: label.clone(),
                        group: group.clone(),
                        figures: Figures::of(b),
                        localization,
                    });
                }
            }
            BreakdownTable { kind: kind.to_string(), rows }
        })
        .filter(|t| !t.rows.is_empty())
        .collect();

    Comparison { rows, breakdowns, differences: differences(runs) }
}

fn headline(s: &Summary) -> Figures {
    Figures {
        instances: s.total_instances,
        resolve_rate: s.resolve_rate,
        resolved_partial: s.resolved_partial_ids.len(),
        resolved_flagged: s.resolved_flagged_ids.len(),
        apply_rate_strict: s.apply_rate_strict,
        apply_rate_lenient: s.apply_rate_lenient,
        mean_cost_dollars: s.cost.mean_dollars_per_instance,
    }
}

/// Each instance's outcome in a summary, from its id lists.
pub fn outcomes_of(s: &Summary) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let lists: [(&str, &Vec<String>); 10] = [
        ("not_submitted", &s.incomplete_ids),
        ("unresolved", &s.unresolved_ids),
        ("resolved_partial", &s.resolved_partial_ids),
        ("resolved_flagged", &s.resolved_flagged_ids),
        ("resolved_full", &s.resolved_ids),
        ("empty_patch", &s.empty_patch_ids),
        ("patch_apply_failed", &s.patch_apply_failed_ids),
        ("timeout", &s.timeout_ids),
        ("build_failed", &s.build_failed_ids),
        ("infra_error", &s.infra_error_ids),
    ];
    // Later lists win: resolved_partial and resolved_flagged ids are also in unresolved_ids.
    for (name, ids) in lists {
        for id in ids {
            out.insert(id.clone(), name.to_string());
        }
    }
    out
}

fn differences(runs: &[Compared]) -> Vec<Difference> {
    let outcomes: Vec<BTreeMap<String, String>> = runs.iter().map(|c| outcomes_of(&c.summary)).collect();
    let all: BTreeSet<&String> = outcomes.iter().flat_map(|o| o.keys()).collect();
    all.into_iter()
        .filter_map(|id| {
            let row: Vec<Option<String>> = outcomes.iter().map(|o| o.get(id).cloned()).collect();
            let resolved = row.iter().filter(|o| o.as_deref() == Some("resolved_full")).count();
            (resolved > 0 && resolved < row.len()).then(|| Difference { instance_id: id.clone(), outcomes: row })
        })
        .collect()
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Terminal,
    Markdown,
    Csv,
    Json,
}

/// Renders the comparison; `with_differences` adds the instances that differ (terminal and
/// Markdown; JSON always has them; CSV holds the figures only).
pub fn render(c: &Comparison, format: Format, with_differences: bool) -> Result<String, String> {
    Ok(match format {
        Format::Terminal => tables(c, with_differences, &Grid),
        Format::Markdown => tables(c, with_differences, &Markdown),
        Format::Csv => csv(c).map_err(|e| format!("cannot write CSV: {e}"))?,
        Format::Json => serde_json::to_string_pretty(c).map_err(|e| format!("cannot write JSON: {e}"))? + "\n",
    })
}

/// How a table is drawn.
trait Draw {
    fn title(&self, out: &mut String, title: &str);
    fn table(&self, out: &mut String, rows: &[Vec<String>], right: &[bool]);
}

struct Grid;
struct Markdown;

impl Draw for Grid {
    fn title(&self, out: &mut String, title: &str) {
        let _ = writeln!(out, "{title}");
    }
    fn table(&self, out: &mut String, rows: &[Vec<String>], right: &[bool]) {
        out.push_str(&super::table::grid(rows, right));
    }
}

impl Draw for Markdown {
    fn title(&self, out: &mut String, title: &str) {
        let _ = writeln!(out, "### {title}\n");
    }
    fn table(&self, out: &mut String, rows: &[Vec<String>], right: &[bool]) {
        let cell = |s: &str| s.replace('|', "\\|");
        for (i, row) in rows.iter().enumerate() {
            let _ = writeln!(out, "| {} |", row.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | "));
            if i == 0 {
                let rule: Vec<&str> =
                    (0..row.len()).map(|c| if right.get(c) == Some(&true) { "---:" } else { "---" }).collect();
                let _ = writeln!(out, "| {} |", rule.join(" | "));
            }
        }
    }
}

const FIGURES: [&str; 7] =
    ["instances", "resolved", "partial", "res. flagged", "apply (strict)", "apply (lenient)", "mean cost"];

fn figure_cells(f: &Figures) -> Vec<String> {
    vec![
        f.instances.to_string(),
        f.resolve_rate.to_string(),
        f.resolved_partial.to_string(),
        f.resolved_flagged.to_string(),
        f.apply_rate_strict.to_string(),
        f.apply_rate_lenient.to_string(),
        f.mean_cost_dollars.map_or("-".into(), super::table::dollars),
    ]
}

fn loc_cells(l: Option<&Localization>) -> Vec<String> {
    match l {
        None => vec!["-".into(); 6],
        Some(l) => [&l.file, &l.function]
            .iter()
            .flat_map(|v| [v.acc_at_1, v.acc_at_5, v.f1].map(|x| format!("{x:.3}")))
            .collect(),
    }
}

const LOC: [&str; 6] = ["file Acc@1", "file Acc@5", "file F1", "func Acc@1", "func Acc@5", "func F1"];

fn tables(c: &Comparison, with_differences: bool, draw: &dyn Draw) -> String {
    let mut out = String::new();
    let any_loc = c.rows.iter().any(|r| r.localization.is_some());
    let mut header: Vec<String> = std::iter::once("model").chain(FIGURES).map(String::from).collect();
    if any_loc {
        header.extend(LOC.map(String::from));
    }
    let mut rows = vec![header.clone()];
    for r in &c.rows {
        let mut cells = vec![r.label.clone()];
        cells.extend(figure_cells(&r.figures));
        if any_loc {
            cells.extend(loc_cells(r.localization.as_ref()));
        }
        rows.push(cells);
    }
    let right: Vec<bool> = (0..header.len()).map(|i| i > 0).collect();
    draw.title(&mut out, "all instances");
    draw.table(&mut out, &rows, &right);
    for table in &c.breakdowns {
        out.push('\n');
        draw.title(&mut out, &format!("by {}", table.kind.replace('_', " ")));
        let loc_here = table.rows.iter().any(|r| r.localization.is_some());
        let kind = table.kind.replace('_', " ");
        let mut header: Vec<String> = ["model", kind.as_str()].into_iter().chain(FIGURES).map(String::from).collect();
        if loc_here {
            header.extend(LOC.map(String::from));
        }
        let mut rows = vec![header.clone()];
        for g in &table.rows {
            let mut cells = vec![g.label.clone(), g.group.clone()];
            cells.extend(figure_cells(&g.figures));
            if loc_here {
                cells.extend(loc_cells(g.localization.as_ref()));
            }
            rows.push(cells);
        }
        let right: Vec<bool> = (0..header.len()).map(|i| i > 1).collect();
        draw.table(&mut out, &rows, &right);
    }
    if with_differences {
        out.push('\n');
        draw.title(&mut out, &format!("instances resolved by some and not all ({})", c.differences.len()));
        if c.differences.is_empty() {
            out.push_str("none\n");
        } else {
            let mut rows =
                vec![std::iter::once("instance".to_string()).chain(c.rows.iter().map(|r| r.label.clone())).collect()];
            for d in &c.differences {
                let mut cells = vec![d.instance_id.clone()];
                cells.extend(d.outcomes.iter().map(|o| o.clone().unwrap_or_else(|| "-".into())));
                rows.push(cells);
            }
            draw.table(&mut out, &rows, &[]);
        }
    }
    out
}

/// One line per row and group: `breakdown` is `all` for the headline rows.
fn csv(c: &Comparison) -> Result<String, Box<dyn std::error::Error>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "run",
        "model",
        "method",
        "breakdown",
        "group",
        "instances",
        "resolved",
        "resolve_rate",
        "resolved_partial",
        "resolved_flagged",
        "applied_strict",
        "apply_rate_strict",
        "applied_lenient",
        "apply_rate_lenient",
        "mean_cost_dollars",
        "file_acc_at_1",
        "file_acc_at_5",
        "file_f1",
        "function_acc_at_1",
        "function_acc_at_5",
        "function_f1",
    ])?;
    let record = |row: &Row, kind: &str, group: &str, f: &Figures, l: Option<&Localization>| -> Vec<String> {
        let mut cells = vec![
            row.run.clone(),
            row.model.clone(),
            row.method.clone().unwrap_or_default(),
            kind.to_string(),
            group.to_string(),
            f.instances.to_string(),
            f.resolve_rate.numerator.to_string(),
            format!("{:.6}", f.resolve_rate.value),
            f.resolved_partial.to_string(),
            f.resolved_flagged.to_string(),
            f.apply_rate_strict.numerator.to_string(),
            format!("{:.6}", f.apply_rate_strict.value),
            f.apply_rate_lenient.numerator.to_string(),
            format!("{:.6}", f.apply_rate_lenient.value),
            f.mean_cost_dollars.map(|x| format!("{x:.6}")).unwrap_or_default(),
        ];
        match l {
            Some(l) => cells.extend(
                [&l.file, &l.function].iter().flat_map(|v| [v.acc_at_1, v.acc_at_5, v.f1].map(|x| format!("{x:.6}"))),
            ),
            None => cells.extend(std::iter::repeat_n(String::new(), 6)),
        }
        cells
    };
    for row in &c.rows {
        w.write_record(record(row, "all", "", &row.figures, row.localization.as_ref()))?;
    }
    for table in &c.breakdowns {
        for g in &table.rows {
            let Some(row) = c.rows.iter().find(|r| r.label == g.label) else { continue };
            w.write_record(record(row, &table.kind, &g.group, &g.figures, g.localization.as_ref()))?;
        }
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}
