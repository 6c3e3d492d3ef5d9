//! The climbing games (`year`, `spin`) under the shared contract ([`crate::contract`]): the bare
//! [`ClimbState`] is the position, [`Move`]s in canonical order are the moves, the abstract
//! actions of [`super::encoding`] the fixed action space, and [`ClimbGame`] the recorded game.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::determinize::wind_holders;
use super::determinize::ClimbDeterminizer;
use super::encoding::{self, move_features_into, MOVE_FEATURES, MOVE_FEATURES_LAYOUT};
use super::event::ClimbEvent;
use super::moves::Move;
use super::moves::MAX_PLAYERS;
use super::observation::{observation_into_zeroed, OBSERVATION_LAYOUT, OBSERVATION_SIZE};
use super::recorded::ClimbGame;
use super::rules::{ClimbSettings, Mood, Preset};
use super::search_value::WindMemory;
use super::snapshot::{parse_snapshot, round_snap, snapshot};
use super::state::{ClimbState, RoundResult};
use super::Deck;
use crate::card::CardInfo;
use crate::contract::{
    ActionSpace, Determinize, EnvSave, GameState, HeuristicPolicy, Horizon, Learned, MoveFeatures,
    Observe, Pick, RecordedGame, Rollout, SearchValue,
};
use crate::error::{EngineError, StateError};
use crate::nn::shipped::{shipped_file, ShippedFile};
use crate::nn::{Policy, PolicyShape, Scratch};
use crate::rng::SplitMix64;

/// A game that has not ended after this many rounds is an error instead of a loop (the rules
/// have no move limit, reading 34; bots end games in a handful of rounds).
pub const MAX_ROUNDS: u32 = 10_000;

impl GameState for ClimbState {
    type Move = Move;
    type Settings = ClimbSettings;
    type RoundEnd = RoundResult;

    const MAX_ROUNDS: u32 = MAX_ROUNDS;
    const ROUNDS_NAME: &'static str = "rounds";

    fn validate(players: u8, settings: &ClimbSettings) -> Result<(), EngineError> {
        settings.validate_for(players)
    }
    fn new(players: u8, seed: u64, settings: &ClimbSettings) -> Result<Self, EngineError> {
        ClimbState::new(players, seed, settings.clone())
    }
    #[inline]
    fn players(&self) -> u8 {
        ClimbState::players(self)
    }
    #[inline]
    fn current_player(&self) -> Option<u8> {
        ClimbState::current_player(self)
    }
    #[inline]
    fn is_over(&self) -> bool {
        ClimbState::is_over(self)
    }
    #[inline]
    fn winner(&self) -> Option<u8> {
        ClimbState::winner(self)
    }
    #[inline]
    fn scores(&self) -> &[u32] {
        ClimbState::scores(self)
    }
    /// The state counts rounds from 1 (contract §7); the shared contract from 0.
    #[inline]
    fn round(&self) -> u32 {
        ClimbState::round(self).saturating_sub(1)
    }
    /// Capped at [`super::MAX_LEGAL_MOVES`] (contract §5.3): a position over it is an error.
    #[inline]
    fn legal_moves_into(&self, out: &mut Vec<Move>) -> Result<(), EngineError> {
        if ClimbState::is_over(self) {
            out.clear();
            return Ok(());
        }
        self.try_legal_moves_into(out)
    }
    #[inline]
    fn apply(&mut self, mv: &Move) -> Result<Option<RoundResult>, EngineError> {
        ClimbState::apply(self, mv)
    }
    #[inline]
    fn apply_legal(&mut self, mv: &Move) -> Result<Option<RoundResult>, EngineError> {
        Ok(ClimbState::apply_legal(self, mv))
    }
}

impl HeuristicPolicy for ClimbState {
    #[inline]
    fn heuristic_move(&self, buf: &mut Vec<Move>) -> Result<Pick<Move>, EngineError> {
        GameState::legal_moves_into(self, buf)?;
        if buf.is_empty() {
            return Err(EngineError::GameOver);
        }
        Ok(Pick::Listed(super::heuristic::heuristic_index(self, buf)))
    }
}

