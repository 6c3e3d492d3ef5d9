//! The `neural` bot over the shared contract: the shipped policies fit their games and play
//! complete games at every table size; a policy file plays only its own game.

use panda_core::bots::{BotKind, Neural};
use panda_core::climb::rules::{ClimbSettings, Preset};
use panda_core::climb::state::ClimbState;
use panda_core::contract::Learned;
use panda_core::head::rules::HeadRules;
use panda_core::head::state::HeadState;
use panda_core::nn::shipped;
use panda_core::sim::simulate;
use panda_core::EngineError;

/// Every shipped policy file, Panda Head's then the climbing games'.
fn shipped_files() -> Vec<shipped::ShippedFile> {
    let head = HeadState::SHIPPED_POLICIES.iter();
    head.chain(ClimbState::SHIPPED_POLICIES).copied().collect()
}

fn spin() -> ClimbSettings {
    ClimbSettings {
        preset: Preset::Spin,
        ..ClimbSettings::default()
    }
}

#[test]
fn every_shipped_policy_fits_its_game() {
    let shapes = [
        HeadState::policy_shape(&HeadRules::default()),
        ClimbState::policy_shape(&ClimbSettings::default()),
        ClimbState::policy_shape(&spin()),
    ];
    let files = shipped_files();
    assert_eq!(files.len(), shapes.len());
    for (shape, (game, _)) in shapes.iter().zip(&files) {
        assert_eq!(shape.game, *game);
        let policy = shipped::policy(game, &files).unwrap();
        assert_eq!(policy.check_fits(shape), Ok(()), "{game}");
    }
    assert!(shipped::policy("chess", &files).is_err());
    assert!(shipped::policy("year", HeadState::SHIPPED_POLICIES).is_err());
}

#[test]
fn the_shipped_policies_play_complete_games_at_every_table_size() {
    let neural = BotKind::Neural(Neural::Shipped);
    for players in 2..=5u8 {
        let mut bots = vec![BotKind::Heuristic; players as usize];
        bots[0] = neural.clone();
        bots[players as usize - 1] = neural.clone();
        let head = simulate::<HeadState>(0, 40, players, &HeadRules::default(), &bots, 5, Some(2))
            .unwrap();
        assert_eq!(head.len(), 40);
        let again = simulate::<HeadState>(0, 40, players, &HeadRules::default(), &bots, 5, Some(1))
            .unwrap();
        assert_eq!(head, again, "deterministic whatever the threads");
        for settings in [ClimbSettings::default(), spin()] {
            let out = simulate::<ClimbState>(0, 8, players, &settings, &bots, 5, Some(2)).unwrap();
            assert!(out
                .iter()
                .all(|o| o.decisions > 0 && (o.winner as usize) < players as usize));
        }
    }
}

#[test]
fn a_policy_file_plays_only_its_own_game() {
    let dir = std::env::temp_dir().join(format!("panda-neural-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("year.safetensors");
    std::fs::write(
        &path,
        shipped::bytes("year", ClimbState::SHIPPED_POLICIES).unwrap(),
    )
    .unwrap();
    let name = format!("neural:{}", path.display());
    let bot = BotKind::parse(&name).unwrap();
    assert_eq!(bot.name(), name);
    let bots = vec![bot; 3];
    let year = simulate::<ClimbState>(0, 4, 3, &ClimbSettings::default(), &bots, 1, Some(1));
    assert_eq!(year.unwrap().len(), 4);
    match simulate::<ClimbState>(0, 4, 3, &spin(), &bots, 1, Some(1)) {
        Err(EngineError::Policy(e)) => assert!(e.0.contains("plays \"year\", not \"spin\""), "{e}"),
        other => panic!("a year policy played spin: {other:?}"),
    }
    match simulate::<HeadState>(0, 4, 3, &HeadRules::default(), &bots, 1, Some(1)) {
        Err(EngineError::Policy(e)) => assert!(e.0.contains("not \"head\""), "{e}"),
        other => panic!("a year policy played head: {other:?}"),
    }
    // A damaged file is refused when named.
    let mut bytes = shipped::bytes("year", ClimbState::SHIPPED_POLICIES)
        .unwrap()
        .to_vec();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let damaged = dir.join("damaged.safetensors");
    std::fs::write(&damaged, bytes).unwrap();
    let e = BotKind::parse(&format!("neural:{}", damaged.display())).unwrap_err();
    assert!(e.0.contains("SHA-256"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn move_indices_are_positions_in_the_legal_list() {
    use panda_core::contract::{ActionSpace, GameState};
    use panda_core::rng::SplitMix64;
    fn check<G: ActionSpace>(mut state: G) {
        let mut rng = SplitMix64::new(7);
        let (mut legal, mut moves) = (G::Legal::default(), Vec::new());
        while !state.is_over() {
            state.cache_legal(&mut legal).unwrap();
            state.legal_moves_into(&mut moves).unwrap();
            for (k, mv) in moves.iter().enumerate() {
                assert_eq!(state.move_index(&legal, mv), Some(k));
                assert!(state.resolve_index(&legal, k).is_some());
            }
            assert!(state.resolve_index(&legal, moves.len()).is_none());
            let pick = state.random_move(&mut rng, &mut moves).unwrap();
            let mv = pick.into_move(&moves);
            state.apply(&mv).unwrap();
        }
    }
    check(HeadState::new(4, 3, HeadRules::default()).unwrap());
    check(<ClimbState as GameState>::new(4, 3, &ClimbSettings::default()).unwrap());
}
