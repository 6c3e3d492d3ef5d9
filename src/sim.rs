//! Batch simulation: many complete games with built-in bots, spread over threads, for every game
//! of the contract ([`crate::contract`]).
//!
//! Game `k` of a batch with seed `s` is dealt from seed `SplitMix64::nth_output(s, k)` (the k-th
//! output of a generator at `s`), and the bot at seat `p` draws from its own stream
//! `nth_output(game_seed ^ G::BOT_STREAM, p)`. Results therefore depend only on `(s, k)`, never
//! on the thread count or on how rayon splits the batch.

use rayon::prelude::*;

use crate::bots::{BotGame, BotKind, Seat};
use crate::contract::{GameState, RecordedGame, MAX_PLAYERS};
use crate::error::{EngineError, RulesError, StateError};
use crate::interrupt::{Interrupt, NEVER};
use crate::rng::SplitMix64;

/// A game the batch simulator plays: every built-in bot plays it, in tasks of a few games.
pub trait SimGame: BotGame {
    /// Games in one task of a batch simulation (a game is cheap or not). Each game's value is
    /// set in [`crate::games`].
    const BATCH_CHUNK: usize;
}

/// The outcome of one simulated game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub winner: u8,
    /// Rounds (Panda Head: hands) played.
    pub rounds: u32,
    pub decisions: u32,
    /// Final scores; `scores[..players]`.
    pub scores: [u32; MAX_PLAYERS],
    /// The round (counted from 1, as `rounds`) at whose end each seat left the game
    /// ([`GameState::left_the_game`]: Panda Head's Pooped Pandas); 0 for a seat that stayed to
    /// the end (the winner, and everyone in a climbing game). `left[..players]`.
    pub left: [u32; MAX_PLAYERS],
}

/// The seed of game `index` in a batch started with `seed`.
#[inline]
pub fn game_seed(seed: u64, index: u64) -> u64 {
    SplitMix64::nth_output(seed, index)
}

/// Play one complete game dealt from `seed`, one bot per seat.
pub fn play_game<G: BotGame>(
    players: u8,
    seed: u64,
    settings: &G::Settings,
    bots: &[BotKind],
) -> Result<Outcome, EngineError> {
    play_game_until::<G>(players, seed, settings, bots, &NEVER)
        .map(|o| o.expect("NEVER is never set"))
}

/// [`play_game`] that gives up (`Ok(None)`) once `stop` is set. Only games with a search bot
/// poll it between decisions (and the search between iterations): any other game ends in
/// microseconds.
pub fn play_game_until<G: BotGame>(
    players: u8,
    seed: u64,
    settings: &G::Settings,
    bots: &[BotKind],
    stop: &Interrupt,
) -> Result<Option<Outcome>, EngineError> {
    let mut table = Bare(G::new(players, seed, settings)?);
    play_on(&mut table, seed, bots, stop)
}

/// The JSON record (the format of the game's `to_json`) of the game [`play_game`] plays with
/// these arguments, move for move: the same deal, the same bot seeds. `Ok(None)` once `stop` is
/// set. Costs a history entry per move, then the JSON text.
pub fn game_record<R>(
    players: u8,
    seed: u64,
    settings: &<R::State as GameState>::Settings,
    bots: &[BotKind],
    stop: &Interrupt,
) -> Result<Option<String>, EngineError>
where
    R: RecordedGame,
    R::State: BotGame,
{
    let mut table = Kept(R::new(players, seed, settings)?);
    if play_on(&mut table, seed, bots, stop)?.is_none() {
        return Ok(None);
    }
    table.0.to_json().map(Some)
}

/// What a game is played on: the bare position (batch statistics) or the game with its history
/// (records). Both apply the same legal moves, so the games are the same.
trait Table<G: GameState> {
    fn state(&self) -> &G;
    fn play(&mut self, mv: &G::Move) -> Result<Option<G::RoundEnd>, EngineError>;
}

/// The bare position.
struct Bare<G>(G);

impl<G: GameState> Table<G> for Bare<G> {
    #[inline]
    fn state(&self) -> &G {
        &self.0
    }
    #[inline]
    fn play(&mut self, mv: &G::Move) -> Result<Option<G::RoundEnd>, EngineError> {
        self.0.apply_legal(mv)
    }
}

/// The game with its history.
struct Kept<R>(R);

