//! Time legal-move generation on random 12-card positions, leading and following:
//! `cargo run --release --example climb_movegen`.
//!
//! Positions: a random 12-card hand of animal cards (each card blue with probability 1/4, so
//! wild Fire faces, drop Water faces and panda/bamboo faces all occur), led or following a play
//! taken at random from the leads of another random hand. Each position is timed over a batch of
//! repetitions into a reused buffer; the median over positions is printed in nanoseconds. The
//! second part times `ClimbState::legal_moves_into` (flip/steal expansion included) on the
//! positions met in random games (all of them, and those where the player to move holds 12
//! animal cards), and the time of whole random games.
use std::hint::black_box;
use std::time::Instant;

use panda_core::climb::cards::{self, CardSet};
use panda_core::climb::combo::classify_play;
use panda_core::climb::movegen::combinations;
use panda_core::climb::{ClimbSettings, ClimbState, Deck, Mood, Move, Preset, Shape};
use panda_core::rng::SplitMix64;

const POSITIONS: usize = 20_000;
const REPS: u32 = 32;

fn random_hand(g: &mut SplitMix64, size: u32) -> CardSet {
    let mut hand: CardSet = 0;
    while hand.count_ones() < size {
        hand |= cards::bit((g.next() % 65) as u8);
    }
    hand
}

fn random_blue(g: &mut SplitMix64, hand: CardSet) -> CardSet {
    cards::ids(hand)
        .filter(|_| g.next() % 4 == 0)
        .fold(0, |a, id| a | cards::bit(id))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn time_positions(deck: &Deck, positions: &[(CardSet, CardSet, Option<Shape>)]) -> (f64, f64, f64) {
    let mut out: Vec<Move> = Vec::with_capacity(256);
    let mut per = Vec::with_capacity(positions.len());
    let mut moves = 0usize;
    for (hand, blue, to_beat) in positions {
        let t = Instant::now();
        for _ in 0..REPS {
            out.clear();
            combinations(
                deck,
                black_box(*hand),
                black_box(*blue),
                to_beat.as_ref(),
                &mut out,
            );
            black_box(&out);
        }
        per.push(t.elapsed().as_nanos() as f64 / REPS as f64);
        moves += out.len();
    }
    let mean = per.iter().sum::<f64>() / per.len() as f64;
    (median(per), mean, moves as f64 / positions.len() as f64)
}

fn main() {
    let deck = Deck::reconstructed();
    let mut g = SplitMix64::new(2024);
    let mut leading = Vec::with_capacity(POSITIONS);
    let mut following = Vec::with_capacity(POSITIONS);
    let mut scratch = Vec::new();
    while following.len() < POSITIONS {
        let hand = random_hand(&mut g, 12);
        let blue = random_blue(&mut g, hand);
        leading.push((hand, blue, None));
        let other = random_hand(&mut g, 12);
        let other_blue = random_blue(&mut g, other);
        scratch.clear();
        combinations(&deck, other, other_blue, None, &mut scratch);
        let m: &Move = &scratch[(g.next() % scratch.len() as u64) as usize];
        let shape = classify_play(&deck, m.cards, other_blue, &m.named, false)
            .expect("a generated play classifies")
            .shape;
        following.push((hand, blue, Some(shape)));
    }
    let (med, mean, n) = time_positions(&deck, &leading);
    println!(
        "leading   12-card hands: median {med:.0} ns, mean {mean:.0} ns, {n:.1} moves on average"
    );
    let (med, mean, n) = time_positions(&deck, &following);
    println!(
        "following 12-card hands: median {med:.0} ns, mean {mean:.0} ns, {n:.1} moves on average"
    );

    // Whole legal-move lists on positions met in random games: all positions, and those where
    // the player to move holds exactly 12 cards, leading or following.
    for (name, settings) in [
        ("year/hungry", ClimbSettings::preset(Preset::Year)),
        (
            "year/flip",
            ClimbSettings::preset(Preset::Year).with_mood(Mood::Flip),
        ),
        ("spin", ClimbSettings::preset(Preset::Spin)),
    ] {
        let mut states = Vec::new();
        let mut seed = 0;
        while states.len() < POSITIONS {
            let mut st = ClimbState::new(4, seed, settings.clone()).unwrap();
            seed += 1;
            let mut legal = Vec::new();
            while let Some(_p) = st.current_player() {
                st.legal_moves_into(&mut legal);
                states.push(st.clone());
                let i = (g.next() % legal.len() as u64) as usize;
                st.apply_legal(&legal[i]);
            }
        }
        let mut out = Vec::with_capacity(256);
        let mut all = Vec::new();
        let mut lead12 = Vec::new();
        let mut follow12 = Vec::new();
        for st in &states {
            let t = Instant::now();
            for _ in 0..REPS {
                black_box(st).legal_moves_into(&mut out);
                black_box(&out);
            }
            let ns = t.elapsed().as_nanos() as f64 / REPS as f64;
            all.push(ns);
            let p = st.current_player().unwrap();
            if (st.hand(p) & cards::ANIMALS).count_ones() == 12 {
                if st.to_beat().is_none() {
                    lead12.push(ns);
                } else {
                    follow12.push(ns);
                }
            }
        }
        println!(
            "{name:<12} game positions ({} from {seed} random 4-player games): median {:.0} ns; \
             12 animal cards leading ({}): {:.0} ns, following ({}): {:.0} ns",
            states.len(),
            median(all),
            lead12.len(),
            median(lead12),
            follow12.len(),
            median(follow12)
        );
    }

    // Whole random 4-player games, one thread.
    for (name, settings) in [
        ("year", ClimbSettings::preset(Preset::Year)),
        ("spin", ClimbSettings::preset(Preset::Spin)),
    ] {
        let games = 2000;
        let bots = [const { panda_core::bots::BotKind::Random }; 4];
        let t = Instant::now();
        let out =
            panda_core::sim::simulate::<ClimbState>(0, games, 4, &settings, &bots, 1, Some(1))
                .unwrap();
        let secs = t.elapsed().as_secs_f64();
        let rounds: u64 = out.iter().map(|o| o.rounds as u64).sum();
        let decisions: u64 = out.iter().map(|o| o.decisions as u64).sum();
        println!(
            "{name}: {games} random 4-player games in {secs:.2} s on one thread: {:.1} µs per round, \
             {:.0} ns per decision",
            secs * 1e6 / rounds as f64,
            secs * 1e9 / decisions as f64
        );
    }
}
