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
use crate::head::{ActionId, HeadGame, HeadRules, HeadState, MAX_PLAYERS};
use crate::interrupt::{Interrupt, NEVER};
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
    play_head_game_until(players, seed, rules, bots, &NEVER).map(|o| o.expect("NEVER is never set"))
}

/// [`play_head_game`] that gives up (`Ok(None)`) once `stop` is set. Only games with a search
/// bot poll it between decisions (and the search between iterations): any other game ends in
/// microseconds.
pub fn play_head_game_until(
    players: u8,
    seed: u64,
    rules: HeadRules,
    bots: &[BotKind],
    stop: &Interrupt,
) -> Result<Option<GameOutcome>, EngineError> {
    let mut state = HeadState::new(players, seed, rules)?;
    play_head_on(&mut state, seed, bots, stop)
}

/// The JSON record (the format of `HeadGame.to_json`) of the game [`play_head_game`] plays with
/// these arguments, move for move: the same deal, the same bot seeds. `Ok(None)` once `stop` is
/// set. Costs a checked apply and a history entry per move, then the JSON text.
pub fn head_game_record(
    players: u8,
    seed: u64,
    rules: HeadRules,
    bots: &[BotKind],
    stop: &Interrupt,
) -> Result<Option<String>, EngineError> {
    let mut game = HeadGame::new(players, seed, rules)?;
    if play_head_on(&mut game, seed, bots, stop)?.is_none() {
        return Ok(None);
    }
    Ok(Some(crate::head::record::to_json(&game)?))
}

/// What a game is played on: the bare state (batch statistics) or a game with its history
/// (records). Both apply the same legal actions, so the games are the same.
trait HeadTable {
    fn state(&self) -> &HeadState;
    /// Apply a legal action; whether it ended a hand.
    fn play(&mut self, action: ActionId) -> Result<bool, EngineError>;
}

impl HeadTable for HeadState {
    #[inline]
    fn state(&self) -> &HeadState {
        self
    }
    #[inline]
    fn play(&mut self, action: ActionId) -> Result<bool, EngineError> {
        Ok(self.apply_legal(action)?.is_some())
    }
}

impl HeadTable for HeadGame {
    fn state(&self) -> &HeadState {
        HeadGame::state(self)
    }
    fn play(&mut self, action: ActionId) -> Result<bool, EngineError> {
        let hands = self.hand_results().len();
        self.apply(action)?;
        Ok(self.hand_results().len() > hands)
    }
}

/// Play the game on `table` (dealt from `seed`) to its end with one bot per seat.
fn play_head_on<T: HeadTable>(
    table: &mut T,
    seed: u64,
    bots: &[BotKind],
    stop: &Interrupt,
) -> Result<Option<GameOutcome>, EngineError> {
    let mut seats: Vec<Seat> = bots
        .iter()
        .enumerate()
        .map(|(p, &k)| Seat::new(k, SplitMix64::nth_output(seed ^ BOT_STREAM, p as u64)))
        .collect();
    // Only search bots watch every action; the random/heuristic loop stays as it was.
    let observers = seats.iter().any(|s| matches!(s, Seat::Ismcts(_)));
    let mut outcome = GameOutcome::default();
    while let Some(seat) = table.state().current_player() {
        let state = table.state();
        let legal = state.legal_actions();
        let action = match &mut seats[seat as usize] {
            Seat::Random(b) => b.pick(legal),
            Seat::Heuristic(b) => b.choose(state, legal),
            Seat::Ismcts(b) => b.choose_until(state, legal, stop),
        };
        if observers {
            if stop.is_set() {
                return Ok(None);
            }
            for s in seats.iter_mut() {
                if let Seat::Ismcts(b) = s {
                    b.observe(state, action);
                }
            }
        }
        if table.play(action)? {
            outcome.hands += 1;
            if outcome.hands >= MAX_HANDS && !table.state().is_over() {
                return Err(EngineError::State(crate::error::StateError(format!(
                    "game with seed {seed} did not end within {MAX_HANDS} hands"
                ))));
            }
        }
        outcome.decisions += 1;
    }
    let state = table.state();
    outcome.winner = state
        .winner()
        .expect("the loop ends only when the game is over");
    let players = state.players() as usize;
    outcome.scores[..players].copy_from_slice(state.scores());
    Ok(Some(outcome))
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
    simulate_head_hands_until(hands, players, rules, seed, &NEVER)
        .map(|d| d.expect("NEVER is never set"))
}

