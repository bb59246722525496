//! Dense GF(2) matrices, one machine word per row, and their reduced row echelon form.
//!
//! Triton uses f2reduce's `inplace_rref_strided`; the RREF of a matrix is unique, so any correct
//! reduction yields Triton's pivots and solutions exactly. Rows are `u128` so that `lstsq`'s
//! augmented matrix `[A | B]` holds up to 64 + 64 columns.

/// Bring `rows` (bit `c` of a row is column `c`) into reduced row echelon form, pivots taken at
/// the lowest column first. Returns the rank. Zero rows end up last.
pub(crate) fn rref(rows: &mut [u128], num_cols: u32) -> usize {
    let mut rank = 0;
    for c in 0..num_cols {
        let bit = 1u128 << c;
        let Some(p) = (rank..rows.len()).find(|&r| rows[r] & bit != 0) else {
            continue;
        };
        rows.swap(rank, p);
        let pivot = rows[rank];
        for (r, row) in rows.iter_mut().enumerate() {
            if r != rank && *row & bit != 0 {
                *row ^= pivot;
            }
        }
        rank += 1;
        if rank == rows.len() {
            break;
        }
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rref_is_reduced() {
        let mut m = [0b110u128, 0b011, 0b101];
        let r = rref(&mut m, 3);
        assert_eq!(r, 2);
        assert_eq!(m, [0b101, 0b110, 0]);
    }
}
