//! Files written whole or not at all: the bytes go to a temporary file in the same folder,
//! which is then renamed over the target. A process killed mid-write leaves the old file (or
//! none), never a file cut in half. (No fsync: the rename guards against a killed process,
//! which is the fault verdict meets; a power cut may still lose the newest reports, and a
//! rerun redoes them.)

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically, making its folder first.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(folder)?;
    let mut file = tempfile::Builder::new().prefix(".verdict-tmp-").tempfile_in(folder)?;
    file.write_all(bytes)?;
    // A temporary file is private (0600); the report is as readable as any file verdict writes.
    std::fs::set_permissions(file.path(), std::os::unix::fs::PermissionsExt::from_mode(0o644))?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn replaces_the_file_and_leaves_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/report.json");
        super::write(&path, b"first").unwrap();
        super::write(&path, b"second").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
        let names: Vec<_> =
            std::fs::read_dir(path.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("report.json")]);
    }
}