/// [`simulate_head_hands`] that gives up (`Ok(None)`) once `stop` is set, polled between hands.
pub fn simulate_head_hands_until(
    hands: usize,
    players: u8,
    rules: HeadRules,
    seed: u64,
    stop: &Interrupt,
) -> Result<Option<u64>, EngineError> {
    rules.validate_for(players)?;
    let mut decisions = 0u64;
    for k in 0..hands {
        if stop.is_set() {
            return Ok(None);
        }
        decisions += play_head_hand(players, game_seed(seed, k as u64), rules)? as u64;
    }
    Ok(Some(decisions))
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

/// Most games one batch call plays (its results are held in memory, 36 bytes a game); longer
/// runs go in consecutive chunks (`first_game`), which give the same games.
pub const MAX_BATCH_GAMES: usize = 1 << 32;

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
    simulate_head_until(
        first_game, games, players, rules, bots, seed, threads, &NEVER,
    )
    .map(|o| o.expect("NEVER is never set"))
}

/// [`simulate_head`] that stops within one game per thread (a search bot: within a few search
/// iterations) once `stop` is set, returning `Ok(None)`: a batch is complete or not returned.
#[allow(clippy::too_many_arguments)]
pub fn simulate_head_until(
    first_game: u64,
    games: usize,
    players: u8,
    rules: HeadRules,
    bots: &[BotKind],
    seed: u64,
    threads: Option<usize>,
    stop: &Interrupt,
) -> Result<Option<Vec<GameOutcome>>, EngineError> {
    rules.validate_for(players)?;
    check_bots(players, bots)?;
    run_batch(first_game, games, seed, threads, 64, stop, |game_seed| {
        play_head_game_until(players, game_seed, rules, bots, stop)
    })
}

/// The JSON records of games `first_game .. first_game + games` of the batch started with
/// `seed`, in game order: the games [`simulate_head`] plays (see [`head_game_record`]).
#[allow(clippy::too_many_arguments)]
pub fn head_records_until(
    first_game: u64,
    games: usize,
    players: u8,
    rules: HeadRules,
    bots: &[BotKind],
    seed: u64,
    threads: Option<usize>,
    stop: &Interrupt,
) -> Result<Option<Vec<String>>, EngineError> {
    rules.validate_for(players)?;
    check_bots(players, bots)?;
    run_batch(first_game, games, seed, threads, 8, stop, |game_seed| {
        head_game_record(players, game_seed, rules, bots, stop)
    })
}

/// Check the size of a batch request before anything is allocated: at most
/// [`MAX_BATCH_GAMES`] games, and game indices that fit in a `u64`.
pub fn check_batch(first_game: u64, games: usize) -> Result<(), RulesError> {
    if games > MAX_BATCH_GAMES {
        return Err(RulesError(format!(
            "one batch plays at most {MAX_BATCH_GAMES} games, got {games}; play longer runs in \
             chunks (first_game)"
        )));
    }
    if first_game.checked_add(games as u64).is_none() {
        return Err(RulesError(format!(
            "game indices must stay below 2**64: first_game {first_game} + {games} games"
        )));
    }
    Ok(())
}

/// Results initialised between two polls of the interrupt (a few milliseconds of memory writes).
const FILL_SLICE: usize = 1 << 18;

/// Why a batch ended early.
enum Halt {
    Stopped,
    Failed(EngineError),
}

