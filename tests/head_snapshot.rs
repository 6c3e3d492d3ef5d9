//! The Panda Head view and snapshot in the core: the JSON shape the Python API has always
//! returned (pinned by golden files), and `from_snapshot`, which rebuilds any position exactly
//! and refuses every broken one with a message, never a panic.

use panda_core::head::determinize::{Determinizer, HandLog};
use panda_core::head::snapshot::{parse_snapshot, HeadSnapshot};
use panda_core::head::{record, HeadGame, HeadRules, HeadState, LastPileScoring};
use panda_core::rng::SplitMix64;
use serde_json::Value;

const GOLDEN: &str = include_str!("fixtures/head_view/games.json");

fn rules_of(spec: &Value) -> HeadRules {
    serde_json::from_value(spec["rules"].clone()).unwrap()
}

/// The views and snapshots of the golden games, recorded from `HeadGame.view` / `snapshot` of
/// the Python API, come out of the core key for key (the order too) and value for value.
#[test]
fn view_and_snapshot_match_the_golden_python_dicts() {
    let games: Vec<Value> = serde_json::from_str(GOLDEN).unwrap();
    let mut checked = 0;
    for spec in &games {
        let players = spec["players"].as_u64().unwrap() as u8;
        let seed = spec["seed"].as_u64().unwrap();
        let actions: Vec<u8> = serde_json::from_value(spec["actions"].clone()).unwrap();
        let mut game = HeadGame::new(players, seed, rules_of(spec)).unwrap();
        let mut done = 0;
        for point in spec["checkpoints"].as_array().unwrap() {
            let moves = point["moves"].as_u64().unwrap() as usize;
            for &a in &actions[done..moves] {
                game.apply(a).unwrap();
            }
            done = moves;
            for (seat, want) in point["views"].as_array().unwrap().iter().enumerate() {
                let got = serde_json::to_string(&game.view(seat as u8)).unwrap();
                assert_eq!(got, want.to_string(), "view({seat}) after {moves} moves");
            }
            let got = serde_json::to_string(&game.snapshot()).unwrap();
            assert_eq!(
                got,
                point["snapshot"].to_string(),
                "snapshot after {moves} moves"
            );
            // The golden snapshot itself reads back into the same game.
            let snap = parse_snapshot(&point["snapshot"]).unwrap();
            let again = HeadGame::from_snapshot(snap, rules_of(spec)).unwrap();
            assert_eq!(again.snapshot(), game.snapshot());
            checked += 1;
        }
        assert!(game.state().is_over());
    }
    assert!(checked > 20);
}

fn pick(mask: u32, rng: &mut SplitMix64) -> u8 {
    let mut m = mask;
    for _ in 0..rng.next() % mask.count_ones() as u64 {
        m &= m - 1;
    }
    m.trailing_zeros() as u8
}

fn rules_for(i: u64) -> HeadRules {
    HeadRules {
        last_pile_scoring: if i % 2 == 0 {
            LastPileScoring::PileSum
        } else {
            LastPileScoring::OwnCard
        },
        poor_panda: i % 3 != 1,
        lowest_only_when_cannot_follow: i % 4 == 2,
        bust_threshold: [21, 9, 30][i as usize % 3],
        special_cards: i % 5 != 4,
        first_dealer: 0,
    }
}

/// Play `game` and `twin` by the same random legal moves and require the same snapshots and
/// the same events all along.
fn same_future(mut game: HeadGame, mut twin: HeadGame, seed: u64, steps: usize) {
    let mut rng = SplitMix64::new(seed);
    for _ in 0..steps {
        if game.state().is_over() {
            break;
        }
        assert_eq!(game.state().legal_actions(), twin.state().legal_actions());
        let id = pick(game.state().legal_actions(), &mut rng);
        let a = game.apply(id).unwrap().to_vec();
        let b = twin.apply(id).unwrap().to_vec();
        assert_eq!(a, b);
        assert_eq!(game.snapshot(), twin.snapshot());
    }
    assert_eq!(game.state().rng_state(), twin.state().rng_state());
}

