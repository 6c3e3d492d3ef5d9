//! Policy files by path: a bot named `neural:PATH` is parsed wherever a bot name is (every
//! `bot_move` call, every batch), and reading and hashing a file costs about a millisecond a
//! megabyte, so each file is read once and kept while its size and modification time stay the
//! same.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use super::file::{self, MAX_FILE_BYTES};
use super::policy::{Policy, PolicyError};
use crate::user_file::read_regular;

/// Files kept at once; a process that names more starts again (they are re-read on use).
const MAX_KEPT: usize = 64;

/// A file's size and modification time when it was read.
type Stamp = (u64, Option<SystemTime>);
type Kept = HashMap<PathBuf, (Stamp, Arc<Policy>)>;

fn cache() -> &'static Mutex<Kept> {
    static CACHE: OnceLock<Mutex<Kept>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

fn cannot(path: &str) -> impl Fn(std::io::Error) -> PolicyError + '_ {
    move |e| PolicyError(format!("cannot read policy file {path:?}: {e}"))
}

/// The metadata of the file at `path`, refused when it is no file or too big to be a policy.
fn policy_metadata(path: &str) -> Result<std::fs::Metadata, PolicyError> {
    let meta = std::fs::metadata(path).map_err(cannot(path))?;
    if !meta.is_file() {
        return Err(PolicyError(format!(
            "cannot read policy file {path:?}: it is not a regular file"
        )));
    }
    if meta.len() > MAX_FILE_BYTES as u64 {
        return Err(PolicyError(format!(
            "policy file {path:?} has {} bytes; a policy file is at most {MAX_FILE_BYTES}",
            meta.len()
        )));
    }
    Ok(meta)
}

/// A policy file's bytes and the policy they hold, read once and checked, not cached: for
/// callers that keep the bytes too.
pub fn read_file(path: &str) -> Result<(Vec<u8>, Policy), PolicyError> {
    let bytes = read_regular(path, MAX_FILE_BYTES as u64)
        .map_err(|e| PolicyError(format!("cannot read policy file {path:?}: {}", e.0)))?;
    let policy =
        file::read(&bytes).map_err(|e| PolicyError(format!("policy file {path:?}: {}", e.0)))?;
    Ok((bytes, policy))
}

/// The policy in the file at `path`, read and checked (or kept from an earlier read of the
/// same unchanged file).
pub fn load(path: &str) -> Result<Arc<Policy>, PolicyError> {
    let meta = policy_metadata(path)?;
    let stamp = (meta.len(), meta.modified().ok());
    // The file, not the text naming it: a relative path names another file after a chdir.
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| PathBuf::from(path));
    // A poisoned lock only means another thread panicked mid-insert: the map is still a map.
    let mut kept = cache().lock().unwrap_or_else(|p| p.into_inner());
    if let Some((s, policy)) = kept.get(&key) {
        if *s == stamp {
            return Ok(Arc::clone(policy));
        }
    }
    drop(kept);
    let policy = Arc::new(read_file(path)?.1);
    kept = cache().lock().unwrap_or_else(|p| p.into_inner());
    if kept.len() >= MAX_KEPT {
        kept.clear();
    }
    kept.insert(key, (stamp, Arc::clone(&policy)));
    Ok(policy)
}