/// A position's legal moves with the abstract action of each: the mask, the abstract actions
/// and the move-index steps all read them, generated and classified once per position.
#[derive(Clone, Debug, Default)]
pub struct ClimbLegal {
    moves: Vec<Move>,
    classes: Vec<Option<usize>>,
}

impl ClimbLegal {
    /// The legal moves, in canonical order.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The legal abstract actions, increasing, without repeats.
    fn actions(&self) -> Vec<usize> {
        let mut legal: Vec<usize> = self.classes.iter().flatten().copied().collect();
        legal.sort_unstable();
        legal.dedup();
        legal
    }
}

/// Tickets are indices into the cached legal moves.
impl ActionSpace for ClimbState {
    const NUM_ACTIONS: usize = encoding::NUM_ACTIONS;
    type Legal = ClimbLegal;

    fn cache_legal(&self, legal: &mut ClimbLegal) -> Result<(), EngineError> {
        let listed = GameState::legal_moves_into(self, &mut legal.moves);
        encoding::action_indices_into(self, &legal.moves, &mut legal.classes);
        listed
    }
    #[inline]
    fn write_mask(&self, legal: &ClimbLegal, mask: &mut [bool]) {
        for &a in legal.classes.iter().flatten() {
            mask[a] = true;
        }
    }
    fn resolve_action(&self, legal: &ClimbLegal, action: usize) -> Option<u32> {
        if action >= encoding::NUM_ACTIONS {
            return None;
        }
        encoding::resolve_known(self, &legal.moves, &legal.classes, action).map(|i| i as u32)
    }
    #[inline]
    fn resolve_index(&self, legal: &ClimbLegal, index: usize) -> Option<u32> {
        (index < legal.moves.len()).then_some(index as u32)
    }
    #[inline]
    fn move_index(&self, legal: &ClimbLegal, mv: &Move) -> Option<usize> {
        legal.moves.binary_search(mv).ok() // listed in increasing order
    }
    #[inline]
    fn apply_ticket(
        &mut self,
        legal: &ClimbLegal,
        ticket: u32,
    ) -> Result<Option<RoundResult>, EngineError> {
        Ok(ClimbState::apply_legal(self, &legal.moves[ticket as usize]))
    }
    fn refused_action(&self, legal: &ClimbLegal, action: i64) -> String {
        format!(
            "abstract action {action} is not legal for seat {}; legal actions: {:?}",
            self.seat(),
            legal.actions()
        )
    }
    fn refused_index(&self, legal: &ClimbLegal, index: i64) -> String {
        format!(
            "move index {index} is out of range for seat {}: {} legal moves",
            self.seat(),
            legal.moves.len()
        )
    }
}

impl ClimbState {
    /// The seat to move for messages (`-1` once the game is over).
    fn seat(&self) -> i64 {
        ClimbState::current_player(self).map_or(-1, i64::from)
    }
}

impl MoveFeatures for ClimbState {
    const MOVE_FEATURES: usize = MOVE_FEATURES;
    const MOVE_FEATURES_LAYOUT: &'static str = MOVE_FEATURES_LAYOUT;
    #[inline]
    fn legal_moves_of(legal: &ClimbLegal) -> &[Move] {
        &legal.moves
    }
    #[inline]
    fn write_move_features(&self, mv: &Move, out: &mut [f32]) {
        move_features_into(self, mv, out);
    }
}

impl Observe for ClimbState {
    const OBSERVATION_SIZE: usize = OBSERVATION_SIZE;
    const OBSERVATION_LAYOUT: &'static str = OBSERVATION_LAYOUT;
    #[inline]
    fn write_observation(&self, player: u8, out: &mut [f32]) {
        observation_into_zeroed(self, player, out);
    }
}

/// The §7 snapshot is exact and checked in full when loaded: nothing to keep beside it.
impl EnvSave for ClimbState {
    type Trail = ();

