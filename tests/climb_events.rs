//! Per-move events of the climbing games, over many seeded random games of `year` (both panda
//! moods) and `spin` with 2 to 5 players:
//!
//! - every apply reports exactly one `move` event, first, naming the seat and the move;
//! - the events are complete: each seat rebuilds, from its filtered log alone, its own hand, every
//!   hand size, the blue (public) faces (S-11.1), the table, the discard pile, the passes, the
//!   draw-pile size and the scores, and they match the state after every move;
//! - `round_end` reports the state's round results, and its deltas are the round's score changes;
//!   `game_end` comes exactly once, last;
//! - no filtered event shows a seat a card it could not know (S-11.2): knowledge is derived from
//!   the state, as the observation tests do (own hand, the table, blue faces, the discards, the
//!   suits out of play in `year`), plus the cards the move itself shows and, for the mover, the
//!   cards it draws (S-8.1, S-8.2).

use panda_core::climb::cards::{self, bit, CardSet};
use panda_core::climb::event::{CardFace, ClimbEvent};
use panda_core::climb::{
    record, view, ClimbGame, ClimbSettings, ClimbState, Kind, Mood, Move, Preset,
};
use panda_core::event::SeatFilter;
use panda_core::rng::SplitMix64;
use panda_core::EngineError;

fn all_settings() -> [ClimbSettings; 3] {
    [
        ClimbSettings::preset(Preset::Year),
        ClimbSettings::preset(Preset::Year).with_mood(Mood::Flip),
        ClimbSettings::preset(Preset::Spin),
    ]
}

fn seeds() -> u64 {
    if cfg!(debug_assertions) {
        6
    } else {
        40
    }
}

fn set_of(ids: &[u8]) -> CardSet {
    ids.iter().fold(0, |a, &c| a | bit(c))
}

/// What `seat` knows about the cards in `st` (S-11): its hand, the cards on the table, the blue
/// faces, the discard pile and, in `year`, the suits out of play.
fn known(st: &ClimbState, seat: u8) -> CardSet {
    let table = (0..st.players()).fold(0, |a, q| a | st.played(q));
    let out = if st.settings().preset == Preset::Year {
        st.out()
    } else {
        0
    };
    st.hand(seat) | table | st.blue() | st.discard() | out
}

/// The cards an event names (written out here, not taken from the engine's `cards()`).
fn cards_named(e: &ClimbEvent) -> CardSet {
    match e {
        ClimbEvent::Move { cards, .. }
        | ClimbEvent::Flip { cards, .. }
        | ClimbEvent::Return { cards, .. }
        | ClimbEvent::Discard { cards, .. } => *cards,
        ClimbEvent::Draw { cards, .. } | ClimbEvent::Deal { cards, .. } => cards.unwrap_or(0),
        _ => 0,
    }
}

/// One seat's picture of the game, rebuilt from its filtered events only.
struct Tracker {
    seat: u8,
    n: usize,
    hand: CardSet,
    sizes: Vec<u32>,
    blue: CardSet,
    played: Vec<CardSet>,
    discard: CardSet,
    passed: u8,
    pile: u32,
    scores: Vec<u32>,
    round_start_scores: Vec<u32>,
    rounds_ended: u32,
    games_ended: u32,
}

impl Tracker {
    fn new(seat: u8, n: usize) -> Self {
        Self {
            seat,
            n,
            hand: 0,
            sizes: vec![0; n],
            blue: 0,
            played: vec![0; n],
            discard: 0,
            passed: 0,
            pile: 0,
            scores: vec![0; n],
            round_start_scores: vec![0; n],
            rounds_ended: 0,
            games_ended: 0,
        }
    }

    /// Take in one move's events (as this seat sees them).
    fn take(&mut self, events: &[ClimbEvent]) {
        let mut trick_ended = false;
        for e in events {
            assert_eq!(self.games_ended, 0, "an event after game_end: {e:?}");
            self.take_one(e, &mut trick_ended);
        }
        if trick_ended {
            // The next trick (or round) starts with nobody passed.
            self.passed = 0;
        }
    }

