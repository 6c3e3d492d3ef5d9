//! The contract every game implements, and the capabilities a game may add.
//!
//! [`GameState`] is a position: who plays, who is to move, the legal moves, applying one, and the end
//! of the game. It is what the generic consumers ([`crate::bots`], [`crate::search`],
//! [`crate::sim`], [`crate::vecenv`]) are written against; each game implements it in its own
//! folder (`head/contract.rs`, `climb/contract.rs`) on the bare state its hot paths use.
//!
//! A game that offers more implements a capability trait beside it:
//! - [`ActionSpace`]: a fixed set of action ids with a legal-action mask (RL agents);
//! - [`Observe`]: a fixed-size observation tensor per seat;
//! - [`MoveFeatures`]: a feature row per legal move;
//! - [`HeuristicPolicy`]: the game's rule-of-thumb player;
//! - [`Learned`]: what a trained policy ([`crate::nn`]) must be to play the game, and its move;
//! - [`Determinize`] and [`SearchValue`]: what ISMCTS needs (sampling a seat's information set,
//!   valuing a rollout at its horizon);
//! - [`RecordedGame`]: the same game with its history, written as a JSON record;
//! - [`EnvSave`]: an env's exact save/load form.
//!
//! Shape: a position value mutated in place, legal moves generated into a caller's buffer, a
//! checked `apply` beside an unchecked one for moves taken from that buffer (as in shakmaty's
//! `Position`), a current player that is `None` once the game is over and per-seat observations
//! and fixed action ids as separate capabilities (as OpenSpiel's `State` and pgx's `Env` do).
//! Everything is static dispatch: consumers are generic, monomorphised per game.

use std::fmt::Debug;

use crate::card::CardInfo;
use crate::error::EngineError;
use crate::nn::shipped::ShippedFile;
use crate::nn::{Policy, PolicyShape, Scratch};
use crate::rng::{index_below, SplitMix64};

/// Most seats of any game: fixed-size per-seat arrays (outcomes, scores) use it.
pub const MAX_PLAYERS: usize = 5;

/// A game position.
pub trait GameState: Clone + Debug + Send + Sync + Sized {
    /// A move. Legal moves are listed in increasing order (the order search trees use).
    type Move: Clone + Ord + Debug + Send + Sync;
    /// What a game is created with besides players and seed (rules, preset, deck); the
    /// default is the game's standard rules.
    type Settings: Clone + Debug + Default + Send + Sync;
    /// What a move that ended a round (a hand in Panda Head) reports.
    type RoundEnd: Clone + Debug + Send + Sync;

    /// A round that has not ended the game after this many rounds is an error for loops that
    /// play to the end (the rules have no move limit; bots end games far sooner).
    const MAX_ROUNDS: u32;
    /// What a round is called in messages: "hands" or "rounds".
    const ROUNDS_NAME: &'static str;

    /// Check players and settings as [`GameState::new`] does, without dealing.
    fn validate(players: u8, settings: &Self::Settings) -> Result<(), EngineError>;
    /// A new game dealt from `seed`.
    fn new(players: u8, seed: u64, settings: &Self::Settings) -> Result<Self, EngineError>;

    fn players(&self) -> u8;
    /// The seat to move; `None` once the game is over.
    fn current_player(&self) -> Option<u8>;
    #[inline]
    fn is_over(&self) -> bool {
        self.current_player().is_none()
    }
    /// The winner once the game is over.
    fn winner(&self) -> Option<u8>;
    /// Every seat's score.
    fn scores(&self) -> &[u32];
    /// 0-based index of the round (hand) in progress, or of the last one once the game is over.
    fn round(&self) -> u32;
    /// The seats (a bit each) that left the game at the end of the round `end` reports: Panda
    /// Head's Pooped Pandas (H-6.2). Nobody leaves a climbing game, hence the default. The
    /// batch keeps, per seat, the round it left in: the places of a game follow that order.
    #[inline]
    fn left_the_game(_end: &Self::RoundEnd) -> u8 {
        0
    }

