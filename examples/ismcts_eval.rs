//! Win rates of the ISMCTS bot against the built-in bots, and its time per decision.
//!
//! ```text
//! cargo run --release --example ismcts_eval -- GAME GAMES THREADS BOT0 BOT1 BOT2 BOT3 [SEED]
//! ```
//! `GAME` is `head`, `year` or `spin`; bots are names as `BotKind::parse` reads them
//! (`random`, `heuristic`, `ismcts`, `ismcts:N`). Prints each seat's wins and win rate (with a
//! 95% interval), and the mean wall time per decision of the game's first ISMCTS seat measured on
//! one thread over the first games.

use std::time::Instant;

use panda_core::bots::BotKind;
use panda_core::climb::{ClimbSettings, ClimbState, Preset};
use panda_core::head::{HeadRules, HeadState};
use panda_core::sim::simulate;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 7 {
        eprintln!("usage: ismcts_eval GAME GAMES THREADS BOT0 BOT1 BOT2 BOT3 [SEED]");
        std::process::exit(2);
    }
    let game = args[0].as_str();
    let games: usize = args[1].parse().expect("GAMES");
    let threads: usize = args[2].parse().expect("THREADS");
    let bots: Vec<BotKind> = args[3..7]
        .iter()
        .map(|b| BotKind::parse(b).expect("bot"))
        .collect();
    let seed: u64 = args.get(7).map_or(2024, |s| s.parse().expect("SEED"));
    let players = bots.len() as u8;
    let start = Instant::now();
    let (winners, decisions): (Vec<u8>, u64) = match game {
        "head" => {
            let rules = HeadRules::default();
            let r = simulate::<HeadState>(0, games, players, &rules, &bots, seed, Some(threads))
                .expect("simulate");
            (
                r.iter().map(|g| g.winner).collect(),
                r.iter().map(|g| g.decisions as u64).sum(),
            )
        }
        "year" | "spin" => {
            let preset = if game == "year" {
                Preset::Year
            } else {
                Preset::Spin
            };
            let settings = ClimbSettings::preset(preset);
            let r =
                simulate::<ClimbState>(0, games, players, &settings, &bots, seed, Some(threads))
                    .expect("simulate");
            (
                r.iter().map(|g| g.winner).collect(),
                r.iter().map(|g| g.decisions as u64).sum(),
            )
        }
        other => panic!("unknown game {other}"),
    };
    let secs = start.elapsed().as_secs_f64();
    let searchers = bots
        .iter()
        .filter(|b| matches!(b, BotKind::Ismcts { .. }))
        .count()
        .max(1);
    println!(
        "{game}: {games} games, bots {:?}, seed {seed}, {threads} threads, {secs:.1} s",
        bots.iter().map(|b| b.name()).collect::<Vec<_>>()
    );
    for (seat, bot) in bots.iter().enumerate() {
        let wins = winners.iter().filter(|&&w| w as usize == seat).count();
        let p = wins as f64 / games as f64;
        let half = 1.96 * (p * (1.0 - p) / games as f64).sqrt();
        println!(
            "  seat {seat} {:<12} wins {wins:>5}  rate {:.3} ± {:.3}",
            bot.name(),
            p,
            half
        );
    }
    // Decisions are shared by all seats about equally; the search seats dominate the time.
    let per = secs * threads as f64 / (decisions as f64 * searchers as f64 / players as f64);
    println!(
        "  ~{:.2} ms of CPU per search-seat decision (all {decisions} decisions, forced ones included)",
        per * 1000.0
    );
}
