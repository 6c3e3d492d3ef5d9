//! The snapshot of contract §7: the complete state as plain data, and the strict rebuild of a
//! state from one (`from_snapshot`).
//!
//! The snapshot is what the differential test compares with the oracle after every move, so its
//! shape is fixed field by field. Rebuilding checks the structure strictly (exact keys, types,
//! ranges, every card in exactly one place, a coherent trick) so that a hand-built or hostile
//! position is refused with a message instead of ever reaching the engine.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::cards::{
    self, bit, cards_of_suits, CardSet, ALL_CARDS, ANIMALS, ELEMENTS, NUM_CARDS, NUM_RANKS,
    NUM_SUITS,
};
use super::combo::{classify_play, shape_of_counts, Combo, Shape};
use super::deck::Deck;
use super::lanes::lane_one;
use super::moves::{Kind, Ranks, MAX_PLAYERS};
use super::rules::{ClimbSettings, Mood, Preset, SPIN_WIN, YEAR_GAME_END};
use super::state::{ClimbState, RoundResult, TableCombo};
use crate::error::StateError;
use crate::rng::SplitMix64;

/// §7 `to_beat`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToBeatSnap {
    pub player: u64,
    pub kind: String,
    pub cards: Vec<u64>,
    pub named: Vec<u64>,
    pub rank: u64,
    pub units: u64,
    pub length: u64,
    pub copies: u64,
    pub has_blue: bool,
}

/// §7 `trick`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrickSnap {
    pub leader: Option<u64>,
    pub to_beat: Option<ToBeatSnap>,
    pub holder: Option<u64>,
    pub passed: Vec<u64>,
    pub played: Vec<Vec<u64>>,
}

/// §7 round result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundSnap {
    pub round: u64,
    pub starter: u64,
    pub shown_out: Vec<u64>,
    pub hand_sizes: Vec<u64>,
    pub scores: Vec<u64>,
}

/// The §7 snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    pub preset: String,
    pub panda_mood: String,
    pub players: u64,
    pub first_player: u64,
    pub seed: u64,
    pub deck: String,
    pub suits_in_play: Vec<u64>,
    pub round: u64,
    pub starter: u64,
    pub scores: Vec<u64>,
    pub hands: Vec<Vec<u64>>,
    pub blue: Vec<u64>,
    pub draw_pile: Vec<u64>,
    pub discard: Vec<u64>,
    pub out: Vec<u64>,
    pub trick: TrickSnap,
    pub current_player: Option<u64>,
    pub shown_out: Vec<u64>,
    pub game_over: bool,
    pub winner: Option<u64>,
    pub rng_state: u64,
    pub round_results: Vec<RoundSnap>,
}

const TOP_KEYS: [&str; 22] = [
    "preset",
    "panda_mood",
    "players",
    "first_player",
    "seed",
    "deck",
    "suits_in_play",
    "round",
    "starter",
    "scores",
    "hands",
    "blue",
    "draw_pile",
    "discard",
    "out",
    "trick",
    "current_player",
    "shown_out",
    "game_over",
    "winner",
    "rng_state",
    "round_results",
];
const TRICK_KEYS: [&str; 5] = ["leader", "to_beat", "holder", "passed", "played"];
const TO_BEAT_KEYS: [&str; 9] = [
    "player", "kind", "cards", "named", "rank", "units", "length", "copies", "has_blue",
];
const ROUND_KEYS: [&str; 5] = ["round", "starter", "shown_out", "hand_sizes", "scores"];

fn ids_list(set: CardSet) -> Vec<u64> {
    cards::ids(set).map(u64::from).collect()
}

fn seats_list(mask: u8, n: u8) -> Vec<u64> {
    (0..n)
        .filter(|s| mask >> s & 1 == 1)
        .map(u64::from)
        .collect()
}

/// The §7 `to_beat` dict of a play.
pub fn to_beat_snap(t: &TableCombo) -> ToBeatSnap {
    let s = &t.combo.shape;
    ToBeatSnap {
        player: t.player as u64,
        kind: s.kind.name().into(),
        cards: ids_list(t.combo.cards),
        named: t.combo.named.as_slice().iter().map(|&r| r as u64).collect(),
        rank: s.rank as u64,
        units: s.units as u64,
        length: s.length as u64,
        copies: s.copies as u64,
        has_blue: t.combo.has_blue,
    }
}

