//! Writes the seed corpus `fuzz/corpus/<target>/` from games the engine plays itself:
//! `cargo run --manifest-path fuzz/Cargo.toml --example make_corpus` (from the repository root).
//! Every file is small (a record, a snapshot, a deck, a move), so the corpus stays well under 1 MB.

use std::fs;
use std::path::Path;

use panda_core::climb::deck::Deck;
use panda_core::climb::notation::move_json;
use panda_core::climb::{self, ClimbGame, ClimbSettings, Mood, Preset};
use panda_core::head::{self, Deal, HeadGame, HeadRules, LastPileScoring, NUM_ACTIONS};
use panda_core::rng::SplitMix64;

fn write(target: &str, name: &str, bytes: &[u8]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join(name), bytes).unwrap();
}

/// A Panda Head game of at most `steps` random legal decisions.
fn head_game(players: u8, seed: u64, rules: HeadRules, steps: usize) -> HeadGame {
    let mut g = HeadGame::new(players, seed, rules).unwrap();
    let mut rng = SplitMix64::new(seed);
    for _ in 0..steps {
        let mask = g.state().legal_actions();
        if g.state().is_over() {
            break;
        }
        let legal: Vec<u8> = (0..NUM_ACTIONS as u8)
            .filter(|&i| mask >> i & 1 == 1)
            .collect();
        g.apply(legal[(rng.next() % legal.len() as u64) as usize])
            .unwrap();
    }
    g
}

fn climb_game(players: u8, seed: u64, settings: ClimbSettings, steps: usize) -> ClimbGame {
    let mut g = ClimbGame::new(players, seed, settings).unwrap();
    let mut rng = SplitMix64::new(seed);
    for _ in 0..steps {
        let legal = g.legal_moves();
        if legal.is_empty() {
            break;
        }
        g.apply(&legal[(rng.next() % legal.len() as u64) as usize].clone())
            .unwrap();
    }
    g
}

fn main() {
    // head_record: short and whole games over the rule variants.
    let own = HeadRules {
        last_pile_scoring: LastPileScoring::OwnCard,
        ..HeadRules::default()
    };
    let regular = HeadRules {
        special_cards: false,
        poor_panda: false,
        ..HeadRules::default()
    };
    for (i, (players, rules, steps)) in [
        (2, own, 5),
        (4, HeadRules::default(), 40),
        (5, regular, 10_000),
        (3, HeadRules::default(), 10_000),
    ]
    .into_iter()
    .enumerate()
    {
        let g = head_game(players, 7 + i as u64, rules, steps);
        write(
            "head_record",
            &format!("record_{i}.json"),
            head::record::to_json(&g).unwrap().as_bytes(),
        );
    }
    // A record that starts from an explicit deal (scores, Drowsy and Pooped seats included).
    let deal = Deal {
        hands: vec![(0..7).collect(), vec![], (7..14).collect()],
        draw_pile: (14..63).collect(),
        dealer: 2,
        scores: vec![20, 30, 3],
        drowsy: vec![true, true, false],
        pooped: vec![false, true, false],
        rng_state: 99,
        hand_number: 4,
    };
    let mut g = HeadGame::from_deal(3, deal, HeadRules::default()).unwrap();
    for _ in 0..6 {
        let mask = g.state().legal_actions();
        g.apply(mask.trailing_zeros() as u8).unwrap();
    }
    write(
        "head_record",
        "record_deal.json",
        head::record::to_json(&g).unwrap().as_bytes(),
    );
    // climb_record, climb_snapshot, climb_notation: every preset/mood, early and late positions.
    let settings = [
        ClimbSettings::preset(Preset::Year),
        ClimbSettings::preset(Preset::Year).with_mood(Mood::Flip),
        ClimbSettings::preset(Preset::Spin),
    ];
    let mut notations = Vec::new();
    for (i, s) in settings.iter().enumerate() {
        for (j, steps) in [3usize, 60].into_iter().enumerate() {
            let g = climb_game(3 + i as u8, 11 + i as u64, s.clone(), steps);
            write(
                "climb_record",
                &format!("record_{i}_{j}.json"),
                climb::record::to_json(&g).as_bytes(),
            );
            let snap = serde_json::to_string(&g.snapshot()).unwrap();
            write(
                "climb_snapshot",
                &format!("snapshot_{i}_{j}.json"),
                snap.as_bytes(),
            );
            for m in g.legal_moves().iter().take(3) {
                notations.push(m.notation());
                notations.push(move_json(m).to_string());
            }
            for (_, m) in g.history().iter().rev().take(3) {
                notations.push(m.notation());
            }
        }
    }
    // A record started from a snapshot, and one with its own deck (one face changed).
    let g = climb_game(4, 21, ClimbSettings::default(), 30);
    let mut from = ClimbGame::from_snapshot(g.snapshot(), Deck::reconstructed()).unwrap();
    let m = from.legal_moves()[0].clone();
    from.apply(&m).unwrap();
    write(
        "climb_record",
        "record_from_snapshot.json",
        climb::record::to_json(&from).as_bytes(),
    );
    let mut doc = Deck::reconstructed().doc().clone();
    doc["cards"][20]["blue"] =
        serde_json::json!({"units": ["wild", "wild"], "symbols": ["fire", "fire"]});
    let deck = std::sync::Arc::new(Deck::from_json_value(&doc, "corpus").unwrap());
    let s = ClimbSettings {
        deck,
        ..ClimbSettings::preset(Preset::Spin)
    };
    let g = climb_game(3, 5, s, 25);
    write(
        "climb_record",
        "record_custom_deck.json",
        climb::record::to_json(&g).as_bytes(),
    );
    notations.sort();
    notations.dedup();
    for (k, n) in notations.iter().enumerate() {
        write("climb_notation", &format!("move_{k:02}"), n.as_bytes());
    }
    // climb_deck: mode byte 0 = TOML text, 1 = JSON text, 2 = edits of the shipped deck.
    let toml = panda_core::climb::deck::RECONSTRUCTED_TOML;
    write(
        "climb_deck",
        "shipped.toml",
        &[&[0u8][..], toml.as_bytes()].concat(),
    );
    let json = serde_json::to_string(Deck::reconstructed().doc()).unwrap();
    write(
        "climb_deck",
        "shipped.json",
        &[&[1u8][..], json.as_bytes()].concat(),
    );
    for k in 0..4u8 {
        let bytes: Vec<u8> = (0..48u8)
            .map(|i| i.wrapping_mul(37).wrapping_add(k * 11))
            .collect();
        write(
            "climb_deck",
            &format!("edits_{k}"),
            &[&[2u8][..], &bytes].concat(),
        );
    }
    // legal_moves_are_legal: a few byte strings (first bit picks the game).
    for k in 0..8u8 {
        let bytes: Vec<u8> = (0..96u8)
            .map(|i| i.wrapping_mul(29).wrapping_add(k.wrapping_mul(53)) ^ k)
            .collect();
        write("legal_moves_are_legal", &format!("seed_{k}"), &bytes);
    }
}
