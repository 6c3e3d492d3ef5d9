//! The seat information of every game ([`panda_core::seat`]): only the seat to move has legal
//! entries, and each entry is a legal move (its notation plays it, its id names a move whose id
//! it is).

use panda_core::climb::recorded::ClimbGame;
use panda_core::climb::rules::{ClimbSettings, Preset};
use panda_core::contract::{GameState, RecordedGame};
use panda_core::head::recorded::HeadGame;
use panda_core::head::rules::HeadRules;
use panda_core::rng::SplitMix64;
use panda_core::seat::{legal_entries, seat_info};

/// Plays `game` to its end; at each position only the seat to move has legal entries, and
/// they are the legal moves (each notation plays, each id names the move).
fn check_every_position<R: RecordedGame>(mut game: R) {
    let mut rng = SplitMix64::new(9);
    let mut buf = Vec::new();
    while let Some(to_move) = game.state().current_player() {
        for seat in 0..game.state().players() {
            let legal = legal_entries(&game, seat).unwrap();
            assert_eq!(legal.is_empty(), seat != to_move);
        }
        let mut listed = Vec::new();
        game.state().legal_moves_into(&mut listed).unwrap();
        let entries = legal_entries(&game, to_move).unwrap();
        assert_eq!(entries.len(), listed.len());
        for entry in &entries {
            let mut copy = game.clone();
            copy.apply_notation_text(&entry.notation).unwrap();
            // An id may stand for several moves (a climbing action is abstract: a shape,
            // not the cards); it names one of them, whose id it is.
            if let Some(id) = entry.id {
                let named = game.move_for_action(i128::from(id)).unwrap();
                assert_eq!(game.action_id(&named), Some(id));
            }
        }
        let info = seat_info(&game, to_move).unwrap();
        assert_eq!(info.legal, entries);
        let pick = game.state().random_move(&mut rng, &mut buf).unwrap();
        let mv = pick.get(&buf).clone();
        game.apply_legal(&mv).unwrap();
    }
    assert!(seat_info(&game, 0).unwrap().over);
}

#[test]
fn head_legal_entries_are_the_legal_moves_of_the_seat_to_move() {
    check_every_position(HeadGame::new(3, 4, HeadRules::default()).unwrap());
}

#[test]
fn climb_legal_entries_are_the_legal_moves_of_the_seat_to_move() {
    for preset in ["year", "spin"] {
        let settings = ClimbSettings::preset(Preset::parse(preset).unwrap());
        check_every_position(<ClimbGame as RecordedGame>::new(4, 5, &settings).unwrap());
    }
}