/// The §7 round result dict.
pub fn round_snap(r: &RoundResult) -> RoundSnap {
    RoundSnap {
        round: r.round as u64,
        starter: r.starter as u64,
        shown_out: r.shown_out().iter().map(|&s| s as u64).collect(),
        hand_sizes: r.hand_sizes().iter().map(|&s| s as u64).collect(),
        scores: r.scores().iter().map(|&s| s as u64).collect(),
    }
}

/// The snapshot of a state with the round results recorded so far.
pub fn snapshot(st: &ClimbState, results: &[RoundResult]) -> Snapshot {
    let n = st.players();
    let settings = st.settings();
    Snapshot {
        preset: settings.preset.name().into(),
        panda_mood: settings.mood.name().into(),
        players: n as u64,
        first_player: settings.first_player as u64,
        seed: st.seed(),
        deck: st.deck().name().into(),
        suits_in_play: seats_list(st.suits_in_play(), NUM_SUITS as u8),
        round: st.round() as u64,
        starter: st.starter() as u64,
        scores: st.scores().iter().map(|&s| s as u64).collect(),
        hands: (0..n).map(|s| ids_list(st.hand(s))).collect(),
        blue: ids_list(st.blue()),
        draw_pile: st.draw_pile().iter().map(|&c| c as u64).collect(),
        discard: ids_list(st.discard()),
        out: ids_list(st.out()),
        trick: TrickSnap {
            leader: st.leader().map(u64::from),
            to_beat: st.to_beat().map(to_beat_snap),
            holder: st.holder().map(u64::from),
            passed: seats_list(st.passed(), n),
            played: (0..n).map(|s| ids_list(st.played(s))).collect(),
        },
        current_player: st.current_player().map(u64::from),
        shown_out: st.shown_out().iter().map(|&s| s as u64).collect(),
        game_over: st.is_over(),
        winner: st.winner().map(u64::from),
        rng_state: st.rng_state(),
        round_results: results.iter().map(round_snap).collect(),
    }
}

/// The largest score a snapshot may state (contract §7). Far above any score a game reaches (a
/// game ends at 15 or 20 points; one trick adds at most the symbols of one play and one
/// show-out), and small enough that no sum of scores can overflow.
pub const MAX_SCORE: u32 = 1_000_000;

/// Where the cards of the play to beat are, besides their maker's place on the table.
struct Places<'a> {
    preset: Preset,
    hands: &'a [CardSet; MAX_PLAYERS],
    played: &'a [CardSet; MAX_PLAYERS],
    discard: CardSet,
    blue: CardSet,
}

/// A snapshot error; cut to a sane length, as it may quote the document's own strings.
fn bad(msg: impl Into<String>) -> StateError {
    StateError(format!(
        "invalid snapshot: {}",
        crate::record::clip(&msg.into(), 1000)
    ))
}

fn check_keys(v: &Value, keys: &[&str], what: &str) -> Result<(), StateError> {
    let obj = v
        .as_object()
        .ok_or_else(|| bad(format!("{what} must be a dict")))?;
    for k in obj.keys() {
        if !keys.contains(&k.as_str()) {
            return Err(bad(format!("unknown key {k:?} in {what}")));
        }
    }
    for k in keys {
        if !obj.contains_key(*k) {
            return Err(bad(format!("key {k:?} is missing from {what}")));
        }
    }
    Ok(())
}

/// Parse a snapshot document, checking that it has exactly the §7 keys at every level.
pub fn parse_snapshot(v: &Value) -> Result<Snapshot, StateError> {
    check_keys(v, &TOP_KEYS, "the snapshot")?;
    let trick = &v["trick"];
    check_keys(trick, &TRICK_KEYS, "'trick'")?;
    if !trick["to_beat"].is_null() {
        check_keys(&trick["to_beat"], &TO_BEAT_KEYS, "'trick.to_beat'")?;
    }
    if let Some(rs) = v["round_results"].as_array() {
        for (i, r) in rs.iter().enumerate() {
            check_keys(r, &ROUND_KEYS, &format!("'round_results[{i}]'"))?;
        }
    }
    Snapshot::deserialize(v).map_err(|e| bad(e.to_string()))
}

