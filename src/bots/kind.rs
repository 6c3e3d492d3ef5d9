//! The built-in bots' names: what `simulate`, the CLI and `bot_move` accept.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::contract::Learned;
use crate::error::{PolicyError, RulesError};
use crate::nn::{cache, shipped, Policy};

/// The built-in bots, by name (the same names for every game).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BotKind {
    /// Uniform over the legal moves.
    Random,
    /// The game's rule-of-thumb player ([`crate::contract::HeuristicPolicy`]).
    Heuristic,
    /// Information-set Monte Carlo tree search ([`crate::search`]) with this many iterations
    /// per decision.
    Ismcts { iterations: u32 },
    /// A trained policy ([`crate::nn`]): the one shipped for the game, or a policy file.
    Neural(Neural),
}

/// Where a `neural` bot's policy comes from.
#[derive(Clone, Debug)]
pub enum Neural {
    /// `neural`: the policy shipped for the game being played.
    Shipped,
    /// `neural:PATH`: a policy file, read and checked when the name was parsed.
    File { path: String, policy: Arc<Policy> },
}

impl PartialEq for Neural {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Shipped, Self::Shipped) => true,
            (Self::File { path: a, policy: p }, Self::File { path: b, policy: q }) => {
                a == b && p.sha256() == q.sha256()
            }
            _ => false,
        }
    }
}

impl Eq for Neural {}

impl Hash for Neural {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            Self::Shipped => 0u8.hash(state),
            Self::File { path, .. } => path.hash(state),
        }
    }
}

impl Neural {
    /// The policy this bot plays in a game of `settings`, checked to fit it.
    pub fn policy_for<G: Learned>(
        &self,
        settings: &G::Settings,
    ) -> Result<Arc<Policy>, PolicyError> {
        let shape = G::policy_shape(settings);
        let policy = match self {
            Self::Shipped => shipped::policy(shape.game, G::SHIPPED_POLICIES)?,
            Self::File { policy, .. } => Arc::clone(policy),
        };
        policy.check_fits(&shape).map_err(|e| {
            PolicyError(format!(
                "bot {:?} cannot play {:?}: {}",
                cut(&BotKind::Neural(self.clone()).name()),
                shape.game,
                e.0
            ))
        })?;
        Ok(policy)
    }
}

impl BotKind {
    /// The base names; `ismcts` also takes an iteration count, `ismcts:N`, and `neural` a
    /// policy file, `neural:PATH`.
    pub const NAMES: [&'static str; 4] = ["random", "heuristic", "ismcts", "neural"];

    /// The name [`Self::parse`] reads back: `random`, `heuristic`, `ismcts` (default
    /// iterations), `ismcts:N`, `neural` or `neural:PATH`.
    pub fn name(&self) -> String {
        match self {
            Self::Random => "random".into(),
            Self::Heuristic => "heuristic".into(),
            Self::Ismcts { iterations } if *iterations == DEFAULT_ISMCTS_ITERATIONS => {
                "ismcts".into()
            }
            Self::Ismcts { iterations } => format!("ismcts:{iterations}"),
            Self::Neural(Neural::Shipped) => "neural".into(),
            Self::Neural(Neural::File { path, .. }) => format!("neural:{path}"),
        }
    }

    /// A bot by name; `neural:PATH` reads and checks the policy file (kept for later names of
    /// the same unchanged file, [`cache`]).
    pub fn parse(s: &str) -> Result<Self, RulesError> {
        if let Some(path) = s.strip_prefix("neural:") {
            if path.is_empty() {
                return Err(RulesError(
                    "bad bot \"neural:\": `neural:PATH` names a policy file (`neural` alone \
                     plays the policy shipped for the game)"
                        .into(),
                ));
            }
            let policy = cache::load(path)
                .map_err(|e| RulesError(format!("bad bot {:?}: {}", cut(s), e.0)))?;
            return Ok(Self::Neural(Neural::File {
                path: path.to_owned(),
                policy,
            }));
        }
        match s {
            "neural" => Ok(Self::Neural(Neural::Shipped)),
            "random" => Ok(Self::Random),
            "heuristic" => Ok(Self::Heuristic),
            "ismcts" => Ok(Self::Ismcts {
                iterations: DEFAULT_ISMCTS_ITERATIONS,
            }),
            other => match other.strip_prefix("ismcts:") {
                // Only the canonical spelling (digits, no sign, no leading zero): a bot has one
                // name, so `ismcts:+5` or `ismcts:05` can never be a second entrant that is `ismcts:5`.
                Some(n) => match canonical_count(n) {
                    Some(iterations) if (1..=MAX_ISMCTS_ITERATIONS).contains(&iterations) => {
                        Ok(Self::Ismcts { iterations })
                    }
                    _ => Err(RulesError(format!(
                        "bad bot {:?}: the ISMCTS iteration count in `ismcts:N` must be an \
                         integer from 1 to {MAX_ISMCTS_ITERATIONS}, written in digits without a \
                         sign or a leading zero",
                        cut(other)
                    ))),
                },
                None => Err(RulesError(format!(
                    "unknown bot {:?}; built-in bots are {:?} (and `ismcts:N` for N \
                     iterations, `neural:PATH` for a policy file)",
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

/// `n` as a count when it is written the one way a count is: ASCII digits, no leading zero.
fn canonical_count(n: &str) -> Option<u32> {
    let digits = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    if !digits || (n.len() > 1 && n.starts_with('0')) {
        return None;
    }
    n.parse().ok()
}

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
            BotKind::Neural(Neural::Shipped),
        ] {
            assert_eq!(BotKind::parse(&k.name()), Ok(k.clone()));
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
            "neural:",
            "neural:/no/such/policy.safetensors",
            "Neural",
        ] {
            assert!(BotKind::parse(bad).is_err(), "{bad}");
        }
    }
}