/// `from_snapshot(snapshot())` at every point of seeded games (mid-pile, between piles, between
/// hands, over) is the same position: the same snapshot, legal moves and future, the same
/// generator; and its record replays.
#[test]
fn from_snapshot_reproduces_every_position() {
    for i in 0..10u64 {
        let players = 2 + (i % 4) as u8;
        let rules = rules_for(i);
        let mut game = HeadGame::new(players, 50 + i, rules).unwrap();
        let mut rng = SplitMix64::new(i);
        let mut step = 0;
        loop {
            let snap = game.snapshot();
            let again = HeadGame::from_snapshot(snap.clone(), rules)
                .unwrap_or_else(|e| panic!("game {i} step {step}: {e}"));
            assert_eq!(again.snapshot(), snap);
            let state = HeadState::from_snapshot(&snap, rules).unwrap();
            assert_eq!(state.snapshot().hands, snap.hands);
            if step % 7 == 0 {
                same_future(game.clone(), again.clone(), step, 40);
                let text = record::to_json(&again).unwrap();
                let back = record::from_json(&text).unwrap();
                assert_eq!(back.snapshot(), snap);
                assert_eq!(record::to_json(&back).unwrap(), text);
            }
            if game.state().is_over() {
                break;
            }
            let id = pick(game.state().legal_actions(), &mut rng);
            game.apply(id).unwrap();
            step += 1;
        }
    }
}

/// A determinized sample is a position the rules can reach, so its snapshot is accepted.
#[test]
fn determinized_samples_are_accepted() {
    for i in 0..6u64 {
        let players = 2 + (i % 4) as u8;
        let rules = rules_for(i);
        let mut game = HeadGame::new(players, 70 + i, rules).unwrap();
        let mut rng = SplitMix64::new(i);
        for step in 0..60 {
            if game.state().is_over() {
                break;
            }
            let seat = game.state().current_player().unwrap();
            let log = HandLog::from_game(&game);
            let sample = Determinizer::new(&log, seat)
                .unwrap()
                .sample(&mut SplitMix64::new(step));
            let snap = sample.snapshot();
            let back = HeadState::from_snapshot(&snap, rules)
                .unwrap_or_else(|e| panic!("game {i} step {step}: {e}"));
            assert_eq!(back.snapshot(), snap);
            let id = pick(game.state().legal_actions(), &mut rng);
            game.apply(id).unwrap();
        }
    }
}

fn refused(snap: &HeadSnapshot, rules: HeadRules, needle: &str) {
    match HeadGame::from_snapshot(snap.clone(), rules) {
        Ok(_) => panic!("accepted, expected a refusal about {needle:?}"),
        Err(e) => assert!(e.0.contains(needle), "{e} (expected {needle:?})"),
    }
}