    /// The legal moves of the player to move, increasing, into `out` (cleared first; empty once
    /// the game is over). A position with more legal moves than the game's cap is an error (and
    /// `out` is left empty), never a silently partial list.
    fn legal_moves_into(&self, out: &mut Vec<Self::Move>) -> Result<(), EngineError>;

    /// Apply a move after checking it; on error the position is unchanged. The round's end
    /// when the move ended a round (or the game).
    fn apply(&mut self, mv: &Self::Move) -> Result<Option<Self::RoundEnd>, EngineError>;

    /// Apply a move taken from [`GameState::legal_moves_into`] of this position, without checking it
    /// again. An error only for what a legal move can still meet (Panda Head: an exhausted draw
    /// pile, H-4.6), before anything changes.
    fn apply_legal(&mut self, mv: &Self::Move) -> Result<Option<Self::RoundEnd>, EngineError>;

    /// A uniform legal move drawn from `rng`; `buf` receives the legal list when the game uses
    /// one. A game may draw without a list (Panda Head picks from its action mask); the default
    /// draws an index into the list with [`index_below`].
    #[inline]
    fn random_move(
        &self,
        rng: &mut SplitMix64,
        buf: &mut Vec<Self::Move>,
    ) -> Result<Pick<Self::Move>, EngineError> {
        self.legal_moves_into(buf)?;
        if buf.is_empty() {
            return Err(EngineError::GameOver);
        }
        Ok(Pick::Listed(index_below(rng, buf.len())))
    }
}

/// A move a policy chose: an index into the legal list it wrote to the caller's buffer, or a
/// move of its own (picked without a list). Game loops play it from there, so a listed move is
/// never copied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick<M> {
    Listed(usize),
    Own(M),
}

impl<M> Pick<M> {
    /// The move, `listed` being the buffer the policy wrote.
    #[inline]
    pub fn get<'a>(&'a self, listed: &'a [M]) -> &'a M {
        match self {
            Self::Listed(i) => &listed[*i],
            Self::Own(m) => m,
        }
    }
}

impl<M: Clone> Pick<M> {
    /// The move as a value.
    #[inline]
    pub fn into_move(self, listed: &[M]) -> M {
        match self {
            Self::Listed(i) => listed[i].clone(),
            Self::Own(m) => m,
        }
    }
}

/// A fixed action space: every move has at most one action id in `0..NUM_ACTIONS`, and the
/// legal ones form a mask. Positions cache what the mask and the checks read
/// ([`ActionSpace::Legal`]), computed once per position.
pub trait ActionSpace: GameState {
    const NUM_ACTIONS: usize;
    /// What one position's mask and checks read (Panda Head: nothing, the mask is a few
    /// instructions; climbing: the legal list with each move's action id).
    type Legal: Clone + Debug + Default + Send + Sync;

    /// Fill `legal` for this position (a finished game's is empty).
    fn cache_legal(&self, legal: &mut Self::Legal) -> Result<(), EngineError>;
    /// Write the mask of the player to move into `mask` (all `false`, `NUM_ACTIONS` long).
    fn write_mask(&self, legal: &Self::Legal, mask: &mut [bool]);
    /// The ticket of the move action id `action` names here (`None`: not legal). Tickets are
    /// what [`ActionSpace::apply_ticket`] takes: checking a whole batch first, then applying.
    fn resolve_action(&self, legal: &Self::Legal, action: usize) -> Option<u32>;
    /// The ticket of the `index`-th legal move (`None`: out of range). A game whose action ids
    /// reach every move may take ids here too.
    fn resolve_index(&self, legal: &Self::Legal, index: usize) -> Option<u32>;
    /// The index [`ActionSpace::resolve_index`] takes for the legal move `mv` (`None`: not
    /// legal here): how a bot's move is given back to an env.
    fn move_index(&self, legal: &Self::Legal, mv: &Self::Move) -> Option<usize>;
    /// Apply a move by its ticket.
    fn apply_ticket(
        &mut self,
        legal: &Self::Legal,
        ticket: u32,
    ) -> Result<Option<Self::RoundEnd>, EngineError>;
    /// The legal action ids, increasing: the mask's set entries (refusal messages read them).
    fn legal_action_ids(&self, legal: &Self::Legal) -> Vec<i64> {
        let mut ids = Vec::new();
        self.legal_action_ids_into(legal, &mut ids);
        ids
    }
    /// [`ActionSpace::legal_action_ids`] into `out` (cleared first): a caller that asks at
    /// every decision (a Python loop's `legal_actions()`) reuses one buffer. A game whose ids
    /// come cheaper than from the mask overrides this.
    fn legal_action_ids_into(&self, legal: &Self::Legal, out: &mut Vec<i64>) {
        let mut mask = vec![false; Self::NUM_ACTIONS];
        self.write_mask(legal, &mut mask);
        out.clear();
        out.extend((0i64..).zip(mask).filter(|(_, on)| *on).map(|(id, _)| id));
    }
    /// The move indices [`ActionSpace::resolve_index`] accepts, increasing: `0..` until the
    /// first refused one.
    fn legal_indices(&self, legal: &Self::Legal) -> Vec<i64> {
        (0..)
            .take_while(|&i| self.resolve_index(legal, i).is_some())
            .map(|i| i as i64)
            .collect()
    }
    /// Why `action` is refused here, naming the legal actions.
    fn refused_action(&self, legal: &Self::Legal, action: i64) -> String;
    /// Why move index `index` is refused here.
    fn refused_index(&self, legal: &Self::Legal, index: i64) -> String;
}

