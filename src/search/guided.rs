//! Neural-guided SO-ISMCTS (the `ismcts+neural:N` bot): the tree of [`super::ismcts`] (one tree
//! over the searching player's information sets, a fresh determinization per iteration,
//! availability counts), with a trained policy in the two places the plain search uses chance
//! and rollouts:
//!
//! - **priors** (PUCT, as in AlphaZero): a node is expanded with a child for every action legal
//!   in the determinization that reached it, each with the prior
//!   `softmax(Q(s, a) / TEMPERATURE)` over those actions, where `Q` is the policy's value of the
//!   move for the player to move (a DMC Q-network's value in [−1, 1]; the shipped policies are
//!   trained on the round's value, `2v − 1` of the value this search gives a round's end). An
//!   action legal in a later determinization but without a child is added then ([`LateChild`]):
//!   by default with the mean prior and estimate of the node's children so far, so an iteration
//!   runs the policy once. A child is chosen by
//!   `mean + c · prior / Σ prior(available) · sqrt(available) / (1 + visits)`, its mean
//!   starting from one virtual visit worth the policy's own estimate `(Q + 1) / 2` (so one
//!   iteration plays the policy's move);
//! - **values**: a leaf (the node an iteration expands) is valued by the policy and a rollout,
//!   mixed as AlphaGo mixed them: `(1 − λ) · policy + λ · rollout`. The policy's part:
//!   `v = max_a Q(s, a)` for the player to move, `(v + 1) / 2` for them and the rest of 1 shared
//!   by the other seats; the rollout's: the plain search's rollout to the same horizon, valued as
//!   it values it, played by the heuristic bot in every game ([`DEFAULT_GUIDED_ROLLOUT`]). The
//!   horizon is the plain search's (the end of the hand or round), and a game that ends inside
//!   the tree is valued by its result (1 the winner, 0 the others);
//! - **expansion after visits**: a node other than the root is expanded (its children added,
//!   the policy run) only once it was visited 3 times; the iterations that reach it before are
//!   valued by a rollout alone. Most nodes of a 200-iteration tree are reached a few times at
//!   most, so the policy runs in few iterations: its priors steer the first moves, the rollouts
//!   value them.
//!
//! Measured (issue 23; seat 0 against three heuristic bots, 4 players, 300–400 games, policies
//! trained on the round's value): the policy's value alone at a whole-game horizon (the first
//! version) lost to `ismcts:200` in every game, and in `year` to the policy itself (34% against
//! its 52%); at the round's horizon the policy alone still lost there (45%); with `λ = 0.5` the
//! search won 70% in `year` (`ismcts:200` 69%) and 71–72% in Panda Head (`ismcts:200` 60%, the
//! policy alone as leaf value 65%); in `spin` 59% (`ismcts:200` 58%, the policy 46%). Adding
//! late children without a forward pass played as well (72%) at two thirds of the time.
//! Expanding a node only after visits (`expand_after`, policy of round 21M in Panda Head, 400
//! games; of 6M in `year`, 300 games): Panda Head 72% (0), 71% (1), 72% (3), 69% (7), 75% (never
//! but the root); `year` 67%, 79%, 81%, 75%, 77%; each step up also cheaper (Panda Head: 45 s, 21
//! s and 10 s for the 400 games at 1, 3 and never, against 81 s at 0). 3 is the default: the best
//! in `year`, within the noise of the best in Panda Head. The rollout policy (2026-12-07, the
//! shipped policies, 1,000 games on the same deals, seed 99): in the climbing games the plain
//! search rolls out at random (as strong as the heuristic at equal time), and so did this one,
//! winning 80.9% in `year` and 71.2% in `spin`; with heuristic rollouts 86.3% and 80.0%,
//! above `ismcts:1000` (85.5%, 74.3% on the same deals), at 1.4–1.5× `ismcts:200`'s time per
//! decision (1.25× before). Panda Head's search already rolled out with the heuristic.
//!
//! Constants: `TEMPERATURE = 0.1` — a DMC network's values of the sensible moves of a position
//! differ by a few hundredths to a few tenths, so at 0.1 a gap of 0.1 is a prior ratio of e (at
//! 1 the priors would be nearly uniform); `c = 1.0` — AlphaZero's 1–2.5 on values in [−1, 1] is
//! 0.5–1.25 on these [0, 1] values (in Panda Head 3.0, 0.03 and a whole-game horizon were no
//! better); `λ = 0.5`.
//!
//! The policy's forward passes reuse one [`Scratch`] for the whole search (and a bot's across
//! its decisions); an iteration allocates only the children it adds.

