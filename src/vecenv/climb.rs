//! The climbing games (`year`, `spin`) as a batched environment: the observation of
//! [`crate::climb::observation`], the abstract action index of [`crate::climb::encoding`], and,
//! for agents that score every legal move (DouZero-style), steps by index into the legal-move
//! list with the move-feature rows of all envs in one array.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::{ActionKind, EnvGame, VecEnv};
use crate::climb::encoding::{self, move_features_into, MOVE_FEATURES};
use crate::climb::observation::{observation_into_zeroed, OBSERVATION_SIZE};
use crate::climb::snapshot::{parse_snapshot, snapshot};
use crate::climb::{ClimbGame, ClimbSettings, ClimbState, Deck, Mood, Move, Preset};
use crate::error::{EngineError, RulesError, StateError};
use crate::interrupt::{Interrupt, NEVER};

/// Players and settings of every episode.
#[derive(Clone, Debug)]
pub struct ClimbConfig {
    pub players: u8,
    pub settings: ClimbSettings,
}

/// A climbing game with its legal moves cached: the mask, the abstract actions and the
/// move-index steps all read the same list, generated once per position.
#[derive(Clone, Debug)]
pub struct ClimbEnvGame {
    state: ClimbState,
    legal: Vec<Move>,
    /// The abstract action of each legal move: the mask and the check both read it, so each
    /// move is classified once per position.
    classes: Vec<Option<usize>>,
}

impl ClimbEnvGame {
    pub fn state(&self) -> &ClimbState {
        &self.state
    }
    /// The legal moves of the player to move, in canonical order (empty once the game is over).
    pub fn legal_moves(&self) -> &[Move] {
        &self.legal
    }
    fn refresh(&mut self) {
        if self.state.is_over() {
            self.legal.clear();
        } else {
            self.state.legal_moves_into(&mut self.legal);
        }
        encoding::action_indices_into(&self.state, &self.legal, &mut self.classes);
    }
}

impl EnvGame for ClimbEnvGame {
    type Config = ClimbConfig;
    /// An index into the cached legal moves.
    type Checked = usize;

    fn new_episode(config: &ClimbConfig, seed: u64) -> Result<Self, EngineError> {
        let mut game = Self {
            state: ClimbState::new(config.players, seed, config.settings.clone())?,
            legal: Vec::with_capacity(64),
            classes: Vec::with_capacity(64),
        };
        game.refresh();
        Ok(game)
    }
    fn observation_size(_: &ClimbConfig) -> usize {
        OBSERVATION_SIZE
    }
    fn num_actions(_: &ClimbConfig) -> usize {
        encoding::NUM_ACTIONS
    }
    fn players(config: &ClimbConfig) -> u8 {
        config.players
    }
    fn current_player(&self) -> Option<u8> {
        self.state.current_player()
    }
    fn winner(&self) -> Option<u8> {
        self.state.winner()
    }
    fn write_observation(&self, player: u8, out: &mut [f32]) {
        observation_into_zeroed(&self.state, player, out);
    }
    fn write_mask(&self, out: &mut [bool]) {
        for &a in self.classes.iter().flatten() {
            out[a] = true;
        }
    }
    fn check(&self, action: i64) -> Result<usize, String> {
        let found = usize::try_from(action)
            .ok()
            .filter(|&a| a < encoding::NUM_ACTIONS)
            .and_then(|a| encoding::resolve_known(&self.state, &self.legal, &self.classes, a));
        found.ok_or_else(|| {
            let mut legal: Vec<usize> = self.classes.iter().flatten().copied().collect();
            legal.sort_unstable();
            legal.dedup();
            format!(
                "abstract action {action} is not legal for seat {}; legal actions: {legal:?}",
                self.seat()
            )
        })
    }
    fn check_move_index(&self, index: i64) -> Result<usize, String> {
        usize::try_from(index)
            .ok()
            .filter(|&i| i < self.legal.len())
            .ok_or_else(|| {
                format!(
                    "move index {index} is out of range for seat {}: {} legal moves",
                    self.seat(),
                    self.legal.len()
                )
            })
    }
    fn apply(&mut self, index: usize) -> Result<(), EngineError> {
        self.state.apply_legal(&self.legal[index]);
        self.refresh();
        Ok(())
    }
    /// The §7 snapshot of the state: exact, and checked in full when loaded.
    fn save(&self) -> Value {
        serde_json::to_value(snapshot(&self.state, &[])).expect("a snapshot serializes")
    }
    fn load(config: &ClimbConfig, saved: &Value) -> Result<Self, EngineError> {
        let snap = parse_snapshot(saved)?;
        let game = ClimbGame::from_snapshot(snap, config.settings.deck.clone())?;
        let state = game.state();
        if state.players() != config.players || state.settings() != &config.settings {
            return Err(StateError(
                "a saved env's game has other players or settings than the env".into(),
            )
            .into());
        }
        let mut game = Self {
            state: state.clone(),
            legal: Vec::with_capacity(64),
            classes: Vec::with_capacity(64),
        };
        game.refresh();
        Ok(game)
    }
    fn save_config(config: &ClimbConfig) -> Value {
        let s = &config.settings;
        let deck = (*s.deck != *Deck::reconstructed()).then(|| s.deck.doc().clone());
        serde_json::json!({
            "players": config.players,
            "preset": s.preset.name(),
            "panda_mood": s.mood.name(),
            "first_player": s.first_player,
            "deck": deck,
        })
    }
    fn load_config(saved: &Value) -> Result<ClimbConfig, EngineError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Saved {
            players: u8,
            preset: String,
            panda_mood: String,
            first_player: u8,
            deck: Option<Value>,
        }
        let bad = |e: String| StateError(format!("not a saved climbing env config: {e}"));
        let saved = Saved::deserialize(saved).map_err(|e| bad(e.to_string()))?;
        let deck = match &saved.deck {
            None => Deck::reconstructed(),
            Some(doc) => Arc::new(Deck::from_json_value(doc, "(saved with the env)")?),
        };
        let settings = ClimbSettings {
            preset: Preset::parse(&saved.preset).map_err(|e| bad(e.0))?,
            mood: Mood::parse(&saved.panda_mood).map_err(|e| bad(e.0))?,
            first_player: saved.first_player,
            deck,
        };
        settings.validate_for(saved.players)?;
        Ok(ClimbConfig {
            players: saved.players,
            settings,
        })
    }
    fn legal_list(&self, kind: ActionKind) -> Vec<i64> {
        match kind {
            ActionKind::Action => {
                let mut legal: Vec<i64> =
                    self.classes.iter().flatten().map(|&a| a as i64).collect();
                legal.sort_unstable();
                legal.dedup();
                legal
            }
            ActionKind::MoveIndex => (0..self.legal.len() as i64).collect(),
        }
    }
}

