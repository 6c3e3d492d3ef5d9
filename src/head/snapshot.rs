//! The complete Panda Head state as plain data (hidden information included), and the strict
//! rebuild of a state from one ([`from_snapshot`]), at any point of a hand.
//!
//! The shape is the one `HeadGame.snapshot()` has always returned (the differential tests compare
//! it with the oracle's): the public part of [`super::view::HeadView`], then `players`, `hands`,
//! `draw_pile`, `rng_state` and `hand_results`. The rules are not part of it: a snapshot is
//! rebuilt under the rules it was taken with.
//!
//! Rebuilding checks everything a reachable position satisfies (every card in exactly one place,
//! hand sizes, seats, scores, Drowsy / Pooped, the order and shape of the plays on the pile, the
//! hand results) so that a hand-built or hostile position is refused with a [`StateError`] that
//! says what is wrong, never a panic, and never reaches the engine.

use serde::{Deserialize, Serialize};

use super::action::{Action, ActionId, NUM_ACTIONS};
use super::cards::{self, CardKind, CardSet, BAMBOO_MASK, BIG_PANDA_MASK, REGULAR_MASK};
use super::legal::legal_mask;
use super::rules::{HeadRules, MAX_SCORE};
use super::state::{
    HandResult, HeadState, Play, Position, HAND_SIZE, MAX_DEAL_HAND_NUMBER, MAX_PLAYERS,
};
use super::view::{card_list, seat_flags, PilePlay};
use crate::error::StateError;

/// Most points one hand can move a score by: five plays on the last pile, each worth at most 17
/// (a Big Panda following four others over an 11 with a Bamboo), rounded up.
pub const MAX_HAND_POINTS: u32 = 100;

/// One completed hand, as `HeadGame.hand_results` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandResultSnap {
    pub hand: u32,
    pub dealer: u8,
    pub last_pile_winner: u8,
    pub deltas: Vec<i32>,
    pub scores: Vec<u32>,
    pub new_drowsy: Vec<u8>,
    pub new_pooped: Vec<u8>,
}

/// The complete state, in the key order of its JSON form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeadSnapshot {
    pub hand_number: u32,
    pub dealer: u8,
    pub scores: Vec<u32>,
    pub drowsy: Vec<bool>,
    pub pooped: Vec<bool>,
    pub discard: Vec<u8>,
    pub pile_number: u8,
    pub pile_plays: Vec<PilePlay>,
    pub leader: u8,
    pub current_player: Option<u8>,
    pub is_over: bool,
    pub winner: Option<u8>,
    pub players: u8,
    pub hands: Vec<Vec<u8>>,
    /// Top card first.
    pub draw_pile: Vec<u8>,
    pub rng_state: u64,
    pub hand_results: Vec<HandResultSnap>,
}

/// The keys of a snapshot, in order (a snapshot read from JSON states every one: an absent
/// `current_player` or `winner` is refused, not read as `null`).
pub const SNAPSHOT_KEYS: [&str; 17] = [
    "hand_number",
    "dealer",
    "scores",
    "drowsy",
    "pooped",
    "discard",
    "pile_number",
    "pile_plays",
    "leader",
    "current_player",
    "is_over",
    "winner",
    "players",
    "hands",
    "draw_pile",
    "rng_state",
    "hand_results",
];

fn seats(mask: u8, n: u8) -> Vec<u8> {
    (0..n).filter(|s| mask >> s & 1 == 1).collect()
}

/// The snapshot entry of one hand result.
pub fn hand_result_snap(r: &HandResult, players: u8) -> HandResultSnap {
    let n = players as usize;
    HandResultSnap {
        hand: r.hand,
        dealer: r.dealer,
        last_pile_winner: r.last_pile_winner,
        deltas: r.deltas[..n].to_vec(),
        scores: r.scores[..n].to_vec(),
        new_drowsy: seats(r.new_drowsy, players),
        new_pooped: seats(r.new_pooped, players),
    }
}