use std::sync::Arc;

use super::game_search::{best_of, forced_stats, GameSearch, Node as SearchNode, Searchable};
use super::ismcts::{IsmctsConfig, RootStat, SearchGame};
use super::SearchSettings;
use crate::contract::{Learned, Pick, Rollout};
use crate::error::EngineError;
use crate::interrupt::{Interrupt, NEVER};
use crate::nn::{Policy, Scratch};
use crate::rng::SplitMix64;

/// Default softmax temperature of the priors (on Q values in [−1, 1]).
pub const DEFAULT_TEMPERATURE: f64 = 0.1;
/// Default PUCT exploration constant (on values in [0, 1]).
pub const DEFAULT_C_PUCT: f64 = 1.0;
/// Default weight of a rollout in a leaf's value (measured: module docs).
pub const DEFAULT_ROLLOUT_MIX: f64 = 0.5;
/// Default visits before a node other than the root is expanded by the policy (measured:
/// module docs).
pub const DEFAULT_EXPAND_AFTER: u32 = 3;
/// Default rollout policy of the guided search in every game: the heuristic (measured: module
/// docs). The plain search's default differs by game (random in the climbing games, where at
/// equal time it plays as well as the heuristic); here the policy makes each iteration worth more,
/// so the stronger rollout pays for its cost.
pub const DEFAULT_GUIDED_ROLLOUT: Rollout = Rollout::Heuristic;

/// A guided search's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GuidedConfig {
    /// Iterations (determinizations) per decision.
    pub iterations: u32,
    pub c_puct: f64,
    pub temperature: f64,
    /// How an action gets its prior when it is legal in a determinization that reaches an
    /// expanded node without a child for it.
    pub late: LateChild,
    /// The weight of a rollout in a leaf's value (AlphaGo's λ): 0 values a leaf by the policy
    /// alone, 1 by a rollout of the game's rollout policy to the search horizon alone.
    pub rollout_mix: f64,
    /// Visits a node (other than the root) needs before an iteration expands it with the
    /// policy; until then an iteration that reaches it values it by a rollout alone (0: every
    /// leaf is expanded at once).
    pub expand_after: u32,
    /// The rollout policy (the plain search's, to the same horizon).
    pub rollout: Rollout,
    pub seed: u64,
}

/// The prior of an action met at an expanded node after its expansion (a determinization dealt
/// the mover other cards).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LateChild {
    /// The policy is run again on that determinization: its priors, its estimate.
    Evaluate,
    /// No forward pass: the mean prior and the mean estimate of the node's children so far, so
    /// an iteration runs the policy once (at its leaf).
    SiblingMean,
}

impl GuidedConfig {
    /// The defaults with `iterations` and `seed`.
    pub fn new(iterations: u32, seed: u64) -> Self {
        Self {
            iterations,
            c_puct: DEFAULT_C_PUCT,
            temperature: DEFAULT_TEMPERATURE,
            late: LateChild::SiblingMean,
            rollout_mix: DEFAULT_ROLLOUT_MIX,
            expand_after: DEFAULT_EXPAND_AFTER,
            rollout: DEFAULT_GUIDED_ROLLOUT,
            seed,
        }
    }
}

/// What the guided search needs beyond [`SearchGame`]: the policy's move values and the value of
/// a position nobody is to move in.
pub trait Guided: SearchGame {
    /// Seats of the game.
    fn players(&self) -> usize;
    /// The policy's value in [−1, 1] of each of `legal` (the actions legal in `state`) for
    /// `mover`, the player to move, into `out` (cleared first, one per action).
    fn move_values(
        &mut self,
        state: &Self::State,
        mover: u8,
        legal: &[Self::Action],
        out: &mut Vec<f32>,
    );
    /// The value in [0, 1] of each seat (into `out`, `players()` long) of a state where nobody
    /// is to move or no move could be listed.
    fn end_values(&self, state: &Self::State, out: &mut [f64]) {
        for (p, v) in out.iter_mut().enumerate() {
            *v = self.value(state, p as u8);
        }
    }
}

