//! `verdict compare RUN...`: finished runs side by side, from their summaries. Each argument is
//! a run id (every model under `<logs>/<run-id>/`), a run folder, a model folder holding
//! `summary.json`, or a `summary.json` file.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::common;
use super::error::{Error, Result};
use super::exit;
use crate::report::compare::{compare, render, Compared, Format};
use crate::report::Summary;

#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// Runs to compare: run ids (under --logs), run or model folders, or summary.json files.
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<String>,
    /// Output format: an aligned table, Markdown (to paste into a paper or README), CSV (one
    /// line per model and group) or JSON.
    #[arg(long, value_enum, default_value_t = FormatArg::Terminal)]
    pub format: FormatArg,
    /// Also list the instances resolved by some of the models and not by others, with each
    /// one's outcome.
    #[arg(long)]
    pub differences: bool,
    /// Write the comparison here instead of printing it.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write a self-contained HTML page of the comparison.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Root of run output, where run ids are looked up.
    #[arg(long, default_value = "logs", value_name = "DIR")]
    pub logs: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Terminal,
    Markdown,
    Csv,
    Json,
}

pub fn run(args: CompareArgs) -> Result<i32> {
    let mut runs: Vec<(Compared, PathBuf)> = Vec::new();
    for arg in &args.runs {
        for path in summaries(arg, &args.logs)? {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| Error::bad_input(format!("cannot read {}: {e}", path.display())))?;
            let summary: Summary = serde_json::from_str(&text)
                .map_err(|e| Error::bad_input(format!("{} is not a verdict summary.json ({e})", path.display())))?;
            let model_dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
            let run = summary.run_id.clone().unwrap_or_else(|| {
                model_dir
                    .parent()
                    .and_then(|p| p.file_name())
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            });
            let mut summary = summary;
            if summary.model.is_none() {
                summary.model = model_dir.file_name().map(|n| n.to_string_lossy().into_owned());
            }
            runs.push((Compared { run, summary }, model_dir));
        }
    }
    let compared: Vec<Compared> = runs.iter().map(|(c, _)| c.clone()).collect();
    let comparison = compare(&compared);
    let format = match args.format {
        FormatArg::Terminal => Format::Terminal,
        FormatArg::Markdown => Format::Markdown,
        FormatArg::Csv => Format::Csv,
        FormatArg::Json => Format::Json,
    };
    let text = render(&comparison, format, args.differences).map_err(Error::Internal)?;
    match &args.output {
        Some(path) => {
            common::write_text(path, &text)?;
            println!("comparison: {}", path.display());
        }
        None => print!("{text}"),
    }
    if let Some(path) = &args.html {
        let page_dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let links: Vec<Option<String>> =
            runs.iter().map(|(_, dir)| Some(crate::report::html::relative(page_dir, dir))).collect();
        common::write_text(path, &crate::report::html::render_comparison(&comparison, &links))?;
        println!("html: {}", path.display());
    }
    Ok(exit::OK)
}

/// The summary files an argument names (see the module doc), in a stable order.
fn summaries(arg: &str, logs: &Path) -> Result<Vec<PathBuf>> {
    let given = PathBuf::from(arg);
    let candidates = [given.clone(), logs.join(crate::run::safe_component(arg))];
    for path in candidates {
        if path.is_file() {
            return Ok(vec![path]);
        }
        if path.join("summary.json").is_file() {
            return Ok(vec![path.join("summary.json")]);
        }
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(&path)
                .map_err(|e| Error::io("read", &path, e))?
                .flatten()
                .map(|e| e.path().join("summary.json"))
                .filter(|p| p.is_file())
                .collect();
            found.sort();
            if !found.is_empty() {
                return Ok(found);
            }
        }
    }
    Err(Error::bad_input(format!(
        "{arg}: no summary.json there, nor a run of that id in {} (give a run id, a run or model folder, or a summary.json)",
        logs.display()
    )))
}
