//! Batch simulation from Python: the whole batch runs in Rust with the GIL released, stoppable by
//! Ctrl-C ([`super::interrupt`]).

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::args::{players_arg, seed_arg};
use super::args::{threads_arg, Int, Text};
use super::errors::{ArgumentError, IntoPyResult};
use super::game_class::bot_kind;
use super::game_class::{GameClass, SettingsOf, StateOf};
use super::interrupt::{interruptible_if, prepare_numpy};
use crate::bots::{BotKind, MAX_ISMCTS_ITERATIONS};
use crate::contract::{GameState, RecordedGame};
use crate::error::EngineError;
use crate::sim::{
    records_until, simulate_rounds_until, simulate_until, Outcome, SimGame, MAX_BATCH_GAMES,
};

/// A game's two batch functions, `batch_functions!(PyHeadGame, "Panda Head", "hands",
/// simulate_head_batch, head_batch_records)`: the batch simulation (numpy columns, the rounds
/// column named `hands` here) and the JSON records of the same games, both generic over the
/// game's class.
macro_rules! batch_functions {
    ($game:ty, $title:literal, $rounds:literal, $simulate:ident, $records:ident) => {
        #[doc = concat!(
            "Play `games` complete ", $title, " games with built-in bots (one name per seat), GIL \
             released, and return numpy arrays: `winner` (int8, games), `", $rounds, "` and \
             `decisions` (uint32, games), `scores` (uint32, games × players), `left` (uint32, \
             games × players: the ", $rounds, " at whose end each seat left the game, counted \
             from 1; 0 for a seat that stayed). Game `k` is dealt \
             from the k-th output of SplitMix64(seed); `first_game` starts the batch at game \
             `k = first_game`, so chunks of one batch replay exactly. Ctrl-C stops it \
             (`KeyboardInterrupt`, within a game per thread).")]
        #[pyo3::pyfunction]
        #[pyo3(signature = (games, players, bots, seed = None, rules = None, threads = None,
                            first_game = $crate::py::args::Int(0)),
            text_signature = "(games, players, bots, seed=None, rules=None, threads=None, first_game=0)")]
        #[allow(clippy::too_many_arguments)]
        fn $simulate<'py>(
            py: pyo3::Python<'py>,
            games: $crate::py::args::Int,
            players: $crate::py::args::Int,
            bots: Vec<String>,
            seed: Option<&pyo3::Bound<'py, pyo3::PyAny>>,
            rules: Option<<$game as $crate::py::game_class::GameClass>::Rules>,
            threads: Option<$crate::py::args::Int>,
            first_game: $crate::py::args::Int,
        ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyDict>> {
            let (players, args, settings) = $crate::py::sim::batch_args::<$game>(
                players, games, first_game, &bots, seed, rules, threads,
            )?;
            $crate::py::sim::batch::<$crate::py::game_class::StateOf<$game>>(
                py, players, &args, &settings, $rounds,
            )
        }

        #[doc = concat!(
            "The JSON records (the game's `to_json` format) of the games `",
            stringify!($simulate), "` plays with the same arguments, move for move. Each game \
             is played again with its history kept, then encoded: a few times slower than the \
             batch itself; meant for saving or inspecting some games.")]
        #[pyo3::pyfunction]
        #[pyo3(signature = (games, players, bots, seed = None, rules = None, threads = None,
                            first_game = $crate::py::args::Int(0)),
            text_signature = "(games, players, bots, seed=None, rules=None, threads=None, first_game=0)")]
        #[allow(clippy::too_many_arguments)]
        fn $records(
            py: pyo3::Python<'_>,
            games: $crate::py::args::Int,
            players: $crate::py::args::Int,
            bots: Vec<String>,
            seed: Option<&pyo3::Bound<'_, pyo3::PyAny>>,
            rules: Option<<$game as $crate::py::game_class::GameClass>::Rules>,
            threads: Option<$crate::py::args::Int>,
            first_game: $crate::py::args::Int,
        ) -> pyo3::PyResult<Vec<String>> {
            let (players, args, settings) = $crate::py::sim::batch_args::<$game>(
                players, games, first_game, &bots, seed, rules, threads,
            )?;
            $crate::py::sim::records::<<$game as $crate::py::game_class::GameClass>::Core>(
                py, players, &args, &settings,
            )
        }
    };
}