    #[inline]
    fn start_trail(&self, _trail: &mut ()) {}
    #[inline]
    fn extend_trail(&self, _trail: &mut (), _ticket: u32, _ended: bool) {}
    fn save(&self, _trail: &()) -> Value {
        serde_json::to_value(snapshot(self, &[])).expect("a snapshot serializes")
    }
    fn load(
        players: u8,
        settings: &ClimbSettings,
        saved: &Value,
    ) -> Result<(Self, ()), EngineError> {
        let snap = parse_snapshot(saved)?;
        let game = ClimbGame::from_snapshot(snap, settings.deck.clone())?;
        let state = game.state();
        if ClimbState::players(state) != players || state.settings() != settings {
            return Err(StateError(
                "a saved env's game has other players or settings than the env".into(),
            )
            .into());
        }
        Ok((state.clone(), ()))
    }
    fn save_settings(players: u8, s: &ClimbSettings) -> Value {
        let deck = (*s.deck != *Deck::reconstructed()).then(|| s.deck.doc().clone());
        serde_json::json!({
            "players": players,
            "preset": s.preset.name(),
            "panda_mood": s.mood.name(),
            "first_player": s.first_player,
            "deck": deck,
        })
    }
    fn load_settings(saved: &Value) -> Result<(u8, ClimbSettings), EngineError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Saved {
            players: u8,
            preset: String,
            panda_mood: String,
            first_player: u8,
            deck: Option<Value>,
        }
        let bad = |e: String| StateError(format!("not a saved climbing env config: {e}"));
        let saved = Saved::deserialize(saved).map_err(|e| bad(e.to_string()))?;
        let deck = match &saved.deck {
            None => Deck::reconstructed(),
            Some(doc) => Arc::new(Deck::from_json_value(doc, "(saved with the env)")?),
        };
        let settings = ClimbSettings {
            preset: Preset::parse(&saved.preset).map_err(|e| bad(e.0))?,
            mood: Mood::parse(&saved.panda_mood).map_err(|e| bad(e.0))?,
            first_player: saved.first_player,
            deck,
        };
        settings.validate_for(saved.players)?;
        Ok((saved.players, settings))
    }
}

impl RecordedGame for ClimbGame {
    type State = ClimbState;
    type Event = ClimbEvent;
    /// The round results as JSON (one §7 round entry each, and the round in progress when the
    /// game ended).
    type Rounds = Value;
    /// Own hand with faces, public information only (S-11).
    type View = Value;
    /// The §7 dict, as JSON.
    type Snapshot = Value;

    fn new(players: u8, seed: u64, settings: &ClimbSettings) -> Result<Self, EngineError> {
        ClimbGame::new(players, seed, settings.clone())
    }
    #[inline]
    fn state(&self) -> &ClimbState {
        ClimbGame::state(self)
    }
    /// Started from the position's snapshot (so it has a record).
    fn from_position(state: &ClimbState) -> Result<Self, EngineError> {
        let deck = state.settings().deck.clone();
        Ok(ClimbGame::from_snapshot(snapshot(state, &[]), deck)?)
    }
    fn apply_legal(&mut self, mv: &Move) -> Result<Option<RoundResult>, EngineError> {
        let rounds = self.round_results().len();
        ClimbGame::apply_legal(self, mv);
        Ok(self.round_results()[rounds..].first().copied())
    }
    fn apply_checked(&mut self, mv: &Move) -> Result<(), EngineError> {
        self.apply(mv).map(drop)
    }
    fn apply_notation_text(&mut self, text: &str) -> Result<(), EngineError> {
        self.apply_notation(text).map(drop)
    }
    fn move_for_action(&self, action: i128) -> Result<Move, EngineError> {
        ClimbGame::move_for_action(self, action)
    }
    fn apply_action(&mut self, action: i128) -> Result<(), EngineError> {
        ClimbGame::apply_action(self, action)
    }
    fn unparsable(&self, shown: &str, why: &str) -> EngineError {
        ClimbGame::unparsable(self, shown, why)
    }
    fn notation(&self, mv: &Move) -> String {
        mv.notation()
    }
    fn action_id(&self, mv: &Move) -> Option<u32> {
        encoding::action_index(self.state(), mv).and_then(|id| u32::try_from(id).ok())
    }

