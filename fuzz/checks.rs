//! The checks every fuzz target runs, in one place.
//!
//! Each `check_*` function takes the raw fuzz input and panics (an `assert!`) when the engine
//! breaks an invariant; returning normally means the input was fine, accepted or refused. The
//! fuzz targets (`fuzz_targets/*.rs`) are one-line wrappers, and `tests/fuzz_regressions.rs` in
//! the main crate includes this same file (`#[path]`) and replays every saved input under
//! `fuzz/regressions/<target>/` through the function of that name, so a target and its regression
//! test can never disagree about what "fine" means.
//!
//! Only the public API of `panda_core` is used, and nothing but `std` besides: the file compiles
//! unchanged inside the fuzz crate and as a module of the main crate's integration test.

use std::sync::Arc;

use panda_core::climb::cards::{self as ccards, CardSet, ALL_CARDS, ANIMALS, NUM_ANIMALS};
use panda_core::climb::deck::Deck;
use panda_core::climb::notation::{move_from_json, move_json, parse_move};
use panda_core::climb::snapshot::{from_snapshot, parse_snapshot};
use panda_core::climb::{self, ClimbGame, ClimbSettings, Mood, Move, Preset};
use panda_core::contract::Learned;
use panda_core::head::{self, Deal, HeadGame, HeadRules, LastPileScoring, NUM_ACTIONS};
use panda_core::nn::file::{self as policy_file, Manifest};
use panda_core::nn::{PolicyKind, Scratch};
use panda_core::rng::SplitMix64;
use panda_core::EngineError;

/// A target's check: panics when the input breaks an invariant.
pub type Check = fn(&[u8]);

/// Every target by name, with its check: what the regression test iterates over.
pub const TARGETS: [(&str, Check); 7] = [
    ("head_record", check_head_record),
    ("climb_record", check_climb_record),
    ("climb_snapshot", check_climb_snapshot),
    ("climb_deck", check_climb_deck),
    ("climb_notation", check_climb_notation),
    ("legal_moves_are_legal", check_legal_moves_are_legal),
    ("policy_file", check_policy_file),
];

/// Decisions played on from a parsed record or position before a check stops (a fuzz input must
/// stay fast; the random-position target plays whole games).
const PLAY_ON_STEPS: usize = 200;
/// A Panda Head game with the bust threshold capped at [`HEAD_MAX_THRESHOLD`] ends well within
/// this many decisions; more means the game does not end (invariant "the game ends").
const HEAD_MAX_STEPS: usize = 20_000;
/// Bust threshold cap of the generated Panda Head rules, so that "the game ends" is checkable.
const HEAD_MAX_THRESHOLD: u32 = 60;
/// Legal moves per position whose notation round trip is checked.
const NOTATION_SAMPLE: usize = 16;
/// Decisions of a game played with a fuzzed deck.
const DECK_PLAY_STEPS: usize = 60;
/// A climbing game ends well within this many decisions (a `year` game is a few hundred).
const CLIMB_MAX_STEPS: usize = 50_000;

// ---- input decoding -----------------------------------------------------------------------------

/// Reads numbers from fuzz bytes; past the end every read is 0, so any input decodes.
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }
    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
    pub fn u64(&mut self) -> u64 {
        (0..8).fold(0u64, |a, _| a << 8 | self.u8() as u64)
    }
    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }
    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        let v = (self.u8() as usize) << 8 | self.u8() as usize;
        v % n
    }
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos.min(self.data.len())..]
    }
}

/// A generator seeded from the whole input, for the random choices of a play-on.
fn rng_of(data: &[u8]) -> SplitMix64 {
    let seed = data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    SplitMix64::new(seed)
}

fn pick(rng: &mut SplitMix64, n: usize) -> usize {
    (rng.next() % n as u64) as usize
}

// ---- Panda Head ---------------------------------------------------------------------------------

