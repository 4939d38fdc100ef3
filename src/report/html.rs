//! The self-contained HTML report: one file, inline CSS and SVG charts and a little script, no
//! network at view time. [`render_run`] is one model of one run (`logs/<run>/<model>/report.html`,
//! written by `verdict evaluate`): headline figures with their counts, charts per outcome,
//! language and repository, the breakdown tables, localization, and a table of every instance,
//! filterable by outcome, language, repository and flag, linking to its patch, eval script, test
//! output and report, and listing the FAIL_TO_PASS / PASS_TO_PASS tests that failed.
//! [`render_comparison`] is `verdict compare --html`: the runs side by side, with charts per
//! language and repository and the instances that differ.
//!
//! Every figure is rendered from the summary as it is in `summary.json`, with its counts in
//! `data-*` attributes; the script only filters rows and counts what is shown (into
//! `data-count` attributes), and marks the page `data-ready="1"` when it has run. A script error
//! is caught by a handler installed first and written into the page (`data-script-errors`), so
//! a test in a real browser can tell a page that works from one that only looks right.

use std::collections::BTreeMap;
use std::path::Path;

use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::compare::{Comparison, Figures};
use super::summary::{Breakdown, Rate, Summary};
use super::table::{bytes, dollars};
use super::{InstanceReport, Outcome};
use crate::localize::{LevelAggregates, LocalizationAggregate};

