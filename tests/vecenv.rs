//! The vector environment on every game: determinism whatever the threads, refused steps that
//! move no env, save/load, interrupts, move-index steps and move features.

use panda_core::climb::encoding::{self, MOVE_FEATURES};
use panda_core::climb::snapshot::snapshot;
use panda_core::climb::{ClimbSettings, ClimbState, Mood, Preset};
use panda_core::head::action::NUM_ACTIONS;
use panda_core::head::observation::OBSERVATION_SIZE;
use panda_core::head::random::pick;
use panda_core::head::{HeadRules, HeadState};
use panda_core::rng::SplitMix64;
use panda_core::vecenv::{ActionKind, EnvConfig, StepErrorOr, VecEnv};

fn config() -> EnvConfig<HeadState> {
    EnvConfig {
        players: 4,
        settings: HeadRules::default(),
    }
}

/// Pick a uniformly random legal action per env from the masks.
fn head_random_actions(masks: &[bool], bot: &mut SplitMix64) -> Vec<i64> {
    masks
        .chunks(NUM_ACTIONS)
        .map(|m| {
            let bits = m
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, &b)| acc | ((b as u32) << i));
            pick(bot, bits) as i64
        })
        .collect()
}

fn head_run(threads: usize, envs: usize, steps: usize) -> Vec<(Vec<f32>, Vec<f32>, Vec<bool>)> {
    let mut env = VecEnv::<HeadState>::new(config(), envs, Some(threads)).unwrap();
    let mut batch = env.reset(5).unwrap();
    let mut bot = SplitMix64::new(1);
    let mut trace = Vec::new();
    for _ in 0..steps {
        let actions = head_random_actions(&batch.masks, &mut bot);
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
fn head_deterministic_whatever_the_thread_count() {
    // 600 envs: above MIN_PARALLEL_ENVS, so 2 and 3 threads really split the batch.
    let one = head_run(1, 600, 150);
    assert_eq!(one, head_run(2, 600, 150));
    assert_eq!(one, head_run(3, 600, 150));
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
    let seeds = SplitMix64::new(SplitMix64::nth_output(11, 2)).next();
    let game = HeadState::new(4, seeds, HeadRules::default()).unwrap();
    let p = game.current_player().unwrap();
    let obs = panda_core::head::observation::observation(&game, p);
    assert_eq!(&batch.observations[2 * OBSERVATION_SIZE..], &obs[..]);
    assert_eq!(batch.current_player[2], p as i64);
}

#[test]
fn an_illegal_action_moves_no_env() {
    let mut env = VecEnv::<HeadState>::new(config(), 40, Some(2)).unwrap();
    let batch = env.reset(3).unwrap();
    let mut bot = SplitMix64::new(2);
    let mut actions = head_random_actions(&batch.masks, &mut bot);
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

#[test]
fn a_saved_env_steps_like_the_original() {
    let mut env = VecEnv::<HeadState>::new(config(), 30, Some(2)).unwrap();
    let mut batch = env.reset(4).unwrap();
    let mut bot = SplitMix64::new(6);
    for _ in 0..97 {
        batch = env
            .step(&head_random_actions(&batch.masks, &mut bot))
            .unwrap();
    }
    let mut copy = VecEnv::<HeadState>::load(&env.save()).unwrap();
    for _ in 0..300 {
        let actions = head_random_actions(&batch.masks, &mut bot);
        batch = env.step(&actions).unwrap();
        assert_eq!(copy.step(&actions).unwrap(), batch);
    }
    for i in 0..30 {
        assert_eq!(copy.episodes(i), env.episodes(i));
    }
    assert!(VecEnv::<HeadState>::load("{}").is_err());
    let tampered = env
        .save()
        .replacen("\"actions\":[", "\"actions\":[23,23,", 1);
    assert!(VecEnv::<HeadState>::load(&tampered).is_err());
}

#[test]
fn an_interrupted_step_moves_nothing_or_asks_for_a_reset() {
    let mut env = VecEnv::<HeadState>::new(config(), 40, Some(2)).unwrap();
    let batch = env.reset(3).unwrap();
    let actions = head_random_actions(&batch.masks, &mut SplitMix64::new(2));
    let before: Vec<HeadState> = env.games().cloned().collect();
    let stop = panda_core::interrupt::Interrupt::new();
    stop.stop();
    let r = env.step_as_until(&actions, ActionKind::Action, &stop);
    assert!(matches!(r, Err(StepErrorOr::Interrupted)));
    // Stopped while checking: nothing moved, the env is whole.
    assert!(!env.is_torn());
    assert!(env.games().cloned().eq(before));
    env.mark_torn();
    assert!(matches!(env.step(&actions), Err(StepErrorOr::Engine(_))));
    env.reset(3).unwrap();
    env.step(&actions).unwrap();
}

fn climb_config(preset: Preset, players: u8) -> EnvConfig<ClimbState> {
    let settings = ClimbSettings {
        preset,
        mood: Mood::Hungry,
        ..ClimbSettings::default()
    };
    EnvConfig { players, settings }
}

/// A uniformly random unmasked abstract action per env.
fn climb_random_actions(masks: &[bool], rng: &mut SplitMix64) -> Vec<i64> {
    masks
        .chunks(encoding::NUM_ACTIONS)
        .map(|m| {
            let legal: Vec<usize> = (0..m.len()).filter(|&a| m[a]).collect();
            legal[(rng.next() % legal.len() as u64) as usize] as i64
        })
        .collect()
}

fn trace(threads: usize, preset: Preset) -> Vec<(Vec<f32>, Vec<f32>, Vec<i64>)> {
    let mut env = VecEnv::<ClimbState>::new(climb_config(preset, 3), 40, Some(threads)).unwrap();
    let mut batch = env.reset(7).unwrap();
    let mut rng = SplitMix64::new(3);
    let mut out = Vec::new();
    for _ in 0..300 {
        let actions = climb_random_actions(&batch.masks, &mut rng);
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
fn climb_deterministic_whatever_the_thread_count_and_games_end() {
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
    let mut env = VecEnv::<ClimbState>::new(climb_config(Preset::Spin, 4), 5, Some(1)).unwrap();
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
            let own = encoding::move_features(g, env.legal(i).unwrap().moves());
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
    let mut env = VecEnv::<ClimbState>::new(climb_config(Preset::Year, 4), 50, Some(2)).unwrap();
    let batch = env.reset(2).unwrap();
    let before: Vec<ClimbState> = env.games().cloned().collect();
    let mut rng = SplitMix64::new(9);
    let mut actions = climb_random_actions(&batch.masks, &mut rng);
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
        assert_eq!(snapshot(g, &[]), snapshot(b, &[]));
    }
}

/// A position with more legal moves than the cap fails the step: an engine error, not a
/// silently truncated mask.
#[test]
fn a_saved_env_with_a_bad_game_is_refused() {
    let mut env = VecEnv::<ClimbState>::new(climb_config(Preset::Year, 3), 4, Some(1)).unwrap();
    env.reset(1).unwrap();
    let text = env.save();
    assert!(VecEnv::<ClimbState>::load(&text).is_ok());
    let broken = text.replacen("\"players\":3", "\"players\":9", 1);
    assert!(VecEnv::<ClimbState>::load(&broken).is_err());
}
