//! Batched environments for RL: N games stepped in one call, in parallel, deterministic per seed.
//!
//! [`VecEnv`] is generic over an [`EnvGame`]: a game of the contract with a fixed action space
//! ([`ActionSpace`]), an observation ([`Observe`]) and a save form ([`EnvSave`]); every game that
//! has them is one (`head/contract.rs`, `climb/contract.rs`). One call to [`VecEnv::step`] runs
//! the whole batch in Rust: it checks every action first (so a bad action leaves *every* game
//! unchanged), then applies them, resets finished games (same-step auto-reset) and writes the
//! observations and masks of the players to move — spread over a rayon pool in contiguous chunks.
//!
//! Determinism: env `i` draws the seed of each new episode from its own SplitMix64 stream,
//! started at `nth_output(seed, i)` by [`VecEnv::reset`]. No state is shared between envs, so the
//! results are the same for any thread count or chunking.
//!
//! Rewards are zero except on the step that ends a game: +1 for the winner, −1 for every other
//! seat (one column per seat, absolute seats). Beside them, every step records which envs ended a
//! round (a hand) and its value for every seat ([`VecEnv::round_results`], [`round`]).
//!
//! Each env caches what its position's mask and checks read ([`ActionSpace::Legal`]), computed
//! once per position with the game's capped, fallible move generation: a position with more
//! legal moves than the game's cap fails the step (an engine error), never a silent truncation.

use std::sync::Arc;

mod bots;
pub mod round;

use rayon::prelude::*;

use crate::contract::{ActionSpace, EnvSave, GameState, MoveFeatures, Observe};
use crate::error::{EngineError, RulesError, StateError};
use crate::interrupt::{Interrupt, NEVER};
use crate::rng::SplitMix64;
pub use round::RoundValue;

/// A game as an environment: the capabilities [`VecEnv`] needs.
pub trait EnvGame: ActionSpace + Observe + EnvSave + RoundValue {
    /// Smallest batch of envs worth spreading over threads: waking a pool's threads costs tens
    /// of microseconds on a busy VM, so the batch must hold at least that much work. Each
    /// game's value is set in [`crate::games`].
    const MIN_PARALLEL_ENVS: usize = 64;
}

/// What every episode of one env is created from.
#[derive(Clone, Debug, PartialEq)]
pub struct EnvConfig<G: GameState> {
    pub players: u8,
    pub settings: G::Settings,
}

impl<G: EnvGame> EnvConfig<G> {
    fn new_episode(&self, seed: u64) -> Result<G, EngineError> {
        G::new(self.players, seed, &self.settings)
    }
}

/// What the actions of a step name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionKind {
    /// Ids of the game's fixed action space ([`ActionSpace::resolve_action`]).
    Action,
    /// Indices into each game's legal-move list ([`ActionSpace::resolve_index`]).
    MoveIndex,
}

/// The output of a reset or a step, one row per env (row-major, `N × size`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Batch {
    pub observations: Vec<f32>,
    pub masks: Vec<bool>,
    pub rewards: Vec<f32>,
    pub terminated: Vec<bool>,
    pub current_player: Vec<i64>,
}

/// A refused step: which env, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepError {
    pub env: usize,
    pub action: i64,
    pub reason: String,
    /// The actions that env would have accepted (same kind as the refused one).
    pub legal: Vec<i64>,
}

struct Slot<G: EnvGame> {
    game: G,
    /// What the position's mask and checks read.
    legal: G::Legal,
    /// What saving the position needs besides it.
    trail: G::Trail,
    /// Seeds of this env's next episodes.
    seeder: SplitMix64,
    episodes: u64,
    /// The round root of the round in progress when it is not the game's own (a loaded game
    /// whose save form does not keep it); cleared when the round ends.
    root: Option<G::RoundRoot>,
}

/// The `format` of a saved vector env ([`VecEnv::save`]).
pub const SAVED_FORMAT: &str = "panda-core-vector-env";
/// Its version.
pub const SAVED_VERSION: u32 = 1;

