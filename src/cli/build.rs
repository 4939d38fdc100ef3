//! `verdict build`: build (or reuse) every image of a dataset, nothing else.

use std::collections::BTreeMap;

use clap::Args;

use super::common;
use super::error::{Error, Result};
use super::{exit, DatasetArgs, ImageArgs};
use crate::images::build::ImageError;
use crate::run::plan;

#[derive(Debug, Clone, Args)]
pub struct BuildArgs {
    #[command(flatten)]
    pub dataset: DatasetArgs,
    /// Rebuild every layer from scratch.
    #[arg(long)]
    pub no_cache: bool,
    #[command(flatten)]
    pub images: ImageArgs,
}

pub async fn run(args: BuildArgs) -> Result<i32> {
    let loaded = common::load_dataset(&args.dataset, &args.images.logs)?;
    crate::run::session::ensure_writable(&args.images.logs)?;
    let engine = common::connect().await?;
    let labels = std::collections::HashMap::from([(crate::engine::OWNER_LABEL.to_string(), "1".to_string())]);
    let (builder, planner) = common::builder(&engine, &loaded, &args.images, args.no_cache, labels).await?;

    let mut failed = 0;
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for instance in &loaded.instances {
        let prepared = match plan(&loaded.specs, &planner, instance) {
            Ok(p) => p,
            Err(reason) => {
                failed += 1;
                println!("{:<40} cannot plan: {reason}", instance.instance_id);
                continue;
            }
        };
        let tag = prepared.images.instance.tag.clone();
        if let Some(status) = seen.get(&tag) {
            println!("{:<40} {tag} {status}", instance.instance_id);
            continue;
        }
        let status = match builder.ensure(&prepared.images).await {
            Ok(built) => {
                let installed = builder.installed_toolchains(&prepared.images.base).await;
                let tools: Vec<String> = crate::images::toolchain::records(&prepared.images.toolchains, &installed)
                    .iter()
                    .map(|t| format!("{} {} ({})", t.tool, t.installed.as_deref().unwrap_or("?"), t.provider))
                    .collect();
                format!(
                    "{} ({:.1} MB){}",
                    if built.built_now { "built" } else { "reused" },
                    built.size_bytes as f64 / 1e6,
                    if tools.is_empty() { String::new() } else { format!("; {}", tools.join(", ")) }
                )
            }
            Err(ImageError::Build(failure)) => {
                failed += 1;
                format!("FAILED: {failure}")
            }
            Err(ImageError::Engine(e)) => return Err(Error::EngineLost(e.to_string())),
        };
        println!("{:<40} {tag} {status}", instance.instance_id);
        seen.insert(tag, status);
    }
    if failed > 0 {
        return Err(Error::SomeFailed(format!("{failed} instance(s) have no image; see the build logs above")));
    }
    Ok(exit::OK)
}