/// A feature row per legal move, for agents that score every move (DouZero-style).
pub trait MoveFeatures: ActionSpace {
    const MOVE_FEATURES: usize;
    /// The feature layout's version: a trained policy reads one layout, and a change to the
    /// features (what a column means) is a new version, so old policies are refused, not misread.
    const MOVE_FEATURES_LAYOUT: &'static str;
    /// The legal moves a position's cache holds, in the order move indices refer to.
    fn legal_moves_of(legal: &Self::Legal) -> &[Self::Move];
    /// Write `mv`'s features (a legal move of this position) into `out` (`MOVE_FEATURES` long).
    fn write_move_features(&self, mv: &Self::Move, out: &mut [f32]);
}

/// A fixed-size observation per seat.
pub trait Observe: GameState {
    const OBSERVATION_SIZE: usize;
    /// The observation layout's version (see [`MoveFeatures::MOVE_FEATURES_LAYOUT`]).
    const OBSERVATION_LAYOUT: &'static str;
    /// Write what `player` may know into `out` (all zeros, `OBSERVATION_SIZE` long).
    fn write_observation(&self, player: u8, out: &mut [f32]);
}

/// The game's rule-of-thumb player (the built-in `heuristic` bot, and a search rollout policy).
pub trait HeuristicPolicy: GameState {
    /// The heuristic's move for the player to move; `buf` receives the legal list when the
    /// game uses one.
    fn heuristic_move(&self, buf: &mut Vec<Self::Move>) -> Result<Pick<Self::Move>, EngineError>;
}

/// A game a trained policy can play: the built-in `neural` bot.
pub trait Learned: Observe {
    /// The names policy files give this game's variants (their `"game"`): Panda Head's one,
    /// the climbing games' presets.
    const POLICY_GAMES: &'static [&'static str];
    /// The policies the engine ships for this game (`shipped_file!`), by the game they play.
    const SHIPPED_POLICIES: &'static [ShippedFile];
    /// The settings a policy named `game` (one of [`Learned::POLICY_GAMES`]) is checked against.
    fn policy_settings(game: &str) -> Option<Self::Settings>;
    /// What a policy must be to play a game of these settings (which game it was trained
    /// for, its kind, the layouts and widths it reads).
    fn policy_shape(settings: &Self::Settings) -> PolicyShape;
    /// The settings this position was created with.
    fn settings_of(&self) -> &Self::Settings;
    /// The move `policy` (checked to fit [`Learned::policy_shape`]) picks for the player to
    /// move; `buf` receives the legal list when the game uses one.
    fn neural_move(
        &self,
        policy: &Policy,
        scratch: &mut Scratch,
        buf: &mut Vec<Self::Move>,
    ) -> Result<Pick<Self::Move>, EngineError>;
    /// `policy`'s value (the network's output: for a DMC policy the expected final result) of
    /// each of `legal` (legal moves of this position, in order) for `player`, the player to
    /// move, into `out` (cleared first): the guided search's priors and values
    /// ([`crate::search::guided`]).
    fn move_values(
        &self,
        player: u8,
        legal: &[Self::Move],
        policy: &Policy,
        scratch: &mut Scratch,
        out: &mut Vec<f32>,
    );
}

