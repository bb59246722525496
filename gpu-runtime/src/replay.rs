//! A plan's operations, recorded as a const tape while the compiler evaluates a const
//! (`layout_plan::trace`), replayed with every operand and every choice a constant at its use:
//! one written-out position per operation, each dispatching on consts, so that code generation
//! emits only the operations themselves, with literal operands, and LLVM receives the
//! straight-line code `convert!`'s proc macro would write (the same PTX, kernel for kernel).
//!
//! Nothing here is pruned before monomorphisation: the positions past the tape and the kinds a
//! position is not are branches on constants, which code generation drops. So a tape replays
//! alike whether its layouts are concrete types or generic parameters.

use crate::convert::{field, join, ld_at, st_at, word};
use crate::element::Element;
use crate::thread::{select, Thread};
use layout_plan::tape::kind;

/// Value slots of a replay (slot 0 is the zero word): as many as a tape numbers.
pub const SLOTS: usize = layout_plan::tape::TAPE_SLOTS;

/// A recorded plan: each operation `(kind, guard, fields)`.
pub trait Recorded {
    /// `(kind, guard slot + 1 or 0, eight 16-bit fields)`.
    const OPS: &'static [(u8, u16, u128)];
}

/// The op at `i`, or a no-op past the end.
pub const fn op(ops: &[(u8, u16, u128)], i: usize) -> (u8, u16, u128) {
    if i < ops.len() {
        ops[i]
    } else {
        (0, 0, 0)
    }
}

struct State<E, const ND: usize> {
    v: [u32; SLOTS],
    b: [bool; SLOTS],
    out: [E; ND],
}

#[inline(always)]
const fn f16(w: u128, i: u32) -> usize {
    (w >> (16 * i)) as u16 as usize
}

#[inline(always)]
const fn f32_(w: u128, i: u32) -> u32 {
    (w >> (16 * i)) as u32
}