/// One env of a saved vector env.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedSlot {
    seeder: u64,
    episodes: u64,
    game: serde_json::Value,
    /// The round root of the round in progress, saved once the env's round results were read
    /// ([`VecEnv::round_results`]): a game's save form may not keep it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    round_root: Option<serde_json::Value>,
}

/// A saved vector env.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedEnv {
    format: String,
    version: u32,
    config: serde_json::Value,
    threads: Option<usize>,
    torn: bool,
    envs: Vec<SavedSlot>,
}

/// Most envs in one vector env.
pub const MAX_ENVS: usize = 1 << 20;
/// Most observation floats one step may return (512 MB): a larger batch is refused when the env
/// is built, not when its first step cannot allocate. With Panda Head's 96 floats this allows
/// [`MAX_ENVS`] envs; with the climbing games' 952, 140 000.
pub const MAX_BATCH_FLOATS: usize = 1 << 27;

/// The most envs a vector env of this configuration may hold.
pub fn max_envs<G: EnvGame>() -> usize {
    MAX_ENVS.min(MAX_BATCH_FLOATS / G::OBSERVATION_SIZE.max(1))
}

/// The fewest envs in one rayon task (a task costs about a microsecond, one step of one game
/// from a few hundred nanoseconds up).
const MIN_CHUNK: usize = 32;

/// N games of one configuration.
pub struct VecEnv<G: EnvGame> {
    config: EnvConfig<G>,
    slots: Vec<Slot<G>>,
    /// The shared pool of `threads` threads ([`crate::pool`]); `None`: rayon's global pool.
    pool: Option<Arc<rayon::ThreadPool>>,
    threads: usize,
    /// The checked actions of a step, as the game's tickets.
    checked: Vec<u32>,
    /// A step or reset was interrupted after some envs had moved: the batch is no longer one
    /// consistent step, so only [`VecEnv::reset`] is accepted until it completes.
    torn: bool,
    /// Per env, whether the last step ended a round (or the game) ([`VecEnv::round_results`]).
    round_ended: Vec<bool>,
    /// Per env and seat (`N × players`), the value of the round the last step ended.
    round_values: Vec<f32>,
    /// [`VecEnv::round_results`] was called (or the env was loaded from a save that keeps round
    /// roots): saves keep each game's round root, so that a loaded env values rounds the same.
    rounds_read: bool,
}

impl<G: EnvGame> VecEnv<G> {
    /// `threads`: run on the shared pool of that size ([`crate::pool`], `1..=MAX_THREADS`);
    /// `None`: rayon's global pool, all cores. `num_envs`: `1..=`[`max_envs`], checked before
    /// anything is allocated.
    pub fn new(
        config: EnvConfig<G>,
        num_envs: usize,
        threads: Option<usize>,
    ) -> Result<Self, EngineError> {
        G::validate(config.players, &config.settings)?;
        let most = max_envs::<G>();
        if !(1..=most).contains(&num_envs) {
            return Err(RulesError(format!(
                "num_envs must be in 1..={most} for this game, got {num_envs}"
            ))
            .into());
        }
        let pool = threads.map(crate::pool::pool).transpose()?;
        let threads = threads.unwrap_or_else(rayon::current_num_threads);
        // Episodes are dealt at `reset`; until then every env holds game 0 of seed 0.
        let first = config.new_episode(0)?;
        let players = config.players as usize;
        let slots = (0..num_envs)
            .map(|_| Slot::new(first.clone()))
            .collect::<Result<Vec<_>, EngineError>>()?;
        Ok(Self {
            config,
            slots,
            pool,
            threads,
            checked: vec![0; num_envs],
            torn: false,
            round_ended: vec![false; num_envs],
            round_values: vec![0.0; num_envs * players],
            rounds_read: false,
        })
    }

    pub fn num_envs(&self) -> usize {
        self.slots.len()
    }