/// Mid-pile positions with one thing wrong each are refused, saying what is wrong.
#[test]
fn broken_positions_are_refused_with_a_reason() {
    let rules = HeadRules::default();
    let mut game = HeadGame::new(4, 7, rules).unwrap();
    for id in [2, 5] {
        game.apply(id).unwrap(); // seat 1 leads a 3, seat 2 follows a 6
    }
    let good = game.snapshot();
    assert!(HeadGame::from_snapshot(good.clone(), rules).is_ok());
    let edit = |f: &dyn Fn(&mut HeadSnapshot)| {
        let mut s = good.clone();
        f(&mut s);
        s
    };
    let r = rules;
    refused(&edit(&|s| s.players = 6), r, "2 to 5 players");
    refused(
        &edit(&|s| s.scores.pop().map(drop).unwrap_or(())),
        r,
        "one entry per player",
    );
    refused(
        &edit(&|s| {
            let c = s.hands[1][0];
            s.hands[0].push(c)
        }),
        r,
        "more than once",
    );
    refused(
        &edit(&|s| s.hands[0].push(63)),
        r,
        "not a card of this deck",
    );
    refused(
        &edit(&|s| {
            s.draw_pile.pop();
        }),
        r,
        "missing",
    );
    refused(
        &edit(&|s| {
            let c = s.draw_pile.pop().unwrap();
            s.hands[0].push(c)
        }),
        r,
        "must hold 7 cards",
    );
    refused(&edit(&|s| s.scores[0] = 22), r, "above bust_threshold");
    refused(&edit(&|s| s.pooped[0] = true), r, "must be Drowsy too");
    refused(
        &edit(&|s| s.current_player = Some(0)),
        r,
        "current_player must be 3",
    );
    refused(
        &edit(&|s| s.current_player = None),
        r,
        "current_player must be 3",
    );
    refused(&edit(&|s| s.leader = 2), r, "left of dealer 0 (H-2.4)");
    refused(
        &edit(&|s| s.pile_plays[1].0 = 3),
        r,
        "pile play 1 must be by seat 2",
    );
    refused(&edit(&|s| s.winner = Some(1)), r, "no winner");
    refused(&edit(&|s| s.pile_plays[1].2 = 7), r, "effective value 6");
    refused(&edit(&|s| s.pile_plays[0].1 = 30), r, "no action id");
    refused(&edit(&|s| s.pile_number = 9), r, "pile_number must be");
    refused(
        &edit(&|s| s.is_over = true),
        r,
        "exactly one player not Pooped",
    );
    refused(&edit(&|s| s.dealer = 7), r, "dealer must be a seat");
    // Seat 2 played a 6 over the 3. Make it a 2 (below the 3) while it holds a 1: neither option
    // A nor its lowest Panda (H-3.2). Cards 2 (a 1) and 5 (a 2) come from the draw pile, the 6
    // and one card of the hand go back.
    let mut s = good.clone();
    assert!(s.draw_pile.contains(&2) && s.draw_pile.contains(&5));
    let six = s.pile_plays[1].3[0];
    let given = s.hands[2].remove(0);
    s.draw_pile.retain(|&c| c != 2 && c != 5);
    s.draw_pile.extend([six, given]);
    s.hands[2].insert(0, 2);
    s.pile_plays[1] = panda_core::head::view::PilePlay(2, 1, 2, vec![5]);
    refused(&s, r, "is not a legal play");
    refused(
        &edit(&|s| {
            s.hand_results
                .push(panda_core::head::snapshot::HandResultSnap {
                    hand: 3,
                    dealer: 0,
                    last_pile_winner: 0,
                    deltas: vec![0; 4],
                    scores: vec![0; 4],
                    new_drowsy: vec![],
                    new_pooped: vec![],
                })
        }),
        r,
        "the last hand result must be of hand",
    );
    let strict = serde_json::to_value(&good).unwrap();
    let mut missing = strict.clone();
    missing.as_object_mut().unwrap().remove("winner");
    assert!(parse_snapshot(&missing).unwrap_err().0.contains("winner"));
    let mut extra = strict;
    extra["surprise"] = Value::from(1);
    assert!(parse_snapshot(&extra).is_err());
}

/// A small deterministic fuzzer under `cargo test`: snapshots of seeded games with random edits
/// (a field replaced by a random value, a key dropped, a card moved between places, a list
/// entry changed) never panic; each one is refused or becomes a game whose snapshot round-trips
/// and that plays on.
#[test]
fn mutated_snapshots_never_panic() {
    let mut rng = SplitMix64::new(2026);
    let mut bases = Vec::new();
    for i in 0..6u64 {
        let rules = rules_for(i);
        let mut game = HeadGame::new(2 + (i % 4) as u8, 90 + i, rules).unwrap();
        let mut r = SplitMix64::new(i);
        let mut step = 0u64;
        while !game.state().is_over() {
            if step % 11 == 3 {
                bases.push((serde_json::to_value(game.snapshot()).unwrap(), rules));
            }
            game.apply(pick(game.state().legal_actions(), &mut r))
                .unwrap();
            step += 1;
        }
        bases.push((serde_json::to_value(game.snapshot()).unwrap(), rules));
    }
    let (mut accepted, mut refused) = (0, 0);
    for round in 0..6_000 {
        let (base, rules) = &bases[round % bases.len()];
        let mut doc = base.clone();
        for _ in 0..1 + rng.next() % 3 {
            mutate(&mut doc, &mut rng);
        }
        let Ok(snap) = parse_snapshot(&doc) else {
            refused += 1;
            continue;
        };
        match HeadGame::from_snapshot(snap, *rules) {
            Err(e) => {
                assert!(!e.0.is_empty());
                refused += 1;
            }
            Ok(mut game) => {
                accepted += 1;
                let snap = game.snapshot();
                let again = HeadGame::from_snapshot(snap.clone(), *rules).unwrap();
                assert_eq!(again.snapshot(), snap);
                for _ in 0..30 {
                    if game.state().is_over() {
                        break;
                    }
                    let id = pick(game.state().legal_actions(), &mut rng);
                    // An emptied draw pile is reported (H-4.6), never a panic.
                    if game.apply(id).is_err() {
                        break;
                    }
                }
            }
        }
    }
    assert!(refused > 3_000, "most edits must be refused, got {refused}");
    assert!(accepted > 50, "some edits must be accepted, got {accepted}");
}