/// Invariants of a Panda Head state between decisions.
fn head_invariants(game: &HeadGame) {
    let st = game.state();
    let n = st.players();
    // Card conservation: hands, draw pile, completed piles and the pile in progress hold every
    // card of the deck exactly once.
    let full: u64 = (1u64 << st.rules().deck_size()) - 1;
    let mut seen: u64 = 0;
    let mut place = |set: u64, what: &str| {
        assert_eq!(seen & set, 0, "a card is in two places (again in {what})");
        seen |= set;
    };
    for s in 0..n {
        place(st.hand(s), "a hand");
    }
    place(
        st.draw_pile().iter().fold(0, |a, &c| a | 1u64 << c),
        "the draw pile",
    );
    place(st.discard(), "the discard");
    for p in st.pile_plays() {
        place(p.cards, "the pile in progress");
    }
    assert_eq!(seen, full, "cards went missing or appeared");
    assert_eq!(st.scores().len(), n as usize);
    match st.current_player() {
        Some(p) => {
            assert!(p < n, "current player {p} is not a seat");
            assert!(!st.is_pooped(p), "a Pooped seat is to move");
            assert!(st.winner().is_none());
            assert_ne!(
                st.legal_actions(),
                0,
                "a player to move has no legal action"
            );
            assert!(
                st.active_count() >= 2,
                "fewer than two players left in play"
            );
        }
        None => {
            let w = st
                .winner()
                .expect("a game without a player to move is over");
            assert!(
                w < n && !st.is_pooped(w),
                "winner {w} is not a seat in the game"
            );
        }
    }
    for s in 0..n {
        if st.is_pooped(s) {
            assert!(st.is_drowsy(s), "a Pooped seat must be Drowsy (H-6.2)");
            assert_eq!(st.hand(s), 0, "a Pooped seat holds cards");
        }
    }
}

/// One random legal decision; also checks that an illegal id is refused without any change.
fn head_step(game: &mut HeadGame, rng: &mut SplitMix64) {
    let mask = game.state().legal_actions();
    let legal: Vec<u8> = (0..NUM_ACTIONS as u8)
        .filter(|&i| mask >> i & 1 == 1)
        .collect();
    let illegal = (0..=u8::MAX).find(|&i| i >= NUM_ACTIONS as u8 || mask >> i & 1 == 0);
    if let Some(bad) = illegal.filter(|_| rng.next() % 8 == 0) {
        let before = game.state().clone();
        let history = game.history().len();
        assert!(
            game.apply(bad).is_err(),
            "illegal action {bad} was accepted"
        );
        assert_eq!(game.state(), &before, "a refused action changed the state");
        assert_eq!(game.history().len(), history);
    }
    let id = legal[pick(rng, legal.len())];
    let hands_before = game.hand_results().len();
    if let Err(e) = game.apply(id) {
        panic!("legal action {id} was refused: {e}");
    }
    if game.hand_results().len() > hands_before {
        let r = game.hand_results().last().unwrap();
        let st = game.state();
        assert_eq!(
            &r.scores[..st.players() as usize],
            st.scores(),
            "the hand result's scores are not the game's"
        );
    }
}

/// Play random legal decisions from `game` (at most `max_steps`), checking every step.
fn head_play(mut game: HeadGame, rng: &mut SplitMix64, max_steps: usize) -> HeadGame {
    head_invariants(&game);
    for _ in 0..max_steps {
        if game.state().is_over() {
            assert!(matches!(game.apply(0), Err(EngineError::GameOver)));
            return game;
        }
        head_step(&mut game, rng);
        head_invariants(&game);
    }
    game
}

/// The record round trip of a game with a record: exact text, same state and history.
fn head_round_trip(game: &HeadGame) {
    let text = head::record::to_json(game).expect("a seeded or dealt game has a record");
    let again = head::record::from_json(&text)
        .unwrap_or_else(|e| panic!("a record the engine wrote does not load: {e}"));
    assert_eq!(
        again.state(),
        game.state(),
        "the record round trip moved the state"
    );
    assert_eq!(again.history(), game.history());
    assert_eq!(head::record::to_json(&again).unwrap(), text);
}

/// `head_record`: a JSON text through `head::record::from_json`.
pub fn check_head_record(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(game) = head::record::from_json(text) else {
        return;
    };
    head_round_trip(&game);
    let mut rng = rng_of(data);
    let game = head_play(game, &mut rng, PLAY_ON_STEPS);
    head_round_trip(&game);
}

