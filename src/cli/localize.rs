//! `verdict localize`: localization scores, with no Docker.
#[derive(Debug, Clone, clap::Args)]
pub struct LocalizeArgs {}
pub fn run(_args: LocalizeArgs) -> anyhow::Result<i32> {
    Err(super::common::fail(super::exit::INTERNAL, "verdict localize is not built yet"))
}