/// The snapshot of `state` with the hand results recorded so far.
pub fn snapshot(state: &HeadState, results: &[HandResult]) -> HeadSnapshot {
    let n = state.players();
    HeadSnapshot {
        hand_number: state.hand_number(),
        dealer: state.dealer(),
        scores: state.scores().to_vec(),
        drowsy: seat_flags(state, HeadState::is_drowsy),
        pooped: seat_flags(state, HeadState::is_pooped),
        discard: card_list(state.discard()),
        pile_number: state.pile_number(),
        pile_plays: state.pile_plays().iter().map(PilePlay::of).collect(),
        leader: state.leader(),
        current_player: state.current_player(),
        is_over: state.is_over(),
        winner: state.winner(),
        players: n,
        hands: (0..n).map(|s| card_list(state.hand(s))).collect(),
        draw_pile: state.draw_pile().to_vec(),
        rng_state: state.rng_state(),
        hand_results: results.iter().map(|r| hand_result_snap(r, n)).collect(),
    }
}

/// Read a snapshot from JSON strictly: no repeated, missing or unknown key.
pub fn parse_snapshot(value: &serde_json::Value) -> Result<HeadSnapshot, StateError> {
    let bad = |e: String| StateError(format!("not a Panda Head snapshot: {e}"));
    let map = value
        .as_object()
        .ok_or_else(|| bad("a snapshot is an object".into()))?;
    if let Some(missing) = SNAPSHOT_KEYS.iter().find(|k| !map.contains_key(**k)) {
        return Err(bad(format!("missing key {missing:?}")));
    }
    serde_json::from_value(value.clone()).map_err(|e| bad(e.to_string()))
}

type Checked<T> = Result<T, StateError>;

fn refuse<T>(msg: String) -> Checked<T> {
    Err(StateError(msg))
}

/// The next seat after `seat` (exclusive) not in `pooped`; `seat` itself when every other seat is
/// Pooped.
fn next_active(seat: u8, n: u8, pooped: u8) -> u8 {
    let mut s = seat;
    for _ in 0..n {
        s = if s + 1 >= n { 0 } else { s + 1 };
        if pooped >> s & 1 == 0 {
            return s;
        }
    }
    seat
}

/// Rebuild a state (and its hand results) from a snapshot, checked strictly under `rules`.
pub fn from_snapshot(
    snap: &HeadSnapshot,
    rules: HeadRules,
) -> Result<(HeadState, Vec<HandResult>), StateError> {
    let n = snap.players;
    rules.validate_for(n).map_err(|e| StateError(e.0))?;
    let nu = n as usize;
    for (name, len) in [
        ("hands", snap.hands.len()),
        ("scores", snap.scores.len()),
        ("drowsy", snap.drowsy.len()),
        ("pooped", snap.pooped.len()),
    ] {
        if len != nu {
            return refuse(format!(
                "{name} must have one entry per player ({n}), got {len}"
            ));
        }
    }
    let places = check_cards(snap, &rules)?;
    let flags = check_seats(snap, &rules)?;
    let plays = check_pile(snap, &rules, &places, flags.pooped)?;
    check_hand_sizes(snap, &places, flags.pooped)?;
    let results = check_results(snap, flags)?;
    let mut scores = [0; MAX_PLAYERS];
    scores[..nu].copy_from_slice(&snap.scores);
    let current = match snap.current_player {
        Some(c) => c,
        None => snap.leader,
    };
    let state = HeadState::assemble(&Position {
        rules,
        players: n,
        rng_state: snap.rng_state,
        hand_number: snap.hand_number,
        dealer: snap.dealer,
        scores,
        drowsy: flags.drowsy,
        pooped: flags.pooped,
        hands: places.hands,
        draw_pile: &snap.draw_pile,
        discard: places.discard,
        pile_number: snap.pile_number,
        plays: &plays,
        leader: snap.leader,
        current,
        winner: snap.winner,
    });
    Ok((state, results))
}

/// Where the cards are, as sets.
struct Places {
    hands: [CardSet; MAX_PLAYERS],
    discard: CardSet,
    /// The cards of each play on the pile, in order.
    plays: Vec<CardSet>,
}

