//! A format-neutral document tree: a TOML or JSON deck document reduced to what the schema
//! distinguishes, so one validator serves both formats.

/// A TOML or JSON value, reduced to what the schema distinguishes.
#[derive(Clone, Debug)]
pub(super) enum Val {
    Int(i128),
    Float,
    Bool,
    Str(String),
    Arr(Vec<Val>),
    Table(Vec<(String, Val)>),
    /// Datetime (TOML) or null (JSON): never valid in a deck.
    Other(&'static str),
}

/// Deepest nesting a deck document is read to: a valid deck needs 5 levels (top, `cards`, an
/// entry, a face, its `units`). Deeper values are not walked (no recursion without bound on a
/// hostile document) and fail validation as a wrong type.
const MAX_DEPTH: usize = 16;

impl Val {
    pub(super) fn from_toml(v: &toml::Value) -> Val {
        Val::from_toml_at(v, 0)
    }

    pub(super) fn from_toml_at(v: &toml::Value, depth: usize) -> Val {
        match v {
            _ if depth > MAX_DEPTH => Val::Other("a value nested too deeply"),
            toml::Value::Integer(i) => Val::Int(*i as i128),
            toml::Value::Float(_) => Val::Float,
            toml::Value::Boolean(_) => Val::Bool,
            toml::Value::String(s) => Val::Str(s.clone()),
            toml::Value::Array(a) => {
                Val::Arr(a.iter().map(|x| Val::from_toml_at(x, depth + 1)).collect())
            }
            toml::Value::Table(t) => Val::Table(
                t.iter()
                    .map(|(k, v)| (k.clone(), Val::from_toml_at(v, depth + 1)))
                    .collect(),
            ),
            toml::Value::Datetime(_) => Val::Other("a datetime"),
        }
    }

    pub(super) fn from_json(v: &serde_json::Value) -> Val {
        Val::from_json_at(v, 0)
    }

    pub(super) fn from_json_at(v: &serde_json::Value, depth: usize) -> Val {
        match v {
            _ if depth > MAX_DEPTH => Val::Other("a value nested too deeply"),
            serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Val::Int(i as i128),
                (None, Some(u)) => Val::Int(u as i128),
                _ => Val::Float,
            },
            serde_json::Value::Bool(_) => Val::Bool,
            serde_json::Value::String(s) => Val::Str(s.clone()),
            serde_json::Value::Array(a) => {
                Val::Arr(a.iter().map(|x| Val::from_json_at(x, depth + 1)).collect())
            }
            serde_json::Value::Object(o) => Val::Table(
                o.iter()
                    .map(|(k, v)| (k.clone(), Val::from_json_at(v, depth + 1)))
                    .collect(),
            ),
            serde_json::Value::Null => Val::Other("null"),
        }
    }

    pub(super) fn to_json(&self) -> serde_json::Value {
        match self {
            Val::Int(i) => serde_json::Value::from(*i as i64),
            Val::Str(s) => serde_json::Value::from(s.clone()),
            Val::Arr(a) => serde_json::Value::Array(a.iter().map(Val::to_json).collect()),
            Val::Table(t) => {
                serde_json::Value::Object(t.iter().map(|(k, v)| (k.clone(), v.to_json())).collect())
            }
            // Never in a validated deck.
            Val::Float | Val::Bool | Val::Other(_) => serde_json::Value::Null,
        }
    }

    pub(super) fn type_name(&self) -> &'static str {
        match self {
            Val::Int(_) => "an integer",
            Val::Float => "a float",
            Val::Bool => "a boolean",
            Val::Str(_) => "a string",
            Val::Arr(_) => "an array",
            Val::Table(_) => "a table",
            Val::Other(t) => t,
        }
    }

    pub(super) fn get(&self, key: &str) -> Option<&Val> {
        match self {
            Val::Table(t) => t.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}
