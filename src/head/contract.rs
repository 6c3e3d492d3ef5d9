//! Panda Head under the shared contract ([`crate::contract`]): the bare [`HeadState`] is the
//! position, its 24 action ids are the moves, and [`HeadGame`] is the recorded game.

use serde::{Deserialize, Serialize};

use super::action::{mask_ids, Action, ActionId, NUM_ACTIONS};
use super::determinize::{Determinizer, HandLog};
use super::event::HeadEvent;
use super::observation::{observation_into_zeroed, OBSERVATION_LAYOUT, OBSERVATION_SIZE};
use super::recorded::HeadGame;
use super::rules::HeadRules;
use super::snapshot::{hand_result_snap, HandResultSnap, HeadSnapshot};
use super::state::{Deal, HandResult, HeadState};
use super::view::HeadView;
use crate::card::CardInfo;
use crate::contract::{
    ActionSpace, Determinize, EnvSave, GameState, HeuristicPolicy, Horizon, Learned, Observe, Pick,
    RecordedGame, Rollout, SearchValue,
};
use crate::error::{EngineError, StateError};
use crate::nn::shipped::{shipped_file, ShippedFile};
use crate::nn::{Policy, PolicyShape, Scratch};
use crate::rng::SplitMix64;

/// A Panda Head game that has not ended after this many hands is an error instead of a loop
/// forever. (With `own_card` and Poor Panda, points can in principle cancel out hand after hand;
/// random play ends games in a few dozen hands.)
pub const MAX_HANDS: u32 = 100_000;

impl GameState for HeadState {
    type Move = ActionId;
    type Settings = HeadRules;
    type RoundEnd = HandResult;

    const MAX_ROUNDS: u32 = MAX_HANDS;
    const ROUNDS_NAME: &'static str = "hands";

    fn validate(players: u8, rules: &HeadRules) -> Result<(), EngineError> {
        Ok(rules.validate_for(players)?)
    }
    fn new(players: u8, seed: u64, rules: &HeadRules) -> Result<Self, EngineError> {
        HeadState::new(players, seed, *rules)
    }
    #[inline]
    fn players(&self) -> u8 {
        HeadState::players(self)
    }
    #[inline]
    fn current_player(&self) -> Option<u8> {
        HeadState::current_player(self)
    }
    #[inline]
    fn is_over(&self) -> bool {
        HeadState::is_over(self)
    }
    #[inline]
    fn winner(&self) -> Option<u8> {
        HeadState::winner(self)
    }
    #[inline]
    fn scores(&self) -> &[u32] {
        HeadState::scores(self)
    }
    #[inline]
    fn round(&self) -> u32 {
        self.hand_number()
    }
    /// H-6.2: the seats Pooped at the end of this hand.
    #[inline]
    fn left_the_game(end: &HandResult) -> u8 {
        end.new_pooped
    }
    /// At most 24 moves: never over a cap.
    #[inline]
    fn legal_moves_into(&self, out: &mut Vec<ActionId>) -> Result<(), EngineError> {
        out.clear();
        out.extend(mask_ids(self.legal_actions()));
        Ok(())
    }
    #[inline]
    fn apply(&mut self, mv: &ActionId) -> Result<Option<HandResult>, EngineError> {
        HeadState::apply(self, *mv)
    }
    #[inline]
    fn apply_legal(&mut self, mv: &ActionId) -> Result<Option<HandResult>, EngineError> {
        HeadState::apply_legal(self, *mv)
    }
    /// From the action mask, without a list (the batch simulator's hot path).
    #[inline]
    fn random_move(
        &self,
        rng: &mut SplitMix64,
        _buf: &mut Vec<ActionId>,
    ) -> Result<Pick<ActionId>, EngineError> {
        match self.legal_actions() {
            0 => Err(EngineError::GameOver),
            legal => Ok(Pick::Own(super::random::pick(rng, legal))),
        }
    }
}

impl HeuristicPolicy for HeadState {
    #[inline]
    fn heuristic_move(&self, _buf: &mut Vec<ActionId>) -> Result<Pick<ActionId>, EngineError> {
        match self.legal_actions() {
            0 => Err(EngineError::GameOver),
            legal => Ok(Pick::Own(super::heuristic::heuristic_action(self, legal))),
        }
    }
}