/// The softmax weight `exp((q − max) / t)` of a value.
#[inline]
fn weight(q: f32, max: f32, temperature: f64) -> f64 {
    ((f64::from(q) - f64::from(max)) / temperature).exp()
}

/// The policy's values as a probability of winning: `(q + 1) / 2` in [0, 1].
#[inline]
pub fn win_probability(q: f32) -> f64 {
    ((f64::from(q) + 1.0) / 2.0).clamp(0.0, 1.0)
}

/// The leaf values of every seat from the mover's best move value `best`: `P(win)` for the
/// mover, the rest shared equally by the others.
pub fn leaf_values(best: f32, mover: u8, out: &mut [f64]) {
    let p = win_probability(best);
    let others = if out.len() > 1 {
        (1.0 - p) / (out.len() - 1) as f64
    } else {
        0.0
    };
    for (seat, v) in out.iter_mut().enumerate() {
        *v = if seat == mover as usize { p } else { others };
    }
}

/// The priors of `q` (softmax at `temperature`), into `out`.
pub fn priors(q: &[f32], temperature: f64, out: &mut Vec<f64>) {
    out.clear();
    let max = q.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    out.extend(q.iter().map(|&v| weight(v, max, temperature)));
    let z: f64 = out.iter().sum();
    for p in out.iter_mut() {
        *p /= z;
    }
}

struct Node<A> {
    /// The action into this node (`None` at the root).
    action: Option<A>,
    /// The player who made that action.
    mover: u8,
    /// Children indices, sorted by action.
    children: Vec<u32>,
    visits: u32,
    available: u32,
    reward: f64,
    /// The prior of the action into this node, from the determinization that added it.
    prior: f64,
    /// The policy's estimate of the action for its mover: the mean's virtual first visit.
    init: f64,
    /// Whether the node was valued (its children added) by an iteration.
    expanded: bool,
}

impl<A> Node<A> {
    #[inline]
    fn mean(&self) -> f64 {
        (self.reward + self.init) / (f64::from(self.visits) + 1.0)
    }
}

/// Add a child of `parent` for `action` (children stay sorted by action); its index.
fn add_child<A: Ord>(
    nodes: &mut Vec<Node<A>>,
    parent: u32,
    action: A,
    mover: u8,
    prior: f64,
    init: f64,
) -> u32 {
    let child = nodes.len() as u32;
    let at = nodes[parent as usize]
        .children
        .partition_point(|&x| nodes[x as usize].action.as_ref().expect("child") < &action);
    nodes.push(Node {
        action: Some(action),
        mover,
        children: Vec::new(),
        visits: 0,
        available: 0,
        reward: 0.0,
        prior,
        init,
        expanded: false,
    });
    nodes[parent as usize].children.insert(at, child);
    child
}

