//! Time `VecEnv::step` for the climbing games without Python:
//! `cargo run --release --example vecenv_climb_step [ENVS STEPS]` (first unmasked action).

use std::time::Instant;

use panda_core::climb::encoding::NUM_ACTIONS;
use panda_core::climb::{ClimbSettings, Preset};
use panda_core::vecenv::climb::{ClimbConfig, ClimbEnvGame};
use panda_core::vecenv::VecEnv;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (envs, steps) = match args[..] {
        [envs, steps] => (envs, steps),
        _ => (256, 400),
    };
    for preset in [Preset::Year, Preset::Spin] {
        let config = ClimbConfig {
            players: 4,
            settings: ClimbSettings::preset(preset),
        };
        let mut env = VecEnv::<ClimbEnvGame>::new(config, envs, Some(1)).unwrap();
        let mut batch = env.reset(1).unwrap();
        let start = Instant::now();
        for _ in 0..steps {
            let actions: Vec<i64> = batch
                .masks
                .chunks(NUM_ACTIONS)
                .map(|m| m.iter().position(|&b| b).unwrap() as i64)
                .collect();
            batch = env.step(&actions).unwrap();
        }
        let ns = start.elapsed().as_nanos() as f64 / (steps * envs) as f64;
        println!("{preset:?} envs {envs}: {ns:7.1} ns per env-step");
    }
}
