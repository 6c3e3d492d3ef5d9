//! Move notation (contract §8) and the move's JSON record (§5.1).
//!
//! ```text
//! pass
//! <kind> <cards>[ as <ranks>][ flip <cards>][ steal <seats>]
//! ```
//! Lists are joined by `+`; a section is written exactly when its list is non-empty. The parser
//! accepts only canonical text: it parses, renders again and compares, so every move has exactly
//! one spelling.

use std::fmt::{self, Write};

use super::cards::{self, card_token, parse_card, parse_rank, CardSet, NUM_CARDS, RANK_NAMES};
use super::moves::{Kind, Move, Ranks, Steal, MAX_PLAYERS};

/// A token of the input as an error message shows it: at most 40 characters.
fn shown(token: &str) -> String {
    crate::record::clip(token, 40)
}

fn card_list(set: CardSet) -> String {
    let mut s = String::new();
    for (i, id) in cards::ids(set).enumerate() {
        if i > 0 {
            s.push('+');
        }
        s.push_str(&card_token(id));
    }
    s
}

/// The notation of a move.
pub fn move_notation(m: &Move) -> String {
    let mut s = String::from(m.kind.name());
    if m.cards != 0 {
        s.push(' ');
        s.push_str(&card_list(m.cards));
    }
    if !m.named.is_empty() {
        s.push_str(" as ");
        for (i, &r) in m.named.as_slice().iter().enumerate() {
            if i > 0 {
                s.push('+');
            }
            s.push_str(RANK_NAMES.get(r as usize).copied().unwrap_or("?"));
        }
    }
    if m.flip != 0 {
        s.push_str(" flip ");
        s.push_str(&card_list(m.flip));
    }
    if !m.steal.is_empty() {
        s.push_str(" steal ");
        for (i, seat) in m.steal.seats().enumerate() {
            if i > 0 {
                s.push('+');
            }
            let _ = write!(s, "{seat}");
        }
    }
    s
}

// The text form of a move belongs to the notation: the move record itself knows nothing of it.
impl Move {
    /// The move in notation (contract §8).
    pub fn notation(&self) -> String {
        move_notation(self)
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&move_notation(self))
    }
}

fn parse_cards(text: &str) -> Result<CardSet, String> {
    let mut set: CardSet = 0;
    for tok in text.split('+') {
        let id = parse_card(tok).ok_or_else(|| format!("{:?} is not a card token", shown(tok)))?;
        set |= cards::bit(id);
    }
    Ok(set)
}

fn add_steal(steal: &mut Steal, seat: i128) -> Result<(), String> {
    if !(0..MAX_PLAYERS as i128).contains(&seat) {
        return Err(format!("{seat} is not a seat (0..4)"));
    }
    let c = &mut steal.0[seat as usize];
    *c = c
        .checked_add(1)
        .ok_or_else(|| "too many steals from one seat".to_string())?;
    Ok(())
}

/// Parse canonical move notation; an error says why the text is not a move.
pub fn parse_move(text: &str) -> Result<Move, String> {
    let mut parts = text.split(' ');
    let kind_tok = parts.next().unwrap_or_default();
    let kind = Kind::parse(kind_tok).ok_or_else(|| {
        format!(
            "unknown move kind {:?} (one of {})",
            shown(kind_tok),
            Kind::NAMES.join(", ")
        )
    })?;
    let mut m = Move::of(kind, 0);
    let rest: Vec<&str> = parts.collect();
    let mut i = 0;
    if i < rest.len() && !matches!(rest[i], "as" | "flip" | "steal") {
        m.cards = parse_cards(rest[i])?;
        i += 1;
    }
    while i < rest.len() {
        let key = rest[i];
        let Some(&value) = rest.get(i + 1) else {
            return Err(format!("section {:?} has no list", shown(key)));
        };
        match key {
            "as" => {
                let ranks = value
                    .split('+')
                    .map(|r| {
                        parse_rank(r).ok_or_else(|| format!("{:?} is not a rank name", shown(r)))
                    })
                    .collect::<Result<Vec<u8>, String>>()?;
                m.named = Ranks::from_slice(&ranks);
            }
            "flip" => m.flip = parse_cards(value)?,
            "steal" => {
                for tok in value.split('+') {
                    let seat: i128 = tok
                        .parse()
                        .map_err(|_| format!("{:?} is not a seat number", shown(tok)))?;
                    add_steal(&mut m.steal, seat)?;
                }
            }
            other => return Err(format!("unexpected {:?}", shown(other))),
        }
        i += 2;
    }
    let canonical = move_notation(&m);
    if canonical != text {
        return Err(format!(
            "not canonical notation (sections in order kind, cards, as, flip, steal; cards \
             increasing; single spaces): did you mean {:?}?",
            crate::record::clip(&canonical, 200)
        ));
    }
    Ok(m)
}

