//! NVIDIA MMA v2 (Ampere) and v3 (Hopper) accumulators and their dot operands.

use alloc::string::String;
use alloc::vec::Vec;

use super::cga::{combine_cta_cga_with_shape, parse_cga};
use super::distributed::{broadcasted_dot_operand_layout, check_dot, dot_cga};
use super::{Encoding, NvidiaMma};
use crate::error::{bail, bail_at};
use crate::layout::is_pow2;
use crate::parse::attr::Attr;
use crate::parse::params::{Params, R};
use crate::utils::{identity_standard_nd, standard_out_dim_names, to_i32};
use crate::{LinearLayout, Result};

/// `getMatrixOrder(rank, rowMajor)`.
pub(crate) fn matrix_order(rank: usize, row_major: bool) -> Vec<u32> {
    let mut o: Vec<u32> = (0..rank as u32).rev().collect();
    if rank >= 2 && !row_major {
        o.swap(0, 1);
    }
    o
}

/// `getOrderForDotOperand(opIdx, rank, kContig)`.
pub(crate) fn order_for_dot_operand(op_idx: u32, rank: usize, k_contig: bool) -> Vec<u32> {
    matrix_order(rank, (op_idx != 0) != k_contig)
}

/// `nvidiaMmaTile`.
fn mma_tile(tile: &[u32], k_width: u32, order: &[u32], rep_order: &[u32]) -> Result<LinearLayout> {
    let rank = rep_order.len();
    let names = standard_out_dim_names(rank);
    let inner = order[0] as usize;
    let outer = order[1] as usize;
    let (m, n) = (tile[outer], tile[inner]);
    if m % 8 != 0 || k_width == 0 || n % (k_width * 4) != 0 || !is_pow2(k_width as i64) {
        bail_at!("kWidth";
            "MMA tile {:?} with kWidth {} is not a multiple of the 8 x (4*kWidth) core tile",
            tile,
            k_width
        );
    }
    let ones = alloc::vec![1u32; rank];
    let l = identity_standard_nd("register", &ones, rep_order)?
        .checked_mul(&LinearLayout::identity_1d(
            to_i32(k_width)?,
            "register",
            &names[inner],
        )?)?
        .checked_mul(&LinearLayout::identity_1d(4, "lane", &names[inner])?)?
        .checked_mul(&LinearLayout::identity_1d(8, "lane", &names[outer])?)?
        .checked_mul(&LinearLayout::identity_1d(
            to_i32(m / 8)?,
            "register",
            &names[outer],
        )?)?
        .checked_mul(&LinearLayout::identity_1d(
            to_i32(n / (k_width * 4))?,
            "register",
            &names[inner],
        )?)?;
    Ok(l)
}

fn check(m: &NvidiaMma, shape: &[i64]) -> Result<()> {
    let rank = m.warps_per_cta.len();
    if !(m.version_major == 2 || m.version_major == 3) {
        bail_at!("versionMajor";
            "nvidia_mma versionMajor {} is not supported: use 2 (Ampere) or 3 (Hopper)",
            m.version_major
        );
    }
    if !(2..=3).contains(&rank) || shape.len() != rank || m.cga.rank() != rank {
        bail_at!("warpsPerCTA";
            "nvidia_mma: warpsPerCTA has rank {} but the tensor shape is {:?}",
            rank,
            shape
        );
    }
    if let Some(w) = m.warps_per_cta.iter().find(|&&w| !is_pow2(w as i64)) {
        bail_at!("warpsPerCTA";
            "nvidia_mma: warpsPerCTA {:?} has {}, not a power of two",
            m.warps_per_cta,
            w
        );
    }
    let want = if m.version_major == 2 { rank } else { 3 };
    if m.instr_shape.len() != want {
        bail_at!("instrShape";
            "nvidia_mma v{}: instrShape {:?} must have {} entries",
            m.version_major,
            m.instr_shape,
            want
        );
    }
    // Hopper's wgmma takes any N that is a multiple of 8; the accumulator's layout needs a power
    // of two (checked in `mma`), its dot operands do not depend on N.
    let pow2_needed = |i: usize| !(m.version_major == 3 && i == 1);
    if (0..m.instr_shape.len()).any(|i| pow2_needed(i) && !is_pow2(m.instr_shape[i] as i64)) {
        bail_at!("instrShape";
            "nvidia_mma: instrShape {:?} must be powers of two",
            m.instr_shape
        );
    }
    if m.version_major == 3 && (m.instr_shape[0] != 16 || !m.warps_per_cta[0].is_multiple_of(4)) {
        bail_at!(if m.instr_shape[0] != 16 { "instrShape" } else { "warpsPerCTA" }; "nvidia_mma v3 (Hopper): instrShape[0] must be 16 and warpsPerCTA[0] a multiple of 4 (a warpgroup), got instrShape {:?} and warpsPerCTA {:?}",
            m.instr_shape, m.warps_per_cta);
    }
    Ok(())
}