/// Run `play(game_seed(seed, k))` for `k` in `first_game .. first_game + games` over `threads`
/// threads (all cores when `None`), results in game order; `Ok(None)` once `stop` is set (polled
/// before every game; `play` may poll it too). Shared by every game's batch simulator; `min_len`
/// is the number of games in one task (games are cheap or not).
///
/// The results are allocated fallibly and filled in place: a batch too large for memory is a
/// [`RulesError`], never an abort, and no intermediate copy doubles the peak.
pub fn run_batch<T, F>(
    first_game: u64,
    games: usize,
    seed: u64,
    threads: Option<usize>,
    min_len: usize,
    stop: &Interrupt,
    play: F,
) -> Result<Option<Vec<T>>, EngineError>
where
    T: Send + Clone + Default,
    F: Fn(u64) -> Result<Option<T>, EngineError> + Sync,
{
    check_batch(first_game, games)?;
    let mut results: Vec<T> = Vec::new();
    results.try_reserve_exact(games).map_err(|_| {
        RulesError(format!(
            "not enough memory for the results of {games} games ({} bytes each)",
            std::mem::size_of::<T>()
        ))
    })?;
    // Filled a slice at a time so that a stop during the (page-faulting) fill of a huge batch
    // is seen at once too.
    while results.len() < games {
        if stop.is_set() {
            return Ok(None);
        }
        let next = games.min(results.len() + FILL_SLICE);
        results.resize(next, T::default());
    }
    let min_len = min_len.max(1);
    let fill = |(c, chunk): (usize, &mut [T])| -> Result<(), Halt> {
        for (i, slot) in chunk.iter_mut().enumerate() {
            if stop.is_set() {
                return Err(Halt::Stopped);
            }
            let k = first_game + (c * min_len + i) as u64;
            match play(game_seed(seed, k)) {
                Ok(Some(outcome)) => *slot = outcome,
                Ok(None) => return Err(Halt::Stopped),
                Err(e) => return Err(Halt::Failed(e)),
            }
        }
        Ok(())
    };
    let run = || {
        results
            .par_chunks_mut(min_len)
            .enumerate()
            .try_for_each(fill)
    };
    match crate::pool::install(threads, run)? {
        Ok(()) => Ok(Some(results)),
        Err(Halt::Stopped) => Ok(None),
        Err(Halt::Failed(e)) => Err(e),
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
    fn records_replay_the_batch_games() {
        let bots = [
            BotKind::Random,
            BotKind::Heuristic,
            BotKind::Ismcts { iterations: 5 },
        ];
        let rules = HeadRules::default();
        let outcomes = simulate_head(4, 6, 3, rules, &bots, 21, Some(2)).unwrap();
        let records = head_records_until(4, 6, 3, rules, &bots, 21, Some(2), &NEVER)
            .unwrap()
            .unwrap();
        for (o, r) in outcomes.iter().zip(&records) {
            let game = crate::head::record::from_json(r).unwrap();
            assert_eq!(game.state().winner(), Some(o.winner));
            assert_eq!(game.state().scores(), &o.scores[..3]);
            assert_eq!(game.history().len(), o.decisions as usize);
        }
    }

    #[test]
    fn a_set_interrupt_stops_a_batch_and_a_search() {
        let stop = Interrupt::new();
        stop.stop();
        let bots = [
            BotKind::Ismcts {
                iterations: 1_000_000,
            },
            BotKind::Random,
        ];
        let r = simulate_head_until(0, 1000, 2, HeadRules::default(), &bots, 1, Some(2), &stop);
        assert_eq!(r.unwrap(), None);
        // A search stopped at once still answers with a legal action (one iteration).
        let game = HeadGame::new(4, 3, HeadRules::default()).unwrap();
        let a = crate::search::head::ismcts_action_until(&game, 1_000_000, 0, &stop);
        assert!(game.state().legal_actions() & (1 << a) != 0);
    }

    #[test]
    fn batch_sizes_are_checked_before_allocating() {
        let bots = [BotKind::Random, BotKind::Random];
        let r = simulate_head(
            0,
            MAX_BATCH_GAMES + 1,
            2,
            HeadRules::default(),
            &bots,
            0,
            None,
        );
        assert!(matches!(r, Err(EngineError::Rules(_))));
        let r = simulate_head(u64::MAX, 2, 2, HeadRules::default(), &bots, 0, None);
        assert!(matches!(r, Err(EngineError::Rules(_))));
        let r = simulate_head(0, 1, 2, HeadRules::default(), &bots, 0, Some(100_000));
        assert!(matches!(r, Err(EngineError::Rules(_))));
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
