//! ISMCTS for any game of the contract: the [`SearchGame`] of a [`Determinize`] +
//! [`SearchValue`] game, the search bot, and a one-call decision.
//!
//! A search node is the sampled position plus the first round end on the way; the rollout
//! horizon and policy are [`Horizon`] and [`Rollout`] (defaults by measurement, see [`super`]).
//! Moves are the tree's actions, so a child means the same move in every determinization where
//! it is legal.

use super::ismcts::{search_stats_until, IsmctsConfig, RootStat, SearchGame};
use super::SearchSettings;
use crate::contract::{
    Determinize, GameState, HeuristicPolicy, Horizon, Pick, Rollout, SearchValue,
};
use crate::error::EngineError;
use crate::interrupt::{Interrupt, NEVER};
use crate::rng::SplitMix64;

/// What ISMCTS needs of a game.
pub trait Searchable: Determinize + SearchValue + HeuristicPolicy {}
impl<G: Determinize + SearchValue + HeuristicPolicy> Searchable for G {}

/// A search state: the position and what the first round end on the way reported.
#[derive(Clone, Debug)]
pub struct Node<G: GameState> {
    pub state: G,
    pub round_end: Option<G::RoundEnd>,
}

/// The root information set of the player to move, and the search settings.
pub struct GameSearch<G: Searchable> {
    sampler: G::Sampler,
    root: G::Root,
    player: u8,
    settings: SearchSettings,
}

impl<G: Searchable> GameSearch<G> {
    /// Search for the player to move in `state`, knowing what `memory` saw.
    pub fn new(
        state: &G,
        memory: &mut G::Memory,
        settings: SearchSettings,
    ) -> Result<Self, EngineError> {
        let player = state.current_player().ok_or(EngineError::GameOver)?;
        Ok(Self {
            sampler: state.sampler(memory, player)?,
            root: state.search_root(),
            player,
            settings,
        })
    }

    /// The player the search is for (to move at the root).
    pub fn player(&self) -> u8 {
        self.player
    }

    /// The move ISMCTS picks, the search ending early once `stop` is set (the best move so far,
    /// still legal).
    pub fn best_move_until(&mut self, stop: &Interrupt) -> G::Move {
        self.stats_until(stop)
            .into_iter()
            .next()
            .expect("the root has a legal action")
            .action
    }

    /// The root statistics, best first ([`search_stats_until`]): `best_move_until`'s move is the
    /// first one's.
    pub fn stats_until(&mut self, stop: &Interrupt) -> Vec<RootStat<G::Move>> {
        let config = self.settings.config;
        let player = self.player;
        search_stats_until(self, player, &config, stop)
    }

    #[inline]
    fn play(s: &mut Node<G>, mv: &G::Move) -> bool {
        match s.state.apply_legal(mv) {
            Ok(end) => {
                if s.round_end.is_none() {
                    s.round_end = end;
                }
                true
            }
            // Only an exhausted draw pile (H-4.6), which a legal hand never meets: the rollout
            // stops and values the position as it stands.
            Err(_) => false,
        }
    }
}

impl<G: Searchable> SearchGame for GameSearch<G> {
    type State = Node<G>;
    type Action = G::Move;

    fn determinize(&mut self, rng: &mut SplitMix64) -> Node<G> {
        Node {
            state: G::sample(&mut self.sampler, rng),
            round_end: None,
        }
    }

    #[inline]
    fn to_move(&self, s: &Node<G>) -> Option<u8> {
        if self.settings.horizon == Horizon::Hand && s.round_end.is_some() {
            return None;
        }
        s.state.current_player()
    }

    #[inline]
    fn legal(&self, s: &Node<G>, out: &mut Vec<G::Move>) {
        if s.state.legal_moves_into(out).is_err() {
            out.clear();
        }
    }

    #[inline]
    fn apply(&self, s: &mut Node<G>, mv: &G::Move) {
        Self::play(s, mv);
    }

    fn rollout(&self, s: &mut Node<G>, rng: &mut SplitMix64, buf: &mut Vec<G::Move>) {
        // Drawn whatever the policy, so a game's search stream does not depend on it.
        let mut own = G::rollout_rng(rng);
        let rng = match &mut own {
            Some(own) => own,
            None => rng,
        };
        while self.to_move(s).is_some() {
            let pick = match self.settings.rollout {
                Rollout::Random => s.state.random_move(rng, buf),
                Rollout::Heuristic => s.state.heuristic_move(buf),
            };
            match pick {
                Ok(pick) if Self::play(s, pick.get(buf)) => {}
                _ => break,
            }
        }
    }