/// Random Panda Head rules with a bust threshold small enough for the game to end.
fn head_rules(b: &mut Bytes, players: u8) -> HeadRules {
    HeadRules {
        last_pile_scoring: if b.bool() {
            LastPileScoring::PileSum
        } else {
            LastPileScoring::OwnCard
        },
        poor_panda: b.bool(),
        lowest_only_when_cannot_follow: b.bool(),
        bust_threshold: 1 + b.below(HEAD_MAX_THRESHOLD as usize) as u32,
        special_cards: b.bool(),
        first_dealer: b.below(players as usize) as u8,
    }
}

/// A random deal at the start of a hand: a permutation of the deck, some seats Pooped.
fn head_deal(b: &mut Bytes, players: u8, rules: &HeadRules) -> Deal {
    let n = players as usize;
    let mut cards: Vec<u8> = (0..rules.deck_size()).collect();
    for i in (1..cards.len()).rev() {
        cards.swap(i, b.below(i + 1));
    }
    let pooped_mask = b.u8() as usize;
    let mut pooped: Vec<bool> = (0..n).map(|s| pooped_mask >> s & 1 == 1).collect();
    if pooped.iter().filter(|p| !**p).count() < 2 {
        pooped = vec![false; n];
    }
    let t = rules.bust_threshold;
    let scores: Vec<u32> = pooped
        .iter()
        .map(|&p| {
            if p {
                t + 1 + b.below(40) as u32
            } else {
                b.below(t as usize + 1) as u32
            }
        })
        .collect();
    let drowsy: Vec<bool> = pooped.iter().map(|&p| p || b.bool()).collect();
    let mut rest = cards.into_iter();
    let hands: Vec<Vec<u8>> = pooped
        .iter()
        .map(|&p| {
            if p {
                vec![]
            } else {
                rest.by_ref().take(7).collect()
            }
        })
        .collect();
    let active: Vec<u8> = (0..players).filter(|&s| !pooped[s as usize]).collect();
    Deal {
        hands,
        draw_pile: rest.collect(),
        dealer: active[b.below(active.len())],
        scores,
        drowsy,
        pooped,
        rng_state: b.u64(),
        hand_number: b.below(50) as u32,
    }
}

/// One Panda Head game from random bytes: a seeded game or an explicit deal.
fn head_random_game(b: &mut Bytes) {
    let players = 2 + b.below(4) as u8;
    let rules = head_rules(b, players);
    let game = if b.bool() {
        HeadGame::new(players, b.u64(), rules).expect("valid rules start a game")
    } else {
        let deal = head_deal(b, players, &rules);
        HeadGame::from_deal(players, deal.clone(), rules)
            .unwrap_or_else(|e| panic!("a valid deal was refused: {e}\n{deal:?}"))
    };
    let mut rng = SplitMix64::new(b.u64());
    let game = head_play(game, &mut rng, HEAD_MAX_STEPS);
    assert!(
        game.state().is_over(),
        "the game did not end in {HEAD_MAX_STEPS} decisions"
    );
    head_round_trip(&game);
}

// ---- climbing games -----------------------------------------------------------------------------

/// Invariants of a climbing state between decisions.
fn climb_invariants(game: &ClimbGame) {
    let st = game.state();
    let n = st.players();
    let mut seen: CardSet = 0;
    let mut place = |set: CardSet, what: &str| {
        assert_eq!(seen & set, 0, "a card is in two places (again in {what})");
        seen |= set;
    };
    for s in 0..n {
        place(st.hand(s), "a hand");
        place(st.played(s), "the trick");
    }
    place(
        st.draw_pile().iter().fold(0, |a, &c| a | ccards::bit(c)),
        "the draw pile",
    );
    place(st.discard(), "the discard");
    place(st.out(), "out");
    assert_eq!(seen, ALL_CARDS, "cards went missing or appeared");
    assert_eq!(st.blue() & !ANIMALS, 0, "an element card shows a blue face");
    assert_eq!(st.scores().len(), n as usize);
    match st.current_player() {
        Some(p) => {
            assert!(p < n, "current player {p} is not a seat");
            assert!(!st.is_over() && st.winner().is_none());
        }
        None => {
            assert!(st.is_over(), "no player to move in a running game");
            let w = st.winner().expect("an ended game has a winner");
            assert!(w < n, "winner {w} is not a seat");
        }
    }
}

