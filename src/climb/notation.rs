//! Move notation (contract §8).
use super::moves::Move;
pub fn move_notation(_m: &Move) -> String { String::new() }
