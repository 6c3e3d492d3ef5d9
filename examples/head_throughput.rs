//! Quick throughput check without Python: `cargo run --release --example head_throughput`.
use panda_core::bots::BotKind;
use panda_core::head::HeadRules;
use panda_core::sim::simulate_head;
use std::time::Instant;

fn main() {
    let games = 200_000;
    let bots = [BotKind::Random; 4];
    let t = Instant::now();
    let out = simulate_head(0, games, 4, HeadRules::default(), &bots, 1, Some(1)).expect("sim");
    let secs = t.elapsed().as_secs_f64();
    let hands: u64 = out.iter().map(|g| g.hands as u64).sum();
    let decisions: u64 = out.iter().map(|g| g.decisions as u64).sum();
    println!(
        "{games} games, {hands} hands, {decisions} decisions in {secs:.3}s on 1 thread: \
         {:.0} hands/s, {:.0} decisions/s",
        hands as f64 / secs,
        decisions as f64 / secs
    );
}
