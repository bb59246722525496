//! The target model: what the hardware offers a conversion. The planner takes a [`Target`] and
//! uses only what it has; the default, [`Target::SM_90`], gives Triton's plans for Hopper.

/// Which `ldmatrix` / `stmatrix` forms exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatrixOps {
    /// `ldmatrix` (sm_75 and later).
    pub ldmatrix: bool,
    /// `stmatrix` (sm_90 and later).
    pub stmatrix: bool,
    /// The `.trans` forms.
    pub trans: bool,
    /// Matrices per instruction that exist, as a bit set: bit 0 for `.x1`, 1 for `.x2`, 2 for
    /// `.x4`.
    pub counts: u8,
}

impl MatrixOps {
    /// No matrix instructions.
    pub const NONE: MatrixOps = MatrixOps {
        ldmatrix: false,
        stmatrix: false,
        trans: false,
        counts: 0,
    };

    /// Whether `.x{count}` exists for loads (`store = false`) or stores.
    pub const fn has(&self, store: bool, count: u8, trans: bool) -> bool {
        let op = if store { self.stmatrix } else { self.ldmatrix };
        let bit = match count {
            1 => 1,
            2 => 2,
            4 => 4,
            _ => 0,
        };
        op && (!trans || self.trans) && self.counts & bit != 0
    }
}

/// A GPU as the conversion planner sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The name `convert!(..., target = NAME)` and `layout --target NAME` use.
    pub name: &'static str,
    /// Lanes per warp (subgroup size): a power of two from 1 to 64.
    pub lanes: u32,
    /// Shared-memory banks.
    pub banks: u32,
    /// Bytes per bank.
    pub bank_bytes: u32,
    /// Matrix load/store instructions.
    pub matrix: MatrixOps,
    /// Whether the CTAs of a cluster reach each other's shared memory (distributed shared
    /// memory, cluster barriers).
    pub cluster_memory: bool,
    /// Bits a shuffle moves per lane.
    pub shuffle_bits: u32,
    /// Whose instructions access shared memory (for naming them).
    pub isa: Isa,
    /// The lanes one phase of a 16-byte vector load serves, as masks whose XOR span is phase 0's
    /// lanes (Triton's `laneMask` for AMD's `ds_read_b128`); all zero: consecutive lanes.
    pub load128_phase: [u32; 4],
    /// The transposed LDS reads the target has (AMD's `ds_read_tr`), which a load of 8- or
    /// 16-bit elements into registers uses where they fit.
    pub trans_read: LdsTranspose,
}

/// Which transposed LDS reads a target has, as Triton 3.9's AMD backend uses them
/// (`TargetInfo::queryLDSTransLoadParams`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LdsTranspose {
    /// None.
    None,
    /// CDNA4 (gfx950): `ds_read_b64_tr_b16` and `ds_read_b64_tr_b8`, 64 bits per lane.
    Cdna4,
    /// gfx1250: `ds_load_tr16_b128` (128 bits per lane) and `ds_load_tr8_b64` (64 bits, over
    /// two 8-byte halves).
    Gfx1250,
}

impl LdsTranspose {
    /// Bits each lane reads for elements of `bits` (8 or 16), or `None` without such a read.
    pub const fn lane_bits(self, bits: u32) -> Option<u32> {
        match (self, bits) {
            (LdsTranspose::Cdna4, 8 | 16) => Some(64),
            (LdsTranspose::Gfx1250, 16) => Some(128),
            (LdsTranspose::Gfx1250, 8) => Some(64),
            _ => None,
        }
    }
}

/// Whose instruction set a target's shared-memory accesses are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// NVIDIA PTX (`ld.shared.v4.b32`).
    Ptx,
    /// AMD GCN/CDNA/RDNA (`ds_read_b128`).
    Amdgcn,
    /// SPIR-V (`OpLoad` of workgroup memory).
    Spirv,
}

const NVIDIA_MATRIX: MatrixOps = MatrixOps {
    ldmatrix: true,
    stmatrix: true,
    trans: true,
    counts: 0b111,
};

impl Target {
    /// NVIDIA Hopper (sm_90): 32 lanes, 32 four-byte banks, `ldmatrix`/`stmatrix` (`.trans`),
    /// clusters with distributed shared memory. The default.
    pub const SM_90: Target = Target {
        name: "sm_90",
        lanes: 32,
        banks: 32,
        bank_bytes: 4,
        matrix: NVIDIA_MATRIX,
        cluster_memory: true,
        shuffle_bits: 32,
        isa: Isa::Ptx,
        load128_phase: [0; 4],
        trans_read: LdsTranspose::None,
    };

