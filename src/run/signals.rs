//! SIGINT, SIGTERM and SIGHUP, handled alike: the first one cancels the run (the scheduler stops
//! starting jobs, stops the running ones and removes the run's containers); a second one ends
//! the process at once, saying what may be left and what the next run does about it.
//!
//! The exit code of an interrupted run is 128 + the signal's number (130, 143, 129), as a shell
//! reports a process killed by it.

use std::sync::{Arc, Mutex, OnceLock};

use super::backend::CancellationToken;

/// A signal that stops a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Interrupt,
    Terminate,
    Hangup,
}

impl Signal {
    pub fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
            Signal::Hangup => "SIGHUP",
        }
    }

    fn number(self) -> i32 {
        match self {
            Signal::Interrupt => libc::SIGINT,
            Signal::Terminate => libc::SIGTERM,
            Signal::Hangup => libc::SIGHUP,
        }
    }

    /// 128 + the signal's number.
    pub fn exit_code(self) -> i32 {
        128 + self.number()
    }
}

/// The process's stop signals, as a cancellation token.
#[derive(Clone)]
pub struct Signals {
    token: CancellationToken,
    first: Arc<OnceLock<Signal>>,
    /// Printed when a second signal forces the exit.
    forced_note: Arc<Mutex<String>>,
}

impl Signals {
    /// Starts listening. Must be called inside the async runtime. The token is cancelled by
    /// the first signal (the scheduler may also cancel it to stop a run for another reason).
    pub fn listen(token: CancellationToken) -> std::io::Result<Signals> {
        use tokio::signal::unix::{signal, SignalKind};
        let mut streams = [
            (Signal::Interrupt, signal(SignalKind::interrupt())?),
            (Signal::Terminate, signal(SignalKind::terminate())?),
            (Signal::Hangup, signal(SignalKind::hangup())?),
        ];
        let signals =
            Signals { token, first: Arc::new(OnceLock::new()), forced_note: Arc::new(Mutex::new(String::new())) };
        let listener = signals.clone();
        tokio::spawn(async move {
            loop {
                let received = {
                    let [(a, sa), (b, sb), (c, sc)] = &mut streams;
                    tokio::select! {
                        Some(()) = sa.recv() => *a,
                        Some(()) = sb.recv() => *b,
                        Some(()) = sc.recv() => *c,
                        else => return,
                    }
                };
                if listener.first.set(received).is_ok() {
                    listener.token.cancel();
                    continue;
                }
                let note = listener.forced_note.lock().map(|n| n.clone()).unwrap_or_default();
                eprintln!("\n{} again: forced exit. {note}", received.name());
                std::process::exit(received.exit_code());
            }
        });
        Ok(signals)
    }

    /// The run's cancellation token.
    pub fn token(&self) -> CancellationToken {
        self.token.clone()
    }

    /// The first stop signal, once one came.
    pub fn received(&self) -> Option<Signal> {
        self.first.get().copied()
    }

    /// What to say if a second signal forces the exit before the cleanup is done.
    pub fn set_forced_note(&self, note: String) {
        if let Ok(mut n) = self.forced_note.lock() {
            *n = note;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_are_128_plus_the_signal() {
        assert_eq!(Signal::Interrupt.exit_code(), 130);
        assert_eq!(Signal::Terminate.exit_code(), 143);
        assert_eq!(Signal::Hangup.exit_code(), 129);
    }
}