    fn take_one(&mut self, e: &ClimbEvent, trick_ended: &mut bool) {
        let me = self.seat;
        match e {
            ClimbEvent::RoundStart { draw_pile_size, .. } => {
                self.hand = 0;
                self.sizes = vec![0; self.n];
                self.blue = 0;
                self.played = vec![0; self.n];
                self.discard = 0;
                self.passed = 0;
                self.pile = *draw_pile_size;
                self.round_start_scores = self.scores.clone();
            }
            ClimbEvent::Deal {
                player,
                count,
                cards,
            } => {
                self.sizes[*player as usize] = *count;
                if *player == me {
                    let c = cards.expect("a seat sees its own deal");
                    assert_eq!(c.count_ones(), *count);
                    self.hand = c;
                } else {
                    assert!(cards.is_none(), "another seat's deal is hidden (S-11.2)");
                }
            }
            ClimbEvent::Move {
                player,
                kind,
                cards,
                blue,
                ..
            } => {
                let p = *player as usize;
                let set = *cards;
                assert_eq!(
                    *blue,
                    set & self.blue,
                    "the faces shown, as the seat knows them"
                );
                self.sizes[p] -= set.count_ones();
                if *player == me {
                    assert_eq!(self.hand & set, set, "a seat plays cards it holds");
                    self.hand &= !set;
                }
                if kind.is_combination() || *kind == Kind::Element {
                    self.played[p] |= set;
                }
            }
            ClimbEvent::Bamboo {
                player,
                points,
                score,
                ..
            } => {
                self.scores[*player as usize] += points;
                assert_eq!(self.scores[*player as usize], *score);
            }
            ClimbEvent::Steal {
                player,
                victim,
                points,
            } => {
                assert_ne!(player, victim);
                self.scores[*victim as usize] -= points;
                self.scores[*player as usize] += points;
            }
            ClimbEvent::Flip { cards, .. } => self.blue |= cards,
            ClimbEvent::Draw {
                player,
                count,
                cards,
            } => {
                self.sizes[*player as usize] += count;
                self.pile -= count;
                if *player == me {
                    let c = cards.expect("the drawer sees its cards");
                    assert_eq!(c.count_ones(), *count);
                    self.hand |= c;
                } else {
                    assert!(cards.is_none(), "another seat's draw is hidden (S-11.2)");
                }
            }
            ClimbEvent::TrickHeld { .. } => {}
            ClimbEvent::Pass { player, .. } => self.passed |= 1 << player,
            ClimbEvent::Return {
                player,
                cards,
                face,
            } => {
                let p = *player as usize;
                let set = *cards;
                assert_eq!(self.played[p], set, "all the seat's played cards come back");
                assert_eq!(*face, CardFace::Blue, "S-6.3: they come back blue");
                self.played[p] = 0;
                self.sizes[p] += set.count_ones();
                self.blue |= set;
                if *player == me {
                    self.hand |= set;
                }
            }
            ClimbEvent::Discard { player, cards } => {
                let set = *cards;
                self.played[*player as usize] &= !set;
                self.discard |= set;
                self.blue &= !set;
            }
            ClimbEvent::TrickEnd { .. } => *trick_ended = true,
            ClimbEvent::ShowOut {
                player,
                points,
                score,
            } => {
                assert_eq!(self.sizes[*player as usize], 0, "S-9.1: an empty hand");
                self.scores[*player as usize] += points;
                assert_eq!(self.scores[*player as usize], *score);
            }
            ClimbEvent::RoundEnd { scores, deltas, .. } => {
                assert_eq!(
                    &self.scores, scores,
                    "round_end scores are the sum of the events"
                );
                let expect: Vec<i64> = scores
                    .iter()
                    .zip(&self.round_start_scores)
                    .map(|(&a, &b)| a as i64 - b as i64)
                    .collect();
                assert_eq!(deltas, &expect, "deltas are the round's score changes");
                self.rounds_ended += 1;
            }
            ClimbEvent::GameEnd { scores, .. } => {
                assert_eq!(&self.scores, scores);
                self.games_ended += 1;
            }
        }
    }

