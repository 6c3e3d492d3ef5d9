//! Panda Head (docs/rules/head.md): a trick-taking game for 2–5 players.
//!
//! - [`cards`]: card ids and bitboards (H-1)
//! - [`rules`]: the H-7 variants
//! - [`action`]: the fixed 24-id action space and its notation
//! - [`legal`]: legal-move generation (H-3, H-4)
//! - [`state`]: dealing, piles, scoring and the end of the game (H-2 … H-6)
//! - [`game`]: a state with its start, history and hand results
//! - [`event`]: what each move did, per-seat filtered (H-3 … H-6)
//! - [`mod@move_info`]: the cards a move takes and its value, before it is played (H-1.4, H-4)
//! - [`view`], [`snapshot`]: what a seat may see; the complete state and its checked rebuild
//! - [`determinize`]: full states sampled from one player's knowledge (for search)
//! - [`contract`]: the shared game contract ([`crate::contract`]) for the state and the game
//! - [`heuristic`]: the built-in rule-of-thumb player
//! - [`random`]: the uniform random pick from an action mask
//! - [`search_value`]: what ISMCTS needs (information sets, the value of a rollout)
//! - [`record`]: the JSON game record

pub mod action;
pub mod cards;
pub mod contract;
pub mod determinize;
pub mod event;
pub mod heuristic;
pub mod legal;
pub mod move_info;
pub mod neural;
pub mod observation;
pub mod random;
pub mod record;
pub mod recorded;
pub mod rules;
pub mod search_value;
pub mod snapshot;
pub mod state;
pub mod view;

pub use action::{Action, ActionId, ActionMask, NUM_ACTIONS};
pub use contract::MAX_HANDS;
pub use event::HeadEvent;
pub use move_info::{move_info, MoveInfo};
pub use recorded::{HeadGame, Start, Step};
pub use rules::{HeadRules, LastPileScoring};
pub use snapshot::HeadSnapshot;
pub use state::{Deal, HandResult, HeadState, Play, MAX_PLAYERS};
pub use view::HeadView;