/// The mask is a few instructions: nothing is cached, and an action id is its own ticket.
impl ActionSpace for HeadState {
    const NUM_ACTIONS: usize = NUM_ACTIONS;
    type Legal = ();

    #[inline]
    fn cache_legal(&self, _legal: &mut ()) -> Result<(), EngineError> {
        Ok(())
    }
    #[inline]
    fn write_mask(&self, _legal: &(), mask: &mut [bool]) {
        let legal = self.legal_actions();
        for (id, m) in mask.iter_mut().enumerate() {
            *m = legal & (1 << id) != 0;
        }
    }
    #[inline]
    fn resolve_action(&self, _legal: &(), action: usize) -> Option<u32> {
        (action < NUM_ACTIONS && self.legal_actions() & (1 << action) != 0).then_some(action as u32)
    }
    /// The legal moves are the legal action ids in increasing order: index `k` is the `k`-th
    /// set bit of the mask.
    #[inline]
    fn resolve_index(&self, _legal: &(), index: usize) -> Option<u32> {
        mask_ids(self.legal_actions()).nth(index).map(u32::from)
    }
    #[inline]
    fn move_index(&self, _legal: &(), mv: &ActionId) -> Option<usize> {
        let legal = self.legal_actions();
        (*mv < NUM_ACTIONS as ActionId && legal & (1 << mv) != 0)
            .then(|| (legal & ((1 << mv) - 1)).count_ones() as usize)
    }
    #[inline]
    fn apply_ticket(
        &mut self,
        _legal: &(),
        ticket: u32,
    ) -> Result<Option<HandResult>, EngineError> {
        self.apply_legal(ticket as ActionId)
    }
    /// Read from the mask's bits (the default builds the bool mask first).
    fn legal_action_ids_into(&self, _legal: &(), out: &mut Vec<i64>) {
        out.clear();
        out.extend(mask_ids(self.legal_actions()).map(i64::from));
    }
    fn refused_action(&self, _legal: &(), action: i64) -> String {
        let names: Vec<String> = mask_ids(self.legal_actions())
            .map(|id| {
                format!(
                    "{id} ({})",
                    Action::from_id(id).map_or(String::new(), |a| a.notation())
                )
            })
            .collect();
        format!(
            "action {action} is not legal for seat {}; legal: {}",
            self.current_player().map_or(-1, |p| p as i64),
            names.join(", ")
        )
    }
    fn refused_index(&self, _legal: &(), index: i64) -> String {
        format!(
            "move index {index} is out of range for seat {}: it has {} legal moves (indices into \
             legal_moves())",
            self.current_player().map_or(-1, |p| p as i64),
            self.legal_actions().count_ones()
        )
    }
}

impl Observe for HeadState {
    const OBSERVATION_SIZE: usize = OBSERVATION_SIZE;
    const OBSERVATION_LAYOUT: &'static str = OBSERVATION_LAYOUT;
    #[inline]
    fn write_observation(&self, player: u8, out: &mut [f32]) {
        observation_into_zeroed(self, player, out);
    }
}

/// What an env keeps to save a Panda Head position: a mid-hand state has no public form, so the
/// start of the hand in progress (a copy of the fixed-size state, taken once a hand) and the
/// actions since. The saved form is that hand's deal ([`Deal`], checked when loaded) and the
/// actions, replayed (and checked) on load.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HandTrail {
    start: Option<HeadState>,
    actions: Vec<ActionId>,
}

/// The saved form of one env's game.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedGame {
    hand: Deal,
    actions: Vec<ActionId>,
}

/// The start of a hand as an explicit deal ([`HeadState::from_deal`] rebuilds it).
fn deal_of(start: &HeadState) -> Deal {
    let seats = 0..start.players();
    Deal {
        hands: seats
            .clone()
            .map(|s| super::cards::ids(start.hand(s)))
            .collect(),
        draw_pile: start.draw_pile().to_vec(),
        dealer: start.dealer(),
        scores: start.scores().to_vec(),
        drowsy: seats.clone().map(|s| start.is_drowsy(s)).collect(),
        pooped: seats.map(|s| start.is_pooped(s)).collect(),
        rng_state: start.rng_state(),
        hand_number: start.hand_number(),
    }
}

impl EnvSave for HeadState {
    type Trail = HandTrail;