    /// The rebuilt picture equals the state.
    fn check(&self, st: &ClimbState, context: &str) {
        let me = self.seat;
        assert_eq!(self.hand, st.hand(me), "{context}: seat {me}'s hand");
        for q in 0..st.players() {
            let qi = q as usize;
            assert_eq!(self.sizes[qi], st.hand_size(q), "{context}: hand size {q}");
            assert_eq!(self.played[qi], st.played(q), "{context}: table of {q}");
        }
        assert_eq!(self.blue, st.blue(), "{context}: blue faces");
        assert_eq!(self.discard, st.discard(), "{context}: discards");
        assert_eq!(self.passed, st.passed(), "{context}: passes");
        assert_eq!(self.pile, st.draw_pile().len() as u32, "{context}: pile");
        assert_eq!(self.scores, st.scores(), "{context}: scores");
    }
}

/// S-11.2: every card a filtered event of `seat` names, in the move `mv` from `before` to
/// `after`, is one the seat may know.
fn check_hidden_cards(
    before: &ClimbState,
    after: &ClimbState,
    mv: &Move,
    mover: u8,
    seat: u8,
    seen: &[ClimbEvent],
) {
    let new_round = seen
        .iter()
        .position(|e| matches!(e, ClimbEvent::RoundStart { .. }));
    let pile = before.draw_pile();
    let drawn = if seat == mover {
        set_of(&pile[..pile.len().min(2)])
    } else {
        0
    };
    let shown = mv.cards | mv.flip;
    for (i, e) in seen.iter().enumerate() {
        let may_know = match new_round {
            Some(k) if i >= k => known(after, seat),
            Some(_) => known(before, seat) | shown | drawn,
            None => known(before, seat) | shown | drawn | known(after, seat),
        };
        assert_eq!(cards_named(e), e.cards());
        for id in cards::ids(cards_named(e)) {
            assert!(
                may_know >> id & 1 == 1,
                "seat {seat} learns card {id} it could not know from {e:?} (move {} by {mover})",
                mv.notation()
            );
        }
    }
}

