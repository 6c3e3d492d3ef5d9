//! Panda Head rule variants (H-7) and the first dealer (H-2.2).

use serde::{Deserialize, Serialize};

use crate::error::RulesError;

/// The largest score and `bust_threshold` this engine accepts. Far above any real game (the
/// threshold is 21 by default and a hand adds at most the sum of one pile), and far enough below
/// `2^32` that adding a hand's points can never wrap.
pub const MAX_SCORE: u32 = 1_000_000;

/// The keys of a rules document: a game record states every one (no defaults are filled in).
pub const RULE_KEYS: [&str; 6] = [
    "last_pile_scoring",
    "poor_panda",
    "lowest_only_when_cannot_follow",
    "bust_threshold",
    "special_cards",
    "first_dealer",
];

/// Who scores pile 7 and how much (H-5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LastPileScoring {
    /// The pile-7 winner scores the sum of every play on pile 7 (seed 001, the default).
    PileSum,
    /// The pile-7 winner scores the value of their own play (seed 000).
    OwnCard,
}

impl LastPileScoring {
    /// The allowed spellings, for error messages.
    pub const NAMES: [&'static str; 2] = ["pile_sum", "own_card"];

    pub fn name(self) -> &'static str {
        match self {
            Self::PileSum => "pile_sum",
            Self::OwnCard => "own_card",
        }
    }

    pub fn parse(s: &str) -> Result<Self, RulesError> {
        match s {
            "pile_sum" => Ok(Self::PileSum),
            "own_card" => Ok(Self::OwnCard),
            other => Err(RulesError(format!(
                "last_pile_scoring must be one of {:?}, got {:?}",
                Self::NAMES,
                crate::record::clip(other, 40)
            ))),
        }
    }
}

/// The H-7 variants plus the first dealer. Defaults are the published rules of seed 001.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HeadRules {
    /// H-5.2
    pub last_pile_scoring: LastPileScoring,
    /// H-5.3
    pub poor_panda: bool,
    /// H-3.2: option B only when no option-A play exists.
    pub lowest_only_when_cannot_follow: bool,
    /// H-6.4: a score strictly above this makes a player Drowsy, then Pooped.
    pub bust_threshold: u32,
    /// H-2.3: off plays the 55 regular cards only (seed 000).
    pub special_cards: bool,
    /// H-2.2: the seat that deals the first hand.
    pub first_dealer: u8,
}

impl Default for HeadRules {
    fn default() -> Self {
        Self {
            last_pile_scoring: LastPileScoring::PileSum,
            poor_panda: true,
            lowest_only_when_cannot_follow: false,
            bust_threshold: 21,
            special_cards: true,
            first_dealer: 0,
        }
    }
}

impl HeadRules {
    /// Check the values that do not depend on the player count.
    pub fn validate(&self) -> Result<(), RulesError> {
        if self.bust_threshold == 0 || self.bust_threshold > MAX_SCORE {
            return Err(RulesError(format!(
                "bust_threshold must be a positive integer up to {MAX_SCORE}, got {}",
                self.bust_threshold
            )));
        }
        Ok(())
    }

    /// Check the rules against a player count (H-2.1, H-2.2).
    pub fn validate_for(&self, players: u8) -> Result<(), RulesError> {
        self.validate()?;
        check_players(players)?;
        if self.first_dealer >= players {
            return Err(RulesError(format!(
                "first_dealer must be a seat 0..={} for {players} players, got {}",
                players - 1,
                self.first_dealer
            )));
        }
        Ok(())
    }

    /// Number of cards in play: 63, or 55 with `special_cards` off (H-2.3).
    pub fn deck_size(&self) -> u8 {
        if self.special_cards {
            super::cards::DECK_SIZE
        } else {
            super::cards::REGULAR_COUNT
        }
    }
}

/// H-2.1: 2 to 5 players.
pub fn check_players(players: u8) -> Result<(), RulesError> {
    if !(2..=5).contains(&players) {
        return Err(RulesError(format!(
            "Panda Head is played by 2 to 5 players, got {players}"
        )));
    }
    Ok(())
}
