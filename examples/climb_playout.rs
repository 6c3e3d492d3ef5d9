//! Random-playout speed of the climbing games' state machine, for before/after comparisons of
//! changes to `apply`: `cargo run --release --example climb_playout [state|sim|game]` (all three
//! loops without an argument; `CLIMB_PLAYOUT_GAMES` sets the game count). One loop per run, so
//! a profiler (callgrind) can measure one alone.

use std::time::Instant;

/// CPU time of this thread in seconds (utime + stime of /proc/thread-self/stat, 100 Hz ticks):
/// on a shared machine it moves far less than wall time.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    let after_name = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<u64> = after_name
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    // Fields 14 and 15 of stat(5) are the 12th and 13th after the command name.
    (fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0)) as f64 / 100.0
}

/// Print one timing line: wall and CPU rates.
fn report(what: &str, name: &str, decisions: u64, wall: Instant, cpu: f64) {
    let secs = wall.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    eprintln!(
        "{what:12} {name:10} {decisions:9} decisions  wall {secs:6.2} s {:5.2} M/s  cpu {cpu:6.2} s {:5.2} M/s",
        decisions as f64 / secs / 1e6,
        decisions as f64 / cpu / 1e6
    );
}

use panda_core::bots::BotKind;
use panda_core::climb::{ClimbGame, ClimbSettings, ClimbState, Mood, Preset};
use panda_core::rng::SplitMix64;
use panda_core::sim::play_game;

fn settings() -> [(&'static str, ClimbSettings); 3] {
    [
        ("year", ClimbSettings::preset(Preset::Year)),
        (
            "year/flip",
            ClimbSettings::preset(Preset::Year).with_mood(Mood::Flip),
        ),
        ("spin", ClimbSettings::preset(Preset::Spin)),
    ]
}

/// Decisions of `games` uniformly random 4-player games on the bare state.
fn state_playouts(settings: &ClimbSettings, games: u64) -> u64 {
    let mut decisions = 0;
    let mut legal = Vec::new();
    for seed in 0..games {
        let mut st = ClimbState::new(4, seed, settings.clone()).unwrap();
        let mut rng = SplitMix64::new(seed ^ 0x5EED);
        while st.current_player().is_some() {
            st.legal_moves_into(&mut legal);
            let i = (rng.next() % legal.len() as u64) as usize;
            st.apply_legal(&legal[i]);
            decisions += 1;
        }
    }
    decisions
}

/// Decisions of `games` uniformly random 4-player games on a recorded game (history kept).
fn game_playouts(settings: &ClimbSettings, games: u64) -> u64 {
    let mut decisions = 0;
    for seed in 0..games {
        let mut game = ClimbGame::new(4, seed, settings.clone()).unwrap();
        let mut rng = SplitMix64::new(seed ^ 0x5EED);
        while game.state().current_player().is_some() {
            let legal = game.legal_moves();
            let i = (rng.next() % legal.len() as u64) as usize;
            game.apply_legal(&legal[i]);
            decisions += 1;
        }
    }
    decisions
}

/// Games per timing: `CLIMB_PLAYOUT_GAMES` (default 20 000; a small count suits callgrind).
fn games() -> u64 {
    std::env::var("CLIMB_PLAYOUT_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000)
}

fn time_state_loop() {
    for (name, s) in settings() {
        let (t, c) = (Instant::now(), cpu_seconds());
        let d = state_playouts(&s, games());
        report("state loop", name, d, t, c);
    }
}

fn time_sim_random() {
    let bots = [const { BotKind::Random }; 4];
    for (name, s) in settings() {
        let (t, c) = (Instant::now(), cpu_seconds());
        let mut d = 0u64;
        for seed in 0..games() {
            d += play_game::<ClimbState>(4, seed, &s, &bots)
                .unwrap()
                .decisions as u64;
        }
        report("sim random", name, d, t, c);
    }
}

fn time_game_loop() {
    for (name, s) in settings() {
        let (t, c) = (Instant::now(), cpu_seconds());
        let d = game_playouts(&s, games().div_ceil(4));
        report("game loop", name, d, t, c);
    }
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    if which.is_empty() || which == "state" {
        time_state_loop();
    }
    if which.is_empty() || which == "sim" {
        time_sim_random();
    }
    if which.is_empty() || which == "game" {
        time_game_loop();
    }
}
