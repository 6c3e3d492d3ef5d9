//! Packed per-rank unit counts: one 8-bit lane per rank in a `u128`, so adding two faces (or a
//! whole play) adds their counts rank by rank in one integer addition.

/// Lane width: 8 bits per rank (a face or a play never holds 256 units of one rank).
pub const LANE_BITS: u32 = 8;

/// Lane `r` of a packed per-rank count.
#[inline(always)]
pub fn lane(counts: u128, r: u8) -> u32 {
    ((counts >> (LANE_BITS * r as u32)) & 0xFF) as u32
}

/// The packed count with one unit of rank `r`.
#[inline(always)]
pub fn lane_one(r: u8) -> u128 {
    1u128 << (LANE_BITS * r as u32)
}
