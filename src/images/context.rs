//! Docker build contexts, made in code as tar archives.
//!
//! A context is a Dockerfile plus named files, and for the instance layer the repository
//! snapshot (a `git archive` tar) re-rooted under `repo/`. Entries are written in a fixed order
//! with fixed metadata, so the same inputs always give the same bytes. The snapshot's files keep
//! the date `git archive` gives them, the commit's time: files dated 1970 break builds (Maven's
//! resource copying, maven-filtering 3.2.0 in gson's build, fails on them with
//! `NoSuchFileException`).

use std::io::Read;

/// A file to put in a build context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    pub path: String,
    pub bytes: Vec<u8>,
    pub mode: u32,
}

impl ContextFile {
    pub fn new(path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        Self { path: path.into(), bytes: bytes.into(), mode: 0o644 }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    #[error("cannot write build context entry {path}: {source}")]
    Write { path: String, source: std::io::Error },
    #[error("repository snapshot is not a valid tar archive: {0}")]
    Snapshot(std::io::Error),
}

/// Builds a context tar: `Dockerfile`, then `files` sorted by path, then the snapshot's entries
/// under `repo/` (when given).
pub fn build_context(
    dockerfile: &str,
    files: &[ContextFile],
    snapshot_tar: Option<&[u8]>,
) -> Result<Vec<u8>, ContextError> {
    let mut builder = tar::Builder::new(Vec::new());
    builder.mode(tar::HeaderMode::Deterministic);
    append(&mut builder, "Dockerfile", dockerfile.as_bytes(), 0o644)?;
    let mut sorted: Vec<&ContextFile> = files.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    for file in sorted {
        append(&mut builder, &file.path, &file.bytes, file.mode)?;
    }
    if let Some(snapshot) = snapshot_tar {
        append_snapshot(&mut builder, snapshot)?;
    }
    builder.into_inner().map_err(|source| ContextError::Write { path: "<end>".into(), source })
}

/// The earliest modification time a repository file in `/testbed` gets (1980-01-02 00:00:00
/// UTC). Files carry their commit's time, as `git archive` gives it, so the context's bytes
/// depend on the commit only and tools that compare dates see real ones (Maven's resource
/// copying fails on files dated 1970); never before 1980, which ZIP cannot store (a build
/// backend that zips the files, flit's editable wheels, fails on the epoch).
pub const SNAPSHOT_MTIME: u64 = 315_619_200;

fn append(builder: &mut tar::Builder<Vec<u8>>, path: &str, bytes: &[u8], mode: u32) -> Result<(), ContextError> {
    let mut header = tar::Header::new_gnu();
    header.set_size(bytes.len() as u64);
    header.set_mode(mode);
    header.set_mtime(0);
    header.set_entry_type(tar::EntryType::Regular);
    builder.append_data(&mut header, path, bytes).map_err(|source| ContextError::Write { path: path.into(), source })
}

/// Copies every entry of a `git archive` tar under `repo/`, keeping symlinks and modes. The
/// `repo/` folder itself is always present, so `COPY repo/` works for an empty repository.
fn append_snapshot(builder: &mut tar::Builder<Vec<u8>>, snapshot: &[u8]) -> Result<(), ContextError> {
    let mut dir = tar::Header::new_gnu();
    dir.set_entry_type(tar::EntryType::Directory);
    dir.set_mode(0o755);
    dir.set_size(0);
    dir.set_mtime(SNAPSHOT_MTIME);
    builder
        .append_data(&mut dir, "repo/", std::io::empty())
        .map_err(|source| ContextError::Write { path: "repo/".into(), source })?;
    let mut archive = tar::Archive::new(snapshot);
    for entry in archive.entries().map_err(ContextError::Snapshot)? {
        let mut entry = entry.map_err(ContextError::Snapshot)?;
        let kind = entry.header().entry_type();
        if kind == tar::EntryType::XGlobalHeader || kind == tar::EntryType::XHeader {
            continue; // git archive's pax comment holding the commit id
        }
        let path = entry.path().map_err(ContextError::Snapshot)?.to_string_lossy().into_owned();
        let target = format!("repo/{path}");
        // git archive dates every entry by the commit's time; that stays, from 1980 on.
        let mut header = entry.header().clone();
        let committed = header.mtime().unwrap_or(0);
        header.set_mtime(committed.max(SNAPSHOT_MTIME));
        if kind == tar::EntryType::Symlink {
            let link = entry.link_name().map_err(ContextError::Snapshot)?.unwrap_or_default().into_owned();
            builder
                .append_link(&mut header, &target, link)
                .map_err(|source| ContextError::Write { path: target.clone(), source })?;
            continue;
        }
        let mut data = Vec::with_capacity(entry.size() as usize);
        entry.read_to_end(&mut data).map_err(ContextError::Snapshot)?;
        builder
            .append_data(&mut header, &target, data.as_slice())
            .map_err(|source| ContextError::Write { path: target.clone(), source })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(tar_bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
        let mut archive = tar::Archive::new(tar_bytes);
        archive
            .entries()
            .unwrap()
            .map(|e| {
                let mut e = e.unwrap();
                let path = e.path().unwrap().to_string_lossy().into_owned();
                let mut data = Vec::new();
                e.read_to_end(&mut data).unwrap();
                (path, data)
            })
            .collect()
    }

    const COMMIT_TIME: u64 = 1_650_000_000;

    fn snapshot() -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_size(6);
        h.set_mode(0o755);
        h.set_mtime(COMMIT_TIME);
        b.append_data(&mut h, "pkg/run.sh", &b"echo 1"[..]).unwrap();
        let mut l = tar::Header::new_gnu();
        l.set_entry_type(tar::EntryType::Symlink);
        l.set_size(0);
        b.append_link(&mut l, "link", "pkg/run.sh").unwrap();
        b.into_inner().unwrap()
    }

    #[test]
    fn context_holds_dockerfile_files_and_rerooted_snapshot() {
        let files = vec![ContextFile::new("install.sh", "pip install -e ."), ContextFile::new("certs/a.crt", "CERT")];
        let tar_bytes = build_context("FROM x\n", &files, Some(&snapshot())).unwrap();
        let got = entries(&tar_bytes);
        let names: Vec<&str> = got.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, ["Dockerfile", "certs/a.crt", "install.sh", "repo/", "repo/pkg/run.sh", "repo/link"]);
        assert_eq!(got[0].1, b"FROM x\n");
        assert_eq!(got[4].1, b"echo 1");

        let mut archive = tar::Archive::new(tar_bytes.as_slice());
        for e in archive.entries().unwrap() {
            let e = e.unwrap();
            let path = e.path().unwrap().to_string_lossy().into_owned();
            if path == "repo/pkg/run.sh" {
                assert_eq!(e.header().mode().unwrap() & 0o777, 0o755);
                assert_eq!(e.header().mtime().unwrap(), COMMIT_TIME, "the commit's time, not 1970");
            }
            if path == "install.sh" {
                assert_eq!(e.header().mtime().unwrap(), 0, "verdict's own files have a fixed date");
            }
            if path == "repo/link" {
                assert_eq!(e.link_name().unwrap().unwrap().to_string_lossy(), "pkg/run.sh");
            }
            if path == "repo/link" || path == "repo/" {
                // Dated before 1980 in the snapshot (or not at all): ZIP, and so a wheel built
                // from /testbed, cannot hold a time before 1980.
                assert_eq!(e.header().mtime().unwrap(), SNAPSHOT_MTIME, "{path}");
            }
        }
    }

    #[test]
    fn same_inputs_give_same_bytes() {
        let files = vec![ContextFile::new("b", "2"), ContextFile::new("a", "1")];
        let one = build_context("FROM x", &files, Some(&snapshot())).unwrap();
        let reversed: Vec<ContextFile> = files.iter().rev().cloned().collect();
        let two = build_context("FROM x", &reversed, Some(&snapshot())).unwrap();
        assert_eq!(one, two);
    }

    #[test]
    fn broken_snapshot_is_an_error() {
        let err =
            build_context("FROM x", &[], Some(b"not a tar archive at all, just some bytes".repeat(20).as_slice()));
        assert!(err.is_err());
    }
}
