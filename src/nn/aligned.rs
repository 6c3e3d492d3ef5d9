//! Floats whose first element sits on a 32-byte boundary: a layer's weights, so the AVX2
//! kernel reads every row of a layer whose width is a multiple of 8 with aligned 256-bit loads.
//!
//! Why it matters: compiled for a generic x86-64 CPU with AVX2 enabled at run time, LLVM splits
//! every unaligned 256-bit load into two 128-bit halves and a shuffle (its tuning assumes such
//! loads are slow), which doubled the load work of the kernel's inner loop; an aligned load is
//! one instruction.

/// Eight floats, aligned as one AVX register.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(32))]
struct Block([f32; 8]);

/// A fixed-length run of floats starting on a 32-byte boundary (the unused tail of its last
/// block is zero and never shown).
#[derive(Clone, Debug)]
pub struct AlignedFloats {
    blocks: Vec<Block>,
    len: usize,
}

impl AlignedFloats {
    /// `len` zeros.
    pub fn zeroed(len: usize) -> Self {
        Self {
            blocks: vec![Block::default(); len.div_ceil(8)],
            len,
        }
    }

    pub fn as_slice(&self) -> &[f32] {
        // SAFETY: `Block` is `repr(C)` over `[f32; 8]` with no padding (32 bytes, aligned to
        // 32), so the blocks are `8 * blocks.len() >= len` contiguous, initialised floats.
        unsafe { std::slice::from_raw_parts(self.blocks.as_ptr().cast::<f32>(), self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [f32] {
        // SAFETY: as in `as_slice`, borrowed mutably through `self`.
        unsafe { std::slice::from_raw_parts_mut(self.blocks.as_mut_ptr().cast::<f32>(), self.len) }
    }
}

impl PartialEq for AlignedFloats {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_aligned_and_holds_its_length() {
        for len in [0, 1, 7, 8, 9, 1278 * 256] {
            let mut v = AlignedFloats::zeroed(len);
            assert_eq!(v.as_slice().len(), len);
            assert_eq!(v.as_slice().as_ptr() as usize % 32, 0);
            assert!(v.as_slice().iter().all(|&x| x == 0.0));
            if len > 0 {
                v.as_mut_slice()[len - 1] = 2.5;
                assert_eq!(v.as_slice()[len - 1], 2.5);
                assert_ne!(v, AlignedFloats::zeroed(len));
            }
        }
    }
}
