//! The one error a command ends with, and the exit code it ends the process with
//! ([`Error::exit_code`]; the codes are in [`super::exit`] and the README). Errors from the
//! layers below convert with `?`, each to the code its kind documents.

use std::path::Path;

use crate::dataset::spec::SpecError;
use crate::dataset::LoadError;
use crate::engine::ConnectError;
use crate::images::build::OsImageError;
use crate::report::ReportError;
use crate::run::session::SessionError;

use super::exit;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A dataset, predictions or ranked-locations file that cannot be used (exit 2), or the
    /// completed dataset that cannot be written (exit 1).
    #[error(transparent)]
    Load(Box<LoadError>),
    /// A harness spec that cannot be used (exit 2).
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// Bad input the message names: a flag, an instance id, a run that does not exist (exit 2).
    #[error("{0}")]
    BadInput(String),
    /// The Docker engine cannot be reached (exit 3).
    #[error(transparent)]
    Engine(Box<ConnectError>),
    /// The engine went away during the run, or could not be asked what the run left (exit 3).
    #[error("{0}")]
    EngineLost(String),
    /// No base OS image can be had (exit 3).
    #[error(transparent)]
    OsImage(Box<OsImageError>),
    /// The command finished, but some instances did not get what was asked of them (exit 4).
    #[error("{0}")]
    SomeFailed(String),
    /// A report that cannot be written (exit 1).
    #[error(transparent)]
    Report(#[from] ReportError),
    /// A file or folder verdict cannot read or write (exit 1).
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
    /// verdict itself failed (exit 1).
    #[error("{0}")]
    Internal(String),
}

impl Error {
    /// The process exit code this error ends a command with.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Load(e) if matches!(**e, LoadError::Write { .. }) => exit::INTERNAL,
            Error::Load(_) | Error::Spec(_) | Error::BadInput(_) => exit::BAD_INPUT,
            Error::Engine(_) | Error::EngineLost(_) | Error::OsImage(_) => exit::ENGINE,
            Error::SomeFailed(_) => exit::SOME_FAILED,
            Error::Report(_) | Error::Io { .. } | Error::Internal(_) => exit::INTERNAL,
        }
    }

    pub fn bad_input(message: impl Into<String>) -> Self {
        Error::BadInput(message.into())
    }

    /// "cannot <verb> <path>: <why>".
    pub fn io(verb: &str, path: &Path, source: std::io::Error) -> Self {
        Error::Io { what: format!("cannot {verb} {}", path.display()), source }
    }
}

impl From<SessionError> for Error {
    /// A run that cannot be opened: the engine did not answer the sweep (exit 3), or the logs
    /// folder cannot be written or is locked by another process (exit 2).
    fn from(e: SessionError) -> Self {
        if e.is_engine() {
            Error::EngineLost(e.to_string())
        } else {
            Error::BadInput(e.to_string())
        }
    }
}

// Boxed: these carry files, places, messages or an engine error, and are rare.
impl From<LoadError> for Error {
    fn from(e: LoadError) -> Self {
        Error::Load(Box::new(e))
    }
}

impl From<ConnectError> for Error {
    fn from(e: ConnectError) -> Self {
        Error::Engine(Box::new(e))
    }
}

impl From<OsImageError> for Error {
    fn from(e: OsImageError) -> Self {
        Error::OsImage(Box::new(e))
    }
}

/// What every command returns: the exit code when it finished, the error otherwise.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_documented_exit_code_and_message() {
        let path = std::path::PathBuf::from("d.jsonl");
        let load = Error::from(LoadError::Read { path: path.clone(), source: std::io::ErrorKind::NotFound.into() });
        assert_eq!((load.exit_code(), load.to_string().starts_with("cannot read d.jsonl")), (exit::BAD_INPUT, true));
        let write = Error::from(LoadError::Write { path, source: std::io::ErrorKind::PermissionDenied.into() });
        assert_eq!(write.exit_code(), exit::INTERNAL);
        let engine = Error::from(ConnectError { host: "unix:///x".into(), reason: "gone".into(), source: None });
        assert_eq!(engine.exit_code(), exit::ENGINE);
        assert!(engine.to_string().contains("dockerfiles/engine.sh"), "{engine}");
        assert_eq!(Error::bad_input("--repeat must be at least 1").to_string(), "--repeat must be at least 1");
        assert_eq!(Error::bad_input("x").exit_code(), exit::BAD_INPUT);
        assert_eq!(Error::SomeFailed("2 instance(s) have no image".into()).exit_code(), exit::SOME_FAILED);
        let io = Error::io("write", Path::new("logs/s.json"), std::io::ErrorKind::PermissionDenied.into());
        assert_eq!(io.exit_code(), exit::INTERNAL);
        assert!(io.to_string().starts_with("cannot write logs/s.json: "), "{io}");
    }
}
