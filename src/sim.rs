//! Batch simulation: many complete games with built-in bots, spread over threads.
//!
//! Game `k` of a batch with seed `s` is dealt from seed `SplitMix64::nth_output(s, k)` (the k-th
//! output of a generator at `s`), and the bot at seat `p` draws from its own stream derived from
//! that game seed. Results therefore depend only on `(s, k)`, never on the thread count or on how
//! rayon splits the batch.

use rayon::prelude::*;

use crate::bots::head_heuristic::HeuristicBot;
use crate::bots::random::RandomBot;
use crate::bots::{BotKind, HeadBot};
use crate::error::{EngineError, RulesError};
use crate::head::{HeadRules, HeadState, MAX_PLAYERS};
use crate::rng::SplitMix64;
use crate::search::head::HeadIsmctsBot;
use crate::search::SearchSettings;

/// Separates the bots' random streams from the deal's.
const BOT_STREAM: u64 = 0xB075_B075_B075_B075;
/// A Panda Head game that has not ended after this many hands is reported as an error instead of
/// looping forever. (With `own_card` and Poor Panda, points can in principle cancel out hand after
/// hand; random play ends games in a few dozen hands.)
pub const MAX_HANDS: u32 = 100_000;

/// The outcome of one simulated game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameOutcome {
    pub winner: u8,
    pub hands: u32,
    pub decisions: u32,
    pub scores: [u32; MAX_PLAYERS],
}

/// One seat's bot, without dynamic dispatch in the hot loop.
enum Seat {
    Random(RandomBot),
    Heuristic(HeuristicBot),
    Ismcts(Box<HeadIsmctsBot>),
}

impl Seat {
    fn new(kind: BotKind, seed: u64) -> Self {
        match kind {
            BotKind::Random => Self::Random(RandomBot::new(seed)),
            BotKind::Heuristic => Self::Heuristic(HeuristicBot),
            BotKind::Ismcts { iterations } => Self::Ismcts(Box::new(HeadIsmctsBot::new(
                SearchSettings::head_default().with_iterations(iterations),
                seed,
            ))),
        }
    }
}

/// The seed of game `index` in a batch started with `seed`.
#[inline]
pub fn game_seed(seed: u64, index: u64) -> u64 {
    SplitMix64::nth_output(seed, index)
}

/// Play one complete Panda Head game.
pub fn play_head_game(
    players: u8,
    seed: u64,
    rules: HeadRules,
    bots: &[BotKind],
) -> Result<GameOutcome, EngineError> {
    let mut state = HeadState::new(players, seed, rules)?;
    let mut seats: Vec<Seat> = bots
        .iter()
        .enumerate()
        .map(|(p, &k)| Seat::new(k, SplitMix64::nth_output(seed ^ BOT_STREAM, p as u64)))
        .collect();
    // Only search bots watch every action; the random/heuristic loop stays as it was.
    let observers = seats.iter().any(|s| matches!(s, Seat::Ismcts(_)));
    let mut outcome = GameOutcome::default();
    while let Some(seat) = state.current_player() {
        let legal = state.legal_actions();
        let action = match &mut seats[seat as usize] {
            Seat::Random(b) => b.pick(legal),
            Seat::Heuristic(b) => b.choose(&state, legal),
            Seat::Ismcts(b) => b.choose(&state, legal),
        };
        if observers {
            for s in seats.iter_mut() {
                if let Seat::Ismcts(b) = s {
                    b.observe(&state, action);
                }
            }
        }
        if state.apply_legal(action)?.is_some() {
            outcome.hands += 1;
            if outcome.hands >= MAX_HANDS && !state.is_over() {
                return Err(EngineError::State(crate::error::StateError(format!(
                    "game with seed {seed} did not end within {MAX_HANDS} hands"
                ))));
            }
        }
        outcome.decisions += 1;
    }
    outcome.winner = state
        .winner()
        .expect("the loop ends only when the game is over");
    outcome.scores[..players as usize].copy_from_slice(state.scores());
    Ok(outcome)
}