/// Run the guided search for `player` (to move at the root) and return the root statistics, best
/// (most visited; ties to the higher mean, then the lower action) first; `mean` counts the
/// policy's virtual visit. Ends early once `stop` is set (polled before every iteration after
/// the first).
pub fn guided_stats_until<G: Guided>(
    game: &mut G,
    player: u8,
    config: &GuidedConfig,
    stop: &Interrupt,
) -> Vec<RootStat<G::Action>> {
    let mut rng = SplitMix64::new(config.seed);
    let mut nodes: Vec<Node<G::Action>> = vec![Node {
        action: None,
        mover: player,
        children: Vec::new(),
        visits: 0,
        available: 0,
        reward: 0.0,
        prior: 1.0,
        init: 0.0,
        expanded: false,
    }];
    let mut values = vec![0.0f64; game.players().max(1)];
    let mut rolled = values.clone();
    let mut legal: Vec<G::Action> = Vec::with_capacity(64);
    let mut q: Vec<f32> = Vec::with_capacity(64);
    let mut prior: Vec<f64> = Vec::with_capacity(64);
    let mut path: Vec<u32> = Vec::with_capacity(64);
    let mut missing: Vec<usize> = Vec::with_capacity(64);
    let mut available: Vec<u32> = Vec::with_capacity(64);
    for iteration in 0..config.iterations.max(1) {
        if iteration > 0 && stop.is_set() {
            break;
        }
        let mut state = game.determinize(&mut rng);
        debug_assert_eq!(game.to_move(&state), Some(player));
        let mut node = 0u32;
        path.clear();
        path.push(0);
        loop {
            let Some(mover) = game.to_move(&state) else {
                game.end_values(&state, &mut values);
                break;
            };
            game.legal(&state, &mut legal);
            if legal.is_empty() {
                game.end_values(&state, &mut values);
                break;
            }
            debug_assert!(legal.windows(2).all(|w| w[0] < w[1]), "legal not sorted");
            // One merge pass over the sorted legal actions and sorted children.
            missing.clear();
            available.clear();
            {
                let children = &nodes[node as usize].children;
                let mut c = 0;
                for (i, a) in legal.iter().enumerate() {
                    while c < children.len()
                        && nodes[children[c] as usize].action.as_ref().expect("child") < a
                    {
                        c += 1;
                    }
                    if c < children.len()
                        && nodes[children[c] as usize].action.as_ref().expect("child") == a
                    {
                        available.push(children[c]);
                    } else {
                        missing.push(i);
                    }
                }
            }
            let fresh = !nodes[node as usize].expanded;
            if fresh && node != 0 && nodes[node as usize].visits < config.expand_after {
                // Too few visits to pay for the policy: valued by a rollout alone, no children.
                game.rollout(&mut state, &mut rng, &mut legal);
                game.end_values(&state, &mut values);
                break;
            }
            if !fresh && !missing.is_empty() && config.late == LateChild::SiblingMean {
                let children = &nodes[node as usize].children;
                let count = children.len().max(1) as f64;
                let (p, e) = children.iter().fold((0.0, 0.0), |(p, e), &c| {
                    (p + nodes[c as usize].prior, e + nodes[c as usize].init)
                });
                let (p, e) = (p / count, e / count);
                for &i in &missing {
                    let child = add_child(&mut nodes, node, legal[i].clone(), mover, p, e);
                    available.push(child);
                }
            } else if fresh || !missing.is_empty() {
                game.move_values(&state, mover, &legal, &mut q);
                debug_assert_eq!(q.len(), legal.len());
                priors(&q, config.temperature, &mut prior);
                for &i in &missing {
                    let init = win_probability(q[i]);
                    let child =
                        add_child(&mut nodes, node, legal[i].clone(), mover, prior[i], init);
                    available.push(child);
                }
                if fresh {
                    // The leaf: valued by the policy, no rollout.
                    nodes[node as usize].expanded = true;
                    let best = q.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                    leaf_values(best, mover, &mut values);
                    if config.rollout_mix > 0.0 {
                        let mut end = state.clone();
                        game.rollout(&mut end, &mut rng, &mut legal);
                        game.end_values(&end, &mut rolled);
                        let mix = config.rollout_mix;
                        for (v, r) in values.iter_mut().zip(&rolled) {
                            *v = (1.0 - mix) * *v + mix * r;
                        }
                    }
                    break;
                }
            }
            // Selection: PUCT with availability counts.
            let mut total_prior = 0.0;
            for &ch in &available {
                let n = &mut nodes[ch as usize];
                n.available += 1;
                total_prior += n.prior;
            }
            let mut best = available[0];
            let mut best_score = f64::NEG_INFINITY;
            for &ch in &available {
                let n = &nodes[ch as usize];
                let score = n.mean()
                    + config.c_puct * (n.prior / total_prior) * f64::from(n.available).sqrt()
                        / (1.0 + f64::from(n.visits));
                if score > best_score {
                    best_score = score;
                    best = ch;
                }
            }
            let action = nodes[best as usize].action.clone().expect("child");
            game.apply(&mut state, &action);
            node = best;
            path.push(node);
        }
        for &n in &path {
            let nd = &mut nodes[n as usize];
            nd.visits += 1;
            if n != 0 {
                nd.reward += values[nd.mover as usize];
            }
        }
    }
    let mut stats: Vec<RootStat<G::Action>> = nodes[0]
        .children
        .iter()
        .map(|&c| {
            let n = &nodes[c as usize];
            RootStat {
                action: n.action.clone().expect("child"),
                visits: n.visits,
                mean: n.mean(),
            }
        })
        .collect();
    stats.sort_by(|a, b| {
        b.visits
            .cmp(&a.visits)
            .then(b.mean.total_cmp(&a.mean))
            .then(a.action.cmp(&b.action))
    });
    stats
}

