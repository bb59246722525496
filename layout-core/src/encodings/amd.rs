//! AMD MFMA (CDNA) and WMMA (RDNA) accumulators and their dot operands. Warps are 64 lanes for
//! MFMA and 32 for WMMA, as in Triton.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::cga::{combine_cta_cga_with_shape, parse_cga};
use super::distributed::check_dot;
use super::nvidia::{matrix_order, order_for_dot_operand};
use super::{AmdMfma, AmdWmma, Encoding};
use crate::error::{bail, bail_at};
use crate::layout::is_pow2;
use crate::parse::attr::{Attr, AttrKind};
use crate::parse::error::ParseError;
use crate::parse::params::{as_uint, linear_from_dict, Params, R};
use crate::utils::{
    action_remove_broadcasted_regs, identity_standard_nd, project_away_out_dim,
    standard_out_dim_names, to_i32,
};
use crate::{LinearLayout, Result};

impl AmdMfma {
    /// Lanes of a CDNA wavefront, the warp size MFMA layouts run on unless told otherwise.
    pub const WARP_SIZE: u32 = 64;
}

fn id(size: i64, in_dim: &str, out_dim: &str) -> Result<LinearLayout> {
    if size > 1 << 30 {
        bail!("size {} is too large", size);
    }
    LinearLayout::identity_1d(size as i32, in_dim, out_dim)
}

fn check_mfma(m: &AmdMfma, shape: &[i64]) -> Result<()> {
    let rank = m.warps_per_cta.len();
    if m.version > 4 {
        bail_at!("version";
            "amd_mfma version must be in the [0, 4] range, got {}",
            m.version
        );
    }
    if !(2..=3).contains(&rank) || shape.len() != rank || m.cga.rank() != rank {
        bail_at!("warpsPerCTA";
            "amd_mfma: warpsPerCTA has rank {} but the tensor shape is {:?}",
            rank,
            shape
        );
    }
    if m.instr_shape.len() < 2 {
        bail!(
            "amd_mfma: instrShape {:?} needs at least [M, N]",
            m.instr_shape
        );
    }
    let (md, nd) = (m.instr_shape[0], m.instr_shape[1]);
    if !matches!((md, nd), (32, 32) | (16, 16) | (64, 4) | (4, 64)) {
        bail_at!("instrShape";
            "amd_mfma: invalid (mDim, nDim) combination ({}, {}): use 32x32, 16x16, 64x4 or 4x64",
            md,
            nd
        );
    }
    if md == 64 && nd == 4 && !m.is_transposed {
        bail_at!("isTransposed"; "amd_mfma: a 64x4 instruction must be transposed (isTransposed = true)");
    }
    if !(m.element_bit_width == 32 || m.element_bit_width == 64) {
        bail_at!("elementBitWidth";
            "amd_mfma: elementBitWidth must be 32 or 64, got {}",
            m.element_bit_width
        );
    }
    if m.tiles_per_warp.len() != rank {
        bail_at!("tilesPerWarp";
            "amd_mfma: tilesPerWarp {:?} must have rank {}",
            m.tiles_per_warp,
            rank
        );
    }
    for v in m.warps_per_cta.iter().chain(&m.tiles_per_warp) {
        if !is_pow2(*v as i64) || *v > 1 << 20 {
            bail!(
                "amd_mfma: warpsPerCTA and tilesPerWarp must be powers of two, got {}",
                v
            );
        }
    }
    Ok(())
}

