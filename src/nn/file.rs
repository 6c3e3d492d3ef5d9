//! The policy file, format 1: a safetensors file whose metadata is the manifest.
//!
//! Tensors `layers.{i}.weight` (`[outputs, inputs]`, f32) and `layers.{i}.bias` (`[outputs]`)
//! for `i` in `0..L`, nothing else. Manifest entries (strings):
//!
//! | key | value |
//! |---|---|
//! | `format`, `format_version` | `panda-core-policy`, `1` |
//! | `game` | the game it plays (`head`, `year`, `spin`) |
//! | `kind` | `action-values` or `move-scores` ([`PolicyKind`]) |
//! | `observation_layout` | the observation layout version it reads |
//! | `move_features_layout` | the move-feature layout version (move-scores only) |
//! | `layers` | widths, input first: `96,256,128,24` |
//! | `activation` | `relu` (between layers; none after the last) |
//! | `sha256` | hex SHA-256 of the tensors' bytes in layer order, weight before bias |
//!
//! Other entries (the trainer's `seed`, `decisions`, `players`) are kept and shown, not read.
//! Everything is checked before a policy exists: a file that passes plays, one that does not
//! is refused naming the entry at fault.

use std::collections::BTreeMap;

use safetensors::{Dtype, SafeTensors};
use sha2::{Digest, Sha256};

use super::mlp::{Dense, Mlp};
use super::policy::{Policy, PolicyError, PolicyKind};

pub const FORMAT: &str = "panda-core-policy";
pub const FORMAT_VERSION: &str = "1";
/// Bounds that keep a hostile file from costing more than a policy could need.
pub const MAX_FILE_BYTES: usize = 64 << 20;
pub const MAX_LAYERS: usize = 8;
pub const MAX_WIDTH: usize = 4096;

fn refuse<T>(what: impl Into<String>) -> Result<T, PolicyError> {
    Err(PolicyError(what.into()))
}

/// Read and check a policy file's bytes.
pub fn read(bytes: &[u8]) -> Result<Policy, PolicyError> {
    if bytes.len() > MAX_FILE_BYTES {
        return refuse(format!(
            "a policy file is at most {MAX_FILE_BYTES} bytes; this one has {}",
            bytes.len()
        ));
    }
    let (_, header) = SafeTensors::read_metadata(bytes)
        .or_else(|e| refuse(format!("not a safetensors file ({e})")))?;
    let tensors = SafeTensors::deserialize(bytes)
        .or_else(|e| refuse(format!("not a safetensors file ({e})")))?;
    let metadata: BTreeMap<String, String> = header
        .metadata()
        .as_ref()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    let entry = |key: &str| -> Result<&str, PolicyError> {
        metadata.get(key).map(String::as_str).ok_or_else(|| {
            PolicyError(format!(
                "the manifest (safetensors metadata) has no {key:?}; a panda-core policy file \
                 holds format, format_version, game, kind, observation_layout, layers, \
                 activation and sha256"
            ))
        })
    };
    if entry("format")? != FORMAT {
        return refuse(format!(
            "\"format\" is {:?}, not {FORMAT:?}: not a panda-core policy file",
            clip(entry("format")?)
        ));
    }
    if entry("format_version")? != FORMAT_VERSION {
        return refuse(format!(
            "\"format_version\" is {:?}; this engine reads version {FORMAT_VERSION}",
            clip(entry("format_version")?)
        ));
    }
    let game = entry("game")?;
    if game.is_empty()
        || game.len() > 32
        || !game
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return refuse(format!(
            "\"game\" {:?} is not a game name (\"head\", \"year\", \"spin\")",
            clip(game)
        ));
    }
    let kind = PolicyKind::parse(entry("kind")?).ok_or_else(|| {
        PolicyError(format!(
            "\"kind\" is {:?}; it is \"action-values\" or \"move-scores\"",
            clip(entry("kind").unwrap_or_default())
        ))
    })?;
    let observation_layout = entry("observation_layout")?.to_owned();
    let move_features_layout = metadata.get("move_features_layout").cloned();
    match (kind, &move_features_layout) {
        (PolicyKind::MoveScores, None) => {
            return refuse("a move-scores policy names its \"move_features_layout\"")
        }
        (PolicyKind::ActionValues, Some(_)) => {
            return refuse("an action-values policy has no \"move_features_layout\"")
        }
        _ => {}
    }
    if entry("activation")? != "relu" {
        return refuse(format!(
            "\"activation\" is {:?}; the engine runs \"relu\"",
            clip(entry("activation")?)
        ));
    }
    let sizes = layer_sizes(entry("layers")?)?;

    let expected: Vec<String> = (0..sizes.len() - 1)
        .flat_map(|i| [format!("layers.{i}.weight"), format!("layers.{i}.bias")])
        .collect();
    let mut names: Vec<&str> = tensors.names();
    names.sort_unstable();
    let mut wanted: Vec<&str> = expected.iter().map(String::as_str).collect();
    wanted.sort_unstable();
    if names != wanted {
        let extra: Vec<&&str> = names.iter().filter(|n| !wanted.contains(n)).collect();
        let missing: Vec<&&str> = wanted.iter().filter(|n| !names.contains(n)).collect();
        return refuse(format!(
            "the tensors do not match \"layers\" {:?}: missing {missing:?}, unexpected {:?}",
            entry("layers")?,
            extra.iter().take(8).collect::<Vec<_>>()
        ));
    }

    let mut hasher = Sha256::new();
    let mut layers = Vec::with_capacity(sizes.len() - 1);
    for (i, pair) in sizes.windows(2).enumerate() {
        let (inputs, outputs) = (pair[0], pair[1]);
        let weight = floats(&tensors, &format!("layers.{i}.weight"), &[outputs, inputs])?;
        let bias = floats(&tensors, &format!("layers.{i}.bias"), &[outputs])?;
        hasher.update(weight.1);
        hasher.update(bias.1);
        layers.push(Dense::from_out_in(inputs, outputs, &weight.0, bias.0));
    }
    let sha256 = hex(hasher);
    let stated = entry("sha256")?;
    if stated != sha256 {
        return refuse(format!(
            "the weights' SHA-256 is {sha256}, but the manifest's \"sha256\" says {:?}: the \
             file is damaged or was edited",
            clip(stated)
        ));
    }
    Ok(Policy {
        game: game.to_owned(),
        kind,
        observation_layout,
        move_features_layout,
        mlp: Mlp::new(layers),
        metadata,
        sha256,
    })
}

