//! Batch simulation of climbing games with the built-in bots, in parallel, deterministic per seed.
//!
//! As for Panda Head ([`crate::sim`]): game `k` of a batch with seed `s` is dealt from
//! `SplitMix64::nth_output(s, k)` and the bot at seat `p` draws from its own stream derived from
//! that game seed, so results depend only on `(s, k)`, never on threads or chunking.

use super::game::ClimbGame;
use super::moves::{Move, MAX_PLAYERS};
use super::rules::ClimbSettings;
use super::state::ClimbState;
use crate::bots::climb_heuristic::ClimbHeuristicBot;
use crate::bots::climb_random::ClimbRandomBot;
use crate::bots::{BotKind, ClimbBot};
use crate::error::{EngineError, StateError};
use crate::interrupt::{Interrupt, NEVER};
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
    fn choose(&mut self, state: &ClimbState, legal: &[Move], stop: &Interrupt) -> usize {
        match self {
            Self::Random(b) => b.choose(state, legal),
            Self::Heuristic(b) => b.choose(state, legal),
            Self::Ismcts(b) => b.choose_until(state, legal, stop),
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
    play_climb_game_until(players, seed, settings, bots, &NEVER)
        .map(|o| o.expect("NEVER is never set"))
}

/// [`play_climb_game`] that gives up (`Ok(None)`) once `stop` is set, polled between decisions
/// (and by a search bot between iterations).
pub fn play_climb_game_until(
    players: u8,
    seed: u64,
    settings: &ClimbSettings,
    bots: &[BotKind],
    stop: &Interrupt,
) -> Result<Option<ClimbOutcome>, EngineError> {
    let mut state = ClimbState::new(players, seed, settings.clone())?;
    play_climb_on(&mut state, seed, bots, stop)
}

/// The JSON record (the format of `ClimbGame.to_json`) of the game [`play_climb_game`] plays
/// with these arguments, move for move. `Ok(None)` once `stop` is set. Costs a history entry per
/// move, then the JSON text.
pub fn climb_game_record(
    players: u8,
    seed: u64,
    settings: &ClimbSettings,
    bots: &[BotKind],
    stop: &Interrupt,
) -> Result<Option<String>, EngineError> {
    let mut game = ClimbGame::new(players, seed, settings.clone())?;
    if play_climb_on(&mut game, seed, bots, stop)?.is_none() {
        return Ok(None);
    }
    Ok(Some(super::record::to_json(&game)))
}

/// What a game is played on: the bare state (batch statistics) or a game with its history
/// (records). Both apply the same legal moves, so the games are the same.
trait ClimbTable {
    fn state(&self) -> &ClimbState;
    /// Apply a move from the position's legal moves.
    fn play(&mut self, mv: &Move);
}

impl ClimbTable for ClimbState {
    #[inline]
    fn state(&self) -> &ClimbState {
        self
    }
    #[inline]
    fn play(&mut self, mv: &Move) {
        self.apply_legal(mv);
    }
}

impl ClimbTable for ClimbGame {
    fn state(&self) -> &ClimbState {
        ClimbGame::state(self)
    }
    fn play(&mut self, mv: &Move) {
        self.apply_legal(mv);
    }
}

/// Play the game on `table` (dealt from `seed`) to its end with one bot per seat.
fn play_climb_on<T: ClimbTable>(
    table: &mut T,
    seed: u64,
    bots: &[BotKind],
    stop: &Interrupt,
) -> Result<Option<ClimbOutcome>, EngineError> {
    let mut seats: Vec<Seat> = bots
        .iter()
        .enumerate()
        .map(|(p, &k)| Seat::new(k, SplitMix64::nth_output(seed ^ BOT_STREAM, p as u64)))
        .collect();
    let mut legal = Vec::with_capacity(64);
    // Only search bots watch every move (to know who still holds a wind).
    let observers = seats.iter().any(|s| matches!(s, Seat::Ismcts(_)));
    let mut outcome = ClimbOutcome::default();
    while let Some(seat) = table.state().current_player() {
        let state = table.state();
        state.legal_moves_into(&mut legal);
        let i = seats[seat as usize].choose(state, &legal, stop);
        if stop.is_set() {
            return Ok(None);
        }
        if observers {
            for s in seats.iter_mut() {
                if let Seat::Ismcts(b) = s {
                    b.observe(state, &legal[i]);
                }
            }
        }
        table.play(&legal[i]);
        outcome.decisions += 1;
        if table.state().round() > MAX_ROUNDS {
            return Err(StateError(format!(
                "game with seed {seed} did not end within {MAX_ROUNDS} rounds"
            ))
            .into());
        }
    }
    let state = table.state();
    let players = state.players() as usize;
    outcome.winner = state
        .winner()
        .expect("the loop ends only when the game is over");
    outcome.rounds = state.round();
    outcome.scores[..players].copy_from_slice(state.scores());
    Ok(Some(outcome))
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
    simulate_climb_until(
        first_game, games, players, settings, bots, seed, threads, &NEVER,
    )
    .map(|o| o.expect("NEVER is never set"))
}

/// [`simulate_climb`] that stops within one decision per thread once `stop` is set, returning
/// `Ok(None)` (as [`crate::sim::simulate_head_until`]).
#[allow(clippy::too_many_arguments)]
pub fn simulate_climb_until(
    first_game: u64,
    games: usize,
    players: u8,
    settings: &ClimbSettings,
    bots: &[BotKind],
    seed: u64,
    threads: Option<usize>,
    stop: &Interrupt,
) -> Result<Option<Vec<ClimbOutcome>>, EngineError> {
    settings.validate_for(players)?;
    check_bots(players, bots)?;
    run_batch(first_game, games, seed, threads, 16, stop, |game_seed| {
        play_climb_game_until(players, game_seed, settings, bots, stop)
    })
}

/// The JSON records of games `first_game .. first_game + games` of the batch started with
/// `seed`, in game order: the games [`simulate_climb`] plays (see [`climb_game_record`]).
#[allow(clippy::too_many_arguments)]
pub fn climb_records_until(
    first_game: u64,
    games: usize,
    players: u8,
    settings: &ClimbSettings,
    bots: &[BotKind],
    seed: u64,
    threads: Option<usize>,
    stop: &Interrupt,
) -> Result<Option<Vec<String>>, EngineError> {
    settings.validate_for(players)?;
    check_bots(players, bots)?;
    run_batch(first_game, games, seed, threads, 4, stop, |game_seed| {
        climb_game_record(players, game_seed, settings, bots, stop)
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
    fn records_replay_the_batch_games() {
        for preset in [Preset::Year, Preset::Spin] {
            let settings = ClimbSettings::preset(preset);
            let bots = [BotKind::Random, BotKind::Heuristic, BotKind::Random];
            let outcomes = simulate_climb(2, 5, 3, &settings, &bots, 8, Some(2)).unwrap();
            let records = climb_records_until(2, 5, 3, &settings, &bots, 8, Some(2), &NEVER)
                .unwrap()
                .unwrap();
            for (o, r) in outcomes.iter().zip(&records) {
                let game = crate::climb::record::from_json(r).unwrap();
                assert_eq!(game.state().winner(), Some(o.winner));
                assert_eq!(game.state().scores(), &o.scores[..3]);
                assert_eq!(game.history().len(), o.decisions as usize);
            }
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
