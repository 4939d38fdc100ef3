//! The localization aggregate of a run's reports, and as a terminal table: one row per level
//! (file, class, function), over all valid instances, over those whose candidate applied, and
//! per language.

use super::InstanceReport;
use crate::localize::{InstanceLocalization, LevelAggregates, LocalizationAggregate};

/// The localization aggregate of a run's reports (those that carry per-instance scores), for
/// the summary.
pub fn aggregate(reports: &[InstanceReport]) -> Option<LocalizationAggregate> {
    let instances: Vec<InstanceLocalization> = reports.iter().filter_map(|r| r.localization.clone()).collect();
    (!instances.is_empty()).then(|| crate::localize::summarize(&instances))
}

/// The aggregate as a terminal table: one row per level, over all valid instances and over
/// those whose candidate applied.
pub fn render_localization(aggregate: &LocalizationAggregate) -> String {
    let mut out = format!(
        "localization: {} instance(s), {} valid, {} invalid (gold patch cannot be localized); candidates: {} applied, {} not applied, {} ranked, {} missing\n",
        aggregate.instances,
        aggregate.valid,
        aggregate.invalid.len(),
        aggregate.candidates_applied,
        aggregate.candidates_not_applied,
        aggregate.candidates_ranked,
        aggregate.candidates_missing
    );
    out.push_str(&format!("ranking: {}\n", aggregate.ordering));
    for (title, levels) in [("all instances", &aggregate.all), ("applied only", &aggregate.applied_only)] {
        out.push_str(&table(title, levels));
    }
    for (language, agg) in &aggregate.by_language {
        out.push_str(&table(&format!("{language} ({} instances)", agg.instances), &agg.all));
    }
    out
}

fn table(title: &str, levels: &LevelAggregates) -> String {
    let mut out = format!(
        "\n{title}\n{:<9} {:>4} {:>6} {:>6} {:>6} {:>6} {:>6} {:>7} {:>6} {:>6}\n",
        "level", "n", "P", "R", "F1", "Acc@1", "Acc@5", "Acc@10", "Hit@5", "MRR"
    );
    for (name, l) in [("file", &levels.file), ("class", &levels.class), ("function", &levels.function)] {
        out.push_str(&format!(
            "{name:<9} {:>4} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>7.3} {:>6.3} {:>6.3}\n",
            l.n, l.precision, l.recall, l.f1, l.acc_at_1, l.acc_at_5, l.acc_at_10, l.hit_at_5, l.mrr
        ));
    }
    out
}
