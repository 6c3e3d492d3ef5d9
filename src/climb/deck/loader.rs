//! Loading a deck: read a TOML or JSON document, check every rule of the schema (S-2.4,
//! docs/deck_schema.md) with errors that name the card and the field, and compile the faces.

use crate::climb::cards::{
    self, card_label, CardSet, ELEMENT_BASE, NUM_ANIMALS, NUM_RANKS, NUM_SUITS, RANK_NAMES,
    SUIT_NAMES,
};
use crate::climb::lanes::lane_one;
use crate::climb::shape::shape_of_counts;
use crate::error::StateError;
use crate::user_file::read_regular_text;

use super::document::Val;
use super::{Condition, Deck, Element, Face, FORMAT, MAX_WILD_IN_PLAY, NO_RANK};

/// The largest deck file read: the shipped table is about 6 KB, and a deck holds at most a few
/// dozen cards, so a file a thousand times larger is no deck.
pub const MAX_DECK_FILE_BYTES: u64 = 1 << 20;

impl Deck {
    /// Load a deck file: `.json` (any case) as JSON, anything else as TOML (UTF-8).
    pub fn from_path(path: &str) -> Result<Deck, StateError> {
        let text = read_regular_text(path, MAX_DECK_FILE_BYTES).map_err(|e| {
            StateError(format!(
                "deck {path}: top level: cannot read the file: {}",
                e.0
            ))
        })?;
        if path.to_ascii_lowercase().ends_with(".json") {
            Deck::from_json(&text, path)
        } else {
            Deck::from_toml(&text, path)
        }
    }

    /// Parse and validate TOML text; `path` only names the source in errors.
    pub fn from_toml(text: &str, path: &str) -> Result<Deck, StateError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| {
            StateError(format!(
                "deck {path}: top level: not a valid TOML document: {}",
                e.message()
            ))
        })?;
        Deck::from_value(&Val::from_toml(&toml::Value::Table(table)), path)
    }

    /// Parse and validate JSON text; `path` only names the source in errors.
    pub fn from_json(text: &str, path: &str) -> Result<Deck, StateError> {
        // Strict: a repeated key is an error at any depth, as TOML makes it.
        let v = crate::record::parse_json(text).map_err(|e| {
            StateError(format!(
                "deck {path}: top level: not a valid JSON document: {e}"
            ))
        })?;
        Deck::from_json_value(&v, path)
    }

    /// Validate a deck document already parsed as JSON (as embedded in a game record).
    pub fn from_json_value(v: &serde_json::Value, path: &str) -> Result<Deck, StateError> {
        Deck::from_value(&Val::from_json(v), path)
    }

    fn from_value(v: &Val, path: &str) -> Result<Deck, StateError> {
        Loader { path }.load(v)
    }
}

/// Who an error is about: the part of `deck <path>: <where>: field '<field>': <message>`.
#[derive(Clone)]
enum Where {
    Top,
    Entry(&'static str, usize),
    Card(u8),
}

impl Where {
    fn label(&self) -> String {
        match self {
            Where::Top => "top level".into(),
            Where::Entry(list, i) => format!("{list}[{i}]"),
            Where::Card(id) => format!("card {id} ({})", card_label(*id)),
        }
    }
}

struct Loader<'a> {
    path: &'a str,
}

/// A parsed face before compilation: fixed ranks (with repeats for drop), wild count, symbols.
struct FaceSrc {
    ranks: Vec<u8>,
    wild: u8,
    bamboo: u32,
    panda: u32,
    fire: u32,
    drop: u32,
}