    fn start_trail(&self, trail: &mut HandTrail) {
        trail.start = Some(self.clone());
        trail.actions.clear();
    }
    #[inline]
    fn extend_trail(&self, trail: &mut HandTrail, ticket: u32, ended: bool) {
        if ended {
            // A hand ended and the next one is dealt: it is the new start.
            self.start_trail(trail);
        } else {
            trail.actions.push(ticket as ActionId);
        }
    }
    fn save(&self, trail: &HandTrail) -> serde_json::Value {
        let start = trail.start.as_ref().unwrap_or(self);
        let saved = SavedGame {
            hand: deal_of(start),
            actions: trail.actions.clone(),
        };
        serde_json::to_value(saved).expect("a deal and actions serialize")
    }
    fn load(
        players: u8,
        rules: &HeadRules,
        saved: &serde_json::Value,
    ) -> Result<(Self, HandTrail), EngineError> {
        let saved = SavedGame::deserialize(saved)
            .map_err(|e| StateError(format!("not a saved Panda Head env: {e}")))?;
        let mut state = HeadState::from_deal(players, &saved.hand, *rules)?;
        let mut trail = HandTrail::default();
        state.start_trail(&mut trail);
        for (k, &action) in saved.actions.iter().enumerate() {
            let hands = state.hand_number();
            HeadState::apply(&mut state, action)?;
            if state.hand_number() != hands || state.is_over() {
                return Err(StateError(format!(
                    "saved action {k} ends the hand, but a saved hand is in progress"
                ))
                .into());
            }
            trail.actions.push(action);
        }
        Ok((state, trail))
    }
    fn save_settings(players: u8, rules: &HeadRules) -> serde_json::Value {
        serde_json::json!({ "players": players, "rules": rules })
    }
    fn load_settings(saved: &serde_json::Value) -> Result<(u8, HeadRules), EngineError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Saved {
            players: u8,
            rules: HeadRules,
        }
        let saved = Saved::deserialize(saved)
            .map_err(|e| StateError(format!("not a saved Panda Head env config: {e}")))?;
        saved.rules.validate_for(saved.players)?;
        Ok((saved.players, saved.rules))
    }
}

impl RecordedGame for HeadGame {
    type State = HeadState;
    type Event = HeadEvent;
    type Rounds = Vec<HandResultSnap>;
    type View = HeadView;
    type Snapshot = HeadSnapshot;

    fn new(players: u8, seed: u64, rules: &HeadRules) -> Result<Self, EngineError> {
        HeadGame::new(players, seed, *rules)
    }
    #[inline]
    fn state(&self) -> &HeadState {
        HeadGame::state(self)
    }
    /// A mid-hand position has no public form: the game has no JSON record.
    fn from_position(state: &HeadState) -> Result<Self, EngineError> {
        Ok(HeadGame::from_sample(state.clone()))
    }
    /// Checked again (a record must never hold an illegal action), then recorded.
    fn apply_legal(&mut self, mv: &ActionId) -> Result<Option<HandResult>, EngineError> {
        let hands = self.hand_results().len();
        self.apply(*mv)?;
        Ok(self.hand_results()[hands..].first().copied())
    }
    fn apply_checked(&mut self, mv: &ActionId) -> Result<(), EngineError> {
        self.apply(*mv).map(drop)
    }
    fn apply_notation_text(&mut self, text: &str) -> Result<(), EngineError> {
        self.apply_notation(text).map(drop)
    }
    fn move_for_action(&self, action: i128) -> Result<ActionId, EngineError> {
        HeadGame::move_for_action(self, action)
    }
    fn apply_action(&mut self, action: i128) -> Result<(), EngineError> {
        HeadGame::apply_action(self, action)
    }
    fn notation(&self, mv: &ActionId) -> String {
        Action::from_id(*mv)
            .map(Action::notation)
            .unwrap_or_default()
    }
    /// Every Panda Head move is its action id.
    fn action_id(&self, mv: &ActionId) -> Option<u32> {
        Some(u32::from(*mv))
    }
    /// Panda Head moves are ids and notations: data that is neither is a notation refused.
    fn unparsable(&self, shown: &str, _why: &str) -> EngineError {
        self.clone()
            .apply_notation(shown)
            .err()
            .unwrap_or(EngineError::GameOver)
    }

