//! The index math a layout compiles to: for each out-dim, a short list of shift-and-mask terms
//! over the in-dim indices, XORed together. This is Triton's `matrixVectorProd` in
//! `applyLinearLayout`: out bit `r` takes in bit `c` wherever `M[r][c] = 1`; in bits that move by
//! the same distance `r - c` share one `(x & mask) << shift` term, so a layout whose bases are runs
//! of consecutive powers of two costs one or two instructions per run, not one per basis.
//! The macros emit these terms as straight-line code. The grouping is layout-plan's
//! [`terms_of`], the one `convert!`'s address arithmetic and the runtime use.

use alloc::vec::Vec;

use layout_plan::linear::terms_of;

use crate::LinearLayout;

/// One term of an out-dim: `((in[in_dim] & mask) << shift)` (a right shift when `shift < 0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ApplyTerm {
    /// Position of the in-dim in the layout's in-dim order.
    pub in_dim: usize,
    /// The in bits this term moves.
    pub mask: u32,
    /// How far they move: left if positive, right if negative.
    pub shift: i32,
}

impl ApplyTerm {
    /// Evaluate on an in-dim value.
    pub fn eval(&self, x: u32) -> u32 {
        let v = x & self.mask;
        if self.shift >= 0 {
            v << self.shift
        } else {
            v >> -self.shift
        }
    }
}

/// Terms per out-dim, and whether each out-dim's terms touch disjoint bits (then `|` may replace
/// `^`, as Triton does when the matrix rows are unique).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyPlan {
    /// `terms[o]`: the terms XORed into out-dim `o`, in in-dim order, then by shift.
    pub terms: Vec<Vec<ApplyTerm>>,
    /// `disjoint[o]`: no two terms of out-dim `o` set the same bit.
    pub disjoint: Vec<bool>,
}

impl ApplyPlan {
    /// Evaluate the plan on positional in-dim values (the same as [`LinearLayout::apply_flat`]).
    pub fn eval(&self, ins: &[u32]) -> Vec<u32> {
        self.terms
            .iter()
            .map(|ts| {
                ts.iter().fold(0u32, |acc, t| {
                    acc ^ t.eval(ins.get(t.in_dim).copied().unwrap_or(0))
                })
            })
            .collect()
    }

    /// Total number of terms (a proxy for instructions: each costs an and plus a shift at most).
    pub fn num_terms(&self) -> usize {
        self.terms.iter().map(Vec::len).sum()
    }
}

/// One out-dim's terms from each in-dim's bases of it (`columns[d][c]`: what bit `c` of in-dim
/// `d` sets), in in-dim order, and whether no two bases set the same bit (`|` may then join
/// them).
pub fn column_terms(columns: &[&[u32]]) -> (Vec<ApplyTerm>, bool) {
    let (mut terms, mut seen, mut overlap) = (Vec::new(), 0u32, false);
    for (d, column) in columns.iter().enumerate() {
        for &v in column.iter() {
            overlap |= seen & v != 0;
            seen |= v;
        }
        terms.extend(terms_of(column).iter().map(|t| ApplyTerm {
            in_dim: d,
            mask: t.mask,
            shift: t.shift as i32,
        }));
    }
    (terms, !overlap)
}

impl LinearLayout {
    /// The shift-and-mask plan of [`apply`](LinearLayout::apply); see the module docs.
    pub fn apply_plan(&self) -> ApplyPlan {
        let mut terms = Vec::with_capacity(self.out_dims.len());
        let mut disjoint = Vec::with_capacity(self.out_dims.len());
        for o in 0..self.out_dims.len() {
            let columns: Vec<Vec<u32>> = self
                .bases
                .iter()
                .map(|(_, vs)| vs.iter().map(|b| b[o] as u32).collect())
                .collect();
            let columns: Vec<&[u32]> = columns.iter().map(Vec::as_slice).collect();
            let (ts, d) = column_terms(&columns);
            terms.push(ts);
            disjoint.push(d);
        }
        ApplyPlan { terms, disjoint }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;

    #[test]
    fn runs_of_consecutive_bits_become_one_term() -> crate::Result<()> {
        // register -> dim1 bits 0..2 (one run), lane -> dim1 bits 2..4 and dim0 bits 0..3.
        let l = LinearLayout::from_bases(
            vec![
                ("register".to_string(), vec![vec![0, 1], vec![0, 2]]),
                (
                    "lane".to_string(),
                    vec![vec![0, 4], vec![0, 8], vec![1, 0], vec![2, 0], vec![4, 0]],
                ),
            ],
            &["dim0", "dim1"],
        )?;
        let p = l.apply_plan();
        assert_eq!(
            p.terms[0],
            vec![ApplyTerm {
                in_dim: 1,
                mask: 0b11100,
                shift: -2
            }]
        );
        assert_eq!(
            p.terms[1],
            vec![
                ApplyTerm {
                    in_dim: 0,
                    mask: 0b11,
                    shift: 0
                },
                ApplyTerm {
                    in_dim: 1,
                    mask: 0b11,
                    shift: 2
                }
            ]
        );
        assert_eq!(p.disjoint, vec![true, true]);
        for r in 0..4 {
            for lane in 0..32 {
                assert_eq!(p.eval(&[r, lane]), l.apply_flat(&[r, lane]));
            }
        }
        Ok(())
    }

    #[test]
    fn swizzles_overlap() -> crate::Result<()> {
        let l = LinearLayout::from_bases(
            vec![(
                "offset".to_string(),
                vec![vec![0, 1], vec![0, 2], vec![1, 1], vec![2, 2]],
            )],
            &["dim0", "dim1"],
        )?;
        let p = l.apply_plan();
        assert_eq!(p.disjoint, vec![true, false]);
        for x in 0..16 {
            assert_eq!(p.eval(&[x]), l.apply_flat(&[x]));
        }
        Ok(())
    }
}