/// Every legal move is distinct, in canonical order, survives both notations, and one random
/// legal move applies. An illegal request is refused without change. A position past the move
/// cap (reachable from a snapshot with a huge hand) refuses every move, unchanged (contract
/// §5.3): then `false`, the playout ends.
fn climb_step(game: &mut ClimbGame, rng: &mut SplitMix64) -> bool {
    let legal = match game.try_legal_moves() {
        Ok(legal) => legal,
        Err(too_many) => {
            let before = game.snapshot();
            let any = game
                .legal_moves()
                .first()
                .cloned()
                .unwrap_or_else(Move::pass);
            let refused = game
                .apply(&any)
                .expect_err("a move past the cap was accepted");
            assert_eq!(
                refused, too_many,
                "a move past the cap is refused for the cap"
            );
            assert_eq!(game.snapshot(), before, "a refused move changed the state");
            return false;
        }
    };
    assert!(!legal.is_empty(), "a player to move has no legal move");
    assert!(
        legal.windows(2).all(|w| w[0] < w[1]),
        "legal moves are not sorted and distinct"
    );
    // Both notations of a sample of the moves (all of them on small lists): a position can have
    // thousands, and the round trip of one move is what is checked, not of the list.
    let stride = legal.len().div_ceil(NOTATION_SAMPLE);
    for m in legal.iter().step_by(stride) {
        notation_round_trip(m);
    }
    if rng.next() % 8 == 0 {
        let mut bogus = legal[pick(rng, legal.len())].clone();
        bogus.cards ^= ccards::bit((rng.next() % 70) as u8);
        if legal.binary_search(&bogus).is_err() {
            let before = game.snapshot();
            assert!(game.apply(&bogus).is_err(), "an illegal move was accepted");
            assert_eq!(game.snapshot(), before, "a refused move changed the state");
        }
    }
    let m = &legal[pick(rng, legal.len())];
    notation_round_trip(m);
    if let Err(e) = game.apply(m) {
        panic!("legal move {} was refused: {e}", m.notation());
    }
    true
}

/// Play random legal moves (at most `max_steps`), checking every step.
fn climb_play(mut game: ClimbGame, rng: &mut SplitMix64, max_steps: usize) -> ClimbGame {
    climb_invariants(&game);
    for _ in 0..max_steps {
        if game.state().is_over() {
            assert!(game.legal_moves().is_empty());
            assert!(matches!(
                game.apply(&Move::pass()),
                Err(EngineError::GameOver)
            ));
            return game;
        }
        if !climb_step(&mut game, rng) {
            return game;
        }
        climb_invariants(&game);
    }
    game
}

/// The snapshot of `game` rebuilds to the same position.
fn snapshot_round_trip(game: &ClimbGame) {
    let snap = game.snapshot();
    let value = serde_json::to_value(&snap).expect("a snapshot serializes");
    let parsed = parse_snapshot(&value)
        .unwrap_or_else(|e| panic!("a snapshot the engine wrote does not parse: {e}"));
    assert_eq!(parsed, snap);
    let rebuilt = ClimbGame::from_snapshot(parsed, game.state().settings().deck.clone());
    if game.try_legal_moves().is_err() {
        // A position past the move cap is refused when loaded, as when played (contract §5.3).
        assert!(rebuilt.is_err(), "a position past the move cap was loaded");
        return;
    }
    let again =
        rebuilt.unwrap_or_else(|e| panic!("a snapshot the engine wrote does not rebuild: {e}"));
    assert_eq!(
        again.snapshot(),
        snap,
        "the snapshot round trip moved the position"
    );
    assert_eq!(again.legal_moves(), game.legal_moves());
}

/// The record round trip: exact text and the same position.
fn climb_round_trip(game: &ClimbGame) {
    let text = climb::record::to_json(game);
    let again = climb::record::from_json(&text)
        .unwrap_or_else(|e| panic!("a record the engine wrote does not load: {e}"));
    assert_eq!(
        again.snapshot(),
        game.snapshot(),
        "the record round trip moved the state"
    );
    assert_eq!(climb::record::to_json(&again), text);
}

