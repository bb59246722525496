//! What a tensor core computes, without threads: the operand formats ([`MmaKind`]), their
//! exact widening to `f32`, and what `mma.sync.m16n8k16` gives one lane given every lane's
//! operand words ([`m16n8k16_lane`]). The `Thread` trait's default `mma_m16n8k16` (shuffles)
//! and the simulator's (one exchange) both compute through it; [`crate::mma`] builds typed
//! fragments on top.

use crate::float16::{Bf16, F16};

/// The operand format of an `mma`: its PTX type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaKind {
    /// IEEE half (`.f16`).
    F16,
    /// bfloat16 (`.bf16`).
    Bf16,
}

/// A half of `kind` as `f32`, exactly.
#[inline(always)]
pub fn widen(kind: MmaKind, h: u16) -> f32 {
    match kind {
        MmaKind::F16 => F16(h).to_f32(),
        MmaKind::Bf16 => Bf16(h).to_f32(),
    }
}

/// What `mma.sync.m16n8k16` gives lane `lane` (see [`Thread::mma_m16n8k16`](crate::Thread::mma_m16n8k16)), reading word `w`
/// of any lane's `a` or `b` through `a_of(w, lane)` / `b_of(w, lane)`: shuffles on a warp, a
/// table on the simulator. Every lane reads the same words in the same order. The operands are
/// multiplied in f32, K in order, then `c` added.
#[inline(always)]
pub fn m16n8k16_lane(
    kind: MmaKind,
    lane: u32,
    mut a_of: impl FnMut(usize, u32) -> u32,
    mut b_of: impl FnMut(usize, u32) -> u32,
    c: [f32; 4],
) -> [f32; 4] {
    let (g, t) = (lane / 4, lane % 4);
    let half = |w: u32, h: u32| widen(kind, (w >> (16 * h)) as u16);
    let mut sum = [0f32; 4];
    let mut kp = 0;
    while kp < 8 {
        // K = 2kp, 2kp + 1: A's word at lane 4g + kp % 4, B's at lane 4 col + kp % 4.
        let (hi, src) = ((kp / 4) as usize, kp % 4);
        let a_top = a_of(2 * hi, 4 * g + src);
        let a_bot = a_of(2 * hi + 1, 4 * g + src);
        let b_left = b_of(hi, 4 * (2 * t) + src);
        let b_right = b_of(hi, 4 * (2 * t + 1) + src);
        for h in 0..2 {
            let (x0, x1) = (half(a_top, h), half(a_bot, h));
            let (y0, y1) = (half(b_left, h), half(b_right, h));
            sum[0] += x0 * y0;
            sum[1] += x0 * y1;
            sum[2] += x1 * y0;
            sum[3] += x1 * y1;
        }
        kp += 1;
    }
    [sum[0] + c[0], sum[1] + c[1], sum[2] + c[2], sum[3] + c[3]]
}
