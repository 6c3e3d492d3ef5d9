//! The round each seat left the game in (`sim::Outcome::left`, from the contract's
//! `left_the_game`): the batch's side of Panda Head's places by elimination order.

use panda_core::bots::BotKind;
use panda_core::climb::ClimbState;
use panda_core::contract::MAX_PLAYERS;
use panda_core::head::{HeadRules, HeadState};
use panda_core::sim::play_game;

/// H-6.2/H-6.3: every seat but the winner is Pooped by the end, one per hand at most (only
/// the last pile's winner scores, H-5.1), the last of them in the game's last hand; climbing
/// games have no elimination.
#[test]
fn the_batch_keeps_the_hand_each_seat_left_in() {
    let bots = [
        BotKind::Random,
        BotKind::Heuristic,
        BotKind::Random,
        BotKind::Heuristic,
    ];
    for seed in 0..40 {
        let o = play_game::<HeadState>(4, seed, &HeadRules::default(), &bots).unwrap();
        let w = o.winner as usize;
        assert_eq!(o.left[w], 0);
        let mut left: Vec<u32> = (0..4).filter(|&s| s != w).map(|s| o.left[s]).collect();
        assert!(left.iter().all(|&r| 1 <= r && r <= o.rounds), "{o:?}");
        left.sort_unstable();
        left.dedup();
        assert_eq!(left.len(), 3, "two seats Pooped in one hand: {o:?}");
        assert_eq!(
            left[2], o.rounds,
            "the game ends when the last but one is Pooped"
        );
        assert_eq!(o.left[4..], [0; MAX_PLAYERS - 4]);
    }
    let climb = play_game::<ClimbState>(4, 1, &Default::default(), &bots).unwrap();
    assert_eq!(climb.left, [0; MAX_PLAYERS]);
}
