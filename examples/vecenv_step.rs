//! Time `VecEnv::step` without Python, the policy being "first legal action":
//!
//! ```text
//! cargo run --release --example vecenv_step                          # a few batch sizes, every game
//! cargo run --release --example vecenv_step -- GAME ENVS STEPS [THREADS]   # one case (callgrind)
//! ```
//! `GAME` is `head`, `year` or `spin`. Prints nanoseconds per env-step.

use std::time::Instant;

use panda_core::climb::{ClimbSettings, ClimbState, Preset};
use panda_core::head::{HeadRules, HeadState};
use panda_core::vecenv::{EnvConfig, EnvGame, VecEnv};

/// Nanoseconds per env-step of `steps` steps of `envs` envs on `threads` threads.
fn time_steps<G: EnvGame>(config: EnvConfig<G>, envs: usize, steps: usize, threads: usize) -> f64 {
    let mut env = VecEnv::<G>::new(config, envs, Some(threads)).expect("env");
    let mut batch = env.reset(1).expect("reset");
    let actions_per_env = env.num_actions();
    let start = Instant::now();
    for _ in 0..steps {
        let actions: Vec<i64> = batch
            .masks
            .chunks(actions_per_env)
            .map(|m| m.iter().position(|&b| b).expect("a legal action") as i64)
            .collect();
        batch = env.step(&actions).expect("step");
    }
    start.elapsed().as_nanos() as f64 / (steps * envs) as f64
}

fn run(game: &str, envs: usize, steps: usize, threads: usize) -> f64 {
    let climb = |preset| EnvConfig::<ClimbState> {
        players: 4,
        settings: ClimbSettings::preset(preset),
    };
    match game {
        "head" => {
            let config = EnvConfig::<HeadState> {
                players: 4,
                settings: HeadRules::default(),
            };
            time_steps::<HeadState>(config, envs, steps, threads)
        }
        "year" => time_steps::<ClimbState>(climb(Preset::Year), envs, steps, threads),
        "spin" => time_steps::<ClimbState>(climb(Preset::Spin), envs, steps, threads),
        other => panic!("unknown game {other:?}: head, year or spin"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize| args.get(i).map(|a| a.parse::<usize>().expect("a number"));
    if let (Some(game), Some(envs), Some(steps)) = (args.first(), num(1), num(2)) {
        let threads = num(3).unwrap_or(1);
        let ns = run(game, envs, steps, threads);
        println!("{game} envs {envs:5} threads {threads}: {ns:8.1} ns per env-step");
        return;
    }
    for game in ["head", "year", "spin"] {
        let work = if game == "head" { 2_000_000 } else { 200_000 };
        for (envs, threads) in [(1, 1), (64, 1), (1024, 1), (1024, 2)] {
            let ns = run(game, envs, work / envs, threads);
            println!("{game} envs {envs:5} threads {threads}: {ns:8.1} ns per env-step");
        }
    }
}