/// A seat index below `n`.
fn seat(v: u64, n: u8, what: &str) -> Result<u8, StateError> {
    if v < n as u64 {
        Ok(v as u8)
    } else {
        Err(bad(format!("{what} {v} is not a seat (0..{})", n - 1)))
    }
}

/// A strictly increasing list of card ids as a set.
fn id_set(list: &[u64], what: &str) -> Result<CardSet, StateError> {
    let mut set: CardSet = 0;
    let mut last: Option<u64> = None;
    for &id in list {
        if id >= NUM_CARDS as u64 {
            return Err(bad(format!("{what}: {id} is not a card id (0..69)")));
        }
        if last.is_some_and(|l| id <= l) {
            return Err(bad(format!("{what}: ids must be strictly increasing")));
        }
        last = Some(id);
        set |= bit(id as u8);
    }
    Ok(set)
}

/// A score up to [`MAX_SCORE`].
fn score_of(v: u64, what: &str) -> Result<u32, StateError> {
    if v > MAX_SCORE as u64 {
        return Err(bad(format!(
            "{what} {v} is above the largest score {MAX_SCORE}"
        )));
    }
    Ok(v as u32)
}

/// The scores of a game in progress: `spin` ends as soon as a show-out reaches 20 (S-10.2) and
/// symbols stop at 19, so every score is below 20. `year` ends at a trick end with 15 points
/// (S-10.1), so no trick starts above 15; symbols may take a score past 15 within a trick
/// (reading 25). A hand-built `year` trick may start at exactly 15, to test the S-10.1 end: the
/// game then ends at that trick's end, as it would have at the previous one.
fn running_scores(preset: Preset, scores: &[u32], trick_start: bool) -> Result<(), StateError> {
    let (most, when) = match preset {
        Preset::Spin => (
            SPIN_WIN - 1,
            "in a spin game in progress every score is below 20",
        ),
        Preset::Year if trick_start => {
            (YEAR_GAME_END, "no year trick starts with a score above 15")
        }
        Preset::Year => return Ok(()),
    };
    if let Some((s, &v)) = scores.iter().enumerate().find(|(_, &v)| v > most) {
        return Err(bad(format!(
            "scores[{s}] is {v}, but {when} (the game would be over, S-10)"
        )));
    }
    Ok(())
}

/// The scores of a finished game: `year` ends with a score of 15 or more and the winner has the
/// highest score (S-10.1); `spin` ends when the winner reaches 20 (S-10.2).
fn finished_scores(preset: Preset, scores: &[u32], winner: Option<u8>) -> Result<(), StateError> {
    let Some(w) = winner else {
        return Ok(());
    };
    let top = scores.iter().copied().max().unwrap_or(0);
    let mine = scores.get(w as usize).copied().unwrap_or(0);
    let ok = match preset {
        Preset::Year => top >= YEAR_GAME_END && mine == top,
        Preset::Spin => mine >= SPIN_WIN,
    };
    if !ok {
        return Err(bad(format!(
            "a finished {} game's winner {w} has {mine} points, which does not end the game \
             (S-10)",
            preset.name()
        )));
    }
    Ok(())
}

fn u32_of(v: u64, what: &str) -> Result<u32, StateError> {
    u32::try_from(v).map_err(|_| bad(format!("{what} {v} is too large")))
}

fn distinct_seats(list: &[u64], n: u8, what: &str) -> Result<([u8; MAX_PLAYERS], u8), StateError> {
    let mut out = [0u8; MAX_PLAYERS];
    let mut seen = 0u8;
    if list.len() > n as usize {
        return Err(bad(format!("{what} lists more seats than players")));
    }
    for (i, &s) in list.iter().enumerate() {
        let s = seat(s, n, what)?;
        if seen >> s & 1 == 1 {
            return Err(bad(format!("{what}: seat {s} appears twice")));
        }
        seen |= 1 << s;
        out[i] = s;
    }
    Ok((out, list.len() as u8))
}

