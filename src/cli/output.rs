//! Writing the text files a command produces (HTML and JUnit reports, comparisons): the file is
//! written beside its final name and renamed into place, so a reader never sees half of it.

use std::io::Write as _;
use std::path::Path;

use anyhow::Context as _;

/// Writes `text` to `path`, creating its folder, atomically.
pub fn write_text(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut file =
        tempfile::NamedTempFile::new_in(dir).with_context(|| format!("cannot write in {}", dir.display()))?;
    file.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    file.persist(path).map_err(|e| e.error).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
