//! `verdict clean`: remove the containers (and Swarm services) verdict owns, by label: every one
//! on the engine, or one run's (`--run-id`, with `--logs`). `--dry-run` lists them and removes
//! nothing.

use std::path::PathBuf;

use clap::Args;

use super::common;
use super::error::{Error, Result};
use super::exit;
use crate::engine::RunScope;
use crate::run::clean::{inventory, remove};

#[derive(Debug, Clone, Args)]
pub struct CleanArgs {
    /// Only this run's containers (the run that wrote to <logs>/<run-id>).
    #[arg(long, value_name = "ID")]
    pub run_id: Option<String>,
    /// Root of run output (with --run-id).
    #[arg(long, default_value = "logs", value_name = "DIR")]
    pub logs: PathBuf,
    /// List what would be removed; remove nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Also remove verdict's images (a cache: they are rebuilt when needed; images in use stay).
    #[arg(long)]
    pub images: bool,
}

pub async fn run(args: CleanArgs) -> Result<i32> {
    let scope = match &args.run_id {
        Some(id) => Some(
            RunScope::new(&args.logs.join(crate::run::safe_component(id)), id)
                .map_err(|e| Error::bad_input(format!("cannot resolve {}: {e}", args.logs.display())))?,
        ),
        None => None,
    };
    let engine = common::connect().await?;
    let found = inventory(&engine, scope.as_ref(), args.images).await.map_err(|e| Error::EngineLost(e.to_string()))?;
    let what = match &scope {
        Some(scope) => format!("run {}", scope.folder().display()),
        None => "verdict".to_string(),
    };
    for c in &found.containers {
        let name = c.name.as_deref().unwrap_or(&c.id);
        println!("container {name:<40} {:<8} {}", c.state, c.run_folder.as_deref().unwrap_or("(no run)"));
    }
    for (c, holder) in &found.live {
        let name = c.name.as_deref().unwrap_or(&c.id);
        println!(
            "container {name:<40} {:<8} {} (run in progress, {holder}: kept)",
            c.state,
            c.run_folder.as_deref().unwrap_or("")
        );
    }
    for (_, name) in &found.services {
        println!("service   {name}");
    }
    for (id, tags) in &found.images {
        println!("image     {}", if tags.is_empty() { id.clone() } else { tags.join(", ") });
    }
    let mut images = if args.images { format!(" and {} image(s)", found.images.len()) } else { String::new() };
    if !found.services.is_empty() {
        images = format!(", {} service(s){images}", found.services.len());
    }
    if args.dry_run {
        println!("{} container(s){images} of {what} would be removed (dry run)", found.containers.len());
        return Ok(exit::OK);
    }
    let removed = remove(&engine, &found).await;
    for failure in &removed.failed {
        eprintln!("warning: cannot remove {failure}");
    }
    let mut images = if args.images { format!(" and {} image(s)", removed.images) } else { String::new() };
    if removed.services > 0 {
        images = format!(", {} service(s){images}", removed.services);
    }
    println!("removed {} container(s){images} of {what}", removed.containers);
    Ok(if removed.failed.is_empty() { exit::OK } else { exit::SOME_FAILED })
}