#[cfg_attr(not(target_arch = "nvptx64"), inline(always))]
#[cfg_attr(target_arch = "nvptx64", rustc_force_inline)]
fn arm<P: Recorded, E: Element, T: Thread, const NS: usize, const ND: usize, const I: usize>(
    s: &mut State<E, ND>,
    t: &T,
    src: &[E; NS],
) {
    // Every operand and every choice is a `const` at its use, so that code generation emits
    // the chosen operation alone, with literal operands: no branch on plan data reaches LLVM.
    macro_rules! f {
        ($k:expr) => {
            const { f16(op(P::OPS, I).2, $k) }
        };
    }
    macro_rules! w {
        ($k:expr) => {
            const { f32_(op(P::OPS, I).2, $k) }
        };
    }
    if const { op(P::OPS, I).1 == 0 } || s.b[const { (op(P::OPS, I).1 as usize).saturating_sub(1) }]
    {
        match const { op(P::OPS, I).0 } {
            kind::MOV => s.out[f!(0)] = src[f!(1)],
            kind::COPY => s.out[f!(0)] = s.out[f!(1)],
            kind::PACK => {
                let (n, part) = (f!(1), f!(2) as u32);
                s.v[f!(0)] = match const { (op(P::OPS, I).2 >> 16) as u16 } {
                    1 => word::<E, 1>(&[src[f!(3)]], n, part),
                    2 => word::<E, 2>(&[src[f!(3)], src[f!(4)]], n, part),
                    3 => word::<E, 3>(&[src[f!(3)], src[f!(4)], src[f!(5)]], n, part),
                    _ => word::<E, 4>(&[src[f!(3)], src[f!(4)], src[f!(5)], src[f!(6)]], n, part),
                }
            }
            kind::SHIFT_DOWN => s.v[f!(0)] = s.v[f!(1)] >> (f!(2) as u32),
            kind::UNPACK => s.out[f!(0)] = field::<E>(s.v[f!(1)], f!(2) as u32),
            kind::UNPACK_PAIR => s.out[f!(0)] = join::<E>(s.v[f!(1)], s.v[f!(2)]),
            kind::LANE => s.v[f!(0)] = t.lane(),
            kind::WARP => s.v[f!(0)] = t.warp(),
            kind::RANK => s.v[f!(0)] = t.cta_rank(),
            kind::BIT => s.b[f!(0)] = (s.v[f!(1)] >> (f!(2) as u32)) & 1 != 0,
            kind::XOR => s.v[f!(0)] = s.v[f!(1)] ^ w!(2),
            kind::TERM => {
                let x = s.v[f!(1)] & w!(2);
                let t = if const { f16(op(P::OPS, I).2, 4) as u8 as i8 == 0 } {
                    x
                } else if const { (f16(op(P::OPS, I).2, 4) as u8 as i8) > 0 } {
                    x << const { f16(op(P::OPS, I).2, 4) as u8 as u32 }
                } else {
                    x >> const { (-(f16(op(P::OPS, I).2, 4) as u8 as i8)) as u32 }
                };
                s.v[f!(0)] = if const { f16(op(P::OPS, I).2, 5) & 1 != 0 } {
                    t
                } else if const { f16(op(P::OPS, I).2, 5) & 2 != 0 } {
                    s.v[f!(0)] | t
                } else {
                    s.v[f!(0)] ^ t
                };
            }
            kind::SELECT => s.v[f!(0)] = select(s.b[f!(1)], s.v[f!(2)], s.v[f!(3)]),
            kind::SHFL_XOR => s.v[f!(0)] = t.shfl_xor(s.v[f!(1)], w!(2)),
            kind::SHFL_IDX => s.v[f!(0)] = t.shfl_idx(s.v[f!(1)], s.v[f!(2)]),
            kind::OWNER => {
                let (l, wp) = (s.v[f!(1)], s.v[f!(2)]);
                s.b[f!(0)] = l & w!(3) == 0 && wp & w!(5) == 0;
            }
            kind::PAD => {
                // A padded address: each nonzero field `log2(interval) << 8 | log2(pad)` adds
                // `(a >> log2(interval)) << log2(pad)`.
                let a = s.v[f!(1)];
                let mut r = a;
                macro_rules! pad {
                    ($k:expr) => {
                        if const { f16(op(P::OPS, I).2, $k) != 0 } {
                            r += (a >> const { (f16(op(P::OPS, I).2, $k) >> 8) as u32 })
                                << const { (f16(op(P::OPS, I).2, $k) & 255) as u32 };
                        }
                    };
                }
                pad!(2);
                pad!(3);
                pad!(4);
                pad!(5);
                s.v[f!(0)] = r;
            }
            kind::ST => {
                let ws = [s.v[f!(3)], s.v[f!(4)], s.v[f!(5)], s.v[f!(6)]];
                st_at(
                    t,
                    const { f16(op(P::OPS, I).2, 0) != 0 },
                    s.v[f!(1)],
                    f!(2) as u32,
                    ws,
                );
            }
            kind::LD => {
                let x = ld_at(
                    t,
                    const { f16(op(P::OPS, I).2, 1) != 0 },
                    s.v[f!(2)],
                    f!(3) as u32,
                );
                s.v[f!(0)] = x[0];
                s.v[const { f16(op(P::OPS, I).2, 0) + 1 }] = x[1];
                s.v[const { f16(op(P::OPS, I).2, 0) + 2 }] = x[2];
                s.v[const { f16(op(P::OPS, I).2, 0) + 3 }] = x[3];
            }
            kind::STMATRIX => {
                let ws = [s.v[f!(3)], s.v[f!(4)], s.v[f!(5)], s.v[f!(6)]];
                t.stmatrix(
                    f!(0) as u32,
                    s.v[f!(1)],
                    const { f16(op(P::OPS, I).2, 2) != 0 },
                    ws,
                );
            }
            kind::LDMATRIX => {
                let x = t.ldmatrix(
                    f!(1) as u32,
                    s.v[f!(2)],
                    const { f16(op(P::OPS, I).2, 3) != 0 },
                );
                s.v[f!(0)] = x[0];
                s.v[const { f16(op(P::OPS, I).2, 0) + 1 }] = x[1];
                s.v[const { f16(op(P::OPS, I).2, 0) + 2 }] = x[2];
                s.v[const { f16(op(P::OPS, I).2, 0) + 3 }] = x[3];
            }
            kind::BARRIER => match const { f16(op(P::OPS, I).2, 0) } {
                0 => t.sync_warp(),
                1 => t.sync_block(),
                _ => t.sync_cluster(),
            },
            kind::SCRATCH_WRITE_BEGIN => t.scratch_write_begin(),
            kind::SCRATCH_READS_PENDING => t.scratch_reads_pending(),
            _ => {}
        }
    }
}

