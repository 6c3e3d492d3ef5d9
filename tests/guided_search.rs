//! The neural-guided search (`src/search/guided.rs`) on the real games with the shipped
//! policies: legal, deterministic moves at every table size, the policy's values of every legal
//! move, and one iteration playing the `neural` bot's move.

use panda_core::bots::Neural;
use panda_core::climb::{ClimbSettings, ClimbState, Preset};
use panda_core::head::{HeadRules, HeadState};
use panda_core::interrupt::NEVER;
use panda_core::nn::Scratch;
use panda_core::rng::{index_below, SplitMix64};
use panda_core::search::{guided_move_until, MoveValues};

/// A few positions of a random game with a real choice.
fn positions<G: MoveValues>(settings: &G::Settings, players: u8, seed: u64) -> Vec<G> {
    let mut rng = SplitMix64::new(seed);
    let mut state = G::new(players, seed, settings).expect("game");
    let mut buf = Vec::new();
    let mut out = Vec::new();
    while !state.is_over() && out.len() < 3 {
        state.legal_moves_into(&mut buf).expect("legal");
        if buf.len() > 1 && index_below(&mut rng, 3) == 0 {
            out.push(state.clone());
        }
        let mv = buf[index_below(&mut rng, buf.len())].clone();
        state.apply_legal(&mv).expect("apply");
    }
    out
}

fn legal_and_deterministic<G: MoveValues>(settings: &G::Settings) {
    let policy = Neural::Shipped.policy_for::<G>(settings).expect("policy");
    for players in 2..=5 {
        for state in positions::<G>(settings, players, u64::from(players)) {
            let mut legal = Vec::new();
            state.legal_moves_into(&mut legal).unwrap();
            let decide = |seed| {
                let mut memory = G::Memory::default();
                guided_move_until(&state, &mut memory, &policy, 12, seed, &NEVER).unwrap()
            };
            let mv = decide(7);
            assert!(legal.contains(&mv), "{players} players: {mv:?} not legal");
            assert_eq!(decide(7), mv, "{players} players: same seed, same move");
            let mut scratch = Scratch::default();
            let mut values = Vec::new();
            let player = state.current_player().unwrap();
            state.move_values(player, &legal, &policy, &mut scratch, &mut values);
            assert_eq!(values.len(), legal.len());
            assert!(values.iter().all(|v| v.is_finite()));
        }
    }
}

#[test]
fn head_moves_are_legal_and_deterministic() {
    legal_and_deterministic::<HeadState>(&HeadRules::default());
}

#[test]
fn climbing_moves_are_legal_and_deterministic() {
    for preset in [Preset::Year, Preset::Spin] {
        legal_and_deterministic::<ClimbState>(&ClimbSettings::preset(preset));
    }
}

/// One iteration values the root and plays the move the policy values highest: the `neural`
/// bot's move.
#[test]
fn one_iteration_is_the_neural_bot() {
    fn check<G: MoveValues>(settings: &G::Settings) {
        let policy = Neural::Shipped.policy_for::<G>(settings).expect("policy");
        for state in positions::<G>(settings, 4, 11) {
            let mut buf = Vec::new();
            let neural = state
                .neural_move(&policy, &mut Scratch::default(), &mut buf)
                .unwrap()
                .into_move(&buf);
            let mut memory = G::Memory::default();
            let guided = guided_move_until(&state, &mut memory, &policy, 1, 5, &NEVER).unwrap();
            assert_eq!(guided, neural);
        }
    }
    check::<HeadState>(&HeadRules::default());
    check::<ClimbState>(&ClimbSettings::preset(Preset::Year));
    check::<ClimbState>(&ClimbSettings::preset(Preset::Spin));
}
