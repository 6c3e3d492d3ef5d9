//! Per-move events of Panda Head: consistent with the state they describe, replayable, and never
//! showing a seat a card hidden from it.

use panda_core::event::SeatFilter;
use panda_core::head::cards::{CardSet, REGULAR_MASK};
use panda_core::head::event::PlayOption;
use panda_core::head::{Action, HeadEvent, HeadGame, HeadRules, HeadState, LastPileScoring};
use panda_core::rng::SplitMix64;

fn pick(mask: u32, rng: &mut SplitMix64) -> u8 {
    let mut m = mask;
    for _ in 0..rng.next() % mask.count_ones() as u64 {
        m &= m - 1;
    }
    m.trailing_zeros() as u8
}

/// A spread of tables and rules (H-7), each game played by seeded random legal moves.
fn tables() -> Vec<(u8, u64, HeadRules)> {
    let mut out = Vec::new();
    for seed in 0..12u64 {
        let players = 2 + (seed % 4) as u8;
        let rules = HeadRules {
            last_pile_scoring: if seed % 2 == 0 {
                LastPileScoring::PileSum
            } else {
                LastPileScoring::OwnCard
            },
            poor_panda: seed % 3 != 2,
            lowest_only_when_cannot_follow: seed % 5 == 1,
            bust_threshold: if seed % 4 == 3 { 9 } else { 21 },
            special_cards: seed % 6 != 5,
            first_dealer: (seed % players as u64) as u8,
        };
        out.push((players, 100 + seed, rules));
    }
    out
}

fn pile_cards(st: &HeadState) -> CardSet {
    st.pile_plays().iter().fold(0, |a, p| a | p.cards)
}

#[test]
fn events_agree_with_the_state_and_replay_the_game() {
    for (players, seed, rules) in tables() {
        let mut game = HeadGame::new(players, seed, rules).unwrap();
        // The starting hand's deal comes first.
        assert!(matches!(game.events(), [HeadEvent::Deal { round: 0, .. }]));
        let mut rng = SplitMix64::new(seed);
        let mut moves = 0;
        while !game.state().is_over() {
            let before = game.state().clone();
            let seat = before.current_player().unwrap();
            let id = pick(before.legal_actions(), &mut rng);
            let hands_before = game.hand_results().len();
            let events = game.apply(id).unwrap().to_vec();
            let after = game.state().clone();
            moves += 1;
            // One `move` event, first, naming the mover and the action.
            let HeadEvent::Move {
                player,
                action,
                value,
                round,
                pile,
                cards,
                option,
                ..
            } = events[0].clone()
            else {
                panic!("the first event is not a move: {:?}", events[0]);
            };
            assert_eq!((player, action), (seat, id));
            assert_eq!((round, pile), (before.hand_number(), before.pile_number()));
            assert_eq!(
                cards.0 & !before.hand(seat),
                0,
                "move cards come from the hand"
            );
            assert_eq!(option == PlayOption::Lead, before.highest().is_none());
            let moves_in = events
                .iter()
                .filter(|e| matches!(e, HeadEvent::Move { .. }))
                .count();
            assert_eq!(moves_in, 1);
            // The value is the one the pile records (H-4).
            if after.pile_number() == before.pile_number() && !after.pile_plays().is_empty() {
                let last = after.pile_plays().last().unwrap();
                assert_eq!(last.value, value);
                let turned = events.iter().find_map(|e| match e {
                    HeadEvent::TurnUp {
                        discarded, card, ..
                    } => Some(discarded.0 | 1 << card),
                    _ => None,
                });
                assert_eq!(last.cards, cards.0 | turned.unwrap_or(0));
            }
            if let Some(HeadEvent::Draw { card: Some(c), .. }) =
                events.iter().find(|e| matches!(e, HeadEvent::Draw { .. }))
            {
                assert_eq!(
                    Action::from_id(id).map(|a| a.kind_name()),
                    Some("panda_bamboo")
                );
                assert!(
                    after.hand(seat) & (1 << c) != 0,
                    "the drawn card is in the hand"
                );
            }
            let hand_ended = game.hand_results().len() > hands_before;
            let round_end = events.iter().find_map(|e| match e {
                HeadEvent::RoundEnd {
                    round,
                    scores,
                    deltas,
                    last_pile_winner,
                    ..
                } => Some((*round, scores.clone(), deltas.clone(), *last_pile_winner)),
                _ => None,
            });
            assert_eq!(round_end.is_some(), hand_ended);
            if let Some((round, scores, deltas, winner)) = round_end {
                let r = game.hand_results().last().unwrap();
                assert_eq!(round, r.hand);
                assert_eq!(
                    scores,
                    after.scores(),
                    "round_end states the scores after H-6"
                );
                assert_eq!(deltas, r.deltas[..players as usize]);
                // H-5: the last pile's points go to its winner, the Poor Pandas lose theirs.
                let points = events
                    .iter()
                    .find_map(|e| match e {
                        HeadEvent::PileWon {
                            pile: 6,
                            points,
                            winner: w,
                            ..
                        } => {
                            assert_eq!(*w, winner);
                            Some(*points as i64)
                        }
                        _ => None,
                    })
                    .expect("the last pile is won");
                let lost: i64 = events
                    .iter()
                    .map(|e| match e {
                        HeadEvent::PoorPanda { points, .. } => *points as i64,
                        _ => 0,
                    })
                    .sum();
                assert_eq!(deltas.iter().map(|&d| d as i64).sum::<i64>(), points - lost);
                assert_eq!(deltas[winner as usize] as i64, points);
                // The next event is the new deal or the end of the game.
                let at = events
                    .iter()
                    .position(|e| matches!(e, HeadEvent::RoundEnd { .. }))
                    .unwrap();
                match &events[at + 1..] {
                    [HeadEvent::GameEnd { winner, scores }] => {
                        assert_eq!(Some(*winner), after.winner());
                        assert_eq!(scores, after.scores());
                    }
                    [HeadEvent::Deal { round, hands, .. }] => {
                        assert_eq!(*round, after.hand_number());
                        for (s, h) in hands.iter().enumerate() {
                            assert_eq!(h.unwrap().0, after.hand(s as u8));
                        }
                    }
                    rest => panic!("after round_end: {rest:?}"),
                }
            } else if after.pile_number() != before.pile_number() {
                assert!(matches!(
                    events.last(),
                    Some(HeadEvent::PileWon { points: 0, .. })
                ));
            }
            // Every event survives its JSON form.
            for e in &events {
                let text = serde_json::to_string(e).unwrap();
                assert_eq!(
                    &serde_json::from_str::<HeadEvent>(&text).unwrap(),
                    e,
                    "{text}"
                );
            }
        }
        let ends = game
            .events()
            .iter()
            .filter(|e| matches!(e, HeadEvent::GameEnd { .. }))
            .count();
        assert_eq!(ends, 1);
        assert!(matches!(
            game.events().last(),
            Some(HeadEvent::GameEnd { .. })
        ));
        assert_eq!(game.move_starts().len(), moves);
        assert_eq!(game.history().len(), moves);
        // Replaying the `move` events reproduces the game, events included.
        let mut replay = HeadGame::new(players, seed, rules).unwrap();
        for e in game.events() {
            if let HeadEvent::Move { action, .. } = e {
                replay.apply(*action).unwrap();
            }
        }
        assert_eq!(replay.state(), game.state());
        assert_eq!(replay.events(), game.events());
        for i in 0..moves {
            assert!(matches!(game.events_of_move(i)[0], HeadEvent::Move { .. }));
        }
        assert!(game.events_of_move(moves).is_empty());
    }
}

