//! Small arithmetic and text helpers.

pub mod arith;
pub mod text;