/// The most visited root action of [`guided_stats_until`].
pub fn guided_search_until<G: Guided>(
    game: &mut G,
    player: u8,
    config: &GuidedConfig,
    stop: &Interrupt,
) -> G::Action {
    guided_stats_until(game, player, config, stop)
        .into_iter()
        .next()
        .expect("the root has a legal action")
        .action
}

/// A game the guided search plays: searchable, and its trained policy values its moves
/// ([`Learned::move_values`]).
pub trait MoveValues: Searchable + Learned {}
impl<G: Searchable + Learned> MoveValues for G {}

/// The guided search over a game of the contract: the determinizations and moves of
/// [`GameSearch`] (to the end of the game), the policy's values.
pub struct GuidedSearch<'a, G: MoveValues> {
    inner: GameSearch<G>,
    policy: &'a Policy,
    scratch: &'a mut Scratch,
    players: usize,
    config: GuidedConfig,
}

impl<'a, G: MoveValues> GuidedSearch<'a, G> {
    /// Search for the player to move in `state`, knowing what `memory` saw, with `policy`
    /// (checked to fit the game) and the forward passes' buffers `scratch`.
    pub fn new(
        state: &G,
        memory: &mut G::Memory,
        policy: &'a Policy,
        scratch: &'a mut Scratch,
        config: GuidedConfig,
    ) -> Result<Self, EngineError> {
        let settings = SearchSettings {
            config: IsmctsConfig {
                iterations: config.iterations,
                seed: config.seed,
                ..IsmctsConfig::default()
            },
            rollout: config.rollout,
            ..SearchSettings::default_for::<G>()
        };
        Ok(Self {
            inner: GameSearch::new(state, memory, settings)?,
            policy,
            scratch,
            players: usize::from(state.players()),
            config,
        })
    }

    /// The move the search picks, ending early once `stop` is set (the best so far, legal).
    pub fn best_move_until(&mut self, stop: &Interrupt) -> G::Move {
        let config = self.config;
        let player = self.inner.player();
        guided_search_until(self, player, &config, stop)
    }

    /// The root statistics ([`guided_stats_until`]).
    pub fn stats(&mut self) -> Vec<RootStat<G::Move>> {
        let config = self.config;
        let player = self.inner.player();
        guided_stats_until(self, player, &config, &NEVER)
    }
}

impl<G: MoveValues> SearchGame for GuidedSearch<'_, G> {
    type State = SearchNode<G>;
    type Action = G::Move;

    fn determinize(&mut self, rng: &mut SplitMix64) -> SearchNode<G> {
        self.inner.determinize(rng)
    }

    #[inline]
    fn to_move(&self, s: &SearchNode<G>) -> Option<u8> {
        self.inner.to_move(s)
    }

    #[inline]
    fn legal(&self, s: &SearchNode<G>, out: &mut Vec<G::Move>) {
        self.inner.legal(s, out);
    }

    #[inline]
    fn apply(&self, s: &mut SearchNode<G>, mv: &G::Move) {
        self.inner.apply(s, mv);
    }

    fn rollout(&self, s: &mut SearchNode<G>, rng: &mut SplitMix64, buf: &mut Vec<G::Move>) {
        self.inner.rollout(s, rng, buf);
    }

    #[inline]
    fn value(&self, s: &SearchNode<G>, player: u8) -> f64 {
        self.inner.value(s, player)
    }
}

impl<G: MoveValues> Guided for GuidedSearch<'_, G> {
    fn players(&self) -> usize {
        self.players
    }

    #[inline]
    fn move_values(&mut self, s: &SearchNode<G>, mover: u8, legal: &[G::Move], out: &mut Vec<f32>) {
        s.state
            .move_values(mover, legal, self.policy, self.scratch, out);
    }

    fn end_values(&self, s: &SearchNode<G>, out: &mut [f64]) {
        if s.state.is_over() {
            let winner = s.state.winner();
            for (p, v) in out.iter_mut().enumerate() {
                *v = f64::from(u8::from(winner == Some(p as u8)));
            }
        } else {
            for (p, v) in out.iter_mut().enumerate() {
                *v = self.inner.value(s, p as u8);
            }
        }
    }
}