/// Play one random game checking every property; returns the number of moves.
fn play_checked(players: u8, seed: u64, settings: &ClimbSettings) -> usize {
    let mut game = ClimbGame::new(players, seed, settings.clone()).unwrap();
    let n = players as usize;
    let mut trackers: Vec<Tracker> = (0..players).map(|s| Tracker::new(s, n)).collect();
    // Round 1's start and deal come before any move.
    assert!(matches!(
        game.events().first(),
        Some(ClimbEvent::RoundStart { round: 0, .. })
    ));
    for t in &mut trackers {
        let seen: Vec<ClimbEvent> = game
            .events()
            .iter()
            .filter_map(|e| e.seen_by(t.seat))
            .collect();
        t.take(&seen);
        t.check(game.state(), "deal");
    }
    let mut rng = SplitMix64::new(seed ^ 0xE7E7);
    let mut moves = 0;
    while let Some(mover) = game.state().current_player() {
        let legal = game.legal_moves();
        let mv = legal[(rng.next() % legal.len() as u64) as usize].clone();
        let before = game.state().clone();
        let results_before = game.round_results().len();
        let events = game.apply(&mv).unwrap().to_vec();
        moves += 1;
        assert_eq!(game.move_events(moves - 1).unwrap(), &events[..]);
        let context = format!("{players}p seed {seed} move {moves} {}", mv.notation());
        // Exactly one move event, first, for this seat and move.
        match &events[0] {
            ClimbEvent::Move {
                player,
                mv: reported,
                kind,
                cards,
                combo,
                ..
            } => {
                assert_eq!(*player, mover, "{context}");
                assert_eq!(reported, &mv);
                assert_eq!(*kind, mv.kind);
                assert_eq!(*cards, mv.cards);
                assert_eq!(combo.is_some(), mv.kind.is_combination());
                if let Some(c) = combo {
                    assert_eq!(c.named, mv.named);
                }
            }
            e => panic!("{context}: first event {e:?}"),
        }
        let n_moves = events
            .iter()
            .filter(|e| matches!(e, ClimbEvent::Move { .. }))
            .count();
        assert_eq!(n_moves, 1, "{context}");
        // Round ends report the state's round results.
        let ends: Vec<&ClimbEvent> = events
            .iter()
            .filter(|e| matches!(e, ClimbEvent::RoundEnd { .. }))
            .collect();
        assert_eq!(ends.len(), game.round_results().len() - results_before);
        if let Some(ClimbEvent::RoundEnd {
            round,
            scores,
            deltas,
            shown_out,
            hand_sizes,
        }) = ends.first()
        {
            let r = game.round_results().last().unwrap();
            assert_eq!(*round + 1, r.round, "events count rounds from 0");
            assert_eq!(scores, r.scores());
            assert_eq!(shown_out, r.shown_out());
            assert_eq!(hand_sizes, r.hand_sizes());
            let previous = results_before
                .checked_sub(1)
                .map_or(vec![0; n], |i| game.round_results()[i].scores().to_vec());
            let sum: Vec<i64> = previous
                .iter()
                .zip(deltas)
                .map(|(&a, &d)| a as i64 + d)
                .collect();
            let now: Vec<i64> = scores.iter().map(|&s| s as i64).collect();
            assert_eq!(sum, now, "{context}: deltas sum to the new scores");
        }
        for t in &mut trackers {
            let seen: Vec<ClimbEvent> = events.iter().filter_map(|e| e.seen_by(t.seat)).collect();
            check_hidden_cards(&before, game.state(), &mv, mover, t.seat, &seen);
            t.take(&seen);
            t.check(game.state(), &context);
        }
        assert!(moves < 1_000_000, "the game does not end");
    }
    // game_end exactly once, last, with the state's winner and scores.
    let st = game.state();
    let ends = game
        .events()
        .iter()
        .filter(|e| matches!(e, ClimbEvent::GameEnd { .. }))
        .count();
    assert_eq!(ends, 1);
    assert_eq!(
        game.events().last(),
        Some(&ClimbEvent::GameEnd {
            winner: st.winner().unwrap(),
            scores: st.scores().to_vec(),
        })
    );
    for t in &trackers {
        assert_eq!(t.rounds_ended as usize, game.round_results().len());
        assert_eq!(t.games_ended, 1);
        // The per-seat log of the game is the filtered events.
        let seen: Vec<ClimbEvent> = game
            .events()
            .iter()
            .filter_map(|e| e.seen_by(t.seat))
            .collect();
        assert_eq!(game.events_seen_by(t.seat), seen);
    }
    // Nothing is applied, and nothing reported, once the game is over.
    let len = game.events().len();
    assert!(matches!(
        game.apply(&Move::pass()),
        Err(EngineError::GameOver)
    ));
    assert!(game.apply_legal(&Move::pass()).is_empty());
    assert_eq!(game.events().len(), len);
    // A record replays to the same events.
    let again = record::from_json(&record::to_json(&game)).unwrap();
    assert_eq!(again.events(), game.events());
    moves
}

#[test]
fn events_are_complete_public_and_consistent() {
    let mut total = 0;
    for settings in all_settings() {
        for players in 2..=5u8 {
            for seed in 0..seeds() {
                total += play_checked(players, seed * 1009 + players as u64, &settings);
            }
        }
    }
    assert!(total > 1000);
}

#[test]
fn every_event_kind_occurs() {
    // The random games above reach every kind of event (else the checks prove little).
    let mut seen = std::collections::BTreeSet::new();
    for settings in all_settings() {
        for seed in 0..seeds() {
            let mut game = ClimbGame::new(4, seed, settings.clone()).unwrap();
            let mut rng = SplitMix64::new(seed);
            while game.state().current_player().is_some() {
                let legal = game.legal_moves();
                let mv = legal[(rng.next() % legal.len() as u64) as usize].clone();
                game.apply_legal(&mv);
            }
            for e in game.events() {
                seen.insert(e.type_name());
            }
        }
    }
    let all = [
        "move",
        "bamboo",
        "steal",
        "flip",
        "draw",
        "trick_held",
        "pass",
        "return",
        "discard",
        "trick_end",
        "show_out",
        "round_end",
        "round_start",
        "deal",
        "game_end",
    ];
    for kind in all {
        assert!(seen.contains(kind), "no {kind} event in the random games");
    }
}

