//! [`Hopper`] on the GPU: mbarriers, the copy engine's tile loads and warpgroup MMAs as inline
//! PTX. wgmma needs sm_90a (`layout-builder --arch sm_90a`).

use core::arch::asm;

use super::GpuThread;
use crate::hopper::{Hopper, TensorMap, WgmmaOp};
use crate::mma::MmaKind;

/// `wgmma.mma_async` of shape m64n`$n`k16 on the accumulators `$acc[$i]` (written out: inline
/// assembly takes each register as its own operand), `ta`/`tb` the transpose immediates.
macro_rules! wgmma_asm {
    ($acc:ident, $ty:literal, $n:literal, $a:ident, $b:ident, $scale:ident; $first:literal $($i:literal)*) => {
        asm!(
            concat!(
                "{{\n.reg .pred p;\nsetp.ne.b32 p, {s}, 0;\nwgmma.mma_async.sync.aligned.m64n", $n,
                "k16.f32.", $ty, ".", $ty, " {{{", $first, "}", $(", {", $i, "}",)*
                "}}, {a}, {b}, p, 1, 1, {ta}, {tb};\n}}"
            ),
            inout(reg32) $acc[$first], $(inout(reg32) $acc[$i],)*
            a = in(reg64) $a, b = in(reg64) $b, s = in(reg32) $scale,
            ta = const TA, tb = const TB,
            options(nostack)
        )
    };
}

