//! The header and edit views of a patch, kept under this path for their callers: the patch
//! model lives in [`crate::patch`].

pub use crate::patch::{changed_files, file_sections, AddedLine, FileChange, SectionEdits};