/// A move survives its notation and its JSON record.
fn notation_round_trip(m: &Move) {
    let text = m.notation();
    match parse_move(&text) {
        Ok(back) => assert_eq!(&back, m, "notation {text:?} reads back as another move"),
        Err(e) => panic!("the notation {text:?} of a move does not parse: {e}"),
    }
    match move_from_json(&move_json(m)) {
        Ok(back) => assert_eq!(
            &back, m,
            "the JSON record of {text:?} reads back differently"
        ),
        Err(e) => panic!("the JSON record of {text:?} does not parse: {e}"),
    }
}

/// `climb_record`: a JSON text through `climb::record::from_json`.
pub fn check_climb_record(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(game) = climb::record::from_json(text) else {
        return;
    };
    climb_round_trip(&game);
    let mut rng = rng_of(data);
    let game = climb_play(game, &mut rng, PLAY_ON_STEPS);
    climb_round_trip(&game);
}

/// `climb_snapshot`: a JSON text through `parse_snapshot` and `from_snapshot` (shipped deck).
pub fn check_climb_snapshot(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let Ok(snap) = parse_snapshot(&value) else {
        return;
    };
    let Ok((state, _)) = from_snapshot(&snap, Deck::reconstructed()) else {
        return;
    };
    drop(state);
    let game = ClimbGame::from_snapshot(snap.clone(), Deck::reconstructed())
        .expect("from_snapshot accepted the same snapshot a moment ago");
    // An accepted snapshot is exactly what the rebuilt position reports.
    assert_eq!(
        game.snapshot(),
        snap,
        "a rebuilt snapshot does not read back as given"
    );
    snapshot_round_trip(&game);
    let mut rng = rng_of(data);
    let game = climb_play(game, &mut rng, PLAY_ON_STEPS);
    snapshot_round_trip(&game);
    climb_round_trip(&game);
}

/// Values a structured deck edit may put into a face.
const UNIT_WORDS: [&str; 15] = [
    "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "wild", "X",
];
const SYMBOL_WORDS: [&str; 5] = ["bamboo", "panda", "fire", "drop", "moon"];

/// Edit the shipped deck document: replace a card's face, field, number or condition.
fn mutate_deck(b: &mut Bytes) -> serde_json::Value {
    let mut doc = Deck::reconstructed().doc().clone();
    let edits = 1 + b.below(4);
    for _ in 0..edits {
        match b.below(6) {
            0..=2 => {
                let card = b.below(NUM_ANIMALS as usize);
                let face = if b.bool() { "blue" } else { "white" };
                let units: Vec<&str> = (0..b.below(7)).map(|_| UNIT_WORDS[b.below(15)]).collect();
                let symbols: Vec<&str> =
                    (0..b.below(4)).map(|_| SYMBOL_WORDS[b.below(5)]).collect();
                doc["cards"][card][face] = serde_json::json!({"units": units, "symbols": symbols});
            }
            3 => {
                let e = b.below(5);
                doc["elements"][e]["number"] = serde_json::json!(b.u8() as i64 - 128);
            }
            4 => {
                let e = b.below(5);
                let c = panda_core::climb::deck::Condition::NAMES[b.below(5)];
                doc["elements"][e]["condition"] = serde_json::json!(c);
            }
            _ => {
                let card = b.below(NUM_ANIMALS as usize);
                let field = ["id", "suit", "rank"][b.below(3)];
                let value = match b.below(3) {
                    0 => serde_json::json!(b.below(80)),
                    1 => serde_json::json!(ccards::SUIT_NAMES[b.below(5)]),
                    _ => serde_json::json!(UNIT_WORDS[b.below(15)]),
                };
                doc["cards"][card][field] = value;
            }
        }
    }
    doc
}

