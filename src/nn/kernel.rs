//! The one inner loop of every layer: `out += x[j] * row_j` over the inputs `j` that are not
//! zero, the rows being the columns of the layer's weight matrix (stored transposed, one
//! contiguous row per input).
//!
//! Why this form rather than a dot product per output: it has no reduction, so the compiler
//! vectorises it without reassociating sums (every build and CPU adds in the same order and
//! gets the same bits), and it skips zero inputs, which are most of them: an observation is ~7%
//! non-zero, a move's features ~3%, and ReLU zeroes about half of every hidden layer.
//!
//! The wheel targets baseline x86-64 (SSE2); on a CPU with AVX2 a register-tiled copy runs,
//! chosen at run time ([`avx2`]). It computes every output with the same multiplications and
//! additions in the same order as the portable loop (a multiply, then an add: never a fused
//! multiply-add, which rounds once and would change the bits), so both give the same bits.

/// `out[o] += Σ_j x[j] · rows[j · out.len() + o]`, skipping `x[j] == 0`. `rows` holds
/// `x.len()` rows of `out.len()` weights.
#[inline]
pub fn accumulate(out: &mut [f32], x: &[f32], rows: &[f32]) {
    accumulate_inputs::<false>(out, x, rows);
}

/// [`accumulate`] of `relu(x)` (`max(x, 0)`, a NaN counting as 0), without writing it: the
/// inputs that are not above zero are the ones skipped. A hidden layer reads its inputs this
/// way, so no pass rectifies them first.
#[inline]
pub fn accumulate_relu(out: &mut [f32], x: &[f32], rows: &[f32]) {
    accumulate_inputs::<true>(out, x, rows);
}

/// Whether input `v` contributes: not zero, or above zero for rectified inputs (a NaN: kept
/// as given, dropped when rectified, as `f32::max(NaN, 0.0)` is 0).
#[inline(always)]
fn kept<const RELU: bool>(v: f32) -> bool {
    if RELU {
        v > 0.0
    } else {
        v != 0.0
    }
}

#[inline]
fn accumulate_inputs<const RELU: bool>(out: &mut [f32], x: &[f32], rows: &[f32]) {
    assert_eq!(
        rows.len(),
        x.len() * out.len(),
        "a row of weights per input"
    );
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("popcnt")
        {
            // SAFETY: the CPU has AVX2 and POPCNT (every AVX2 CPU does), the features the copy
            // is compiled for; the sizes are checked above.
            unsafe { avx2::accumulate::<RELU>(out, x, rows) };
            return;
        }
    }
    accumulate_portable::<RELU>(out, x, rows);
}

#[inline(always)]
fn accumulate_portable<const RELU: bool>(out: &mut [f32], x: &[f32], rows: &[f32]) {
    let width = out.len();
    if width == 0 {
        return;
    }
    for (&xj, row) in x.iter().zip(rows.chunks_exact(width)) {
        if kept::<RELU>(xj) {
            for (o, &w) in out.iter_mut().zip(row) {
                *o += xj * w;
            }
        }
    }
}

