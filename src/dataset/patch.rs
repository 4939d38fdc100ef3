//! The header view of a patch, kept under this path for its callers: the patch model lives in
//! [`crate::patch`].

pub use crate::patch::{changed_files, FileChange};
