//! The `verdict` binary: parse the command line, run, exit with a documented code.

use clap::Parser;

fn main() {
    // Output piped into `head` and closed early ends the process quietly, as for other tools.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let filter = tracing_subscriber::EnvFilter::try_from_env("VERDICT_LOG").unwrap_or_else(|_| "warn".into());
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init();
    let cli = verdict::cli::Cli::parse();
    std::process::exit(verdict::cli::run(cli));
}