/// A move from its JSON record fields (contract §5.1): `cards` and `flip` strictly increasing
/// card ids, `named` rank indices, `steal` non-decreasing seats.
pub fn move_from_lists(
    kind: &str,
    cards: &[i128],
    named: &[i128],
    flip: &[i128],
    steal: &[i128],
) -> Result<Move, String> {
    let kind = Kind::parse(kind).ok_or_else(|| {
        format!(
            "unknown move kind {:?} (one of {})",
            shown(kind),
            Kind::NAMES.join(", ")
        )
    })?;
    let set = |field: &str, list: &[i128]| -> Result<CardSet, String> {
        let mut s: CardSet = 0;
        let mut last = -1i128;
        for &id in list {
            if !(0..NUM_CARDS as i128).contains(&id) {
                return Err(format!("{field}: {id} is not a card id (0..69)"));
            }
            if id <= last {
                return Err(format!("{field}: ids must be strictly increasing"));
            }
            last = id;
            s |= cards::bit(id as u8);
        }
        Ok(s)
    };
    let mut m = Move::of(kind, set("cards", cards)?);
    m.flip = set("flip", flip)?;
    let mut ranks = Vec::with_capacity(named.len());
    for &r in named {
        if !(0..RANK_NAMES.len() as i128).contains(&r) {
            return Err(format!("named: {r} is not a rank index (0..12)"));
        }
        ranks.push(r as u8);
    }
    m.named = Ranks::from_slice(&ranks);
    let mut last = -1i128;
    for &s in steal {
        if s < last {
            return Err("steal: seats must be non-decreasing".into());
        }
        last = s;
        add_steal(&mut m.steal, s).map_err(|e| format!("steal: {e}"))?;
    }
    Ok(m)
}

/// The move's JSON record (contract §5.1): always the five keys.
pub fn move_json(m: &Move) -> serde_json::Value {
    serde_json::json!({
        "kind": m.kind.name(),
        "cards": m.card_ids(),
        "named": m.named.as_slice(),
        "flip": m.flip_ids(),
        "steal": m.steal_seats(),
    })
}

/// The keys of a move record: every record has all five, whatever its kind (contract §5.1).
pub const MOVE_KEYS: [&str; 5] = ["kind", "cards", "named", "flip", "steal"];

