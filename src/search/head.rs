//! ISMCTS for Panda Head: the [`SearchGame`] implementation, the bot and a one-call entry point.
//!
//! Determinizations come from [`crate::head::determinize`] (consistent with every inference the
//! plays of the hand allow). The rollout horizon and policy are [`Horizon`] and [`Rollout`]; the
//! defaults were chosen by measurement (see [`super`]).
//!
//! Value at the end of a hand (the default horizon) for player `p`: 1 if `p` has won the game,
//! 0 if `p` was Pooped (or someone else won); otherwise `0.5 - delta / 60`, clamped to `[0, 1]`,
//! where `delta` is the change of `p`'s score this hand (penalty points of pile 7 push it down,
//! Poor Panda losses push it up), and a fresh Drowsy state costs a further 0.15. Only pile 7
//! scores, so this is the quantity a hand decides. At the game horizon the value is 1 for the
//! winner and 0 for everyone else.

use super::ismcts::{search_until, IsmctsConfig, SearchGame};
use super::{Horizon, Rollout, SearchSettings};
use crate::bots::head_heuristic::HeuristicBot;
use crate::bots::random::RandomBot;
use crate::bots::HeadBot;
use crate::head::action::mask_ids;
use crate::head::determinize::{Determinizer, HandLog};
use crate::head::{ActionId, HandResult, HeadGame, HeadState};
use crate::interrupt::{Interrupt, NEVER};
use crate::rng::SplitMix64;

/// A search state: the game state and the result of the hand once it ended.
#[derive(Clone, Debug)]
pub struct HeadNode {
    pub state: HeadState,
    pub hand_result: Option<HandResult>,
}

/// The root information set of one player in one position, and the search settings.
pub struct HeadSearch {
    det: Determinizer,
    settings: SearchSettings,
}

impl HeadSearch {
    /// Search from the hand described by `log` (its end is the position), for the player to move.
    pub fn new(log: &HandLog, settings: SearchSettings) -> Self {
        let mut replay = log.start().clone();
        for &(_, a) in log.actions() {
            replay.apply(a).expect("a valid hand log");
        }
        let player = replay
            .current_player()
            .expect("search needs a game in progress");
        Self {
            det: Determinizer::new(log, player).expect("a valid hand log"),
            settings,
        }
    }

    /// The player the search is for.
    pub fn player(&self) -> u8 {
        self.det.real().current_player().expect("checked in new")
    }

    /// The best action by ISMCTS.
    pub fn best_action(&mut self) -> ActionId {
        self.best_action_until(&NEVER)
    }

    /// [`HeadSearch::best_action`], ending the search early once `stop` is set (the best action
    /// so far, still legal).
    pub fn best_action_until(&mut self, stop: &Interrupt) -> ActionId {
        let legal = self.det.real().legal_actions();
        if legal.count_ones() == 1 {
            return legal.trailing_zeros() as ActionId;
        }
        let player = self.player();
        let config = self.settings.config;
        search_until(self, player, &config, stop)
    }
}

impl SearchGame for HeadSearch {
    type State = HeadNode;
    type Action = ActionId;

    fn determinize(&mut self, rng: &mut SplitMix64) -> HeadNode {
        HeadNode {
            state: self.det.sample(rng),
            hand_result: None,
        }
    }

    #[inline]
    fn to_move(&self, s: &HeadNode) -> Option<u8> {
        if self.settings.horizon == Horizon::Hand && s.hand_result.is_some() {
            return None;
        }
        s.state.current_player()
    }

    fn legal(&self, s: &HeadNode, out: &mut Vec<ActionId>) {
        out.clear();
        out.extend(mask_ids(s.state.legal_actions()));
    }

    #[inline]
    fn apply(&self, s: &mut HeadNode, a: &ActionId) {
        let r = s
            .state
            .apply_legal(*a)
            .expect("the draw pile never runs out in a legal hand (H-4.6)");
        if s.hand_result.is_none() {
            s.hand_result = r;
        }
    }

    fn rollout(&self, s: &mut HeadNode, rng: &mut SplitMix64, _buf: &mut Vec<ActionId>) {
        let mut random = RandomBot::new(rng.next());
        let mut heuristic = HeuristicBot;
        while self.to_move(s).is_some() {
            let legal = s.state.legal_actions();
            let a = match self.settings.rollout {
                Rollout::Random => random.pick(legal),
                Rollout::Heuristic => heuristic.choose(&s.state, legal),
            };
            self.apply(s, &a);
        }
    }

    fn value(&self, s: &HeadNode, player: u8) -> f64 {
        if let Some(w) = s.state.winner() {
            return (w == player) as u8 as f64;
        }
        if self.settings.horizon == Horizon::Game {
            return 0.5; // not reached: the rollout plays to the end
        }
        let Some(r) = &s.hand_result else {
            return 0.5;
        };
        if r.new_pooped & (1 << player) != 0 {
            return 0.0;
        }
        let drowsy = if r.new_drowsy & (1 << player) != 0 {
            0.15
        } else {
            0.0
        };
        (0.5 - r.deltas[player as usize] as f64 / 60.0 - drowsy).clamp(0.0, 1.0)
    }
}

/// The ISMCTS player for the batch simulator: keeps the log of the hand in progress from the
/// actions it observes.
#[derive(Clone, Debug)]
pub struct HeadIsmctsBot {
    settings: SearchSettings,
    rng: SplitMix64,
    log: Option<HandLog>,
}

impl HeadIsmctsBot {
    pub fn new(settings: SearchSettings, seed: u64) -> Self {
        Self {
            settings,
            rng: SplitMix64::new(seed),
            log: None,
        }
    }
}

impl HeadIsmctsBot {
    /// [`HeadBot::choose`], the search ending early once `stop` is set.
    pub fn choose_until(
        &mut self,
        state: &HeadState,
        legal: crate::head::ActionMask,
        stop: &Interrupt,
    ) -> ActionId {
        if legal.count_ones() == 1 {
            return legal.trailing_zeros() as ActionId; // forced: no search, no seed drawn
        }
        let log = self.log.get_or_insert_with(|| HandLog::new(state.clone()));
        log.sync(state);
        let mut settings = self.settings;
        settings.config.seed = self.rng.next();
        HeadSearch::new(log, settings).best_action_until(stop)
    }
}

impl HeadBot for HeadIsmctsBot {
    fn choose(&mut self, state: &HeadState, legal: crate::head::ActionMask) -> ActionId {
        self.choose_until(state, legal, &NEVER)
    }

    fn observe(&mut self, before: &HeadState, action: ActionId) {
        match &mut self.log {
            Some(log) => log.observe(before, action),
            None => {
                let mut log = HandLog::new(before.clone());
                log.observe(before, action);
                self.log = Some(log);
            }
        }
    }
}

/// One ISMCTS decision for the player to move in `game` (default settings, `iterations`
/// iterations, seeded): an action id legal in `game.state()`.
pub fn ismcts_action(game: &HeadGame, iterations: u32, seed: u64) -> ActionId {
    ismcts_action_until(game, iterations, seed, &NEVER)
}

/// [`ismcts_action`], the search ending early once `stop` is set.
pub fn ismcts_action_until(
    game: &HeadGame,
    iterations: u32,
    seed: u64,
    stop: &Interrupt,
) -> ActionId {
    let settings = SearchSettings {
        config: IsmctsConfig {
            iterations,
            seed,
            ..SearchSettings::head_default().config
        },
        ..SearchSettings::head_default()
    };
    HeadSearch::new(&HandLog::from_game(game), settings).best_action_until(stop)
}
