//! The 16-bit floating formats tensor cores take, as their bits: IEEE half ([`F16`]) and
//! bfloat16 ([`Bf16`]), with exact widening to `f32` and round-to-nearest-even narrowing.
//!
//! Written here rather than taken from the `half` crate: these are `const fn`s that build
//! unchanged for nvptx and SPIR-V kernels (no intrinsics, no slices), and the host tests check
//! every one against `half`.

use crate::element::Element;

/// An IEEE 754 half-precision value, as its bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(transparent)]
pub struct F16(pub u16);

/// A bfloat16 value (the high half of an `f32`), as its bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(transparent)]
pub struct Bf16(pub u16);

impl F16 {
    /// 0.0 (a masked load's fill: `Tile::load_masked(.., F16::ZERO)`).
    pub const ZERO: F16 = F16(0x0000);
    /// 1.0.
    pub const ONE: F16 = F16(0x3c00);
    /// The largest finite half, 65504.
    pub const MAX: F16 = F16(0x7bff);
    /// +∞.
    pub const INFINITY: F16 = F16(0x7c00);
    /// −∞ (a max reduction's fill).
    pub const NEG_INFINITY: F16 = F16(0xfc00);

    /// The exact `f32` of this half.
    #[inline(always)]
    pub const fn to_f32(self) -> f32 {
        let h = self.0 as u32;
        let sign = (h & 0x8000) << 16;
        let (exp, man) = ((h >> 10) & 0x1f, h & 0x3ff);
        let bits = if exp == 31 {
            sign | 0x7f80_0000 | (man << 13)
        } else if exp != 0 {
            sign | ((exp + 112) << 23) | (man << 13)
        } else if man == 0 {
            sign
        } else {
            // Subnormal: shift the mantissa up to its leading one, lowering the exponent.
            let lead = man.leading_zeros() - 21;
            sign | ((113 - lead) << 23) | (((man << lead) & 0x3ff) << 13)
        };
        f32::from_bits(bits)
    }

    /// `x` rounded to the nearest half (ties to even); overflow gives infinity, NaN stays NaN.
    #[inline(always)]
    pub const fn from_f32(x: f32) -> F16 {
        let b = x.to_bits();
        let sign = ((b >> 16) & 0x8000) as u16;
        let (exp, man) = (((b >> 23) & 0xff) as i32, b & 0x7f_ffff);
        if exp == 255 {
            return F16(sign | 0x7c00 | if man != 0 { 0x200 } else { 0 });
        }
        let e = exp - 112;
        if e >= 31 {
            return F16(sign | 0x7c00);
        }
        if e <= 0 {
            // A half subnormal (or zero): the 24-bit significand shifted to units of 2^-24.
            if e < -10 {
                return F16(sign);
            }
            let shift = (14 - e) as u32;
            return F16(sign | round_shift(man | 0x80_0000, shift) as u16);
        }
        // Rounding may carry into the exponent, up to infinity: both are right.
        F16(sign | round_shift(((e as u32) << 23) | man, 13) as u16)
    }
}