    #[inline]
    fn value(&self, s: &Node<G>, player: u8) -> f64 {
        s.state.search_value(
            &self.root,
            s.round_end.as_ref(),
            player,
            self.settings.horizon,
        )
    }
}

/// The ISMCTS player for the batch simulator: remembers what the moves it observes reveal.
#[derive(Clone, Debug)]
pub struct IsmctsBot<G: Searchable> {
    settings: SearchSettings,
    rng: SplitMix64,
    memory: G::Memory,
}

impl<G: Searchable> IsmctsBot<G> {
    pub fn new(settings: SearchSettings, seed: u64) -> Self {
        Self {
            settings,
            rng: SplitMix64::new(seed),
            memory: G::Memory::default(),
        }
    }

    /// The bot's move for the player to move in `state` (`buf` receives the legal list), the
    /// search ending early once `stop` is set. A forced move is played without a search (no
    /// seed drawn).
    pub fn choose_until(
        &mut self,
        state: &G,
        buf: &mut Vec<G::Move>,
        stop: &Interrupt,
    ) -> Result<Pick<G::Move>, EngineError> {
        state.legal_moves_into(buf)?;
        match buf.len() {
            0 => return Err(EngineError::GameOver),
            1 => return Ok(Pick::Listed(0)),
            _ => {}
        }
        let mut settings = self.settings;
        settings.config.seed = self.rng.next();
        let best = GameSearch::new(state, &mut self.memory, settings)?.best_move_until(stop);
        Ok(Pick::Own(best))
    }

    /// [`IsmctsBot::choose_until`] without an interrupt, as a move.
    pub fn choose(&mut self, state: &G, buf: &mut Vec<G::Move>) -> Result<G::Move, EngineError> {
        Ok(self.choose_until(state, buf, &NEVER)?.into_move(buf))
    }

    /// See `mv` about to be applied to `before` (by any seat).
    #[inline]
    pub fn observe(&mut self, before: &G, mv: &G::Move) {
        G::observe(&mut self.memory, before, mv);
    }
}

/// One ISMCTS decision for the player to move in `state` with the game's default settings,
/// `iterations` iterations and this `seed`, knowing what `memory` saw; the search ends early
/// once `stop` is set. A forced move is returned without a search.
pub fn ismcts_move_until<G: Searchable>(
    state: &G,
    memory: &mut G::Memory,
    iterations: u32,
    seed: u64,
    stop: &Interrupt,
) -> Result<G::Move, EngineError> {
    Ok(best_of(ismcts_stats_until(
        state, memory, iterations, seed, stop,
    )?))
}

/// The root statistics behind [`ismcts_move_until`]'s decision, best first (its move is the
/// first one's). A forced move is not searched: its one entry has 0 visits and mean 0.
pub fn ismcts_stats_until<G: Searchable>(
    state: &G,
    memory: &mut G::Memory,
    iterations: u32,
    seed: u64,
    stop: &Interrupt,
) -> Result<Vec<RootStat<G::Move>>, EngineError> {
    if let Some(forced) = forced_stats(state)? {
        return Ok(forced);
    }
    let defaults = SearchSettings::default_for::<G>();
    let settings = SearchSettings {
        config: IsmctsConfig {
            iterations,
            seed,
            ..defaults.config
        },
        ..defaults
    };
    Ok(GameSearch::new(state, memory, settings)?.stats_until(stop))
}

/// The statistics of a decision without a search: the one legal move, unvisited; `None` when
/// there is a choice (`GameOver` when there is no move).
pub(crate) fn forced_stats<G: GameState>(
    state: &G,
) -> Result<Option<Vec<RootStat<G::Move>>>, EngineError> {
    let mut legal = Vec::new();
    state.legal_moves_into(&mut legal)?;
    match legal.len() {
        0 => Err(EngineError::GameOver),
        1 => Ok(Some(vec![RootStat {
            action: legal.swap_remove(0),
            visits: 0,
            mean: 0.0,
        }])),
        _ => Ok(None),
    }
}

/// The move of statistics listed best first.
pub(crate) fn best_of<A>(stats: Vec<RootStat<A>>) -> A {
    stats
        .into_iter()
        .next()
        .expect("the root has a legal action")
        .action
}

/// [`ismcts_move_until`] from a position alone (a fresh memory: what the history showed is not
/// used, e.g. who still holds a wind is sampled).
pub fn ismcts_move<G: Searchable>(
    state: &G,
    iterations: u32,
    seed: u64,
) -> Result<G::Move, EngineError> {
    ismcts_move_until(state, &mut G::Memory::default(), iterations, seed, &NEVER)
}
