//! Panda Head as a batched environment: the 96-float observation of
//! [`crate::head::observation`] and the 24 fixed action ids.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ActionKind, EnvGame};
use crate::error::{EngineError, StateError};
use crate::head::action::{Action, NUM_ACTIONS};
use crate::head::observation::{observation_into_zeroed, OBSERVATION_SIZE};
use crate::head::{ActionId, Deal, HeadRules, HeadState};

/// Players and rules of every episode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadConfig {
    pub players: u8,
    pub rules: HeadRules,
}

/// A Panda Head game as an env: the state, plus what saving it needs. A mid-hand state has no
/// public form, so the env keeps the start of the hand in progress (a copy of the fixed-size
/// state, taken once a hand) and the actions since: the saved form is that hand's deal
/// ([`Deal`], checked when loaded) and the actions, replayed (and checked) on load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadEnvGame {
    state: HeadState,
    hand_start: HeadState,
    actions: Vec<ActionId>,
}

impl HeadEnvGame {
    /// The game in progress.
    pub fn state(&self) -> &HeadState {
        &self.state
    }

    fn from_state(state: HeadState) -> Self {
        Self {
            hand_start: state.clone(),
            state,
            actions: Vec::with_capacity(40),
        }
    }
}

/// The start of a hand as an explicit deal ([`HeadState::from_deal`] rebuilds it).
fn deal_of(start: &HeadState) -> Deal {
    let seats = 0..start.players();
    Deal {
        hands: seats
            .clone()
            .map(|s| crate::head::cards::ids(start.hand(s)))
            .collect(),
        draw_pile: start.draw_pile().to_vec(),
        dealer: start.dealer(),
        scores: start.scores().to_vec(),
        drowsy: seats.clone().map(|s| start.is_drowsy(s)).collect(),
        pooped: seats.map(|s| start.is_pooped(s)).collect(),
        rng_state: start.rng_state(),
        hand_number: start.hand_number(),
    }
}

/// The saved form of one game.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedGame {
    hand: Deal,
    actions: Vec<ActionId>,
}

impl EnvGame for HeadEnvGame {
    type Config = HeadConfig;
    type Checked = ActionId;
    /// A step costs about 0.15 µs: below a few hundred envs one thread is faster.
    const MIN_PARALLEL_ENVS: usize = 512;

    fn new_episode(config: &HeadConfig, seed: u64) -> Result<Self, EngineError> {
        HeadState::new(config.players, seed, config.rules).map(Self::from_state)
    }
    fn observation_size(_: &HeadConfig) -> usize {
        OBSERVATION_SIZE
    }
    fn num_actions(_: &HeadConfig) -> usize {
        NUM_ACTIONS
    }
    fn players(config: &HeadConfig) -> u8 {
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
        let legal = self.state.legal_actions();
        for (id, m) in out.iter_mut().enumerate() {
            *m = legal & (1 << id) != 0;
        }
    }
    fn check(&self, action: i64) -> Result<ActionId, String> {
        let legal = self.state.legal_actions();
        if (0..NUM_ACTIONS as i64).contains(&action) && legal & (1 << action) != 0 {
            return Ok(action as ActionId);
        }
        let names: Vec<String> = (0..NUM_ACTIONS as u8)
            .filter(|id| legal & (1 << id) != 0)
            .map(|id| {
                format!(
                    "{id} ({})",
                    Action::from_id(id).map_or(String::new(), |a| a.notation())
                )
            })
            .collect();
        Err(format!(
            "action {action} is not legal for seat {}; legal: {}",
            self.state.current_player().map_or(-1, |p| p as i64),
            names.join(", ")
        ))
    }
    fn apply(&mut self, action: ActionId) -> Result<(), EngineError> {
        if self.state.apply_legal(action)?.is_some() {
            // A hand ended and the next one is dealt: it is the new start.
            self.hand_start = self.state.clone();
            self.actions.clear();
        } else {
            self.actions.push(action);
        }
        Ok(())
    }
    /// Action ids; Panda Head has no separate move-index steps, so both kinds are ids.
    fn legal_list(&self, _kind: ActionKind) -> Vec<i64> {
        let legal = self.state.legal_actions();
        (0..NUM_ACTIONS as i64)
            .filter(|&id| legal & (1 << id) != 0)
            .collect()
    }

