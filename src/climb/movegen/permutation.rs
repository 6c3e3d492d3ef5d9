//! Distinct permutations in lexicographic order: the orders in which the wild units of a play
//! name their ranks.

/// Step `a` to the next distinct permutation in lexicographic order; false after the last.
#[inline]
pub(super) fn next_permutation(a: &mut [u8]) -> bool {
    let n = a.len();
    if n < 2 {
        return false;
    }
    let mut i = n - 1;
    while i > 0 && a[i - 1] >= a[i] {
        i -= 1;
    }
    if i == 0 {
        return false;
    }
    let mut j = n - 1;
    while a[j] <= a[i - 1] {
        j -= 1;
    }
    a.swap(i - 1, j);
    a[i..].reverse();
    true
}