#[test]
fn a_refused_move_reports_nothing() {
    let mut game = ClimbGame::new(3, 5, ClimbSettings::preset(Preset::Year)).unwrap();
    let len = game.events().len();
    // The leader may not pass (S-6.1).
    assert!(game.apply(&Move::pass()).is_err());
    assert!(game.apply_notation("single Fi").is_err());
    assert_eq!(game.events().len(), len);
    assert!(game.history().is_empty());
    assert!(game.move_events(0).is_none());
    // A move given in notation reports its events too.
    let text = game.legal_moves()[0].notation();
    let events = game.apply_notation(&text).unwrap().to_vec();
    assert!(matches!(&events[0], ClimbEvent::Move { mv, .. } if mv.notation() == text));
    assert_eq!(game.move_events(0), Some(&events[..]));
    assert_eq!(game.events().len(), len + events.len());
}

#[test]
fn a_game_from_a_snapshot_reports_the_same_events() {
    // The round-start scores the deltas are measured from are rebuilt from the round results.
    for settings in all_settings() {
        let mut game = ClimbGame::new(3, 11, settings).unwrap();
        let mut rng = SplitMix64::new(3);
        let mut copy: Option<ClimbGame> = None;
        let mut start = 0;
        while game.state().current_player().is_some() {
            if copy.is_none() && game.round_results().len() >= 2 {
                let deck = game.state().settings().deck.clone();
                copy = Some(ClimbGame::from_snapshot(game.snapshot(), deck).unwrap());
                start = game.events().len();
            }
            let legal = game.legal_moves();
            let mv = legal[(rng.next() % legal.len() as u64) as usize].clone();
            let events = game.apply(&mv).unwrap().to_vec();
            if let Some(c) = copy.as_mut() {
                assert_eq!(c.apply(&mv).unwrap(), &events[..]);
            }
        }
        let copy = copy.expect("the game lasts two rounds");
        assert_eq!(copy.events(), &game.events()[start..]);
    }
}

#[test]
fn the_view_gives_the_seat_its_filtered_events() {
    let mut game = ClimbGame::new(4, 8, ClimbSettings::preset(Preset::Spin)).unwrap();
    for _ in 0..40 {
        let legal = game.legal_moves();
        game.apply(&legal[legal.len() / 2]).unwrap();
    }
    for seat in 0..4 {
        let plain = view::view(&game, seat);
        let with = view::view_with_events(&game, seat);
        let events = view::seen_events(&game, seat);
        assert_eq!(with["events"], events);
        let mut without = with.clone();
        without.as_object_mut().unwrap().remove("events");
        assert_eq!(without, plain, "the view's other keys are unchanged");
        let expect: Vec<serde_json::Value> = game
            .events_seen_by(seat)
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect();
        assert_eq!(events, serde_json::Value::Array(expect));
        // Another seat's deal shows its size, not its cards.
        let deals = events
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["type"] == "deal");
        for d in deals {
            assert_eq!(d.get("cards").is_some(), d["player"] == seat);
        }
        // The move event's JSON form.
        let first = events
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["type"] == "move")
            .unwrap();
        let mv = &game.history()[0].1;
        assert_eq!(first["move"], mv.notation());
        assert_eq!(first["kind"], mv.kind.name());
        assert_eq!(first["cards"], serde_json::json!(mv.card_ids()));
        // Every event reads back.
        for e in events.as_array().unwrap() {
            let back: ClimbEvent = serde_json::from_value(e.clone()).unwrap();
            assert_eq!(&serde_json::to_value(back).unwrap(), e);
        }
    }
}