#[test]
fn a_refused_move_reports_nothing() {
    let mut game = HeadGame::new(3, 9, HeadRules::default()).unwrap();
    let before = game.events().to_vec();
    let illegal = (0..24u8)
        .find(|&id| game.state().legal_actions() & (1 << id) == 0)
        .unwrap();
    assert!(game.apply(illegal).is_err());
    assert!(game.apply(200).is_err());
    assert!(game.apply_notation("nonsense").is_err());
    assert_eq!(game.events(), &before[..]);
    assert!(game.move_starts().is_empty());
    let legal = game.state().legal_actions().trailing_zeros() as u8;
    let notation = Action::from_id(legal).unwrap().notation();
    let events = game.apply_notation(&notation).unwrap();
    assert!(matches!(events[0], HeadEvent::Move { action, .. } if action == legal));
}

/// The cards of the play just made, derived from the states around it (H-4.1, H-4.4 restated
/// for the move that ends a hand, whose pile is gone from the state after it).
fn play_cards(before: &HeadState, after: &HeadState, seat: u8, id: u8) -> CardSet {
    let same_hand = after.hand_number() == before.hand_number() && !after.is_over();
    if same_hand && after.pile_number() == before.pile_number() {
        return after.pile_plays().last().unwrap().cards;
    }
    if same_hand {
        return after.discard() & !before.discard() & !pile_cards(before);
    }
    let turns_up = id == Action::BambooAlone.id()
        || (id == Action::BigPanda.id() && before.highest().is_none());
    let mut turned = 0;
    if turns_up {
        for &c in before.draw_pile() {
            turned |= 1 << c;
            if (1u64 << c) & REGULAR_MASK != 0 {
                break;
            }
        }
    }
    before.hand(seat) | turned
}

