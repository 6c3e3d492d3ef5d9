//! The climbing games of Part S (docs/rules/): Year of the Panda (`year`) and Panda Spin (`spin`).
//!
//! - [`cards`]: card ids, suits, ranks and 128-bit card sets (S-1)
//! - [`deck`]: the card table as data: load, validate, compile (S-2, docs/deck_schema.md)
//! - [`lanes`]: packed per-rank unit counts, one 8-bit lane per rank
//! - [`shape`]: the shape of a combination from its unit counts (S-4)
//! - [`combo`]: classification (S-4), beating (S-5) and element conditions (S-2.3)
//! - [`moves`]: the move record and its canonical order (contract §5.1)
//! - [`movegen`]: legal combinations of a hand by rank windows (contract §5.2)
//! - [`rules`]: presets and settings (S-12)
//! - [`state`]: setup, the turn procedure, symbols, show-outs, the end (contract §3, §4)
//! - [`legal`]: the legal moves of a position in canonical order (contract §5.2, §5.3)
//! - [`expand`]: panda choices, a combination expanded into its flip or steal moves (S-7.3, S-7.4)
//! - [`diagnose`]: why a move is illegal (the reason of an `IllegalMove` error)
//! - [`notation`]: move notation and the move JSON record (contract §5.1, §8)
//! - [`snapshot`]: the §7 snapshot and the strict rebuild of a position from one
//! - [`event`]: what a move did, as events, and what each seat sees of them (S-11)
//! - [`game`]: a state with its start, history, events and round results
//! - [`record`]: the JSON game record (settings, start, moves)
//! - [`view`]: what one player may see (S-11)
//! - [`observation`]: the fixed-size numeric observation of one player, for agents (S-11)
//! - [`encoding`]: move feature rows and the abstract action index, for agents
//! - [`determinize`]: full states sampled from one player's knowledge (for search)
//! - [`contract`]: the shared game contract ([`crate::contract`]) for the state and the game
//! - [`heuristic`]: the built-in rule-of-thumb player
//! - [`search_value`]: what ISMCTS needs (information sets with the winds, rollout values)

pub mod cards;
pub mod combo;
pub mod contract;
pub mod deck;
pub mod determinize;
pub mod diagnose;
pub mod encoding;
pub mod event;
pub mod expand;
pub mod heuristic;
pub mod lanes;
pub mod legal;
pub mod movegen;
pub mod moves;
pub mod neural;
pub mod notation;
pub mod observation;
pub mod record;
pub mod recorded;
pub mod rules;
pub mod search_value;
pub mod shape;
pub mod snapshot;
pub mod state;
pub mod view;

pub use combo::{beats, classify, condition_holds, Combo, Shape};
pub use contract::{ClimbLegal, MAX_ROUNDS};
pub use deck::{Condition, Deck, Face};
pub use event::ClimbEvent;
pub use movegen::MAX_LEGAL_MOVES;
pub use moves::{Kind, Move, Ranks, Steal, MAX_PLAYERS};
pub use recorded::ClimbGame;
pub use rules::{ClimbSettings, Mood, Preset};
pub use state::{ClimbState, RoundResult, TableCombo};
