//! The one inner loop of every layer: `out += x[j] * row_j` over the inputs `j` that are not
//! zero, the rows being the columns of the layer's weight matrix (stored transposed, one
//! contiguous row per input).
//!
//! Why this form rather than a dot product per output: it has no reduction, so the compiler
//! vectorises it without reassociating sums (every build and CPU adds in the same order and
//! gets the same bits), and it skips zero inputs, which are most of them: an observation is ~7%
//! non-zero, a move's features ~3%, and ReLU zeroes about half of every hidden layer.
//!
//! The wheel targets baseline x86-64 (SSE2); on a CPU with AVX2 the same loop runs from a copy
//! compiled for it, chosen at run time (about 3× faster on 256-wide layers).

/// `out[o] += Σ_j x[j] · rows[j · out.len() + o]`, skipping `x[j] == 0`. `rows` holds
/// `x.len()` rows of `out.len()` weights.
#[inline]
pub fn accumulate(out: &mut [f32], x: &[f32], rows: &[f32]) {
    debug_assert_eq!(rows.len(), x.len() * out.len());
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, the only feature the copy is compiled for.
            unsafe { accumulate_avx2(out, x, rows) };
            return;
        }
    }
    accumulate_portable(out, x, rows);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn accumulate_avx2(out: &mut [f32], x: &[f32], rows: &[f32]) {
    accumulate_portable(out, x, rows);
}

#[inline(always)]
fn accumulate_portable(out: &mut [f32], x: &[f32], rows: &[f32]) {
    let width = out.len();
    if width == 0 {
        return;
    }
    for (&xj, row) in x.iter().zip(rows.chunks_exact(width)) {
        if xj != 0.0 {
            for (o, &w) in out.iter_mut().zip(row) {
                *o += xj * w;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_plain_sum() {
        let (n_in, n_out) = (37, 19);
        let x: Vec<f32> = (0..n_in)
            .map(|j| {
                if j % 3 == 0 {
                    0.0
                } else {
                    j as f32 * 0.25 - 4.0
                }
            })
            .collect();
        let rows: Vec<f32> = (0..n_in * n_out)
            .map(|k| ((k * 7919) % 101) as f32 / 50.0 - 1.0)
            .collect();
        let mut out = vec![0.5f32; n_out];
        accumulate(&mut out, &x, &rows);
        for (o, &got) in out.iter().enumerate() {
            let want: f32 = 0.5 + (0..n_in).map(|j| x[j] * rows[j * n_out + o]).sum::<f32>();
            assert!((got - want).abs() < 1e-4, "{o}: {got} vs {want}");
        }
        let mut portable = vec![0.5f32; n_out];
        accumulate_portable(&mut portable, &x, &rows);
        assert_eq!(out, portable, "the AVX2 copy adds in the same order");
    }
}
