//! `operator*`, the direct sum of two layouts, and `supremum`, the merge of two dim orders.

use alloc::string::String;
use alloc::vec::Vec;
use core::ops::{Mul, MulAssign};

use crate::error::bail;
use crate::layout::{check_in_dim_bits, MAX_BITS};
use crate::{LinearLayout, Result};

/// Triton's `supremum(x, y)`: the shortest list containing both `x` and `y` as subsequences,
/// preferring `x`'s elements on ties. Fails when the two orders conflict.
pub fn supremum(x: &[String], y: &[String]) -> Result<Vec<String>> {
    let pos = |v: &[String], e: &str| v.iter().position(|s| s == e);
    let mut result: Vec<String> = Vec::new();
    let (mut i, mut j) = (0usize, 0usize);
    let contains = |r: &Vec<String>, e: &String| r.iter().any(|s| s == e);
    let conflict = || {
        crate::LayoutError::new(alloc::format!(
            "the dimension orders {:?} and {:?} conflict: no order contains both",
            x,
            y
        ))
    };
    while i < x.len() || j < y.len() {
        while i < x.len() && contains(&result, &x[i]) {
            i += 1;
        }
        while j < y.len() && contains(&result, &y[j]) {
            j += 1;
        }
        if i >= x.len() && j >= y.len() {
            break;
        }
        if i < x.len() && j < y.len() && x[i] == y[j] {
            if pos(y, &x[i]).is_some_and(|p| p < j) {
                return Err(conflict());
            }
            result.push(x[i].clone());
            i += 1;
            j += 1;
            continue;
        }
        let inf = usize::MAX;
        let mut cand_x = inf;
        let mut cand_y = inf;
        if i < x.len() {
            if let Some(p) = pos(y, &x[i]) {
                if p >= j {
                    cand_x = p;
                }
            }
        }
        if j < y.len() {
            if let Some(p) = pos(x, &y[j]) {
                if p >= i {
                    cand_y = p;
                }
            }
        }
        if i < x.len() && cand_x == inf {
            result.push(x[i].clone());
            i += 1;
            continue;
        }
        if j < y.len() && cand_y == inf {
            result.push(y[j].clone());
            j += 1;
            continue;
        }
        if cand_x <= cand_y {
            if pos(y, &x[i]).is_some_and(|p| p < j) {
                return Err(conflict());
            }
            result.push(x[i].clone());
            i += 1;
        } else {
            if pos(x, &y[j]).is_some_and(|p| p < i) {
                return Err(conflict());
            }
            result.push(y[j].clone());
            j += 1;
        }
    }
    Ok(result)
}

impl LinearLayout {
    /// Triton's `operator*`: the direct sum with `self` as the minor (inner) part. In-dims and
    /// out-dims are merged with [`supremum`]; `outer`'s bases follow `self`'s in each in-dim and
    /// are shifted above `self`'s out-dim sizes.
    pub fn checked_mul(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        let inner = self;
        let names = |l: &LinearLayout, ins: bool| -> Vec<String> {
            if ins {
                l.in_dim_names().map(String::from).collect()
            } else {
                l.out_dim_names().map(String::from).collect()
            }
        };
        let in_dims = supremum(&names(inner, true), &names(outer, true))?;
        let out_dims = supremum(&names(inner, false), &names(outer, false))?;
        let out_log2: Vec<i32> = out_dims
            .iter()
            .map(|d| inner.out_dim_size_log2(d) + outer.out_dim_size_log2(d))
            .collect();
        if out_log2.iter().sum::<i32>() > MAX_BITS
            || in_dims
                .iter()
                .map(|d| inner.in_dim_size_log2(d) + outer.in_dim_size_log2(d))
                .sum::<i32>()
                > MAX_BITS
        {
            bail!(
                "the product of these layouts has more than {} in-bits or out-bits",
                MAX_BITS
            );
        }
        if out_log2.iter().any(|&l| l > 30) {
            bail!("the product of these layouts has an out-dim larger than 2^30");
        }
        for d in &in_dims {
            check_in_dim_bits(d, inner.in_dim_size_log2(d) + outer.in_dim_size_log2(d))?;
        }
        let mut bases = Vec::with_capacity(in_dims.len());
        for d in &in_dims {
            let ni = inner.in_dim_size_log2(d) as usize;
            let no = outer.in_dim_size_log2(d) as usize;
            let mut vs = alloc::vec![alloc::vec![0i32; out_dims.len()]; ni + no];
            for (o, od) in out_dims.iter().enumerate() {
                if let (Some(ib), Some(oi)) = (inner.in_dim_bases(d), inner.out_dim_index(od)) {
                    for (i, b) in ib.iter().enumerate() {
                        vs[i][o] = b[oi];
                    }
                }
                if let (Some(ob), Some(oo)) = (outer.in_dim_bases(d), outer.out_dim_index(od)) {
                    let shift = inner.out_dim_size_log2(od);
                    for (i, b) in ob.iter().enumerate() {
                        vs[ni + i][o] = b[oo] << shift;
                    }
                }
            }
            bases.push((d.clone(), vs));
        }
        let outs = out_dims
            .into_iter()
            .zip(out_log2)
            .map(|(d, l)| (d, 1i32 << l))
            .collect();
        Ok(LinearLayout::new_unchecked(bases, outs))
    }
}

impl Mul for LinearLayout {
    type Output = LinearLayout;
    /// See [`LinearLayout::checked_mul`].
    ///
    /// # Panics
    /// When the two layouts order their common dims differently, or the product exceeds 64 bits
    /// (Triton asserts likewise). Use `checked_mul` on untrusted input.
    fn mul(self, outer: LinearLayout) -> LinearLayout {
        match self.checked_mul(&outer) {
            Ok(l) => l,
            Err(e) => panic!("LinearLayout * LinearLayout: {}", e),
        }
    }
}

impl Mul<&LinearLayout> for &LinearLayout {
    type Output = LinearLayout;
    fn mul(self, outer: &LinearLayout) -> LinearLayout {
        self.clone() * outer.clone()
    }
}

impl MulAssign for LinearLayout {
    fn mul_assign(&mut self, outer: LinearLayout) {
        *self = core::mem::take(self) * outer;
    }
}
