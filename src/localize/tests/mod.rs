//! Unit tests for localization.

mod fixtures;