pub(crate) use batch_functions;

/// The arguments of a batch function of game `G`'s class, checked: players, the shared batch
/// arguments and the core settings.
#[allow(clippy::too_many_arguments)]
pub fn batch_args<G: GameClass>(
    players: Int,
    games: Int,
    first_game: Int,
    bots: &[String],
    seed: Option<&Bound<'_, PyAny>>,
    rules: Option<G::Rules>,
    threads: Option<Int>,
) -> PyResult<(u8, BatchArgs, SettingsOf<G>)> {
    let players = players_arg(players, G::NAMED)?;
    let args = BatchArgs::parse(games, first_game, bots, seed, threads)?;
    let settings = rules.map(|r| G::settings_of(&r)).unwrap_or_default();
    Ok((players, args, settings))
}

/// `rounds` independent random rounds of game `G` (round `k` dealt from the k-th output of
/// SplitMix64(seed)) on one thread, GIL released; the number of decisions. Ctrl-C stops a long
/// run.
pub fn random_rounds<G: GameClass>(
    py: Python<'_>,
    rounds: Int,
    players: Int,
    seed: Option<&Bound<'_, PyAny>>,
    rules: Option<G::Rules>,
) -> PyResult<u64>
where
    StateOf<G>: SimGame,
{
    let rounds = rounds.count(<StateOf<G> as GameState>::ROUNDS_NAME, MAX_BATCH_GAMES)?;
    let players = players_arg(players, G::NAMED)?;
    let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
    let settings: SettingsOf<G> = rules.map(|r| G::settings_of(&r)).unwrap_or_default();
    let decisions = interruptible_if(py, rounds >= 256, |stop| {
        simulate_rounds_until::<StateOf<G>>(rounds, players, &settings, seed, stop)
    })?;
    finished(py, decisions)
}

/// The canonical name of a built-in bot (`"ismcts:200"` is `"ismcts"`), or a `RulesError` saying
/// which names exist and which iteration counts `ismcts:N` takes.
#[pyfunction]
fn check_bot(name: Text) -> PyResult<String> {
    bot_kind(&name).map(|k| k.name())
}

/// A player count as every game's constructor checks it (2 to 5, H-2.1 and S-12), for the Python
/// facade's own entry points (tournaments, RL wrappers), so the rule has one home.
#[pyfunction]
fn check_players(players: Int) -> PyResult<u8> {
    players_arg(players, "the games are")
}

/// A seed as every game checks it (R-2: an integer in 0 .. 2**64 - 1), for the Python facade.
#[pyfunction]
fn check_seed(seed: &Bound<'_, PyAny>) -> PyResult<u64> {
    seed_arg(seed)
}

/// Play the batch `args` of game `G` (GIL released, Ctrl-C when long) as the numpy result dict;
/// `rounds_key` names the rounds column (`hands` in Panda Head).
pub fn batch<'py, G: SimGame>(
    py: Python<'py>,
    players: u8,
    args: &BatchArgs,
    settings: &G::Settings,
    rounds_key: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let outcomes = interruptible_if(py, args.long(G::BATCH_CHUNK), |stop| {
        simulate_until::<G>(
            args.first_game,
            args.games,
            players,
            settings,
            &args.bots,
            args.seed,
            args.threads,
            stop,
        )
    })?;
    let outcomes = finished(py, outcomes)?;
    batch_dict(py, players, outcomes.iter(), rounds_key)
}

/// The JSON records of the batch `args` of the recorded game `R` (as [`batch`]).
pub fn records<R>(
    py: Python<'_>,
    players: u8,
    args: &BatchArgs,
    settings: &<R::State as GameState>::Settings,
) -> PyResult<Vec<String>>
where
    R: RecordedGame,
    R::State: SimGame,
{
    let quick = (<R::State as SimGame>::BATCH_CHUNK / 4).clamp(1, 8);
    let records = interruptible_if(py, args.long(quick), |stop| {
        records_until::<R>(
            args.first_game,
            args.games,
            players,
            settings,
            &args.bots,
            args.seed,
            args.threads,
            stop,
        )
    })?;
    finished(py, records)
}

