//! The policies that ship inside the engine, one per game, trained by
//! `policies/make_policies.py` (see `policies/README.md`) and embedded at build time, so the
//! built-in `neural` bot needs no file at run time.

use std::sync::{Arc, OnceLock};

use super::file;
use super::policy::{Policy, PolicyError};

macro_rules! shipped {
    ($name:literal) => {
        (
            $name,
            include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/policies/",
                $name,
                ".safetensors"
            ))
            .as_slice(),
        )
    };
}

/// `(game, file bytes)` of every shipped policy.
pub const FILES: [(&str, &[u8]); 3] = [shipped!("head"), shipped!("year"), shipped!("spin")];

/// The shipped policy file of `game`.
pub fn bytes(game: &str) -> Option<&'static [u8]> {
    FILES.iter().find(|(g, _)| *g == game).map(|(_, b)| *b)
}

/// The shipped policy of `game`, read once per process.
pub fn policy(game: &str) -> Result<Arc<Policy>, PolicyError> {
    static READ: [OnceLock<Result<Arc<Policy>, PolicyError>>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let Some(k) = FILES.iter().position(|(g, _)| *g == game) else {
        return Err(PolicyError(format!(
            "no policy ships for {game:?}; shipped: {:?}",
            FILES.map(|(g, _)| g)
        )));
    };
    READ[k]
        .get_or_init(|| {
            let policy = file::read(FILES[k].1)?;
            if policy.game() != game {
                return Err(PolicyError(format!(
                    "the shipped file of {game:?} holds a policy of {:?}",
                    policy.game()
                )));
            }
            Ok(Arc::new(policy))
        })
        .clone()
}
