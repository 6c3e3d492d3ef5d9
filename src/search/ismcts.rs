//! Single-observer information-set Monte Carlo tree search (SO-ISMCTS; Cowling, Powley and
//! Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 2012).
//!
//! Plain MCTS needs the full state; in a card game the searching player does not know it. SO-ISMCTS
//! keeps one tree over the searching player's information sets, keyed by action sequences, and
//! samples a fresh *determinization* (a full state consistent with what the player has seen) for
//! every iteration:
//!
//! 1. determinize the root for the searching player;
//! 2. descend while every action legal in this determinization already has a child, choosing by
//!    UCB1 among the children *available* in it; a child's exploration term counts the
//!    iterations in which it was available, not the parent's visits (the "availability count"
//!    that makes UCB fair when actions come and go between determinizations);
//! 3. expand one untried action (uniformly at random);
//! 4. play the rest out with a cheap rollout policy up to the game's horizon;
//! 5. back the result up: each node is credited with the value, for the player who made the move
//!    into it, of the state the rollout reached.
//!
//! The move returned is the most visited child of the root. Everything is driven by one
//! SplitMix64 stream started at the configured seed, so a search is deterministic.
//!
//! The tree is an arena (`Vec` of nodes, children kept sorted by action), and the legal-action
//! buffers are reused across iterations: an iteration allocates only the node it adds.

use crate::interrupt::{Interrupt, NEVER};
use crate::rng::SplitMix64;

/// What ISMCTS needs from a game. `Self` holds the root information set (how to sample it) and
/// the search settings; states are separate values so that iterations can clone them freely.
pub trait SearchGame {
    /// A full state, plus whatever marks the rollout horizon.
    type State: Clone;
    /// An action. `legal` lists actions in increasing order, the order tree children use.
    type Action: Clone + Ord;

    /// A state of the searching player's root information set (step 1).
    fn determinize(&mut self, rng: &mut SplitMix64) -> Self::State;

    /// The player to move, `None` once the horizon is reached (or the game is over).
    fn to_move(&self, state: &Self::State) -> Option<u8>;

    /// The legal actions in `state`, in increasing order, into `out` (cleared first; left empty
    /// when they cannot be listed, which ends the descent there).
    fn legal(&self, state: &Self::State, out: &mut Vec<Self::Action>);

    /// Apply a legal action.
    fn apply(&self, state: &mut Self::State, action: &Self::Action);

    /// Play from `state` to the horizon with the rollout policy (step 4). `buf` is scratch.
    fn rollout(&self, state: &mut Self::State, rng: &mut SplitMix64, buf: &mut Vec<Self::Action>) {
        while self.to_move(state).is_some() {
            self.legal(state, buf);
            if buf.is_empty() {
                break;
            }
            let i = index_below(rng, buf.len());
            let a = buf[i].clone();
            self.apply(state, &a);
        }
    }

    /// The value in `[0, 1]` for `player` of a state the rollout reached (higher is better).
    fn value(&self, state: &Self::State, player: u8) -> f64;
}

/// Search parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IsmctsConfig {
    /// Iterations (determinizations) per decision.
    pub iterations: u32,
    /// The UCB1 exploration constant `c` in `mean + c * sqrt(ln(available) / visits)`.
    pub exploration: f64,
    pub seed: u64,
}

/// Default iterations per decision (see `search::mod` for the measurement behind it).
pub const DEFAULT_ITERATIONS: u32 = 200;
/// Default exploration constant; rewards are in `[0, 1]`.
pub const DEFAULT_EXPLORATION: f64 = 0.7;

