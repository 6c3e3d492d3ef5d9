//! Batch simulation from Python: the whole batch runs in Rust with the GIL released.

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::errors::{IntoPyResult, RulesError};
use super::head::{players_arg, seed_arg, PyHeadRules, HEAD};
use crate::bots::BotKind;
use crate::sim::simulate_head;

/// Play `games` complete Panda Head games with built-in bots (one name per seat) and return numpy
/// arrays: `winner` (int8, games), `hands` (uint32, games), `decisions` (uint32, games),
/// `scores` (uint32, games × players). Game `k` is dealt from the k-th output of SplitMix64(seed);
/// `first_game` starts the batch at game `k = first_game`, so chunks of one batch replay exactly.
#[pyfunction]
#[pyo3(signature = (games, players, bots, seed = None, rules = None, threads = None, first_game = 0))]
#[allow(clippy::too_many_arguments)]
fn simulate_head_batch<'py>(
    py: Python<'py>,
    games: i64,
    players: i64,
    bots: Vec<String>,
    seed: Option<&Bound<'py, PyAny>>,
    rules: Option<PyHeadRules>,
    threads: Option<i64>,
    first_game: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let players = players_arg(players, HEAD)?;
    let BatchArgs {
        games,
        bots,
        seed,
        threads,
    } = BatchArgs::parse(games, &bots, seed, threads)?;
    let rules = rules.map(|r| r.inner).unwrap_or_default();
    let outcomes = py
        .detach(|| simulate_head(first_game, games, players, rules, &bots, seed, threads))
        .py_err(py)?;
    batch_dict(
        py,
        players,
        outcomes
            .iter()
            .map(|o| (o.winner, o.hands, o.decisions, &o.scores[..])),
        "hands",
    )
}

/// Play `hands` independent random Panda Head hands (7 piles each) on one thread, GIL released;
/// returns the number of decisions. The unit of the per-hand benchmarks.
#[pyfunction]
#[pyo3(signature = (hands, players, seed = None, rules = None))]
fn simulate_head_hands<'py>(
    py: Python<'py>,
    hands: usize,
    players: u8,
    seed: Option<&Bound<'py, PyAny>>,
    rules: Option<PyHeadRules>,
) -> PyResult<u64> {
    let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
    let rules = rules.map(|r| r.inner).unwrap_or_default();
    py.detach(|| crate::sim::simulate_head_hands(hands, players, rules, seed))
        .py_err(py)
}

/// The arguments every batch simulator shares, checked.
pub struct BatchArgs {
    pub games: usize,
    pub bots: Vec<BotKind>,
    pub seed: u64,
    pub threads: Option<usize>,
}

impl BatchArgs {
    pub fn parse(
        games: i64,
        bots: &[String],
        seed: Option<&Bound<'_, PyAny>>,
        threads: Option<i64>,
    ) -> PyResult<Self> {
        let games = usize::try_from(games)
            .map_err(|_| RulesError::new_err(format!("games must be >= 0, got {games}")))?;
        let bots = bots
            .iter()
            .map(|b| BotKind::parse(b).map_err(|e| RulesError::new_err(e.0)))
            .collect::<PyResult<Vec<_>>>()?;
        let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
        let threads = match threads {
            None => None,
            Some(t) if t >= 1 => Some(t as usize),
            Some(t) => {
                return Err(RulesError::new_err(format!(
                    "threads must be >= 1, got {t}"
                )))
            }
        };
        Ok(Self {
            games,
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
    outcomes: impl ExactSizeIterator<Item = (u8, u32, u32, &'a [u32])>,
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
    for (w, r, d, s) in outcomes {
        winner.push(w as i8);
        rounds.push(r);
        decisions.push(d);
        scores.extend_from_slice(&s[..n]);
    }
    let d = PyDict::new(py);
    d.set_item("winner", winner.into_pyarray(py))?;
    d.set_item(rounds_key, rounds.into_pyarray(py))?;
    d.set_item("decisions", decisions.into_pyarray(py))?;
    let scores: Bound<'py, PyArray1<u32>> = scores.into_pyarray(py);
    let scores: Bound<'py, PyArray2<u32>> = scores.reshape([games, n])?;
    d.set_item("scores", scores)?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate_head_batch, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_head_hands, m)?)?;
    m.add("BOT_NAMES", BotKind::NAMES.to_vec())?;
    Ok(())
}
