//! panda-core: fast, exact engines for the panda card games.
//!
//! The core crate has no Python dependency: `cargo test`, benches and fuzz targets run without an
//! interpreter. The PyO3 binding layer lives in [`py`] behind the `python` feature.
//!
//! - [`event`]: per-move events and the sinks state machines report them to
//! - [`contract`]: the contract every game implements ([`contract::GameState`], the recorded
//!   [`contract::RecordedGame`]) and the capabilities beside it
//! - [`games`]: the games of the crate, and what the generic consumers tune per game
//! - [`rng`]: SplitMix64 and the shuffle every implementation shares (Part R, docs/rules/)
//! - [`head`]: Panda Head (Part H)
//! - [`climb`]: the climbing games `year` and `spin` (Part S)
//! - [`bots`]: built-in players, for every game of the contract
//! - [`nn`]: trained policies (policy files, the dense network's forward pass), game-agnostic
//! - [`search`]: determinization-based search (ISMCTS), for every game of the contract
//! - [`seat`]: one seat's information in a recorded game: what a bot is handed
//! - [`sim`]: batch simulation over many games, in parallel, deterministic per seed
//! - [`vecenv`]: batched RL environments: N games stepped in one call
//! - [`interrupt`]: cooperative cancellation of long work (Ctrl-C from Python)
//! - [`pool`]: the shared, bounded worker pools behind every `threads` argument
//! - [`user_file`]: reading a file a user named: regular, bounded, never blocking
//!
//! Layers, each importing only those below it: the shared base (`rng`, `error`, `event`,
//! `interrupt`, `pool`, `record`, `user_file`, `nn`, `contract`, `seat`) → the games (`head`, `climb`) →
//! the generic consumers (`search` → `bots` → `sim`; `vecenv`) → the game list (`games`) → the
//! binding (`py`).

pub mod bots;
pub mod card;
pub mod climb;
pub mod contract;
pub mod error;
pub mod event;
pub mod games;
pub mod head;
pub mod interrupt;
pub mod nn;
pub mod pool;
pub mod record;
pub mod rng;
pub mod search;
pub mod seat;
pub mod sim;
pub mod user_file;
pub mod vecenv;

#[cfg(feature = "python")]
mod py;

pub use error::{EngineError, IllegalMove, PolicyError, RulesError, StateError};