impl ClimbEnvGame {
    fn seat(&self) -> i64 {
        self.state.current_player().map_or(-1, i64::from)
    }
}

/// Move-feature rows of every env stacked, and the offsets of each env's rows.
pub type MoveRows = (Vec<f32>, Vec<i64>);

impl VecEnv<ClimbEnvGame> {
    /// The move-feature rows of every env's legal moves, stacked: rows
    /// `offsets[i] .. offsets[i + 1]` (each [`MOVE_FEATURES`] floats) are env `i`'s moves in
    /// canonical order, the order [`VecEnv::step_as`] with move indices refers to.
    pub fn legal_move_features(&self) -> Result<MoveRows, RulesError> {
        self.legal_move_features_until(&NEVER)
            .map(|rows| rows.expect("NEVER is never set"))
    }

    /// [`VecEnv::legal_move_features`] that gives up (`Ok(None)`) once `stop` is set, polled
    /// between envs. The total size is checked before the rows are allocated: at most
    /// [`super::MAX_BATCH_FLOATS`] floats (a `RulesError` names the size; use fewer envs).
    pub fn legal_move_features_until(
        &self,
        stop: &Interrupt,
    ) -> Result<Option<MoveRows>, RulesError> {
        let mut offsets = Vec::with_capacity(self.num_envs() + 1);
        offsets.push(0i64);
        for g in self.games() {
            offsets.push(offsets.last().copied().unwrap_or(0) + g.legal.len() as i64);
        }
        let total = offsets.last().copied().unwrap_or(0) as usize;
        let floats = total.saturating_mul(MOVE_FEATURES);
        if floats > super::MAX_BATCH_FLOATS {
            return Err(RulesError(format!(
                "the {total} legal moves of the {} envs need {floats} feature floats, more than \
                 {} in one call; use fewer envs (or step by abstract action)",
                self.num_envs(),
                super::MAX_BATCH_FLOATS
            )));
        }
        let mut rows = vec![0.0f32; floats];
        let mut chunks = rows.chunks_mut(MOVE_FEATURES);
        for g in self.games() {
            if stop.is_set() {
                return Ok(None);
            }
            for (mv, row) in g.legal.iter().zip(chunks.by_ref()) {
                move_features_into(&g.state, mv, row);
            }
        }
        Ok(Some((rows, offsets)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::climb::snapshot::snapshot;
    use crate::climb::{Mood, Preset};
    use crate::rng::SplitMix64;
    use crate::vecenv::{ActionKind, StepErrorOr};

    fn config(preset: Preset, players: u8) -> ClimbConfig {
        let settings = ClimbSettings {
            preset,
            mood: Mood::Hungry,
            ..ClimbSettings::default()
        };
        ClimbConfig { players, settings }
    }

    /// A uniformly random unmasked abstract action per env.
    fn random_actions(masks: &[bool], rng: &mut SplitMix64) -> Vec<i64> {
        masks
            .chunks(encoding::NUM_ACTIONS)
            .map(|m| {
                let legal: Vec<usize> = (0..m.len()).filter(|&a| m[a]).collect();
                legal[(rng.next() % legal.len() as u64) as usize] as i64
            })
            .collect()
    }

    fn trace(threads: usize, preset: Preset) -> Vec<(Vec<f32>, Vec<f32>, Vec<i64>)> {
        let mut env = VecEnv::<ClimbEnvGame>::new(config(preset, 3), 40, Some(threads)).unwrap();
        let mut batch = env.reset(7).unwrap();
        let mut rng = SplitMix64::new(3);
        let mut out = Vec::new();
        for _ in 0..300 {
            let actions = random_actions(&batch.masks, &mut rng);
            batch = env.step(&actions).unwrap();
            out.push((
                batch.observations.clone(),
                batch.rewards.clone(),
                batch.current_player.clone(),
            ));
        }
        out
    }

    #[test]
    fn deterministic_whatever_the_thread_count_and_games_end() {
        for preset in [Preset::Year, Preset::Spin] {
            let one = trace(1, preset);
            assert_eq!(one, trace(2, preset));
            let ended = one
                .iter()
                .flat_map(|(_, r, _)| r.chunks(3))
                .filter(|row| row.iter().any(|&x| x != 0.0))
                .count();
            assert!(
                ended > 0,
                "{preset:?}: no game ended in 300 steps of 40 envs"
            );
        }
    }

    #[test]
    fn move_index_steps_and_features_agree_with_the_legal_lists() {
        let mut env = VecEnv::<ClimbEnvGame>::new(config(Preset::Spin, 4), 5, Some(1)).unwrap();
        env.reset(1).unwrap();
        for step in 0..200 {
            let (rows, offsets) = env.legal_move_features().unwrap();
            assert_eq!(offsets.len(), 6);
            assert_eq!(
                rows.len(),
                *offsets.last().unwrap() as usize * MOVE_FEATURES
            );
            let picks: Vec<i64> = (0..5)
                .map(|i| {
                    let n = offsets[i + 1] - offsets[i];
                    assert!(n > 0);
                    (step as i64 * 7 + i as i64) % n
                })
                .collect();
            // Each env's rows are its own legal list's features.
            for (i, g) in env.games().enumerate() {
                let own = encoding::move_features(g.state(), g.legal_moves());
                let lo = offsets[i] as usize * MOVE_FEATURES;
                assert_eq!(&rows[lo..lo + own.len()], &own[..]);
            }
            env.step_as(&picks, ActionKind::MoveIndex).unwrap();
        }
        let err = env.step_as(&[0, 0, 999, 0, 0], ActionKind::MoveIndex);
        assert!(matches!(err, Err(StepErrorOr::Step(e)) if e.env == 2));
    }

    #[test]
    fn a_masked_out_action_moves_no_env() {
        let mut env = VecEnv::<ClimbEnvGame>::new(config(Preset::Year, 4), 50, Some(2)).unwrap();
        let batch = env.reset(2).unwrap();
        let before: Vec<ClimbState> = env.games().map(|g| g.state().clone()).collect();
        let mut rng = SplitMix64::new(9);
        let mut actions = random_actions(&batch.masks, &mut rng);
        let row = &batch.masks[41 * encoding::NUM_ACTIONS..42 * encoding::NUM_ACTIONS];
        actions[41] = row.iter().position(|&m| !m).unwrap() as i64;
        match env.step(&actions) {
            Err(StepErrorOr::Step(e)) => {
                assert_eq!(e.env, 41);
                assert!(e.reason.contains("legal actions"), "{}", e.reason);
            }
            other => panic!("expected a refused step, got {other:?}"),
        }
        for (g, b) in env.games().zip(&before) {
            assert_eq!(snapshot(g.state(), &[]), snapshot(b, &[]));
        }
    }
}
