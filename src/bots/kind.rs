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
    /// ISMCTS guided by a trained policy ([`crate::search::guided`]): its move values as the
    /// priors, its value in place of rollouts; this many iterations per decision.
    Guided { iterations: u32, neural: Neural },
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
        self.policy_of_bot::<G>(settings, &BotKind::Neural(self.clone()).name())
    }

    /// [`Neural::policy_for`] for the bot named `bot` (what a refusal quotes).
    fn policy_of_bot<G: Learned>(
        &self,
        settings: &G::Settings,
        bot: &str,
    ) -> Result<Arc<Policy>, PolicyError> {
        let shape = G::policy_shape(settings);
        let policy = match self {
            Self::Shipped => shipped::policy(shape.game, G::SHIPPED_POLICIES)?,
            Self::File { policy, .. } => Arc::clone(policy),
        };
        policy.check_fits(&shape).map_err(|e| {
            PolicyError(format!(
                "bot {:?} cannot play {:?}: {}",
                cut(bot),
                shape.game,
                e.0
            ))
        })?;
        Ok(policy)
    }
}

impl BotKind {
    /// The policy this bot plays in a game of `settings` (`neural`, `ismcts+neural`), checked
    /// to fit it; `None` for a bot without one.
    pub fn policy_for<G: Learned>(
        &self,
        settings: &G::Settings,
    ) -> Result<Option<Arc<Policy>>, PolicyError> {
        match self {
            Self::Neural(neural) => neural.policy_for::<G>(settings).map(Some),
            Self::Guided { neural, .. } => {
                neural.policy_of_bot::<G>(settings, &self.name()).map(Some)
            }
            Self::Random | Self::Heuristic | Self::Ismcts { .. } => Ok(None),
        }
    }

    /// The base names; `ismcts` also takes an iteration count, `ismcts:N`, `neural` a
    /// policy file, `neural:PATH`, and `ismcts+neural` both, `ismcts+neural:N` or
    /// `ismcts+neural:N:PATH`.
    pub const NAMES: [&'static str; 5] =
        ["random", "heuristic", "ismcts", "neural", "ismcts+neural"];

    /// The name [`Self::parse`] reads back: `random`, `heuristic`, `ismcts` (default
    /// iterations), `ismcts:N`, `neural`, `neural:PATH`, `ismcts+neural` (default iterations,
    /// the shipped policy), `ismcts+neural:N` or `ismcts+neural:N:PATH`.
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
            Self::Guided {
                iterations,
                neural: Neural::Shipped,
            } if *iterations == DEFAULT_ISMCTS_ITERATIONS => GUIDED.into(),
            Self::Guided {
                iterations,
                neural: Neural::Shipped,
            } => format!("{GUIDED}:{iterations}"),
            Self::Guided {
                iterations,
                neural: Neural::File { path, .. },
            } => format!("{GUIDED}:{iterations}:{path}"),
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
        if let Some(rest) = s.strip_prefix(GUIDED) {
            return Self::parse_guided(s, rest);
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
                     iterations, `neural:PATH` for a policy file, `ismcts+neural:N` or \
                     `ismcts+neural:N:PATH` for both)",
                    cut(other),
                    Self::NAMES
                ))),
            },
        }
    }

    /// `ismcts+neural`, `ismcts+neural:N` or `ismcts+neural:N:PATH` (`rest`: what follows
    /// `ismcts+neural` in `name`). The path is everything after the count's colon, so a path
    /// may hold colons; a path needs a count (one name per bot).
    fn parse_guided(name: &str, rest: &str) -> Result<Self, RulesError> {
        if rest.is_empty() {
            return Ok(Self::Guided {
                iterations: DEFAULT_ISMCTS_ITERATIONS,
                neural: Neural::Shipped,
            });
        }
        let bad = |why: String| RulesError(format!("bad bot {:?}: {why}", cut(name)));
        let Some(rest) = rest.strip_prefix(':') else {
            return Err(RulesError(format!(
                "unknown bot {:?}; built-in bots are {:?}",
                cut(name),
                Self::NAMES
            )));
        };
        let (count, path) = match rest.split_once(':') {
            Some((count, path)) => (count, Some(path)),
            None => (rest, None),
        };
        let iterations = match canonical_count(count) {
            Some(n) if (1..=MAX_GUIDED_ITERATIONS).contains(&n) => n,
            _ => {
                return Err(bad(format!(
                    "the iteration count in `ismcts+neural:N` must be an integer from 1 to \
                     {MAX_GUIDED_ITERATIONS}, written in digits without a sign or a leading zero"
                )))
            }
        };
        let neural = match path {
            None => Neural::Shipped,
            Some("") => {
                return Err(bad(
                    "`ismcts+neural:N:PATH` names a policy file (`ismcts+neural:N` alone \
                     plays the policy shipped for the game)"
                        .into(),
                ))
            }
            Some(path) => Neural::File {
                path: path.to_owned(),
                policy: cache::load(path).map_err(|e| bad(e.0))?,
            },
        };
        Ok(Self::Guided { iterations, neural })
    }
}

/// The guided search's base name.
const GUIDED: &str = "ismcts+neural";

/// Most ISMCTS iterations per decision a bot name may ask for: the search tree grows by a node
/// an iteration (about 64 bytes), so this bounds one decision's memory near 64 MB; a Panda Head
/// decision takes about a second, a climbing one up to half a minute.
pub const MAX_ISMCTS_ITERATIONS: u32 = 1_000_000;

/// Most iterations of `ismcts+neural:N`: a guided iteration adds a node for every move legal
/// at its leaf (tens, up to hundreds in a climbing game, about 100 bytes each) and runs the
/// network (tens of microseconds), so this bounds a decision near a few hundred MB and tens of
/// seconds.
pub const MAX_GUIDED_ITERATIONS: u32 = 100_000;

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
            BotKind::Guided {
                iterations: 50,
                neural: Neural::Shipped,
            },
            BotKind::Guided {
                iterations: DEFAULT_ISMCTS_ITERATIONS,
                neural: Neural::Shipped,
            },
        ] {
            assert_eq!(BotKind::parse(&k.name()), Ok(k.clone()));
        }
        assert_eq!(
            BotKind::parse("ismcts+neural").unwrap().name(),
            "ismcts+neural"
        );
        assert_eq!(
            BotKind::parse("ismcts+neural:7").unwrap().name(),
            "ismcts+neural:7"
        );
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
            "ismcts+neural:0",
            "ismcts+neural:",
            "ismcts+neural:x",
            "ismcts+neural:05",
            "ismcts+neural:100001",
            "ismcts+neural:5:",
            "ismcts+neural:5:/no/such/policy.safetensors",
            "ismcts+neural5",
            "ismcts+neural:/no/such/policy.safetensors",
            "neural+ismcts",
        ] {
            assert!(BotKind::parse(bad).is_err(), "{bad}");
        }
    }
}
