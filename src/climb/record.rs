//! The JSON game record: settings, start and moves in notation; imported by replaying every move.
//!
//! ```json
//! {"format": "panda-core/climb", "version": 1, "players": 4,
//!  "settings": {"preset": "year", "panda_mood": "hungry", "first_player": 0, "deck": null},
//!  "seed": 42,                          // or "snapshot": {... §7 ...}
//!  "moves": ["single Fi3", "pass", ...]}
//! ```
//! `deck` is `null` for the shipped table, otherwise the deck document itself (never a path: an
//! imported record must not make the engine open files). Every move is replayed through the same
//! legality check as a live move, so a corrupted or hostile record is refused with the step named.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::deck::Deck;
use super::recorded::{ClimbGame, Start};
use super::rules::{ClimbSettings, Mood, Preset};
use super::snapshot::parse_snapshot;
use crate::error::{EngineError, StateError};

pub const FORMAT: &str = "panda-core/climb";
pub const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingsDoc {
    preset: String,
    panda_mood: String,
    first_player: u8,
    deck: Option<serde_json::Value>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct GameDoc {
    format: String,
    version: u32,
    players: u8,
    settings: SettingsDoc,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    snapshot: Option<serde_json::Value>,
    moves: Vec<String>,
}

/// Serialize a game to its JSON record.
pub fn to_json(game: &ClimbGame) -> String {
    let st = game.state();
    let s = st.settings();
    let deck = (*s.deck != *Deck::reconstructed()).then(|| s.deck.doc().clone());
    let (seed, snapshot) = match game.start() {
        Start::Seed(seed) => (Some(*seed), None),
        Start::Snapshot(snap) => (
            None,
            Some(serde_json::to_value(&**snap).expect("a snapshot serializes")),
        ),
    };
    let doc = GameDoc {
        format: FORMAT.into(),
        version: VERSION,
        players: st.players(),
        settings: SettingsDoc {
            preset: s.preset.name().into(),
            panda_mood: s.mood.name().into(),
            first_player: s.first_player,
            deck,
        },
        seed,
        snapshot,
        moves: game.history().iter().map(|(_, m)| m.notation()).collect(),
    };
    serde_json::to_string(&doc).expect("a game record always serializes")
}

/// The keys of a record's `settings`: a record states every one (`deck` is `null` for the
/// shipped table), nothing is filled in by default.
const SETTINGS_KEYS: [&str; 4] = ["preset", "panda_mood", "first_player", "deck"];

/// Rebuild a game from its JSON record, replaying and checking every move. The text is read
/// strictly: a repeated key is an error at any depth (the embedded deck and snapshot included).
pub fn from_json(text: &str) -> Result<ClimbGame, EngineError> {
    let bad = |msg: String| EngineError::State(StateError(msg));
    let value = crate::record::parse_json(text)
        .map_err(|e| bad(format!("not a panda-core climbing game record: {e}")))?;
    crate::record::require_keys(
        &value,
        &["settings"],
        &SETTINGS_KEYS,
        "the record's settings",
    )?;
    let doc: GameDoc = serde_json::from_value(value)
        .map_err(|e| bad(format!("not a panda-core climbing game record: {e}")))?;
    crate::record::check_header(&doc.format, doc.version, FORMAT, VERSION)?;
    let deck = match &doc.settings.deck {
        None => Deck::reconstructed(),
        Some(v) => Arc::new(
            Deck::from_json_value(v, "(embedded in the record)")
                .map_err(|e| bad(format!("the record's deck is not valid: {e}")))?,
        ),
    };
    let settings = ClimbSettings {
        preset: Preset::parse(&doc.settings.preset).map_err(|e| bad(e.0))?,
        mood: Mood::parse(&doc.settings.panda_mood).map_err(|e| bad(e.0))?,
        first_player: doc.settings.first_player,
        deck,
    };
    let mut game = match (doc.seed, &doc.snapshot) {
        (Some(seed), None) => ClimbGame::new(doc.players, seed, settings)
            .map_err(|e| bad(format!("the record's start is not a valid game: {e}")))?,
        (None, Some(snap)) => {
            let snap = parse_snapshot(snap)?;
            let game = ClimbGame::from_snapshot(snap, settings.deck.clone())?;
            let st = game.state();
            if st.players() != doc.players || st.settings() != &settings {
                return Err(bad(
                    "the record's players and settings differ from its snapshot's".into(),
                ));
            }
            game
        }
        _ => {
            return Err(bad(
                "a record starts from exactly one of 'seed' and 'snapshot'".into(),
            ))
        }
    };
    for (step, text) in doc.moves.iter().enumerate() {
        game.apply_notation(text).map_err(|e| {
            bad(format!(
                "move {step} of the record ({text:?}) cannot be replayed: {e}"
            ))
        })?;
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::climb::rules::{Mood, Preset};
    use crate::climb::snapshot::from_snapshot;
    use crate::rng::SplitMix64;

    /// A random game of `moves` decisions.
    fn game(settings: ClimbSettings, seed: u64, moves: usize) -> ClimbGame {
        let mut g = ClimbGame::new(3, seed, settings).unwrap();
        let mut rng = SplitMix64::new(seed);
        for _ in 0..moves {
            let legal = g.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[(rng.next() % legal.len() as u64) as usize].clone();
            g.apply(&m).unwrap();
        }
        g
    }

    #[test]
    fn records_round_trip_exactly() {
        for settings in [
            ClimbSettings::preset(Preset::Year).with_mood(Mood::Flip),
            ClimbSettings::preset(Preset::Spin),
        ] {
            let g = game(settings, 5, 120);
            let text = to_json(&g);
            let again = from_json(&text).unwrap();
            assert_eq!(again.snapshot(), g.snapshot());
            assert_eq!(to_json(&again), text);
        }
        // A record started from a snapshot.
        let g = game(ClimbSettings::default(), 8, 40);
        let snap = g.snapshot();
        let mut from = ClimbGame::from_snapshot(snap.clone(), Deck::reconstructed()).unwrap();
        let m = from.legal_moves()[0].clone();
        from.apply(&m).unwrap();
        let again = from_json(&to_json(&from)).unwrap();
        assert_eq!(again.snapshot(), from.snapshot());
    }

    #[test]
    fn corrupted_records_are_refused_never_a_panic() {
        let text = to_json(&game(ClimbSettings::default(), 3, 60));
        let bytes = text.as_bytes();
        let mut rng = SplitMix64::new(77);
        let rounds = if cfg!(debug_assertions) { 300 } else { 3000 };
        for _ in 0..rounds {
            let mut b = bytes.to_vec();
            for _ in 0..1 + rng.next() % 3 {
                let i = (rng.next() % b.len() as u64) as usize;
                b[i] = b"0123456789,:[]{}\"aeinoprstx -"[(rng.next() % 29) as usize];
            }
            if let Ok(s) = std::str::from_utf8(&b) {
                let _ = from_json(s);
            }
        }
        for bad in [
            "",
            "{}",
            "[]",
            r#"{"format":"panda-core/climb","version":1,"players":9,"settings":{"preset":"year","panda_mood":"hungry","first_player":0,"deck":null},"seed":1,"moves":[]}"#,
            r#"{"format":"panda-core/climb","version":1,"players":3,"settings":{"preset":"year","panda_mood":"hungry","first_player":0,"deck":null},"moves":[]}"#,
            r#"{"format":"panda-core/climb","version":1,"players":3,"settings":{"preset":"year","panda_mood":"hungry","first_player":0,"deck":{"format":"x"}},"seed":1,"moves":[]}"#,
            r#"{"format":"panda-core/climb","version":1,"players":3,"settings":{"preset":"year","panda_mood":"hungry","first_player":0,"deck":null},"seed":1,"moves":["pass"]}"#,
        ] {
            assert!(
                matches!(from_json(bad), Err(EngineError::State(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn mutated_snapshots_are_refused_or_playable() {
        // A position with a play on the table, so the trick's fields get mutated too.
        let mut g = game(ClimbSettings::default(), 4, 30);
        while g.state().to_beat().is_none() {
            let m = g.legal_moves()[0].clone();
            g.apply(&m).unwrap();
        }
        let snap = serde_json::to_value(g.snapshot()).unwrap();
        let mut rng = SplitMix64::new(9);
        let rounds = if cfg!(debug_assertions) { 200 } else { 2000 };
        let mut accepted = 0;
        for _ in 0..rounds {
            let mut v = snap.clone();
            // Replace one number somewhere with another small or huge number.
            let mut numbers = Vec::new();
            fn walk(v: &serde_json::Value, path: Vec<String>, out: &mut Vec<Vec<String>>) {
                match v {
                    serde_json::Value::Number(_) => out.push(path),
                    serde_json::Value::Array(a) => {
                        for (i, x) in a.iter().enumerate() {
                            let mut p = path.clone();
                            p.push(i.to_string());
                            walk(x, p, out);
                        }
                    }
                    serde_json::Value::Object(o) => {
                        for (k, x) in o {
                            let mut p = path.clone();
                            p.push(k.clone());
                            walk(x, p, out);
                        }
                    }
                    _ => {}
                }
            }
            walk(&v, Vec::new(), &mut numbers);
            let path = &numbers[(rng.next() % numbers.len() as u64) as usize];
            let mut at = &mut v;
            for k in path {
                at = match at {
                    serde_json::Value::Array(a) => &mut a[k.parse::<usize>().unwrap()],
                    serde_json::Value::Object(o) => o.get_mut(k).unwrap(),
                    _ => unreachable!(),
                };
            }
            *at = serde_json::json!(match rng.next() % 3 {
                0 => rng.next() % 80,
                1 => u32::MAX as u64,
                _ => rng.next(),
            });
            let Ok(parsed) = parse_snapshot(&v) else {
                continue;
            };
            let Ok((mut st, _)) = from_snapshot(&parsed, Deck::reconstructed()) else {
                continue;
            };
            accepted += 1;
            // An accepted position plays on without panicking.
            for _ in 0..200 {
                let legal = st.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let m = legal[(rng.next() % legal.len() as u64) as usize].clone();
                st.apply(&m).unwrap();
            }
        }
        assert!(accepted > 0);
    }

    #[test]
    fn records_state_every_setting_and_repeat_no_key() {
        let text = to_json(&game(ClimbSettings::default(), 3, 20));
        assert!(from_json(&text).is_ok());
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        // Issue 8 item 9: `settings: {}` or a setting left out is refused, not defaulted.
        for key in [None, Some("deck"), Some("first_player")] {
            let mut d = doc.clone();
            match key {
                None => d["settings"] = serde_json::json!({}),
                Some(k) => {
                    d["settings"].as_object_mut().unwrap().remove(k);
                }
            }
            let e = from_json(&d.to_string()).unwrap_err().to_string();
            assert!(e.contains("settings") && e.contains("missing"), "{e}");
        }
        let dup = text.replacen("\"seed\":", "\"players\":3,\"seed\":", 1);
        assert!(from_json(&dup)
            .unwrap_err()
            .to_string()
            .contains("duplicate"));
        // Nested: the embedded snapshot.
        let g = game(ClimbSettings::default(), 8, 10);
        let from = ClimbGame::from_snapshot(g.snapshot(), Deck::reconstructed()).unwrap();
        let text = to_json(&from);
        assert!(from_json(&text).is_ok());
        let dup = text.replacen("\"round\":", "\"round\":1,\"round\":", 1);
        assert!(from_json(&dup)
            .unwrap_err()
            .to_string()
            .contains("duplicate"));
    }

    #[test]
    fn impossible_to_beats_and_scores_are_refused() {
        // A year position with a play on the table.
        let mut g = ClimbGame::new(3, 2, ClimbSettings::default()).unwrap();
        while g.state().to_beat().is_none() {
            let m = g.legal_moves()[0].clone();
            g.apply(&m).unwrap();
        }
        let snap = serde_json::to_value(g.snapshot()).unwrap();
        let refused = |v: &serde_json::Value| -> String {
            let parsed = parse_snapshot(v).unwrap();
            from_snapshot(&parsed, Deck::reconstructed())
                .map(|_| ())
                .unwrap_err()
                .0
        };
        let maker = snap["trick"]["to_beat"]["player"].as_u64().unwrap() as usize;
        // Its cards are not a combination of the recorded shape: another kind or rank.
        let mut v = snap.clone();
        let rank = v["trick"]["to_beat"]["rank"].as_u64().unwrap();
        v["trick"]["to_beat"]["rank"] = serde_json::json!((rank + 1) % 12);
        assert!(refused(&v).contains("to_beat"));
        // Its maker is another seat (whose cards on the table are not these).
        let mut v = snap.clone();
        v["trick"]["to_beat"]["player"] = serde_json::json!((maker + 1) % 3);
        assert!(refused(&v).contains("to_beat"));
        // In year the play stays on the table: moved to the discard, it is refused.
        let mut v = snap.clone();
        let cards = v["trick"]["to_beat"]["cards"].clone();
        v["trick"]["played"][maker] = serde_json::json!([]);
        let mut discard: Vec<u64> = serde_json::from_value(v["discard"].clone()).unwrap();
        discard.extend(
            cards
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_u64().unwrap()),
        );
        discard.sort();
        v["discard"] = serde_json::json!(discard);
        assert!(refused(&v).contains("stays on the table"));
        // Scores: above 15 at the start of a year trick, the game would be over.
        let start = serde_json::to_value(
            ClimbGame::new(3, 2, ClimbSettings::default())
                .unwrap()
                .snapshot(),
        )
        .unwrap();
        let mut v = start.clone();
        v["scores"] = serde_json::json!([16, 0, 0]);
        assert!(refused(&v).contains("above 15"));
        let mut v = start.clone();
        v["scores"] = serde_json::json!([14, 0, 2_000_000]);
        assert!(refused(&v).contains("largest score"));
        let mut ok = start.clone();
        ok["scores"] = serde_json::json!([14, 0, 15]);
        let parsed = parse_snapshot(&ok).unwrap();
        assert!(from_snapshot(&parsed, Deck::reconstructed()).is_ok());
        // spin: no running game has 20 points.
        let spin = ClimbGame::new(3, 2, ClimbSettings::preset(Preset::Spin)).unwrap();
        let mut v = serde_json::to_value(spin.snapshot()).unwrap();
        v["scores"] = serde_json::json!([0, 20, 0]);
        assert!(refused(&v).contains("below 20"));
    }

    #[test]
    fn spin_to_beats_off_the_table_are_checked() {
        // Random spin games: every position whose play to beat has left the table (a pass sent
        // its cards back or to the discard, or a wind) rebuilds; a wrong rank never does.
        let mut checked = 0;
        for seed in 0..200 {
            let mut g = ClimbGame::new(3, seed, ClimbSettings::preset(Preset::Spin)).unwrap();
            let mut rng = SplitMix64::new(seed);
            while let Some(p) = g.state().current_player() {
                let _ = p;
                if let Some(t) = g.state().to_beat() {
                    if t.combo.cards & !g.state().played(t.player) != 0 {
                        let snap = serde_json::to_value(g.snapshot()).unwrap();
                        let parsed = parse_snapshot(&snap).unwrap();
                        assert!(from_snapshot(&parsed, Deck::reconstructed()).is_ok());
                        let mut v = snap.clone();
                        let rank = v["trick"]["to_beat"]["rank"].as_u64().unwrap();
                        v["trick"]["to_beat"]["rank"] = serde_json::json!((rank + 1) % 12);
                        let parsed = parse_snapshot(&v).unwrap();
                        assert!(from_snapshot(&parsed, Deck::reconstructed()).is_err());
                        checked += 1;
                    }
                }
                let legal = g.legal_moves();
                let m = legal[(rng.next() % legal.len() as u64) as usize].clone();
                g.apply(&m).unwrap();
            }
        }
        assert!(checked >= 5, "{checked}");
    }

    #[test]
    fn a_to_beat_of_impossible_size_is_refused() {
        // Find a position with a play on the table, then blow up its shape.
        let mut g = ClimbGame::new(3, 2, ClimbSettings::default()).unwrap();
        while g.state().to_beat().is_none() {
            let m = g.legal_moves()[0].clone();
            g.apply(&m).unwrap();
        }
        let snap = serde_json::to_value(g.snapshot()).unwrap();
        for (key, value) in [
            ("copies", u32::MAX as u64),
            ("units", u32::MAX as u64),
            ("length", 1 << 20),
            ("rank", 13),
        ] {
            let mut v = snap.clone();
            v["trick"]["to_beat"][key] = serde_json::json!(value);
            let parsed = parse_snapshot(&v).unwrap();
            assert!(
                from_snapshot(&parsed, Deck::reconstructed()).is_err(),
                "{key}"
            );
        }
    }
}