    fn events(&self) -> &[ClimbEvent] {
        ClimbGame::events(self)
    }
    fn events_seen_by(&self, seat: u8) -> Vec<ClimbEvent> {
        ClimbGame::events_seen_by(self, seat)
    }
    fn round_results(&self) -> Value {
        let rounds: Vec<_> = ClimbGame::round_results(self)
            .iter()
            .map(round_snap)
            .collect();
        serde_json::to_value(rounds).expect("round results serialize")
    }
    fn rounds_played(&self) -> usize {
        ClimbGame::round_results(self).len()
    }
    fn view(&self, seat: u8) -> Value {
        super::view::view(self, seat)
    }
    fn snapshot(&self) -> Value {
        serde_json::to_value(ClimbGame::snapshot(self)).expect("a snapshot serializes")
    }
    /// All 70 ids of the game's deck, `in_play` for the suits dealt (S-1.3, S-2, S-3.1).
    fn cards(&self) -> Vec<CardInfo> {
        let st = self.state();
        st.deck()
            .cards_info(st.suits_in_play(), st.settings().preset)
    }
    /// The white cards of other hands, the draw pile and (in `spin`) the unseen winds are dealt
    /// anew into the same places. The sample starts from its snapshot, so it has a record.
    fn determinize(&self, seat: u8, seed: u64) -> Result<Self, EngineError> {
        let mut rng = crate::rng::SplitMix64::new(seed);
        let mut state =
            ClimbDeterminizer::new(self.state(), seat, wind_holders(self)).sample(&mut rng);
        // The deal's seed would deal the real hands again: the sample carries its own.
        state.seed = seed;
        let snap = snapshot(&state, ClimbGame::round_results(self));
        ClimbGame::from_snapshot(snap, self.state().settings().deck.clone()).map_err(|e| {
            EngineError::Invariant(format!("a determinization is not a valid state: {}", e.0))
        })
    }
    fn search_memory(&self) -> WindMemory {
        WindMemory::Known(wind_holders(self))
    }
    /// Settings (deck embedded), start and every move.
    fn to_json(&self) -> Result<String, EngineError> {
        Ok(super::record::to_json(self))
    }
    fn from_json(text: &str) -> Result<Self, EngineError> {
        super::record::from_json(text)
    }
}

impl Determinize for ClimbState {
    type Memory = WindMemory;
    type Sampler = ClimbDeterminizer;

    #[inline]
    fn observe(memory: &mut WindMemory, before: &ClimbState, mv: &Move) {
        if let WindMemory::Tracked(t) = memory {
            t.observe(before, mv.kind);
        }
    }

    fn sampler(
        &self,
        memory: &mut WindMemory,
        observer: u8,
    ) -> Result<ClimbDeterminizer, EngineError> {
        Ok(ClimbDeterminizer::new(self, observer, memory.holders(self)))
    }

    #[inline]
    fn sample(sampler: &mut ClimbDeterminizer, rng: &mut SplitMix64) -> ClimbState {
        sampler.sample(rng)
    }
}

impl SearchValue for ClimbState {
    /// Random and heuristic rollouts are even at equal time; random is cheaper (see `search`).
    const DEFAULT_ROLLOUT: Rollout = Rollout::Random;
    /// The scores at the root.
    type Root = [u32; MAX_PLAYERS];

    fn search_root(&self) -> [u32; MAX_PLAYERS] {
        super::search_value::scores_at(self)
    }