fn per_seat<T>(list: &[T], n: u8, what: &str) -> Result<(), StateError> {
    if list.len() != n as usize {
        return Err(bad(format!(
            "{what} must have one entry per player ({n}), got {}",
            list.len()
        )));
    }
    Ok(())
}

/// Rebuild the to-beat combo and check its shape is one of the §6.1 rows.
fn to_beat_of(t: &ToBeatSnap, n: u8, deck: &Deck, at: &Places) -> Result<TableCombo, StateError> {
    let (blue, played) = (at.blue, at.played);
    let player = seat(t.player, n, "trick.to_beat.player")?;
    let kind = Kind::parse(&t.kind)
        .filter(|k| k.is_combination())
        .ok_or_else(|| {
            bad(format!(
                "trick.to_beat.kind {:?} is not a combination",
                t.kind
            ))
        })?;
    let set = id_set(&t.cards, "trick.to_beat.cards")?;
    if set == 0 || set & !ANIMALS != 0 {
        return Err(bad("trick.to_beat.cards must be one or more animal cards"));
    }
    let mut named = Vec::with_capacity(t.named.len());
    for &r in &t.named {
        if r >= NUM_RANKS as u64 {
            return Err(bad(format!("trick.to_beat.named: {r} is not a rank index")));
        }
        named.push(r as u8);
    }
    let (rank, units, length, copies) = (
        u32_of(t.rank, "trick.to_beat.rank")?,
        u32_of(t.units, "trick.to_beat.units")?,
        u32_of(t.length, "trick.to_beat.length")?,
        u32_of(t.copies, "trick.to_beat.copies")?,
    );
    // No play has more units than every animal card's face could show (65 cards, 5 units).
    const MAX_UNITS: u32 = 65 * 5;
    let consistent = rank < NUM_RANKS as u32
        && units <= MAX_UNITS
        && units as u64 == length as u64 * copies as u64
        && match kind {
            Kind::Single => units == 1 && length == 1,
            Kind::Set => length == 1 && units >= 2,
            Kind::Bomb => length == 1 && units >= 4,
            Kind::Run => {
                copies == 1 && (2..=5).contains(&length) && rank + 1 >= length && rank <= 11
            }
            Kind::Formation => {
                copies >= 2 && (2..=5).contains(&length) && rank + 1 >= length && rank <= 11
            }
            _ => false,
        };
    if !consistent {
        return Err(bad(format!(
            "trick.to_beat: rank {rank}, units {units}, length {length}, copies {copies} do not \
             describe a {}",
            kind.name()
        )));
    }
    let shape = Shape {
        kind,
        rank: rank as u8,
        units,
        length,
        copies,
    };
    let combo = Combo {
        shape,
        cards: set,
        named: Ranks::from_slice(&named),
        has_blue: t.has_blue,
    };
    let classifies = |faces: CardSet| {
        [false, true].iter().any(|&leading| {
            classify_play(deck, set, faces, &combo.named, leading).as_ref() == Some(&combo)
        })
    };
    let maker = player as usize;
    if set & !played[maker] == 0 {
        // Still on the table: its faces are known, it must classify as recorded.
        if !classifies(blue) {
            return Err(bad(
                "trick.to_beat does not match the cards on the table with their faces",
            ));
        }
    } else if at.preset == Preset::Year {
        return Err(bad(
            "trick.to_beat: in year the play to beat stays on the table until the trick ends \
             (its maker holds the trick, reading 20)",
        ));
    } else if set & !at.hands[maker] == 0 {
        // spin: the maker passed and the cards came back, so they were all white when played
        // and are blue now (S-6.3).
        if t.has_blue || set & !blue != 0 || !classifies(0) {
            return Err(bad(
                "trick.to_beat: cards back in their maker's hand were white when played, are \
                 blue now, and must classify as recorded with their white faces",
            ));
        }
    } else if set & !at.discard == 0 {
        // spin: discarded (a pass with a blue card among them, or a wind on one's own play):
        // some choice of faces must give the recorded play.
        if !classifies_with_some_faces(deck, set, &combo)? {
            return Err(bad(
                "trick.to_beat: no choice of faces of its cards gives the recorded play",
            ));
        }
    } else {
        return Err(bad(
            "trick.to_beat: its cards are on the table, back in the maker's hand, or in the \
             discard pile, all in one of these places",
        ));
    }
    Ok(TableCombo { player, combo })
}

