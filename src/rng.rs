//! Seeded randomness shared by every game (Part R, docs/rules/README.md).
//!
//! The generator and the shuffle are normative: the same seed must deal the same cards on every
//! platform and in the pure-Python oracle, so nothing here may be "improved" (no rejection
//! sampling, no other generator).

/// The SplitMix64 increment.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64 on a 64-bit state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    /// The generator state; the next output is `mix(state + GAMMA)`.
    pub state: u64,
}

/// The SplitMix64 output function applied to an already incremented state.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl SplitMix64 {
    /// A generator started at `seed`.
    #[inline]
    pub const fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64-bit output.
    #[inline]
    #[allow(clippy::should_implement_trait)] // not an Iterator: it never ends and is Copy
    pub fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        mix64(self.state)
    }

    /// The `k`-th output (0-based) of a fresh generator at `seed`, in O(1).
    ///
    /// Batch simulation uses this to give game `k` of a batch its own seed without playing
    /// through the outputs before it, so results do not depend on how games are split over threads.
    #[inline]
    pub fn nth_output(seed: u64, k: u64) -> u64 {
        mix64(seed.wrapping_add(GAMMA.wrapping_mul(k.wrapping_add(1))))
    }

    /// A uniform-ish integer in `0..bound` by `next() % bound`, exactly as R-3 draws it.
    #[inline]
    pub fn below(&mut self, bound: u64) -> u64 {
        debug_assert!(bound > 0);
        self.next() % bound
    }
}

/// A uniform index below `len` (> 0) by multiply-shift (Lemire): no division in hot loops. The
/// bias is below 2^-27 for the short lists bots, search and determinization draw from; they are
/// not bound by R-3 (this is no deal), so it is not [`SplitMix64::below`].
#[inline]
pub fn index_below(rng: &mut SplitMix64, len: usize) -> usize {
    debug_assert!(len > 0);
    (((rng.next() >> 32) * len as u64) >> 32) as usize
}

/// Shuffle `items` in place: for `i` from `len - 1` down to 1, `j = next() % (i + 1)`,
/// swap `i` and `j`.
///
/// (A multiply-only remainder, Lemire's fastmod, was measured slower than the hardware division
/// on the AMD EPYC machines this project runs on, so the plain `%` stays.)
#[inline]
pub fn shuffle<T>(items: &mut [T], rng: &mut SplitMix64) {
    for i in (1..items.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r1_test_vectors() {
        let mut g = SplitMix64::new(0);
        assert_eq!(
            [g.next(), g.next(), g.next()],
            [
                16294208416658607535,
                7960286522194355700,
                487617019471545679
            ]
        );
        let mut g = SplitMix64::new(42);
        assert_eq!(
            [g.next(), g.next(), g.next()],
            [
                13679457532755275413,
                2949826092126892291,
                5139283748462763858
            ]
        );
    }

    #[test]
    fn r3_shuffle_vector() {
        let mut items: Vec<u8> = (0..10).collect();
        shuffle(&mut items, &mut SplitMix64::new(7));
        assert_eq!(items, [8, 1, 5, 9, 0, 4, 3, 2, 6, 7]);
    }

    #[test]
    fn shuffle_matches_the_r3_loop_on_a_long_list() {
        let mut items: Vec<u16> = (0..300).collect();
        let mut g = SplitMix64::new(3);
        shuffle(&mut items, &mut g);
        let mut reference: Vec<u16> = (0..300).collect();
        let mut h = SplitMix64::new(3);
        for i in (1..reference.len()).rev() {
            let j = (h.next() % (i as u64 + 1)) as usize;
            reference.swap(i, j);
        }
        assert_eq!(items, reference);
    }

    #[test]
    fn nth_output_matches_sequence() {
        let mut g = SplitMix64::new(99);
        for k in 0..10 {
            assert_eq!(SplitMix64::nth_output(99, k), g.next());
        }
    }
}