pub(crate) fn mfma(m: &AmdMfma, shape: &[i64]) -> Result<LinearLayout> {
    check_mfma(m, shape)?;
    let rank = shape.len();
    let batch = rank == 3;
    let (mi, ni) = (batch as usize, 1 + batch as usize);
    let names = standard_out_dim_names(rank);
    let order = matrix_order(rank, true);
    let dim_m = &names[order[1] as usize];
    let dim_n = &names[order[0] as usize];
    let (md, nd) = (m.instr_shape[0] as i64, m.instr_shape[1] as i64);
    let height: i64 = if m.element_bit_width == 64 { 1 } else { 4 };
    let warp = 64i64;
    let tiles = (md * nd) / (warp * height);
    let mut tile = if !m.is_transposed {
        let mut t = id(height, "register", dim_m)?
            .checked_mul(&id(nd, "lane", dim_n)?.checked_mul(&id(warp / nd, "lane", dim_m)?)?)?;
        if tiles > 0 {
            t = t.checked_mul(&id(tiles, "register", dim_m)?)?;
        }
        t
    } else {
        let mut t = id(height, "register", dim_n)?
            .checked_mul(&id(md, "lane", dim_m)?.checked_mul(&id(warp / md, "lane", dim_n)?)?)?;
        if tiles > 0 {
            t = t.checked_mul(&id(tiles, "register", dim_n)?)?;
        }
        t
    };
    tile = tile.transpose_outs(&[dim_n, dim_m])?;
    let (tm, tn) = (m.tiles_per_warp[mi] as i64, m.tiles_per_warp[ni] as i64);
    let (wm, wn) = (m.warps_per_cta[mi] as i64, m.warps_per_cta[ni] as i64);
    tile = tile.checked_mul(&id(tn, "register", dim_n)?)?;
    tile = tile.checked_mul(&id(wn, "warp", dim_n)?)?;
    let reps = shape[ni] / (nd * wn * tn);
    tile = tile.checked_mul(&id(
        if reps > 0 && !is_pow2(reps) { 1 } else { reps },
        "register",
        dim_n,
    )?)?;
    tile = tile.checked_mul(&id(tm, "register", dim_m)?)?;
    tile = tile.checked_mul(&id(wm, "warp", dim_m)?)?;
    if batch {
        let b = &names[order[2] as usize];
        tile = tile.checked_mul(&id(1, "register", b)?)?;
        tile = tile.checked_mul(&id(1, "lane", b)?)?;
        tile = tile.checked_mul(&id(m.warps_per_cta[0] as i64, "warp", b)?)?;
    }
    combine_cta_cga_with_shape(tile, &m.cga, shape)
}

pub(crate) fn mfma_dot(
    op_idx: u32,
    m: &AmdMfma,
    k_width: u32,
    shape: &[i64],
) -> Result<LinearLayout> {
    check_mfma(m, shape)?;
    let rank = shape.len();
    let k_idx = check_dot(op_idx, rank, shape)?;
    if k_width == 0 || !is_pow2(k_width as i64) {
        bail!(
            "dot_op with an amd_mfma parent needs kWidth a power of two, got {}",
            k_width
        );
    }
    let batch = rank == 3;
    let non_k_idx = if op_idx == 0 { rank - 2 } else { rank - 1 };
    let tpw_non_k = m.tiles_per_warp[non_k_idx] as i64;
    let (md, nd) = (m.instr_shape[0] as i64, m.instr_shape[1] as i64);
    let non_k_dim = if op_idx == 0 { md } else { nd };
    let warp = 64i64;
    let k_size = shape[k_idx];
    let names = standard_out_dim_names(rank);
    let order = order_for_dot_operand(op_idx, rank, true);
    let dim_k = &names[order[0] as usize];
    let dim_nk = &names[order[1] as usize];
    let warp_order = matrix_order(rank, true);
    let regs = id(k_width as i64, "register", dim_k)?;
    let lanes =
        id(non_k_dim, "lane", dim_nk)?.checked_mul(&id(warp / non_k_dim, "lane", dim_k)?)?;
    let mut tile = regs.checked_mul(&lanes)?;
    let mut k_tile = warp / non_k_dim * k_width as i64;
    if (md == 64 && nd == 4 && op_idx == 0) || (md == 4 && nd == 64 && op_idx == 1) {
        tile = tile.checked_mul(&id(16, "register", dim_k)?)?;
        k_tile *= 16;
    }
    if k_size > k_tile {
        tile = tile.checked_mul(&id(k_size / k_tile, "register", dim_k)?)?;
    }
    tile = tile.checked_mul(&id(tpw_non_k, "register", dim_nk)?)?;
    tile = tile.transpose_outs(&[dim_k, dim_nk])?;
    if batch {
        let b = &names[order[2] as usize];
        tile = tile.checked_mul(&id(1, "register", b)?)?;
        tile = tile.checked_mul(&id(1, "lane", b)?)?;
    }
    let warps = identity_standard_nd("warp", &m.warps_per_cta, &warp_order)?;
    let cta = tile.checked_mul(&warps)?;
    combine_cta_cga_with_shape(cta, &m.cga, shape)?.transpose_outs(&names)
}

