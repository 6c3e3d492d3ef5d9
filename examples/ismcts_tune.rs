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

use panda_core::climb::{ClimbSettings, ClimbState, Preset};
use panda_core::head::{HeadRules, HeadState};
use panda_core::rng::SplitMix64;
use panda_core::search::{Horizon, IsmctsBot, Rollout, SearchSettings, Searchable};

/// (winner, search decisions, search seconds)
fn play<G: Searchable>(seed: u64, game: &G::Settings, s: SearchSettings) -> (u8, u32, f64) {
    let mut st = G::new(4, seed, game).unwrap();
    let mut me = IsmctsBot::<G>::new(s, seed ^ 0xABCD);
    let (mut n, mut t) = (0, 0.0);
    let mut buf = Vec::new();
    while let Some(p) = st.current_player() {
        let m = if p == 0 {
            let c = Instant::now();
            let m = me.choose(&st, &mut buf).unwrap();
            t += c.elapsed().as_secs_f64();
            n += 1;
            m
        } else {
            st.heuristic_move(&mut buf).unwrap().into_move(&buf)
        };
        me.observe(&st, &m);
        st.apply_legal(&m).unwrap();
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
        ..SearchSettings::default_for::<HeadState>()
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
                    "head" => play::<HeadState>(s, &HeadRules::default(), settings),
                    "year" => play::<ClimbState>(s, &ClimbSettings::preset(Preset::Year), settings),
                    _ => play::<ClimbState>(s, &ClimbSettings::preset(Preset::Spin), settings),
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