    /// Everything about the envs as JSON text (configuration, thread count, every game and its
    /// seed stream): [`VecEnv::load`] rebuilds an env that steps exactly like this one.
    pub fn save(&self) -> String {
        let doc = SavedEnv {
            format: SAVED_FORMAT.into(),
            version: SAVED_VERSION,
            config: G::save_settings(self.config.players, &self.config.settings),
            threads: self.pool.as_ref().map(|_| self.threads),
            torn: self.torn,
            envs: self
                .slots
                .iter()
                .map(|s| SavedSlot {
                    seeder: s.seeder.state,
                    episodes: s.episodes,
                    game: s.game.save(&s.trail),
                    round_root: self.rounds_read.then(|| {
                        let root = s.root.unwrap_or_else(|| s.game.round_root());
                        serde_json::to_value(root).expect("a round root serializes")
                    }),
                })
                .collect(),
        };
        serde_json::to_string(&doc).expect("a vector env serializes")
    }

    /// Rebuild a vector env from [`VecEnv::save`]'s text, checking every game.
    pub fn load(text: &str) -> Result<Self, EngineError> {
        let doc: SavedEnv = serde_json::from_str(text)
            .map_err(|e| StateError(format!("not a saved panda-core vector env: {e}")))?;
        crate::record::check_header(&doc.format, doc.version, SAVED_FORMAT, SAVED_VERSION)?;
        let (players, settings) = G::load_settings(&doc.config)?;
        let mut env = Self::new(EnvConfig { players, settings }, doc.envs.len(), doc.threads)?;
        for (i, (slot, saved)) in env.slots.iter_mut().zip(&doc.envs).enumerate() {
            let (game, trail) = G::load(players, &env.config.settings, &saved.game)
                .map_err(|e| StateError(format!("saved env {i}: {e}")))?;
            slot.game = game;
            slot.trail = trail;
            slot.refresh()
                .map_err(|e| StateError(format!("saved env {i}: {e}")))?;
            slot.seeder = SplitMix64::new(saved.seeder);
            slot.episodes = saved.episodes;
            if let Some(root) = &saved.round_root {
                slot.root = Some(
                    <G::RoundRoot as serde::Deserialize>::deserialize(root)
                        .map_err(|e| StateError(format!("saved env {i}: round root: {e}")))?,
                );
                env.rounds_read = true;
            }
        }
        env.torn = doc.torn;
        Ok(env)
    }
    pub fn threads(&self) -> usize {
        self.threads
    }
    pub fn config(&self) -> &EnvConfig<G> {
        &self.config
    }
    pub fn observation_size(&self) -> usize {
        G::OBSERVATION_SIZE
    }
    pub fn num_actions(&self) -> usize {
        G::NUM_ACTIONS
    }
    pub fn players(&self) -> u8 {
        self.config.players
    }
    /// The game in env `i`.
    pub fn game(&self, i: usize) -> Option<&G> {
        self.slots.get(i).map(|s| &s.game)
    }
    /// What env `i`'s position's mask and checks read (e.g. its legal moves).
    pub fn legal(&self, i: usize) -> Option<&G::Legal> {
        self.slots.get(i).map(|s| &s.legal)
    }
    /// Every env's game, in env order.
    pub fn games(&self) -> impl ExactSizeIterator<Item = &G> {
        self.slots.iter().map(|s| &s.game)
    }
    /// Which envs the last step (or reset) ended a round in — a hand in Panda Head; the step that
    /// ends a game ends its last round too — and that round's value for every seat (`N ×
    /// players`, absolute seats, zero where no round ended; [`round`]'s module docs). A reset
    /// ends none. After a refused or interrupted step, what the step that completed last left.
    ///
    /// From the first call on, [`VecEnv::save`] keeps each game's round root too (what its
    /// round's value is measured from), so that a loaded env values the round in progress as
    /// this one would; an env whose round results were never read saves what it always did.
    pub fn round_results(&mut self) -> (&[bool], &[f32]) {
        self.rounds_read = true;
        (&self.round_ended, &self.round_values)
    }

