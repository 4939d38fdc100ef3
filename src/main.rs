//! The `verdict` binary: parse the command line, run, exit with a documented code.

use clap::Parser;

fn main() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("VERDICT_LOG").unwrap_or_else(|_| "warn".into());
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init();
    let cli = verdict::cli::Cli::parse();
    std::process::exit(verdict::cli::run(cli));
}
