//! CuTe's `Swizzle<B, M, S>` (the swizzle functor of `cute/swizzle.hpp`) alone, over a row-major
//! tensor, as a shared-memory linear layout: `layout!`'s `Swizzle<B, M, S>` form. It has no TTGIR
//! spelling: Triton writes the same layouts as `#ttg.swizzled_shared` or `#ttg.nvmma_shared`.

use alloc::string::String;
use alloc::vec::Vec;

use super::Swizzle;
use crate::error::bail;
use crate::utils::standard_out_dim_names;
use crate::{LinearLayout, Result};

/// CuTe's `Swizzle<B, M, S>` over a row-major tensor (the last dim contiguous), as a shared layout
/// `offset, block -> dims`.
///
/// In CuTe, the swizzle maps an element's linear index `i` to the offset
/// `i ^ ((i & yyy) >> S)` where `yyy` is `B` bits starting at bit `M + S` (for `S >= 0`;
/// `S < 0` shifts left). That map is an involution over GF(2), so the offset -> coordinates layout
/// is the same map followed by the row-major unravelling of the index.
pub fn cute_swizzle(b: i32, m: i32, s: i32, shape: &[i64]) -> Result<LinearLayout> {
    if b < 0 || m < 0 {
        bail!("Swizzle<{}, {}, {}>: B and M must be non-negative", b, m, s);
    }
    if s.abs() < b {
        bail!(
            "Swizzle<{}, {}, {}>: |S| must be at least B, or the XORed bits overlap the bits they \
             are read from (CuTe's static_assert(abs(SShift) >= BBits))",
            b,
            m,
            s
        );
    }
    if shape.is_empty() || shape.len() > crate::parse::MAX_RANK {
        bail!("Swizzle needs a tensor shape of rank 1 to 16");
    }
    let mut bits = Vec::new();
    for &d in shape {
        if d <= 0 || d & (d - 1) != 0 || d > 1 << 30 {
            bail!("Swizzle needs a power-of-two shape, got {:?}", shape);
        }
        bits.push(d.trailing_zeros());
    }
    let total: u32 = bits.iter().sum();
    let top = Swizzle { b, m, s }.top_bit();
    if top > total || total > 31 {
        bail!(
            "Swizzle<{}, {}, {}> reads offset bits up to {}, but a tensor of shape {:?} has only \
             {} offset bits; use a larger tensor or smaller M / S",
            b,
            m,
            s,
            top,
            shape,
            total
        );
    }
    let sw = Swizzle { b, m, s };
    let rank = shape.len();
    let names = standard_out_dim_names(rank);
    let unravel = |mut i: u64| -> Vec<i32> {
        let mut c = alloc::vec![0i32; rank];
        for d in (0..rank).rev() {
            c[d] = (i & ((1 << bits[d]) - 1)) as i32;
            i >>= bits[d];
        }
        c
    };
    let offset: Vec<Vec<i32>> = (0..total).map(|k| unravel(sw.apply(1 << k))).collect();
    let outs = names
        .iter()
        .zip(shape)
        .map(|(n, &d)| (n.clone(), d as i32))
        .collect();
    LinearLayout::from_parts(
        alloc::vec![
            (String::from("offset"), offset),
            (String::from("block"), Vec::new())
        ],
        outs,
        true,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swizzle_3_3_3_is_cute_swizzle() -> Result<()> {
        // 64x64 halves: CuTe's classic Swizzle<3, 3, 3> over rows of 64 elements.
        let l = cute_swizzle(3, 3, 3, &[64, 64])?;
        for i in 0..4096u64 {
            let o = i ^ ((i & (0b111 << 6)) >> 3);
            let c = l.apply_flat(&[o as u32, 0]);
            assert_eq!((c[0] * 64 + c[1]) as u64, i);
        }
        assert!(cute_swizzle(3, 3, 2, &[64, 64]).is_err());
        assert!(cute_swizzle(3, 4, 3, &[8, 64]).is_err());
        Ok(())
    }
}