    fn events(&self) -> &[HeadEvent] {
        HeadGame::events(self)
    }
    fn events_seen_by(&self, seat: u8) -> Vec<HeadEvent> {
        HeadGame::events_seen_by(self, seat)
    }
    fn round_results(&self) -> Vec<HandResultSnap> {
        let players = self.state().players();
        self.hand_results()
            .iter()
            .map(|r| hand_result_snap(r, players))
            .collect()
    }
    fn rounds_played(&self) -> usize {
        self.hand_results().len()
    }
    fn result_extras(&self) -> Vec<(&'static str, serde_json::Value)> {
        let st = self.state();
        let seats = |f: fn(&HeadState, u8) -> bool| (0..st.players()).map(|s| f(st, s)).collect();
        let (drowsy, pooped): (Vec<bool>, Vec<bool>) =
            (seats(HeadState::is_drowsy), seats(HeadState::is_pooped));
        vec![
            ("drowsy", drowsy.into()),
            ("pooped", pooped.into()),
            ("hands_played", self.hand_results().len().into()),
        ]
    }
    /// Their own hand and public information only (never another hand or the draw-pile order).
    fn view(&self, seat: u8) -> HeadView {
        HeadGame::view(self, seat)
    }
    /// In the canonical format the differential tests compare with the oracle.
    fn snapshot(&self) -> HeadSnapshot {
        HeadGame::snapshot(self)
    }
    /// Ids 0–62, or 0–54 without the special cards (H-1.3, H-2.3).
    fn cards(&self) -> Vec<CardInfo> {
        super::cards::deck_info(self.state().rules().deck_size())
    }
    /// Other hands and the draw pile are dealt anew, consistently with every play `seat` has
    /// seen. The sample plays on like any game but has no JSON record.
    fn determinize(&self, seat: u8, seed: u64) -> Result<Self, EngineError> {
        let log = HandLog::from_game(self);
        let mut sampler = Determinizer::new(&log, seat)?;
        Ok(HeadGame::from_sample(
            sampler.sample(&mut SplitMix64::new(seed)),
        ))
    }
    fn search_memory(&self) -> Option<HandLog> {
        Some(HandLog::from_game(self))
    }
    /// A game returned by `determinize` has no record: a `StateError`.
    fn to_json(&self) -> Result<String, EngineError> {
        Ok(super::record::to_json(self)?)
    }
    fn from_json(text: &str) -> Result<Self, EngineError> {
        super::record::from_json(text)
    }
}

/// A searching seat remembers the log of the hand in progress (`None`: nothing seen yet).
impl Determinize for HeadState {
    type Memory = Option<HandLog>;
    type Sampler = Determinizer;

    fn observe(memory: &mut Option<HandLog>, before: &HeadState, action: &ActionId) {
        match memory {
            Some(log) => log.observe(before, *action),
            None => {
                let mut log = HandLog::new(before.clone());
                log.observe(before, *action);
                *memory = Some(log);
            }
        }
    }

    fn sampler(
        &self,
        memory: &mut Option<HandLog>,
        observer: u8,
    ) -> Result<Determinizer, EngineError> {
        let log = memory.get_or_insert_with(|| HandLog::new(self.clone()));
        log.sync(self);
        Determinizer::new(log, observer)
    }

    #[inline]
    fn sample(sampler: &mut Determinizer, rng: &mut SplitMix64) -> HeadState {
        sampler.sample(rng)
    }
}

impl SearchValue for HeadState {
    /// Random rollouts waste the hand on moves nobody makes (see `search`).
    const DEFAULT_ROLLOUT: Rollout = Rollout::Heuristic;
    type Root = ();

    fn search_root(&self) {}

    #[inline]
    fn search_value(
        &self,
        _root: &(),
        hand: Option<&HandResult>,
        player: u8,
        horizon: Horizon,
    ) -> f64 {
        super::search_value::hand_value(self, hand, player, horizon)
    }

    /// A random rollout draws from its own stream, seeded from the search's.
    #[inline]
    fn rollout_rng(search: &mut SplitMix64) -> Option<SplitMix64> {
        Some(SplitMix64::new(search.next()))
    }
}

