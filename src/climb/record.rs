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
use super::game::{ClimbGame, Start};
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

/// Rebuild a game from its JSON record, replaying and checking every move.
pub fn from_json(text: &str) -> Result<ClimbGame, EngineError> {
    let bad = |msg: String| EngineError::State(StateError(msg));
    let doc: GameDoc = serde_json::from_str(text)
        .map_err(|e| bad(format!("not a panda-core climbing game record: {e}")))?;
    if doc.format != FORMAT {
        return Err(bad(format!(
            "format must be {FORMAT:?}, got {:?}",
            doc.format
        )));
    }
    if doc.version != VERSION {
        return Err(bad(format!(
            "unsupported record version {} (this build reads {VERSION})",
            doc.version
        )));
    }
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