/// A short game with `deck` in every preset, mood and a few player counts.
fn play_with_deck(deck: Arc<Deck>, b: &mut Bytes) {
    // Every deck the loader accepts is played: schema rule 6 and the bound on legal moves per
    // position (issue 8 item 2) make any accepted deck safe to play.
    let preset = if b.bool() { Preset::Year } else { Preset::Spin };
    let mood = if b.bool() { Mood::Hungry } else { Mood::Flip };
    let players = 2 + b.below(4) as u8;
    let settings = ClimbSettings {
        preset,
        mood,
        first_player: b.below(players as usize) as u8,
        deck,
    };
    let game = ClimbGame::new(players, b.u64(), settings).expect("valid settings start a game");
    let mut rng = SplitMix64::new(b.u64());
    let game = climb_play(game, &mut rng, DECK_PLAY_STEPS);
    climb_round_trip(&game);
}

/// `climb_deck`: the first byte picks TOML text, JSON text, or edits of the shipped deck.
pub fn check_climb_deck(data: &[u8]) {
    let mut b = Bytes::new(data);
    let mode = b.u8() % 3;
    let deck = match mode {
        0 | 1 => {
            let Ok(text) = std::str::from_utf8(b.rest()) else {
                return;
            };
            let loaded = if mode == 0 {
                Deck::from_toml(text, "fuzz.toml")
            } else {
                Deck::from_json(text, "fuzz.json")
            };
            let Ok(deck) = loaded else {
                return;
            };
            // A loaded deck's document loads again as the same deck.
            let again = Deck::from_json_value(deck.doc(), "again")
                .unwrap_or_else(|e| panic!("an accepted deck's document is refused: {e}"));
            assert_eq!(again, deck, "a deck's document loads as another deck");
            // Play with the rest of the input driving the game: none, so seed from the text.
            b = Bytes::new(&[]);
            deck
        }
        _ => {
            let doc = mutate_deck(&mut b);
            let Ok(deck) = Deck::from_json_value(&doc, "fuzz.json") else {
                return;
            };
            let text = serde_json::to_string(&doc).unwrap();
            let again = Deck::from_json(&text, "again").expect("the same document as text");
            assert_eq!(again, deck);
            deck
        }
    };
    let mut seeded;
    if b.rest().is_empty() {
        seeded = rng_of(data).next().to_be_bytes().repeat(4);
        seeded.truncate(32);
        b = Bytes::new(&seeded);
    }
    play_with_deck(Arc::new(deck), &mut b);
}

/// `climb_notation`: the text as notation, and as a move JSON record; parsed moves round trip
/// and are refused or applied cleanly in a fresh game.
pub fn check_climb_notation(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut moves = Vec::new();
    if let Ok(m) = parse_move(text) {
        assert_eq!(
            m.notation(),
            text,
            "parse_move accepted a non-canonical notation"
        );
        moves.push(m);
    }
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
        if let Ok(m) = move_from_json(&v) {
            moves.push(m);
        }
    }
    for m in moves {
        notation_round_trip(&m);
        let seed = rng_of(data).next();
        for settings in [
            ClimbSettings::preset(Preset::Year),
            ClimbSettings::preset(Preset::Year).with_mood(Mood::Flip),
            ClimbSettings::preset(Preset::Spin),
        ] {
            let mut game = ClimbGame::new(3, seed, settings).unwrap();
            let before = game.snapshot();
            let legal = game.legal_moves();
            let result = game.apply(&m);
            assert_eq!(
                result.is_ok(),
                legal.binary_search(&m).is_ok(),
                "apply and legal_moves disagree about {}",
                m.notation()
            );
            if result.is_err() {
                assert_eq!(game.snapshot(), before, "a refused move changed the state");
            }
            // What `ClimbGame.move_info` asks the core about any move: classify its cards,
            // element cards and ids past the last card included (issue 8 item 3).
            let st = game.state();
            let _ = climb::combo::classify_play(st.deck(), m.cards, st.blue(), &m.named, true);
        }
    }
}