impl<R: RecordedGame> Table<R::State> for Kept<R> {
    fn state(&self) -> &R::State {
        self.0.state()
    }
    fn play(
        &mut self,
        mv: &<R::State as GameState>::Move,
    ) -> Result<Option<<R::State as GameState>::RoundEnd>, EngineError> {
        self.0.apply_legal(mv)
    }
}

/// Play the game on `table` (dealt from `seed`) to its end with one bot per seat.
fn play_on<G: BotGame, T: Table<G>>(
    table: &mut T,
    seed: u64,
    bots: &[BotKind],
    stop: &Interrupt,
) -> Result<Option<Outcome>, EngineError> {
    let settings = table.state().settings_of();
    let mut seats: Vec<Seat<G>> = bots
        .iter()
        .enumerate()
        .map(|(p, k)| {
            Seat::new(
                k,
                SplitMix64::nth_output(seed ^ G::BOT_STREAM, p as u64),
                settings,
            )
        })
        .collect::<Result<_, _>>()?;
    // Only search bots watch every move; the random/heuristic loop stays lean.
    let observers = seats.iter().any(Seat::is_search);
    let mut buf = Vec::with_capacity(64);
    let mut outcome = Outcome::default();
    while let Some(seat) = table.state().current_player() {
        let state = table.state();
        let Some(bot) = seats.get_mut(seat as usize) else {
            return Err(RulesError(format!("no bot for seat {seat}")).into());
        };
        let pick = bot.choose_until(state, &mut buf, stop)?;
        let mv = pick.get(&buf);
        if observers {
            if stop.is_set() {
                return Ok(None);
            }
            for s in seats.iter_mut() {
                s.observe(state, mv);
            }
        }
        if let Some(end) = table.play(mv)? {
            outcome.rounds += 1;
            let mut gone = G::left_the_game(&end);
            while gone != 0 {
                outcome.left[gone.trailing_zeros() as usize] = outcome.rounds;
                gone &= gone - 1;
            }
            if outcome.rounds >= G::MAX_ROUNDS && !table.state().is_over() {
                return Err(StateError(format!(
                    "game with seed {seed} did not end within {} {}",
                    G::MAX_ROUNDS,
                    G::ROUNDS_NAME
                ))
                .into());
            }
        }
        outcome.decisions += 1;
    }
    let state = table.state();
    outcome.winner = state
        .winner()
        .ok_or_else(|| StateError("a finished game without a winner".into()))?;
    let scores = state.scores();
    outcome.scores[..scores.len()].copy_from_slice(scores);
    Ok(Some(outcome))
}

/// Play one round (hand) of a game dealt from `seed` with uniform random bots; the number of
/// decisions made. The unit of the "hands per second" benchmarks.
pub fn play_round<G: BotGame>(
    players: u8,
    seed: u64,
    settings: &G::Settings,
) -> Result<u32, EngineError> {
    let mut state = G::new(players, seed, settings)?;
    let mut rng = SplitMix64::new(seed ^ G::BOT_STREAM);
    let mut buf = Vec::new();
    let mut decisions = 0;
    loop {
        let pick = state.random_move(&mut rng, &mut buf)?;
        decisions += 1;
        if state.apply_legal(pick.get(&buf))?.is_some() || state.is_over() {
            return Ok(decisions);
        }
    }
}

/// Play `rounds` independent random rounds (round `k` dealt from [`game_seed`]`(seed, k)`) on
/// the calling thread; the total number of decisions.
pub fn simulate_rounds<G: BotGame>(
    rounds: usize,
    players: u8,
    settings: &G::Settings,
    seed: u64,
) -> Result<u64, EngineError> {
    simulate_rounds_until::<G>(rounds, players, settings, seed, &NEVER)
        .map(|d| d.expect("NEVER is never set"))
}

/// [`simulate_rounds`] that gives up (`Ok(None)`) once `stop` is set, polled between rounds.
pub fn simulate_rounds_until<G: BotGame>(
    rounds: usize,
    players: u8,
    settings: &G::Settings,
    seed: u64,
    stop: &Interrupt,
) -> Result<Option<u64>, EngineError> {
    G::validate(players, settings)?;
    let mut decisions = 0u64;
    for k in 0..rounds {
        if stop.is_set() {
            return Ok(None);
        }
        decisions += play_round::<G>(players, game_seed(seed, k as u64), settings)? as u64;
    }
    Ok(Some(decisions))
}

