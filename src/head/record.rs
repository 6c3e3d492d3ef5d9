//! The JSON game record: rules, start and actions; imported by replaying every action.
//!
//! ```json
//! {"format": "panda-core/head", "version": 1, "players": 4,
//!  "rules": {"last_pile_scoring": "pile_sum", ...},
//!  "start": {"seed": 42},            // or {"deal": {"hands": [[...]], "draw_pile": [...], ...}}
//!                                    // or {"snapshot": {...}} (HeadGame::from_snapshot)
//!  "actions": [3, 22, 14, ...]}
//! ```
//! Storing the start and the actions (not a state dump) makes a round trip exact by construction
//! and makes a corrupted or hostile document harmless: every action goes through the same legality
//! check as a live move, and any failure names the step.

use serde::{Deserialize, Serialize};

use super::action::ActionId;
use super::recorded::{HeadGame, Start};
use super::rules::{HeadRules, RULE_KEYS};
use super::snapshot::{HeadSnapshot, SNAPSHOT_KEYS};
use super::state::Deal;
use crate::error::{EngineError, StateError};

pub const FORMAT: &str = "panda-core/head";
pub const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
enum StartDoc {
    Seed(u64),
    Deal(Deal),
    /// A position rebuilt from a snapshot (any point of a game), under the record's rules.
    Snapshot(Box<HeadSnapshot>),
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct GameDoc {
    format: String,
    version: u32,
    players: u8,
    rules: HeadRules,
    start: StartDoc,
    actions: Vec<ActionId>,
}

/// Serialize a game to its JSON record. A game started from a determinization sample has none.
pub fn to_json(game: &HeadGame) -> Result<String, StateError> {
    let start = match game.start() {
        Start::Seed(s) => StartDoc::Seed(*s),
        Start::Deal(d) => StartDoc::Deal(d.clone()),
        Start::Snapshot(snap) => StartDoc::Snapshot(snap.clone()),
        Start::Sampled(_) => {
            return Err(StateError(
                "a game sampled by determinize() has no record: nothing replays to the sample \
                 (clone() copies it)"
                    .into(),
            ))
        }
    };
    let doc = GameDoc {
        format: FORMAT.into(),
        version: VERSION,
        players: game.state().players(),
        rules: *game.state().rules(),
        start,
        actions: game.history().iter().map(|s| s.action).collect(),
    };
    Ok(serde_json::to_string(&doc).expect("a game record always serializes"))
}

/// The keys of a deal document: a record states every one.
const DEAL_KEYS: [&str; 8] = [
    "hands",
    "draw_pile",
    "dealer",
    "scores",
    "drowsy",
    "pooped",
    "rng_state",
    "hand_number",
];

/// Rebuild a game from its JSON record, replaying and checking every action. The text is read
/// strictly: a repeated key is an error, and the rules (and a deal) must state every field, as
/// [`to_json`] writes them: nothing is filled in by default.
pub fn from_json(text: &str) -> Result<HeadGame, EngineError> {
    let bad = |msg: String| EngineError::State(StateError(msg));
    let value = crate::record::parse_json(text)
        .map_err(|e| bad(format!("not a panda-core game record: {e}")))?;
    crate::record::require_keys(&value, &["rules"], &RULE_KEYS, "the record's rules")?;
    crate::record::require_keys(&value, &["start", "deal"], &DEAL_KEYS, "the record's deal")?;
    crate::record::require_keys(
        &value,
        &["start", "snapshot"],
        &SNAPSHOT_KEYS,
        "the record's snapshot",
    )?;
    let doc: GameDoc = serde_json::from_value(value)
        .map_err(|e| bad(format!("not a panda-core game record: {e}")))?;
    crate::record::check_header(&doc.format, doc.version, FORMAT, VERSION)?;
    let mut game = match doc.start {
        StartDoc::Seed(seed) => HeadGame::new(doc.players, seed, doc.rules),
        StartDoc::Deal(deal) => HeadGame::from_deal(doc.players, deal, doc.rules),
        StartDoc::Snapshot(snap) if snap.players != doc.players => {
            return Err(bad(format!(
                "the record's players ({}) differ from its snapshot's ({})",
                doc.players, snap.players
            )))
        }
        StartDoc::Snapshot(snap) => HeadGame::from_snapshot(*snap, doc.rules).map_err(Into::into),
    }
    .map_err(|e| bad(format!("the record's start is not a valid game: {e}")))?;
    for (step, &action) in doc.actions.iter().enumerate() {
        game.apply(action).map_err(|e| {
            bad(format!(
                "action {step} of the record ({action}) cannot be replayed: {e}"
            ))
        })?;
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::head::NUM_ACTIONS;
    use crate::rng::SplitMix64;

    fn finished_game(seed: u64) -> HeadGame {
        let mut game = HeadGame::new(3, seed, HeadRules::default()).unwrap();
        let mut rng = SplitMix64::new(seed);
        while !game.state().is_over() {
            let id = (rng.next() % NUM_ACTIONS as u64) as u8;
            let _ = game.apply(id); // illegal ids are refused and change nothing
        }
        game
    }

    #[test]
    fn records_state_every_rule_and_repeat_no_key() {
        let text = to_json(&finished_game(4)).unwrap();
        let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        // The list of rule keys is the one records are written with.
        let written: Vec<&str> = doc["rules"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(written, RULE_KEYS);
        // Issue 8 item 9: `rules: {}` (or a rule left out) is refused, not defaulted.
        for drop in [None, Some("bust_threshold")] {
            let mut d = doc.clone();
            match drop {
                None => d["rules"] = serde_json::json!({}),
                Some(k) => {
                    d["rules"].as_object_mut().unwrap().remove(k);
                }
            }
            let e = from_json(&d.to_string()).unwrap_err().to_string();
            assert!(e.contains("rules") && e.contains("bust_threshold"), "{e}");
        }
        // A repeated key, at the top or nested.
        let dup = text.replacen("\"players\":3", "\"players\":3,\"players\":3", 1);
        assert!(from_json(&dup)
            .unwrap_err()
            .to_string()
            .contains("duplicate"));
        let dup = text.replacen(
            "\"poor_panda\":true",
            "\"poor_panda\":true,\"poor_panda\":false",
            1,
        );
        assert!(from_json(&dup)
            .unwrap_err()
            .to_string()
            .contains("duplicate"));
        // A deal states every key, hand_number included.
        let game = HeadGame::new(2, 5, HeadRules::default()).unwrap();
        let deal = Deal {
            hands: (0..2)
                .map(|s| crate::head::cards::ids(game.state().hand(s)))
                .collect(),
            draw_pile: game.state().draw_pile().to_vec(),
            dealer: 0,
            scores: vec![3, 4],
            drowsy: vec![false; 2],
            pooped: vec![false; 2],
            rng_state: 7,
            hand_number: 2,
        };
        let text = to_json(&HeadGame::from_deal(2, deal, HeadRules::default()).unwrap()).unwrap();
        assert!(from_json(&text).is_ok());
        doc = serde_json::from_str(&text).unwrap();
        doc["start"]["deal"]
            .as_object_mut()
            .unwrap()
            .remove("hand_number");
        let e = from_json(&doc.to_string()).unwrap_err().to_string();
        assert!(e.contains("hand_number"), "{e}");
    }

    #[test]
    fn scores_near_the_wrap_are_refused() {
        // Issue 8 item 9: a hand-built score near 2^32 used to wrap when a pile was won.
        let game = HeadGame::new(2, 5, HeadRules::default()).unwrap();
        let deal = |scores: Vec<u32>, pooped: Vec<bool>| Deal {
            hands: (0..2)
                .map(|s| crate::head::cards::ids(game.state().hand(s)))
                .collect(),
            draw_pile: game.state().draw_pile().to_vec(),
            dealer: 0,
            scores,
            drowsy: pooped.clone(),
            pooped,
            rng_state: 7,
            hand_number: crate::head::state::MAX_DEAL_HAND_NUMBER,
        };
        let rules = HeadRules {
            bust_threshold: u32::MAX,
            ..HeadRules::default()
        };
        assert!(rules.validate().is_err());
        let high = HeadRules {
            bust_threshold: crate::head::rules::MAX_SCORE,
            ..HeadRules::default()
        };
        assert!(high.validate().is_ok());
        let e = HeadGame::from_deal(2, deal(vec![u32::MAX - 3, 0], vec![false; 2]), high)
            .unwrap_err()
            .to_string();
        assert!(e.contains("largest score"), "{e}");
        // At the largest score and the last hand number, a whole game plays without wrapping.
        let max = crate::head::rules::MAX_SCORE;
        let mut g = HeadGame::from_deal(2, deal(vec![max, max], vec![false; 2]), high).unwrap();
        let mut rng = SplitMix64::new(3);
        while !g.state().is_over() {
            let id = (rng.next() % NUM_ACTIONS as u64) as u8;
            let _ = g.apply(id);
        }
        assert!(g.state().scores().iter().all(|&s| s >= max));
    }

    /// A game rebuilt from a mid-hand snapshot has a record: the snapshot and the moves after it.
    #[test]
    fn a_snapshot_start_records_and_replays() {
        let rules = HeadRules::default();
        let mut game = HeadGame::new(3, 4, rules).unwrap();
        let mut rng = SplitMix64::new(8);
        let mut play = |g: &mut HeadGame, moves: usize| {
            for _ in 0..moves {
                let legal: Vec<u8> =
                    crate::head::action::mask_ids(g.state().legal_actions()).collect();
                g.apply(legal[(rng.next() % legal.len() as u64) as usize])
                    .unwrap();
            }
        };
        play(&mut game, 10);
        let mut from = HeadGame::from_snapshot(game.snapshot(), rules).unwrap();
        play(&mut from, 5);
        let text = to_json(&from).unwrap();
        let back = from_json(&text).unwrap();
        assert_eq!(back.snapshot(), from.snapshot());
        assert_eq!(to_json(&back).unwrap(), text);
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut other = doc.clone();
        other["players"] = 4.into();
        let e = from_json(&other.to_string()).unwrap_err().to_string();
        assert!(e.contains("differ from its snapshot"), "{e}");
        let mut missing = doc;
        missing["start"]["snapshot"]
            .as_object_mut()
            .unwrap()
            .remove("winner");
        let e = from_json(&missing.to_string()).unwrap_err().to_string();
        assert!(e.contains("snapshot") && e.contains("winner"), "{e}");
    }

    #[test]
    fn round_trip_is_exact() {
        let game = finished_game(4);
        let text = to_json(&game).unwrap();
        let again = from_json(&text).unwrap();
        assert_eq!(again.state(), game.state());
        assert_eq!(again.history(), game.history());
        assert_eq!(to_json(&again).unwrap(), text);
    }

    /// A poor man's fuzzer that runs under `cargo test`: thousands of corrupted records (bytes
    /// flipped, cut, spliced) must each load or be refused with an error, never panic.
    #[test]
    fn corrupted_records_never_panic() {
        let text = to_json(&finished_game(9)).unwrap();
        let bytes = text.as_bytes();
        let mut rng = SplitMix64::new(1);
        let mut refused = 0;
        for _ in 0..5_000 {
            let mut doc = bytes.to_vec();
            for _ in 0..1 + rng.next() % 4 {
                let at = (rng.next() % doc.len() as u64) as usize;
                match rng.next() % 3 {
                    0 => doc[at] = b"0123456789[]{},:\"-ae"[(rng.next() % 20) as usize],
                    1 => doc.truncate(at.max(1)),
                    _ => {
                        let from = (rng.next() % bytes.len() as u64) as usize;
                        doc.splice(
                            at..at,
                            bytes[from..(from + 8).min(bytes.len())].iter().copied(),
                        );
                    }
                }
            }
            if let Ok(s) = std::str::from_utf8(&doc) {
                if from_json(s).is_err() {
                    refused += 1;
                }
            }
        }
        assert!(
            refused > 4_000,
            "most corruptions must be refused, got {refused}"
        );
    }
}
