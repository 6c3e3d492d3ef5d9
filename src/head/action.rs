//! The fixed Panda Head action space (24 ids) and its notation.
//!
//! A move names *what* is played, never which copy (H-1.4), so the action space is small and
//! fixed, which is what an RL agent wants:
//!
//! | ids      | move                                   | notation |
//! |----------|----------------------------------------|----------|
//! | 0..=10   | a regular Panda of value `id + 1`      | `7`      |
//! | 11..=21  | a regular Panda of value `id - 10` + Bamboo (H-4.3) | `7+B` |
//! | 22       | a Big Panda (H-4.1, H-4.2)             | `BP`     |
//! | 23       | a Bamboo alone (H-4.4)                 | `B`      |

use super::cards::MAX_VALUE;

/// An action id in `0..NUM_ACTIONS`.
pub type ActionId = u8;
/// A set of action ids, bit `id` set per action.
pub type ActionMask = u32;

/// Number of distinct action ids.
pub const NUM_ACTIONS: usize = 24;
/// First id of the "Panda + Bamboo" block.
pub const WITH_BAMBOO_FIRST: ActionId = 11;
/// The Big Panda action.
pub const BIG_PANDA: ActionId = 22;
/// The Bamboo-alone action.
pub const BAMBOO_ALONE: ActionId = 23;

/// What an action id plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// A regular Panda of this value.
    Panda(u8),
    /// A regular Panda of this value with one Bamboo: worth value + 2.
    PandaWithBamboo(u8),
    BigPanda,
    BambooAlone,
}

impl Action {
    /// Decode an action id; `None` when out of range.
    #[inline]
    pub const fn from_id(id: ActionId) -> Option<Self> {
        match id {
            0..=10 => Some(Self::Panda(id + 1)),
            11..=21 => Some(Self::PandaWithBamboo(id - 10)),
            BIG_PANDA => Some(Self::BigPanda),
            BAMBOO_ALONE => Some(Self::BambooAlone),
            _ => None,
        }
    }

    #[inline]
    pub const fn id(self) -> ActionId {
        match self {
            Self::Panda(v) => v - 1,
            Self::PandaWithBamboo(v) => v + 10,
            Self::BigPanda => BIG_PANDA,
            Self::BambooAlone => BAMBOO_ALONE,
        }
    }

    /// Short notation: `7`, `7+B`, `BP`, `B`.
    pub fn notation(self) -> String {
        match self {
            Self::Panda(v) => v.to_string(),
            Self::PandaWithBamboo(v) => format!("{v}+B"),
            Self::BigPanda => "BP".into(),
            Self::BambooAlone => "B".into(),
        }
    }

    /// Parse the notation back (whitespace and case are ignored).
    pub fn parse(text: &str) -> Option<Self> {
        let t: String = text
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_uppercase();
        match t.as_str() {
            "BP" => return Some(Self::BigPanda),
            "B" => return Some(Self::BambooAlone),
            _ => {}
        }
        let (num, bamboo) = match t.strip_suffix("+B") {
            Some(n) => (n, true),
            None => (t.as_str(), false),
        };
        let v: u8 = num.parse().ok()?;
        if !(1..=MAX_VALUE).contains(&v) {
            return None;
        }
        Some(if bamboo {
            Self::PandaWithBamboo(v)
        } else {
            Self::Panda(v)
        })
    }

    /// A stable kind name for the Python API.
    pub const fn kind_name(self) -> &'static str {
        match self {
            Self::Panda(_) => "panda",
            Self::PandaWithBamboo(_) => "panda_bamboo",
            Self::BigPanda => "big_panda",
            Self::BambooAlone => "bamboo",
        }
    }
}

/// Iterate the ids of a mask in increasing order.
#[inline]
pub fn mask_ids(mask: ActionMask) -> impl Iterator<Item = ActionId> {
    let mut rest = mask;
    std::iter::from_fn(move || {
        if rest == 0 {
            None
        } else {
            let id = rest.trailing_zeros() as ActionId;
            rest &= rest - 1;
            Some(id)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_cover_the_space() {
        for id in 0..NUM_ACTIONS as u8 {
            let a = Action::from_id(id).unwrap();
            assert_eq!(a.id(), id);
            assert_eq!(Action::parse(&a.notation()), Some(a));
        }
        assert_eq!(Action::from_id(NUM_ACTIONS as u8), None);
    }

    #[test]
    fn parse_refuses_nonsense() {
        for bad in ["", "0", "12", "x", "BB", "+B", "7+", "-1"] {
            assert_eq!(Action::parse(bad), None, "{bad}");
        }
        assert_eq!(Action::parse(" 7 + b"), Some(Action::PandaWithBamboo(7)));
    }
}