pub(crate) fn mma(m: &NvidiaMma, shape: &[i64]) -> Result<LinearLayout> {
    check(m, shape)?;
    let rank = shape.len();
    let hopper = m.version_major == 3;
    if hopper && !is_pow2(m.instr_shape[1] as i64) {
        bail_at!("instrShape";
            "nvidia_mma v3: instrShape {:?} has N = {}, not a power of two: Triton has no linear layout for such an accumulator (its dot operands, whose layout does not depend on N, are fine); use a power-of-two N",
            m.instr_shape,
            m.instr_shape[1]
        );
    }
    let tile: Vec<u32> = if hopper {
        alloc::vec![m.instr_shape[0], m.instr_shape[1]]
    } else {
        m.instr_shape.clone()
    };
    if tile.len() != rank {
        bail!(
            "nvidia_mma v3 supports rank-2 tensors only, got shape {:?}",
            shape
        );
    }
    let order = matrix_order(rank, true);
    let cta = mma_tile(&tile, 2, &order, &matrix_order(rank, true))?;
    let outs: Vec<String> = cta.out_dim_names().map(String::from).collect();
    let warps = identity_standard_nd("warp", &m.warps_per_cta, &matrix_order(rank, !hopper))?
        .transpose_outs(&outs)?;
    combine_cta_cga_with_shape(cta.checked_mul(&warps)?, &m.cga, shape)
}

pub(crate) fn dot(op_idx: u32, m: &NvidiaMma, k_width: u32, shape: &[i64]) -> Result<LinearLayout> {
    check(m, shape)?;
    let rank = shape.len();
    let k = check_dot(op_idx, rank, shape)?;
    if k_width == 0 || !is_pow2(k_width as i64) || k_width > 32 {
        bail_at!("kWidth"; "dot_op with an nvidia_mma parent needs kWidth a power of two (e.g. 32 / element bits), got {}", k_width);
    }
    let is_a = op_idx == 0;
    let mut tile = alloc::vec![1u32; rank];
    if is_a {
        tile[rank - 2] = 16;
        tile[rank - 1] = k_width * 8;
    } else {
        if m.version_major == 3 {
            bail_at!("opIdx"; "dot_op opIdx = 1 with an nvidia_mma v3 parent: Hopper reads operand B from shared memory; use opIdx = 0 or an nvmma_shared layout");
        }
        tile[rank - 2] = k_width * 8;
        tile[rank - 1] = 8;
    }
    let order = order_for_dot_operand(op_idx, rank, true);
    let rep_order = order_for_dot_operand(op_idx, rank, true);
    let cta = mma_tile(&tile, k_width, &order, &rep_order)?;
    let outs: Vec<String> = cta.out_dim_names().map(String::from).collect();
    let warp_order = matrix_order(rank, m.version_major != 3);
    let warps = broadcasted_dot_operand_layout(&m.warps_per_cta, &warp_order, k, "warp")?
        .transpose_outs(&outs)?;
    combine_cta_cga_with_shape(cta.checked_mul(&warps)?, &dot_cga(op_idx, &m.cga)?, shape)
}

/// `#ttg.nvidia_mma<{...}>`'s parameters.
pub(crate) fn parse_nvidia_mma(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let mut p = Params::of(
        name,
        a,
        body,
        &[
            "versionMajor",
            "versionMinor",
            "warpsPerCTA",
            "instrShape",
            "CGALayout",
            "CTAsPerCGA",
            "CTASplitNum",
            "CTAOrder",
        ],
    )?;
    let vmaj = p.uint("versionMajor")?;
    let vmin = p.uint_or("versionMinor", 0)?;
    let w = p.uints("warpsPerCTA")?;
    let instr = p.uints("instrShape")?;
    let cga = parse_cga(&mut p, w.len())?;
    Ok(Encoding::NvidiaMma(NvidiaMma {
        version_major: vmaj,
        version_minor: vmin,
        warps_per_cta: w,
        instr_shape: instr,
        cga,
    }))
}
