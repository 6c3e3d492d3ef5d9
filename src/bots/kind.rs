//! The built-in bots' names: what `simulate`, the CLI and `bot_move` accept.

use crate::error::RulesError;

/// The built-in bots, by name (the same names for every game).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BotKind {
    /// Uniform over the legal moves.
    Random,
    /// The game's rule-of-thumb player ([`crate::game::HeuristicPolicy`]).
    Heuristic,
    /// Information-set Monte Carlo tree search ([`crate::search`]) with this many iterations
    /// per decision.
    Ismcts { iterations: u32 },
}

impl BotKind {
    /// The base names; `ismcts` also takes an iteration count, `ismcts:N`.
    pub const NAMES: [&'static str; 3] = ["random", "heuristic", "ismcts"];

    /// The name [`Self::parse`] reads back: `random`, `heuristic`, `ismcts` (default
    /// iterations) or `ismcts:N`.
    pub fn name(self) -> String {
        match self {
            Self::Random => "random".into(),
            Self::Heuristic => "heuristic".into(),
            Self::Ismcts { iterations } if iterations == DEFAULT_ISMCTS_ITERATIONS => {
                "ismcts".into()
            }
            Self::Ismcts { iterations } => format!("ismcts:{iterations}"),
        }
    }

    pub fn parse(s: &str) -> Result<Self, RulesError> {
        match s {
            "random" => Ok(Self::Random),
            "heuristic" => Ok(Self::Heuristic),
            "ismcts" => Ok(Self::Ismcts {
                iterations: DEFAULT_ISMCTS_ITERATIONS,
            }),
            other => match other.strip_prefix("ismcts:") {
                Some(n) => match n.parse::<u32>() {
                    Ok(iterations) if (1..=MAX_ISMCTS_ITERATIONS).contains(&iterations) => {
                        Ok(Self::Ismcts { iterations })
                    }
                    _ => Err(RulesError(format!(
                        "bad bot {:?}: the ISMCTS iteration count in `ismcts:N` must be an \
                         integer from 1 to {MAX_ISMCTS_ITERATIONS}",
                        cut(other)
                    ))),
                },
                None => Err(RulesError(format!(
                    "unknown bot {:?}; built-in bots are {:?} (and `ismcts:N` for N \
                     iterations)",
                    cut(other),
                    Self::NAMES
                ))),
            },
        }
    }
}

/// Most ISMCTS iterations per decision a bot name may ask for: the search tree grows by a node
/// an iteration (about 64 bytes), so this bounds one decision's memory near 64 MB; a Panda Head
/// decision takes about a second, a climbing one up to half a minute.
pub const MAX_ISMCTS_ITERATIONS: u32 = 1_000_000;

/// `name` cut to a length a message can quote (a bot name is short; a 10 MB string is not).
fn cut(name: &str) -> String {
    const SHOWN: usize = 40;
    match name.char_indices().nth(SHOWN) {
        None => name.to_owned(),
        Some((end, _)) => format!("{}… ({} characters)", &name[..end], name.chars().count()),
    }
}

/// Iterations of `ismcts` without a count.
pub const DEFAULT_ISMCTS_ITERATIONS: u32 = crate::search::ismcts::DEFAULT_ITERATIONS;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in [
            BotKind::Random,
            BotKind::Heuristic,
            BotKind::Ismcts { iterations: 1 },
            BotKind::Ismcts { iterations: 57 },
            BotKind::Ismcts {
                iterations: DEFAULT_ISMCTS_ITERATIONS,
            },
        ] {
            assert_eq!(BotKind::parse(&k.name()), Ok(k));
        }
        assert_eq!(
            BotKind::parse("ismcts"),
            Ok(BotKind::Ismcts {
                iterations: DEFAULT_ISMCTS_ITERATIONS
            })
        );
        for bad in [
            "ismcts:0",
            "ismcts:",
            "ismcts:x",
            "ismcts:-3",
            "ismcts:1000001",
            "ISMCTS",
            "mcts",
        ] {
            assert!(BotKind::parse(bad).is_err(), "{bad}");
        }
    }
}