/// One wgmma with constant transpose immediates; `acc.len()` (a constant) picks the shape.
#[inline(always)]
fn wgmma_t<const TA: u32, const TB: u32>(
    kind: MmaKind,
    a: u64,
    b: u64,
    acc: &mut [f32],
    accumulate: bool,
) {
    let s = accumulate as u32;
    // SAFETY: the warpgroup issues the same wgmma together (Wgmma::run's steps are constants);
    // the descriptors point into the kernel's shared buffer (checked on the simulator); the
    // accumulators are registers. Without `nomem`: it reads shared memory the copy engine wrote.
    unsafe {
        match (kind, acc.len()) {
            (MmaKind::F16, 32) => {
                let acc: &mut [f32; 32] = acc.try_into().unwrap_unchecked();
                wgmma_asm!(acc, "f16", "64", a, b, s; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
            }
            (MmaKind::F16, 64) => {
                let acc: &mut [f32; 64] = acc.try_into().unwrap_unchecked();
                wgmma_asm!(acc, "f16", "128", a, b, s; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63)
            }
            (MmaKind::F16, 128) => {
                let acc: &mut [f32; 128] = acc.try_into().unwrap_unchecked();
                wgmma_asm!(acc, "f16", "256", a, b, s; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127)
            }
            (MmaKind::Bf16, 32) => {
                let acc: &mut [f32; 32] = acc.try_into().unwrap_unchecked();
                wgmma_asm!(acc, "bf16", "64", a, b, s; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
            }
            (MmaKind::Bf16, 64) => {
                let acc: &mut [f32; 64] = acc.try_into().unwrap_unchecked();
                wgmma_asm!(acc, "bf16", "128", a, b, s; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63)
            }
            (MmaKind::Bf16, 128) => {
                let acc: &mut [f32; 128] = acc.try_into().unwrap_unchecked();
                wgmma_asm!(acc, "bf16", "256", a, b, s; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127)
            }
            _ => {}
        }
    }
}

/// `wgmma.mma_async` of shape m64n`$n`k16 with A from the registers `$a` (4 words).
macro_rules! wgmma_rs_asm {
    ($acc:ident, $ty:literal, $n:literal, $a:ident, $b:ident, $scale:ident; $first:literal $($i:literal)*) => {
        asm!(
            concat!(
                "{{\n.reg .pred p;\nsetp.ne.b32 p, {s}, 0;\nwgmma.mma_async.sync.aligned.m64n", $n,
                "k16.f32.", $ty, ".", $ty, " {{{", $first, "}", $(", {", $i, "}",)*
                "}}, {{{a0}, {a1}, {a2}, {a3}}}, {b}, p, 1, 1, {tb};\n}}"
            ),
            inout(reg32) $acc[$first], $(inout(reg32) $acc[$i],)*
            a0 = in(reg32) $a[0], a1 = in(reg32) $a[1], a2 = in(reg32) $a[2], a3 = in(reg32) $a[3],
            b = in(reg64) $b, s = in(reg32) $scale, tb = const TB,
            options(nostack)
        )
    };
}

/// One wgmma with A from registers and B's transpose immediate constant; `acc.len()` (a
/// constant) picks the shape.
#[inline(always)]
fn wgmma_rs_t<const TB: u32>(
    kind: MmaKind,
    a: [u32; 4],
    b: u64,
    acc: &mut [f32],
    accumulate: bool,
) {
    let s = accumulate as u32;
    // SAFETY: as `wgmma_t`'s; A is registers.
    unsafe {
        match (kind, acc.len()) {
            (MmaKind::F16, 32) => {
                let acc: &mut [f32; 32] = acc.try_into().unwrap_unchecked();
                wgmma_rs_asm!(acc, "f16", "64", a, b, s; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
            }
            (MmaKind::F16, 64) => {
                let acc: &mut [f32; 64] = acc.try_into().unwrap_unchecked();
                wgmma_rs_asm!(acc, "f16", "128", a, b, s; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63)
            }
            (MmaKind::Bf16, 32) => {
                let acc: &mut [f32; 32] = acc.try_into().unwrap_unchecked();
                wgmma_rs_asm!(acc, "bf16", "64", a, b, s; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
            }
            (MmaKind::Bf16, 64) => {
                let acc: &mut [f32; 64] = acc.try_into().unwrap_unchecked();
                wgmma_rs_asm!(acc, "bf16", "128", a, b, s; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63)
            }
            _ => {}
        }
    }
}

/// An empty asm block that reads and writes `$acc[$i]`: the compiler keeps every access to the
/// accumulators on its side of the block (CUTLASS's `warpgroup_fence_operand`).
macro_rules! fence_asm {
    ($acc:ident; $($i:literal)*) => {
        asm!(concat!("// wgmma accumulators:", $(" {", $i, "}",)*), $(inout(reg32) $acc[$i],)* options(nostack, nomem, preserves_flags))
    };
}

/// [`fence_asm!`] on `acc` (32, 64 or 128 registers).
#[inline(always)]
fn fence_operand(acc: &mut [f32]) {
    // SAFETY: an empty block.
    unsafe {
        match acc.len() {
            32 => {
                let acc: &mut [f32; 32] = acc.try_into().unwrap_unchecked();
                fence_asm!(acc; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
            }
            64 => {
                let acc: &mut [f32; 64] = acc.try_into().unwrap_unchecked();
                fence_asm!(acc; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63)
            }
            128 => {
                let acc: &mut [f32; 128] = acc.try_into().unwrap_unchecked();
                fence_asm!(acc; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127)
            }
            _ => {}
        }
    }
}

// SAFETY: as its `Thread` impl; `smem` is the window address of the dynamic shared memory.
unsafe impl<const BLOCK_DIMS: u32, const SHARED: u32, const GRID_DIMS: u32, const BLOCK_X: u32>
    Hopper for GpuThread<BLOCK_DIMS, SHARED, GRID_DIMS, BLOCK_X>
{
    #[inline(always)]
    fn shared_base(&self) -> u32 {
        // SAFETY: `GpuThread::new`'s contract: the buffer is 16-byte aligned (the kernel's
        // `.extern .shared .align 16`). Told to LLVM, offsets aligned in the window fold their
        // own alignment checks.
        unsafe { core::hint::assert_unchecked(self.smem.is_multiple_of(16)) };
        self.smem
    }
    #[inline(always)]
    unsafe fn mbarrier_init(&self, bar: u32, count: u32) {
        // SAFETY: the caller's contract: `bar` is in the kernel's shared buffer, 8-aligned.
        unsafe {
            asm!("mbarrier.init.shared::cta.b64 [{a}], {n};", a = in(reg32) self.smem + bar, n = in(reg32) count, options(nostack))
        }
    }
    #[inline(always)]
    fn fence_mbarrier_init(&self) {
        // SAFETY: a fence.
        unsafe { asm!("fence.mbarrier_init.release.cluster;", options(nostack)) }
    }
    #[inline(always)]
    unsafe fn mbarrier_arrive(&self, bar: u32) {
        // SAFETY: as mbarrier_init.
        unsafe {
            asm!("mbarrier.arrive.release.cta.shared::cta.b64 _, [{a}];", a = in(reg32) self.smem + bar, options(nostack))
        }
    }
    #[inline(always)]
    unsafe fn mbarrier_arrive_expect_tx(&self, bar: u32, bytes: u32) {
        // SAFETY: as mbarrier_init.
        unsafe {
            asm!("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [{a}], {n};", a = in(reg32) self.smem + bar, n = in(reg32) bytes, options(nostack))
        }
    }
    #[inline(always)]
    unsafe fn mbarrier_try_wait(&self, bar: u32, parity: u32) -> bool {
        let done: u32;
        // SAFETY: as mbarrier_init; the acquire orders later loads after the phase.
        unsafe {
            asm!(
                "{{\n.reg .pred p;\nmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [{a}], {ph};\nselp.u32 {d}, 1, 0, p;\n}}",
                a = in(reg32) self.smem + bar, ph = in(reg32) parity, d = out(reg32) done,
                options(nostack)
            )
        }
        done != 0
    }
    #[inline(always)]
    // The label is local to the block's `{ }` scope in PTX, so copies of the block (inlining,
    // unrolling) do not clash.
    #[allow(named_asm_labels)]
    unsafe fn mbarrier_wait(&self, bar: u32, parity: u32) {
        // SAFETY: as mbarrier_try_wait; the loop stays in one asm block, as CUTLASS's wait does.
        unsafe {
            asm!(
                "{{\n.reg .pred p;\nLAB_WAIT:\nmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [{a}], {ph};\n@!p bra LAB_WAIT;\n}}",
                a = in(reg32) self.smem + bar, ph = in(reg32) parity,
                options(nostack)
            )
        }
    }
    #[inline(always)]
    unsafe fn tma_load_2d<E: crate::Element>(
        &self,
        dst: u32,
        map: &TensorMap<'_, E>,
        coords: [u32; 2],
        bar: u32,
    ) {
        // SAFETY: the map describes a kernel tensor (TensorMap::from_ptr's contract); the box
        // at `dst` is in the shared buffer and aligned (the caller's contract), and so is `bar`
        // (checked on the simulator).
        unsafe {
            asm!(
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [{m}, {{{x}, {y}}}], [{b}];",
                d = in(reg32) self.smem + dst, m = in(reg64) map.address(),
                x = in(reg32) coords[1], y = in(reg32) coords[0], b = in(reg32) self.smem + bar,
                options(nostack)
            )
        }
    }
    #[inline(always)]
    fn fence_proxy_async(&self) {
        // SAFETY: a fence.
        unsafe { asm!("fence.proxy.async.shared::cta;", options(nostack)) }
    }
    #[inline(always)]
    fn bar_sync(&self, id: u32, threads: u32) {
        // SAFETY: a barrier; every thread of the set reaches it (the trait's contract).
        unsafe { super::barriers::cta_sync_count(id, threads) }
    }
    #[inline(always)]
    fn wgmma_fence(&self) {
        // SAFETY: a fence.
        unsafe { asm!("wgmma.fence.sync.aligned;", options(nostack)) }
    }
    #[inline(always)]
    unsafe fn wgmma(&self, op: WgmmaOp, a: u64, b: u64, acc: &mut [f32], accumulate: bool) {
        match (op.a_mn_major, op.b_mn_major) {
            (false, false) => wgmma_t::<0, 0>(op.kind, a, b, acc, accumulate),
            (false, true) => wgmma_t::<0, 1>(op.kind, a, b, acc, accumulate),
            (true, false) => wgmma_t::<1, 0>(op.kind, a, b, acc, accumulate),
            (true, true) => wgmma_t::<1, 1>(op.kind, a, b, acc, accumulate),
        }
    }
    #[inline(always)]
    unsafe fn wgmma_rs(&self, op: WgmmaOp, a: [u32; 4], b: u64, acc: &mut [f32], accumulate: bool) {
        if op.b_mn_major {
            wgmma_rs_t::<1>(op.kind, a, b, acc, accumulate)
        } else {
            wgmma_rs_t::<0>(op.kind, a, b, acc, accumulate)
        }
    }
    #[inline(always)]
    fn wgmma_fence_operand(&self, acc: &mut [f32]) {
        fence_operand(acc)
    }
    #[inline(always)]
    fn wgmma_commit(&self) {
        // SAFETY: no operands.
        unsafe { asm!("wgmma.commit_group.sync.aligned;", options(nostack)) }
    }
    #[inline(always)]
    fn wgmma_wait<const PENDING: u32>(&self) {
        // SAFETY: no operands. Without `nomem`: accumulator and shared accesses after it must
        // not move before it.
        unsafe { asm!("wgmma.wait_group.sync.aligned {n};", n = const PENDING, options(nostack)) }
    }
}
