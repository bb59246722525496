//! Every TritonGPU encoding, with Triton's `toLinearLayout(shape)` semantics.
//!
//! Distributed encodings map `register, lane, warp, block` to tensor coordinates; shared ones map
//! `offset, block`; Blackwell's tensor-memory ones `row, col, block`. A tensor smaller than the layout's tile broadcasts (bases become zero); a
//! larger one wraps (more registers or offsets), exactly as `combineCtaCgaWithShape` does.
//!
//! Each encoding's file also holds its `parse_<name>`, which reads its attribute's parameters;
//! `registry` lists them by TTGIR name for the parser.

mod amd;
mod cga;
mod distributed;
mod nvidia;
mod partitioned;
pub(crate) mod registry;
mod shared;
mod tmem;
mod tmem_reg;

use alloc::boxed::Box;
use alloc::vec::Vec;

pub use crate::cute::cute_swizzle;
pub use amd::wmma_cta_layout;
pub use cga::{combine_cta_cga_with_shape, shape_per_cta, Cga};
pub use partitioned::{partitioned, PartitionedShared};
pub use shared::PaddedShared;
pub use tmem::{tensor_memory, tensor_memory_scales, TensorMemory, TensorMemoryScales};
pub use tmem_reg::{tmem_messages, tmem_reg_layout, TmemAtom, TmemMessages};

use crate::{LinearLayout, Result};

/// `#ttg.blocked`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Blocked {
    /// Elements per thread along each dim.
    pub size_per_thread: Vec<u32>,
    /// Lanes along each dim.
    pub threads_per_warp: Vec<u32>,
    /// Warps along each dim.
    pub warps_per_cta: Vec<u32>,
    /// Dims from fastest to slowest.
    pub order: Vec<u32>,
    /// CTAs of the cluster.
    pub cga: Cga,
}

/// `#ttg.nvidia_mma` (Ampere v2, Hopper v3).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NvidiaMma {
    /// 2 (Ampere) or 3 (Hopper).
    pub version_major: u32,
    /// Minor version.
    pub version_minor: u32,
    /// Warps along each dim.
    pub warps_per_cta: Vec<u32>,
    /// Instruction tile: `[16, 8]` (v2) or `[16, N, K]` (v3).
    pub instr_shape: Vec<u32>,
    /// CTAs of the cluster.
    pub cga: Cga,
}

/// `#ttg.amd_mfma`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AmdMfma {
    /// 1..4 (CDNA generation).
    pub version: u32,
    /// Warps along each dim.
    pub warps_per_cta: Vec<u32>,
    /// `[M, N]` or `[M, N, K]`: 32x32, 16x16, 64x4 or 4x64.
    pub instr_shape: Vec<u32>,
    /// Transposed output ownership.
    pub is_transposed: bool,
    /// Tiles per warp along each dim.
    pub tiles_per_warp: Vec<u32>,
    /// 32 or 64.
    pub element_bit_width: u32,
    /// CTAs of the cluster.
    pub cga: Cga,
}

/// `#ttg.amd_wmma`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AmdWmma {
    /// 1..3 (RDNA generation).
    pub version: u32,
    /// Transposed ownership.
    pub is_transposed: bool,
    /// `register, warp -> dims` layout of the instruction tiles within a CTA.
    pub cta_layout: LinearLayout,
    /// `[M, N, K]`.
    pub instr_shape: Vec<u32>,
    /// CTAs of the cluster.
    pub cga: Cga,
}

/// `#ttg.swizzled_shared` and `#ttg.amd_rotating_shared`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SwizzledShared {
    /// Elements per swizzle unit.
    pub vec: u32,
    /// Rows sharing one phase.
    pub per_phase: u32,
    /// Number of phases.
    pub max_phase: u32,
    /// Dims from fastest to slowest.
    pub order: Vec<u32>,
    /// CTAs of the cluster.
    pub cga: Cga,
}

/// `#ttg.nvmma_shared`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NvmmaShared {
    /// 0, 32, 64 or 128.
    pub swizzling_byte_width: u32,
    /// K-major (false) or MN-major (true).
    pub transposed: bool,
    /// Element size in bits.
    pub element_bit_width: u32,
    /// fp4 padded to bytes.
    pub fp4_padded: bool,
    /// Rank (needed when the CGA layout is trivial).
    pub rank: usize,
    /// CTAs of the cluster.
    pub cga: Cga,
}