    /// Episodes started in env `i` since the last reset (the one in progress included).
    pub fn episodes(&self, i: usize) -> Option<u64> {
        self.slots.get(i).map(|s| s.episodes)
    }

    fn empty_batch(&self) -> Batch {
        let n = self.num_envs();
        Batch {
            observations: vec![0.0; n * self.observation_size()],
            masks: vec![false; n * self.num_actions()],
            rewards: vec![0.0; n * self.players() as usize],
            terminated: vec![false; n],
            current_player: vec![0; n],
        }
    }

    /// Envs per chunk of work: everything on the calling thread for small batches or one
    /// thread, else a few chunks per thread.
    fn chunk(&self) -> usize {
        let n = self.num_envs();
        if self.threads <= 1 || n < G::MIN_PARALLEL_ENVS.max(2 * MIN_CHUNK) {
            n
        } else {
            n.div_ceil(self.threads * 4).max(MIN_CHUNK)
        }
    }

    /// Whether an interrupted step or reset left the envs part-way (only a reset is accepted).
    pub fn is_torn(&self) -> bool {
        self.torn
    }

    /// Declare the envs torn (a caller that lost track of a step, e.g. after a panic in it).
    pub fn mark_torn(&mut self) {
        self.torn = true;
    }

    /// Start a new episode in every env: env `i`'s seeds come from `nth_output(seed, i)`.
    pub fn reset(&mut self, seed: u64) -> Result<Batch, EngineError> {
        match self.reset_until(seed, &NEVER) {
            Ok(b) => Ok(b),
            Err(StepErrorOr::Engine(e)) => Err(e),
            Err(StepErrorOr::Step(e)) => Err(RulesError(e.reason).into()),
            Err(StepErrorOr::Interrupted) => unreachable!("NEVER is never set"),
        }
    }

    /// [`VecEnv::reset`] that stops once `stop` is set ([`StepErrorOr::Interrupted`]; the env
    /// then needs another reset).
    pub fn reset_until(&mut self, seed: u64, stop: &Interrupt) -> Result<Batch, StepErrorOr> {
        for (i, slot) in self.slots.iter_mut().enumerate() {
            slot.seeder = SplitMix64::new(SplitMix64::nth_output(seed, i as u64));
            slot.episodes = 0;
        }
        self.torn = false;
        self.run(None, stop)
    }

    /// Step every env with one action each (see the module doc). On a refused action no env has
    /// moved.
    pub fn step(&mut self, actions: &[i64]) -> Result<Batch, StepErrorOr> {
        self.step_as(actions, ActionKind::Action)
    }

    /// [`VecEnv::step`] with actions of the given kind.
    pub fn step_as(&mut self, actions: &[i64], kind: ActionKind) -> Result<Batch, StepErrorOr> {
        self.step_as_until(actions, kind, &NEVER)
    }

    /// [`VecEnv::step_as`] that stops once `stop` is set, polled before every env: stopped while
    /// checking the actions, no env has moved; stopped while applying them, the env is torn
    /// ([`VecEnv::is_torn`]) and refuses steps until the next reset. Either way
    /// [`StepErrorOr::Interrupted`].
    pub fn step_as_until(
        &mut self,
        actions: &[i64],
        kind: ActionKind,
        stop: &Interrupt,
    ) -> Result<Batch, StepErrorOr> {
        if self.torn {
            return Err(StepErrorOr::Engine(
                StateError(
                    "the last step or reset was interrupted part-way, so the envs are no longer \
                     in step: call reset() first"
                        .into(),
                )
                .into(),
            ));
        }
        let n = self.num_envs();
        if actions.len() != n {
            return Err(StepErrorOr::Engine(
                RulesError(format!(
                    "step needs one action per env: {n} envs, {} actions",
                    actions.len()
                ))
                .into(),
            ));
        }
        self.run(Some((actions, kind)), stop)
    }