/// For every seat, no filtered event names a card the seat could not know at that point: a card
/// of its own hand (now or earlier this hand), a card played face up, or a card set aside.
#[test]
fn no_seat_sees_a_hidden_card() {
    let mut hidden_somewhere = 0;
    for (players, seed, rules) in tables() {
        let mut game = HeadGame::new(players, seed, rules).unwrap();
        let mut known: Vec<CardSet> = (0..players).map(|s| game.state().hand(s)).collect();
        for s in 0..players {
            let seen = game.events_seen_by(s);
            assert_eq!(seen.len(), 1);
            assert_eq!(seen[0].cards(), game.state().hand(s));
        }
        let mut rng = SplitMix64::new(seed ^ 0xabc);
        while !game.state().is_over() {
            let before = game.state().clone();
            let mover = before.current_player().unwrap();
            let id = pick(before.legal_actions(), &mut rng);
            let events = game.apply(id).unwrap().to_vec();
            let after = game.state().clone();
            let public = play_cards(&before, &after, mover, id)
                | before.discard()
                | after.discard()
                | pile_cards(&before)
                | pile_cards(&after);
            for s in 0..players {
                let may_know = known[s as usize] | public | before.hand(s) | after.hand(s);
                for e in &events {
                    let seen = e.seen_by(s).unwrap();
                    assert_eq!(
                        seen.cards() & !may_know,
                        0,
                        "seat {s} sees hidden cards in {seen:?}"
                    );
                    if e.cards() & !may_know != 0 {
                        hidden_somewhere += 1;
                    }
                    // Redaction never hides a seat's own cards.
                    match (e, &seen) {
                        (HeadEvent::Draw { player, card }, HeadEvent::Draw { card: c, .. })
                            if *player == s =>
                        {
                            assert_eq!(c, card)
                        }
                        (HeadEvent::Deal { .. }, HeadEvent::Deal { hands, .. }) => {
                            assert_eq!(hands[s as usize].unwrap().0, after.hand(s))
                        }
                        _ => {}
                    }
                }
                known[s as usize] = if after.hand_number() != before.hand_number() {
                    after.hand(s)
                } else {
                    may_know
                };
            }
        }
        for s in 0..players {
            let log = game.events_seen_by(s);
            assert_eq!(log.len(), game.events().len());
        }
    }
    assert!(
        hidden_somewhere > 100,
        "the unfiltered events must hold hidden cards for the check to bite"
    );
}

/// H-4.1 and H-4.3 step by step: a Big Panda led turns up two specials (discarded) and a 9; a
/// 1 with a Bamboo is worth 3 and draws the top card, which only the drawer sees.
#[test]
fn h4_1_turn_up_and_h4_3_replacement_draw_events() {
    use panda_core::head::event::{Cards, Notation};
    use panda_core::head::Deal;
    let hands = vec![
        vec![55, 59, 0, 5, 10, 15, 20],
        vec![1, 6, 11, 16, 21, 26, 31],
    ];
    let top = [56u8, 60, 40, 45];
    let used: Vec<u8> = hands.iter().flatten().chain(&top).copied().collect();
    let draw_pile = top
        .iter()
        .copied()
        .chain((0..63).filter(|c| !used.contains(c)))
        .collect();
    let deal = Deal {
        hands,
        draw_pile,
        dealer: 1,
        scores: vec![0, 0],
        drowsy: vec![false; 2],
        pooped: vec![false; 2],
        rng_state: 5,
        hand_number: 0,
    };
    let mut game = HeadGame::from_deal(2, deal, HeadRules::default()).unwrap();
    let mut sink = Vec::new();
    let mut bare = game.state().clone();
    bare.apply_legal_with(Action::BigPanda.id(), &mut sink)
        .unwrap();
    let events = game.apply(Action::BigPanda.id()).unwrap().to_vec();
    assert_eq!(events, sink, "the game stores what the state reports");
    assert_eq!(
        events,
        [
            HeadEvent::Move {
                player: 0,
                notation: Notation(22),
                action: 22,
                round: 0,
                pile: 0,
                cards: Cards(1 << 55),
                value: 9,
                option: PlayOption::Lead,
            },
            HeadEvent::BigPanda {
                player: 0,
                card: 55,
                led: true,
                value: 9
            },
            HeadEvent::TurnUp {
                player: 0,
                discarded: Cards((1 << 56) | (1 << 60)),
                card: 40,
                value: 9,
            },
        ]
    );
    let events = game.apply(Action::Panda(1).id()).unwrap().to_vec();
    assert!(matches!(
        events[0],
        HeadEvent::Move {
            option: PlayOption::B,
            ..
        }
    ));
    assert_eq!(
        events[1],
        HeadEvent::PileWon {
            round: 0,
            pile: 0,
            winner: 0,
            value: 9,
            points: 0,
            cards: Cards((1 << 1) | (1 << 40) | (1 << 55) | (1 << 56) | (1 << 60)),
        }
    );
    let events = game
        .apply(Action::PandaWithBamboo(1).id())
        .unwrap()
        .to_vec();
    assert!(matches!(
        events[0],
        HeadEvent::Move { value: 3, cards: Cards(c), .. } if c == 1 | 1 << 59
    ));
    assert_eq!(
        events[1],
        HeadEvent::Bamboo {
            player: 0,
            card: 59,
            alone: false,
            bonus: 2
        }
    );
    let drawn = HeadEvent::Draw {
        player: 0,
        card: Some(45),
    };
    assert_eq!(events[2], drawn);
    assert_eq!(drawn.seen_by(0), Some(drawn.clone()));
    assert_eq!(
        drawn.seen_by(1),
        Some(HeadEvent::Draw {
            player: 0,
            card: None
        })
    );
    assert!(game.state().hand(0) & (1 << 45) != 0);
}