/// A TritonGPU layout attribute.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// `#ttg.blocked`.
    Blocked(Blocked),
    /// `#ttg.slice`: the parent with `dim` removed.
    Slice {
        /// The removed dim.
        dim: u32,
        /// The parent layout.
        parent: Box<Encoding>,
    },
    /// `#ttg.dot_op`.
    DotOperand {
        /// 0 (A) or 1 (B).
        op_idx: u32,
        /// The MMA or blocked parent.
        parent: Box<Encoding>,
        /// Consecutive K elements per thread.
        k_width: u32,
    },
    /// `#ttg.nvidia_mma`.
    NvidiaMma(NvidiaMma),
    /// `#ttg.amd_mfma`.
    AmdMfma(AmdMfma),
    /// `#ttg.amd_wmma`.
    AmdWmma(AmdWmma),
    /// `#ttg.swizzled_shared`.
    SwizzledShared(SwizzledShared),
    /// `#ttg.amd_rotating_shared`.
    AmdRotatingShared(SwizzledShared),
    /// `#ttg.nvmma_shared`.
    NvmmaShared(NvmmaShared),
    /// `#ttg.padded_shared`.
    PaddedShared(PaddedShared),
    /// `#ttg.partitioned_shared`: in-dims `offset, block, partition`.
    PartitionedShared(PartitionedShared),
    /// `#ttg.linear`: register, lane, warp, block bases.
    Linear(LinearLayout),
    /// `#ttg.shared_linear`: offset, block bases and an alignment.
    SharedLinear {
        /// `offset, block -> dims`.
        layout: LinearLayout,
        /// Alignment in bytes.
        alignment: u32,
    },
    /// `#ttng.tensor_memory_encoding`: in-dims `row, col, block`.
    TensorMemory(TensorMemory),
    /// `#ttng.tensor_memory_scales_encoding`: in-dims `row, col, block`.
    TensorMemoryScales(TensorMemoryScales),
}

impl Encoding {
    /// Triton's `toLinearLayout(shape, attr)`. For `padded_shared`, the linear component
    /// (Triton's `paddedLinearLayout`).
    pub fn to_linear_layout(&self, shape: &[i64]) -> Result<LinearLayout> {
        match self {
            Encoding::Blocked(b) => distributed::blocked(b, shape),
            Encoding::Slice { dim, parent } => distributed::slice(*dim, parent, shape),
            Encoding::DotOperand {
                op_idx,
                parent,
                k_width,
            } => match &**parent {
                Encoding::Blocked(b) => distributed::fma_dot(*op_idx, b, shape),
                Encoding::NvidiaMma(m) => nvidia::dot(*op_idx, m, *k_width, shape),
                Encoding::AmdMfma(m) => amd::mfma_dot(*op_idx, m, *k_width, shape),
                Encoding::AmdWmma(m) => amd::wmma_dot(*op_idx, m, *k_width, shape),
                other => crate::error::bail!(
                    "dot_op: the parent must be blocked, nvidia_mma, amd_mfma or amd_wmma, not {}",
                    other.name()
                ),
            },
            Encoding::NvidiaMma(m) => nvidia::mma(m, shape),
            Encoding::AmdMfma(m) => amd::mfma(m, shape),
            Encoding::AmdWmma(m) => amd::wmma(m, shape),
            Encoding::SwizzledShared(s) => shared::swizzled(s, shape, false),
            Encoding::AmdRotatingShared(s) => shared::swizzled(s, shape, true),
            Encoding::NvmmaShared(s) => shared::nvmma(s, shape),
            Encoding::PaddedShared(p) => shared::padded(p, shape),
            Encoding::PartitionedShared(p) => partitioned::partitioned(p, shape),
            Encoding::Linear(l) => distributed::linear(l, shape),
            Encoding::SharedLinear { layout, .. } => shared::shared_linear(layout, shape),
            Encoding::TensorMemory(t) => tmem::tensor_memory(t, shape),
            Encoding::TensorMemoryScales(t) => tmem::tensor_memory_scales(t, shape),
        }
    }

