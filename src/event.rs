//! Per-move events: what a move *did*, reported by the game that applied it.
//!
//! A game's state machine takes an [`EventSink`] and pushes one event per thing that happened (a
//! play and the value it took, a card drawn, a pile won, a round scored, the game won). The hot
//! paths — batch simulation, search rollouts, the vector env — pass [`NoEvents`], whose `push`
//! is an empty inline function and whose [`EventSink::ENABLED`] is `false`, so the compiler
//! removes event construction entirely; a recorded game passes a `Vec`.
//!
//! Events carry hidden information (the card a player drew). [`SeatFilter::seen_by`] gives the
//! version of an event a seat may see: the same event, a redacted one (a draw without the card),
//! or nothing. Every game's events implement it, and the view of a seat is built only from
//! filtered events.

/// Where a state machine reports its events.
pub trait EventSink<E> {
    /// Whether events are kept. Code that must compute something only to report it (a diff, a
    /// list of cards) checks this first.
    const ENABLED: bool;
    fn push(&mut self, event: E);
}

/// Discards every event, at no cost: the sink of every hot path.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoEvents;

impl<E> EventSink<E> for NoEvents {
    const ENABLED: bool = false;
    #[inline(always)]
    fn push(&mut self, _event: E) {}
}

impl<E> EventSink<E> for Vec<E> {
    const ENABLED: bool = true;
    #[inline]
    fn push(&mut self, event: E) {
        Vec::push(self, event);
    }
}

/// The part of an event a seat may see.
pub trait SeatFilter: Sized {
    /// This event as `seat` sees it: `Some(self.clone())` for a public event, a redacted copy
    /// when part of it is hidden from `seat`, `None` when `seat` does not learn of it at all.
    fn seen_by(&self, seat: u8) -> Option<Self>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report<S: EventSink<u32>>(sink: &mut S, n: u32) {
        for i in 0..n {
            sink.push(i);
        }
    }

    #[test]
    fn vec_keeps_and_no_events_discards() {
        let mut kept = Vec::new();
        report(&mut kept, 3);
        assert_eq!(kept, [0, 1, 2]);
        const { assert!(<Vec<u32> as EventSink<u32>>::ENABLED) };
        const { assert!(!<NoEvents as EventSink<u32>>::ENABLED) };
        report(&mut NoEvents, 3);
    }
}