/// Move a seeded position's hidden cards around: a permutation of the cards in hands and in the
/// draw pile (blue faces follow their card), rebuilt through the snapshot.
fn climb_shuffled_position(game: &ClimbGame, b: &mut Bytes) -> Option<ClimbGame> {
    let mut snap = game.snapshot();
    let mut ids: Vec<u64> = snap.hands.iter().flatten().copied().collect();
    ids.extend(snap.draw_pile.iter().copied());
    ids.retain(|&c| c < NUM_ANIMALS as u64);
    let mut perm = ids.clone();
    for i in (1..perm.len()).rev() {
        perm.swap(i, b.below(i + 1));
    }
    let map = |c: u64| ids.iter().position(|&x| x == c).map_or(c, |i| perm[i]);
    let mut new_blue: Vec<u64> = snap
        .blue
        .iter()
        .map(|&c| if ids.contains(&c) { map(c) } else { c })
        .collect();
    new_blue.sort_unstable();
    snap.blue = new_blue;
    for hand in &mut snap.hands {
        for c in hand.iter_mut() {
            *c = map(*c);
        }
        hand.sort_unstable();
    }
    for c in &mut snap.draw_pile {
        *c = map(*c);
    }
    snap.rng_state = b.u64();
    ClimbGame::from_snapshot(snap, game.state().settings().deck.clone()).ok()
}

/// One climbing game from random bytes: random settings and seed, optionally a random number of
/// random moves and a reshuffle of the hidden cards through a snapshot, then played to the end.
fn climb_random_game(b: &mut Bytes) {
    let preset = if b.bool() { Preset::Year } else { Preset::Spin };
    let mood = if b.bool() { Mood::Hungry } else { Mood::Flip };
    let players = 2 + b.below(4) as u8;
    let settings = ClimbSettings {
        preset,
        mood,
        first_player: b.below(players as usize) as u8,
        deck: Deck::reconstructed(),
    };
    let mut game = ClimbGame::new(players, b.u64(), settings).expect("valid settings");
    let mut rng = SplitMix64::new(b.u64());
    if b.bool() {
        let warmup = b.below(120);
        game = climb_play(game, &mut rng, warmup);
        if !game.state().is_over() {
            if let Some(shuffled) = climb_shuffled_position(&game, b) {
                snapshot_round_trip(&shuffled);
                game = shuffled;
            }
        }
    }
    let game = climb_play(game, &mut rng, CLIMB_MAX_STEPS);
    assert!(
        game.state().is_over(),
        "the game did not end in {CLIMB_MAX_STEPS} decisions"
    );
    climb_round_trip(&game);
}

/// `legal_moves_are_legal`: the first byte picks the game; random positions played to the end.
pub fn check_legal_moves_are_legal(data: &[u8]) {
    let mut b = Bytes::new(data);
    if b.bool() {
        head_random_game(&mut b);
    } else {
        climb_random_game(&mut b);
    }
}

/// `policy_file`: the first byte picks raw bytes as a policy file, or byte edits (offset, value
/// pairs) of a small valid one. Reading never panics; a policy that is read runs its network on
/// inputs of its width and answers its width, and checking it against a game never panics.
pub fn check_policy_file(data: &[u8]) {
    let mut b = Bytes::new(data);
    let bytes = if b.u8() % 2 == 0 {
        b.rest().to_vec()
    } else {
        let layers = vec![
            (
                (0..12).map(|k| k as f32 * 0.1 - 0.5).collect(),
                vec![0.1, 0.0, -0.1],
            ),
            (
                (0..6).map(|k| 0.3 - k as f32 * 0.2).collect(),
                vec![0.5, -0.5],
            ),
        ];
        let manifest = Manifest {
            game: "head",
            kind: PolicyKind::ActionValues,
            observation_layout: "head-observation/1",
            move_features_layout: None,
            extra: &[("seed", "1")],
        };
        let mut file = policy_file::write(&manifest, &layers);
        while b.rest().len() >= 3 {
            let at = b.below(file.len());
            file[at] = b.u8();
        }
        file
    };
    let Ok(policy) = policy_file::read(&bytes) else {
        return;
    };
    let sizes = policy.layer_sizes();
    let mut scratch = Scratch::default();
    for fill in [0.0f32, 1.0, -3.5] {
        let out = policy.forward(&vec![fill; sizes[0]], &mut scratch);
        assert_eq!(
            out.len(),
            *sizes.last().unwrap(),
            "outputs of a read policy"
        );
    }
    let _ = policy.check_fits(&head::HeadState::policy_shape(&HeadRules::default()));
    let _ = policy.check_fits(&climb::ClimbState::policy_shape(&ClimbSettings::default()));
}
