//! Batch simulation of climbing games with the built-in bots, in parallel, deterministic per seed.
//!
//! As for Panda Head ([`crate::sim`]): game `k` of a batch with seed `s` is dealt from
//! `SplitMix64::nth_output(s, k)` and the bot at seat `p` draws from its own stream derived from
//! that game seed, so results depend only on `(s, k)`, never on threads or chunking.

use super::moves::{Move, MAX_PLAYERS};
use super::rules::ClimbSettings;
use super::state::ClimbState;
use crate::bots::climb_heuristic::ClimbHeuristicBot;
use crate::bots::climb_random::ClimbRandomBot;
use crate::bots::{BotKind, ClimbBot};
use crate::error::{EngineError, StateError};
use crate::rng::SplitMix64;
use crate::search::climb::ClimbIsmctsBot;
use crate::search::SearchSettings;
use crate::sim::{check_bots, run_batch};

/// Separates the bots' random streams from the deal's.
const BOT_STREAM: u64 = 0xC11B_C11B_C11B_C11B;
/// A game that has not ended after this many rounds is reported as an error instead of looping
/// (RULES.md has no move limit, reading 34; bots end games in a handful of rounds).
pub const MAX_ROUNDS: u32 = 10_000;

/// The outcome of one simulated game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClimbOutcome {
    pub winner: u8,
    pub rounds: u32,
    pub decisions: u32,
    pub scores: [u32; MAX_PLAYERS],
}

/// One seat's bot, without dynamic dispatch in the hot loop.
enum Seat {
    Random(ClimbRandomBot),
    Heuristic(ClimbHeuristicBot),
    Ismcts(Box<ClimbIsmctsBot>),
}

impl Seat {
    fn new(kind: BotKind, seed: u64) -> Self {
        match kind {
            BotKind::Random => Self::Random(ClimbRandomBot::new(seed)),
            BotKind::Heuristic => Self::Heuristic(ClimbHeuristicBot),
            BotKind::Ismcts { iterations } => Self::Ismcts(Box::new(ClimbIsmctsBot::new(
                SearchSettings::climb_default().with_iterations(iterations),
                seed,
            ))),
        }
    }

    #[inline]
    fn choose(&mut self, state: &ClimbState, legal: &[Move]) -> usize {
        match self {
            Self::Random(b) => b.choose(state, legal),
            Self::Heuristic(b) => b.choose(state, legal),
            Self::Ismcts(b) => b.choose(state, legal),
        }
    }
}

/// Play one complete game dealt from `seed`.
pub fn play_climb_game(
    players: u8,
    seed: u64,
    settings: &ClimbSettings,
    bots: &[BotKind],
) -> Result<ClimbOutcome, EngineError> {
    let mut state = ClimbState::new(players, seed, settings.clone())?;
    let mut seats: Vec<Seat> = bots
        .iter()
        .enumerate()
        .map(|(p, &k)| Seat::new(k, SplitMix64::nth_output(seed ^ BOT_STREAM, p as u64)))
        .collect();
    let mut legal = Vec::with_capacity(64);
    // Only search bots watch every move (to know who still holds a wind).
    let observers = seats.iter().any(|s| matches!(s, Seat::Ismcts(_)));
    let mut outcome = ClimbOutcome::default();
    while let Some(seat) = state.current_player() {
        state.legal_moves_into(&mut legal);
        let i = seats[seat as usize].choose(&state, &legal);
        if observers {
            for s in seats.iter_mut() {
                if let Seat::Ismcts(b) = s {
                    b.observe(&state, &legal[i]);
                }
            }
        }
        state.apply_legal(&legal[i]);
        outcome.decisions += 1;
        if state.round() > MAX_ROUNDS {
            return Err(StateError(format!(
                "game with seed {seed} did not end within {MAX_ROUNDS} rounds"
            ))
            .into());
        }
    }
    outcome.winner = state
        .winner()
        .expect("the loop ends only when the game is over");
    outcome.rounds = state.round();
    outcome.scores[..players as usize].copy_from_slice(state.scores());
    Ok(outcome)
}

/// Play games `first_game .. first_game + games` of the batch started with `seed`, in parallel
/// over `threads` threads (all cores when `None`).
#[allow(clippy::too_many_arguments)]
pub fn simulate_climb(
    first_game: u64,
    games: usize,
    players: u8,
    settings: &ClimbSettings,
    bots: &[BotKind],
    seed: u64,
    threads: Option<usize>,
) -> Result<Vec<ClimbOutcome>, EngineError> {
    settings.validate_for(players)?;
    check_bots(players, bots)?;
    run_batch(first_game, games, seed, threads, 16, |game_seed| {
        play_climb_game(players, game_seed, settings, bots)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::climb::rules::{Mood, Preset};

    #[test]
    fn deterministic_whatever_the_thread_count() {
        for settings in [
            ClimbSettings::preset(Preset::Year),
            ClimbSettings::preset(Preset::Year).with_mood(Mood::Flip),
            ClimbSettings::preset(Preset::Spin),
        ] {
            let bots = [BotKind::Random, BotKind::Heuristic, BotKind::Random];
            let one = simulate_climb(0, 40, 3, &settings, &bots, 9, Some(1)).unwrap();
            let two = simulate_climb(0, 40, 3, &settings, &bots, 9, Some(2)).unwrap();
            assert_eq!(one, two);
            let tail = simulate_climb(10, 30, 3, &settings, &bots, 9, None).unwrap();
            assert_eq!(&one[10..], &tail[..]);
            assert!(one.iter().all(|g| g.rounds >= 1 && (g.winner as usize) < 3));
        }
    }

    #[test]
    fn refuses_bad_requests() {
        let s = ClimbSettings::default();
        assert!(matches!(
            simulate_climb(0, 1, 3, &s, &[BotKind::Random], 0, Some(1)),
            Err(EngineError::Rules(_))
        ));
        assert!(matches!(
            simulate_climb(0, 1, 6, &s, &[BotKind::Random; 6], 0, Some(1)),
            Err(EngineError::Rules(_))
        ));
    }
}
