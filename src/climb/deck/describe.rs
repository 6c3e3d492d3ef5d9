//! How the cards of a deck read to a person: each face as text, each card as a [`CardInfo`].
//!
//! The text is computed from the compiled faces and element cards, so a custom deck file (S-2.4)
//! describes itself: nothing here restates S-2.2. The face text is the notation of the card
//! table in docs/rules/year.md (S-2.2): the fixed units in rank order separated by spaces (a drop
//! face's doubled unit is `"J J"`), then `+ wild` per wild (fire) unit, `+ panda` and `+ bamboo`
//! per symbol: `"10 + wild"`, `"Q + panda"`, `"6"`.

use super::{Deck, Element, Face};
use crate::card::{CardInfo, CardValue, FaceSymbols, Faces};
use crate::climb::cards::{
    card_label, card_token, is_element, suit_of, white_rank, NUM_CARDS, NUM_RANKS, RANK_NAMES,
    SUIT_NAMES,
};
use crate::climb::rules::Preset;

impl Face {
    /// The face as the card table writes it (`"A + bamboo"`, `"J J"`, `"10 + wild"`).
    pub fn text(&self) -> String {
        let fixed: Vec<&str> = (0..NUM_RANKS as u8)
            .flat_map(|r| std::iter::repeat(RANK_NAMES[r as usize]).take(self.count(r) as usize))
            .collect();
        let mut parts = Vec::new();
        if !fixed.is_empty() {
            parts.push(fixed.join(" "));
        }
        let symbols = [
            ("wild", u32::from(self.wild)),
            ("panda", self.panda),
            ("bamboo", self.bamboo),
        ];
        for (name, times) in symbols {
            parts.extend(std::iter::repeat(name.to_string()).take(times as usize));
        }
        parts.join(" + ")
    }

    /// The face's symbols, one name per occurrence, in the order of [`Face::text`] after the
    /// drop: `"drop"` (a doubled unit, S-4.5), `"wild"` per fire unit, `"panda"`, `"bamboo"`.
    pub fn symbol_names(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.drop {
            out.push("drop");
        }
        let symbols = [
            ("wild", u32::from(self.wild)),
            ("panda", self.panda),
            ("bamboo", self.bamboo),
        ];
        for (name, times) in symbols {
            out.extend(std::iter::repeat(name).take(times as usize));
        }
        out
    }
}

impl Element {
    /// The card's printed number and wind (`"1 south"`): what a deck file says of it.
    pub fn text(&self) -> String {
        format!("{} {}", self.number, self.wind)
    }

    /// What the card shows in `preset`: `year`'s element card its printed number (`"1"`, the
    /// number S-3.2 uses), `spin`'s wind card its wind (`"south"`; its number plays no part).
    pub fn face_text(&self, preset: Preset) -> String {
        match preset {
            Preset::Year => self.number.to_string(),
            Preset::Spin => self.wind.clone(),
        }
    }

    /// The card in a sentence in `preset`: `"fire element"` (`year`), `"south wind"` (`spin`).
    pub fn label(&self, suit: &str, preset: Preset) -> String {
        match preset {
            Preset::Year => format!("{suit} element"),
            Preset::Spin => format!("{} wind", self.wind),
        }
    }
}

impl Deck {
    /// Card `id` (`< 70`) of this deck as `preset` names it: notation token and label (S-1.3),
    /// white rank (name and index) or printed number, both faces of an animal card with their
    /// symbols (S-2.1, S-2.2), or an element card's face and play condition (S-2.3: `year`'s
    /// element card shows its number, `spin`'s wind card its wind). `in_play`: whether its suit
    /// is dealt in the game (S-3.1).
    pub fn card_info(&self, id: u8, in_play: bool, preset: Preset) -> CardInfo {
        let suit = suit_of(id);
        let suit_name = SUIT_NAMES[suit as usize];
        let mut info = CardInfo {
            id,
            token: card_token(id),
            label: card_label(id),
            kind: "animal",
            suit: Some(suit_name),
            value: None,
            faces: None,
            in_play,
            rank: None,
            symbols: None,
            condition: None,
        };
        if is_element(id) {
            let element = self.element(suit);
            info.kind = "element";
            info.label = element.label(suit_name, preset);
            info.value = Some(CardValue::Number(element.number));
            info.faces = Some(Faces::Element {
                element: element.face_text(preset),
            });
            info.condition = Some(element.condition.name());
        } else {
            let (white, blue) = (self.face(id, false), self.face(id, true));
            info.value = Some(CardValue::Rank(RANK_NAMES[white_rank(id) as usize]));
            info.rank = Some(white_rank(id));
            info.faces = Some(Faces::Sides {
                white: white.text(),
                blue: blue.text(),
            });
            info.symbols = Some(FaceSymbols {
                white: white.symbol_names(),
                blue: blue.symbol_names(),
            });
        }
        info
    }

