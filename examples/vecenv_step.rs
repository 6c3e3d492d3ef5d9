//! Time `VecEnv::step` for Panda Head without Python: `cargo run --release --example vecenv_step`.
//! Prints nanoseconds per env-step for a few batch sizes and thread counts (first legal action).

use std::time::Instant;

use panda_core::head::{HeadRules, HeadState, NUM_ACTIONS};
use panda_core::vecenv::head::HeadConfig;
use panda_core::vecenv::VecEnv;

fn main() {
    // `vecenv_step ENVS STEPS [THREADS]` times one configuration (one thread: for callgrind).
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let cases: Vec<(usize, usize)> = match args[..] {
        [envs, _] => vec![(envs, 1)],
        [envs, _, threads] => vec![(envs, threads)],
        _ => vec![(1, 1), (64, 1), (1024, 1), (1024, 2)],
    };
    let total = args.get(1).map_or(2_000_000, |s| s * args[0]);
    for &(envs, threads) in &cases {
        let config = HeadConfig {
            players: 4,
            rules: HeadRules::default(),
        };
        let mut env = VecEnv::<HeadState>::new(config, envs, Some(threads)).unwrap();
        let mut batch = env.reset(1).unwrap();
        let steps = total / envs;
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
        println!("envs {envs:5} threads {threads}: {ns:7.1} ns per env-step");
    }
}
