//! Errors of the core crate. The binding layer maps each to its own Python exception class.

use std::fmt;

/// Invalid rules or settings (unknown variant value, bad player count, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RulesError(pub String);

/// An explicit position (a deal, a JSON document) that is not a valid state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateError(pub String);

/// A policy file that cannot be read, or a policy that cannot play the game asked of it
/// ([`crate::nn`]). The message names the file's manifest entry at fault and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyError(pub String);

/// A move that is not legal in the current state. The state is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// What was asked for, in notation.
    pub requested: String,
    /// Why it is not legal.
    pub reason: String,
    /// The legal moves, in notation.
    pub legal: Vec<String>,
}

/// Everything an engine call can refuse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    Rules(RulesError),
    State(StateError),
    Illegal(IllegalMove),
    Policy(PolicyError),
    /// The game is over; no move can be applied.
    GameOver,
    /// A card had to come from an empty draw pile (H-4.6). A bug or an impossible position, never
    /// a normal outcome; reported instead of looping or panicking.
    DrawPileExhausted,
    /// The engine found an impossible situation of its own making (a bug): the message says
    /// which.
    Invariant(String),
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Legal moves listed in an [`IllegalMove`] message; the rest are counted (the full list is in
/// [`IllegalMove::legal`]).
pub const LEGAL_SHOWN: usize = 40;

/// An integer as an error message writes it: the value, or which way it is beyond 128 bits
/// (the binding saturates larger Python integers to the ends of `i128`).
pub fn written(v: i128) -> String {
    match v {
        i128::MAX => "an integer above 2**127".into(),
        i128::MIN => "an integer below -2**127".into(),
        v => v.to_string(),
    }
}

/// At most `max` characters of `s`, with `…` when cut (offending values in error messages).
pub fn clip(s: &str, max: usize) -> String {
    let mut out: String = s.chars().take(max).collect();
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

impl fmt::Display for IllegalMove {
    /// The requested move (cut to 100 characters), the reason, and the first [`LEGAL_SHOWN`]
    /// legal moves: a position may have many thousands, a message should stay readable.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = &self.legal[..self.legal.len().min(LEGAL_SHOWN)];
        write!(
            f,
            "illegal move {:?}: {}; legal moves: [{}",
            clip(&self.requested, 100),
            self.reason,
            shown.join(", ")
        )?;
        if self.legal.len() > shown.len() {
            write!(f, ", … {} more", self.legal.len() - shown.len())?;
        }
        f.write_str("]")
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Rules(e) => e.fmt(f),
            Self::State(e) => e.fmt(f),
            Self::Illegal(e) => e.fmt(f),
            Self::Policy(e) => f.write_str(&e.0),
            Self::GameOver => f.write_str("the game is over: no move can be applied"),
            Self::DrawPileExhausted => f.write_str(
                "the draw pile is exhausted (H-4.6): this cannot happen in a legal hand",
            ),
            Self::Invariant(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for RulesError {}
impl std::error::Error for StateError {}
impl std::error::Error for IllegalMove {}
impl std::error::Error for EngineError {}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<PolicyError> for EngineError {
    fn from(e: PolicyError) -> Self {
        Self::Policy(e)
    }
}

impl From<RulesError> for EngineError {
    fn from(e: RulesError) -> Self {
        Self::Rules(e)
    }
}

impl From<StateError> for EngineError {
    fn from(e: StateError) -> Self {
        Self::State(e)
    }
}

impl From<IllegalMove> for EngineError {
    fn from(e: IllegalMove) -> Self {
        Self::Illegal(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn illegal_move_messages_stay_short() {
        let e = IllegalMove {
            requested: "x".repeat(1_000_000),
            reason: "no".into(),
            legal: (0..100_000).map(|i| format!("single {i}")).collect(),
        };
        let text = e.to_string();
        assert!(text.len() < 1_000, "{}", text.len());
        assert!(text.ends_with(", … 99960 more]"), "{text}");
        let short = IllegalMove {
            requested: "pass".into(),
            reason: "the leader may not pass".into(),
            legal: vec!["single Fi3".into()],
        };
        assert_eq!(
            short.to_string(),
            "illegal move \"pass\": the leader may not pass; legal moves: [single Fi3]"
        );
    }
}