impl Default for IsmctsConfig {
    fn default() -> Self {
        Self {
            iterations: DEFAULT_ITERATIONS,
            exploration: DEFAULT_EXPLORATION,
            seed: 0,
        }
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
}

/// A root action with its statistics after a search.
#[derive(Clone, Debug, PartialEq)]
pub struct RootStat<A> {
    pub action: A,
    pub visits: u32,
    pub mean: f64,
}

/// Run ISMCTS for `player` (who must be to move at the root) and return the root statistics,
/// best (most visited; ties to the higher mean, then the lower action) first.
pub fn search_stats<G: SearchGame>(
    game: &mut G,
    player: u8,
    config: &IsmctsConfig,
) -> Vec<RootStat<G::Action>> {
    search_stats_until(game, player, config, &NEVER)
}

/// [`search_stats`] that ends early once `stop` is set (polled before every iteration after the
/// first, so the root always has a child and the best action is a legal one). A stopped search
/// is still deterministic in what it returns for the iterations it ran, but its caller is being
/// cancelled and should not use it as a full-strength decision.
pub fn search_stats_until<G: SearchGame>(
    game: &mut G,
    player: u8,
    config: &IsmctsConfig,
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
    }];
    let mut legal: Vec<G::Action> = Vec::with_capacity(64);
    let mut scratch: Vec<G::Action> = Vec::with_capacity(64);
    let mut path: Vec<u32> = Vec::with_capacity(64);
    let mut untried: Vec<usize> = Vec::with_capacity(64);
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
        while let Some(mover) = game.to_move(&state) {
            game.legal(&state, &mut legal);
            if legal.is_empty() {
                // A position whose moves could not be listed (over the game's cap): the descent
                // ends here and the position is valued as it stands.
                break;
            }
            debug_assert!(legal.windows(2).all(|w| w[0] < w[1]), "legal not sorted");
            // One merge pass over the sorted legal actions and sorted children: the available
            // children and the untried actions.
            untried.clear();
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
                        untried.push(i);
                    }
                }
            }
            for &ch in &available {
                nodes[ch as usize].available += 1;
            }
            if !untried.is_empty() {
                // Expansion: one untried action, uniformly.
                let i = untried[index_below(&mut rng, untried.len())];
                let action = legal[i].clone();
                let child = nodes.len() as u32;
                nodes.push(Node {
                    action: Some(action.clone()),
                    mover,
                    children: Vec::new(),
                    visits: 0,
                    available: 1,
                    reward: 0.0,
                });
                let at = nodes[node as usize].children.partition_point(|&x| {
                    nodes[x as usize].action.as_ref().expect("child") < &action
                });
                nodes[node as usize].children.insert(at, child);
                game.apply(&mut state, &action);
                path.push(child);
                break;
            }
            // Selection: UCB1 with availability counts.
            let mut best = available[0];
            let mut best_score = f64::NEG_INFINITY;
            for &ch in &available {
                let n = &nodes[ch as usize];
                let score = if n.visits == 0 {
                    f64::INFINITY
                } else {
                    n.reward / n.visits as f64
                        + config.exploration * ((n.available as f64).ln() / n.visits as f64).sqrt()
                };
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
        game.rollout(&mut state, &mut rng, &mut scratch);
        for &n in &path {
            let nd = &mut nodes[n as usize];
            nd.visits += 1;
            if n != 0 {
                nd.reward += game.value(&state, nd.mover);
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
                mean: if n.visits == 0 {
                    0.0
                } else {
                    n.reward / n.visits as f64
                },
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

/// Run ISMCTS for `player` and return the most visited root action.
pub fn search<G: SearchGame>(game: &mut G, player: u8, config: &IsmctsConfig) -> G::Action {
    search_until(game, player, config, &NEVER)
}

/// [`search`] that ends early once `stop` is set ([`search_stats_until`]).
pub fn search_until<G: SearchGame>(
    game: &mut G,
    player: u8,
    config: &IsmctsConfig,
    stop: &Interrupt,
) -> G::Action {
    search_stats_until(game, player, config, stop)
        .into_iter()
        .next()
        .expect("the root has a legal action")
        .action
}

pub(crate) use crate::rng::index_below;