/// `chooseWmmaCTALinearLayout`: the `ctaLayout` of the legacy `warpsPerCTA` form.
pub fn wmma_cta_layout(warps_per_cta: &[u32], tiles_per_warp: &[u32]) -> Result<LinearLayout> {
    let rank = warps_per_cta.len();
    if tiles_per_warp.len() != rank {
        bail!(
            "amd_wmma: tilesPerWarp {:?} and warpsPerCTA {:?} must have the same rank",
            tiles_per_warp,
            warps_per_cta
        );
    }
    let names = standard_out_dim_names(rank);
    let mut l = LinearLayout::empty();
    for d in matrix_order(rank, true) {
        let d = d as usize;
        l = l.checked_mul(&LinearLayout::identity_1d(
            to_i32(tiles_per_warp[d])?,
            "register",
            &names[d],
        )?)?;
        l = l.checked_mul(&LinearLayout::identity_1d(
            to_i32(warps_per_cta[d])?,
            "warp",
            &names[d],
        )?)?;
    }
    l.transpose_outs(&names)
}

fn check_wmma(m: &AmdWmma, shape: &[i64]) -> Result<usize> {
    let rank = m.cta_layout.num_out_dims();
    if !(1..=3).contains(&m.version) {
        bail!(
            "amd_wmma version must be in the [1, 3] range, got {}",
            m.version
        );
    }
    if !(2..=3).contains(&rank) || shape.len() != rank || m.cga.rank() != rank {
        bail!(
            "amd_wmma: the layout has rank {} but the tensor shape is {:?}",
            rank,
            shape
        );
    }
    let ok = match m.version {
        1 => m.instr_shape == [16, 16, 16],
        2 => m.instr_shape == [16, 16, 16] || m.instr_shape == [16, 16, 32],
        _ => [
            [16, 16, 4],
            [16, 16, 32],
            [16, 16, 64],
            [16, 16, 128],
            [32, 16, 64],
            [32, 16, 128],
        ]
        .iter()
        .any(|s| m.instr_shape == s),
    };
    if !ok {
        bail!(
            "invalid WMMA v{} instruction shape {:?}",
            m.version,
            m.instr_shape
        );
    }
    if m.cta_layout.in_dim_names().collect::<Vec<_>>() != ["register", "warp"] {
        bail!("amd_wmma: ctaLayout must have in-dims register and warp");
    }
    Ok(rank)
}

fn wmma_tile(m: &AmdWmma, rank: usize) -> Result<LinearLayout> {
    let names = standard_out_dim_names(rank);
    let to = matrix_order(rank, !m.is_transposed);
    let outs = [names[to[0] as usize].clone(), names[to[1] as usize].clone()];
    let (mut regs, lanes): (Vec<Vec<i32>>, Vec<Vec<i32>>) = if m.version == 1 {
        (
            alloc::vec![alloc::vec![0, 2], alloc::vec![0, 4], alloc::vec![0, 8]],
            alloc::vec![
                alloc::vec![1, 0],
                alloc::vec![2, 0],
                alloc::vec![4, 0],
                alloc::vec![8, 0],
                alloc::vec![0, 1]
            ],
        )
    } else {
        (
            alloc::vec![alloc::vec![0, 1], alloc::vec![0, 2], alloc::vec![0, 4]],
            alloc::vec![
                alloc::vec![1, 0],
                alloc::vec![2, 0],
                alloc::vec![4, 0],
                alloc::vec![8, 0],
                alloc::vec![0, 8]
            ],
        )
    };
    if m.instr_shape[0] == 32 {
        // gfx1250's 32x16 instructions hold two 16-row halves in one more register bit, along
        // the registers' dim (N when transposed, as Triton 3.9 lays it out).
        regs.push(alloc::vec![0, 16]);
    }
    let mut t = LinearLayout::from_bases(
        alloc::vec![("register".into(), regs), ("lane".into(), lanes)],
        &outs,
    )?;
    if rank == 3 {
        t = t.checked_mul(&LinearLayout::identity_1d(1, "register", &names[0])?)?;
        t = t.checked_mul(&LinearLayout::identity_1d(1, "lane", &names[0])?)?;
    }
    t.transpose_outs(&names)
}