    /// Every card id of the deck (0–69, suits left out of the game included), in id order, as
    /// `preset` names them; `suits_in_play` has bit `s` set per suit the game deals.
    pub fn cards_info(&self, suits_in_play: u8, preset: Preset) -> Vec<CardInfo> {
        (0..NUM_CARDS)
            .map(|id| self.card_info(id, suits_in_play >> suit_of(id) & 1 == 1, preset))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::climb::cards::parse_card;

    fn blue(id: u8) -> String {
        Deck::reconstructed().face(id, true).text()
    }

    #[test]
    fn s2_2_blue_faces_read_as_the_rules_table() {
        // The seed cards of S-2.2 and a cell of each column of the full table.
        assert_eq!(blue(0), "10 + wild"); // Fire 3
        assert_eq!(blue(11), "8 + wild"); // Fire A wraps below its white face
        assert_eq!(blue(18), "Q + panda"); // Earth 8
        assert_eq!(blue(29), "A + bamboo"); // Wood 6
        assert_eq!(blue(40), "Q Q"); // Water 4, a drop face
        assert_eq!(blue(39), "J J"); // Water 3
        assert_eq!(blue(55), "9"); // Metal 6
        assert_eq!(blue(64), "2"); // Metal 2 stays a 2
    }

    #[test]
    fn s2_1_white_faces_are_the_white_rank() {
        let deck = Deck::reconstructed();
        for id in 0..65u8 {
            assert_eq!(
                deck.face(id, false).text(),
                RANK_NAMES[white_rank(id) as usize]
            );
        }
    }

    #[test]
    fn s2_3_element_cards_show_their_number_in_year_and_their_wind_in_spin() {
        let card = Deck::reconstructed().card_info(65, true, Preset::Year);
        assert_eq!(
            (card.token.as_str(), card.label.as_str()),
            ("Fi!", "fire element")
        );
        assert_eq!((card.kind, card.suit), ("element", Some("fire")));
        assert_eq!(card.value, Some(CardValue::Number(1)));
        assert_eq!(
            card.faces,
            Some(Faces::Element {
                element: "1".into()
            })
        );
        assert_eq!(card.condition, Some("run_or_formation_3_ranks"));
        let wind = Deck::reconstructed().card_info(65, true, Preset::Spin);
        assert_eq!(
            (wind.token.as_str(), wind.label.as_str()),
            ("Fi!", "south wind")
        );
        assert_eq!(
            wind.faces,
            Some(Faces::Element {
                element: "south".into()
            })
        );
        let metal = Deck::reconstructed().card_info(69, false, Preset::Year);
        assert_eq!(metal.value, Some(CardValue::Number(5)));
        assert_eq!(metal.condition, Some("contains_blue"));
        assert_eq!(Deck::reconstructed().element(4).text(), "5 west");
    }

    #[test]
    fn s1_6_symbols_are_listed_per_face() {
        let deck = Deck::reconstructed();
        let symbols = |id: u8| deck.card_info(id, true, Preset::Year).symbols.unwrap();
        assert_eq!(symbols(0).blue, vec!["wild"]); // Fire 3: 10 + wild
        assert_eq!(symbols(18).blue, vec!["panda"]); // Earth 8: Q + panda
        assert_eq!(symbols(29).blue, vec!["bamboo"]); // Wood 6: A + bamboo
        assert_eq!(symbols(40).blue, vec!["drop"]); // Water 4: Q Q
        assert!(symbols(55).blue.is_empty() && symbols(55).white.is_empty()); // Metal 6
        assert_eq!(deck.card_info(55, true, Preset::Year).rank, Some(3));
    }

    #[test]
    fn s1_3_every_id_once_with_a_parsable_token() {
        // Fire, Wood and Metal in play (bits 0, 2, 4).
        let cards = Deck::reconstructed().cards_info(0b10101, Preset::Year);
        assert_eq!(cards.len(), 70);
        for (i, card) in cards.iter().enumerate() {
            assert_eq!(usize::from(card.id), i);
            assert_eq!(parse_card(&card.token), Some(card.id));
            assert_eq!(card.in_play, [0, 2, 4].contains(&suit_of(card.id)));
        }
        let wood7 = &cards[30];
        assert_eq!(
            (wood7.token.as_str(), wood7.label.as_str()),
            ("Wo7", "wood 7")
        );
        assert_eq!(
            (wood7.kind, wood7.value.clone()),
            ("animal", Some(CardValue::Rank("7")))
        );
        assert_eq!(
            wood7.faces,
            Some(Faces::Sides {
                white: "7".into(),
                blue: "2 + bamboo".into()
            })
        );
    }

    #[test]
    fn s2_4_a_custom_face_describes_itself() {
        let mut doc = Deck::reconstructed().doc().clone();
        doc["cards"][2]["blue"] = serde_json::json!({"units": ["5", "wild", "wild"],
            "symbols": ["fire", "fire", "panda", "panda"]});
        doc["elements"][0]["wind"] = serde_json::json!("sirocco");
        let deck = Deck::from_json_value(&doc, "custom.json").unwrap();
        assert_eq!(deck.face(2, true).text(), "5 + wild + wild + panda + panda");
        assert_eq!(deck.element(0).text(), "1 sirocco");
    }
}