/// `$t::round`: `$t::from_f32` as one `cvt.rn.$ptx.f32` on the GPU (the same rounding; the
/// bf16 form needs sm_80 on).
macro_rules! round {
    ($($t:ident => $ptx:literal),*) => {$(
        impl $t {
            #[doc = concat!("[`", stringify!($t), "::from_f32`] as one `cvt.rn.", $ptx, ".f32` on the GPU (the same rounding).")]
            #[inline(always)]
            pub fn round(x: f32) -> $t {
                #[cfg(target_arch = "nvptx64")]
                {
                    let h: u16;
                    // SAFETY: a register conversion.
                    unsafe {
                        core::arch::asm!(concat!("cvt.rn.", $ptx, ".f32 {h}, {x};"), h = out(reg16) h, x = in(reg32) x, options(pure, nomem, nostack))
                    };
                    $t(h)
                }
                #[cfg(not(target_arch = "nvptx64"))]
                $t::from_f32(x)
            }

            /// `[round(lo), round(hi)]`, on the GPU as one packed conversion
            /// (`cvt.rn.*x2.f32`): two halves that go on together as one 32-bit word (an MMA
            /// fragment's) cost one instruction, not two conversions and a pack.
            #[inline(always)]
            pub fn round2(lo: f32, hi: f32) -> [$t; 2] {
                #[cfg(target_arch = "nvptx64")]
                {
                    let w: u32;
                    // SAFETY: a register conversion.
                    unsafe {
                        core::arch::asm!(concat!("cvt.rn.", $ptx, "x2.f32 {w}, {hi}, {lo};"), w = out(reg32) w, hi = in(reg32) hi, lo = in(reg32) lo, options(pure, nomem, nostack))
                    };
                    [$t(w as u16), $t((w >> 16) as u16)]
                }
                #[cfg(not(target_arch = "nvptx64"))]
                [$t::round(lo), $t::round(hi)]
            }
        }
    )*};
}
round!(F16 => "f16", Bf16 => "bf16");

impl F16 {
    /// [`F16::to_f32`] as one `cvt.f32.f16` on the GPU (the same value): what kernels use,
    /// `to_f32` being the `const` form.
    #[inline(always)]
    pub fn widen(self) -> f32 {
        #[cfg(target_arch = "nvptx64")]
        {
            let x: f32;
            // SAFETY: a register conversion.
            unsafe {
                core::arch::asm!("cvt.f32.f16 {x}, {h};", x = out(reg32) x, h = in(reg16) self.0, options(pure, nomem, nostack))
            };
            x
        }
        #[cfg(not(target_arch = "nvptx64"))]
        self.to_f32()
    }
}

impl Bf16 {
    /// [`Bf16::to_f32`] (a shift on every target), named as [`F16::widen`].
    #[inline(always)]
    pub fn widen(self) -> f32 {
        self.to_f32()
    }
}

impl Bf16 {
    /// 0.0.
    pub const ZERO: Bf16 = Bf16(0x0000);
    /// 1.0.
    pub const ONE: Bf16 = Bf16(0x3f80);
    /// The largest finite bfloat16, about 3.39e38.
    pub const MAX: Bf16 = Bf16(0x7f7f);
    /// +∞.
    pub const INFINITY: Bf16 = Bf16(0x7f80);
    /// −∞.
    pub const NEG_INFINITY: Bf16 = Bf16(0xff80);

    /// The exact `f32` of this bfloat16.
    #[inline(always)]
    pub const fn to_f32(self) -> f32 {
        f32::from_bits((self.0 as u32) << 16)
    }

    /// `x` rounded to the nearest bfloat16 (ties to even); NaN stays NaN.
    #[inline(always)]
    pub const fn from_f32(x: f32) -> Bf16 {
        let b = x.to_bits();
        if (b & 0x7fff_ffff) > 0x7f80_0000 {
            return Bf16(((b >> 16) | 0x40) as u16);
        }
        Bf16(round_shift(b, 16) as u16)
    }
}

/// `v >> shift` rounded to nearest, ties to even (`shift` in 1..32).
#[inline(always)]
const fn round_shift(v: u32, shift: u32) -> u32 {
    let (q, rem, half) = (v >> shift, v & ((1 << shift) - 1), 1 << (shift - 1));
    if rem > half || (rem == half && q & 1 == 1) {
        q + 1
    } else {
        q
    }
}

macro_rules! bits16 {
    ($($t:ident),*) => {$(
        impl Element for $t {
            const BITS: u32 = 16;
            const ZERO: Self = $t(0);
            #[inline(always)]
            fn to_bits(self) -> u64 {
                self.0 as u64
            }
            #[inline(always)]
            fn from_bits(b: u64) -> Self {
                $t(b as u16)
            }
        }
    )*};
}
bits16!(F16, Bf16);
