//! What a card is to a person: the display facts each game reports for every card id of its
//! deck (the `cards()` verb of the bindings, front-ends, replays).
//!
//! The facts come from the game's own card rules (`head::cards`, the climbing games' deck), so a
//! front-end never restates a rule: it shows `token` on a card, `label` in a sentence, and
//! `faces` for a double-sided card. The shape is shared by every game; the serialised form (one
//! JSON object per card) is the contract of `docs/game_api.md`, "Cards".

use serde::Serialize;

/// One card of a game's deck.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CardInfo {
    /// The card id (normative, per game).
    pub id: u8,
    /// Short display text, as the game's notation writes the card (`"7"`, `"BP"`, `"Fi7"`).
    pub token: String,
    /// Long display text (`"Panda 7"`, `"fire element"`).
    pub label: String,
    /// What the card is: `"panda"`, `"big_panda"`, `"bamboo"`; `"animal"`, `"element"`.
    pub kind: &'static str,
    /// The suit name, for games with suits.
    pub suit: Option<&'static str>,
    /// The card's value, when it has one.
    pub value: Option<CardValue>,
    /// What each face shows, for games whose cards have faces.
    pub faces: Option<Faces>,
    /// Whether the card is dealt in this game (a climbing game leaves suits out, S-3.1).
    pub in_play: bool,
    /// The index of the card's (white) rank in the game's rank order, low to high, for games
    /// whose cards have ranks (climbing animal cards: 0 is the "3", 12 the "2", S-1.2). With
    /// `value` it names every rank index a classification reports.
    pub rank: Option<u8>,
    /// The symbols of each face, one name per occurrence (`"wild"`, `"drop"`, `"panda"`,
    /// `"bamboo"`), for games whose cards have faces with symbols.
    pub symbols: Option<FaceSymbols>,
    /// The play condition of a card that is played on a play (a climbing element or wind card,
    /// S-2.3): its deck-file name (`"single"`, `"contains_blue"` …).
    pub condition: Option<&'static str>,
}

/// The symbols of each face of a two-sided card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FaceSymbols {
    pub white: Vec<&'static str>,
    pub blue: Vec<&'static str>,
}

/// A card's value: a number (Panda Head's regular values, an element's printed number) or a
/// rank name (an animal card's white rank).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum CardValue {
    Number(i64),
    Rank(&'static str),
}

/// The faces of a card, each as display text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Faces {
    /// A two-sided card: the white face and the blue face (`"7"`, `"A + bamboo"`).
    Sides { white: String, blue: String },
    /// A card with one printed face (an element card: `"1 south"`).
    Element { element: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_as_the_documented_dict() {
        let card = CardInfo {
            id: 7,
            token: "Fi10".into(),
            label: "fire 10".into(),
            kind: "animal",
            suit: Some("fire"),
            value: Some(CardValue::Rank("10")),
            faces: Some(Faces::Sides {
                white: "10".into(),
                blue: "4 + wild".into(),
            }),
            in_play: true,
            rank: None,
            symbols: None,
            condition: None,
        };
        let v = serde_json::to_value(&card).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"id": 7, "token": "Fi10", "label": "fire 10", "kind": "animal",
                "suit": "fire", "value": "10", "faces": {"white": "10", "blue": "4 + wild"},
                "in_play": true, "rank": null, "symbols": null, "condition": null})
        );
        let element = Faces::Element {
            element: "1 south".into(),
        };
        assert_eq!(
            serde_json::to_value(element).unwrap(),
            serde_json::json!({"element": "1 south"})
        );
        assert_eq!(
            serde_json::to_value(CardValue::Number(3)).unwrap(),
            serde_json::json!(3)
        );
    }
}