/// Whether some assignment of white/blue faces to `set` classifies as `combo` (faces no longer
/// visible once the cards are discarded). Works on the distinct unit totals reachable card by
/// card, which stay few; a set whose totals exceed a bound is refused as unverifiable.
fn classifies_with_some_faces(
    deck: &Deck,
    set: CardSet,
    combo: &Combo,
) -> Result<bool, StateError> {
    const MAX_STATES: usize = 1 << 14;
    // (fixed units, wild units, some drop face, some blue face)
    let mut states: Vec<(u128, u32, bool, bool)> = vec![(0, 0, false, false)];
    for id in cards::ids(set) {
        let mut next = Vec::with_capacity(states.len() * 2);
        for &(c, w, d, b) in &states {
            for blue_face in [false, true] {
                let f = deck.face(id, blue_face);
                next.push((c + f.counts, w + f.wild as u32, d | f.drop, b | blue_face));
            }
        }
        next.sort_unstable();
        next.dedup();
        if next.len() > MAX_STATES {
            return Err(bad(
                "trick.to_beat: too many cards in the discard pile to check the play to beat",
            ));
        }
        states = next;
    }
    let named: u128 = combo.named.as_slice().iter().map(|&r| lane_one(r)).sum();
    Ok(states.iter().any(|&(c, w, d, b)| {
        w as usize == combo.named.len()
            && b == combo.has_blue
            && [false, true]
                .iter()
                .any(|&leading| shape_of_counts(c + named, leading, d) == Some(combo.shape))
    }))
}