    /// Check (when stepping), then step or deal every env, chunk by chunk.
    fn run(
        &mut self,
        actions: Option<(&[i64], ActionKind)>,
        stop: &Interrupt,
    ) -> Result<Batch, StepErrorOr> {
        let chunk = self.chunk();
        let mut out = self.empty_batch();
        let mut checked = std::mem::take(&mut self.checked);
        let mut ended = vec![false; self.num_envs()];
        let mut values = vec![0.0; self.round_values.len()];
        let result = self.run_with(
            actions,
            chunk,
            &mut out,
            (
                checked.as_mut_slice(),
                ended.as_mut_slice(),
                values.as_mut_slice(),
            ),
            stop,
        );
        self.checked = checked;
        if result.is_ok() {
            self.round_ended = ended;
            self.round_values = values;
        }
        result.map(|()| out)
    }

    fn run_with(
        &mut self,
        actions: Option<(&[i64], ActionKind)>,
        chunk: usize,
        out: &mut Batch,
        (checked, ended, values): (&mut [u32], &mut [bool], &mut [f32]),
        stop: &Interrupt,
    ) -> Result<(), StepErrorOr> {
        let (obs_size, n_actions, players) = (
            self.observation_size(),
            self.num_actions(),
            self.players() as usize,
        );
        let config = &self.config;
        let slots = &mut self.slots;
        let torn = &mut self.torn;
        let parallel = chunk < slots.len();
        // Both phases run inside one `install`: waking the pool's threads costs tens of
        // microseconds on a busy VM, as much as stepping a few hundred envs.
        let mut work = move || -> Result<(), StepErrorOr> {
            // Check first, apply after: a refused action must leave every game as it was.
            if let Some((actions, kind)) = actions {
                let checks = slots
                    .chunks(chunk)
                    .zip(actions.chunks(chunk).zip(checked.chunks_mut(chunk)))
                    .enumerate()
                    .map(|(k, (slots, (actions, checked)))| Checks {
                        kind,
                        stop,
                        first: k * chunk,
                        slots,
                        actions,
                        checked,
                    });
                if parallel {
                    let checks: Vec<_> = checks.collect();
                    checks.into_par_iter().try_for_each(Checks::check)?;
                } else {
                    checks.into_iter().try_for_each(Checks::check)?;
                }
            }
            // From here on envs move: an interruption leaves the batch torn.
            *torn = true;
            let rows = slots
                .chunks_mut(chunk)
                .zip(out.observations.chunks_mut(chunk * obs_size))
                .zip(out.masks.chunks_mut(chunk * n_actions))
                .zip(out.rewards.chunks_mut(chunk * players))
                .zip(out.terminated.chunks_mut(chunk))
                .zip(out.current_player.chunks_mut(chunk))
                .zip(checked.chunks(chunk))
                .zip(
                    ended
                        .chunks_mut(chunk)
                        .zip(values.chunks_mut(chunk * players)),
                )
                .map(
                    |(
                        ((((((slots, obs), mask), rewards), terminated), current), checked),
                        (round_ended, round_values),
                    )| Rows {
                        slots,
                        checked: actions.map(|_| checked),
                        obs,
                        mask,
                        rewards,
                        terminated,
                        current,
                        round_ended,
                        round_values,
                    },
                );
            let step = |rows: Rows<'_, G>| rows.step(config, stop);
            if parallel {
                let rows: Vec<_> = rows.collect();
                rows.into_par_iter().try_for_each(step)?;
            } else {
                rows.into_iter().try_for_each(step)?;
            }
            *torn = false;
            Ok(())
        };
        if parallel {
            in_pool(&self.pool, work)
        } else {
            work()
        }
    }
}

/// One chunk of envs with its output rows.
struct Rows<'a, G: EnvGame> {
    slots: &'a mut [Slot<G>],
    /// `None` when dealing new episodes (reset).
    checked: Option<&'a [u32]>,
    obs: &'a mut [f32],
    mask: &'a mut [bool],
    rewards: &'a mut [f32],
    terminated: &'a mut [bool],
    current: &'a mut [i64],
    round_ended: &'a mut [bool],
    round_values: &'a mut [f32],
}

