//! `verdict localize`: localization scores, with no Docker.