/// The rollout policy of a search: what plays the moves after the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rollout {
    /// Uniform over the legal moves.
    Random,
    /// The game's [`HeuristicPolicy`].
    Heuristic,
}

/// Where a search rollout stops and is valued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Horizon {
    /// The end of the round (hand) in progress.
    Hand,
    /// The end of the game.
    Game,
}

/// Sampling full positions consistent with one seat's knowledge (the determinizations of
/// ISMCTS).
pub trait Determinize: GameState {
    /// What a searching seat remembers from the moves it watched (Panda Head: the plays of the
    /// hand; climbing: who still holds a wind). `Default`: nothing seen yet.
    type Memory: Clone + Debug + Default + Send + Sync;
    /// One seat's information set, ready to sample.
    type Sampler;

    /// Record `mv`, about to be applied to `before` (by any seat).
    fn observe(memory: &mut Self::Memory, before: &Self, mv: &Self::Move);
    /// The information set of `observer` in this position, from what `memory` saw.
    fn sampler(
        &self,
        memory: &mut Self::Memory,
        observer: u8,
    ) -> Result<Self::Sampler, EngineError>;
    /// One full position of the information set.
    fn sample(sampler: &mut Self::Sampler, rng: &mut SplitMix64) -> Self;
}

/// How a search values the position its rollout reached.
pub trait SearchValue: GameState {
    /// The rollout policy the game's search uses by default (chosen by measurement).
    const DEFAULT_ROLLOUT: Rollout;
    /// What the value compares against, taken at the search's root (climbing: the scores).
    type Root: Clone + Debug + Send + Sync;

    fn search_root(&self) -> Self::Root;
    /// The value in `[0, 1]` for `player` of this position, reached by a rollout from `root`;
    /// `round_end` is what the first round end on the way reported (`None`: no round ended).
    fn search_value(
        &self,
        root: &Self::Root,
        round_end: Option<&Self::RoundEnd>,
        player: u8,
        horizon: Horizon,
    ) -> f64;
    /// The random source of one random rollout, drawn from the search's stream. `None`: the
    /// rollout draws from the search's stream itself.
    #[inline]
    fn rollout_rng(_search: &mut SplitMix64) -> Option<SplitMix64> {
        None
    }
}

/// The move of a recorded game's position.
pub type MoveOf<R> = <<R as RecordedGame>::State as GameState>::Move;

/// The game with its history (`HeadGame`, `ClimbGame`): the position, every move and what it
/// did. It is what a replayable record is written from and what a Python game object holds:
/// everything a game object shows is read here, as core values (serde-serialisable where Python
/// reads them as plain data), so the binding binds each verb once for every game.
/// A seat number no player has: the events "seen by" it are the public ones.
pub const NOBODY: u8 = u8::MAX;

pub trait RecordedGame: Clone + Send + Sync + Sized {
    type State: Determinize;
    /// One event of the log (`{"type": ..., ...}` as JSON).
    type Event: serde::Serialize + Clone + Debug + Send + Sync;
    /// The finished rounds (hands), as `round_results` lists them.
    type Rounds: serde::Serialize;
    /// What one seat may see ([`RecordedGame::view`]).
    type View: serde::Serialize;
    /// The complete position as plain data ([`RecordedGame::snapshot`]).
    type Snapshot: serde::Serialize;

    fn new(
        players: u8,
        seed: u64,
        settings: &<Self::State as GameState>::Settings,
    ) -> Result<Self, EngineError>;
    fn state(&self) -> &Self::State;
    /// A game that starts at `state` (a copy of a vector env's position: no history before it).
    fn from_position(state: &Self::State) -> Result<Self, EngineError>;