/// A move from its JSON record; other keys, missing keys and non-integer entries are refused.
pub fn move_from_json(v: &serde_json::Value) -> Result<Move, String> {
    let obj = v
        .as_object()
        .ok_or("a move record is an object with keys kind, cards, named, flip, steal")?;
    for k in obj.keys() {
        if !MOVE_KEYS.contains(&k.as_str()) {
            let shown: String = k.chars().take(40).collect();
            return Err(format!(
                "unknown key {shown:?} in a move record (the keys are kind, cards, named, flip, \
                 steal)"
            ));
        }
    }
    // A missing key is not read as empty: a record written by panda-core always has all five,
    // so one without them is not a move record (issue 8, item 9).
    let missing: Vec<&str> = MOVE_KEYS
        .iter()
        .copied()
        .filter(|k| !obj.contains_key(*k))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "a move record has all five keys kind, cards, named, flip, steal (use [] for an \
             empty list); missing: {}",
            missing.join(", ")
        ));
    }
    let kind = obj
        .get("kind")
        .and_then(|k| k.as_str())
        .ok_or("'kind' must be a string")?;
    let list = |key: &str| -> Result<Vec<i128>, String> {
        match obj.get(key) {
            None => Err(format!("'{key}' is missing")),
            Some(serde_json::Value::Array(a)) => a
                .iter()
                .map(|x| match x {
                    serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => {
                        Ok(n.as_i64().map(i128::from).unwrap_or(i128::MAX))
                    }
                    _ => Err(format!("'{key}' entries must be integers")),
                })
                .collect(),
            Some(_) => Err(format!("'{key}' must be a list of integers")),
        }
    };
    move_from_lists(
        kind,
        &list("cards")?,
        &list("named")?,
        &list("flip")?,
        &list("steal")?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::climb::cards::bit;

    #[test]
    fn contract_s8_examples() {
        let cases: Vec<(Move, &str)> = vec![
            (Move::pass(), "pass"),
            (
                Move::of(Kind::DiscardElement, bit(68)),
                "discard_element Wa!",
            ),
            (Move::of(Kind::Element, bit(65)), "element Fi!"),
            (
                Move {
                    named: Ranks::from_slice(&[7]),
                    ..Move::of(Kind::Set, bit(0) | bit(20))
                },
                "set Fi3+Ea10 as 10",
            ),
            (
                Move {
                    named: Ranks::from_slice(&[8]),
                    ..Move::of(Kind::Run, bit(0))
                },
                "run Fi3 as J",
            ),
            (
                Move {
                    flip: bit(1) | bit(28),
                    ..Move::of(Kind::Single, bit(18))
                },
                "single Ea8 flip Fi4+Wo5",
            ),
            (
                Move {
                    steal: Steal([0, 2, 0, 0, 0]),
                    ..Move::of(Kind::Single, bit(18))
                },
                "single Ea8 steal 1+1",
            ),
        ];
        for (m, text) in cases {
            assert_eq!(move_notation(&m), text);
            assert_eq!(parse_move(text).unwrap(), m, "{text}");
            assert_eq!(move_from_json(&move_json(&m)).unwrap(), m);
        }
    }

    #[test]
    fn notation_round_trips_and_refuses_non_canonical_text() {
        let mut g = crate::rng::SplitMix64::new(3);
        for _ in 0..2000 {
            let kind = Kind::parse(Kind::NAMES[(g.next() % 8) as usize]).unwrap();
            let mut m = Move::of(
                kind,
                (g.next() as u128 | (g.next() as u128) << 64) & ((1 << 70) - 1),
            );
            if g.next() % 2 == 0 {
                let n = (g.next() % 4) as usize;
                let r: Vec<u8> = (0..n).map(|_| (g.next() % 13) as u8).collect();
                m.named = Ranks::from_slice(&r);
            }
            if g.next() % 2 == 0 {
                m.flip = g.next() as u128 & cards::ANIMALS;
            }
            if g.next() % 2 == 0 {
                m.steal = Steal([0, (g.next() % 3) as u8, 0, (g.next() % 2) as u8, 1]);
            }
            let text = move_notation(&m);
            assert_eq!(parse_move(&text).unwrap(), m, "{text}");
            assert_eq!(move_from_json(&move_json(&m)).unwrap(), m);
        }
        for bad in [
            "",
            "pass ",
            " pass",
            "Pass",
            "single  Fi3",
            "single Ea10+Fi3",
            "single Fi3+Fi3",
            "single Fi3 as",
            "single Fi3 flip Fi4 as 10",
            "single Fi3 steal 01",
            "single Fi3 steal 2+1",
            "single Fi3 steal 5",
            "single Fi3 steal -1",
            "single Fi3 as 11",
            "single Fi3 junk x",
            "single Fi3 Fi4",
            "bomb Xx3",
        ] {
            assert!(parse_move(bad).is_err(), "{bad:?} should be refused");
        }
        // Issue 8: the offending text is cut to a sane length in the message.
        for bad in [
            "x".repeat(1_000_000),
            format!("single {}", "Fi3".repeat(300_000)),
            format!("run Fi3 as {}", "J+".repeat(300_000)),
            format!("single Fi3 steal {}", "1+".repeat(300_000)),
            format!("single Fi3 {}", "junk ".repeat(200_000)),
            format!("single {}", ["Fi3"; 50_000].join("+")),
        ] {
            let e = parse_move(&bad).unwrap_err();
            assert!(e.len() < 600, "{} bytes: {}", e.len(), &e[..200]);
        }
        let bad_json = [
            serde_json::json!({"kind": "single", "cards": [3, 1], "named": [], "flip": [], "steal": []}),
            serde_json::json!({"kind": "single", "cards": [1], "extra": 1}),
            serde_json::json!({"kind": "single", "cards": [true], "named": [], "flip": [], "steal": []}),
            serde_json::json!({"kind": "single", "cards": [1.0], "named": [], "flip": [], "steal": []}),
            serde_json::json!({"kind": "single", "cards": [70], "named": [], "flip": [], "steal": []}),
            serde_json::json!({"kind": "single", "cards": [], "named": [], "flip": [], "steal": [2, 1]}),
            serde_json::json!({"kind": "hop", "cards": [], "named": [], "flip": [], "steal": []}),
            serde_json::json!([1]),
            // Issue 8 item 9: missing keys are refused, for every kind.
            serde_json::json!({"kind": "pass"}),
            serde_json::json!({"kind": "pass", "cards": [], "named": [], "flip": []}),
            serde_json::json!({"kind": "single", "cards": [1], "named": [], "steal": []}),
            serde_json::json!({"cards": [], "named": [], "flip": [], "steal": []}),
        ];
        for bad in bad_json {
            assert!(move_from_json(&bad).is_err(), "{bad}");
        }
    }
}