impl Loader<'_> {
    /// The error about `field` of `at`. The path, the field name and the message are cut to a
    /// sane length: they may quote the file's own (possibly huge) strings.
    fn err(&self, at: &Where, field: &str, msg: impl std::fmt::Display) -> StateError {
        use crate::record::clip;
        StateError(format!(
            "deck {}: {}: field '{}': {}",
            clip(self.path, 200),
            at.label(),
            clip(field, 60),
            clip(&msg.to_string(), 300)
        ))
    }

    fn load(&self, doc: &Val) -> Result<Deck, StateError> {
        let top = Where::Top;
        let Val::Table(entries) = doc else {
            return Err(self.err(&top, "(document)", "must be a table"));
        };
        const TOP_FIELDS: [&str; 6] = [
            "format",
            "version",
            "name",
            "description",
            "elements",
            "cards",
        ];
        for (k, _) in entries {
            if !TOP_FIELDS.contains(&k.as_str()) {
                return Err(self.err(
                    &top,
                    k,
                    "unknown field (allowed: format, version, name, description, elements, cards)",
                ));
            }
        }
        match doc.get("format") {
            Some(Val::Str(s)) if s == FORMAT => {}
            Some(_) => {
                return Err(self.err(&top, "format", format!("must be the string {FORMAT:?}")))
            }
            None => return Err(self.err(&top, "format", "is missing")),
        }
        match doc.get("version") {
            Some(Val::Int(1)) => {}
            Some(_) => return Err(self.err(&top, "version", "must be the integer 1")),
            None => return Err(self.err(&top, "version", "is missing")),
        }
        let name = match doc.get("name") {
            Some(Val::Str(s)) if !s.is_empty() => s.clone(),
            Some(_) => return Err(self.err(&top, "name", "must be a non-empty string")),
            None => return Err(self.err(&top, "name", "is missing")),
        };
        match doc.get("description") {
            None | Some(Val::Str(_)) => {}
            Some(v) => {
                return Err(self.err(
                    &top,
                    "description",
                    format!("must be a string, got {}", v.type_name()),
                ))
            }
        }
        let elements = self.elements(doc.get("elements"))?;
        let faces = self.cards(doc.get("cards"))?;
        self.wild_in_windows(&faces)?;
        let mut panda = [0 as CardSet; 2];
        for (id, pair) in faces.iter().enumerate() {
            for (mask, face) in panda.iter_mut().zip(pair) {
                if face.panda > 0 {
                    *mask |= 1 << id;
                }
            }
        }
        Ok(Deck {
            name,
            faces,
            panda,
            elements,
            doc: doc.to_json(),
        })
    }

    fn list<'v>(&self, v: Option<&'v Val>, field: &str) -> Result<&'v [Val], StateError> {
        match v {
            Some(Val::Arr(a)) => Ok(a),
            Some(other) => Err(self.err(
                &Where::Top,
                field,
                format!("must be an array of tables, got {}", other.type_name()),
            )),
            None => Err(self.err(&Where::Top, field, "is missing")),
        }
    }

    fn entry_fields(&self, at: &Where, v: &Val, allowed: &[&str]) -> Result<(), StateError> {
        let Val::Table(t) = v else {
            return Err(self.err(
                at,
                "(entry)",
                format!("must be a table, got {}", v.type_name()),
            ));
        };
        for (k, _) in t {
            if !allowed.contains(&k.as_str()) {
                return Err(self.err(
                    at,
                    k,
                    format!("unknown field (allowed: {})", allowed.join(", ")),
                ));
            }
        }
        Ok(())
    }

    fn int(&self, at: &Where, v: &Val, field: &str) -> Result<i128, StateError> {
        match v.get(field) {
            Some(Val::Int(i)) => Ok(*i),
            Some(other) => Err(self.err(
                at,
                field,
                format!("must be an integer, got {}", other.type_name()),
            )),
            None => Err(self.err(at, field, "is missing")),
        }
    }

    fn string<'v>(&self, at: &Where, v: &'v Val, field: &str) -> Result<&'v str, StateError> {
        match v.get(field) {
            Some(Val::Str(s)) => Ok(s),
            Some(other) => Err(self.err(
                at,
                field,
                format!("must be a string, got {}", other.type_name()),
            )),
            None => Err(self.err(at, field, "is missing")),
        }
    }

    fn elements(&self, v: Option<&Val>) -> Result<[Element; NUM_SUITS], StateError> {
        let list = self.list(v, "elements")?;
        let mut out: [Option<Element>; NUM_SUITS] = Default::default();
        for (i, e) in list.iter().enumerate() {
            let entry = Where::Entry("elements", i);
            let id = self.int(&entry, e, "id")?;
            let named = if (65..=69).contains(&id) {
                Where::Card(id as u8)
            } else {
                entry.clone()
            };
            self.entry_fields(&named, e, &["id", "suit", "number", "wind", "condition"])?;
            if !(65..=69).contains(&id) {
                return Err(self.err(
                    &entry,
                    "id",
                    format!("must be an element card id 65..69, got {id}"),
                ));
            }
            let id = id as u8;
            let suit = (id - ELEMENT_BASE) as usize;
            if out[suit].is_some() {
                return Err(self.err(&entry, "id", format!("element card {id} is listed twice")));
            }
            let at = Where::Card(id);
            let s = self.string(&at, e, "suit")?;
            if s != SUIT_NAMES[suit] {
                return Err(self.err(
                    &at,
                    "suit",
                    format!("must be {:?} for id {id}, got {s:?}", SUIT_NAMES[suit]),
                ));
            }
            let number = self.int(&at, e, "number")?;
            if number < 1 || number > i64::MAX as i128 {
                return Err(self.err(
                    &at,
                    "number",
                    format!("must be an integer >= 1, got {number}"),
                ));
            }
            let wind = self.string(&at, e, "wind")?;
            if wind.is_empty() {
                return Err(self.err(&at, "wind", "must be a non-empty string"));
            }
            let cond = self.string(&at, e, "condition")?;
            let condition = Condition::parse(cond).ok_or_else(|| {
                self.err(
                    &at,
                    "condition",
                    format!("unknown condition {cond:?} (one of {:?})", Condition::NAMES),
                )
            })?;
            out[suit] = Some(Element {
                number: number as i64,
                wind: wind.to_string(),
                condition,
            });
        }
        for (suit, e) in out.iter().enumerate() {
            if e.is_none() {
                let id = ELEMENT_BASE + suit as u8;
                return Err(self.err(&Where::Card(id), "id", "is missing from 'elements'"));
            }
        }
        let out = out.map(|e| e.expect("checked above"));
        // S-3.2 reading 2: distinct numbers, so the lowest is unique.
        for a in 0..NUM_SUITS {
            for b in 0..a {
                if out[a].number == out[b].number {
                    return Err(self.err(
                        &Where::Card(ELEMENT_BASE + a as u8),
                        "number",
                        "element numbers must be distinct (S-3.2)",
                    ));
                }
            }
        }
        Ok(out)
    }

    fn cards(&self, v: Option<&Val>) -> Result<[[Face; 2]; NUM_ANIMALS as usize], StateError> {
        let list = self.list(v, "cards")?;
        let mut out: Vec<Option<[Face; 2]>> = vec![None; NUM_ANIMALS as usize];
        for (i, c) in list.iter().enumerate() {
            let entry = Where::Entry("cards", i);
            let id = self.int(&entry, c, "id")?;
            // Name the card, not its position in the list, as soon as its id is known.
            let named = if (0..=64).contains(&id) {
                Where::Card(id as u8)
            } else {
                entry.clone()
            };
            self.entry_fields(&named, c, &["id", "suit", "rank", "white", "blue"])?;
            if !(0..=64).contains(&id) {
                return Err(self.err(
                    &entry,
                    "id",
                    format!("must be an animal card id 0..64, got {id}"),
                ));
            }
            let id = id as u8;
            if out[id as usize].is_some() {
                return Err(self.err(&entry, "id", format!("card {id} is listed twice")));
            }
            let at = Where::Card(id);
            let suit = cards::suit_of(id) as usize;
            let rank = cards::white_rank(id) as usize;
            let s = self.string(&at, c, "suit")?;
            if s != SUIT_NAMES[suit] {
                return Err(self.err(
                    &at,
                    "suit",
                    format!("must be {:?} for id {id}, got {s:?}", SUIT_NAMES[suit]),
                ));
            }
            let r = self.string(&at, c, "rank")?;
            if r != RANK_NAMES[rank] {
                return Err(self.err(
                    &at,
                    "rank",
                    format!("must be {:?} for id {id}, got {r:?}", RANK_NAMES[rank]),
                ));
            }
            let white = self.face(&at, c.get("white"), "white")?;
            // S-2.1 is not replaceable: the white face is one unit of the white rank.
            if white.ranks != [rank as u8]
                || white.wild != 0
                || white.bamboo + white.panda + white.fire + white.drop != 0
            {
                return Err(self.err(
                    &at,
                    "white",
                    format!(
                        "must be exactly {{ units = [\"{}\"], symbols = [] }} (S-2.1)",
                        RANK_NAMES[rank]
                    ),
                ));
            }
            let blue = self.face(&at, c.get("blue"), "blue")?;
            out[id as usize] = Some([compile(&white), compile(&blue)]);
        }
        let mut faces = [[Face::default(); 2]; NUM_ANIMALS as usize];
        for (id, f) in out.into_iter().enumerate() {
            match f {
                Some(f) => faces[id] = f,
                None => {
                    return Err(self.err(&Where::Card(id as u8), "id", "is missing from 'cards'"))
                }
            }
        }
        Ok(faces)
    }

    /// Schema rule 6: in every window of five consecutive ranks 3 … A (where runs and
    /// formations live; shorter windows lie inside one), the wild units of the cards that can
    /// join a play there (all fixed units of a face inside the window; the face with more wild
    /// units counts when both can) add up to at most [`MAX_WILD_IN_PLAY`]. Sets name one rank
    /// for all their wild units, so only windows can multiply the moves.
    fn wild_in_windows(&self, faces: &[[Face; 2]; NUM_ANIMALS as usize]) -> Result<(), StateError> {
        for lo in 0..=(cards::ACE - 4) {
            let window: u16 = 0x1F << lo;
            let mut total = 0u32;
            for (id, pair) in faces.iter().enumerate() {
                let wild = pair
                    .iter()
                    .filter(|f| f.mask & !window == 0)
                    .map(|f| f.wild as u32)
                    .max()
                    .unwrap_or(0);
                total += wild;
                if total > MAX_WILD_IN_PLAY {
                    return Err(self.err(
                        &Where::Card(id as u8),
                        "blue.units",
                        format!(
                            "with this card, {total} wild units can join one run or formation \
                             on the ranks {} to {}; at most {MAX_WILD_IN_PLAY} are allowed \
                             (schema rule 6: every order of the named ranks is a move)",
                            RANK_NAMES[lo as usize],
                            RANK_NAMES[lo as usize + 4],
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    fn face(&self, at: &Where, v: Option<&Val>, name: &str) -> Result<FaceSrc, StateError> {
        let Some(v) = v else {
            return Err(self.err(at, name, "is missing"));
        };
        let Val::Table(t) = v else {
            return Err(self.err(at, name, format!("must be a table, got {}", v.type_name())));
        };
        for (k, _) in t {
            if k != "units" && k != "symbols" {
                return Err(self.err(
                    at,
                    &format!("{name}.{k}"),
                    "unknown field (allowed: units, symbols)",
                ));
            }
        }
        let units_field = format!("{name}.units");
        let symbols_field = format!("{name}.symbols");
        let units = match v.get("units") {
            Some(Val::Arr(a)) => a,
            Some(o) => {
                return Err(self.err(
                    at,
                    &units_field,
                    format!("must be an array of strings, got {}", o.type_name()),
                ))
            }
            None => return Err(self.err(at, &units_field, "is missing")),
        };
        let symbols = match v.get("symbols") {
            Some(Val::Arr(a)) => a,
            Some(o) => {
                return Err(self.err(
                    at,
                    &symbols_field,
                    format!("must be an array of strings, got {}", o.type_name()),
                ))
            }
            None => return Err(self.err(at, &symbols_field, "is missing")),
        };
        if units.is_empty() || units.len() > 5 {
            return Err(self.err(
                at,
                &units_field,
                format!("must have 1 to 5 entries, got {}", units.len()),
            ));
        }
        let mut src = FaceSrc {
            ranks: Vec::new(),
            wild: 0,
            bamboo: 0,
            panda: 0,
            fire: 0,
            drop: 0,
        };
        for u in units {
            match u {
                Val::Str(s) if s == "wild" => src.wild += 1,
                Val::Str(s) => match cards::parse_rank(s) {
                    Some(r) => src.ranks.push(r),
                    None => {
                        return Err(self.err(
                            at,
                            &units_field,
                            format!("unknown unit {s:?} (a rank name or 'wild')"),
                        ))
                    }
                },
                other => {
                    return Err(self.err(
                        at,
                        &units_field,
                        format!("entries must be strings, got {}", other.type_name()),
                    ))
                }
            }
        }
        if src.wild > 2 {
            return Err(self.err(
                at,
                &units_field,
                format!("at most 2 'wild' units, got {}", src.wild),
            ));
        }
        for s in symbols {
            match s {
                Val::Str(s) => match s.as_str() {
                    "bamboo" => src.bamboo += 1,
                    "panda" => src.panda += 1,
                    "fire" => src.fire += 1,
                    "drop" => src.drop += 1,
                    other => {
                        return Err(self.err(
                            at,
                            &symbols_field,
                            format!(
                            "unknown symbol {other:?} (one of 'bamboo', 'panda', 'fire', 'drop')"
                        ),
                        ))
                    }
                },
                other => {
                    return Err(self.err(
                        at,
                        &symbols_field,
                        format!("entries must be strings, got {}", other.type_name()),
                    ))
                }
            }
        }
        // Schema rule 1: a fire symbol is the wild unit.
        if src.fire != src.wild as u32 {
            return Err(self.err(
                at,
                &symbols_field,
                format!(
                    "the number of 'fire' symbols ({}) must equal the number of 'wild' units ({})",
                    src.fire, src.wild
                ),
            ));
        }
        // Schema rule 2: drop doubles one unit.
        if src.drop > 1 {
            return Err(self.err(at, &symbols_field, "'drop' may appear at most once"));
        }
        if src.drop == 1 {
            if src.wild != 0 || src.ranks.len() != 2 || src.ranks[0] != src.ranks[1] {
                return Err(self.err(
                    at,
                    &units_field,
                    "a face with 'drop' has exactly two units of the same rank and no 'wild'",
                ));
            }
        } else {
            // Schema rule 3.
            let mut seen = 0u16;
            for &r in &src.ranks {
                if seen & (1 << r) != 0 {
                    return Err(self.err(
                        at,
                        &units_field,
                        format!(
                            "rank {:?} appears twice without the 'drop' symbol",
                            RANK_NAMES[r as usize]
                        ),
                    ));
                }
                seen |= 1 << r;
            }
        }
        // Schema rule 4: the face alone forms a combination for some naming of its wild units,
        // so a leader holding any animal card has a legal play.
        let fixed: u128 = src.ranks.iter().map(|&r| lane_one(r)).sum();
        let alone = match src.wild {
            0 => shape_of_counts(fixed, true, src.drop == 1).is_some(),
            1 => (0..NUM_RANKS as u8)
                .any(|a| shape_of_counts(fixed + lane_one(a), true, false).is_some()),
            _ => (0..NUM_RANKS as u8).any(|a| {
                (0..NUM_RANKS as u8).any(|b| {
                    shape_of_counts(fixed + lane_one(a) + lane_one(b), true, false).is_some()
                })
            }),
        };
        if !alone {
            return Err(self.err(
                at,
                &units_field,
                "the face alone must form a single, set, run or formation (S-4.1 … S-4.4)",
            ));
        }
        Ok(src)
    }
}

fn compile(src: &FaceSrc) -> Face {
    let counts: u128 = src.ranks.iter().map(|&r| lane_one(r)).sum();
    let mask = src.ranks.iter().fold(0u16, |m, &r| m | (1 << r));
    Face {
        counts,
        mask,
        wild: src.wild,
        units: src.ranks.len() as u8 + src.wild,
        drop: src.drop == 1,
        bamboo: src.bamboo,
        panda: src.panda,
        rank: if mask.count_ones() == 1 {
            mask.trailing_zeros() as u8
        } else {
            NO_RANK
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::climb::deck::RECONSTRUCTED_TOML;

    fn shipped_json() -> serde_json::Value {
        Deck::reconstructed().doc().clone()
    }

    fn err_of(doc: &serde_json::Value) -> String {
        Deck::from_json_value(doc, "t.json").unwrap_err().0
    }

    #[test]
    fn s2_2_reconstructed_faces() {
        let d = Deck::reconstructed();
        assert_eq!(d.name(), "reconstructed");
        // Seed cards: Fire 3 -> 10 + fire, Earth 8 -> Q + panda, Wood 6 -> A + bamboo,
        // Water 4 -> Q Q.
        let fire3 = d.face(0, true);
        assert_eq!((fire3.mask, fire3.wild, fire3.units), (1 << 7, 1, 2));
        let earth8 = d.face(18, true);
        assert_eq!((earth8.mask, earth8.panda, earth8.units), (1 << 9, 1, 1));
        let wood6 = d.face(29, true);
        assert_eq!((wood6.mask, wood6.bamboo), (1 << 11, 1));
        let water4 = d.face(40, true);
        assert_eq!((water4.count(9), water4.drop, water4.units), (2, true, 2));
        // Metal Q, K, A, 2 all turn into 2s; blue Fire A is 8 + fire.
        for id in 61..=64 {
            assert_eq!(d.face(id, true).mask, 1 << 12);
        }
        assert_eq!(d.face(11, true).mask, 1 << 5);
        for id in 0..65u8 {
            let w = d.face(id, false);
            assert_eq!(w.mask, 1 << (id % 13));
            assert_eq!(
                (w.units, w.wild, w.bamboo, w.panda, w.drop),
                (1, 0, 0, 0, false)
            );
        }
        let conds: Vec<_> = (0..5).map(|s| d.element(s).condition).collect();
        assert_eq!(
            conds,
            [
                Condition::RunOrFormation3Ranks,
                Condition::Single,
                Condition::Set,
                Condition::ThreeOrMoreCards,
                Condition::ContainsBlue
            ]
        );
        assert_eq!(d.element(0).number, 1);
    }

    #[test]
    fn s2_4_json_and_toml_agree() {
        let text = serde_json::to_string(&shipped_json()).unwrap();
        let j = Deck::from_json(&text, "x.json").unwrap();
        assert_eq!(&j, &*Deck::reconstructed());
    }

    #[test]
    fn s2_4_errors_name_card_and_field() {
        let base = shipped_json();
        let mut d = base.clone();
        d["cards"][17]["blue"]["units"] = serde_json::json!(["X"]);
        let e = err_of(&d);
        assert!(
            e.contains("card 17 (earth 7)") && e.contains("'blue.units'"),
            "{e}"
        );

        let mut d = base.clone();
        d["elements"][1]["number"] = serde_json::json!(1);
        let e = err_of(&d);
        assert!(
            e.contains("card 66 (earth element)") && e.contains("'number'"),
            "{e}"
        );

        let mut d = base.clone();
        d["version"] = serde_json::json!(2);
        let e = err_of(&d);
        assert!(e.contains("top level") && e.contains("'version'"), "{e}");

        let mut d = base.clone();
        d["version"] = serde_json::json!(1.0);
        assert!(err_of(&d).contains("'version'"));

        let mut d = base.clone();
        d["cards"][3]["id"] = serde_json::json!(70);
        let e = err_of(&d);
        assert!(e.contains("cards[3]") && e.contains("'id'"), "{e}");

        let mut d = base.clone();
        d["cards"].as_array_mut().unwrap().remove(5);
        let e = err_of(&d);
        assert!(
            e.contains("card 5 (fire 8)") && e.contains("missing from 'cards'"),
            "{e}"
        );

        let mut d = base.clone();
        d["cards"][0]["white"]["symbols"] = serde_json::json!(["panda"]);
        assert!(err_of(&d).contains("card 0 (fire 3): field 'white'"));

        let mut d = base.clone();
        d["cards"][0]["blue"]["symbols"] = serde_json::json!([]);
        let e = err_of(&d);
        assert!(
            e.contains("card 0 (fire 3)") && e.contains("'blue.symbols'"),
            "{e}"
        );

        let mut d = base.clone();
        d["cards"][1]["blue"] = serde_json::json!({"units": ["3", "5"], "symbols": []});
        let e = err_of(&d);
        assert!(e.contains("card 1 (fire 4)") && e.contains("alone"), "{e}");

        let mut d = base.clone();
        d["cards"][1]["blue"] = serde_json::json!({"units": ["3", "3"], "symbols": []});
        assert!(err_of(&d).contains("twice"));

        let mut d = base.clone();
        d["cards"][1]["blue"] = serde_json::json!({"units": ["3", "4"], "symbols": ["drop"]});
        assert!(err_of(&d).contains("card 1 (fire 4)"));

        let mut d = base.clone();
        d["cards"][1]["blue"]["colour"] = serde_json::json!("red");
        assert!(err_of(&d).contains("'blue.colour'"));

        // Huge strings from the file are cut in the message.
        let mut d = base.clone();
        d["cards"][1]["blue"]["units"] = serde_json::json!(["X".repeat(1_000_000)]);
        assert!(err_of(&d).len() < 700);
        let mut d = base.clone();
        d["k".repeat(1_000_000)] = serde_json::json!(1);
        assert!(err_of(&d).len() < 700);

        let mut d = base.clone();
        d["extra"] = serde_json::json!(1);
        assert!(err_of(&d).contains("field 'extra'"));

        let mut d = base.clone();
        d["elements"][2]["condition"] = serde_json::json!("pair");
        assert!(err_of(&d).contains("card 67 (wood element): field 'condition'"));

        let mut d = base.clone();
        d["cards"][2]["suit"] = serde_json::json!("earth");
        assert!(err_of(&d).contains("card 2 (fire 5): field 'suit'"));

        let mut d = base.clone();
        d["cards"][2]["blue"]["units"] = serde_json::json!(["wild", "wild", "wild"]);
        assert!(err_of(&d).contains("'blue.units'"));

        // A valid custom face: a 3-run with two wild units.
        let mut d = base.clone();
        d["cards"][2]["blue"] = serde_json::json!({"units": ["5", "wild", "wild"], "symbols": ["fire", "fire", "panda", "panda"]});
        let deck = Deck::from_json_value(&d, "ok.json").unwrap();
        assert_eq!(deck.face(2, true).wild, 2);
        assert_eq!(deck.face(2, true).panda, 2);

        // Schema rule 6 (issue 8): every blue face two wild units would give millions of
        // moves; at most MAX_WILD_IN_PLAY wild units may meet in one five-rank window.
        let mut d = base.clone();
        for c in d["cards"].as_array_mut().unwrap() {
            c["blue"] = serde_json::json!({"units": ["wild", "wild"], "symbols": ["fire", "fire"]});
        }
        let e = err_of(&d);
        assert!(e.contains("'blue.units'") && e.contains("rule 6"), "{e}");
        // Three wild-only faces (6) beside the five blue Fire cards of a window: 11 > 8.
        let mut d = base.clone();
        for i in [13, 14, 15] {
            d["cards"][i]["blue"] =
                serde_json::json!({"units": ["wild", "wild"], "symbols": ["fire", "fire"]});
        }
        assert!(err_of(&d).contains("rule 6"));
        // One wild-only face with two wild units: 5 + 2 + 1 (another one-wild face) = 8 passes.
        let mut d = base.clone();
        d["cards"][13]["blue"] =
            serde_json::json!({"units": ["wild", "wild"], "symbols": ["fire", "fire"]});
        d["cards"][14]["blue"] = serde_json::json!({"units": ["wild"], "symbols": ["fire"]});
        assert!(Deck::from_json_value(&d, "eight.json").is_ok());

        // Issue 8 item 9: JSON decks with a repeated key are refused like TOML ones, at any depth.
        let text = serde_json::to_string(&base).unwrap();
        for (from, to) in [
            ("\"version\":1", "\"version\":1,\"version\":1"),
            (
                "\"symbols\":[\"fire\"]",
                "\"symbols\":[\"fire\"],\"symbols\":[\"fire\"]",
            ),
        ] {
            let dup = text.replacen(from, to, 1);
            assert_ne!(dup, text);
            let e = Deck::from_json(&dup, "dup.json").unwrap_err().0;
            assert!(e.contains("duplicate key"), "{e}");
        }
        let toml_dup = format!("{RECONSTRUCTED_TOML}\nversion = 1\n");
        assert!(Deck::from_toml(&toml_dup, "dup.toml").is_err());
        // Deep nesting, in either format, is an error and never a stack overflow.
        let deep_json = format!(
            "{{\"cards\": {}1{}}}",
            "[".repeat(50_000),
            "]".repeat(50_000)
        );
        assert!(Deck::from_json(&deep_json, "deep.json").is_err());
        let deep_toml = format!("cards = {}1{}", "[".repeat(50_000), "]".repeat(50_000));
        assert!(Deck::from_toml(&deep_toml, "deep.toml").is_err());
        let deep_inline = format!("a = {}1{}", "{ b = ".repeat(50_000), " }".repeat(50_000));
        assert!(Deck::from_toml(&deep_inline, "deep.toml").is_err());
        // A deeply nested value given already parsed is not walked without bound.
        let mut v = serde_json::json!(1);
        for _ in 0..100 {
            v = serde_json::json!([v]);
        }
        let mut d = base.clone();
        d["cards"][0]["blue"]["units"] = v;
        assert!(err_of(&d).contains("'blue.units'"));

        assert!(Deck::from_toml("format = ", "bad.toml")
            .unwrap_err()
            .0
            .contains("top level"));
        assert!(Deck::from_path("/nonexistent/deck.toml").is_err());
    }
}