/// Every card of the deck exactly once across hands, draw pile, discard and pile (H-1.3, H-2.3).
fn check_cards(snap: &HeadSnapshot, rules: &HeadRules) -> Checked<Places> {
    let deck_size = rules.deck_size();
    let mut seen: CardSet = 0;
    let mut place = |list: &[u8], whose: &dyn Fn() -> String| -> Checked<CardSet> {
        let mut set = 0;
        for &card in list {
            if card >= deck_size {
                return refuse(format!(
                    "card {card} in {} is not a card of this deck (ids 0..={})",
                    whose(),
                    deck_size - 1
                ));
            }
            if seen >> card & 1 == 1 {
                return refuse(format!(
                    "card {card} appears more than once (again in {})",
                    whose()
                ));
            }
            seen |= 1 << card;
            set |= 1 << card;
        }
        Ok(set)
    };
    let mut hands = [0; MAX_PLAYERS];
    for (seat, hand) in snap.hands.iter().enumerate() {
        hands[seat] = place(hand, &|| format!("hand {seat}"))?;
    }
    place(&snap.draw_pile, &|| "the draw pile".into())?;
    let discard = place(&snap.discard, &|| "the discard".into())?;
    let mut plays = Vec::with_capacity(snap.pile_plays.len());
    for (i, p) in snap.pile_plays.iter().enumerate() {
        plays.push(place(&p.3, &|| format!("pile play {i}"))?);
    }
    let all = (1u64 << deck_size) - 1;
    if seen != all {
        return refuse(format!(
            "the hands, draw pile, discard and pile must hold every card exactly once; missing {:?}",
            cards::ids(all & !seen)
        ));
    }
    Ok(Places {
        hands,
        discard,
        plays,
    })
}

#[derive(Clone, Copy)]
struct Flags {
    drowsy: u8,
    pooped: u8,
}

/// Scores, Drowsy / Pooped (H-6), the game's end (H-6.3), dealer, leader and the player to move.
fn check_seats(snap: &HeadSnapshot, rules: &HeadRules) -> Checked<Flags> {
    let n = snap.players;
    let t = rules.bust_threshold;
    let (mut drowsy, mut pooped) = (0u8, 0u8);
    for seat in 0..n as usize {
        let score = snap.scores[seat];
        if snap.pooped[seat] {
            pooped |= 1 << seat;
            if !snap.drowsy[seat] || score <= t {
                return refuse(format!(
                    "seat {seat} is Pooped, so it must be Drowsy too and keep a score above \
                     bust_threshold {t} (H-6.2)"
                ));
            }
            if score > MAX_SCORE + MAX_HAND_POINTS {
                return refuse(format!(
                    "score {score} of seat {seat} is above the largest score a game reaches ({})",
                    MAX_SCORE + MAX_HAND_POINTS
                ));
            }
        } else if score > t {
            return refuse(format!(
                "score {score} of seat {seat} is above bust_threshold {t} although the player \
                 is still in the game (H-6)"
            ));
        }
        if snap.drowsy[seat] {
            drowsy |= 1 << seat;
        }
    }
    let active = n - pooped.count_ones() as u8;
    let seat_ok = |s: u8| s < n && pooped >> s & 1 == 0;
    if snap.pile_number >= HAND_SIZE {
        return refuse(format!(
            "pile_number must be 0..={}, got {}",
            HAND_SIZE - 1,
            snap.pile_number
        ));
    }
    if snap.hand_number > MAX_DEAL_HAND_NUMBER {
        return refuse(format!(
            "hand_number must be 0..={MAX_DEAL_HAND_NUMBER}, got {}",
            snap.hand_number
        ));
    }
    if snap.is_over {
        // H-6.3: one player left, the winner; the last hand is played out (its plays set aside).
        let last = next_active(n - 1, n, pooped);
        if active != 1 || snap.winner != Some(last) {
            return refuse(format!(
                "a finished game has exactly one player not Pooped, its winner; got {active} \
                 players in the game and winner {:?}",
                snap.winner
            ));
        }
        if snap.current_player.is_some() || !snap.pile_plays.is_empty() {
            return refuse("a finished game has no player to move and no plays on the pile".into());
        }
        if snap.pile_number != HAND_SIZE - 1 || snap.hands.iter().any(|h| !h.is_empty()) {
            return refuse(format!(
                "a finished game ends on pile {} with every hand empty",
                HAND_SIZE - 1
            ));
        }
        if snap.dealer >= n || snap.leader >= n {
            return refuse(format!("dealer and leader must be seats 0..={}", n - 1));
        }
        return Ok(Flags { drowsy, pooped });
    }
    if active < 2 {
        return refuse("a game in progress has at least two players not Pooped (H-6.3)".into());
    }
    if snap.winner.is_some() {
        return refuse("a game in progress has no winner (is_over is false)".into());
    }
    if !seat_ok(snap.dealer) {
        return refuse(format!(
            "dealer must be a seat still in the game, got {}",
            snap.dealer
        ));
    }
    if !seat_ok(snap.leader) {
        return refuse(format!(
            "leader must be a seat still in the game, got {}",
            snap.leader
        ));
    }
    if snap.pile_number == 0 && snap.leader != next_active(snap.dealer, n, pooped) {
        return refuse(format!(
            "the first pile is led by the player left of dealer {} (H-2.4), not {}",
            snap.dealer, snap.leader
        ));
    }
    // The plays go clockwise from the leader over the seats still in the game (H-3.2).
    let mut expected = snap.leader;
    for (i, p) in snap.pile_plays.iter().enumerate() {
        if p.0 != expected {
            return refuse(format!(
                "pile play {i} must be by seat {expected} (clockwise from leader {}), got {}",
                snap.leader, p.0
            ));
        }
        expected = next_active(expected, n, pooped);
    }
    if snap.pile_plays.len() >= active as usize {
        return refuse(format!(
            "a pile in progress has fewer plays than the {active} players in the game (a \
             complete pile is set aside at once), got {}",
            snap.pile_plays.len()
        ));
    }
    if snap.current_player != Some(expected) {
        return refuse(format!(
            "current_player must be {expected} (the next seat after the plays on the pile), got \
             {:?}",
            snap.current_player
        ));
    }
    Ok(Flags { drowsy, pooped })
}

