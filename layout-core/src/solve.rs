//! Operations that solve linear systems over GF(2): compose, invertAndCompose (Triton's `lstsq`
//! with its identity-dim heuristic), invert, pseudoinvert, free-variable masks, divideLeft /
//! divideRight and quotient.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::error::bail;
use crate::f2;
use crate::layout::log2;
use crate::utils::square_sublayout_is_identity;
use crate::{LinearLayout, Result};

fn names(v: impl Iterator<Item = impl AsRef<str>>) -> Vec<String> {
    v.map(|s| s.as_ref().to_string()).collect()
}

fn same_set(a: &[String], b: &[String]) -> bool {
    a.len() == b.len() && a.iter().all(|x| b.contains(x))
}

/// Solve `A X = B` (Triton's `lstsq`): the minimum solution, free variables set to zero.
/// Returns a layout from B's in-dims to A's in-dims.
fn lstsq(a: &LinearLayout, b: &LinearLayout) -> Result<LinearLayout> {
    let num_rows = a.total_out_dim_size_log2() as usize;
    let cols_a = a.total_in_dim_size_log2() as u32;
    let cols_b = b.total_in_dim_size_log2() as u32;
    // Augmented matrix [A | B], B's rows aligned by out-dim (B's missing high bits are zero).
    let mut m = a.matrix();
    let bm = b.matrix();
    let (mut ra, mut rb) = (0usize, 0usize);
    for (d, size) in a.out_dims() {
        let nb = b.out_dim_size_log2(d);
        for r in 0..log2(*size) {
            if r < nb {
                m[ra] |= bm[rb] << cols_a;
                rb += 1;
            }
            ra += 1;
        }
    }
    f2::rref(&mut m, cols_a + cols_b);
    let mut pivot_row: Vec<Option<usize>> = alloc::vec![None; cols_a as usize];
    for (r, &row) in m.iter().enumerate().take(num_rows) {
        if row == 0 {
            continue;
        }
        let c = row.trailing_zeros();
        if c >= cols_a {
            bail!("invertAndCompose: the image of this layout is not contained in the image of the outer layout, so no layout C with this(x) = outer(C(x)) exists");
        }
        pivot_row[c as usize] = Some(r);
    }
    let sol: Vec<u128> = pivot_row
        .iter()
        .map(|p| p.map_or(0, |r| m[r] >> cols_a))
        .collect();
    let mut flat = Vec::with_capacity(cols_b as usize);
    for c in 0..cols_b {
        let mut basis: i64 = 0;
        for (r, s) in sol.iter().enumerate() {
            basis |= (((s >> c) & 1) as i64) << r;
        }
        flat.push(alloc::vec![basis as i32]);
    }
    let in_name = a.bases[0].0.clone();
    let out_name = a.out_dims[0].0.clone();
    let total_a = a.total_in_dim_size();
    if total_a > i32::MAX as u64 {
        bail!(
            kind: Limit,
            "invertAndCompose handles layouts of at most 2^30 input positions (Triton's 32-bit indices); this one has 2^{}",
            a.total_in_dim_size_log2()
        );
    }
    let ret = LinearLayout::new_unchecked(
        alloc::vec![(in_name, flat)],
        alloc::vec![(out_name, total_a as i32)],
    );
    ret.reshape_ins(&b.in_dims())?.reshape_outs(&a.in_dims())
}

impl LinearLayout {
    /// `compose`: `outer ∘ self`. `self`'s out-dims must be `outer`'s in-dims (any order), each no
    /// larger.
    pub fn compose(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        let outs = names(self.out_dim_names());
        if !same_set(&outs, &names(outer.in_dim_names())) {
            bail!(
                "compose: the out-dims {:?} must equal the outer layout's in-dims {:?}",
                outs,
                names(outer.in_dim_names())
            );
        }
        for d in &outs {
            if self.out_dim_size(d) > outer.in_dim_size(d) {
                bail!(
                    "compose: out-dim '{}' has size {} but the outer layout's in-dim only {}",
                    d,
                    self.out_dim_size(d),
                    outer.in_dim_size(d)
                );
            }
        }
        let order: Vec<usize> = outer
            .in_dim_names()
            .map(|d| self.out_dim_index(d).unwrap_or(0))
            .collect();
        let bases = self
            .bases
            .iter()
            .map(|(n, vs)| {
                let nb = vs
                    .iter()
                    .map(|b| {
                        let ins: Vec<u32> = order.iter().map(|&o| b[o] as u32).collect();
                        outer
                            .apply_flat(&ins)
                            .into_iter()
                            .map(|v| v as i32)
                            .collect()
                    })
                    .collect();
                (n.clone(), nb)
            })
            .collect();
        Ok(LinearLayout::new_unchecked(bases, outer.out_dims.clone()))
    }