/// A core batch result: `None` means the work saw its interrupt set, which only happens when
/// [`interruptible`] has already returned the signal's exception; kept as an error, not a panic.
pub fn finished<T>(py: Python<'_>, outcome: Result<Option<T>, EngineError>) -> PyResult<T> {
    outcome
        .py_err(py)?
        .ok_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted"))
}

/// The arguments every batch simulator shares, checked before anything is allocated.
pub struct BatchArgs {
    pub games: usize,
    pub first_game: u64,
    pub bots: Vec<BotKind>,
    pub seed: u64,
    pub threads: Option<usize>,
}

impl BatchArgs {
    /// Whether the batch can take long enough to need Ctrl-C (a thread start, 30–100 µs, is not
    /// worth it for a few quick games): `quick` games or more, or any search bot.
    fn long(&self, quick: usize) -> bool {
        self.games >= quick
            || self
                .bots
                .iter()
                .any(|b| matches!(b, BotKind::Ismcts { .. } | BotKind::Guided { .. }))
    }

    pub fn parse(
        games: Int,
        first_game: Int,
        bots: &[String],
        seed: Option<&Bound<'_, PyAny>>,
        threads: Option<Int>,
    ) -> PyResult<Self> {
        let games = games.count("games", MAX_BATCH_GAMES)?;
        let first_game = first_game.in_range("first_game", 0, u64::MAX as i128)? as u64;
        if first_game.checked_add(games as u64).is_none() {
            return Err(ArgumentError::new_err(format!(
                "game indices must stay below 2**64: first_game {first_game} + {games} games"
            )));
        }
        let bots = bots
            .iter()
            .map(|b| bot_kind(b))
            .collect::<PyResult<Vec<_>>>()?;
        let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
        let threads = threads_arg(threads)?;
        Ok(Self {
            games,
            first_game,
            bots,
            seed,
            threads,
        })
    }
}

/// The numpy result dict of a batch: `winner` (int8), `<rounds_key>` and `decisions` (uint32),
/// `scores` (uint32, games × players), from `(winner, rounds, decisions, scores)` per game.
pub fn batch_dict<'py, 'a>(
    py: Python<'py>,
    players: u8,
    outcomes: impl ExactSizeIterator<Item = &'a Outcome>,
    rounds_key: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let n = players as usize;
    let games = outcomes.len();
    let (mut winner, mut rounds, mut decisions) = (
        Vec::with_capacity(games),
        Vec::with_capacity(games),
        Vec::with_capacity(games),
    );
    let mut scores = Vec::with_capacity(games * n);
    let mut left = Vec::with_capacity(games * n);
    for o in outcomes {
        winner.push(o.winner as i8);
        rounds.push(o.rounds);
        decisions.push(o.decisions);
        scores.extend_from_slice(&o.scores[..n]);
        left.extend_from_slice(&o.left[..n]);
    }
    let d = PyDict::new(py);
    d.set_item("winner", winner.into_pyarray(py))?;
    d.set_item(rounds_key, rounds.into_pyarray(py))?;
    d.set_item("decisions", decisions.into_pyarray(py))?;
    for (key, column) in [("scores", scores), ("left", left)] {
        let column: Bound<'py, PyArray1<u32>> = column.into_pyarray(py);
        let column: Bound<'py, PyArray2<u32>> = column.reshape([games, n])?;
        d.set_item(key, column)?;
    }
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    prepare_numpy(m.py())?;
    m.add_function(wrap_pyfunction!(check_bot, m)?)?;
    m.add_function(wrap_pyfunction!(check_players, m)?)?;
    m.add_function(wrap_pyfunction!(check_seed, m)?)?;
    m.add("BOT_NAMES", BotKind::NAMES.to_vec())?;
    m.add("MAX_BATCH_GAMES", MAX_BATCH_GAMES)?;
    m.add("MAX_ISMCTS_ITERATIONS", MAX_ISMCTS_ITERATIONS)?;
    m.add("MAX_THREADS", crate::pool::MAX_THREADS)?;
    Ok(())
}