impl Learned for HeadState {
    const POLICY_GAMES: &'static [&'static str] = &["head"];
    const SHIPPED_POLICIES: &'static [ShippedFile] = &[shipped_file!("head")];
    /// One policy for every variant: the default rules.
    fn policy_settings(game: &str) -> Option<HeadRules> {
        (game == "head").then(HeadRules::default)
    }
    fn policy_shape(_rules: &HeadRules) -> PolicyShape {
        super::neural::policy_shape()
    }
    fn settings_of(&self) -> &HeadRules {
        self.rules()
    }
    /// From the action mask, without a list.
    fn neural_move(
        &self,
        policy: &Policy,
        scratch: &mut Scratch,
        _buf: &mut Vec<ActionId>,
    ) -> Result<Pick<ActionId>, EngineError> {
        super::neural::neural_action(self, policy, scratch).map(Pick::Own)
    }
    fn move_values(
        &self,
        player: u8,
        legal: &[ActionId],
        policy: &Policy,
        scratch: &mut Scratch,
        out: &mut Vec<f32>,
    ) {
        super::neural::action_values(self, player, legal, policy, scratch, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random games through the contract: the list, the mask, the tickets and the checks agree
    /// with the state's own legal actions (H-3, H-4), and a saved env position loads back equal.
    #[test]
    fn the_list_the_mask_and_the_tickets_agree() {
        let mut rng = SplitMix64::new(5);
        let mut buf = Vec::new();
        for seed in 0..6 {
            let rules = HeadRules::default();
            let mut st = <HeadState as GameState>::new(2 + (seed % 4) as u8, seed, &rules).unwrap();
            let mut trail = HandTrail::default();
            st.start_trail(&mut trail);
            assert_eq!(GameState::round(&st), 0);
            while !GameState::is_over(&st) {
                let mask = st.legal_actions();
                GameState::legal_moves_into(&st, &mut buf).unwrap();
                assert_eq!(buf, mask_ids(mask).collect::<Vec<_>>());
                let mut row = [false; NUM_ACTIONS];
                st.write_mask(&(), &mut row);
                for (id, &on) in row.iter().enumerate() {
                    let legal = mask & (1 << id) != 0;
                    assert_eq!(on, legal);
                    assert_eq!(st.resolve_action(&(), id).is_some(), legal);
                }
                assert!(st.resolve_action(&(), NUM_ACTIONS).is_none());
                assert!(st.refused_action(&(), 99).contains("legal:"));
                // The deal's order inside a hand is not observable: compare what is.
                let saved = st.save(&trail);
                let (loaded, again) = HeadState::load(st.players(), &rules, &saved).unwrap();
                assert_eq!(loaded.save(&again), saved);
                assert_eq!(loaded.legal_actions(), mask);
                assert_eq!(loaded.scores(), st.scores());
                assert_eq!(loaded.draw_pile(), st.draw_pile());
                let mv = st.random_move(&mut rng, &mut buf).unwrap().into_move(&buf);
                let ticket = st.resolve_action(&(), mv as usize).unwrap();
                let hand = st.hand_number();
                let ended = st.apply_ticket(&(), ticket).unwrap().is_some();
                assert_eq!(ended, st.hand_number() != hand || st.is_over());
                st.extend_trail(&mut trail, ticket, ended);
            }
            assert!(matches!(
                st.random_move(&mut rng, &mut buf),
                Err(EngineError::GameOver)
            ));
            assert!(matches!(
                st.heuristic_move(&mut buf),
                Err(EngineError::GameOver)
            ));
        }
    }

    #[test]
    fn the_recorded_game_reports_the_hands_it_records() {
        let mut game = <HeadGame as RecordedGame>::new(3, 2, &HeadRules::default()).unwrap();
        let mut rng = SplitMix64::new(1);
        let mut buf = Vec::new();
        let mut ended = 0;
        while !RecordedGame::state(&game).is_over() {
            let pick = RecordedGame::state(&game).random_move(&mut rng, &mut buf);
            let mv = pick.unwrap().into_move(&buf);
            ended += RecordedGame::apply_legal(&mut game, &mv).unwrap().is_some() as usize;
        }
        assert_eq!(ended, game.hand_results().len());
        assert!(RecordedGame::apply_legal(&mut game, &0).is_err());
        let again = super::super::record::from_json(&game.to_json().unwrap()).unwrap();
        assert_eq!(again.history(), game.history());
    }
}
