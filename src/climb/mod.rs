//! The climbing games of RULES.md Part S: Year of the Panda (`year`) and Panda Spin (`spin`).
//!
//! - [`cards`]: card ids, suits, ranks and 128-bit card sets (S-1)
//! - [`deck`]: the card table as data: load, validate, compile (S-2, docs/deck_schema.md)
//! - [`combo`]: classification (S-4), beating (S-5) and element conditions (S-2.3)
//! - [`moves`]: the move record and its canonical order (contract §5.1)
//! - [`movegen`]: legal combinations of a hand by rank windows (contract §5.2)
//! - [`rules`]: presets and settings (S-12)
//! - [`notation`]: move notation and its parser (contract §8)

pub mod cards;
pub mod combo;
pub mod deck;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod rules;

pub use combo::{beats, classify, condition_holds, Combo, Shape};
pub use deck::{Condition, Deck, Face};
pub use moves::{Kind, Move, Ranks, Steal, MAX_PLAYERS};
pub use rules::{ClimbSettings, Mood, Preset};