    /// `invertAndCompose`: a layout `C` with `self(x) = outer(C(x))`, from `self`'s in-dims to
    /// `outer`'s in-dims. Where `outer` is not injective, the numerically smallest preimage is
    /// chosen (free variables zero); in-dims on which both layouts agree map to themselves.
    pub fn invert_and_compose(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        let out_names = names(self.out_dim_names());
        if !same_set(&out_names, &names(outer.out_dim_names())) {
            bail!(
                "invertAndCompose: out-dims must match ignoring order, got {:?} and {:?}",
                out_names,
                names(outer.out_dim_names())
            );
        }
        let b = self;
        let a = outer.transpose_outs(&out_names)?;
        for d in &out_names {
            if a.out_dim_size(d) < b.out_dim_size(d) {
                bail!("invertAndCompose: out-dim '{}' has size {} in the outer layout, smaller than {}",
                    d, a.out_dim_size(d), b.out_dim_size(d));
            }
        }
        let mut identity_dims: Vec<String> = Vec::new();
        for d in a.in_dim_names() {
            if b.has_in_dim(d) && a.sublayout(&[d], &out_names)? == b.sublayout(&[d], &out_names)? {
                identity_dims.push(d.to_string());
            }
        }
        let rest = |l: &LinearLayout, ids: &[String]| -> Vec<String> {
            l.in_dim_names()
                .filter(|d| !ids.iter().any(|x| x == d))
                .map(String::from)
                .collect()
        };
        let (mut a_rest, mut b_rest) = (rest(&a, &identity_dims), rest(b, &identity_dims));
        if a_rest.is_empty() != b_rest.is_empty() {
            // Triton asserts here. Solving without the heuristic is still a correct answer.
            identity_dims.clear();
            a_rest = rest(&a, &identity_dims);
            b_rest = rest(b, &identity_dims);
        }
        let mut ret = if a_rest.is_empty() {
            LinearLayout::empty()
        } else {
            match lstsq(
                &a.sublayout(&a_rest, &out_names)?,
                &b.sublayout(&b_rest, &out_names)?,
            ) {
                Ok(r) => r,
                // Triton's FIXME: the other dims may reach the image of an identity dim, and then
                // Triton asserts. Solving over all dims is still a correct answer.
                Err(_) if !identity_dims.is_empty() => {
                    identity_dims.clear();
                    lstsq(
                        &a.sublayout(&names(a.in_dim_names()), &out_names)?,
                        &b.sublayout(&names(b.in_dim_names()), &out_names)?,
                    )?
                }
                Err(e) => return Err(e),
            }
        };
        for d in &identity_dims {
            ret = ret.checked_mul(&LinearLayout::identity_1d(a.in_dim_size(d), d, d)?)?;
        }
        ret.transpose_ins(&names(b.in_dim_names()))?
            .transpose_outs(&names(a.in_dim_names()))
    }

    /// `invert`: the inverse of an invertible layout.
    pub fn invert(&self) -> Result<LinearLayout> {
        if !self.is_invertible() {
            bail!(
                "invert: a layout must be surjective and square to be invertible:{}",
                self
            );
        }
        self.pseudoinvert()
    }

    /// `pseudoinvert`: `B` with `self(B(x)) = x` for every `x` in the image.
    pub fn pseudoinvert(&self) -> Result<LinearLayout> {
        let mut id = LinearLayout::empty();
        for (d, s) in &self.out_dims {
            id = id.checked_mul(&LinearLayout::identity_1d(*s, d, d)?)?;
        }
        id.invert_and_compose(self)
    }

    /// `getFreeVariableMasks`: per in-dim, the bits that can change without changing the output
    /// (non-pivot columns of the RREF).
    pub fn free_variable_masks(&self) -> Vec<(String, i32)> {
        let mut m = self.matrix();
        let ncols = self.total_in_dim_size_log2() as u32;
        f2::rref(&mut m, ncols);
        let mut pivots: u128 = 0;
        for &row in &m {
            if row != 0 {
                pivots |= 1u128 << row.trailing_zeros();
            }
        }
        let mut c = 0;
        self.bases
            .iter()
            .map(|(n, vs)| {
                let mut mask = 0i32;
                for i in 0..vs.len() {
                    if pivots & (1u128 << c) == 0 {
                        mask |= 1 << i;
                    }
                    c += 1;
                }
                (n.clone(), mask)
            })
            .collect()
    }