impl<G: EnvGame> Rows<'_, G> {
    fn step(self, config: &EnvConfig<G>, stop: &Interrupt) -> Result<(), StepErrorOr> {
        let n = self.slots.len();
        let obs_size = self.obs.len() / n;
        let n_actions = self.mask.len() / n;
        let players = self.rewards.len() / n;
        for (i, slot) in self.slots.iter_mut().enumerate() {
            if stop.is_set() {
                return Err(StepErrorOr::Interrupted);
            }
            match self.checked {
                None => new_episode(config, slot)?,
                Some(checked) => {
                    let root = slot.root.unwrap_or_else(|| slot.game.round_root());
                    let end = slot.apply(checked[i])?;
                    let values = &mut self.round_values[i * players..(i + 1) * players];
                    if let Some(end) = &end {
                        slot.game.round_values(&root, end, values);
                        self.round_ended[i] = true;
                        slot.root = None;
                    }
                    if slot.game.current_player().is_none() {
                        let winner = slot.game.winner();
                        let row = &mut self.rewards[i * players..(i + 1) * players];
                        for (seat, r) in row.iter_mut().enumerate() {
                            *r = if winner == Some(seat as u8) {
                                1.0
                            } else {
                                -1.0
                            };
                        }
                        if end.is_none() {
                            // Every game ends with a round's end; if one did not, its value is
                            // the game's.
                            values.copy_from_slice(row);
                            self.round_ended[i] = true;
                        }
                        self.terminated[i] = true;
                        new_episode(config, slot)?;
                    }
                }
            }
            write_position(
                slot,
                &mut self.obs[i * obs_size..(i + 1) * obs_size],
                &mut self.mask[i * n_actions..(i + 1) * n_actions],
                &mut self.current[i],
            );
        }
        Ok(())
    }
}

/// One chunk of actions to check; `first` is the index of the chunk's first env.
struct Checks<'a, G: EnvGame> {
    kind: ActionKind,
    stop: &'a Interrupt,
    first: usize,
    slots: &'a [Slot<G>],
    actions: &'a [i64],
    checked: &'a mut [u32],
}

impl<G: EnvGame> Checks<'_, G> {
    fn check(self) -> Result<(), StepErrorOr> {
        let it = self.slots.iter().zip(self.actions).zip(self.checked);
        for (i, ((slot, &action), c)) in it.enumerate() {
            if self.stop.is_set() {
                return Err(StepErrorOr::Interrupted);
            }
            let (game, legal) = (&slot.game, &slot.legal);
            let at = usize::try_from(action).ok();
            let ticket = match self.kind {
                ActionKind::Action => at.and_then(|a| game.resolve_action(legal, a)),
                ActionKind::MoveIndex => at.and_then(|a| game.resolve_index(legal, a)),
            };
            *c = ticket.ok_or_else(|| {
                let (reason, legal) = match self.kind {
                    ActionKind::Action => (
                        game.refused_action(legal, action),
                        game.legal_action_ids(legal),
                    ),
                    ActionKind::MoveIndex => {
                        (game.refused_index(legal, action), game.legal_indices(legal))
                    }
                };
                StepErrorOr::Step(StepError {
                    env: self.first + i,
                    action,
                    reason,
                    legal,
                })
            })?;
        }
        Ok(())
    }
}