    #[inline]
    fn search_value(
        &self,
        root: &[u32; MAX_PLAYERS],
        _round: Option<&RoundResult>,
        player: u8,
        _horizon: Horizon,
    ) -> f64 {
        super::search_value::gain_value(self, root, player)
    }
}
impl Learned for ClimbState {
    const POLICY_GAMES: &'static [&'static str] = &Preset::NAMES;
    const SHIPPED_POLICIES: &'static [ShippedFile] =
        &[shipped_file!("year"), shipped_file!("spin")];
    fn policy_settings(game: &str) -> Option<ClimbSettings> {
        Preset::parse(game).ok().map(ClimbSettings::preset)
    }
    fn policy_shape(settings: &ClimbSettings) -> PolicyShape {
        super::neural::policy_shape(settings)
    }
    fn settings_of(&self) -> &ClimbSettings {
        self.settings()
    }
    fn neural_move(
        &self,
        policy: &Policy,
        scratch: &mut Scratch,
        buf: &mut Vec<Move>,
    ) -> Result<Pick<Move>, EngineError> {
        let Some(player) = ClimbState::current_player(self) else {
            return Err(EngineError::GameOver);
        };
        GameState::legal_moves_into(self, buf)?;
        if buf.is_empty() {
            return Err(EngineError::GameOver);
        }
        let best = super::neural::best_move_index(self, player, buf, policy, scratch);
        Ok(Pick::Listed(best))
    }
    fn move_values(
        &self,
        player: u8,
        legal: &[Move],
        policy: &Policy,
        scratch: &mut Scratch,
        out: &mut Vec<f32>,
    ) {
        super::neural::move_scores(self, player, legal, policy, scratch, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// Random games through the contract, every preset: the list is the state's canonical one,
    /// the mask and the tickets name legal moves only, rounds count from 0, and a saved env
    /// position loads back to the same snapshot.
    #[test]
    fn the_list_the_mask_and_the_tickets_agree() {
        let mut rng = SplitMix64::new(5);
        for preset in [Preset::Year, Preset::Spin] {
            let settings = ClimbSettings::preset(preset);
            let mut st = <ClimbState as GameState>::new(3, 9, &settings).unwrap();
            let mut legal = ClimbLegal::default();
            assert_eq!(GameState::round(&st), 0);
            for _ in 0..150 {
                if GameState::is_over(&st) {
                    break;
                }
                st.cache_legal(&mut legal).unwrap();
                assert_eq!(legal.moves(), &st.legal_moves()[..]);
                let mut mask = vec![false; encoding::NUM_ACTIONS];
                st.write_mask(&legal, &mut mask);
                for (a, &on) in mask.iter().enumerate() {
                    let ticket = st.resolve_action(&legal, a);
                    assert_eq!(ticket.is_some(), on, "action {a}");
                    if let Some(t) = ticket {
                        assert_eq!(
                            encoding::action_index(&st, &legal.moves()[t as usize]),
                            Some(a)
                        );
                    }
                }
                let n = legal.moves().len();
                assert!(st.resolve_index(&legal, n).is_none());
                assert!(st.refused_index(&legal, n as i64).contains("out of range"));
                let (loaded, ()) = ClimbState::load(3, &settings, &st.save(&())).unwrap();
                assert_eq!(snapshot(&loaded, &[]), snapshot(&st, &[]));
                let t = st
                    .resolve_index(&legal, crate::rng::index_below(&mut rng, n))
                    .unwrap();
                st.apply_ticket(&legal, t).unwrap();
            }
            assert!(ClimbState::load(4, &settings, &st.save(&())).is_err());
        }
    }

    #[test]
    fn the_recorded_game_reports_the_rounds_it_records() {
        let settings = ClimbSettings::default();
        let mut game = <ClimbGame as RecordedGame>::new(3, 4, &settings).unwrap();
        let mut rng = SplitMix64::new(2);
        let mut buf = Vec::new();
        let mut ended = 0;
        while !GameState::is_over(RecordedGame::state(&game)) {
            let pick = RecordedGame::state(&game).random_move(&mut rng, &mut buf);
            let mv = pick.unwrap().into_move(&buf);
            ended += RecordedGame::apply_legal(&mut game, &mv).unwrap().is_some() as usize;
        }
        assert_eq!(ended, game.round_results().len());
        assert_eq!(GameState::round(game.state()) + 1, ended as u32);
    }
}
