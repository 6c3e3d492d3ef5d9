//! Quick batch-simulation throughput check without Python, every game, 4 random bots, 1 thread:
//! `cargo run --release --example head_throughput [-- GAMES]`.
use panda_core::bots::BotKind;
use panda_core::climb::{ClimbSettings, ClimbState, Preset};
use panda_core::head::{HeadRules, HeadState};
use panda_core::sim::simulate;
use panda_core::sim::SimGame;
use std::time::Instant;

fn rate<G: SimGame>(name: &str, games: usize, settings: &G::Settings) {
    let bots = [const { BotKind::Random }; 4];
    let t = Instant::now();
    let out = simulate::<G>(0, games, 4, settings, &bots, 1, Some(1)).expect("sim");
    let secs = t.elapsed().as_secs_f64();
    let rounds: u64 = out.iter().map(|g| g.rounds as u64).sum();
    let decisions: u64 = out.iter().map(|g| g.decisions as u64).sum();
    println!(
        "{name}: {games} games, {rounds} rounds, {decisions} decisions in {secs:.3}s on 1 thread: \
         {:.2} M decisions/s",
        decisions as f64 / secs / 1e6
    );
}

fn main() {
    let games: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    rate::<HeadState>("head", games, &HeadRules::default());
    rate::<ClimbState>("year", games / 10, &ClimbSettings::preset(Preset::Year));
    rate::<ClimbState>("spin", games / 10, &ClimbSettings::preset(Preset::Spin));
}
