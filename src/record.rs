//! What every game record (JSON document) shares: the format tag and version check, and the
//! strict JSON text parser every document of this crate is read with.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

// `clip` lives with the errors it shapes; it stays reachable here for the record readers.
pub use crate::error::clip;
use crate::error::{EngineError, StateError};

/// Refuse a record whose `format` or `version` is not the one this build reads.
pub fn check_header(
    format: &str,
    version: u32,
    want: &str,
    want_version: u32,
) -> Result<(), EngineError> {
    if format != want {
        return Err(StateError(format!(
            "format must be {want:?}, got {:?}",
            clip(format, 40)
        ))
        .into());
    }
    if version != want_version {
        return Err(StateError(format!(
            "unsupported record version {version} (this build reads {want_version})"
        ))
        .into());
    }
    Ok(())
}

/// Check that the object at `path` in `doc` (when there is one) has every key of `keys`: a
/// record states each field, nothing is filled in by default. Unknown keys are left to the
/// typed parse that follows.
pub fn require_keys(
    doc: &Value,
    path: &[&str],
    keys: &[&str],
    what: &str,
) -> Result<(), EngineError> {
    let mut v = doc;
    for p in path {
        match v.get(p) {
            Some(next) => v = next,
            None => return Ok(()),
        }
    }
    let Some(obj) = v.as_object() else {
        return Ok(());
    };
    let missing: Vec<&str> = keys
        .iter()
        .copied()
        .filter(|k| !obj.contains_key(*k))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(StateError(format!(
        "{what} must state every field ({}); missing: {}",
        keys.join(", "),
        missing.join(", ")
    ))
    .into())
}

/// Parse JSON text strictly: like `serde_json::from_str`, but an object that repeats a key is an
/// error at any depth (serde_json keeps the last value silently; TOML refuses repeats, and both
/// deck formats must agree). Nesting deeper than serde_json's limit of 128 is an error too, never
/// a stack overflow.
pub fn parse_json(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let v = Strict::deserialize(&mut de)?;
    de.end()?;
    Ok(v.0)
}

/// A JSON value read with duplicate keys refused.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Strict::deserialize(d).map(|s| s.0)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "duplicate key {:?} in an object",
                    clip(&key, 40)
                )));
            }
            let Strict(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_refused_at_any_depth() {
        assert_eq!(
            parse_json(r#"{"a": [1, {"b": null}], "c": 2.5}"#).unwrap(),
            serde_json::json!({"a": [1, {"b": null}], "c": 2.5})
        );
        for text in [
            r#"{"a": 1, "a": 2}"#,
            r#"{"x": {"a": 1, "b": 2, "a": 1}}"#,
            r#"[[{"k": [], "k": []}]]"#,
        ] {
            let e = parse_json(text).unwrap_err().to_string();
            assert!(e.contains("duplicate key"), "{text}: {e}");
        }
        // Keys are compared after unescaping.
        assert!(parse_json(r#"{"a": 1, "\u0061": 2}"#).is_err());
        assert!(parse_json("{} x").is_err());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        for open in ["[", "{\"a\":"] {
            let text = open.repeat(100_000);
            let e = parse_json(&text).unwrap_err().to_string();
            assert!(e.contains("recursion limit"), "{e}");
        }
        // 100 levels are fine.
        let text = format!("{}1{}", "[".repeat(100), "]".repeat(100));
        assert!(parse_json(&text).is_ok());
    }

    #[test]
    fn clip_cuts_long_values() {
        assert_eq!(clip("abc", 5), "abc");
        assert_eq!(clip("abcdef", 3), "abc…");
        assert_eq!(clip("ééé", 2), "éé…");
    }
}
