//! Panda Head as a batched environment: the 96-float observation of
//! [`crate::head::observation`] and the 24 fixed action ids.

use super::{ActionKind, EnvGame};
use crate::error::EngineError;
use crate::head::action::{Action, NUM_ACTIONS};
use crate::head::observation::{observation_into_zeroed, OBSERVATION_SIZE};
use crate::head::{ActionId, HeadRules, HeadState};

/// Players and rules of every episode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadConfig {
    pub players: u8,
    pub rules: HeadRules,
}

impl EnvGame for HeadState {
    type Config = HeadConfig;
    type Checked = ActionId;
    /// A step costs about 0.15 µs: below a few hundred envs one thread is faster.
    const MIN_PARALLEL_ENVS: usize = 512;

    fn new_episode(config: &HeadConfig, seed: u64) -> Result<Self, EngineError> {
        HeadState::new(config.players, seed, config.rules)
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
        HeadState::current_player(self)
    }
    fn winner(&self) -> Option<u8> {
        HeadState::winner(self)
    }
    fn write_observation(&self, player: u8, out: &mut [f32]) {
        observation_into_zeroed(self, player, out);
    }
    fn write_mask(&self, out: &mut [bool]) {
        let legal = self.legal_actions();
        for (id, m) in out.iter_mut().enumerate() {
            *m = legal & (1 << id) != 0;
        }
    }
    fn check(&self, action: i64) -> Result<ActionId, String> {
        let legal = self.legal_actions();
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
            self.current_player().map_or(-1, |p| p as i64),
            names.join(", ")
        ))
    }
    fn apply(&mut self, action: ActionId) -> Result<(), EngineError> {
        self.apply_legal(action).map(|_| ())
    }
    /// Action ids; Panda Head has no separate move-index steps, so both kinds are ids.
    fn legal_list(&self, _kind: ActionKind) -> Vec<i64> {
        let legal = self.legal_actions();
        (0..NUM_ACTIONS as i64)
            .filter(|&id| legal & (1 << id) != 0)
            .collect()
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
        let mut env = VecEnv::<HeadState>::new(config(), envs, Some(threads)).unwrap();
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
        let mut env = VecEnv::<HeadState>::new(config(), 3, Some(2)).unwrap();
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
        let mut env = VecEnv::<HeadState>::new(config(), 40, Some(2)).unwrap();
        let batch = env.reset(3).unwrap();
        let mut bot = RandomBot::new(2);
        let mut actions = random_actions(&batch.masks, &mut bot);
        let before: Vec<HeadState> = (0..40).map(|i| env.game(i).unwrap().clone()).collect();
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
}
