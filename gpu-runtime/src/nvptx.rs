//! The GPU backend: PTX special registers, `shfl.sync`, `bar.sync` and shared-memory accesses
//! through inline assembly. Build-checked by `cargo xtask ptx`.

use core::arch::asm;

use crate::thread::Thread;

/// The calling GPU thread. `smem` is the CTA's shared buffer as a generic pointer (e.g. the
/// kernel's dynamic shared memory converted with `cvta.shared`).
pub struct GpuThread {
    smem: *mut u8,
}

impl GpuThread {
    /// The calling thread, using `smem` for shared memory.
    ///
    /// # Safety
    /// `smem` must point to shared memory large enough for the conversions run with it.
    #[inline(always)]
    pub unsafe fn new(smem: *mut u8) -> Self {
        GpuThread { smem }
    }
}

#[inline(always)]
fn sreg_tid_x() -> u32 {
    let r: u32;
    // SAFETY: reading a special register has no side effects.
    unsafe { asm!("mov.u32 {r}, %tid.x;", r = out(reg32) r, options(pure, nomem, nostack)) };
    r
}

impl Thread for GpuThread {
    #[inline(always)]
    fn lane(&self) -> u32 {
        let r: u32;
        // SAFETY: reading a special register has no side effects.
        unsafe { asm!("mov.u32 {r}, %laneid;", r = out(reg32) r, options(pure, nomem, nostack)) };
        r
    }
    #[inline(always)]
    fn warp(&self) -> u32 {
        sreg_tid_x() >> 5
    }
    #[inline(always)]
    fn block(&self) -> u32 {
        let r: u32;
        // SAFETY: reading a special register has no side effects.
        unsafe { asm!("mov.u32 {r}, %ctaid.x;", r = out(reg32) r, options(pure, nomem, nostack)) };
        r
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
    fn sync_warp(&self) {
        // SAFETY: a warp barrier.
        unsafe { asm!("bar.warp.sync -1;", options(nostack)) };
    }
    #[inline(always)]
    fn sync_block(&self) {
        // SAFETY: a CTA barrier reached by all threads.
        unsafe { asm!("bar.sync 0;", options(nostack)) };
    }
    #[inline(always)]
    fn st_shared(&self, byte_offset: u32, bytes: u32, w: [u32; 4]) {
        // SAFETY: the plan's offsets stay inside the scratch buffer (checked on the simulator).
        unsafe {
            let p = self.smem.add(byte_offset as usize);
            match bytes {
                1 => *p = w[0] as u8,
                2 => *(p as *mut u16) = w[0] as u16,
                4 => *(p as *mut u32) = w[0],
                8 => *(p as *mut [u32; 2]) = [w[0], w[1]],
                _ => *(p as *mut [u32; 4]) = w,
            }
        }
    }
    #[inline(always)]
    fn ld_shared(&self, byte_offset: u32, bytes: u32) -> [u32; 4] {
        // SAFETY: as st_shared.
        unsafe {
            let p = self.smem.add(byte_offset as usize);
            match bytes {
                1 => [*p as u32, 0, 0, 0],
                2 => [*(p as *const u16) as u32, 0, 0, 0],
                4 => [*(p as *const u32), 0, 0, 0],
                8 => {
                    let v = *(p as *const [u32; 2]);
                    [v[0], v[1], 0, 0]
                }
                _ => *(p as *const [u32; 4]),
            }
        }
    }
}
