//! Built-in players for every game of the contract ([`crate::contract`]). Each sees the position but
//! uses only what its seat may know (its own hand and the public piles); [`BotKind`] names them
//! for the simulator and the CLI, [`Seat`] plays one of them at one seat.
//!
//! - `random`: uniform over the legal moves ([`crate::contract::GameState::random_move`]; Panda Head
//!   draws from its action mask, without a list);
//! - `heuristic`: the game's own [`crate::contract::HeuristicPolicy`] (`head/heuristic.rs`,
//!   `climb/heuristic.rs`);
//! - `ismcts`: the search of [`crate::search`];
//! - `neural`: a trained policy ([`crate::nn`]), the one shipped for the game or a file's;
//! - `ismcts+neural`: the search guided by such a policy ([`crate::search::guided`]).

pub mod bot_game;
pub mod decide;
pub mod kind;
pub mod seat;

pub use bot_game::BotGame;
pub use kind::{
    BotKind, Neural, DEFAULT_ISMCTS_ITERATIONS, MAX_GUIDED_ITERATIONS, MAX_ISMCTS_ITERATIONS,
};
pub use seat::Seat;