/// The shape of each play on the pile (H-3, H-4): its cards, its value, and that it was legal
/// for the hand it came from.
fn check_pile(
    snap: &HeadSnapshot,
    rules: &HeadRules,
    places: &Places,
    pooped: u8,
) -> Checked<Vec<Play>> {
    let mut plays = Vec::with_capacity(snap.pile_plays.len());
    let mut highest: Option<u8> = None;
    for (i, (p, &cards)) in snap.pile_plays.iter().zip(&places.plays).enumerate() {
        let why = |reason: String| StateError(format!("pile play {i} ({p:?}) {reason}"));
        let seat = p.0;
        if seat >= snap.players || pooped >> seat & 1 == 1 {
            return Err(why("is not by a seat in the game".into()));
        }
        let action = Action::from_id(p.1)
            .ok_or_else(|| why(format!("has no action id 0..={}", NUM_ACTIONS - 1)))?;
        let value = play_value(action, cards, highest).map_err(why)?;
        if value != p.2 {
            return Err(why(format!(
                "must have the effective value {value} (H-4), not {}",
                p.2
            )));
        }
        let hand = places.hands[seat as usize];
        if !was_legal(
            action,
            cards,
            hand,
            highest,
            rules.lowest_only_when_cannot_follow,
        ) {
            return Err(why(format!(
                "is not a legal play for a hand that now holds {:?} (H-3.1, H-3.2, H-4.4)",
                cards::ids(hand)
            )));
        }
        plays.push(Play {
            seat,
            action: p.1 as ActionId,
            value,
            cards,
        });
        highest = Some(highest.map_or(value, |h| h.max(value)));
    }
    Ok(plays)
}