pub(crate) fn wmma(m: &AmdWmma, shape: &[i64]) -> Result<LinearLayout> {
    let rank = check_wmma(m, shape)?;
    let l = wmma_tile(m, rank)?.checked_mul(&m.cta_layout)?;
    let names = standard_out_dim_names(rank);
    let rep: Vec<String> = matrix_order(rank, true)
        .iter()
        .map(|&d| names[d as usize].clone())
        .collect();
    combine_cta_cga_with_shape(l.transpose_outs(&rep)?, &m.cga, shape)
}

pub(crate) fn wmma_dot(
    op_idx: u32,
    m: &AmdWmma,
    k_width: u32,
    shape: &[i64],
) -> Result<LinearLayout> {
    let rank = check_wmma(m, shape)?;
    let k_idx = check_dot(op_idx, rank, shape)?;
    if k_width == 0 || !is_pow2(k_width as i64) {
        bail!(
            "dot_op with an amd_wmma parent needs kWidth a power of two, got {}",
            k_width
        );
    }
    let names = standard_out_dim_names(rank);
    let order = order_for_dot_operand(op_idx, rank, true);
    let dim_k = &names[order[0] as usize];
    let dim_nk = &names[order[1] as usize];
    let k_dim = m.instr_shape[2] as i64;
    let k_size = shape[k_idx];
    // A 32x16 instruction spreads each operand over 16 lanes; the operand along the
    // accumulator's register dim (A, or B when transposed) holds two 16-wide halves in one more
    // register bit after the K tile (Triton 3.9's gfx1250 layout).
    let halves = if m.instr_shape[0] == 32 && (op_idx == 0) != m.is_transposed {
        2
    } else {
        1
    };
    let non_k_dim = if op_idx == 0 {
        m.instr_shape[0].min(16)
    } else {
        m.instr_shape[1]
    } as i64;
    let depth = 32 / non_k_dim;
    let mut tile =
        id(k_width as i64, "register", dim_k)?.checked_mul(&id(non_k_dim, "lane", dim_nk)?)?;
    tile = tile.checked_mul(&if m.version == 1 {
        LinearLayout::zeros_1d(depth as i32, "lane", dim_k, 1)?
    } else {
        id(depth, "lane", dim_k)?
    })?;
    let k_tile = depth * k_width as i64;
    // Triton 3.9 repeats the tile up to the instruction's K only; a larger tensor K is covered
    // by combineCtaCgaWithShape after the CTA layout (checked against Triton).
    let _ = k_size;
    tile = tile.checked_mul(&id(k_dim / k_tile, "register", dim_k)?)?;
    tile = tile.checked_mul(&id(halves, "register", dim_nk)?)?;
    let cta = project_away_out_dim(&m.cta_layout, dim_k)?;
    let cta = action_remove_broadcasted_regs(&cta)?.apply(&cta)?;
    let l = tile.checked_mul(&cta)?;
    let rep: Vec<String> = order.iter().map(|&d| names[d as usize].clone()).collect();
    let l = l.transpose_outs(&rep)?;
    let cga = super::distributed::dot_cga(op_idx, &m.cga)?;
    combine_cta_cga_with_shape(l, &cga, shape)
}