/// The `ismcts+neural` player for the batch simulator: remembers what the moves it observes
/// reveal, keeps its policy and the buffers of its forward passes.
#[derive(Clone, Debug)]
pub struct GuidedBot<G: MoveValues> {
    iterations: u32,
    rng: SplitMix64,
    memory: G::Memory,
    policy: Arc<Policy>,
    scratch: Box<Scratch>,
}

impl<G: MoveValues> GuidedBot<G> {
    pub fn new(iterations: u32, policy: Arc<Policy>, seed: u64) -> Self {
        Self {
            iterations,
            rng: SplitMix64::new(seed),
            memory: G::Memory::default(),
            policy,
            scratch: Box::default(),
        }
    }

    /// The bot's move for the player to move in `state` (`buf` receives the legal list), the
    /// search ending early once `stop` is set. A forced move is played without a search (no
    /// seed drawn).
    pub fn choose_until(
        &mut self,
        state: &G,
        buf: &mut Vec<G::Move>,
        stop: &Interrupt,
    ) -> Result<Pick<G::Move>, EngineError> {
        state.legal_moves_into(buf)?;
        match buf.len() {
            0 => return Err(EngineError::GameOver),
            1 => return Ok(Pick::Listed(0)),
            _ => {}
        }
        let config = GuidedConfig::new(self.iterations, self.rng.next());
        let best = GuidedSearch::new(
            state,
            &mut self.memory,
            &self.policy,
            &mut self.scratch,
            config,
        )?
        .best_move_until(stop);
        Ok(Pick::Own(best))
    }

    /// See `mv` about to be applied to `before` (by any seat).
    #[inline]
    pub fn observe(&mut self, before: &G, mv: &G::Move) {
        G::observe(&mut self.memory, before, mv);
    }
}

/// One guided decision for the player to move in `state` with `policy` (checked to fit the
/// game), `iterations` iterations and this `seed`, knowing what `memory` saw; the search ends
/// early once `stop` is set. A forced move is returned without a search.
pub fn guided_move_until<G: MoveValues>(
    state: &G,
    memory: &mut G::Memory,
    policy: &Policy,
    iterations: u32,
    seed: u64,
    stop: &Interrupt,
) -> Result<G::Move, EngineError> {
    Ok(best_of(guided_root_stats_until(
        state, memory, policy, iterations, seed, stop,
    )?))
}