/// The value of a play of `cards` as `action` over `highest`, or why those cards are not that
/// play.
fn play_value(action: Action, cards: CardSet, highest: Option<u8>) -> Result<u8, String> {
    let regular = cards & REGULAR_MASK;
    let count = |set: CardSet| set.count_ones();
    let regular_value = || match cards::kind(cards::lowest(regular)) {
        CardKind::Regular(v) => v,
        _ => 0,
    };
    let exactly = |want: CardSet, what: &str| {
        if cards == want && want != 0 {
            Ok(())
        } else {
            Err(format!("must consist of {what}"))
        }
    };
    match action {
        Action::Panda(v) => {
            exactly(
                cards & cards::value_mask(v),
                &format!("one Panda of value {v}"),
            )?;
            if count(cards) != 1 {
                return Err(format!("must consist of one Panda of value {v}"));
            }
            Ok(v)
        }
        Action::PandaWithBamboo(v) => {
            if count(cards & cards::value_mask(v)) != 1
                || count(cards & BAMBOO_MASK) != 1
                || count(cards) != 2
            {
                return Err(format!(
                    "must consist of one Panda of value {v} and one Bamboo (H-4.3)"
                ));
            }
            Ok(v + 2)
        }
        Action::BigPanda if highest.is_some() => {
            if count(cards) != 1 || cards & BIG_PANDA_MASK == 0 {
                return Err("must consist of one Big Panda (H-4.2)".into());
            }
            Ok(highest.unwrap_or(0) + 1)
        }
        // H-4.1, H-4.4: the special card, the specials turned up, and one regular Panda.
        Action::BigPanda | Action::BambooAlone => {
            let own = if action == Action::BigPanda {
                BIG_PANDA_MASK
            } else {
                BAMBOO_MASK
            };
            if cards & own == 0 || count(regular) != 1 {
                return Err(format!(
                    "must consist of the {} played, the special cards turned up and one \
                     regular Panda turned up (H-4.1, H-4.4)",
                    if action == Action::BigPanda {
                        "Big Panda"
                    } else {
                        "Bamboo"
                    }
                ));
            }
            Ok(regular_value())
        }
    }
}

/// Whether `action` was legal (H-3.1, H-3.2, H-4) for the hand the player held before it: the
/// hand now plus the cards the play took from it, less the replacement card drawn after a Panda
/// with a Bamboo (H-4.3), which may be any card of the hand now.
fn was_legal(
    action: Action,
    cards: CardSet,
    hand: CardSet,
    highest: Option<u8>,
    lowest_only: bool,
) -> bool {
    let legal = |before: CardSet| legal_mask(before, highest, lowest_only) >> action.id() & 1 == 1;
    match action {
        Action::Panda(_) => legal(hand | cards),
        Action::PandaWithBamboo(_) => cards::ids(hand)
            .into_iter()
            .any(|r| legal((hand & !(1 << r)) | cards)),
        // One card came from the hand (the first of its kind); the others were turned up.
        Action::BigPanda => legal(hand | 1 << cards::lowest(cards & BIG_PANDA_MASK)),
        Action::BambooAlone => legal(hand | 1 << cards::lowest(cards & BAMBOO_MASK)),
    }
}

/// One card per pile still to play for every player in the game (H-2.3, H-4.3); none for the
/// Pooped; the discard holds at least one card per play of the completed piles (H-3.4).
fn check_hand_sizes(snap: &HeadSnapshot, places: &Places, pooped: u8) -> Checked<()> {
    if snap.is_over {
        return Ok(());
    }
    let n = snap.players;
    let active = (n - pooped.count_ones() as u8) as u32;
    for seat in 0..n {
        let size = places.hands[seat as usize].count_ones();
        let want = if pooped >> seat & 1 == 1 {
            0
        } else {
            let played = snap.pile_plays.iter().any(|p| p.0 == seat) as u32;
            (HAND_SIZE - snap.pile_number) as u32 - played
        };
        if size != want {
            return refuse(format!(
                "hand {seat} must hold {want} cards on pile {}, got {size}",
                snap.pile_number
            ));
        }
    }
    let completed_plays = snap.pile_number as u32 * active;
    if places.discard.count_ones() < completed_plays {
        return refuse(format!(
            "the discard must hold at least the {completed_plays} cards of the {} completed \
             piles, got {}",
            snap.pile_number,
            places.discard.count_ones()
        ));
    }
    Ok(())
}