/// Play one hand (7 piles) of a game dealt from `seed`, with uniform random bots; the number of
/// decisions made. The unit of the "hands per second" benchmarks.
pub fn play_head_hand(players: u8, seed: u64, rules: HeadRules) -> Result<u32, EngineError> {
    let mut state = HeadState::new(players, seed, rules)?;
    let mut bot = RandomBot::new(seed ^ BOT_STREAM);
    let mut decisions = 0;
    loop {
        let legal = state.legal_actions();
        decisions += 1;
        if state.apply_legal(bot.pick(legal))?.is_some() {
            return Ok(decisions);
        }
    }
}

/// Play `hands` independent random hands (hand `k` dealt from [`game_seed`]`(seed, k)`) on the
/// calling thread; the total number of decisions.
pub fn simulate_head_hands(
    hands: usize,
    players: u8,
    rules: HeadRules,
    seed: u64,
) -> Result<u64, EngineError> {
    rules.validate_for(players)?;
    let mut decisions = 0u64;
    for k in 0..hands {
        decisions += play_head_hand(players, game_seed(seed, k as u64), rules)? as u64;
    }
    Ok(decisions)
}

/// Check a simulation request before any work starts.
pub fn check_bots(players: u8, bots: &[BotKind]) -> Result<(), RulesError> {
    if bots.len() != players as usize {
        return Err(RulesError(format!(
            "need one bot per player: {players} players, {} bots",
            bots.len()
        )));
    }
    Ok(())
}

/// Play games `first_game .. first_game + games` of the batch started with `seed`, in parallel
/// over `threads` threads (all cores when `None`). Deterministic for a given seed whatever the
/// thread count, and splitting a batch into consecutive chunks gives the same games.
#[allow(clippy::too_many_arguments)]
pub fn simulate_head(
    first_game: u64,
    games: usize,
    players: u8,
    rules: HeadRules,
    bots: &[BotKind],
    seed: u64,
    threads: Option<usize>,
) -> Result<Vec<GameOutcome>, EngineError> {
    rules.validate_for(players)?;
    check_bots(players, bots)?;
    run_batch(first_game, games, seed, threads, 64, |game_seed| {
        play_head_game(players, game_seed, rules, bots)
    })
}

/// Run `play(game_seed(seed, k))` for `k` in `first_game .. first_game + games` over `threads`
/// threads (all cores when `None`), results in game order. Shared by every game's batch
/// simulator; `min_len` is the smallest chunk worth a task (games are cheap or not).
pub fn run_batch<T, F>(
    first_game: u64,
    games: usize,
    seed: u64,
    threads: Option<usize>,
    min_len: usize,
    play: F,
) -> Result<Vec<T>, EngineError>
where
    T: Send,
    F: Fn(u64) -> Result<T, EngineError> + Sync,
{
    let run = || {
        (0..games)
            .into_par_iter()
            .with_min_len(min_len)
            .map(|k| play(game_seed(seed, first_game + k as u64)))
            .collect::<Result<Vec<_>, _>>()
    };
    match threads {
        None => run(),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build()
            .map_err(|e| EngineError::Rules(RulesError(format!("cannot start {n} threads: {e}"))))?
            .install(run),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_whatever_the_thread_count() {
        let bots = [
            BotKind::Random,
            BotKind::Heuristic,
            BotKind::Random,
            BotKind::Random,
        ];
        let one = simulate_head(0, 300, 4, HeadRules::default(), &bots, 9, Some(1)).unwrap();
        let two = simulate_head(0, 300, 4, HeadRules::default(), &bots, 9, Some(2)).unwrap();
        assert_eq!(one, two);
        let tail = simulate_head(100, 200, 4, HeadRules::default(), &bots, 9, None).unwrap();
        assert_eq!(&one[100..], &tail[..]);
        assert!(one.iter().all(|g| g.hands > 0 && (g.winner as usize) < 4));
    }

    #[test]
    fn refuses_wrong_bot_count() {
        let r = simulate_head(
            0,
            1,
            3,
            HeadRules::default(),
            &[BotKind::Random],
            0,
            Some(1),
        );
        assert!(matches!(r, Err(EngineError::Rules(_))));
    }
}