    /// `isTrivialOver`: the dims map identically onto themselves and do not mix with the rest.
    pub fn is_trivial_over<S: AsRef<str>>(&self, dims: &[S]) -> Result<bool> {
        let dims: Vec<String> = names(dims.iter());
        for d in &dims {
            if !self.has_in_dim(d) || !self.has_out_dim(d) {
                bail!(
                    "isTrivialOver: dim '{}' must be both an in-dim and an out-dim",
                    d
                );
            }
        }
        let rest_in: Vec<String> = self
            .in_dim_names()
            .filter(|d| !dims.iter().any(|x| x == d))
            .map(String::from)
            .collect();
        let rest_out: Vec<String> = self
            .out_dim_names()
            .filter(|d| !dims.iter().any(|x| x == d))
            .map(String::from)
            .collect();
        Ok(square_sublayout_is_identity(self, &dims)?
            && self.sublayout_is_zero(&rest_in, &dims)?
            && self.sublayout_is_zero(&dims, &rest_out)?)
    }

    /// `quotient`: if the layout is trivial over `dims`, the layout over the other dims.
    pub fn quotient<S: AsRef<str>>(&self, dims: &[S]) -> Option<LinearLayout> {
        if dims.iter().any(|d| !self.has_in_dim(d.as_ref())) {
            return None;
        }
        if !self.is_trivial_over(dims).ok()? {
            return None;
        }
        let ds: Vec<String> = names(dims.iter());
        let ins: Vec<String> = self
            .in_dim_names()
            .filter(|d| !ds.iter().any(|x| x == d))
            .map(String::from)
            .collect();
        let outs: Vec<String> = self
            .out_dim_names()
            .filter(|d| !ds.iter().any(|x| x == d))
            .map(String::from)
            .collect();
        self.sublayout(&ins, &outs).ok()
    }
}

/// The out-dims of `C` in `A = B * C` or `A = C * B`: A's, each shrunk by B's size; `None` if B
/// has a dim A lacks or is larger along one.
fn quotient_out_dims(a: &LinearLayout, b: &LinearLayout) -> Option<Vec<(String, i32)>> {
    if b.in_dim_names().any(|d| !a.has_in_dim(d)) || b.out_dim_names().any(|d| !a.has_out_dim(d)) {
        return None;
    }
    let mut c_outs = Vec::new();
    for (d, _) in a.out_dims() {
        let oc = a.out_dim_size_log2(d) - b.out_dim_size_log2(d);
        if oc < 0 {
            return None;
        }
        c_outs.push((d.clone(), 1i32 << oc));
    }
    Some(c_outs)
}

/// `divideLeft(A, B)`: `C` with `A = B * C`, if it exists.
pub fn divide_left(a: &LinearLayout, b: &LinearLayout) -> Option<LinearLayout> {
    let c_outs = quotient_out_dims(a, b)?;
    let mut c_bases = Vec::new();
    for (d, vs) in a.bases() {
        let ib = b.in_dim_size_log2(d) as usize;
        if vs.len() < ib {
            return None;
        }
        for (i, v) in vs.iter().enumerate().take(ib) {
            for (o, (od, _)) in a.out_dims().iter().enumerate() {
                let expected = if b.has_out_dim(od) {
                    b.basis(d, i, od)?
                } else {
                    0
                };
                if v[o] != expected {
                    return None;
                }
            }
        }
        let mut cv = Vec::new();
        for v in &vs[ib..] {
            let mut cand = Vec::new();
            for (o, (od, _)) in a.out_dims().iter().enumerate() {
                let ob = b.out_dim_size_log2(od);
                if v[o] & ((1 << ob) - 1) != 0 {
                    return None;
                }
                cand.push(v[o] >> ob);
            }
            cv.push(cand);
        }
        c_bases.push((d.clone(), cv));
    }
    let c =
        LinearLayout::from_parts(c_bases, c_outs, a.is_surjective() && b.is_surjective()).ok()?;
    (b.checked_mul(&c).ok()? == *a).then_some(c)
}

/// `divideRight(A, B)`: `C` with `A = C * B`, if it exists.
pub fn divide_right(a: &LinearLayout, b: &LinearLayout) -> Option<LinearLayout> {
    let c_outs = quotient_out_dims(a, b)?;
    let mut c_bases = Vec::new();
    for (d, vs) in a.bases() {
        let ib = b.in_dim_size_log2(d) as usize;
        if vs.len() < ib {
            return None;
        }
        let ic = vs.len() - ib;
        let cv: Vec<Vec<i32>> = vs[..ic].to_vec();
        for (j, v) in vs[ic..].iter().enumerate() {
            for od in b.out_dim_names() {
                let o = a.out_dim_index(od)?;
                let shift = a.out_dim_size_log2(od) - b.out_dim_size_log2(od);
                if v[o] & ((1 << shift) - 1) != 0 || (v[o] >> shift) != b.basis(d, j, od)? {
                    return None;
                }
            }
        }
        c_bases.push((d.clone(), cv));
    }
    let c =
        LinearLayout::from_parts(c_bases, c_outs, a.is_surjective() && b.is_surjective()).ok()?;
    (c.checked_mul(b).ok()? == *a).then_some(c)
}