/// The root statistics behind [`guided_move_until`]'s decision, best first (its move is the
/// first one's; a mean counts the policy's virtual visit). A forced move is not searched: its
/// one entry has 0 visits and mean 0.
pub fn guided_root_stats_until<G: MoveValues>(
    state: &G,
    memory: &mut G::Memory,
    policy: &Policy,
    iterations: u32,
    seed: u64,
    stop: &Interrupt,
) -> Result<Vec<RootStat<G::Move>>, EngineError> {
    if let Some(forced) = forced_stats(state)? {
        return Ok(forced);
    }
    let mut scratch = Scratch::default();
    let config = GuidedConfig::new(iterations, seed);
    let mut search = GuidedSearch::new(state, memory, policy, &mut scratch, config)?;
    let player = search.inner.player();
    Ok(guided_stats_until(&mut search, player, &config, stop))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::index_below;

    #[test]
    fn priors_are_a_softmax_at_the_temperature() {
        let mut p = Vec::new();
        priors(&[0.0, 0.1, -0.5], 0.1, &mut p);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // A gap of 0.1 at temperature 0.1 is a ratio of e.
        assert!((p[1] / p[0] - std::f64::consts::E).abs() < 1e-5, "{p:?}");
        assert!(p[2] < 0.01 && p[2] > 0.0);
        priors(&[0.3, 0.3], 0.1, &mut p);
        assert_eq!(p, [0.5, 0.5]);
    }

    #[test]
    fn a_value_is_the_movers_win_probability_the_rest_shared() {
        assert_eq!(win_probability(1.0), 1.0);
        assert_eq!(win_probability(-1.0), 0.0);
        assert_eq!(win_probability(0.0), 0.5);
        assert_eq!(win_probability(3.0), 1.0); // a network's value past the targets
        let mut v = [0.0; 4];
        leaf_values(0.2, 2, &mut v);
        assert!((v[2] - 0.6).abs() < 1e-6);
        for seat in [0, 1, 3] {
            assert!((v[seat] - 0.4 / 3.0).abs() < 1e-6);
        }
        assert!((v.iter().sum::<f64>() - 1.0).abs() < 1e-6);
    }

    /// The toy of `search::tests` with a policy: the root player picks 0..3, a hidden coin
    /// decides. Action 1 is best on average; the "policy" prefers action 0.
    struct Toy {
        evaluations: usize,
    }
    #[derive(Clone)]
    struct ToyState {
        coin: bool,
        pick: Option<u8>,
    }
    impl SearchGame for Toy {
        type State = ToyState;
        type Action = u8;
        fn determinize(&mut self, rng: &mut SplitMix64) -> ToyState {
            ToyState {
                coin: index_below(rng, 2) == 1,
                pick: None,
            }
        }
        fn to_move(&self, s: &ToyState) -> Option<u8> {
            s.pick.is_none().then_some(0)
        }
        fn legal(&self, _s: &ToyState, out: &mut Vec<u8>) {
            out.clear();
            out.extend([0, 1, 2]);
        }
        fn apply(&self, s: &mut ToyState, a: &u8) {
            s.pick = Some(*a);
        }
        fn value(&self, s: &ToyState, _player: u8) -> f64 {
            match (s.pick, s.coin) {
                (Some(0), true) => 1.0,
                (Some(1), _) => 0.7,
                (Some(2), false) => 0.9,
                _ => 0.0,
            }
        }
    }
    impl Guided for Toy {
        fn players(&self) -> usize {
            1
        }
        fn move_values(&mut self, _s: &ToyState, _mover: u8, legal: &[u8], out: &mut Vec<f32>) {
            self.evaluations += 1;
            out.clear();
            out.extend(legal.iter().map(|&a| [0.2, 0.0, -0.2][usize::from(a)]));
        }
    }

    #[test]
    fn one_iteration_plays_the_policys_move_and_more_find_the_best() {
        let mut toy = Toy { evaluations: 0 };
        let one = guided_stats_until(&mut toy, 0, &GuidedConfig::new(1, 3), &NEVER);
        assert_eq!(one[0].action, 0, "{one:?}");
        assert_eq!(toy.evaluations, 1);
        let config = GuidedConfig::new(3000, 3);
        let stats = guided_stats_until(&mut toy, 0, &config, &NEVER);
        assert_eq!(stats[0].action, 1, "{stats:?}");
        // The root's first iteration values it; every later one visits a child.
        assert_eq!(stats.iter().map(|s| s.visits).sum::<u32>(), 2999);
        assert_eq!(guided_stats_until(&mut toy, 0, &config, &NEVER), stats);
        let stop = Interrupt::new();
        stop.stop();
        let stopped = guided_stats_until(&mut toy, 0, &config, &stop);
        assert_eq!(
            stopped[0].action, 0,
            "a stopped search still has the policy's move"
        );
    }

    /// The toy with a fourth action legal only when the coin shows heads: a late child.
    struct LateToy(Toy);
    impl SearchGame for LateToy {
        type State = ToyState;
        type Action = u8;
        fn determinize(&mut self, rng: &mut SplitMix64) -> ToyState {
            self.0.determinize(rng)
        }
        fn to_move(&self, s: &ToyState) -> Option<u8> {
            self.0.to_move(s)
        }
        fn legal(&self, s: &ToyState, out: &mut Vec<u8>) {
            self.0.legal(s, out);
            if s.coin {
                out.push(3);
            }
        }
        fn apply(&self, s: &mut ToyState, a: &u8) {
            self.0.apply(s, a);
        }
        fn value(&self, s: &ToyState, player: u8) -> f64 {
            self.0.value(s, player)
        }
    }
    impl Guided for LateToy {
        fn players(&self) -> usize {
            1
        }
        fn move_values(&mut self, s: &ToyState, mover: u8, legal: &[u8], out: &mut Vec<f32>) {
            self.0.evaluations += 1;
            out.clear();
            out.extend(legal.iter().map(|&a| [0.2, 0.0, -0.2, 0.1][usize::from(a)]));
            let _ = (s, mover);
        }
    }

    #[test]
    fn late_children_take_their_siblings_mean_without_a_forward_pass() {
        let mut late_seen = 0;
        for seed in 0..16 {
            // The first sample's coin: with tails, action 3 comes late.
            let tails_first = index_below(&mut SplitMix64::new(seed), 2) == 0;
            for late in [LateChild::SiblingMean, LateChild::Evaluate] {
                let mut toy = LateToy(Toy { evaluations: 0 });
                let config = GuidedConfig {
                    late,
                    ..GuidedConfig::new(400, seed)
                };
                let stats = guided_stats_until(&mut toy, 0, &config, &NEVER);
                // Every action was met (the coin falls both ways in 400 samples).
                let mut actions: Vec<u8> = stats.iter().map(|s| s.action).collect();
                actions.sort_unstable();
                assert_eq!(actions, [0, 1, 2, 3], "{late:?}");
                // Only the root is ever expanded: once, and once more when the late action
                // first appears if late children are evaluated.
                let late_pass = late == LateChild::Evaluate && tails_first;
                assert_eq!(
                    toy.0.evaluations,
                    1 + usize::from(late_pass),
                    "{late:?} {seed}"
                );
                late_seen += usize::from(late_pass);
            }
        }
        assert!(late_seen > 0, "no seed gave a late child");
    }

    #[test]
    fn the_defaults_mix_a_rollout_into_the_leaf_and_add_late_children_cheaply() {
        let config = GuidedConfig::new(200, 1);
        assert_eq!(config.late, LateChild::SiblingMean);
        assert_eq!(config.rollout_mix, DEFAULT_ROLLOUT_MIX);
        assert_eq!(config.expand_after, 3);
        assert_eq!((config.c_puct, config.temperature), (1.0, 0.1));
    }

    /// Two decisions of one player: a first pick of 0..3, then a second of 0..2; the best line
    /// is (1, 1). The policy is flat, so only the values find it.
    struct TwoStep {
        evaluations: usize,
    }
    impl SearchGame for TwoStep {
        type State = Vec<u8>;
        type Action = u8;
        fn determinize(&mut self, _rng: &mut SplitMix64) -> Vec<u8> {
            Vec::new()
        }
        fn to_move(&self, s: &Vec<u8>) -> Option<u8> {
            (s.len() < 2).then_some(0)
        }
        fn legal(&self, s: &Vec<u8>, out: &mut Vec<u8>) {
            out.clear();
            out.extend(if s.is_empty() { 0..3 } else { 0..2 });
        }
        fn apply(&self, s: &mut Vec<u8>, a: &u8) {
            s.push(*a);
        }
        fn value(&self, s: &Vec<u8>, _player: u8) -> f64 {
            match s.as_slice() {
                [1, 1] => 1.0,
                [1, 0] => 0.2,
                [0, _] => 0.5,
                _ => 0.1,
            }
        }
    }
    impl Guided for TwoStep {
        fn players(&self) -> usize {
            1
        }
        fn move_values(&mut self, _s: &Vec<u8>, _mover: u8, legal: &[u8], out: &mut Vec<f32>) {
            self.evaluations += 1;
            out.clear();
            out.resize(legal.len(), 0.0);
        }
    }

    #[test]
    fn a_node_is_expanded_by_the_policy_only_once_it_was_visited_enough() {
        let mut runs = Vec::new();
        for expand_after in [0, 1, 1000] {
            let mut toy = TwoStep { evaluations: 0 };
            let config = GuidedConfig {
                expand_after,
                ..GuidedConfig::new(500, 4)
            };
            let stats = guided_stats_until(&mut toy, 0, &config, &NEVER);
            assert_eq!(stats[0].action, 1, "{expand_after}: {stats:?}");
            runs.push(toy.evaluations);
        }
        // Every child of the root is expanded at once, after its second visit, or never (the
        // root alone runs the policy).
        assert_eq!(runs, [4, 4, 1]);
    }
}