/// `"96,256,128,24"`: 2 to `MAX_LAYERS + 1` widths from 1 to `MAX_WIDTH`.
fn layer_sizes(text: &str) -> Result<Vec<usize>, PolicyError> {
    let bad = || {
        PolicyError(format!(
            "\"layers\" is {:?}; it lists the widths, input first, as 2 to {} integers from 1 \
             to {MAX_WIDTH} separated by commas (\"96,256,128,24\")",
            clip(text),
            MAX_LAYERS + 1
        ))
    };
    let sizes = text
        .split(',')
        .map(|s| s.trim().parse::<usize>().map_err(|_| bad()))
        .collect::<Result<Vec<_>, _>>()?;
    if !(2..=MAX_LAYERS + 1).contains(&sizes.len())
        || sizes.iter().any(|&n| n == 0 || n > MAX_WIDTH)
    {
        return Err(bad());
    }
    Ok(sizes)
}

/// Tensor `name` as f32 values of `shape`, all finite, with its raw bytes (for the hash).
fn floats<'a>(
    tensors: &SafeTensors<'a>,
    name: &str,
    shape: &[usize],
) -> Result<(Vec<f32>, &'a [u8]), PolicyError> {
    let view = tensors
        .tensor(name)
        .or_else(|e| refuse(format!("tensor {name:?}: {e}")))?;
    if view.dtype() != Dtype::F32 {
        return refuse(format!(
            "tensor {name:?} is {:?}; policy tensors are F32",
            view.dtype()
        ));
    }
    if view.shape() != shape {
        return refuse(format!(
            "tensor {name:?} has shape {:?}; \"layers\" makes it {shape:?}",
            view.shape()
        ));
    }
    let data = view.data();
    let values: Vec<f32> = data
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    if let Some(k) = values.iter().position(|v| !v.is_finite()) {
        return refuse(format!(
            "tensor {name:?} holds {} at index {k}; weights are finite",
            values[k]
        ));
    }
    Ok((values, data))
}

/// What [`write`] needs besides the weights.
#[derive(Clone, Debug)]
pub struct Manifest<'a> {
    pub game: &'a str,
    pub kind: PolicyKind,
    pub observation_layout: &'a str,
    pub move_features_layout: Option<&'a str>,
    /// Further entries (the trainer's seed, decisions, players).
    pub extra: &'a [(&'a str, &'a str)],
}

/// A policy file of dense layers given as `(weight [outputs][inputs] row-major, bias)`: the
/// trainer's format, for Rust users, tests and fuzz seeds. The widths are read off the
/// weights; [`read`] accepts what this writes (when the layers chain).
pub fn write(manifest: &Manifest<'_>, layers: &[(Vec<f32>, Vec<f32>)]) -> Vec<u8> {
    let mut sizes = Vec::new();
    let mut hasher = Sha256::new();
    let mut raw: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
    for (i, (weight, bias)) in layers.iter().enumerate() {
        let outputs = bias.len();
        let inputs = weight.len() / outputs.max(1);
        if i == 0 {
            sizes.push(inputs);
        }
        sizes.push(outputs);
        let w: Vec<u8> = weight.iter().flat_map(|v| v.to_le_bytes()).collect();
        let b: Vec<u8> = bias.iter().flat_map(|v| v.to_le_bytes()).collect();
        hasher.update(&w);
        hasher.update(&b);
        raw.push((format!("layers.{i}.weight"), vec![outputs, inputs], w));
        raw.push((format!("layers.{i}.bias"), vec![outputs], b));
    }
    let sha256 = hex(hasher);
    let mut meta: std::collections::HashMap<String, String> = [
        ("format", FORMAT),
        ("format_version", FORMAT_VERSION),
        ("game", manifest.game),
        ("kind", manifest.kind.name()),
        ("observation_layout", manifest.observation_layout),
        ("activation", "relu"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    if let Some(layout) = manifest.move_features_layout {
        meta.insert("move_features_layout".into(), layout.into());
    }
    let widths: Vec<String> = sizes.iter().map(usize::to_string).collect();
    meta.insert("layers".into(), widths.join(","));
    meta.insert("sha256".into(), sha256);
    for (k, v) in manifest.extra {
        meta.insert(k.to_string(), v.to_string());
    }
    let views: Vec<(String, safetensors::tensor::TensorView<'_>)> = raw
        .iter()
        .map(|(name, shape, data)| {
            let view = safetensors::tensor::TensorView::new(Dtype::F32, shape.clone(), data)
                .expect("a shape and its data agree");
            (name.clone(), view)
        })
        .collect();
    safetensors::serialize(views, Some(meta)).expect("tensors of a few MB serialize")
}

/// The lowercase hex digest the manifest's `sha256` holds.
fn hex(hasher: Sha256) -> String {
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A manifest value cut to quotable length.
fn clip(s: &str) -> String {
    crate::error::clip(s, 60)
}

#[cfg(test)]
mod tests;
