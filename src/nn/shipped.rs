//! The policies that ship inside the engine, trained by `policies/make_policies.py` (see
//! `policies/README.md`) and embedded at build time by the game they play ([`shipped_file!`] in
//! its `Learned::SHIPPED_POLICIES`), so the built-in `neural` bot needs no file at run time.

use std::sync::{Arc, Mutex, OnceLock};

use super::file;
use super::policy::{Policy, PolicyError};

/// `(name, bytes)` of `policies/<name>.safetensors`, embedded at build time: one of a game's
/// shipped policies.
macro_rules! shipped_file {
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

pub(crate) use shipped_file;

/// A shipped policy file: the game it plays (as policy files name it) and its bytes.
pub type ShippedFile = (&'static str, &'static [u8]);

/// The bytes of the policy named `game` among `files`.
pub fn bytes(game: &str, files: &[ShippedFile]) -> Option<&'static [u8]> {
    files.iter().find(|(g, _)| *g == game).map(|(_, b)| *b)
}

/// The shipped policy named `game` among `files` (a game's `SHIPPED_POLICIES`, or every
/// game's), read and checked once per process.
pub fn policy(game: &str, files: &[ShippedFile]) -> Result<Arc<Policy>, PolicyError> {
    type Read = Vec<(&'static str, Result<Arc<Policy>, PolicyError>)>;
    static READ: OnceLock<Mutex<Read>> = OnceLock::new();
    let Some(&(name, bytes)) = files.iter().find(|(g, _)| *g == game) else {
        let shipped: Vec<&str> = files.iter().map(|(g, _)| *g).collect();
        return Err(PolicyError(format!(
            "no policy ships for {game:?}; shipped: {shipped:?}"
        )));
    };
    // A panic while reading cannot leave the list half written: the value is pushed whole.
    let mut read = READ
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, policy)) = read.iter().find(|(g, _)| *g == name) {
        return policy.clone();
    }
    let policy = file::read(bytes).and_then(|policy| {
        if policy.game() == name {
            Ok(Arc::new(policy))
        } else {
            Err(PolicyError(format!(
                "the shipped file of {name:?} holds a policy of {:?}",
                policy.game()
            )))
        }
    });
    read.push((name, policy.clone()));
    policy
}
