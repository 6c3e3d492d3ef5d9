//! The card table as data (S-2, docs/deck_schema.md): the compiled faces and element cards.
//!
//! A deck file (TOML, or JSON when the name ends in `.json`) lists the five element cards and the
//! 65 animal cards with their two faces. The loader reads one, checks every rule of the schema
//! and refuses a bad file with an error that names the card and the field (S-2.4). The faces are
//! compiled into flat tables ([`Face`]): units per rank packed in 8-bit lanes ([`super::lanes`]),
//! wild count, symbol counts and the drop flag, which is all move generation and scoring ever
//! look at.
//!
//! - `describe`: how each card reads to a person (face text, [`crate::card::CardInfo`])
//! - `document`: the format-neutral tree a TOML or JSON deck document is read into
//! - `loader`: the [`Deck`] constructors, validation of that tree and compilation of the faces

mod describe;
mod document;
mod loader;

use std::sync::{Arc, OnceLock};

use super::cards::{CardSet, NUM_ANIMALS, NUM_SUITS};
// The lane arithmetic lived here first; these paths stay valid.
pub use super::lanes::{lane, lane_one, LANE_BITS};

/// The shipped reconstructed table (S-2.2, S-2.3), compiled into the binary.
pub const RECONSTRUCTED_TOML: &str =
    include_str!("../../../python/panda_core/data/decks/reconstructed.toml");
/// The file name used in error messages about the shipped table.
pub const RECONSTRUCTED_PATH: &str = "reconstructed.toml";

/// The required `format` value.
pub const FORMAT: &str = "panda-core-climb-deck";

/// Most wild units one run or formation can hold with a deck (schema rule 6). The named ranks
/// of a play with `w` wild units can come in up to `w!` orders, each a distinct move (S-4.6):
/// `8! = 40,320` stays well below [`crate::climb::movegen::MAX_LEGAL_MOVES`], `9!` does not.
/// The shipped deck reaches 5 (each blue Fire card has a fixed unit beside its wild unit, one
/// per rank).
pub const MAX_WILD_IN_PLAY: u32 = 8;

/// One face of an animal card, compiled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Face {
    /// Fixed units per rank: lane `r` (bits `8r .. 8r+8`) holds the number of units of rank `r`.
    /// Adding two faces adds their lanes; a lane never overflows (at most 2 units of a rank per
    /// face, at most 65 cards).
    pub counts: u128,
    /// Bit `r` set when the face has a fixed unit of rank `r`.
    pub mask: u16,
    /// Wild (fire) units, whose rank the player names (S-4.6).
    pub wild: u8,
    /// All units, fixed and wild (S-1.5).
    pub units: u8,
    /// The face carries the drop symbol: its two units make no bomb (S-4.5).
    pub drop: bool,
    /// Bamboo symbols (S-7.1).
    pub bamboo: u32,
    /// Panda symbols (S-7.2 … S-7.4).
    pub panda: u32,
    /// The rank of the fixed units when they are all of one rank (every face of the shipped
    /// deck), else [`NO_RANK`]: move generation's fast path groups cards by it.
    pub rank: u8,
}

/// [`Face::rank`] of a face with fixed units on several ranks, or none.
pub const NO_RANK: u8 = 0xFF;

impl Face {
    /// Units of rank `r`.
    #[inline]
    pub fn count(&self, r: u8) -> u32 {
        lane(self.counts, r)
    }
}

/// What the play to beat must be for an element (wind) card to be played on it (S-2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Condition {
    /// A run or formation with 3 or more distinct ranks (Fire, south wind).
    RunOrFormation3Ranks,
    /// A single (Earth, centre wind).
    Single,
    /// A set, never a bomb (Wood, east wind).
    Set,
    /// A play of 3 or more cards, not units (Water, north wind).
    ThreeOrMoreCards,
    /// A play in which some card showed its blue face when played (Metal, west wind).
    ContainsBlue,
}

impl Condition {
    pub const NAMES: [&'static str; 5] = [
        "run_or_formation_3_ranks",
        "single",
        "set",
        "three_or_more_cards",
        "contains_blue",
    ];
    const ALL: [Condition; 5] = [
        Self::RunOrFormation3Ranks,
        Self::Single,
        Self::Set,
        Self::ThreeOrMoreCards,
        Self::ContainsBlue,
    ];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .position(|n| *n == s)
            .map(|i| Self::ALL[i])
    }
}

/// An element (wind) card (S-2.3).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Element {
    /// The printed number that picks the first `year` starter (S-3.2).
    pub number: i64,
    /// The wind name of the `spin` edition (informational).
    pub wind: String,
    pub condition: Condition,
}

/// A validated, compiled card table.
#[derive(Clone, Debug)]
pub struct Deck {
    name: String,
    /// `faces[id][0]` white, `faces[id][1]` blue.
    faces: [[Face; 2]; NUM_ANIMALS as usize],
    /// `panda[0]`: the cards whose white face has a panda symbol; `panda[1]`: whose blue face
    /// has (derived from `faces`), so a set's pandas are found with two masks, not card by card.
    panda: [CardSet; 2],
    elements: [Element; NUM_SUITS],
    /// The document as JSON (the same structure whatever the file format), embedded in game
    /// records that use a deck other than the shipped one.
    doc: serde_json::Value,
}

impl PartialEq for Deck {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.faces == other.faces && self.elements == other.elements
    }
}
impl Eq for Deck {}

impl Deck {
    /// The shipped reconstructed table, parsed once per process.
    pub fn reconstructed() -> Arc<Deck> {
        static DECK: OnceLock<Arc<Deck>> = OnceLock::new();
        DECK.get_or_init(|| {
            Arc::new(
                Deck::from_toml(RECONSTRUCTED_TOML, RECONSTRUCTED_PATH)
                    .expect("the shipped deck is valid"),
            )
        })
        .clone()
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The deck document as JSON.
    pub fn doc(&self) -> &serde_json::Value {
        &self.doc
    }

    /// The face card `id` shows: white, or blue when `blue`.
    #[inline(always)]
    pub fn face(&self, id: u8, blue: bool) -> &Face {
        &self.faces[id as usize][blue as usize]
    }

    /// The face card `id` shows given the set of blue cards.
    #[inline(always)]
    pub fn face_in(&self, id: u8, blue: CardSet) -> &Face {
        self.face(id, (blue >> id) & 1 == 1)
    }

    /// The cards of `set` whose shown face (from `blue`) has a panda symbol (S-7.2).
    #[inline(always)]
    pub fn panda_cards(&self, set: CardSet, blue: CardSet) -> CardSet {
        set & ((self.panda[0] & !blue) | (self.panda[1] & blue))
    }

    /// The element card of suit `suit`.
    #[inline]
    pub fn element(&self, suit: u8) -> &Element {
        &self.elements[suit as usize]
    }
}