/// Rebuild a state from a snapshot, checked strictly (contract §9 `from_snapshot`). `deck` must
/// be the deck the snapshot names.
pub fn from_snapshot(
    snap: &Snapshot,
    deck: Arc<Deck>,
) -> Result<(ClimbState, Vec<RoundResult>), StateError> {
    let preset = Preset::parse(&snap.preset).map_err(|e| bad(e.0))?;
    let mood = Mood::parse(&snap.panda_mood).map_err(|e| bad(e.0))?;
    if !(2..=5).contains(&snap.players) {
        return Err(bad(format!("players must be 2..5, got {}", snap.players)));
    }
    let n = snap.players as u8;
    let first_player = seat(snap.first_player, n, "first_player")?;
    if snap.deck != deck.name() {
        return Err(bad(format!(
            "the snapshot was taken with deck {:?}, not {:?}",
            snap.deck,
            deck.name()
        )));
    }
    // Suits in play (S-3.1).
    let mut suits = 0u8;
    let mut last: Option<u64> = None;
    for &s in &snap.suits_in_play {
        if s >= NUM_SUITS as u64 || last.is_some_and(|l| s <= l) {
            return Err(bad(
                "suits_in_play must be strictly increasing suit indices 0..4",
            ));
        }
        last = Some(s);
        suits |= 1 << s;
    }
    let want = match preset {
        Preset::Spin => 5,
        Preset::Year if n == 2 => 3,
        Preset::Year => n as u32,
    };
    // Hand-built positions (contract §9) may put more suits in play than a deal would, as long
    // as later rounds can still be dealt; never fewer.
    if suits.count_ones() < want || (preset == Preset::Spin && suits.count_ones() != want) {
        return Err(bad(format!(
            "suits_in_play must list {}{want} suits for {} with {n} players",
            if preset == Preset::Spin {
                ""
            } else {
                "at least "
            },
            preset.name()
        )));
    }
    if snap.round == 0 {
        return Err(bad("round numbers start at 1"));
    }
    let round = u32_of(snap.round, "round")?;
    let starter = seat(snap.starter, n, "starter")?;
    per_seat(&snap.scores, n, "scores")?;
    per_seat(&snap.hands, n, "hands")?;
    per_seat(&snap.trick.played, n, "trick.played")?;
    let mut scores = [0u32; MAX_PLAYERS];
    for (s, &v) in snap.scores.iter().enumerate() {
        scores[s] = score_of(v, &format!("scores[{s}]"))?;
    }
    let mut hands = [0 as CardSet; MAX_PLAYERS];
    let mut played = [0 as CardSet; MAX_PLAYERS];
    for s in 0..n as usize {
        hands[s] = id_set(&snap.hands[s], &format!("hands[{s}]"))?;
        played[s] = id_set(&snap.trick.played[s], &format!("trick.played[{s}]"))?;
        if played[s] & !ANIMALS != 0 {
            return Err(bad(format!(
                "trick.played[{s}]: element cards never stay on the table"
            )));
        }
    }
    let blue = id_set(&snap.blue, "blue")?;
    let discard = id_set(&snap.discard, "discard")?;
    let out = id_set(&snap.out, "out")?;
    if snap.draw_pile.len() > NUM_CARDS as usize {
        return Err(bad("the draw pile holds more cards than exist"));
    }
    let mut pile = [0u8; NUM_CARDS as usize];
    let mut pile_set: CardSet = 0;
    for (i, &c) in snap.draw_pile.iter().enumerate() {
        if c >= NUM_CARDS as u64 {
            return Err(bad(format!("draw_pile: {c} is not a card id (0..69)")));
        }
        if pile_set >> c & 1 == 1 {
            return Err(bad(format!("draw_pile: card {c} appears twice")));
        }
        pile_set |= bit(c as u8);
        pile[i] = c as u8;
    }
    // Every card in exactly one place (contract §7).
    let places: Vec<(String, CardSet)> = (0..n as usize)
        .map(|s| (format!("hands[{s}]"), hands[s]))
        .chain((0..n as usize).map(|s| (format!("trick.played[{s}]"), played[s])))
        .chain([
            ("draw_pile".to_string(), pile_set),
            ("discard".to_string(), discard),
            ("out".to_string(), out),
        ])
        .collect();
    let mut seen: CardSet = 0;
    for (name, set) in &places {
        if seen & set != 0 {
            let id = (seen & set).trailing_zeros();
            return Err(bad(format!(
                "card {id} is in more than one place (again in {name})"
            )));
        }
        seen |= set;
    }
    if seen != ALL_CARDS {
        let missing: Vec<u8> = cards::ids(ALL_CARDS & !seen).collect();
        return Err(bad(format!("cards missing from every place: {missing:?}")));
    }
    let on_hand_or_table = hands.iter().chain(played.iter()).fold(0, |a, &h| a | h);
    if blue & !(on_hand_or_table & ANIMALS) != 0 {
        return Err(bad("blue lists only animal cards in hands or on the table"));
    }
    match preset {
        Preset::Year => {
            if out != ALL_CARDS & !cards_of_suits(suits) {
                return Err(bad(
                    "in year, out is exactly the cards of the suits not in play",
                ));
            }
        }
        Preset::Spin => {
            if out & !ELEMENTS != 0 {
                return Err(bad("in spin, only wind cards can be out"));
            }
        }
    }
    // The trick.
    let mut passed = 0u8;
    let mut last: Option<u64> = None;
    for &s in &snap.trick.passed {
        let q = seat(s, n, "trick.passed")?;
        if last.is_some_and(|l| s <= l) {
            return Err(bad("trick.passed must be strictly increasing"));
        }
        last = Some(s);
        passed |= 1 << q;
    }
    let leader = snap
        .trick
        .leader
        .map(|s| seat(s, n, "trick.leader"))
        .transpose()?;
    let holder = snap
        .trick
        .holder
        .map(|s| seat(s, n, "trick.holder"))
        .transpose()?;
    let current = snap
        .current_player
        .map(|s| seat(s, n, "current_player"))
        .transpose()?;
    let winner = snap.winner.map(|s| seat(s, n, "winner")).transpose()?;
    let places = Places {
        preset,
        hands: &hands,
        played: &played,
        discard,
        blue,
    };
    let to_beat = snap
        .trick
        .to_beat
        .as_ref()
        .map(|t| to_beat_of(t, n, &deck, &places))
        .transpose()?;
    let (shown_out, n_shown) = distinct_seats(&snap.shown_out, n, "shown_out")?;
    for &s in &shown_out[..n_shown as usize] {
        if hands[s as usize] != 0 {
            return Err(bad(format!("seat {s} showed out but holds cards")));
        }
    }
    let table_empty = played.iter().all(|&p| p == 0);
    if snap.game_over {
        if winner.is_none()
            || current.is_some()
            || leader.is_some()
            || holder.is_some()
            || to_beat.is_some()
            || passed != 0
            || !table_empty
        {
            return Err(bad(
                "a finished game has a winner and no current player, leader, holder, play to \
                 beat, passes or cards on the table",
            ));
        }
        finished_scores(preset, &scores[..n as usize], winner)?;
    } else {
        let Some(c) = current else {
            return Err(bad("a game in progress has a current player"));
        };
        if winner.is_some() || leader.is_none() {
            return Err(bad("a game in progress has a trick leader and no winner"));
        }
        if hands[c as usize] == 0 {
            return Err(bad(format!("the current player {c} holds no cards")));
        }
        if passed >> c & 1 == 1 || holder == Some(c) {
            return Err(bad(format!(
                "the current player {c} has passed or holds the trick"
            )));
        }
        match (&to_beat, holder) {
            (None, Some(_)) => return Err(bad("a trick with a holder has a play to beat")),
            (None, None) if !table_empty => {
                return Err(bad("cards on the table but no play to beat"))
            }
            (Some(_), None) => return Err(bad("a play to beat has a holder")),
            _ => {}
        }
        if let Some(h) = holder {
            if passed >> h & 1 == 1 {
                return Err(bad("the holder never passes (reading 20)"));
            }
            if preset == Preset::Year && to_beat.as_ref().map(|t| t.player) != Some(h) {
                return Err(bad(
                    "in year the holder is the seat that made the play to beat (reading 20)",
                ));
            }
        }
        let holding = (0..n as usize).filter(|&s| hands[s] != 0).count();
        if holding == 0 {
            return Err(bad("nobody holds cards in a game in progress"));
        }
        running_scores(preset, &scores[..n as usize], to_beat.is_none())?;
    }
    let mut results = Vec::with_capacity(snap.round_results.len());
    for (i, r) in snap.round_results.iter().enumerate() {
        let what = format!("round_results[{i}]");
        per_seat(&r.hand_sizes, n, &format!("{what}.hand_sizes"))?;
        per_seat(&r.scores, n, &format!("{what}.scores"))?;
        let (shown, n_sh) = distinct_seats(&r.shown_out, n, &format!("{what}.shown_out"))?;
        let mut hand_sizes = [0u32; MAX_PLAYERS];
        let mut rscores = [0u32; MAX_PLAYERS];
        for s in 0..n as usize {
            hand_sizes[s] = u32_of(r.hand_sizes[s], "hand size")?;
            rscores[s] = score_of(r.scores[s], &format!("{what}.scores[{s}]"))?;
        }
        if r.round == 0 {
            return Err(bad(format!("{what}.round: round numbers start at 1")));
        }
        results.push(RoundResult {
            round: u32_of(r.round, "round")?,
            starter: seat(r.starter, n, "round result starter")?,
            players: n,
            shown_out: shown,
            n_shown: n_sh,
            hand_sizes,
            scores: rscores,
        });
    }
    let settings = ClimbSettings {
        preset,
        mood,
        first_player,
        deck,
    };
    // The round-start scores are not in the snapshot: they are the last earlier round's result,
    // or zero before any (what the round end's score changes are measured from).
    let round_start_scores = results
        .iter()
        .rev()
        .find(|r| r.round < round)
        .map_or([0; MAX_PLAYERS], |r| r.scores);
    let st = ClimbState {
        settings,
        players: n,
        seed: snap.seed,
        rng: SplitMix64::new(snap.rng_state),
        suits,
        round,
        starter,
        scores,
        hands,
        blue,
        pile,
        pile_pos: 0,
        pile_end: snap.draw_pile.len() as u8,
        discard,
        out,
        leader,
        to_beat,
        holder,
        passed,
        played,
        current,
        shown_out,
        n_shown,
        game_over: snap.game_over,
        winner,
        round_start_scores,
    };
    // Contract §5.3: a position with more legal moves than the engine builds is refused here,
    // where it enters, rather than at the first call that needs its moves.
    st.try_legal_moves_into(&mut Vec::new())
        .map_err(|e| bad(e.to_string()))?;
    Ok((st, results))
}
