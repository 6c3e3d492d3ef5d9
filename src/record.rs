//! What every game record (JSON document) shares: the format tag and version check.

use crate::error::{EngineError, StateError};

/// Refuse a record whose `format` or `version` is not the one this build reads.
pub fn check_header(
    format: &str,
    version: u32,
    want: &str,
    want_version: u32,
) -> Result<(), EngineError> {
    if format != want {
        return Err(StateError(format!("format must be {want:?}, got {format:?}")).into());
    }
    if version != want_version {
        return Err(StateError(format!(
            "unsupported record version {version} (this build reads {want_version})"
        ))
        .into());
    }
    Ok(())
}