/// The AVX2 copy. Why it is faster than the same loop compiled for AVX2: that loop loads,
/// updates and stores every output once per non-zero input, so on a 128-wide layer it is
/// bound by stores (16 per input) and by a hard-to-predict branch per input (ReLU zeroes about
/// half of them, in no pattern). Here the non-zero inputs are listed first without a branch,
/// then each tile of outputs (up to 64 floats, eight registers) stays in registers while the
/// list is walked: one load of weights per 8 products, no stores until the tile is done.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;
    use std::mem::MaybeUninit;

    /// Inputs listed per pass (the list lives on the stack).
    pub(super) const CHUNK: usize = 512;

    /// [`super::accumulate`] (or, with `RELU`, [`super::accumulate_relu`]) for a CPU with AVX2.
    ///
    /// # Safety
    /// The CPU has AVX2 and POPCNT, and `rows.len() == x.len() * out.len()`.
    #[target_feature(enable = "avx2,popcnt")]
    pub unsafe fn accumulate<const RELU: bool>(out: &mut [f32], x: &[f32], rows: &[f32]) {
        let width = out.len();
        // Every tile's weights start on a 32-byte boundary when the rows do and hold a
        // multiple of 8 floats (tiles start at multiples of 8): the weights of a layer
        // ([`super::super::aligned`]) of such a width, and any slice of whole rows of them.
        let aligned = rows.as_ptr() as usize % 32 == 0 && width % 8 == 0;
        // Not zeroed (that would cost as much as the listing of a sparse layer): only the
        // first `n` entries, written by `list_kept`, are ever read.
        let mut listed = [MaybeUninit::<u32>::uninit(); CHUNK];
        for (c, xs) in x.chunks(CHUNK).enumerate() {
            // The inputs of this chunk that contribute, in order; then every output tile walks
            // them, so each output adds the same products in the same order as the portable
            // loop.
            let n = list_kept::<RELU>(xs, (c * CHUNK) as u32, &mut listed);
            // SAFETY: `list_kept` wrote entries `..n` (n <= CHUNK).
            let nonzero = std::slice::from_raw_parts(listed.as_ptr().cast::<u32>(), n);
            if nonzero.is_empty() {
                continue;
            }
            let mut o = 0;
            if aligned {
                while o + 64 <= width {
                    tile::<8, true>(out, x, rows, o, nonzero);
                    o += 64;
                }
                while o + 8 <= width {
                    tile::<1, true>(out, x, rows, o, nonzero);
                    o += 8;
                }
            } else {
                while o + 64 <= width {
                    tile::<8, false>(out, x, rows, o, nonzero);
                    o += 64;
                }
                while o + 8 <= width {
                    tile::<1, false>(out, x, rows, o, nonzero);
                    o += 8;
                }
            }
            for (k, slot) in out.iter_mut().enumerate().skip(o) {
                for &j in nonzero {
                    let j = j as usize;
                    *slot += x[j] * rows[j * width + k];
                }
            }
        }
    }

    /// For each 8-bit mask, the positions of its set bits in increasing order, one per byte
    /// from the lowest (the rest zero): how a block's kept lanes are packed to the front.
    static LEFT_PACK: [u64; 256] = {
        let mut table = [0u64; 256];
        let mut mask = 0;
        while mask < 256 {
            let (mut packed, mut at, mut bit) = (0u64, 0, 0);
            while bit < 8 {
                if mask >> bit & 1 == 1 {
                    packed |= (bit as u64) << (8 * at);
                    at += 1;
                }
                bit += 1;
            }
            table[mask] = packed;
            mask += 1;
        }
        table
    };

    /// Write the indices (`base + j`) of the entries of `xs` that contribute
    /// ([`super::kept`]: not zero, or above zero when rectified) into `listed`, in order, and
    /// return how many there are. Eight entries are tested at once: a block of zeros (most
    /// blocks of an observation or a move's features) costs one comparison; a block with a
    /// kept entry writes its kept indices with one store, without a branch per entry. The
    /// comparisons are the portable loop's: -0.0
    /// is zero, a NaN is unordered (kept by `!= 0`, dropped by `> 0`).
    ///
    /// # Safety
    /// AVX2 and POPCNT; `xs.len() <= listed.len()`.
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    pub(super) unsafe fn list_kept<const RELU: bool>(
        xs: &[f32],
        base: u32,
        listed: &mut [MaybeUninit<u32>; CHUNK],
    ) -> usize {
        debug_assert!(xs.len() <= CHUNK);
        let mut n = 0;
        let blocks = xs.chunks_exact(8);
        let rest = blocks.remainder();
        for (b, block) in blocks.enumerate() {
            let v = _mm256_loadu_ps(block.as_ptr());
            let kept = if RELU {
                _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(v, _mm256_setzero_ps())) as u32
            } else {
                _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_NEQ_UQ>(v, _mm256_setzero_ps())) as u32
            };
            if kept == 0 {
                continue;
            }
            // The kept lanes' offsets, packed to the front (LEFT_PACK), plus the block's first
            // index, stored as eight indices at once; the count moves on by the kept ones.
            // SAFETY: n <= 8 * b, so the eight slots end by 8 * b + 8 <= xs.len() <= CHUNK.
            let offsets = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(LEFT_PACK[kept as usize] as i64));
            let at = _mm256_set1_epi32((base + 8 * b as u32) as i32);
            let slot = listed.as_mut_ptr().add(n).cast::<__m256i>();
            _mm256_storeu_si256(slot, _mm256_add_epi32(offsets, at));
            n += kept.count_ones() as usize;
        }
        let at = base + (xs.len() - rest.len()) as u32;
        for (k, &v) in rest.iter().enumerate() {
            listed.get_unchecked_mut(n).write(at + k as u32);
            n += usize::from(super::kept::<RELU>(v));
        }
        n
    }

    /// Outputs `o..o + 8 * K` plus the products of the listed inputs, in list order.
    /// `ALIGNED`: every row's weights from `o` on start on a 32-byte boundary (read with
    /// aligned loads, one instruction each where an unaligned one is two and a shuffle).
    ///
    /// # Safety
    /// AVX2 and POPCNT; `o + 8 * K <= out.len()`; every listed index is below `x.len()`, and
    /// `rows.len() == x.len() * out.len()`; with `ALIGNED`, the alignment above.
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    unsafe fn tile<const K: usize, const ALIGNED: bool>(
        out: &mut [f32],
        x: &[f32],
        rows: &[f32],
        o: usize,
        listed: &[u32],
    ) {
        let width = out.len();
        debug_assert!(o + 8 * K <= width);
        let at = out.as_mut_ptr().add(o);
        let mut acc = [_mm256_setzero_ps(); K];
        for (k, a) in acc.iter_mut().enumerate() {
            *a = _mm256_loadu_ps(at.add(8 * k));
        }
        for &j in listed {
            let j = j as usize;
            debug_assert!(j < x.len());
            let xj = _mm256_set1_ps(*x.get_unchecked(j));
            let row = rows.as_ptr().add(j * width + o);
            for (k, a) in acc.iter_mut().enumerate() {
                let w = if ALIGNED {
                    _mm256_load_ps(row.add(8 * k))
                } else {
                    _mm256_loadu_ps(row.add(8 * k))
                };
                *a = _mm256_add_ps(*a, _mm256_mul_ps(xj, w));
            }
        }
        for (k, a) in acc.iter().enumerate() {
            _mm256_storeu_ps(at.add(8 * k), *a);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::aligned::AlignedFloats;

    /// Inputs with zeros (both signs) among them, and weights of mixed sign and size.
    fn case(n_in: usize, n_out: usize, salt: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
        let x: Vec<f32> = (0..n_in)
            .map(|j| match (j * 31 + salt) % 7 {
                0 | 3 => 0.0,
                5 => -0.0,
                _ => ((j * 7919 + salt) % 97) as f32 / 13.0 - 3.5,
            })
            .collect();
        let rows: Vec<f32> = (0..n_in * n_out)
            .map(|k| ((k * 7919 + salt * 13) % 1013) as f32 / 500.0 - 1.01)
            .collect();
        let out: Vec<f32> = (0..n_out).map(|o| o as f32 * 0.125 - 1.0).collect();
        (x, rows, out)
    }

    #[test]
    fn matches_the_plain_sum() {
        let (x, rows, start) = case(37, 19, 0);
        let mut out = start.clone();
        accumulate(&mut out, &x, &rows);
        for (o, &got) in out.iter().enumerate() {
            let want: f32 = start[o] + (0..37).map(|j| x[j] * rows[j * 19 + o]).sum::<f32>();
            assert!((got - want).abs() < 1e-4, "{o}: {got} vs {want}");
        }
    }

    #[test]
    fn every_copy_gives_the_same_bits() {
        // Widths below, at and across the tile sizes (8 and 64 floats), inputs across the
        // listing chunk (512), as the shipped layers have (1, 24, 128, 256 outputs; 96, 128,
        // 256, 1278 inputs).
        for (n_in, n_out) in [
            (5, 1),
            (128, 1),
            (96, 24),
            (256, 128),
            (1278, 256),
            (700, 71),
            (513, 8),
            (3, 200),
            (0, 64),
            (40, 0),
        ] {
            let (x, rows, start) = case(n_in, n_out, n_in + n_out);
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            let mut portable = start.clone();
            accumulate_portable::<false>(&mut portable, &x, &rows);
            let rectified: Vec<f32> = x.iter().map(|v| v.max(0.0)).collect();
            let mut portable_relu = start.clone();
            accumulate_portable::<false>(&mut portable_relu, &rectified, &rows);
            // The weights on a 32-byte boundary (a layer's), one float past it, and as given.
            let mut aligned = AlignedFloats::zeroed(rows.len());
            aligned.as_mut_slice().copy_from_slice(&rows);
            let mut shifted = AlignedFloats::zeroed(rows.len() + 1);
            shifted.as_mut_slice()[1..].copy_from_slice(&rows);
            for stored in [aligned.as_slice(), &shifted.as_slice()[1..], &rows] {
                let mut fast = start.clone();
                accumulate(&mut fast, &x, stored);
                assert_eq!(bits(&fast), bits(&portable), "{n_in}×{n_out}");
                // Rectified inputs: the same bits as rectifying first.
                let mut fast = start.clone();
                accumulate_relu(&mut fast, &x, stored);
                assert_eq!(bits(&fast), bits(&portable_relu), "relu {n_in}×{n_out}");
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_list_holds_every_kept_index_for_every_block_mask() {
        use std::mem::MaybeUninit;
        if !(std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("popcnt"))
        {
            return; // the portable loop is the only copy on this CPU
        }
        // Block k of the input has the zero pattern of mask k (bit set: a value, of either
        // sign, so the rectified list keeps about half); 3 more entries past the last block.
        let mut xs = Vec::new();
        for mask in 0..256usize {
            for bit in 0..8 {
                let v = if bit % 3 == 0 { -1.5 } else { 0.25 };
                xs.push(if mask >> bit & 1 == 1 { v } else { 0.0 });
            }
        }
        xs.extend([0.0, 2.0, -0.0]);
        for chunk in xs.chunks(avx2::CHUNK) {
            for relu in [false, true] {
                let want: Vec<u32> = (0..chunk.len() as u32)
                    .filter(|&j| {
                        if relu {
                            chunk[j as usize] > 0.0
                        } else {
                            chunk[j as usize] != 0.0
                        }
                    })
                    .map(|j| 1000 + j)
                    .collect();
                let mut listed = [MaybeUninit::<u32>::uninit(); avx2::CHUNK];
                // SAFETY: the CPU has both features; the chunk fits the list.
                let got = unsafe {
                    let n = if relu {
                        avx2::list_kept::<true>(chunk, 1000, &mut listed)
                    } else {
                        avx2::list_kept::<false>(chunk, 1000, &mut listed)
                    };
                    std::slice::from_raw_parts(listed.as_ptr().cast::<u32>(), n).to_vec()
                };
                assert_eq!(got, want, "relu {relu}");
            }
        }
    }

    #[test]
    fn a_nan_input_is_kept_unless_rectified() {
        let x = [0.0, f32::NAN, 1.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.5];
        let rows = vec![1.0f32; x.len() * 16];
        let mut out = vec![0.0f32; 16];
        accumulate(&mut out, &x, &rows);
        assert!(out.iter().all(|v| v.is_nan()));
        let mut out = vec![0.0f32; 16];
        accumulate_relu(&mut out, &x, &rows);
        assert!(out.iter().all(|&v| v == 1.5), "{out:?}");
    }

    #[test]
    fn all_zero_inputs_change_nothing() {
        let (_, rows, start) = case(600, 130, 1);
        let mut out = start.clone();
        accumulate(&mut out, &vec![0.0; 600], &rows);
        assert_eq!(out, start);
    }
}
