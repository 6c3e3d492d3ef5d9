//! The uniform random pick from an action mask: Panda Head's random move without a move list.

use super::action::{ActionId, ActionMask};
use crate::rng::SplitMix64;

/// A uniform element of a non-empty mask, drawn from `rng`.
#[inline]
pub fn pick(rng: &mut SplitMix64, legal: ActionMask) -> ActionId {
    debug_assert!(legal != 0);
    let count = legal.count_ones();
    // Multiply-shift range reduction (Lemire): no division in the hot loop. The bias is below
    // 2^-27 for the at most 24 choices here; bots are not bound by R-3.
    let k = (((rng.next() >> 32) * count as u64) >> 32) as u32;
    select_bit(legal, k)
}

/// Population count of every byte.
const POP8: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u32).count_ones() as u8;
        i += 1;
    }
    t
};

/// `SELECT8[b][k]`: the position of the k-th set bit of byte `b`.
const SELECT8: [[u8; 8]; 256] = {
    let mut t = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        let mut bit = 0;
        while bit < 8 {
            if b & (1 << bit) != 0 {
                t[b][k] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
};

/// The position of the k-th (0-based) set bit of a 24-bit mask, by byte tables and selects
/// instead of a loop: the loop's random trip count cost a branch misprediction per decision.
#[inline]
fn select_bit(mask: ActionMask, k: u32) -> ActionId {
    debug_assert!(mask < 1 << 24 && k < mask.count_ones());
    let [b0, b1, _, _] = mask.to_le_bytes();
    let (c0, c1) = (POP8[b0 as usize] as u32, POP8[b1 as usize] as u32);
    // Arithmetic, not `if`: the byte holding the bit is as random as the choice itself.
    let past0 = (k >= c0) as u32;
    let past1 = (k >= c0 + c1) as u32;
    let shift = 8 * (past0 + past1);
    let byte = (mask >> shift) & 0xff;
    let rank = k - past0 * c0 - past1 * c1;
    shift as ActionId + SELECT8[byte as usize][(rank & 7) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_bit_matches_a_plain_scan() {
        let mut rng = SplitMix64::new(3);
        for _ in 0..20_000 {
            let mask = (rng.next() as u32 & 0xff_ffff) | 1;
            let ids: Vec<u8> = (0..24).filter(|i| mask & (1 << i) != 0).collect();
            for (k, &id) in ids.iter().enumerate() {
                assert_eq!(select_bit(mask, k as u32), id);
            }
        }
    }

    #[test]
    fn pick_is_roughly_uniform() {
        let mut rng = SplitMix64::new(8);
        let mask = 0b1010_0000_0000_0000_0001_0011;
        let mut counts = [0u32; 24];
        for _ in 0..40_000 {
            counts[pick(&mut rng, mask) as usize] += 1;
        }
        for id in [0, 1, 4, 21, 23] {
            assert!((7_000..9_000).contains(&counts[id]), "{counts:?}");
        }
        assert_eq!(counts.iter().sum::<u32>(), 40_000);
    }
}
