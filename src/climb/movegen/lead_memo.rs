//! The leading combinations of recent hands, remembered so that a later lead from a smaller hand
//! filters them instead of searching again.
//!
//! Whether a set of cards is a combination, and how its wild units may be named, depends only on
//! those cards' faces (S-4). So the combinations a hand may lead with are exactly those of any
//! larger hand (same deck, same faces for the cards kept) that use only the kept cards, in the
//! same canonical order. A seat's hand only shrinks between its leads in a round (unless a steal
//! or a flip changes it), and a lead costs about eight times a follow, three quarters of it in the
//! run and formation searches: filtering the remembered list of the seat's last lead is several
//! times cheaper.
//!
//! The memo is per thread and invisible: the same moves, in the same order, as generating them.
//! It remembers only fast-path generations (see [`super::rank_groups`]) that succeeded, with at
//! most [`MAX_REMEMBERED`] combinations. A subset of such a hand takes the fast path too and
//! needs fewer search nodes, so it never meets the bound a fresh generation would meet.

use std::cell::RefCell;
use std::sync::Arc;

use crate::climb::cards::CardSet;
use crate::climb::deck::Deck;
use crate::climb::moves::Move;

/// Hands remembered per thread: a table's seats (at most five) and a few more for searches that
/// play several tables' positions in turn.
const SLOTS: usize = 8;
/// Longer lists are not remembered (the memo stays below about half a megabyte per thread);
/// leads of the shipped deck have a few hundred combinations at most.
pub(super) const MAX_REMEMBERED: usize = 1024;

/// One remembered hand and its leading combinations.
struct Slot {
    deck: Arc<Deck>,
    hand: CardSet,
    /// The blue cards of `hand` (the faces the combinations were found with).
    blue: CardSet,
    moves: Vec<Move>,
    /// When it was last used (the least recent slot is replaced).
    used: u64,
}

#[derive(Default)]
struct Memo {
    slots: Vec<Slot>,
    clock: u64,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// Append to `out` the leading combinations of `hand` (animal cards only) if a remembered hand
/// holds it with the same faces; true then. The remembered hand becomes `hand`, so the next
/// lead filters a shorter list.
pub(super) fn recall(deck: &Arc<Deck>, hand: CardSet, blue: CardSet, out: &mut Vec<Move>) -> bool {
    MEMO.with(|cell| {
        let memo = &mut *cell.borrow_mut();
        memo.clock += 1;
        let clock = memo.clock;
        let Some(slot) = memo.slots.iter_mut().find(|s| {
            hand & !s.hand == 0 && (blue & hand) == (s.blue & hand) && Arc::ptr_eq(&s.deck, deck)
        }) else {
            return false;
        };
        if slot.hand != hand {
            slot.moves.retain(|m| m.cards & !hand == 0);
            slot.hand = hand;
            slot.blue = blue & hand;
        }
        slot.used = clock;
        out.extend_from_slice(&slot.moves);
        true
    })
}

/// Remember `moves`, the leading combinations of `hand` found by the fast path.
pub(super) fn remember(deck: &Arc<Deck>, hand: CardSet, blue: CardSet, moves: &[Move]) {
    if moves.len() > MAX_REMEMBERED {
        return;
    }
    MEMO.with(|cell| {
        let memo = &mut *cell.borrow_mut();
        memo.clock += 1;
        let used = memo.clock;
        if memo.slots.len() < SLOTS {
            memo.slots.push(Slot {
                deck: Arc::clone(deck),
                hand,
                blue: blue & hand,
                moves: moves.to_vec(),
                used,
            });
            return;
        }
        let Some(slot) = memo.slots.iter_mut().min_by_key(|s| s.used) else {
            return;
        };
        if !Arc::ptr_eq(&slot.deck, deck) {
            slot.deck = Arc::clone(deck);
        }
        slot.hand = hand;
        slot.blue = blue & hand;
        slot.moves.clear();
        slot.moves.extend_from_slice(moves);
        slot.used = used;
    })
}

/// Forget every remembered hand of this thread (tests compare the memo with fresh generation).
#[cfg(test)]
pub(super) fn forget() {
    MEMO.with(|cell| *cell.borrow_mut() = Memo::default());
}

/// How many hands this thread remembers.
#[cfg(test)]
pub(super) fn remembered() -> usize {
    MEMO.with(|cell| cell.borrow().slots.len())
}