macro_rules! arms16 {
    ($P:ident, $E:ident, $T:ident, $NS:ident, $ND:ident, $s:ident, $t:ident, $src:ident, $base:expr) => {
        arms16!(@ $P, $E, $T, $NS, $ND, $s, $t, $src, $base; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    };
    (@ $P:ident, $E:ident, $T:ident, $NS:ident, $ND:ident, $s:ident, $t:ident, $src:ident, $base:expr; $($k:literal)*) => {
        $( if const { $base + $k < $P::OPS.len() } {
            arm::<$P, $E, $T, $NS, $ND, { $base + $k }>(&mut $s, $t, $src);
        } )*
    };
}

macro_rules! arms256 {
    ($P:ident, $E:ident, $T:ident, $NS:ident, $ND:ident, $s:ident, $t:ident, $src:ident, $base:expr) => {
        arms256!(@ $P, $E, $T, $NS, $ND, $s, $t, $src, $base; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    };
    (@ $P:ident, $E:ident, $T:ident, $NS:ident, $ND:ident, $s:ident, $t:ident, $src:ident, $base:expr; $($k:literal)*) => {
        $( if const { $base + 16 * $k < $P::OPS.len() } {
            arms16!($P, $E, $T, $NS, $ND, $s, $t, $src, $base + 16 * $k);
        } )*
    };
}

macro_rules! tier {
    ($(#[$doc:meta])* $name:ident, $run:ident, $alone:ident, $($arms:ident($base:expr))*) => {
        $(#[$doc])*
        /// Force-inlined on nvptx (like each position), so that the tier is one function of
        /// constant operations before LLVM.
        #[cfg_attr(not(target_arch = "nvptx64"), inline(always))]
        #[cfg_attr(target_arch = "nvptx64", rustc_force_inline)]
        pub fn $name<P: Recorded, E: Element, T: Thread, const NS: usize, const ND: usize>(
            t: &T,
            src: &[E; NS],
        ) -> [E; ND] {
            let mut s = State {
                v: [0u32; SLOTS],
                b: [false; SLOTS],
                // A constant, so that code generation writes a memset, not a loop (a loop would
                // give LLVM's passes another function shape than the proc macro's `[0; N]`).
                out: [E::ZERO; ND],
            };
            $( $arms!(P, E, T, NS, ND, s, t, src, $base); )*
            s.out
        }

        /// The tier for a conversion: inlined into its caller before LLVM simplifies either,
        /// as the proc macro's conversion code is.
        #[inline(always)]
        pub fn $run<P: Recorded, E: Element, T: Thread, const NS: usize, const ND: usize>(
            t: &T,
            src: &[E; NS],
        ) -> [E; ND] {
            $name::<P, E, T, NS, ND>(t, src)
        }

        /// The tier for a store or a load: a function of its own, one per call site `S`, with
        /// no inline attribute (as the proc macro's store and load functions have none): LLVM
        /// simplifies it alone and then inlines it, as the last call of a local function.
        pub fn $alone<P: Recorded, E: Element, T: Thread, S, const NS: usize, const ND: usize>(
            t: &T,
            src: &[E; NS],
        ) -> [E; ND] {
            $name::<P, E, T, NS, ND>(t, src)
        }
    };
}

tier!(
    /// A tape of at most 16 operations.
    replay16, run16, alone16, arms16(0)
);
tier!(
    /// A tape of at most 64 operations.
    replay64, run64, alone64, arms16(0) arms16(16) arms16(32) arms16(48)
);
tier!(
    /// A tape of at most 256 operations.
    replay256, run256, alone256, arms256(0)
);
tier!(
    /// A tape of at most 512 operations.
    replay512, run512, alone512, arms256(0) arms256(256)
);

/// Replay conversion tape `P` on this thread: `src` in, the destination registers out, through
/// the smallest tier that holds the tape (only that tier is instantiated).
#[inline(always)]
pub fn run_tape<P: Recorded, E: Element, T: Thread, const NS: usize, const ND: usize>(
    t: &T,
    src: &[E; NS],
) -> [E; ND] {
    if const { P::OPS.len() <= 16 } {
        run16::<P, E, T, NS, ND>(t, src)
    } else if const { P::OPS.len() <= 64 } {
        run64::<P, E, T, NS, ND>(t, src)
    } else if const { P::OPS.len() <= 256 } {
        run256::<P, E, T, NS, ND>(t, src)
    } else {
        run512::<P, E, T, NS, ND>(t, src)
    }
}

/// Replay store or load tape `P` through the smallest tier that holds it, the instance of call
/// site `S` (each `convert!` names its own type).
#[inline(always)]
pub fn access_tape<P: Recorded, E: Element, T: Thread, S, const NS: usize, const ND: usize>(
    t: &T,
    src: &[E; NS],
) -> [E; ND] {
    if const { P::OPS.len() <= 16 } {
        alone16::<P, E, T, S, NS, ND>(t, src)
    } else if const { P::OPS.len() <= 64 } {
        alone64::<P, E, T, S, NS, ND>(t, src)
    } else if const { P::OPS.len() <= 256 } {
        alone256::<P, E, T, S, NS, ND>(t, src)
    } else {
        alone512::<P, E, T, S, NS, ND>(t, src)
    }
}