    fn save(&self) -> Value {
        let saved = SavedGame {
            hand: deal_of(&self.hand_start),
            actions: self.actions.clone(),
        };
        serde_json::to_value(saved).expect("a deal and actions serialize")
    }
    fn load(config: &HeadConfig, saved: &Value) -> Result<Self, EngineError> {
        let saved = SavedGame::deserialize(saved)
            .map_err(|e| StateError(format!("not a saved Panda Head env: {e}")))?;
        let start = HeadState::from_deal(config.players, &saved.hand, config.rules)?;
        let mut game = Self::from_state(start);
        for (k, &action) in saved.actions.iter().enumerate() {
            let hands = game.state.hand_number();
            game.state.apply(action)?;
            if game.state.hand_number() != hands || game.state.is_over() {
                return Err(StateError(format!(
                    "saved action {k} ends the hand, but a saved hand is in progress"
                ))
                .into());
            }
            game.actions.push(action);
        }
        Ok(game)
    }
    fn save_config(config: &HeadConfig) -> Value {
        serde_json::json!({ "players": config.players, "rules": config.rules })
    }
    fn load_config(saved: &Value) -> Result<HeadConfig, EngineError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Saved {
            players: u8,
            rules: HeadRules,
        }
        let saved = Saved::deserialize(saved)
            .map_err(|e| StateError(format!("not a saved Panda Head env config: {e}")))?;
        saved.rules.validate_for(saved.players)?;
        Ok(HeadConfig {
            players: saved.players,
            rules: saved.rules,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::random::RandomBot;
    use crate::vecenv::{StepErrorOr, VecEnv};

    fn config() -> HeadConfig {
        HeadConfig {
            players: 4,
            rules: HeadRules::default(),
        }
    }

    /// Pick a uniformly random legal action per env from the masks.
    fn random_actions(masks: &[bool], bot: &mut RandomBot) -> Vec<i64> {
        masks
            .chunks(NUM_ACTIONS)
            .map(|m| {
                let bits = m
                    .iter()
                    .enumerate()
                    .fold(0u32, |acc, (i, &b)| acc | ((b as u32) << i));
                bot.pick(bits) as i64
            })
            .collect()
    }

    fn run(threads: usize, envs: usize, steps: usize) -> Vec<(Vec<f32>, Vec<f32>, Vec<bool>)> {
        let mut env = VecEnv::<HeadEnvGame>::new(config(), envs, Some(threads)).unwrap();
        let mut batch = env.reset(5).unwrap();
        let mut bot = RandomBot::new(1);
        let mut trace = Vec::new();
        for _ in 0..steps {
            let actions = random_actions(&batch.masks, &mut bot);
            batch = env.step(&actions).unwrap();
            trace.push((
                batch.observations.clone(),
                batch.rewards.clone(),
                batch.terminated.clone(),
            ));
        }
        trace
    }

    #[test]
    fn deterministic_whatever_the_thread_count() {
        // 600 envs: above MIN_PARALLEL_ENVS, so 2 and 3 threads really split the batch.
        let one = run(1, 600, 150);
        assert_eq!(one, run(2, 600, 150));
        assert_eq!(one, run(3, 600, 150));
        // Games end and reset within 150 steps, with +1/-1 rewards.
        let ended: usize = one
            .iter()
            .map(|(_, _, t)| t.iter().filter(|&&x| x).count())
            .sum();
        assert!(ended > 0);
        for (_, rewards, terminated) in &one {
            for (row, &t) in rewards.chunks(4).zip(terminated) {
                let sum: f32 = row.iter().sum();
                if t {
                    assert_eq!(sum, -2.0, "one winner: +1 -1 -1 -1");
                } else {
                    assert!(row.iter().all(|&r| r == 0.0));
                }
            }
        }
    }

    #[test]
    fn env_i_matches_a_single_game_from_its_seed() {
        let mut env = VecEnv::<HeadEnvGame>::new(config(), 3, Some(2)).unwrap();
        let batch = env.reset(11).unwrap();
        let seeds = crate::rng::SplitMix64::new(crate::rng::SplitMix64::nth_output(11, 2)).next();
        let game = HeadState::new(4, seeds, HeadRules::default()).unwrap();
        let p = game.current_player().unwrap();
        let obs = crate::head::observation::observation(&game, p);
        assert_eq!(&batch.observations[2 * OBSERVATION_SIZE..], &obs[..]);
        assert_eq!(batch.current_player[2], p as i64);
    }

    #[test]
    fn an_illegal_action_moves_no_env() {
        let mut env = VecEnv::<HeadEnvGame>::new(config(), 40, Some(2)).unwrap();
        let batch = env.reset(3).unwrap();
        let mut bot = RandomBot::new(2);
        let mut actions = random_actions(&batch.masks, &mut bot);
        let before: Vec<HeadEnvGame> = (0..40).map(|i| env.game(i).unwrap().clone()).collect();
        let bad = (0..NUM_ACTIONS as i64)
            .find(|&a| !batch.masks[37 * NUM_ACTIONS + a as usize])
            .unwrap();
        actions[37] = bad;
        match env.step(&actions) {
            Err(StepErrorOr::Step(e)) => {
                assert_eq!(e.env, 37);
                assert!(e.reason.contains("legal:"), "{}", e.reason);
            }
            other => panic!("expected a refused step, got {other:?}"),
        }
        for (i, b) in before.iter().enumerate() {
            assert_eq!(env.game(i).unwrap(), b);
        }
        assert!(env.step(&actions[..3]).is_err());
        actions[37] = 99;
        assert!(env.step(&actions).is_err());
    }

    #[test]
    fn a_saved_env_steps_like_the_original() {
        let mut env = VecEnv::<HeadEnvGame>::new(config(), 30, Some(2)).unwrap();
        let mut batch = env.reset(4).unwrap();
        let mut bot = RandomBot::new(6);
        for _ in 0..97 {
            batch = env.step(&random_actions(&batch.masks, &mut bot)).unwrap();
        }
        let mut copy = VecEnv::<HeadEnvGame>::load(&env.save()).unwrap();
        for _ in 0..300 {
            let actions = random_actions(&batch.masks, &mut bot);
            batch = env.step(&actions).unwrap();
            assert_eq!(copy.step(&actions).unwrap(), batch);
        }
        for i in 0..30 {
            assert_eq!(copy.episodes(i), env.episodes(i));
        }
        assert!(VecEnv::<HeadEnvGame>::load("{}").is_err());
        let tampered = env
            .save()
            .replacen("\"actions\":[", "\"actions\":[23,23,", 1);
        assert!(VecEnv::<HeadEnvGame>::load(&tampered).is_err());
    }

    #[test]
    fn an_interrupted_step_moves_nothing_or_asks_for_a_reset() {
        let mut env = VecEnv::<HeadEnvGame>::new(config(), 40, Some(2)).unwrap();
        let batch = env.reset(3).unwrap();
        let actions = random_actions(&batch.masks, &mut RandomBot::new(2));
        let before: Vec<HeadEnvGame> = env.games().cloned().collect();
        let stop = crate::interrupt::Interrupt::new();
        stop.stop();
        let r = env.step_as_until(&actions, crate::vecenv::ActionKind::Action, &stop);
        assert!(matches!(r, Err(StepErrorOr::Interrupted)));
        // Stopped while checking: nothing moved, the env is whole.
        assert!(!env.is_torn());
        assert!(env.games().cloned().eq(before));
        env.mark_torn();
        assert!(matches!(env.step(&actions), Err(StepErrorOr::Engine(_))));
        env.reset(3).unwrap();
        env.step(&actions).unwrap();
    }
}
