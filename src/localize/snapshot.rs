//! Base-commit file contents: the [`Snapshot`] trait the localizer reads pre-images through,
//! an in-memory implementation (tests, benchmarks, callers that already hold the files) and one
//! over a checked-out directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Read access to the repository at the base commit.
///
/// `path` is relative to the repository root, `/`-separated, and has already been checked to
/// stay inside the repository. `Ok(None)` means the file does not exist at the base commit;
/// `Err` is a failure to read (it makes the patch's localization fail with that message).
pub trait Snapshot {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String>;
}

impl<T: Snapshot + ?Sized> Snapshot for &T {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        (**self).read(path)
    }
}

impl<T: Snapshot + ?Sized> Snapshot for Box<T> {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        (**self).read(path)
    }
}

/// A snapshot held in memory: path → contents.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemorySnapshot {
    pub files: BTreeMap<String, Vec<u8>>,
}

impl MemorySnapshot {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) one file.
    pub fn insert(&mut self, path: impl Into<String>, contents: impl Into<Vec<u8>>) {
        self.files.insert(path.into(), contents.into());
    }
}

impl<P: Into<String>, C: Into<Vec<u8>>> FromIterator<(P, C)> for MemorySnapshot {
    fn from_iter<I: IntoIterator<Item = (P, C)>>(iter: I) -> Self {
        MemorySnapshot { files: iter.into_iter().map(|(p, c)| (p.into(), c.into())).collect() }
    }
}

impl Snapshot for MemorySnapshot {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        Ok(self.files.get(path).cloned())
    }
}

/// A snapshot read from a directory holding the repository checked out at the base commit.
///
/// A symbolic link reads as its target path, the way git stores it, so a link never leads the
/// localizer outside the checkout.
#[derive(Debug, Clone)]
pub struct DirSnapshot {
    root: PathBuf,
}

impl DirSnapshot {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        DirSnapshot { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Snapshot for DirSnapshot {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        let full = self.root.join(path);
        let meta = match std::fs::symlink_metadata(&full) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot stat {}: {e}", full.display())),
        };
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&full).map_err(|e| format!("cannot read link {}: {e}", full.display()))?;
            return Ok(Some(target.to_string_lossy().into_owned().into_bytes()));
        }
        if !meta.is_file() {
            return Ok(None);
        }
        std::fs::read(&full).map(Some).map_err(|e| format!("cannot read {}: {e}", full.display()))
    }
}
