//! Search-based players: single-observer ISMCTS ([`ismcts`]), written once for every game of the
//! contract ([`game_search`]: a game's [`crate::contract::Determinize`] samples the information set,
//! its [`crate::contract::SearchValue`] values a rollout), and the same tree guided by a trained
//! policy's priors and values ([`guided`], the `ismcts+neural` bot).
//!
//! ## Choices made by measurement
//!
//! Measured with `examples/ismcts_tune.rs` (seat 0 searches against three heuristic bots, 4
//! players, 2 threads, release build; win rates with 95% intervals; a seat wins 25% by chance):
//!
//! | game | rollout | horizon | iterations | win rate | ms / decision |
//! |------|---------|---------|-----------:|---------:|--------------:|
//! | head | heuristic | hand | 200 | 0.53 ± 0.06 | 0.24 |
//! | head | random    | hand | 200 | 0.19 ± 0.05 | 0.20 |
//! | head | random    | hand | 600 | 0.18 ± 0.04 | 0.96 |
//! | head | heuristic | game | 50  | 0.05 ± 0.03 | 0.72 |
//! | head | heuristic | game | 200 | 0.26 ± 0.05 | 2.95 |
//! | head | heuristic | hand | 1000 | 0.66 ± 0.05 | 1.71 |
//! | year | heuristic | round | 200 | 0.78 ± 0.07 | 7.0 |
//! | year | random    | round | 200 | 0.71 ± 0.08 | 4.4 |
//! | year | random    | round | 320 | 0.78 ± 0.08 | (contended) |
//! | year | heuristic | game | 50  | 0.18 ± 0.07 | 4.6 |
//! | spin | heuristic | round | 200 | 0.62 ± 0.09 | (contended) |
//! | spin | random    | round | 300 | 0.65 ± 0.09 | (contended) |
//!
//! - **Horizon: the hand / round.** Rolling out to the end of the game is far weaker at any
//!   fixed time: a whole game of cheap play after one decision is mostly noise (future deals,
//!   dozens of hands), so a few hundred rollouts cannot tell moves apart, and each costs many
//!   times more. The end of the hand (Head: only pile 7 scores) or the round (climbing: show-out
//!   points) is where a decision's consequences are decided; the games' value functions
//!   (`head/search_value.rs`, `climb/search_value.rs`) turn them into `[0, 1]` and count a game won or lost within the horizon fully.
//! - **Rollout policy.** Panda Head: the heuristic, by far (random rollouts waste the hand on
//!   moves nobody makes, and more of them do not help). Climbing games: random and heuristic are
//!   even at equal time (the heuristic is stronger per iteration but about 1.6x slower), so the
//!   default is the cheaper random rollout.
//!
//! With the defaults, `examples/ismcts_eval.rs` (the batch simulators, seed 2024, 2 threads;
//! `cargo run --release --example ismcts_eval -- GAME GAMES 2 ismcts B1 B2 B3`) gives seat 0:
//!
//! | game (games) | vs 3 heuristic | vs 3 random | vs heuristic + 2 random |
//! |--------------|---------------:|------------:|------------------------:|
//! | head (1000)  | 0.613 ± 0.030 | 0.990 ± 0.006 | 0.748 ± 0.027 |
//! | year (300)   | 0.670 ± 0.053 | 0.973 ± 0.018 | 0.707 ± 0.052 |
//! | spin (300)   | 0.550 ± 0.056 | 0.983 ± 0.014 | 0.680 ± 0.053 |
//!
//! - **Iterations: 200** by default for every game. Then 1000 four-player games with one ISMCTS
//!   seat take about 12 s for Panda Head and about 2 minutes for `year` or `spin` on 2 cores.

pub mod game_search;
pub mod guided;
pub mod ismcts;
pub mod settings;

pub use crate::contract::{Horizon, Rollout};
pub use game_search::{
    ismcts_move, ismcts_move_until, ismcts_stats_until, GameSearch, IsmctsBot, Searchable,
};
pub use guided::{
    guided_move_until, guided_root_stats_until, GuidedBot, GuidedConfig, GuidedSearch, LateChild,
    MoveValues,
};
pub use ismcts::{search, search_stats, IsmctsConfig, RootStat, SearchGame};
pub use settings::SearchSettings;

#[cfg(test)]
mod tests {
    use super::ismcts::index_below;
    use super::*;
    use crate::rng::SplitMix64;

    /// A toy game with hidden information: the root player picks 0..3, then a hidden coin
    /// (sampled by the determinization) decides the payoff. Action 1 is best on average.
    struct Toy;
    #[derive(Clone)]
    struct ToyState {
        coin: bool,
        pick: Option<u8>,
    }
    impl SearchGame for Toy {
        type State = ToyState;
        type Action = u8;
        fn determinize(&mut self, rng: &mut SplitMix64) -> ToyState {
            ToyState {
                coin: index_below(rng, 2) == 1,
                pick: None,
            }
        }
        fn to_move(&self, s: &ToyState) -> Option<u8> {
            s.pick.is_none().then_some(0)
        }
        fn legal(&self, _s: &ToyState, out: &mut Vec<u8>) {
            out.clear();
            out.extend([0, 1, 2]);
        }
        fn apply(&self, s: &mut ToyState, a: &u8) {
            s.pick = Some(*a);
        }
        fn value(&self, s: &ToyState, _player: u8) -> f64 {
            match (s.pick, s.coin) {
                (Some(0), true) => 1.0, // 0.5 on average
                (Some(1), _) => 0.7,
                (Some(2), false) => 0.9, // 0.45 on average
                _ => 0.0,
            }
        }
    }

    #[test]
    fn toy_search_finds_the_best_expected_action_deterministically() {
        let config = IsmctsConfig {
            iterations: 2000,
            ..IsmctsConfig::default()
        };
        let stats = search_stats(&mut Toy, 0, &config);
        assert_eq!(stats[0].action, 1, "{stats:?}");
        assert_eq!(stats.iter().map(|s| s.visits).sum::<u32>(), 2000);
        assert_eq!(search_stats(&mut Toy, 0, &config), stats);
    }
}
