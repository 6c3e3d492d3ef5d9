//! The games of the binding: one line each.
//!
//! A game's binding file (`games/head.rs`, `games/climb.rs`, declared here) holds its conversions (the game, move and rules
//! classes, reading an `apply()` argument) and its extras, and declares its vector-env class
//! ([`crate::py::vecenv::vector_env_class!`]). Everything else is generated here from one entry
//! per game: the batch functions ([`crate::py::sim::batch_functions!`]) and the registration of
//! the game's classes and functions in the module.

use pyo3::prelude::*;

use crate::contract::Learned;
use crate::nn::shipped::ShippedFile;
use crate::nn::PolicyShape;
use crate::py::game_class::StateOf;

mod climb;
mod head;

/// `module: GameClass, SeatClass, VectorEnvClass, "title", "rounds column", simulate_fn,
/// records_fn;` per game.
macro_rules! games {
    ($($module:ident: $game:ident, $seat:ident, $env:ident, $title:literal, $rounds:literal,
       $simulate:ident, $records:ident;)+) => {
        $(
            crate::py::sim::batch_functions!(
                $module::$game, $title, $rounds, $simulate, $records
            );
        )+

        /// What a policy file naming `game` (its `"game"`) must be to play the game that names
        /// its policies so (`None`: no game does).
        pub fn policy_shape(game: &str) -> Option<PolicyShape> {
            $({
                type State = StateOf<$module::$game>;
                if let Some(settings) = <State as Learned>::policy_settings(game) {
                    return Some(<State as Learned>::policy_shape(&settings));
                }
            })+
            None
        }

        /// Every game's shipped policy files, in the order of the games here.
        pub fn shipped_policies() -> Vec<ShippedFile> {
            let mut files = Vec::new();
            $(
                files.extend_from_slice(
                    <StateOf<$module::$game> as Learned>::SHIPPED_POLICIES,
                );
            )+
            files
        }

        /// Every game name policy files use, in the order of the games here.
        pub fn policy_games() -> Vec<&'static str> {
            let mut names = Vec::new();
            $(
                names.extend_from_slice(<StateOf<$module::$game> as Learned>::POLICY_GAMES);
            )+
            names
        }

        /// Register every game's classes and functions.
        pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(
                $module::register(m)?;
                m.add_class::<$module::$game>()?;
                m.add_class::<$module::$seat>()?;
                m.add_class::<$module::$env>()?;
                m.add_function(wrap_pyfunction!($simulate, m)?)?;
                m.add_function(wrap_pyfunction!($records, m)?)?;
            )+
            Ok(())
        }
    };
}

games! {
    head: PyHeadGame, PyHeadSeat, PyHeadVectorEnv, "Panda Head", "hands", simulate_head_batch, head_batch_records;
    climb: PyClimbGame, PyClimbSeat, PyClimbVectorEnv, "climbing", "rounds", simulate_climb_batch, climb_batch_records;
}