/// Play games `first_game .. first_game + games` of the batch started with `seed`, in parallel
/// over `threads` threads (all cores when `None`). Deterministic for a given seed whatever the
/// thread count, and splitting a batch into consecutive chunks gives the same games.
#[allow(clippy::too_many_arguments)]
pub fn simulate<G: SimGame>(
    first_game: u64,
    games: usize,
    players: u8,
    settings: &G::Settings,
    bots: &[BotKind],
    seed: u64,
    threads: Option<usize>,
) -> Result<Vec<Outcome>, EngineError> {
    simulate_until::<G>(
        first_game, games, players, settings, bots, seed, threads, &NEVER,
    )
    .map(|o| o.expect("NEVER is never set"))
}

/// [`simulate`] that stops within one game per thread (a search bot: within a few search
/// iterations) once `stop` is set, returning `Ok(None)`: a batch is complete or not returned.
#[allow(clippy::too_many_arguments)]
pub fn simulate_until<G: SimGame>(
    first_game: u64,
    games: usize,
    players: u8,
    settings: &G::Settings,
    bots: &[BotKind],
    seed: u64,
    threads: Option<usize>,
    stop: &Interrupt,
) -> Result<Option<Vec<Outcome>>, EngineError> {
    G::validate(players, settings)?;
    check_bots(players, bots)?;
    check_policies::<G>(settings, bots)?;
    run_batch(
        first_game,
        games,
        seed,
        threads,
        G::BATCH_CHUNK,
        stop,
        |game_seed| play_game_until::<G>(players, game_seed, settings, bots, stop),
    )
}

/// The JSON records of games `first_game .. first_game + games` of the batch started with
/// `seed`, in game order: the games [`simulate`] plays (see [`game_record`]).
#[allow(clippy::too_many_arguments)]
pub fn records_until<R>(
    first_game: u64,
    games: usize,
    players: u8,
    settings: &<R::State as GameState>::Settings,
    bots: &[BotKind],
    seed: u64,
    threads: Option<usize>,
    stop: &Interrupt,
) -> Result<Option<Vec<String>>, EngineError>
where
    R: RecordedGame,
    R::State: SimGame,
{
    R::State::validate(players, settings)?;
    check_bots(players, bots)?;
    check_policies::<R::State>(settings, bots)?;
    // Recording costs several times a bare game: smaller tasks.
    let chunk = (<R::State as SimGame>::BATCH_CHUNK / 4).clamp(1, 8);
    run_batch(first_game, games, seed, threads, chunk, stop, |game_seed| {
        game_record::<R>(players, game_seed, settings, bots, stop)
    })
}

/// Check that every `neural` bot's policy plays this game, before any game starts (each seat
/// checks again when created, for callers that play single games).
pub fn check_policies<G: BotGame>(
    settings: &G::Settings,
    bots: &[BotKind],
) -> Result<(), EngineError> {
    for bot in bots {
        bot.policy_for::<G>(settings)?;
    }
    Ok(())
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
    fn batch_sizes_are_checked_before_allocating() {
        assert!(check_batch(0, MAX_BATCH_GAMES + 1).is_err());
        assert!(check_batch(u64::MAX, 2).is_err());
        assert!(check_batch(u64::MAX - 2, 2).is_ok());
        let r = run_batch(0, 1, 0, Some(100_000), 1, &NEVER, |s| Ok(Some(s)));
        assert!(matches!(r, Err(EngineError::Rules(_))));
    }

    #[test]
    fn a_batch_is_the_same_whatever_the_threads_and_chunks() {
        let play = |s: u64| Ok(Some(s.rotate_left(7)));
        let one = run_batch(0, 500, 9, Some(1), 3, &NEVER, play)
            .unwrap()
            .unwrap();
        let two = run_batch(0, 500, 9, Some(2), 64, &NEVER, play)
            .unwrap()
            .unwrap();
        assert_eq!(one, two);
        let tail = run_batch(100, 400, 9, None, 5, &NEVER, play)
            .unwrap()
            .unwrap();
        assert_eq!(&one[100..], &tail[..]);
        assert_eq!(one[7], game_seed(9, 7).rotate_left(7));
    }

    #[test]
    fn refuses_a_wrong_bot_count() {
        assert!(check_bots(3, &[BotKind::Random]).is_err());
        assert!(check_bots(2, &[BotKind::Random, BotKind::Heuristic]).is_ok());
    }
}
