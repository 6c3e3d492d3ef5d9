//! The bounds on one move generation: how many moves a position may have and how much search
//! finding them may take.

/// Most legal moves one position may have (contract §5.3). Generation stops as soon as a
/// position exceeds it, without building the rest. The largest count measured in 13 million
/// positions of random games of the shipped deck (every preset and mood, 2–5 players) is 1,694,
/// so ordinary play stays more than 150 times below it; only hand-built positions (a very large
/// hand) or unusual deck files can reach it.
pub const MAX_LEGAL_MOVES: usize = 1 << 18;

/// Search nodes one generation may visit before it gives up (a bound on time as
/// [`MAX_LEGAL_MOVES`] is on memory): 16 nodes per allowed move, a few tens of milliseconds.
pub const MAX_SEARCH_NODES: usize = 16 * MAX_LEGAL_MOVES;

/// Generation stopped: the position has more than the allowed number of moves (or needs more
/// search than [`MAX_SEARCH_NODES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooMany;