/// `#ttg.amd_mfma<{...}>`'s parameters.
pub(crate) fn parse_amd_mfma(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let mut p = Params::of(
        name,
        a,
        body,
        &[
            "version",
            "versionMajor",
            "versionMinor",
            "warpsPerCTA",
            "instrShape",
            "MDim",
            "NDim",
            "isTransposed",
            "tilesPerWarp",
            "elementBitWidth",
            "CGALayout",
            "CTAsPerCGA",
            "CTASplitNum",
            "CTAOrder",
        ],
    )?;
    let version = match p.get("version") {
        Some(v) => as_uint(v, "version")?,
        None => p.uint_or("versionMajor", 0)?,
    };
    let _ = p.uint_or("versionMinor", 0)?;
    let w = p.uints("warpsPerCTA")?;
    let instr = match p.uints_opt("instrShape")? {
        Some(s) => s,
        None => {
            let m = p.uint("MDim")?;
            let n = p.uint("NDim")?;
            alloc::vec![m, n]
        }
    };
    let t = p.bool_or("isTransposed", false)?;
    let tiles = p
        .uints_opt("tilesPerWarp")?
        .unwrap_or_else(|| alloc::vec![1; w.len()]);
    let ebw = p.uint_or("elementBitWidth", 32)?;
    let cga = parse_cga(&mut p, w.len())?;
    Ok(Encoding::AmdMfma(AmdMfma {
        version,
        warps_per_cta: w,
        instr_shape: instr,
        is_transposed: t,
        tiles_per_warp: tiles,
        element_bit_width: ebw,
        cga,
    }))
}

/// `#ttg.amd_wmma`'s `register, warp` layout: `ctaLayout = {...}`, or built from the legacy
/// `warpsPerCTA` (and `tilesPerWarp`).
fn parse_wmma_cta(p: &mut Params, rank_key: usize) -> R<LinearLayout> {
    if let Some(c) = p.get("ctaLayout") {
        let rank = if rank_key == 0 { 2 } else { rank_key };
        return wmma_cta_from_dict(c, rank);
    }
    if let Some(w) = p.uints_opt("warpsPerCTA")? {
        let tiles = p
            .uints_opt("tilesPerWarp")?
            .unwrap_or_else(|| alloc::vec![1; w.len()]);
        return wmma_cta_layout(&w, &tiles)
            .map_err(|e| ParseError::new(p.span(), e.message().to_string()));
    }
    Err(ParseError::new(
        p.span(),
        "#ttg.amd_wmma needs 'ctaLayout = {warp = [...]}' (or the legacy 'warpsPerCTA')",
    ))
}

/// `ctaLayout = {register = [...], warp = [...]}` (`register` may be absent: one register).
fn wmma_cta_from_dict(c: &Attr, rank: usize) -> R<LinearLayout> {
    let AttrKind::Dict(d) = &c.kind else {
        return Err(ParseError::new(
            c.span,
            "expected a dictionary value for 'ctaLayout'",
        ));
    };
    if d.iter().any(|(k, _, _)| k == "register") {
        // Triton prints ctaLayout with empty bases skipped.
        return linear_from_dict(
            c.span,
            d,
            &["register", "warp"],
            &["register", "warp"],
            rank,
        );
    }
    let w = linear_from_dict(c.span, d, &["warp"], &["warp"], rank)?;
    let r = w.num_out_dims();
    let names = standard_out_dim_names(r);
    LinearLayout::identity_1d(1, "register", &names[r - 1])
        .and_then(|reg| reg.checked_mul(&w))
        .map_err(|e| ParseError::new(c.span, e.message().to_string()))
}

/// `#ttg.amd_wmma<{...}>`'s parameters.
pub(crate) fn parse_amd_wmma(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let mut p = Params::of(
        name,
        a,
        body,
        &[
            "version",
            "isTranspose",
            "isTransposed",
            "ctaLayout",
            "warpsPerCTA",
            "tilesPerWarp",
            "instrShape",
            "rank",
            "CGALayout",
            "CTAsPerCGA",
            "CTASplitNum",
            "CTAOrder",
        ],
    )?;
    let version = p.uint("version")?;
    let t = if p.get("isTransposed").is_some() {
        p.bool_or("isTransposed", false)?
    } else {
        p.bool_or("isTranspose", false)?
    };
    let rank_key = p.uint_or("rank", 0)? as usize;
    let instr = p
        .uints_opt("instrShape")?
        .unwrap_or_else(|| alloc::vec![16, 16, 16]);
    let cta = parse_wmma_cta(&mut p, rank_key)?;
    let cga = parse_cga(&mut p, cta.num_out_dims())?;
    Ok(Encoding::AmdWmma(AmdWmma {
        version,
        is_transposed: t,
        cta_layout: cta,
        instr_shape: instr,
        cga,
    }))
}
