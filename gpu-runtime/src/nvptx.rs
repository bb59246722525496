//! The GPU backend: PTX special registers, `shfl.sync`, `bar.sync`, cluster barriers and
//! (distributed) shared-memory accesses through inline assembly. The type is documented on every
//! target; it is a [`Thread`](crate::Thread) only when building for `nvptx64-nvidia-cuda`. Kernels rarely name
//! it: `#[kernel]` (`linear_layouts::kernel`) creates it and hands the body a `&impl Thread`.

#[cfg(target_arch = "nvptx64")]
use core::arch::asm;

#[cfg(target_arch = "nvptx64")]
mod barriers;
#[cfg(target_arch = "nvptx64")]
mod hopper;

#[cfg(target_arch = "nvptx64")]
use crate::thread::Thread;

/// The calling GPU thread, its CTA's shared buffer and its block's dimensionality
/// (`BLOCK_DIMS`): with 1 (the default) the block is 1-D and the warp index is `%tid.x / 32`;
/// with 2 or 3 the warp index comes from the linear thread index
/// (`x + ntid.x * (y + ntid.y * z)`, as the hardware groups threads into warps), which costs
/// two multiply-adds. A kernel launched with a 2-D or 3-D block must say so (`#[kernel(block_dims
/// = 2)]`); `#[kernel]` refuses other values at compile time. `SHARED` is the dynamic shared
/// memory the kernel declares ([`Thread::SHARED_BYTES`](crate::Thread::SHARED_BYTES); `u32::MAX`: not known).
/// `GRID_DIMS` the grid's dimensions (`#[kernel(grid_dims = 1)]`): the CTA indices past them are
/// 0 and their sizes 1, with no register read, which the launcher's check of the grid keeps.
/// `BLOCK_X` the block's threads along x (`#[kernel(block = ..)]`; 0: not known):
/// [`Thread::BLOCK_THREADS`](crate::Thread::BLOCK_THREADS), so a store that guards against a
/// larger block (a warp-specialised CTA's "its first `THREADS` store") has no test where the
/// block is no larger.
pub struct GpuThread<
    const BLOCK_DIMS: u32 = 1,
    const SHARED: u32 = { u32::MAX },
    const GRID_DIMS: u32 = 3,
    const BLOCK_X: u32 = 0,
> {
    /// The buffer's address in the shared state space (what `st.shared` takes).
    #[cfg_attr(not(target_arch = "nvptx64"), allow(dead_code))]
    smem: u32,
    /// [`Thread::scratch_reads`] (a local flag: where the sequence of collective operations is
    /// straight-line, LLVM folds it away).
    #[cfg_attr(not(target_arch = "nvptx64"), allow(dead_code))]
    scratch: core::cell::Cell<bool>,
}

#[cfg(target_arch = "nvptx64")]
impl<const BLOCK_DIMS: u32, const SHARED: u32, const GRID_DIMS: u32, const BLOCK_X: u32>
    GpuThread<BLOCK_DIMS, SHARED, GRID_DIMS, BLOCK_X>
{
    /// The calling thread, using `smem` (a generic pointer into shared memory, such as
    /// `core::intrinsics::gpu::gpu_launch_sized_workgroup_mem`) for shared memory.
    ///
    /// # Safety
    /// `smem` must point to shared memory, 16-byte aligned (the widest access a plan makes),
    /// large enough for the conversions run with it (their `cost.shared_bytes`) and, unless
    /// `SHARED` is `u32::MAX`, at least `SHARED` bytes (safe shared tiles and scratch go
    /// anywhere inside them); the block
    /// must have `BLOCK_DIMS` dimensions or fewer (a 2-D block with `BLOCK_DIMS = 1` gets wrong
    /// warp indices), and the grid `GRID_DIMS` or fewer (its CTA indices past them read 0: two
    /// CTAs would take one partition's part); unless `BLOCK_X` is 0, the block has at most
    /// `BLOCK_X` threads along x (stores skip their test of the thread against it).
    #[inline(always)]
    pub unsafe fn new(smem: *mut u8) -> Self {
        const {
            assert!(
                BLOCK_DIMS >= 1 && BLOCK_DIMS <= 3 && GRID_DIMS >= 1 && GRID_DIMS <= 3,
                "BLOCK_DIMS and GRID_DIMS are 1, 2 or 3"
            )
        };
        let a: u64;
        // SAFETY: converting a generic address to a shared-window address.
        unsafe {
            asm!("cvta.to.shared.u64 {a}, {p};", a = out(reg64) a, p = in(reg64) smem as u64, options(pure, nomem, nostack))
        };
        GpuThread {
            smem: a as u32,
            scratch: Default::default(),
        }
    }
}

