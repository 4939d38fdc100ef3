//! The one error a command ends with, and the exit code it ends the process with
//! ([`Error::exit_code`]; the codes are in [`super::exit`] and the README). Errors from the
//! layers below convert with `?`, each to the code its kind documents.

use std::path::Path;

use crate::dataset::spec::SpecError;
use crate::dataset::LoadError;
use crate::engine::EngineError;
use crate::images::build::OsImageError;
use crate::report::ReportError;

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
    Engine(#[from] EngineError),
    /// No base OS image can be had (exit 3).
    #[error(transparent)]
    OsImage(#[from] OsImageError),
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
            Error::Engine(_) | Error::OsImage(_) => exit::ENGINE,
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

impl From<LoadError> for Error {
    fn from(e: LoadError) -> Self {
        // Boxed: a load error carries its file, place and message, and is rare.
        Error::Load(Box::new(e))
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
        let engine = Error::from(EngineError::Unreachable { host: "unix:///x".into(), reason: "gone".into() });
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