    /// NVIDIA Ampere (sm_80): no `stmatrix`, no clusters.
    pub const SM_80: Target = Target {
        name: "sm_80",
        matrix: MatrixOps {
            stmatrix: false,
            ..NVIDIA_MATRIX
        },
        cluster_memory: false,
        ..Target::SM_90
    };

    /// NVIDIA Blackwell (sm_100): for conversions, Hopper's shared memory, matrix instructions
    /// and clusters (tensor memory moves are `tcgen05.ld`/`st`, not conversions).
    pub const SM_100: Target = Target {
        name: "sm_100",
        ..Target::SM_90
    };

    /// AMD CDNA3 (gfx942, MI300) as Triton 3.9's AMD backend models it: 64-lane wavefronts, 32
    /// four-byte LDS banks, a `ds_read_b128` phase of lanes 0-3 and 20-23 (and their cosets), no
    /// matrix load/store instructions in conversions, no clusters.
    pub const GFX942: Target = Target {
        name: "gfx942",
        lanes: 64,
        banks: 32,
        bank_bytes: 4,
        matrix: MatrixOps::NONE,
        cluster_memory: false,
        shuffle_bits: 32,
        isa: Isa::Amdgcn,
        load128_phase: [1, 2, 20, 0],
        trans_read: LdsTranspose::None,
    };

    /// AMD CDNA4 (gfx950, MI350): 64 LDS banks, a `ds_read_b128` phase of lanes 0-3, 12-15,
    /// 20-23 and 24-27, transposed reads (`ds_read_b64_tr_b16`).
    pub const GFX950: Target = Target {
        name: "gfx950",
        banks: 64,
        load128_phase: [1, 2, 12, 20],
        trans_read: LdsTranspose::Cdna4,
        ..Target::GFX942
    };

    /// AMD gfx1250: 32-lane waves, 64 LDS banks, consecutive lanes per phase, transposed reads
    /// (`ds_load_tr16_b128`); clusters without distributed shared memory.
    pub const GFX1250: Target = Target {
        name: "gfx1250",
        lanes: 32,
        load128_phase: [0; 4],
        trans_read: LdsTranspose::Gfx1250,
        ..Target::GFX950
    };

    /// A Vulkan / SPIR-V device with subgroups of `lanes` invocations (8 or 16 on CPU drivers
    /// and Intel, 32 on NVIDIA and Apple, 64 on AMD): subgroup shuffles and workgroup shared
    /// memory, no matrix instructions, no clusters.
    pub const fn spirv(lanes: u32) -> Target {
        Target {
            name: match lanes {
                1 => "spirv_1",
                2 => "spirv_2",
                4 => "spirv_4",
                8 => "spirv_8",
                16 => "spirv_16",
                32 => "spirv_32",
                _ => "spirv_64",
            },
            lanes,
            banks: 32,
            bank_bytes: 4,
            matrix: MatrixOps::NONE,
            cluster_memory: false,
            shuffle_bits: 32,
            isa: Isa::Spirv,
            load128_phase: [0; 4],
            trans_read: LdsTranspose::None,
        }
    }

    /// The named targets: `sm_90`, `sm_80`, `sm_100`, `gfx942`, `gfx950`, `gfx1250`, `spirv_1`
    /// ... `spirv_64`.
    pub const ALL: [Target; 13] = [
        Target::SM_90,
        Target::SM_80,
        Target::SM_100,
        Target::GFX942,
        Target::GFX950,
        Target::GFX1250,
        Target::spirv(1),
        Target::spirv(2),
        Target::spirv(4),
        Target::spirv(8),
        Target::spirv(16),
        Target::spirv(32),
        Target::spirv(64),
    ];

    /// The target called `name`.
    pub fn by_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name == name)
    }

    /// How conversions are planned when no target is named: sm_90's banks, matrix instructions
    /// and cluster memory, with the layouts' own warp size (`lanes`).
    pub const fn unspecified(lanes: u32) -> Target {
        Target {
            name: "unspecified",
            lanes,
            ..Target::SM_90
        }
    }

    /// log2 of the lanes per warp.
    pub const fn lane_bits(&self) -> u32 {
        self.lanes.trailing_zeros()
    }
}

impl Default for Target {
    fn default() -> Self {
        Target::SM_90
    }
}