/// A special register (`%tid.x`, `%ctaid.y`, ...).
#[cfg(target_arch = "nvptx64")]
macro_rules! sreg {
    ($name:literal) => {{
        let r: u32;
        // SAFETY: reading a special register has no side effects.
        unsafe { asm!(concat!("mov.u32 {r}, ", $name, ";"), r = out(reg32) r, options(pure, nomem, nostack)) };
        r
    }};
}

/// The address of shared-window address `a` in the shared memory of CTA `cta` of the cluster.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn mapa(a: u32, cta: u32) -> u32 {
    let r: u32;
    // SAFETY: address arithmetic only.
    unsafe {
        asm!("mapa.shared::cluster.u32 {r}, {a}, {c};", r = out(reg32) r, a = in(reg32) a, c = in(reg32) cta, options(pure, nomem, nostack))
    };
    r
}

#[cfg(target_arch = "nvptx64")]
/// `st<space>` of the low `bytes` (1, 2, 4, 8 or 16) bytes of `w` at `a`.
macro_rules! st_as {
    ($space:literal, $a:expr, $bytes:expr, $w:expr) => {{
        let (a, w): (u32, [u32; 4]) = ($a, $w);
        match $bytes {
            1 => {
                asm!(concat!("st", $space, ".b8 [{a}], {v};"), a = in(reg32) a, v = in(reg16) w[0] as u16, options(nostack))
            }
            2 => {
                asm!(concat!("st", $space, ".b16 [{a}], {v};"), a = in(reg32) a, v = in(reg16) w[0] as u16, options(nostack))
            }
            4 => {
                asm!(concat!("st", $space, ".b32 [{a}], {v};"), a = in(reg32) a, v = in(reg32) w[0], options(nostack))
            }
            8 => {
                asm!(concat!("st", $space, ".v2.b32 [{a}], {{{x}, {y}}};"), a = in(reg32) a, x = in(reg32) w[0], y = in(reg32) w[1], options(nostack))
            }
            _ => {
                asm!(concat!("st", $space, ".v4.b32 [{a}], {{{x}, {y}, {z}, {u}}};"), a = in(reg32) a, x = in(reg32) w[0], y = in(reg32) w[1], z = in(reg32) w[2], u = in(reg32) w[3], options(nostack))
            }
        }
    }};
}

#[cfg(target_arch = "nvptx64")]
/// `ld<space>` of `bytes` (1, 2, 4, 8 or 16) bytes at `a`, zero-extended into words.
macro_rules! ld_as {
    ($space:literal, $a:expr, $bytes:expr) => {{
        let a: u32 = $a;
        let mut r = [0u32; 4];
        match $bytes {
            1 => {
                let x: u16;
                asm!(concat!("ld", $space, ".u8 {x}, [{a}];"), x = out(reg16) x, a = in(reg32) a, options(nostack, readonly));
                r[0] = x as u32 & 0xff;
            }
            2 => {
                let x: u16;
                asm!(concat!("ld", $space, ".b16 {x}, [{a}];"), x = out(reg16) x, a = in(reg32) a, options(nostack, readonly));
                r[0] = x as u32;
            }
            4 => {
                asm!(concat!("ld", $space, ".b32 {x}, [{a}];"), x = out(reg32) r[0], a = in(reg32) a, options(nostack, readonly))
            }
            8 => {
                asm!(concat!("ld", $space, ".v2.b32 {{{x}, {y}}}, [{a}];"), x = out(reg32) r[0], y = out(reg32) r[1], a = in(reg32) a, options(nostack, readonly))
            }
            _ => {
                asm!(concat!("ld", $space, ".v4.b32 {{{x}, {y}, {z}, {u}}}, [{a}];"), x = out(reg32) r[0], y = out(reg32) r[1], z = out(reg32) r[2], u = out(reg32) r[3], a = in(reg32) a, options(nostack, readonly))
            }
        }
        r
    }};
}