/// Run `f` in the env's shared pool, or in rayon's global pool.
fn in_pool<R: Send>(pool: &Option<Arc<rayon::ThreadPool>>, f: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// A step refused for one env's action, an engine error, or a step stopped by its caller.
#[derive(Debug)]
pub enum StepErrorOr {
    Step(StepError),
    Engine(EngineError),
    /// The [`Interrupt`] was set (see [`VecEnv::step_as_until`]).
    Interrupted,
}

impl From<EngineError> for StepErrorOr {
    fn from(e: EngineError) -> Self {
        Self::Engine(e)
    }
}

impl<G: EnvGame> Slot<G> {
    /// A slot holding `game`, dealt from seed 0 until the first reset.
    fn new(game: G) -> Result<Self, EngineError> {
        let mut slot = Self {
            game,
            legal: G::Legal::default(),
            trail: G::Trail::default(),
            seeder: SplitMix64::new(0),
            episodes: 0,
            root: None,
        };
        slot.game.start_trail(&mut slot.trail);
        slot.refresh()?;
        Ok(slot)
    }

    /// Recompute the cache of the position.
    #[inline]
    fn refresh(&mut self) -> Result<(), EngineError> {
        self.game.cache_legal(&mut self.legal)
    }

    /// Apply a checked action and cache the new position; the round's end if the action ended
    /// one.
    #[inline]
    fn apply(&mut self, ticket: u32) -> Result<Option<G::RoundEnd>, EngineError> {
        let end = self.game.apply_ticket(&self.legal, ticket)?;
        self.game
            .extend_trail(&mut self.trail, ticket, end.is_some());
        self.refresh()?;
        Ok(end)
    }
}

fn new_episode<G: EnvGame>(config: &EnvConfig<G>, slot: &mut Slot<G>) -> Result<(), EngineError> {
    slot.game = config.new_episode(slot.seeder.next())?;
    slot.root = None;
    slot.game.start_trail(&mut slot.trail);
    slot.episodes += 1;
    slot.refresh()
}

fn write_position<G: EnvGame>(
    slot: &Slot<G>,
    obs: &mut [f32],
    mask: &mut [bool],
    current: &mut i64,
) {
    // A fresh episode always has a player to move; `-1` would flag an engine bug.
    match slot.game.current_player() {
        Some(p) => {
            slot.game.write_observation(p, obs);
            slot.game.write_mask(&slot.legal, mask);
            *current = p as i64;
        }
        None => *current = -1,
    }
}

/// Move-feature rows of every env stacked, and the offsets of each env's rows.
pub type MoveRows = (Vec<f32>, Vec<i64>);

impl<G: EnvGame + MoveFeatures> VecEnv<G> {
    /// The move-feature rows of every env's legal moves, stacked: rows
    /// `offsets[i] .. offsets[i + 1]` (each `G::MOVE_FEATURES` floats) are env `i`'s moves in
    /// canonical order, the order [`VecEnv::step_as`] with move indices refers to.
    pub fn legal_move_features(&self) -> Result<MoveRows, RulesError> {
        self.legal_move_features_until(&NEVER)
            .map(|rows| rows.expect("NEVER is never set"))
    }

    /// [`VecEnv::legal_move_features`] that gives up (`Ok(None)`) once `stop` is set, polled
    /// between envs. The total size is checked before the rows are allocated: at most
    /// [`MAX_BATCH_FLOATS`] floats (a `RulesError` names the size; use fewer envs).
    pub fn legal_move_features_until(
        &self,
        stop: &Interrupt,
    ) -> Result<Option<MoveRows>, RulesError> {
        let mut offsets = Vec::with_capacity(self.num_envs() + 1);
        offsets.push(0i64);
        for s in &self.slots {
            let n = G::legal_moves_of(&s.legal).len() as i64;
            offsets.push(offsets.last().copied().unwrap_or(0) + n);
        }
        let total = offsets.last().copied().unwrap_or(0) as usize;
        let floats = total.saturating_mul(G::MOVE_FEATURES);
        if floats > MAX_BATCH_FLOATS {
            return Err(RulesError(format!(
                "the {total} legal moves of the {} envs need {floats} feature floats, more than \
                 {MAX_BATCH_FLOATS} in one call; use fewer envs (or step by abstract action)",
                self.num_envs(),
            )));
        }
        let mut rows = vec![0.0f32; floats];
        let mut chunks = rows.chunks_mut(G::MOVE_FEATURES.max(1));
        for s in &self.slots {
            if stop.is_set() {
                return Ok(None);
            }
            for (mv, row) in G::legal_moves_of(&s.legal).iter().zip(chunks.by_ref()) {
                s.game.write_move_features(mv, row);
            }
        }
        Ok(Some((rows, offsets)))
    }
}
