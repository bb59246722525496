//! Helpers that let Triton's C++ unit tests read almost verbatim in Rust: the attribute builders
//! of LinearLayoutConversionsTest (`blocked`, `mma`, `dot`, ...; overloads by arity), `S("x")`,
//! and `ll!`, the `LinearLayout({{S("in"), {{1}, {2}}}}, {S("out")})` constructor; and
//! [`bases_of`], which reads the bases the Triton fixtures hold.
#![allow(non_snake_case, dead_code, unused_macros, unused_imports)]

use std::borrow::Borrow;

pub use layout_core::encodings::{
    AmdMfma, AmdWmma, Blocked, Cga, NvidiaMma, NvmmaShared, SwizzledShared,
};
pub use layout_core::utils;
pub use layout_core::{Encoding, LinearLayout};

pub fn S(s: &'static str) -> &'static str {
    s
}

/// `LinearLayout(bases, outDimNames)` (sizes inferred, surjective) or
/// `LinearLayout(bases, {{name, size}, ...}, requireSurjective)`.
#[macro_export]
macro_rules! ll {
    ({ $( { $n:expr, { $( { $($v:expr),* $(,)? } ),* $(,)? } $(,)? } ),* $(,)? }, { $( { $o:expr, $s:expr } ),* $(,)? }, $surj:expr $(,)?) => {
        $crate::common::LinearLayout::from_parts(
            vec![ $( ($n.to_string(), vec![ $( vec![ $($v as i32),* ] ),* ]) ),* ],
            vec![ $( ($o.to_string(), $s as i32) ),* ],
            $surj,
        ).expect("ll!: invalid layout")
    };
    ({ $( { $n:expr, { $( { $($v:expr),* $(,)? } ),* $(,)? } $(,)? } ),* $(,)? }, { $( $o:expr ),* $(,)? } $(,)?) => {
        $crate::common::LinearLayout::from_bases(
            vec![ $( ($n.to_string(), vec![ $( vec![ $($v as i32),* ] ),* ]) ),* ],
            &[ $( $o ),* ] as &[&str],
        ).expect("ll!: invalid layout")
    };
}
pub use ll;

pub fn toLinearLayout(shape: &[i64], enc: impl Borrow<Encoding>) -> LinearLayout {
    enc.borrow()
        .to_linear_layout(shape)
        .unwrap_or_else(|e| panic!("toLinearLayout({:?}): {}", shape, e))
}

pub fn identity1D(size: i32, i: &str, o: &str) -> LinearLayout {
    LinearLayout::identity_1d(size, i, o).unwrap()
}
pub fn zeros1D3(size: i32, i: &str, o: &str) -> LinearLayout {
    LinearLayout::zeros_1d(size, i, o, 1).unwrap()
}
pub fn zeros1D4(size: i32, i: &str, o: &str, out_size: i32) -> LinearLayout {
    LinearLayout::zeros_1d(size, i, o, out_size).unwrap()
}

/// The CGA Triton's mfma/wmma test helpers build: `fromSplitParams(ones, ones, [0, 1, ...])`.
fn one_cta_cga(rank: usize) -> Cga {
    let ones = vec![1; rank];
    cga(&ones, &ones, &(0..rank as u32).collect::<Vec<_>>())
}

fn cga(cpg: &[u32], split: &[u32], cord: &[u32]) -> Cga {
    Cga::from_split_params(cpg, split, cord).unwrap()
}

pub fn blocked(
    spt: &[u32],
    tpw: &[u32],
    wpb: &[u32],
    cpg: &[u32],
    split: &[u32],
    ord: &[u32],
    cord: &[u32],
) -> Encoding {
    Encoding::Blocked(Blocked {
        size_per_thread: spt.to_vec(),
        threads_per_warp: tpw.to_vec(),
        warps_per_cta: wpb.to_vec(),
        order: ord.to_vec(),
        cga: cga(cpg, split, cord),
    })
}

pub fn mma7(
    vmaj: u32,
    vmin: u32,
    instr: &[u32],
    wbp: &[u32],
    cpg: &[u32],
    split: &[u32],
    cord: &[u32],
) -> Encoding {
    Encoding::NvidiaMma(NvidiaMma {
        version_major: vmaj,
        version_minor: vmin,
        warps_per_cta: wbp.to_vec(),
        instr_shape: instr.to_vec(),
        cga: cga(cpg, split, cord),
    })
}

pub fn mma4(vmaj: u32, vmin: u32, instr: &[u32], warps: &[u32]) -> Encoding {
    Encoding::NvidiaMma(NvidiaMma {
        version_major: vmaj,
        version_minor: vmin,
        warps_per_cta: warps.to_vec(),
        instr_shape: instr.to_vec(),
        cga: Cga::single(warps.len()),
    })
}

pub fn dot(parent: impl Borrow<Encoding>, idx: u32, k_width: u32) -> Encoding {
    Encoding::DotOperand {
        op_idx: idx,
        parent: Box::new(parent.borrow().clone()),
        k_width,
    }
}
pub fn mfmaDotOp(parent: impl Borrow<Encoding>, idx: u32, k_width: u32) -> Encoding {
    dot(parent, idx, k_width)
}
pub fn wmmaDotOp(parent: impl Borrow<Encoding>, idx: u32, k_width: u32) -> Encoding {
    dot(parent, idx, k_width)
}

pub fn mfma6(
    version: u32,
    warps: &[u32],
    instr: &[u32],
    transposed: bool,
    tiles: &[u32],
    ebw: u32,
) -> Encoding {
    let ones = vec![1; warps.len()];
    Encoding::AmdMfma(AmdMfma {
        version,
        warps_per_cta: warps.to_vec(),
        instr_shape: instr.to_vec(),
        is_transposed: transposed,
        tiles_per_warp: if tiles.is_empty() {
            ones.clone()
        } else {
            tiles.to_vec()
        },
        element_bit_width: if ebw == 0 { 32 } else { ebw },
        cga: one_cta_cga(warps.len()),
    })
}
pub fn mfma5(
    version: u32,
    warps: &[u32],
    instr: &[u32],
    transposed: bool,
    tiles: &[u32],
) -> Encoding {
    mfma6(version, warps, instr, transposed, tiles, 0)
}
pub fn mfma4(version: u32, warps: &[u32], instr: &[u32], transposed: bool) -> Encoding {
    mfma6(version, warps, instr, transposed, &[], 0)
}

pub fn wmma4(warps: &[u32], version: u32, transposed: bool, instr: &[u32]) -> Encoding {
    let ones = vec![1; warps.len()];
    Encoding::AmdWmma(AmdWmma {
        version,
        is_transposed: transposed,
        cta_layout: layout_core::encodings::wmma_cta_layout(warps, &ones).unwrap(),
        instr_shape: instr.to_vec(),
        cga: one_cta_cga(warps.len()),
    })
}
pub fn wmma3(warps: &[u32], version: u32, transposed: bool) -> Encoding {
    wmma4(warps, version, transposed, &[16, 16, 16])
}

pub fn slice(parent: impl Borrow<Encoding>, dim: u32) -> Encoding {
    Encoding::Slice {
        dim,
        parent: Box::new(parent.borrow().clone()),
    }
}

fn swizzled(
    vec: u32,
    per_phase: u32,
    max_phase: u32,
    cpg: &[u32],
    split: &[u32],
    ord: &[u32],
    cord: &[u32],
) -> SwizzledShared {
    SwizzledShared {
        vec,
        per_phase,
        max_phase,
        order: ord.to_vec(),
        cga: cga(cpg, split, cord),
    }
}

pub fn shared(
    vec: u32,
    per_phase: u32,
    max_phase: u32,
    cpg: &[u32],
    split: &[u32],
    ord: &[u32],
    cord: &[u32],
) -> Encoding {
    Encoding::SwizzledShared(swizzled(vec, per_phase, max_phase, cpg, split, ord, cord))
}

pub fn AMDRotatingShared(
    vec: u32,
    per_phase: u32,
    max_phase: u32,
    cpg: &[u32],
    split: &[u32],
    ord: &[u32],
    cord: &[u32],
) -> Encoding {
    Encoding::AmdRotatingShared(swizzled(vec, per_phase, max_phase, cpg, split, ord, cord))
}

// Triton's test helper takes these eight arguments; the port keeps its signature.
#[allow(clippy::too_many_arguments)]
pub fn nvmmaShared8(
    sw: u32,
    transposed: bool,
    ebw: u32,
    cpg: &[u32],
    split: &[u32],
    _ord: &[u32],
    cord: &[u32],
    fp4: bool,
) -> Encoding {
    Encoding::NvmmaShared(NvmmaShared {
        swizzling_byte_width: sw,
        transposed,
        element_bit_width: ebw,
        fp4_padded: fp4,
        rank: cpg.len(),
        cga: cga(cpg, split, cord),
    })
}
pub fn nvmmaShared7(
    sw: u32,
    transposed: bool,
    ebw: u32,
    cpg: &[u32],
    split: &[u32],
    ord: &[u32],
    cord: &[u32],
) -> Encoding {
    nvmmaShared8(sw, transposed, ebw, cpg, split, ord, cord, false)
}

/// Bases as the fixtures write them (`[[0, 1], [1, 0]]`).
pub fn bases_of(v: &serde_json::Value) -> Vec<Vec<i32>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| {
            b.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap() as i32)
                .collect()
        })
        .collect()
}
