//! Presets and settings of the climbing games (S-12, contract §2).

use std::sync::Arc;

use super::deck::Deck;
use crate::error::{EngineError, RulesError};

/// Which game: Year of the Panda (seed 004) or Panda Spin (seed 003).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    Year,
    Spin,
}

impl Preset {
    pub const NAMES: [&'static str; 2] = ["year", "spin"];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Year => "year",
            Preset::Spin => "spin",
        }
    }

    pub fn parse(s: &str) -> Result<Self, RulesError> {
        match s {
            "year" => Ok(Preset::Year),
            "spin" => Ok(Preset::Spin),
            other => Err(RulesError(format!(
                "preset must be one of {:?}, got {:?}",
                Self::NAMES,
                crate::record::clip(other, 40)
            ))),
        }
    }

    /// Cards dealt to each player (S-3.4): 12, or 11 on top of the wind in `spin`.
    #[inline]
    pub fn hand_size(self) -> u8 {
        match self {
            Preset::Year => 12,
            Preset::Spin => 11,
        }
    }

    /// The most a show-out scores (S-9.2): 7 in `year`, no cap in `spin`.
    pub fn show_out_cap(self) -> Option<u32> {
        match self {
            Preset::Year => Some(YEAR_SHOW_OUT_CAP),
            Preset::Spin => None,
        }
    }

    /// The score that ends the game (S-10.1: 15 at a trick end; S-10.2: 20, the 20th by
    /// showing out).
    pub fn game_end_score(self) -> u32 {
        match self {
            Preset::Year => YEAR_GAME_END,
            Preset::Spin => SPIN_WIN,
        }
    }

    /// The most points symbols may raise a score to (S-10.2: 19 in `spin`; no cap in `year`).
    pub fn symbol_cap(self) -> Option<u32> {
        match self {
            Preset::Year => None,
            Preset::Spin => Some(SPIN_SYMBOL_CAP),
        }
    }

    /// What the five special cards (ids 65–69) are called (S-12): `"element"` cards in `year`,
    /// `"wind"` cards in `spin`.
    pub fn special_cards(self) -> &'static str {
        match self {
            Preset::Year => "element",
            Preset::Spin => "wind",
        }
    }
}

/// The side of the panda symbol in `year` (S-7.2, S-7.3, S-7.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mood {
    Hungry,
    Flip,
}

impl Mood {
    pub const NAMES: [&'static str; 2] = ["hungry", "flip"];

    pub fn name(self) -> &'static str {
        match self {
            Mood::Hungry => "hungry",
            Mood::Flip => "flip",
        }
    }

    pub fn parse(s: &str) -> Result<Self, RulesError> {
        match s {
            "hungry" => Ok(Mood::Hungry),
            "flip" => Ok(Mood::Flip),
            other => Err(RulesError(format!(
                "panda_mood must be one of {:?}, got {:?}",
                Self::NAMES,
                crate::record::clip(other, 40)
            ))),
        }
    }
}

/// `year`: the show-out cap (S-9.2).
pub const YEAR_SHOW_OUT_CAP: u32 = 7;
/// `year`: the game ends at a trick end after which a player has this many points (S-10.1).
pub const YEAR_GAME_END: u32 = 15;
/// `spin`: a player reaching this many points by showing out wins (S-10.2).
pub const SPIN_WIN: u32 = 20;
/// `spin`: symbols never raise a score above this (S-10.2).
pub const SPIN_SYMBOL_CAP: u32 = 19;

/// Settings of a game (contract §2). The deck is shared, immutable data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClimbSettings {
    pub preset: Preset,
    /// Validated in `spin` too, then ignored there (S-7.6).
    pub mood: Mood,
    /// `year`: who gets element card k = 0 (S-3.1); `spin`: the first starter (S-3.3).
    pub first_player: u8,
    pub deck: Arc<Deck>,
}

impl Default for ClimbSettings {
    fn default() -> Self {
        Self {
            preset: Preset::Year,
            mood: Mood::Hungry,
            first_player: 0,
            deck: Deck::reconstructed(),
        }
    }
}

impl ClimbSettings {
    /// The settings of `preset` with the default mood, seat 0 first and the shipped deck.
    pub fn preset(preset: Preset) -> Self {
        Self {
            preset,
            ..Self::default()
        }
    }

    pub fn with_mood(mut self, mood: Mood) -> Self {
        self.mood = mood;
        self
    }

    /// Check the settings against a player count (S-12; contract §2 order: players, then
    /// `first_player`; preset, mood and deck are valid by construction).
    pub fn validate_for(&self, players: u8) -> Result<(), EngineError> {
        check_players(players)?;
        if self.first_player >= players {
            return Err(RulesError(format!(
                "first_player must be a seat 0..={} for {players} players, got {}",
                players - 1,
                self.first_player
            ))
            .into());
        }
        Ok(())
    }

    /// Whether the panda symbol flips cards (`year` with mood `flip`).
    #[inline]
    pub fn flips(&self) -> bool {
        self.preset == Preset::Year && self.mood == Mood::Flip
    }

    /// What the panda symbol does (S-7): `"hungry"` (S-7.2) or `"flip"` (S-7.3) in `year` by the
    /// mood, `"steal"` in `spin` (S-7.4; the mood is ignored there, S-7.6).
    pub fn panda_effect(&self) -> &'static str {
        match self.preset {
            Preset::Year => self.mood.name(),
            Preset::Spin => "steal",
        }
    }

    /// Whether the panda symbol is a hungry transfer (`year` with mood `hungry`).
    #[inline]
    pub fn hungry(&self) -> bool {
        self.preset == Preset::Year && self.mood == Mood::Hungry
    }
}

/// S-12: 2 to 5 players in both games.
pub fn check_players(players: u8) -> Result<(), RulesError> {
    if !(2..=5).contains(&players) {
        return Err(RulesError(format!(
            "the climbing games are played by 2 to 5 players, got {players}"
        )));
    }
    Ok(())
}

/// The settings the climbing tests sweep: `year` in both moods and `spin`.
#[cfg(test)]
pub(crate) fn test_settings() -> Vec<ClimbSettings> {
    vec![
        ClimbSettings::preset(Preset::Year),
        ClimbSettings::preset(Preset::Year).with_mood(Mood::Flip),
        ClimbSettings::preset(Preset::Spin),
    ]
}