    /// The attribute's mnemonic, as in `#ttg.<name>`.
    pub fn name(&self) -> &'static str {
        match self {
            Encoding::Blocked(_) => "blocked",
            Encoding::Slice { .. } => "slice",
            Encoding::DotOperand { .. } => "dot_op",
            Encoding::NvidiaMma(_) => "nvidia_mma",
            Encoding::AmdMfma(_) => "amd_mfma",
            Encoding::AmdWmma(_) => "amd_wmma",
            Encoding::SwizzledShared(_) => "swizzled_shared",
            Encoding::AmdRotatingShared(_) => "amd_rotating_shared",
            Encoding::NvmmaShared(_) => "nvmma_shared",
            Encoding::PaddedShared(_) => "padded_shared",
            Encoding::PartitionedShared(_) => "partitioned_shared",
            Encoding::Linear(_) => "linear",
            Encoding::SharedLinear { .. } => "shared_linear",
            Encoding::TensorMemory(_) => "tensor_memory_encoding",
            Encoding::TensorMemoryScales(_) => "tensor_memory_scales_encoding",
        }
    }

    /// The attribute's name with its dialect: `#ttg.blocked`, `#ttng.tensor_memory_encoding`.
    pub fn full_name(&self) -> alloc::string::String {
        crate::parse::params::full_name(self.name())
    }

    /// Tensor-memory layouts (in-dims `row, col, block`).
    pub fn is_tensor_memory(&self) -> bool {
        matches!(
            self,
            Encoding::TensorMemory(_) | Encoding::TensorMemoryScales(_)
        )
    }

    /// The in-dims of a layout that is neither distributed (`register, lane, warp, block`) nor
    /// one shared buffer (`offset, block`): tensor memory's `row, col, block`, partitioned shared
    /// memory's `offset, block, partition`. Views, plans and `layout!` types are for the other two.
    pub fn unusual_in_dims(&self) -> Option<&'static str> {
        match self {
            Encoding::TensorMemory(_) | Encoding::TensorMemoryScales(_) => Some("row, col, block"),
            Encoding::PartitionedShared(_) => Some("offset, block, partition"),
            _ => None,
        }
    }

    /// A padded shared layout's `(interval, pad)` pairs in elements (`#ttg.padded_shared<[512:+8]
    /// ...>`); empty for every other layout. Its addresses are its linear component's offsets
    /// with this padding ([`layout_plan::pad_address`] in bytes).
    pub fn padding(&self) -> Vec<(u32, u32)> {
        match self {
            Encoding::PaddedShared(p) => p.pairs(),
            _ => Vec::new(),
        }
    }

    /// Shared-memory layouts (in-dims `offset, block`) as opposed to distributed ones.
    pub fn is_shared(&self) -> bool {
        matches!(
            self,
            Encoding::SwizzledShared(_)
                | Encoding::AmdRotatingShared(_)
                | Encoding::NvmmaShared(_)
                | Encoding::PaddedShared(_)
                | Encoding::PartitionedShared(_)
                | Encoding::SharedLinear { .. }
        )
    }

    /// The warp size a layout runs on unless told otherwise: 64 lanes for AMD's MFMA layouts
    /// (CDNA wavefronts), 32 for everything else (NVIDIA warps, and RDNA's wave32 WMMA).
    pub fn default_warp_size(&self) -> u32 {
        match self {
            Encoding::AmdMfma(_) => AmdMfma::WARP_SIZE,
            Encoding::Slice { parent, .. } | Encoding::DotOperand { parent, .. } => {
                parent.default_warp_size()
            }
            _ => 32,
        }
    }

    /// The tensor rank the layout applies to.
    pub fn rank(&self) -> usize {
        match self {
            Encoding::Blocked(b) => b.order.len(),
            Encoding::Slice { parent, .. } => parent.rank().saturating_sub(1),
            Encoding::DotOperand { parent, .. } => parent.rank(),
            Encoding::NvidiaMma(m) => m.warps_per_cta.len(),
            Encoding::AmdMfma(m) => m.warps_per_cta.len(),
            Encoding::AmdWmma(m) => m.cta_layout.num_out_dims(),
            Encoding::SwizzledShared(s) | Encoding::AmdRotatingShared(s) => s.order.len(),
            Encoding::NvmmaShared(s) => s.rank,
            Encoding::PaddedShared(p) => p.linear.num_out_dims(),
            Encoding::PartitionedShared(p) => p.partition_layout.rank(),
            Encoding::Linear(l) | Encoding::SharedLinear { layout: l, .. } => l.num_out_dims(),
            Encoding::TensorMemory(_) | Encoding::TensorMemoryScales(_) => 2,
        }
    }

    /// The CGA layout (`getCGALayout`).
    pub fn cga(&self) -> Result<Cga> {
        Ok(match self {
            Encoding::Blocked(b) => b.cga.clone(),
            Encoding::NvidiaMma(m) => m.cga.clone(),
            Encoding::AmdMfma(m) => m.cga.clone(),
            Encoding::AmdWmma(m) => m.cga.clone(),
            Encoding::SwizzledShared(s) | Encoding::AmdRotatingShared(s) => s.cga.clone(),
            Encoding::NvmmaShared(s) => s.cga.clone(),
            Encoding::TensorMemory(t) => t.cga.clone(),
            Encoding::TensorMemoryScales(t) => t.cga.clone(),
            Encoding::PartitionedShared(p) => p.partition_layout.cga()?,
            Encoding::DotOperand { op_idx, parent, .. } => {
                distributed::dot_cga(*op_idx, &parent.cga()?)?
            }
            Encoding::Slice { dim, parent } => {
                let p = parent.cga()?;
                Cga {
                    layout: crate::utils::remove_standard_dim(&p.layout, *dim as usize)?,
                }
            }
            Encoding::Linear(l)
            | Encoding::SharedLinear { layout: l, .. }
            | Encoding::PaddedShared(PaddedShared { linear: l, .. }) => {
                let names: Vec<_> = l.out_dim_names().map(alloc::string::String::from).collect();
                let b = if l.has_in_dim("block") {
                    l.sublayout(&["block"], &names)?
                } else {
                    Cga::single(l.num_out_dims()).layout
                };
                Cga { layout: b }
            }
        })
    }
}