    // ---- playing: a refused move changes nothing ----
    /// Apply a legal move of the position and record it.
    fn apply_legal(
        &mut self,
        mv: &MoveOf<Self>,
    ) -> Result<Option<<Self::State as GameState>::RoundEnd>, EngineError>;
    /// Apply a move after checking it.
    fn apply_checked(&mut self, mv: &MoveOf<Self>) -> Result<(), EngineError>;
    /// Apply the move a notation names.
    fn apply_notation_text(&mut self, text: &str) -> Result<(), EngineError>;
    /// The legal move action id `action` stands for (any integer: a refusal says which ids
    /// exist and which are legal).
    fn move_for_action(&self, action: i128) -> Result<MoveOf<Self>, EngineError>;
    /// Apply the move of [`RecordedGame::move_for_action`].
    fn apply_action(&mut self, action: i128) -> Result<(), EngineError>;
    /// The refusal of a move given as data that is no move (`shown`, and why not).
    fn unparsable(&self, shown: &str, why: &str) -> EngineError;
    /// The notation of a legal move of the position (what `apply` takes back).
    fn notation(&self, mv: &MoveOf<Self>) -> String;
    /// The action id of a legal move of the position (`None`: a move the fixed action space
    /// does not reach, such as a climbing play of more units than the encoding's).
    fn action_id(&self, mv: &MoveOf<Self>) -> Option<u32>;

    // ---- reading ----
    /// The event log, in order (it only ever grows).
    fn events(&self) -> &[Self::Event];
    /// The events `seat` may see (no hidden card of another seat).
    fn events_seen_by(&self, seat: u8) -> Vec<Self::Event>;
    /// The events as a spectator sees them: what every seat is shown, no seat's private cards
    /// (the draws and deals of every seat hidden alike).
    fn public_events(&self) -> Vec<Self::Event> {
        self.events_seen_by(NOBODY)
    }
    fn round_results(&self) -> Self::Rounds;
    /// Rounds played or under way when the game ended (`result()["rounds_played"]`).
    fn rounds_played(&self) -> usize;
    /// The game's own keys of its result, beside the shared ones (in order).
    fn result_extras(&self) -> Vec<(&'static str, serde_json::Value)> {
        Vec::new()
    }
    fn view(&self, seat: u8) -> Self::View;
    fn snapshot(&self) -> Self::Snapshot;
    /// The game's deck as it plays it, one card per id.
    fn cards(&self) -> Vec<CardInfo>;
    /// A full game sampled from what `seat` knows (hidden cards dealt anew, consistently with
    /// what `seat` has seen), from `seed`.
    fn determinize(&self, seat: u8, seed: u64) -> Result<Self, EngineError>;
    /// What a search for the player to move knows from the history.
    fn search_memory(&self) -> <Self::State as Determinize>::Memory;

    // ---- the record ----
    /// The JSON record.
    fn to_json(&self) -> Result<String, EngineError>;
    /// A game from its JSON record, every move replayed and checked.
    fn from_json(text: &str) -> Result<Self, EngineError>;
}

/// The exact save form of a position in an environment (for `VecEnv` save/load and pickling).
pub trait EnvSave: ActionSpace {
    /// What the env keeps beside the position to save it (Panda Head: the start of the hand and
    /// its actions, since a mid-hand position has no public form).
    type Trail: Clone + Debug + Default + Send + Sync;

    /// A fresh trail for a position (a new episode or a loaded game).
    fn start_trail(&self, trail: &mut Self::Trail);
    /// Record the move of `ticket` just applied to reach this position (`ended`: it ended a
    /// round).
    fn extend_trail(&self, trail: &mut Self::Trail, ticket: u32, ended: bool);
    fn save(&self, trail: &Self::Trail) -> serde_json::Value;
    /// Rebuild a saved position, checking it as strictly as any explicit position.
    fn load(
        players: u8,
        settings: &Self::Settings,
        saved: &serde_json::Value,
    ) -> Result<(Self, Self::Trail), EngineError>;
    fn save_settings(players: u8, settings: &Self::Settings) -> serde_json::Value;
    fn load_settings(saved: &serde_json::Value) -> Result<(u8, Self::Settings), EngineError>;
}