/// The hand results: one per hand, consecutive, ending with the hand before this one (or this
/// one, once the game is over); the last states the scores now.
fn check_results(snap: &HeadSnapshot, flags: Flags) -> Checked<Vec<HandResult>> {
    let n = snap.players;
    let nu = n as usize;
    let mut out = Vec::with_capacity(snap.hand_results.len());
    for (i, r) in snap.hand_results.iter().enumerate() {
        let why = |reason: String| StateError(format!("hand result {i} {reason}"));
        if r.deltas.len() != nu || r.scores.len() != nu {
            return Err(why(format!(
                "must have one delta and one score per player ({n})"
            )));
        }
        if r.dealer >= n || r.last_pile_winner >= n {
            return Err(why(format!("names a seat beyond 0..={}", n - 1)));
        }
        if r.deltas.iter().any(|d| d.unsigned_abs() > MAX_HAND_POINTS)
            || r.scores.iter().any(|&s| s > MAX_SCORE + MAX_HAND_POINTS)
        {
            return Err(why("has a delta or a score no hand reaches".into()));
        }
        let mask = |list: &[u8], what: &str| -> Checked<u8> {
            let mut m = 0u8;
            for &s in list {
                if s >= n || m >> s & 1 == 1 || m >> s != 0 {
                    return Err(why(format!(
                        "{what} must list distinct seats 0..={} in increasing order",
                        n - 1
                    )));
                }
                m |= 1 << s;
            }
            Ok(m)
        };
        let new_drowsy = mask(&r.new_drowsy, "new_drowsy")?;
        let new_pooped = mask(&r.new_pooped, "new_pooped")?;
        if new_drowsy & !flags.drowsy != 0 || new_pooped & !flags.pooped != 0 {
            return Err(why(
                "names a seat as newly Drowsy or Pooped that is not Drowsy or Pooped now".into(),
            ));
        }
        let mut deltas = [0; MAX_PLAYERS];
        deltas[..nu].copy_from_slice(&r.deltas);
        let mut scores = [0; MAX_PLAYERS];
        scores[..nu].copy_from_slice(&r.scores);
        out.push(HandResult {
            hand: r.hand,
            dealer: r.dealer,
            last_pile_winner: r.last_pile_winner,
            deltas,
            scores,
            new_drowsy,
            new_pooped,
        });
    }
    for pair in out.windows(2) {
        if pair[1].hand != pair[0].hand.wrapping_add(1) {
            return refuse(format!(
                "hand results must be of consecutive hands, got hand {} after hand {}",
                pair[1].hand, pair[0].hand
            ));
        }
    }
    if let Some(last) = out.last() {
        let want = if snap.is_over {
            Some(snap.hand_number)
        } else {
            snap.hand_number.checked_sub(1)
        };
        if Some(last.hand) != want {
            return refuse(format!(
                "the last hand result must be of hand {want:?} (the hand before this one, or \
                 this one once the game is over), got {}",
                last.hand
            ));
        }
        if last.scores[..nu] != snap.scores[..] {
            return refuse(format!(
                "the last hand result's scores {:?} must be the scores now {:?} (scores change \
                 only at the end of a hand, H-5.4)",
                &last.scores[..nu],
                snap.scores
            ));
        }
    }
    Ok(out)
}

// The snapshot methods of the state live here, beside the format, so that the state machine does
// not depend on its serialised form.
impl HeadState {
    /// A state at any point of a game (mid-hand included) from its snapshot, checked strictly
    /// under `rules`: see [`from_snapshot`]. The snapshot's hand results are
    /// checked and dropped (a [`super::recorded::HeadGame`] keeps them).
    pub fn from_snapshot(snap: &HeadSnapshot, rules: HeadRules) -> Result<Self, StateError> {
        from_snapshot(snap, rules).map(|(state, _)| state)
    }

    /// The snapshot of this state, with no hand results (see [`super::recorded::HeadGame::snapshot`]).
    pub fn snapshot(&self) -> HeadSnapshot {
        snapshot(self, &[])
    }
}