const KEYS: [&str; 17] = panda_core::head::snapshot::SNAPSHOT_KEYS;

fn random_value(rng: &mut SplitMix64) -> Value {
    match rng.next() % 9 {
        0 => Value::from(rng.next() % 8),
        1 => Value::from(rng.next() % 70),
        2 => Value::from(-(1 + (rng.next() % 5) as i64)),
        3 => Value::from(u64::MAX - rng.next() % 3),
        4 => Value::Null,
        5 => Value::Bool(rng.next() % 2 == 0),
        6 => Value::Array(vec![]),
        7 => Value::from(22 + rng.next() % 10),
        _ => Value::from("x"),
    }
}

fn mutate(doc: &mut Value, rng: &mut SplitMix64) {
    let key = KEYS[(rng.next() % KEYS.len() as u64) as usize];
    let obj = doc.as_object_mut().unwrap();
    match rng.next() % 6 {
        0 => drop(obj.remove(key)),
        1 => {
            obj.insert(key.into(), random_value(rng));
        }
        // Move one card between the places that hold cards (keeps "every card once").
        2 | 3 => {
            let from = random_card_list(doc, rng);
            let to = random_card_list(doc, rng);
            if let (Some(from), Some(to)) = (from, to) {
                let card = {
                    let list = pointer_list(doc, &from);
                    if list.is_empty() {
                        return;
                    }
                    let at = (rng.next() % list.len() as u64) as usize;
                    list.remove(at)
                };
                pointer_list(doc, &to).push(card);
            }
        }
        // Change one entry of a list (a score, a flag, a play field, a card).
        _ => {
            if let Some(Value::Array(list)) = doc.as_object_mut().unwrap().get_mut(key) {
                if list.is_empty() {
                    return;
                }
                let at = (rng.next() % list.len() as u64) as usize;
                match &mut list[at] {
                    Value::Array(inner) if !inner.is_empty() => {
                        let j = (rng.next() % inner.len() as u64) as usize;
                        inner[j] = random_value(rng);
                    }
                    slot => *slot = random_value(rng),
                }
            }
        }
    }
}

/// A JSON pointer to a list of card ids: a hand, the draw pile, the discard or a play's cards.
fn random_card_list(doc: &Value, rng: &mut SplitMix64) -> Option<String> {
    let hands = doc.get("hands")?.as_array()?.len();
    let plays = doc.get("pile_plays")?.as_array()?.len();
    let k = rng.next() % (hands + plays + 2) as u64;
    let k = k as usize;
    let path = if k < hands {
        format!("/hands/{k}")
    } else if k < hands + plays {
        format!("/pile_plays/{}/3", k - hands)
    } else if k == hands + plays {
        "/draw_pile".into()
    } else {
        "/discard".into()
    };
    doc.pointer(&path)?.as_array()?;
    Some(path)
}

fn pointer_list<'a>(doc: &'a mut Value, path: &str) -> &'a mut Vec<Value> {
    doc.pointer_mut(path).unwrap().as_array_mut().unwrap()
}
