//! ISMCTS for the climbing games (`year`, `spin`): the [`SearchGame`] implementation, the bot
//! and a one-call entry point.
//!
//! Determinizations come from [`crate::climb::determinize`]. Actions are [`Move`]s (the tree
//! compares them by their canonical order), so a child means the same move in every
//! determinization where it is legal.
//!
//! Value at the end of the round (the default horizon) for player `p`: 1 if `p` has won the
//! game, 0 if another player has; otherwise `0.5 + (g_p - mean of the others' g) / (2 * 10)`,
//! clamped to `[0, 1]`, where `g` is the points gained since the root (show-out points, bamboo,
//! pandas). At the game horizon the value is 1 for the winner and 0 for everyone else.

use super::ismcts::{search_until, IsmctsConfig, SearchGame};
use super::{Horizon, Rollout, SearchSettings};
use crate::bots::climb_heuristic::ClimbHeuristicBot;
use crate::bots::ClimbBot;
use crate::climb::determinize::{ClimbDeterminizer, WindTracker};
use crate::climb::{ClimbState, Move, MAX_PLAYERS};
use crate::interrupt::{Interrupt, NEVER};
use crate::rng::SplitMix64;

/// A search state: the game state and whether the round (or game) in progress has ended.
#[derive(Clone, Debug)]
pub struct ClimbNode {
    pub state: ClimbState,
    pub round_over: bool,
}

/// Points of the round that make the value move from 0.5 to 0 or 1 (relative to the others).
const POINT_SCALE: f64 = 10.0;

/// The root information set of the player to move, and the search settings.
pub struct ClimbSearch {
    det: ClimbDeterminizer,
    root_scores: [u32; MAX_PLAYERS],
    player: u8,
    settings: SearchSettings,
}

impl ClimbSearch {
    /// Search for the player to move in `state`; `wind_holders` as in
    /// [`crate::climb::determinize::determinize_with_winds`] (`None`: sampled).
    pub fn new(state: &ClimbState, wind_holders: Option<u8>, settings: SearchSettings) -> Self {
        let player = state
            .current_player()
            .expect("search needs a game in progress");
        let mut root_scores = [0; MAX_PLAYERS];
        root_scores[..state.players() as usize].copy_from_slice(state.scores());
        Self {
            det: ClimbDeterminizer::new(state, player, wind_holders),
            root_scores,
            player,
            settings,
        }
    }

    /// The index in `state.legal_moves()` of the move ISMCTS picks.
    pub fn best_index(&mut self, legal: &[Move]) -> usize {
        self.best_index_until(legal, &NEVER)
    }

    /// [`ClimbSearch::best_index`], ending the search early once `stop` is set (the best move so
    /// far, still legal).
    pub fn best_index_until(&mut self, legal: &[Move], stop: &Interrupt) -> usize {
        if legal.len() == 1 {
            return 0;
        }
        let config = self.settings.config;
        let best = search_until(self, self.player, &config, stop);
        legal
            .binary_search(&best)
            .expect("the root's legal moves are the player's own")
    }
}

impl SearchGame for ClimbSearch {
    type State = ClimbNode;
    type Action = Move;

    fn determinize(&mut self, rng: &mut SplitMix64) -> ClimbNode {
        ClimbNode {
            state: self.det.sample(rng),
            round_over: false,
        }
    }

    #[inline]
    fn to_move(&self, s: &ClimbNode) -> Option<u8> {
        if self.settings.horizon == Horizon::Hand && s.round_over {
            return None;
        }
        s.state.current_player()
    }

    fn legal(&self, s: &ClimbNode, out: &mut Vec<Move>) {
        s.state.legal_moves_into(out);
    }

    #[inline]
    fn apply(&self, s: &mut ClimbNode, m: &Move) {
        if s.state.apply_legal(m).is_some() {
            s.round_over = true;
        }
    }

    fn rollout(&self, s: &mut ClimbNode, rng: &mut SplitMix64, buf: &mut Vec<Move>) {
        let mut heuristic = ClimbHeuristicBot;
        while self.to_move(s).is_some() {
            s.state.legal_moves_into(buf);
            let i = match self.settings.rollout {
                Rollout::Random => super::ismcts::below(rng, buf.len()),
                Rollout::Heuristic => heuristic.choose(&s.state, buf),
            };
            if s.state.apply_legal(&buf[i]).is_some() {
                s.round_over = true;
            }
        }
    }

    fn value(&self, s: &ClimbNode, player: u8) -> f64 {
        if let Some(w) = s.state.winner() {
            return (w == player) as u8 as f64;
        }
        let n = s.state.players() as usize;
        let gain = |q: usize| s.state.scores()[q] as f64 - self.root_scores[q] as f64;
        let p = player as usize;
        let others = (0..n).filter(|&q| q != p).map(gain).sum::<f64>() / (n - 1) as f64;
        (0.5 + (gain(p) - others) / (2.0 * POINT_SCALE)).clamp(0.0, 1.0)
    }
}

/// The ISMCTS player for the batch simulator: tracks who still holds a wind (`spin`) from the
/// moves it observes.
#[derive(Clone, Debug)]
pub struct ClimbIsmctsBot {
    settings: SearchSettings,
    rng: SplitMix64,
    winds: WindTracker,
}

impl ClimbIsmctsBot {
    pub fn new(settings: SearchSettings, seed: u64) -> Self {
        Self {
            settings,
            rng: SplitMix64::new(seed),
            winds: WindTracker::default(),
        }
    }
}

impl ClimbIsmctsBot {
    /// [`ClimbBot::choose`], the search ending early once `stop` is set.
    pub fn choose_until(&mut self, state: &ClimbState, legal: &[Move], stop: &Interrupt) -> usize {
        if legal.len() == 1 {
            return 0;
        }
        let mut settings = self.settings;
        settings.config.seed = self.rng.next();
        ClimbSearch::new(state, self.winds.holders(state), settings).best_index_until(legal, stop)
    }
}

impl ClimbBot for ClimbIsmctsBot {
    fn choose(&mut self, state: &ClimbState, legal: &[Move]) -> usize {
        self.choose_until(state, legal, &NEVER)
    }

    fn observe(&mut self, before: &ClimbState, mv: &Move) {
        self.winds.observe(before, mv.kind);
    }
}

/// One ISMCTS decision for the player to move in `state` (default settings, `iterations`
/// iterations, seeded): an index into `state.legal_moves()`. In `spin` the holders of the unseen
/// winds are sampled; [`ClimbSearch::new`] takes them when the caller knows them (e.g. from
/// [`crate::climb::determinize::wind_holders`]).
pub fn ismcts_move(state: &ClimbState, iterations: u32, seed: u64) -> usize {
    let settings = SearchSettings {
        config: IsmctsConfig {
            iterations,
            seed,
            ..SearchSettings::climb_default().config
        },
        ..SearchSettings::climb_default()
    };
    let legal = state.legal_moves();
    ClimbSearch::new(state, None, settings).best_index(&legal)
}