const CSS: &str = r#"
:root { --fg: #1d2330; --muted: #5d6678; --line: #d9dde5; --bg: #f6f7f9; --card: #fff;
  --ok: #2e7d32; --part: #9a7b00; --bad: #c62828; --warn: #ef6c00; --info: #455a9c; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  background: var(--bg); margin: 0; padding: 24px 32px 48px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 10px; }
.meta { color: var(--muted); margin: 0 0 18px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; min-width: 170px; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .value { font-size: 24px; font-weight: 600; }
.card .count { color: var(--muted); }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
.chart { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px; }
.chart h3 { font-size: 14px; margin: 0 0 6px; }
svg text { font: 12px system-ui, sans-serif; fill: var(--fg); }
table { border-collapse: collapse; background: var(--card); border: 1px solid var(--line); }
th, td { padding: 5px 9px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: #eef0f4; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.outcome { font-weight: 600; white-space: nowrap; }
.o-resolved_full { color: var(--ok); } .o-resolved_partial, .o-resolved_flagged { color: var(--part); }
.o-unresolved, .o-patch_apply_failed { color: var(--bad); } .o-timeout, .o-empty_patch { color: var(--warn); }
.o-build_failed, .o-infra_error { color: var(--info); }
.filters { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin: 0 0 10px; }
.filters label { color: var(--muted); }
select, input { font: inherit; padding: 3px 6px; }
.links a { margin-right: 8px; white-space: nowrap; }
.flag { color: var(--warn); font-size: 12px; }
details summary { cursor: pointer; color: var(--muted); }
td code { white-space: nowrap; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
#script-errors { color: var(--bad); white-space: pre-wrap; }
"#;

/// Installed before anything else: a script error anywhere on the page is written into it.
const ERROR_HOOK: &str = r#"
window.addEventListener('error', function (e) {
  var root = document.documentElement;
  var n = Number(root.getAttribute('data-script-errors') || 0) + 1;
  root.setAttribute('data-script-errors', String(n));
  var add = function () {
    var box = document.getElementById('script-errors') || document.body.appendChild(document.createElement('pre'));
    box.id = 'script-errors';
    box.textContent += (e.message || 'script error') + ' (' + (e.filename || '') + ':' + (e.lineno || 0) + ')\n';
  };
  if (document.body) { add(); } else { document.addEventListener('DOMContentLoaded', add); }
});
"#;

/// Filters the instance table from the selects (and from `#outcome=…&language=…` in the URL),
/// counts what each option would show, and marks the page ready.
const FILTER_SCRIPT: &str = r#"
(function () {
  var table = document.getElementById('instances');
  if (!table) { document.body.setAttribute('data-ready', '1'); return; }
  var rows = Array.prototype.slice.call(table.querySelectorAll('tbody tr'));
  var keys = ['outcome', 'language', 'repo', 'flag'];
  var selects = {};
  keys.forEach(function (k) { selects[k] = document.getElementById('filter-' + k); });
  var search = document.getElementById('filter-text');
  var params = new URLSearchParams(location.hash.replace(/^#/, ''));
  keys.forEach(function (k) { if (params.has(k) && selects[k]) { selects[k].value = params.get(k); } });
  if (params.has('q') && search) { search.value = params.get('q'); }
  function matches(row, except) {
    return keys.every(function (k) {
      if (k === except || !selects[k]) { return true; }
      var want = selects[k].value;
      return want === '' || row.getAttribute('data-' + k) === want;
    }) && (!search || search.value === '' || row.getAttribute('data-id').indexOf(search.value) >= 0);
  }
  function update() {
    var shown = 0;
    rows.forEach(function (row) { var ok = matches(row, null); row.hidden = !ok; if (ok) { shown += 1; } });
    var count = document.getElementById('shown-count');
    if (count) { count.textContent = String(shown); count.setAttribute('data-count', String(shown)); }
    keys.forEach(function (k) {
      if (!selects[k]) { return; }
      Array.prototype.forEach.call(selects[k].options, function (option) {
        var n = rows.filter(function (row) {
          return matches(row, k) && (option.value === '' || row.getAttribute('data-' + k) === option.value);
        }).length;
        option.setAttribute('data-count', String(n));
        option.textContent = option.getAttribute('data-label') + ' (' + n + ')';
      });
    });
  }
  keys.forEach(function (k) { if (selects[k]) { selects[k].addEventListener('change', update); } });
  if (search) { search.addEventListener('input', update); }
  update();
  document.body.setAttribute('data-ready', '1');
})();
"#;

fn page(title: &str, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                script { (PreEscaped(ERROR_HOOK)) }
                style { (PreEscaped(CSS)) }
            }
            body {
                (body)
                script { (PreEscaped(FILTER_SCRIPT)) }
            }
        }
    }
    .into_string()
}

fn percent(rate: &Rate) -> String {
    format!("{:.1}%", rate.value * 100.0)
}

/// A headline figure: its value, counts and name in `data-*` attributes.
fn card(name: &str, label: &str, rate: &Rate) -> Markup {
    html! {
        div.card data-figure=(name) data-numerator=(rate.numerator) data-denominator=(rate.denominator) {
            div.label { (label) }
            div.value { (percent(rate)) }
            div.count { (rate.numerator) " / " (rate.denominator) }
        }
    }
}

fn plain_card(name: &str, label: &str, value: String, note: String) -> Markup {
    html! {
        div.card data-figure=(name) data-value=(value) {
            div.label { (label) }
            div.value { (value) }
            div.count { (note) }
        }
    }
}

const COLORS: [&str; 6] = ["#3f6fb5", "#e08a2c", "#4e9a57", "#b8485d", "#7b5ea7", "#6b7b8c"];

/// A horizontal bar chart: one block per group, one bar per series, each labelled with its
/// rate and counts.
fn bar_chart(title: &str, series: &[String], groups: &[(String, Vec<Option<Rate>>)]) -> Markup {
    let label_width = groups.iter().map(|(g, _)| g.chars().count()).max().unwrap_or(4).clamp(6, 34) as f64 * 7.2 + 10.0;
    let bar_area = 260.0;
    let text_width = 120.0;
    let bar_h = 14.0;
    let gap = 8.0;
    let per_group = series.len() as f64 * (bar_h + 2.0) + gap;
    let legend_h = if series.len() > 1 { 20.0 } else { 0.0 };
    let height = legend_h + groups.len() as f64 * per_group + 4.0;
    let width = label_width + bar_area + text_width;
    html! {
        div.chart {
            h3 { (title) }
            svg xmlns="http://www.w3.org/2000/svg" width=(width) height=(height) viewBox=(format!("0 0 {width} {height}")) role="img" {
                @if series.len() > 1 {
                    @for (i, name) in series.iter().enumerate() {
                        rect x=(label_width + i as f64 * 120.0) y="4" width="10" height="10" fill=(COLORS[i % COLORS.len()]) {}
                        text x=(label_width + i as f64 * 120.0 + 14.0) y="13" { (name) }
                    }
                }
                @for (g, (group, rates)) in groups.iter().enumerate() {
                    @let top = legend_h + g as f64 * per_group;
                    text x=(label_width - 6.0) y=(top + bar_h - 2.0) text-anchor="end" { (group) }
                    @for (i, rate) in rates.iter().enumerate() {
                        @let y = top + i as f64 * (bar_h + 2.0);
                        @if let Some(rate) = rate {
                            rect x=(label_width) y=(y) width=(format!("{:.1}", (rate.value * bar_area).max(0.5))) height=(bar_h)
                                fill=(COLORS[i % COLORS.len()]) data-numerator=(rate.numerator) data-denominator=(rate.denominator) {}
                            text x=(label_width + rate.value * bar_area + 4.0) y=(y + bar_h - 3.0) { (rate.to_string()) }
                        } @else {
                            text x=(label_width + 4.0) y=(y + bar_h - 3.0) { "-" }
                        }
                    }
                }
            }
        }
    }
}

fn breakdown_table(kind: &str, groups: &BTreeMap<String, Breakdown>) -> Markup {
    html! {
        table data-breakdown=(kind) {
            thead { tr {
                th { (kind.replace('_', " ")) } th.num { "instances" } th.num { "resolved" } th.num { "partial" }
                th.num { "res. flagged" } th.num { "apply (strict)" } th.num { "apply (lenient)" } th.num { "mean cost" }
            } }
            tbody {
                @for (name, b) in groups {
                    tr data-group=(name) data-instances=(b.instances) data-resolved=(b.resolve_rate.numerator) {
                        td { (name) } td.num { (b.instances) } td.num { (b.resolve_rate.to_string()) }
                        td.num { (b.resolved_partial) } td.num { (b.resolved_flagged) } td.num { (b.apply_rate_strict.to_string()) }
                        td.num { (b.apply_rate_lenient.to_string()) }
                        td.num { (b.mean_cost_dollars.map_or("-".into(), dollars)) }
                    }
                }
            }
        }
    }
}

fn localization_table(title: &str, levels: &LevelAggregates) -> Markup {
    html! {
        h3 { (title) }
        table.localization {
            thead { tr {
                th { "level" } th.num { "n" } th.num { "precision" } th.num { "recall" } th.num { "F1" }
                th.num { "Acc@1" } th.num { "Acc@5" } th.num { "Acc@10" } th.num { "MRR" }
            } }
            tbody {
                @for (name, l) in [("file", &levels.file), ("class", &levels.class), ("function", &levels.function)] {
                    tr data-level=(name) data-n=(l.n) data-acc1=(format!("{:.6}", l.acc_at_1)) {
                        td { (name) } td.num { (l.n) } td.num { (format!("{:.3}", l.precision)) }
                        td.num { (format!("{:.3}", l.recall)) } td.num { (format!("{:.3}", l.f1)) }
                        td.num { (format!("{:.3}", l.acc_at_1)) } td.num { (format!("{:.3}", l.acc_at_5)) }
                        td.num { (format!("{:.3}", l.acc_at_10)) } td.num { (format!("{:.3}", l.mrr)) }
                    }
                }
            }
        }
    }
}

fn select(key: &str, label: &str, values: &[String]) -> Markup {
    html! {
        label for=(format!("filter-{key}")) { (label) }
        select id=(format!("filter-{key}")) {
            option value="" data-label="all" { "all" }
            @for v in values { option value=(v) data-label=(v) { (v) } }
        }
    }
}

/// A link to one of an instance's files, relative to the report.
fn link(dir: &str, file: &Option<String>, label: &str) -> Markup {
    html! {
        @if let Some(file) = file {
            a href=(format!("{dir}/{file}")) { (label) }
        }
    }
}

/// One model of one run. Links point into the instance folders beside the report.
pub fn render_run(summary: &Summary, reports: &[InstanceReport]) -> String {
    let model = summary.model.clone().unwrap_or_else(|| "model".into());
    let who = crate::dataset::sources::label(&(model, summary.method.clone()));
    let run = summary.run_id.clone().unwrap_or_default();
    let title = format!("verdict: {who} ({run})");
    let localization: Option<&LocalizationAggregate> = summary.localization.as_ref();
    let outcome_rates: Vec<(String, Vec<Option<Rate>>)> = summary
        .outcomes
        .iter()
        .map(|(o, n)| (o.to_string(), vec![Some(Rate::new(*n, summary.submitted_instances))]))
        .collect();
    let two = ["resolved".to_string(), "applied (lenient)".to_string()];
    let groups = |map: &BTreeMap<String, Breakdown>| -> Vec<(String, Vec<Option<Rate>>)> {
        map.iter().map(|(k, b)| (k.clone(), vec![Some(b.resolve_rate), Some(b.apply_rate_lenient)])).collect()
    };
    let distinct = |f: &dyn Fn(&InstanceReport) -> String| -> Vec<String> {
        let set: std::collections::BTreeSet<String> = reports.iter().map(f).collect();
        set.into_iter().collect()
    };
    let outcomes = distinct(&|r| r.outcome.to_string());
    let languages = distinct(&|r| r.language.clone());
    let repos = distinct(&|r| r.repo.clone());
    let s = summary;
    let body = html! {
        h1 { "verdict report" }
        p.meta { "run " code { (run) } " · model " code { (who) } " · " (s.total_instances) " instances, "
            (s.submitted_instances) " submitted, " (s.completed_instances) " completed · verdict " (env!("CARGO_PKG_VERSION")) }
        section.cards #headline {
            (card("resolve_rate", "resolved", &s.resolve_rate))
            (card("apply_rate_strict", "applied (strict)", &s.apply_rate_strict))
            (card("apply_rate_lenient", "applied (lenient)", &s.apply_rate_lenient))
            (plain_card("resolved_partial", "partially resolved", s.resolved_partial_ids.len().to_string(), "FAIL_TO_PASS in part".into()))
            (plain_card("resolved_flagged", "resolved, flagged", s.resolved_flagged_ids.len().to_string(), "suspicious: not resolved".into()))
            (plain_card("flagged", "flagged", s.flagged_ids.len().to_string(), "test files, resets, suspicions".into()))
            (plain_card("mean_cost", "mean cost", s.cost.mean_dollars_per_instance.map_or("-".into(), dollars),
                format!("{} of {} with a cost", s.cost.instances_with_cost, s.submitted_instances)))
            (plain_card("verdict_cost", "verdict's cost", format!("{:.1} s", s.verdict_cost.wall_secs),
                format!("{:.1} s CPU, {} of images", s.verdict_cost.cpu_secs, bytes(s.verdict_cost.image_bytes))))
        }
        h2 { "Outcomes, languages, repositories" }
        div.charts {
            (bar_chart("outcomes (share of submitted)", &["instances".to_string()], &outcome_rates))
            (bar_chart("by language", &two, &groups(&s.by_language)))
            (bar_chart("by repository", &two, &groups(&s.by_repo)))
        }
        h2 { "Breakdowns" }
        div.charts {
            (breakdown_table("language", &s.by_language))
            (breakdown_table("repository", &s.by_repo))
            @if !s.by_patch_scope.is_empty() { (breakdown_table("patch_scope", &s.by_patch_scope)) }
            @if !s.by_images.is_empty() { (breakdown_table("images", &s.by_images)) }
        }
        @if let Some(l) = &localization {
            h2 { "Localization" }
            p.meta { (l.valid) " valid instances; candidates: " (l.candidates_applied) " applied, "
                (l.candidates_not_applied) " not applied, " (l.candidates_missing) " missing. " (l.ordering) }
            div.charts {
                div { (localization_table("all instances", &l.all)) }
                div { (localization_table("applied only", &l.applied_only)) }
            }
        }
        h2 { "Instances" }
        div.filters {
            (select("outcome", "outcome", &outcomes))
            (select("language", "language", &languages))
            (select("repo", "repository", &repos))
            (select("flag", "flag", &["flagged".to_string(), "not flagged".to_string()]))
            label for="filter-text" { "id" }
            input #filter-text type="search" placeholder="part of an instance id";
            span { "showing " span #shown-count { (reports.len()) } " of " (reports.len()) }
        }
        table #instances {
            thead { tr {
                th { "instance" } th { "outcome" } th { "repository" } th { "language" } th { "apply" }
                th { "failed tests / reason" } th { "files" }
            } }
            tbody {
                @for r in reports { (instance_row(r)) }
            }
        }
    };
    page(&title, body)
}

fn instance_row(r: &InstanceReport) -> Markup {
    let dir = crate::run::safe_component(&r.instance_id);
    let flagged = if r.flags.is_empty() { "not flagged" } else { "flagged" };
    let failed: Vec<(&str, &String)> = r
        .grade
        .iter()
        .flat_map(|g| {
            let f2p = g.tests_status.fail_to_pass.failure.iter().map(|t| ("FAIL_TO_PASS", t));
            let p2p = g.tests_status.pass_to_pass.failure.iter().map(|t| ("PASS_TO_PASS", t));
            f2p.chain(p2p).collect::<Vec<_>>()
        })
        .collect();
    html! {
        tr data-id=(r.instance_id) data-outcome=(r.outcome.name()) data-language=(r.language) data-repo=(r.repo) data-flag=(flagged) {
            td { code { (r.instance_id) } }
            td { span class=(format!("outcome o-{}", r.outcome.name())) { (r.outcome.name()) } }
            td { (r.repo) }
            td { (r.language) }
            td { (r.apply.step.map_or("-", |s| s.name())) }
            td {
                @if !failed.is_empty() {
                    details {
                        summary { (failed.len()) " failed" }
                        ul { @for (list, test) in &failed { li { (list) ": " code { (test) } } } }
                    }
                }
                @if let Some(reason) = &r.reason { div { (reason) } }
                @for flag in &r.flags { div.flag { (flag) } }
                @if r.outcome == Outcome::Unresolved && failed.is_empty() && r.grade.as_ref().is_some_and(|g| !g.notes.is_empty()) {
                    div { (r.grade.as_ref().map(|g| g.notes.join("; ")).unwrap_or_default()) }
                }
            }
            td.links {
                (link(&dir, &r.logs.patch, "patch"))
                (link(&dir, &r.logs.eval_script, "eval script"))
                (link(&dir, &r.logs.test_output, "test output"))
                a href=(format!("{dir}/report.json")) { "report" }
                // The build log lies outside the instance folder, named relative to where verdict ran.
                @if let Some(log) = &r.logs.build_log {
                    a href=(std::path::absolute(log).map(|p| p.display().to_string()).unwrap_or_else(|_| log.clone())) { "build log" }
                }
            }
        }
    }
}

/// Runs side by side. `links[i]` is the folder of row i's instance reports, relative to the
/// page (or absolute), when known.
pub fn render_comparison(c: &Comparison, links: &[Option<String>]) -> String {
    let series: Vec<String> = c.rows.iter().map(|r| r.label.clone()).collect();
    let chart = |kind: &str, value: fn(&Figures) -> Rate| -> Option<Markup> {
        let table = c.breakdowns.iter().find(|t| t.kind == kind)?;
        let mut groups: Vec<(String, Vec<Option<Rate>>)> = Vec::new();
        for g in &table.rows {
            let i = c.rows.iter().position(|r| r.label == g.label)?;
            let at = match groups.iter().position(|(name, _)| name == &g.group) {
                Some(at) => at,
                None => {
                    groups.push((g.group.clone(), vec![None; c.rows.len()]));
                    groups.len() - 1
                }
            };
            groups[at].1[i] = Some(value(&g.figures));
        }
        Some(bar_chart(&format!("resolved by {}", kind.replace('_', " ")), &series, &groups))
    };
    let any_loc = c.rows.iter().any(|r| r.localization.is_some());
    let body = html! {
        h1 { "verdict comparison" }
        p.meta { (c.rows.len()) " models · verdict " (env!("CARGO_PKG_VERSION")) }
        table #compare {
            thead { tr {
                th { "model" } th { "run" } th.num { "instances" } th.num { "resolved" } th.num { "partial" }
                th.num { "res. flagged" } th.num { "apply (strict)" } th.num { "apply (lenient)" } th.num { "mean cost" }
                @if any_loc { th.num { "file Acc@1" } th.num { "file Acc@5" } th.num { "file F1" }
                    th.num { "func Acc@1" } th.num { "func Acc@5" } th.num { "func F1" } }
            } }
            tbody {
                @for r in &c.rows {
                    tr data-label=(r.label) data-resolved=(r.figures.resolve_rate.numerator) data-instances=(r.figures.instances)
                        data-applied-strict=(r.figures.apply_rate_strict.numerator) data-applied-lenient=(r.figures.apply_rate_lenient.numerator) {
                        td { (r.label) } td { code { (r.run) } } td.num { (r.figures.instances) }
                        td.num { (r.figures.resolve_rate.to_string()) } td.num { (r.figures.resolved_partial) }
                        td.num { (r.figures.resolved_flagged) } td.num { (r.figures.apply_rate_strict.to_string()) } td.num { (r.figures.apply_rate_lenient.to_string()) }
                        td.num { (r.figures.mean_cost_dollars.map_or("-".into(), dollars)) }
                        @if any_loc {
                            @for x in r.localization.as_ref().map(|l| vec![l.file.acc_at_1, l.file.acc_at_5, l.file.f1, l.function.acc_at_1, l.function.acc_at_5, l.function.f1]).unwrap_or_default() {
                                td.num { (format!("{x:.3}")) }
                            }
                            @if r.localization.is_none() { @for _ in 0..6 { td.num { "-" } } }
                        }
                    }
                }
            }
        }
        h2 { "Charts" }
        div.charts {
            @if let Some(m) = chart("language", |f| f.resolve_rate) { (m) }
            @if let Some(m) = chart("repository", |f| f.resolve_rate) { (m) }
            @if let Some(m) = chart("patch_scope", |f| f.resolve_rate) { (m) }
            @if let Some(m) = chart("images", |f| f.resolve_rate) { (m) }
        }
        h2 { "Instances resolved by some and not all (" (c.differences.len()) ")" }
        table #differences {
            thead { tr { th { "instance" } @for r in &c.rows { th { (r.label) } } } }
            tbody {
                @for d in &c.differences {
                    tr data-id=(d.instance_id) {
                        td { code { (d.instance_id) } }
                        @for (i, o) in d.outcomes.iter().enumerate() {
                            td {
                                @match (o, links.get(i).and_then(|l| l.as_ref())) {
                                    (Some(o), Some(dir)) => a class=(format!("outcome o-{o}")) href=(format!("{dir}/{}/report.json", crate::run::safe_component(&d.instance_id))) { (o) },
                                    (Some(o), None) => span class=(format!("outcome o-{o}")) { (o) },
                                    (None, _) => "-",
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    page("verdict comparison", body)
}

/// `to` relative to the folder `from`, when both are absolute (else `to` as given).
pub fn relative(from: &Path, to: &Path) -> String {
    let (Ok(from), Ok(to)) = (std::path::absolute(from), std::path::absolute(to)) else {
        return to.display().to_string();
    };
    let a: Vec<_> = from.components().collect();
    let b: Vec<_> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = std::iter::repeat_n("..".to_string(), a.len() - common).collect();
    parts.extend(b[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned()));
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}
