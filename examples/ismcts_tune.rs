//! Compare ISMCTS settings (rollout policy, horizon, iterations) against three heuristic bots.
//!
//! ```text
//! cargo run --release --example ismcts_tune -- GAME GAMES ROLLOUT HORIZON ITERATIONS [SEED]
//! ```
//! `GAME`: `head`, `year`, `spin`; `ROLLOUT`: `random` or `heuristic`; `HORIZON`: `hand` (the
//! hand / round) or `game`. Seat 0 searches, seats 1-3 are heuristic; 2 threads. Prints the
//! search seat's win rate and the CPU time per search decision.

use std::time::Instant;

use rayon::prelude::*;

use panda_core::bots::climb_heuristic::ClimbHeuristicBot;
use panda_core::bots::head_heuristic::HeuristicBot;
use panda_core::bots::{ClimbBot, HeadBot};
use panda_core::climb::{ClimbSettings, ClimbState, Preset};
use panda_core::head::{HeadRules, HeadState};
use panda_core::rng::SplitMix64;
use panda_core::search::climb::ClimbIsmctsBot;
use panda_core::search::head::HeadIsmctsBot;
use panda_core::search::{Horizon, Rollout, SearchSettings};

/// (winner, search decisions, search seconds)
fn head_game(seed: u64, s: SearchSettings) -> (u8, u32, f64) {
    let mut st = HeadState::new(4, seed, HeadRules::default()).unwrap();
    let mut me = HeadIsmctsBot::new(s, seed ^ 0xABCD);
    let (mut n, mut t) = (0, 0.0);
    while let Some(p) = st.current_player() {
        let legal = st.legal_actions();
        let a = if p == 0 {
            let c = Instant::now();
            let a = me.choose(&st, legal);
            t += c.elapsed().as_secs_f64();
            n += 1;
            a
        } else {
            HeuristicBot.choose(&st, legal)
        };
        me.observe(&st, a);
        st.apply_legal(a).unwrap();
    }
    (st.winner().unwrap(), n, t)
}

fn climb_game(seed: u64, preset: Preset, s: SearchSettings) -> (u8, u32, f64) {
    let mut st = ClimbState::new(4, seed, ClimbSettings::preset(preset)).unwrap();
    let mut me = ClimbIsmctsBot::new(s, seed ^ 0xABCD);
    let (mut n, mut t) = (0, 0.0);
    let mut legal = Vec::new();
    while let Some(p) = st.current_player() {
        st.legal_moves_into(&mut legal);
        let i = if p == 0 {
            let c = Instant::now();
            let i = me.choose(&st, &legal);
            t += c.elapsed().as_secs_f64();
            n += 1;
            i
        } else {
            ClimbHeuristicBot.choose(&st, &legal)
        };
        me.observe(&st, &legal[i]);
        st.apply_legal(&legal[i]);
    }
    (st.winner().unwrap(), n, t)
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let game = a[0].clone();
    let games: u64 = a[1].parse().unwrap();
    let rollout = match a[2].as_str() {
        "random" => Rollout::Random,
        _ => Rollout::Heuristic,
    };
    let horizon = match a[3].as_str() {
        "game" => Horizon::Game,
        _ => Horizon::Hand,
    };
    let iterations: u32 = a[4].parse().unwrap();
    let seed: u64 = a.get(5).map_or(7, |s| s.parse().unwrap());
    let settings = SearchSettings {
        rollout,
        horizon,
        ..SearchSettings::head_default()
    }
    .with_iterations(iterations);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let start = Instant::now();
    let res: Vec<(u8, u32, f64)> = pool.install(|| {
        (0..games)
            .into_par_iter()
            .map(|k| {
                let s = SplitMix64::nth_output(seed, k);
                match game.as_str() {
                    "head" => head_game(s, settings),
                    "year" => climb_game(s, Preset::Year, settings),
                    _ => climb_game(s, Preset::Spin, settings),
                }
            })
            .collect()
    });
    let wins = res.iter().filter(|r| r.0 == 0).count();
    let n: u32 = res.iter().map(|r| r.1).sum();
    let t: f64 = res.iter().map(|r| r.2).sum();
    let p = wins as f64 / games as f64;
    println!(
        "{game} {:?} {:?} it={iterations}: win {:.3} ± {:.3} ({wins}/{games}), {:.2} ms/decision, {:.1} s",
        rollout,
        horizon,
        p,
        1.96 * (p * (1.0 - p) / games as f64).sqrt(),
        t / n as f64 * 1000.0,
        start.elapsed().as_secs_f64()
    );
}