// SAFETY: the ids are the hardware's special registers; SHARED is the launch's bytes and
// BLOCK_X at least its block's threads along x (the contract of `GpuThread::new`).
#[cfg(target_arch = "nvptx64")]
unsafe impl<const BLOCK_DIMS: u32, const SHARED: u32, const GRID_DIMS: u32, const BLOCK_X: u32>
    Thread for GpuThread<BLOCK_DIMS, SHARED, GRID_DIMS, BLOCK_X>
{
    const SHARED_BYTES: Option<u32> = match SHARED {
        u32::MAX => None,
        bytes => Some(bytes),
    };
    const BLOCK_THREADS: Option<u32> = match BLOCK_X {
        0 => None,
        n => Some(n),
    };
    #[inline(always)]
    fn lane(&self) -> u32 {
        sreg!("%laneid")
    }
    #[inline(always)]
    fn warp(&self) -> u32 {
        let [x, y, z] = self.thread_idx();
        let linear = match BLOCK_DIMS {
            1 => x,
            2 => x + sreg!("%ntid.x") * y,
            _ => x + sreg!("%ntid.x") * (y + sreg!("%ntid.y") * z),
        };
        linear >> 5
    }
    #[inline(always)]
    fn block(&self) -> u32 {
        sreg!("%ctaid.x")
    }
    #[inline(always)]
    fn opaque(&self, x: u32) -> u32 {
        let r: u32;
        // SAFETY: a move; not `pure`, so that LLVM neither merges two of them nor sees through.
        unsafe {
            asm!("mov.b32 {r}, {x};", r = out(reg32) r, x = in(reg32) x, options(nomem, nostack))
        };
        r
    }
    #[inline(always)]
    fn thread_idx(&self) -> [u32; 3] {
        match BLOCK_DIMS {
            1 => [sreg!("%tid.x"), 0, 0],
            2 => [sreg!("%tid.x"), sreg!("%tid.y"), 0],
            _ => [sreg!("%tid.x"), sreg!("%tid.y"), sreg!("%tid.z")],
        }
    }
    #[inline(always)]
    fn block_dim(&self) -> [u32; 3] {
        [sreg!("%ntid.x"), sreg!("%ntid.y"), sreg!("%ntid.z")]
    }
    #[inline(always)]
    fn block_idx(&self) -> [u32; 3] {
        [
            sreg!("%ctaid.x"),
            if GRID_DIMS >= 2 { sreg!("%ctaid.y") } else { 0 },
            if GRID_DIMS >= 3 { sreg!("%ctaid.z") } else { 0 },
        ]
    }
    #[inline(always)]
    fn grid_dim(&self) -> [u32; 3] {
        [
            sreg!("%nctaid.x"),
            if GRID_DIMS >= 2 {
                sreg!("%nctaid.y")
            } else {
                1
            },
            if GRID_DIMS >= 3 {
                sreg!("%nctaid.z")
            } else {
                1
            },
        ]
    }
    #[inline(always)]
    fn cta_rank(&self) -> u32 {
        sreg!("%cluster_ctarank")
    }
    #[inline(always)]
    fn shfl_idx(&self, v: u32, src_lane: u32) -> u32 {
        let r: u32;
        // SAFETY: every lane of the warp executes the conversion's shuffles together.
        unsafe {
            asm!("shfl.sync.idx.b32 {r}, {v}, {l}, 31, -1;", r = out(reg32) r, v = in(reg32) v, l = in(reg32) src_lane, options(nostack))
        };
        r
    }
    #[inline(always)]
    fn shfl_xor(&self, v: u32, mask: u32) -> u32 {
        let r: u32;
        // SAFETY: as shfl_idx.
        unsafe {
            asm!("shfl.sync.bfly.b32 {r}, {v}, {m}, 31, -1;", r = out(reg32) r, v = in(reg32) v, m = in(reg32) mask, options(nostack))
        };
        r
    }
    #[inline(always)]
    fn redux(&self, op: crate::redux::Redux, v: u32) -> u32 {
        use crate::redux::Redux;
        let r: u32;
        // SAFETY: a warp-collective reduction of registers over every lane (the full mask);
        // every lane of the warp calls it, as it does a shuffle.
        unsafe {
            match op {
                Redux::Add => {
                    asm!("redux.sync.add.u32 {r}, {v}, -1;", r = out(reg32) r, v = in(reg32) v, options(nostack))
                }
                Redux::And => {
                    asm!("redux.sync.and.b32 {r}, {v}, -1;", r = out(reg32) r, v = in(reg32) v, options(nostack))
                }
                Redux::Or => {
                    asm!("redux.sync.or.b32 {r}, {v}, -1;", r = out(reg32) r, v = in(reg32) v, options(nostack))
                }
                Redux::Xor => {
                    asm!("redux.sync.xor.b32 {r}, {v}, -1;", r = out(reg32) r, v = in(reg32) v, options(nostack))
                }
                Redux::Min => {
                    asm!("redux.sync.min.s32 {r}, {v}, -1;", r = out(reg32) r, v = in(reg32) v, options(nostack))
                }
                Redux::Max => {
                    asm!("redux.sync.max.s32 {r}, {v}, -1;", r = out(reg32) r, v = in(reg32) v, options(nostack))
                }
                Redux::UMin => {
                    asm!("redux.sync.min.u32 {r}, {v}, -1;", r = out(reg32) r, v = in(reg32) v, options(nostack))
                }
                Redux::UMax => {
                    asm!("redux.sync.max.u32 {r}, {v}, -1;", r = out(reg32) r, v = in(reg32) v, options(nostack))
                }
            }
        };
        r
    }
    #[inline(always)]
    fn sync_warp(&self) {
        // SAFETY: a warp barrier.
        unsafe { asm!("bar.warp.sync -1;", options(nostack)) };
    }
    #[inline(always)]
    fn sync_block(&self) {
        // SAFETY: a CTA barrier reached by all threads (see `barriers`).
        unsafe { barriers::cta_sync(0) };
        // Every load before it is done: the scratch is free (see `Thread::scratch_reads`).
        self.scratch.set(false);
    }
    #[inline(always)]
    fn sync_cluster(&self) {
        // SAFETY: a cluster barrier reached by all threads of every CTA of the cluster (the
        // conversions that use it run in every thread). The default semantics are release on
        // arrive and acquire on wait, which orders the distributed shared-memory accesses.
        unsafe { barriers::cluster_sync() };
    }
    #[inline(always)]
    unsafe fn st_shared(&self, byte_offset: u32, bytes: u32, w: [u32; 4]) {
        let a = self.smem + byte_offset;
        // SAFETY: the caller keeps `Thread`'s shared-memory contract (in bounds, aligned,
        // ordered); `smem` is the dynamic shared buffer's address.
        unsafe { st_as!(".shared", a, bytes, w) }
    }
    #[inline(always)]
    unsafe fn ld_shared(&self, byte_offset: u32, bytes: u32) -> [u32; 4] {
        let a = self.smem + byte_offset;
        // SAFETY: as st_shared.
        unsafe { ld_as!(".shared", a, bytes) }
    }
    #[inline(always)]
    fn scratch_reads(&self) -> bool {
        self.scratch.get()
    }
    #[inline(always)]
    fn set_scratch_reads(&self, pending: bool) {
        self.scratch.set(pending)
    }
    #[inline(always)]
    unsafe fn st_shared_cluster(&self, cta: u32, byte_offset: u32, bytes: u32, w: [u32; 4]) {
        // The buffer's base is mapped (one `mapa` per target CTA, shared by every access to it:
        // the asm is pure), then offset: another CTA's shared memory is contiguous in the
        // cluster's window as it is in its own.
        let a = mapa(self.smem, cta) + byte_offset;
        // SAFETY: as st_shared, in the scratch buffer of a CTA of this cluster (every CTA runs
        // the same kernel, so the buffer sits at the same shared address in each).
        unsafe { st_as!(".shared::cluster", a, bytes, w) }
    }
    #[inline(always)]
    unsafe fn ld_shared_cluster(&self, cta: u32, byte_offset: u32, bytes: u32) -> [u32; 4] {
        let a = mapa(self.smem, cta) + byte_offset;
        // SAFETY: as st_shared_cluster.
        unsafe { ld_as!(".shared::cluster", a, bytes) }
    }
    #[inline(always)]
    unsafe fn ldmatrix(&self, count: u32, row_addr: u32, trans: bool) -> [u32; 4] {
        let a = self.smem + row_addr;
        let mut r = [0u32; 4];
        // SAFETY: every lane of the warp executes the conversion's ldmatrix together; the
        // addresses keep the caller's shared-memory contract. `count` and `trans`
        // are constants of the plan, so one arm remains.
        unsafe {
            match (count, trans) {
                (1, false) => {
                    asm!("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {{{x}}}, [{a}];", x = out(reg32) r[0], a = in(reg32) a, options(nostack, readonly))
                }
                (1, true) => {
                    asm!("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {{{x}}}, [{a}];", x = out(reg32) r[0], a = in(reg32) a, options(nostack, readonly))
                }
                (2, false) => {
                    asm!("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {{{x}, {y}}}, [{a}];", x = out(reg32) r[0], y = out(reg32) r[1], a = in(reg32) a, options(nostack, readonly))
                }
                (2, true) => {
                    asm!("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {{{x}, {y}}}, [{a}];", x = out(reg32) r[0], y = out(reg32) r[1], a = in(reg32) a, options(nostack, readonly))
                }
                (_, false) => {
                    asm!("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{x}, {y}, {z}, {u}}}, [{a}];", x = out(reg32) r[0], y = out(reg32) r[1], z = out(reg32) r[2], u = out(reg32) r[3], a = in(reg32) a, options(nostack, readonly))
                }
                (_, true) => {
                    asm!("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{{x}, {y}, {z}, {u}}}, [{a}];", x = out(reg32) r[0], y = out(reg32) r[1], z = out(reg32) r[2], u = out(reg32) r[3], a = in(reg32) a, options(nostack, readonly))
                }
            }
        }
        r
    }
    #[inline(always)]
    unsafe fn stmatrix(&self, count: u32, row_addr: u32, trans: bool, w: [u32; 4]) {
        let a = self.smem + row_addr;
        // SAFETY: as ldmatrix.
        unsafe {
            match (count, trans) {
                (1, false) => {
                    asm!("stmatrix.sync.aligned.m8n8.x1.shared.b16 [{a}], {{{x}}};", a = in(reg32) a, x = in(reg32) w[0], options(nostack))
                }
                (1, true) => {
                    asm!("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [{a}], {{{x}}};", a = in(reg32) a, x = in(reg32) w[0], options(nostack))
                }
                (2, false) => {
                    asm!("stmatrix.sync.aligned.m8n8.x2.shared.b16 [{a}], {{{x}, {y}}};", a = in(reg32) a, x = in(reg32) w[0], y = in(reg32) w[1], options(nostack))
                }
                (2, true) => {
                    asm!("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [{a}], {{{x}, {y}}};", a = in(reg32) a, x = in(reg32) w[0], y = in(reg32) w[1], options(nostack))
                }
                (_, false) => {
                    asm!("stmatrix.sync.aligned.m8n8.x4.shared.b16 [{a}], {{{x}, {y}, {z}, {u}}};", a = in(reg32) a, x = in(reg32) w[0], y = in(reg32) w[1], z = in(reg32) w[2], u = in(reg32) w[3], options(nostack))
                }
                (_, true) => {
                    asm!("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [{a}], {{{x}, {y}, {z}, {u}}};", a = in(reg32) a, x = in(reg32) w[0], y = in(reg32) w[1], z = in(reg32) w[2], u = in(reg32) w[3], options(nostack))
                }
            }
        }
    }
    #[inline(always)]
    unsafe fn cp_async(&self, byte_offset: u32, bytes: u32, src: crate::thread::CopySource) {
        let a = self.smem + byte_offset;
        let g = src.global();
        // SAFETY: the source is inside a kernel tensor (`Global::copy_to_shared`), the
        // destination keeps the caller's shared-memory contract. `.cg` (L2 only) for 16 bytes,
        // as Triton does; `.ca` is the only form of the narrower copies. `bytes` is a
        // constant: one arm remains.
        unsafe {
            match bytes {
                16 => {
                    asm!("cp.async.cg.shared.global [{a}], [{g}], 16;", a = in(reg32) a, g = in(reg64) g, options(nostack))
                }
                8 => {
                    asm!("cp.async.ca.shared.global [{a}], [{g}], 8;", a = in(reg32) a, g = in(reg64) g, options(nostack))
                }
                _ => {
                    asm!("cp.async.ca.shared.global [{a}], [{g}], 4;", a = in(reg32) a, g = in(reg64) g, options(nostack))
                }
            }
        }
    }
    #[inline(always)]
    fn cp_async_commit(&self) {
        // SAFETY: no operands; orders this thread's async copies only.
        unsafe { asm!("cp.async.commit_group;", options(nostack)) }
    }
    #[inline(always)]
    fn cp_async_wait<const PENDING: u32>(&self) {
        // SAFETY: no operands. Without `nomem`: shared loads after it must not move before it.
        unsafe { asm!("cp.async.wait_group {n};", n = const PENDING, options(nostack)) }
    }
    #[inline(always)]
    fn mma_m16n8k16(
        &self,
        kind: crate::mma::MmaKind,
        a: [u32; 4],
        b: [u32; 2],
        c: [f32; 4],
    ) -> [f32; 4] {
        let mut d = [0f32; 4];
        macro_rules! mma {
            ($ty:literal) => {
                asm!(
                    concat!("mma.sync.aligned.m16n8k16.row.col.f32.", $ty, ".", $ty, ".f32 {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{c0}, {c1}, {c2}, {c3}}};"),
                    d0 = out(reg32) d[0], d1 = out(reg32) d[1], d2 = out(reg32) d[2], d3 = out(reg32) d[3],
                    a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
                    b0 = in(reg32) b[0], b1 = in(reg32) b[1],
                    c0 = in(reg32) c[0], c1 = in(reg32) c[1], c2 = in(reg32) c[2], c3 = in(reg32) c[3],
                    options(pure, nomem, nostack)
                )
            };
        }
        // SAFETY: every lane of the warp executes the same mma together (Mma::run's steps are
        // constants); registers only. `kind` is a constant of the element type: one arm remains.
        unsafe {
            match kind {
                crate::mma::MmaKind::F16 => mma!("f16"),
                crate::mma::MmaKind::Bf16 => mma!("bf16"),
            }
        }
        d
    }
}
