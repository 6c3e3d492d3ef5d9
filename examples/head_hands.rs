//! Random 4-player hands on one thread, without Python:
//! `cargo run --release --example head_hands`.
use panda_core::head::{HeadRules, HeadState};
use panda_core::sim::simulate_rounds;
use std::time::Instant;

fn main() {
    let hands: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let t = Instant::now();
    let decisions = simulate_rounds::<HeadState>(hands, 4, &HeadRules::default(), 1).expect("sim");
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{hands} hands, {decisions} decisions in {secs:.3}s: {:.0} hands/s, {:.1} ns/decision",
        hands as f64 / secs,
        secs * 1e9 / decisions as f64
    );
}
