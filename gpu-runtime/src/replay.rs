//! A plan's operations, recorded as a const tape while the compiler evaluates a const
//! (`layout_plan::trace`), and replayed on a thread: `step!` hands each operation to the
//! thread's `Values` machine, the same operation the interpreter runs when it walks the plan
//! itself (the tape adds only its encodings: a `TERM` is one term of a `linear`, a `PAD` the
//! padding's terms of `pad`, a guard a `begin_if`). It runs two ways:
//!
//! * **written out** (on nvptx): one position per operation, every operand and every choice a
//!   constant at its use, so that code generation emits only the operations themselves, with
//!   literal operands, and LLVM receives the straight-line code `convert!`'s proc macro would
//!   write (the same PTX, kernel for kernel). Nothing is pruned before monomorphisation: the
//!   positions past the tape and the kinds a position is not are branches on constants, which
//!   code generation drops, so a tape replays alike whether its layouts are concrete types or
//!   generic parameters.
//! * **looped** (on the host, where the simulator runs kernels): one loop over the tape, one
//!   instance per element and thread type. A written-out tape is a function instance per
//!   position, which a debug build compiles one by one (50 times the proc macro's compile time
//!   per conversion); the loop does the same operations in the same order.

use crate::convert::Values;
use crate::element::Element;
use crate::thread::Thread;
use layout_plan::exec::{Machine, SharedMachine};
/// The kinds of operation (the first field of an op).
pub use layout_plan::tape::kind;
use layout_plan::Barrier;

/// Value slots of a replay (slot 0 is the zero word): as many as a tape numbers.
pub const SLOTS: usize = layout_plan::tape::TAPE_SLOTS;

/// A recorded plan: each operation `(kind, guard, fields)`.
pub trait Recorded {
    /// `(kind, guard slot + 1 or 0, eight 16-bit fields)`.
    const OPS: &'static [(u8, u16, u128)];
    /// Operations on the tape (a const of its own, evaluated once per tape, not once per arm).
    const LEN: usize = Self::OPS.len();
}

/// An operation with its fields taken apart: what `step!` reads.
#[derive(Clone, Copy)]
pub struct Decoded {
    /// The kind.
    kind: u8,
    /// The guard: the condition's slot + 1, or 0.
    guard: u16,
    /// The eight 16-bit fields.
    f: [usize; 8],
    /// The 32-bit words that start at each field (masks and offsets).
    w: [u32; 8],
}

/// `o` taken apart.
#[inline(always)]
pub const fn decode(o: (u8, u16, u128)) -> Decoded {
    let mut d = Decoded {
        kind: o.0,
        guard: o.1,
        f: [0; 8],
        w: [0; 8],
    };
    let mut k = 0;
    while k < 8 {
        d.f[k] = (o.2 >> (16 * k)) as u16 as usize;
        d.w[k] = (o.2 >> (16 * k)) as u32;
        k += 1;
    }
    d
}

/// Position `I` of tape `P`, decoded once (a const per position: the written-out replay's
/// operands read its fields).
struct At<P, const I: usize>(core::marker::PhantomData<P>);

impl<P: Recorded, const I: usize> At<P, I> {
    const OP: Decoded = decode(op(P::OPS, I));
}

/// The op at `i`, or a no-op past the end.
pub const fn op(ops: &[(u8, u16, u128)], i: usize) -> (u8, u16, u128) {
    if i < ops.len() {
        ops[i]
    } else {
        (0, 0, 0)
    }
}

/// A replay's value slots (`NV`: as many as the tapes it replays can number) and flags; the
/// destination registers are its machine's. A written-out replay sizes them by its tier, not by
/// [`SLOTS`]: LLVM's scalar replacement of aggregates splits them into registers, at a cost that
/// grows with their size.
struct Slots<const NV: usize> {
    v: [u32; NV],
    b: [bool; NV],
}

/// The value slots a tape of `ops` operations can number: each operation numbers four at most
/// (a shared load's words), after the zero word.
const fn slots_for(ops: usize) -> usize {
    let n = 4 * ops + 1;
    if n < SLOTS {
        n
    } else {
        SLOTS
    }
}

/// Fresh slots of `$NV`.
macro_rules! fresh {
    ($NV:expr) => {
        Slots::<{ $NV }> {
            v: [0u32; $NV],
            b: [false; $NV],
        }
    };
}

/// `$e`, a constant at its use: the written-out replay's operands.
macro_rules! fixed {
    ($e:expr) => {
        const { $e }
    };
}

/// `$e`, a value: the looped replay's operands.
macro_rules! value {
    ($e:expr) => {
        $e
    };
}

/// Field `$k` of op `$o` (16 bits), through `$c`.
macro_rules! fld {
    ($c:ident, $o:expr, $k:expr) => {
        $c!($o.f[$k])
    };
}

/// The 32-bit word at field `$k` of op `$o`, through `$c`.
macro_rules! word32 {
    ($c:ident, $o:expr, $k:expr) => {
        $c!($o.w[$k])
    };
}

/// One padding term of a `PAD` op: a nonzero field `log2(interval) << 8 | log2(pad)` adds
/// `(a >> log2(interval)) << log2(pad)` to `$r`.
macro_rules! pad_term {
    ($c:ident, $o:expr, $r:ident, $a:ident, $k:expr) => {
        if $c!($o.f[$k] != 0) {
            $r += ($a >> $c!(($o.f[$k] >> 8) as u32)) << $c!(($o.f[$k] & 255) as u32);
        }
    };
}

/// An access's four words `$x` into four slots, from the one field `$k` of op `$o` names.
macro_rules! four {
    ($c:ident, $o:expr, $s:ident, $x:ident, $k:expr) => {
        $s.v[fld!($c, $o, $k)] = $x[0];
        $s.v[$c!($o.f[$k] + 1)] = $x[1];
        $s.v[$c!($o.f[$k] + 2)] = $x[2];
        $s.v[$c!($o.f[$k] + 3)] = $x[3];
    };
}

/// Op `$o` on machine `$m` (a thread's [`Values`]: source and destination registers, shared
/// memory, shuffles, barriers) with slots `$s`: the one dispatch of both replays, each kind the
/// machine operation the executor recorded (a `TERM` is one term of its `linear`, a `PAD` its
/// `pad`'s terms, and a guard its `begin_if`). `$c` is [`fixed!`] (every operand and every choice a constant at its use,
/// so that code generation emits the chosen operation alone, with literal operands: no branch
/// on plan data reaches LLVM) or [`value!`] (the loop's).
macro_rules! step {
    ($c:ident, $o:expr, $s:ident, $m:ident) => {
        if $c!($o.guard == 0) || $s.b[$c!(($o.guard as usize).saturating_sub(1))] {
            match $c!($o.kind) {
                kind::MOV => $m.mov(fld!($c, $o, 0) as u16, fld!($c, $o, 1) as u16),
                kind::COPY => $m.copy(fld!($c, $o, 0) as u16, fld!($c, $o, 1) as u16),
                kind::PACK => {
                    let regs = [
                        fld!($c, $o, 3) as u16,
                        fld!($c, $o, 4) as u16,
                        fld!($c, $o, 5) as u16,
                        fld!($c, $o, 6) as u16,
                    ];
                    let n = fld!($c, $o, 1);
                    $s.v[fld!($c, $o, 0)] = $m.pack(&regs[..n], fld!($c, $o, 2) as u32);
                }
                kind::SHIFT_DOWN => {
                    $s.v[fld!($c, $o, 0)] =
                        $m.shift_down($s.v[fld!($c, $o, 1)], fld!($c, $o, 2) as u32)
                }
                kind::UNPACK => $m.unpack(
                    fld!($c, $o, 0) as u16,
                    $s.v[fld!($c, $o, 1)],
                    fld!($c, $o, 2) as u32,
                ),
                kind::UNPACK_PAIR => $m.unpack_pair(
                    fld!($c, $o, 0) as u16,
                    $s.v[fld!($c, $o, 1)],
                    $s.v[fld!($c, $o, 2)],
                ),
                kind::LANE => $s.v[fld!($c, $o, 0)] = $m.lane(),
                kind::WARP => $s.v[fld!($c, $o, 0)] = $m.warp(),
                kind::RANK => $s.v[fld!($c, $o, 0)] = $m.cta_rank(),
                kind::BIT => {
                    $s.b[fld!($c, $o, 0)] = $m.bit($s.v[fld!($c, $o, 1)], fld!($c, $o, 2) as u32)
                }
                kind::XOR => {
                    $s.v[fld!($c, $o, 0)] = $m.xor($s.v[fld!($c, $o, 1)], word32!($c, $o, 2))
                }
                kind::TERM => {
                    // A masked term, shifted by the signed field 4, into its slot by field 5:
                    // set (1), or (2) or xor.
                    let x = $s.v[fld!($c, $o, 1)] & word32!($c, $o, 2);
                    let sh = if $c!($o.f[4] as u8 as i8 == 0) {
                        x
                    } else if $c!(($o.f[4] as u8 as i8) > 0) {
                        x << $c!($o.f[4] as u8 as u32)
                    } else {
                        x >> $c!((-($o.f[4] as u8 as i8)) as u32)
                    };
                    $s.v[fld!($c, $o, 0)] = if $c!($o.f[5] & 1 != 0) {
                        sh
                    } else if $c!($o.f[5] & 2 != 0) {
                        $s.v[fld!($c, $o, 0)] | sh
                    } else {
                        $s.v[fld!($c, $o, 0)] ^ sh
                    };
                }
                kind::SELECT => {
                    $s.v[fld!($c, $o, 0)] = $m.select(
                        $s.b[fld!($c, $o, 1)],
                        $s.v[fld!($c, $o, 2)],
                        $s.v[fld!($c, $o, 3)],
                    )
                }
                kind::SHFL_XOR => {
                    $s.v[fld!($c, $o, 0)] = $m.shfl_xor($s.v[fld!($c, $o, 1)], word32!($c, $o, 2))
                }
                kind::SHFL_IDX => {
                    $s.v[fld!($c, $o, 0)] =
                        $m.shfl_idx($s.v[fld!($c, $o, 1)], $s.v[fld!($c, $o, 2)])
                }
                kind::OWNER => {
                    $s.b[fld!($c, $o, 0)] = $m.owner(
                        $s.v[fld!($c, $o, 1)],
                        $s.v[fld!($c, $o, 2)],
                        word32!($c, $o, 3),
                        word32!($c, $o, 5),
                    )
                }
                kind::PAD => {
                    let a = $s.v[fld!($c, $o, 1)];
                    let mut r = a;
                    pad_term!($c, $o, r, a, 2);
                    pad_term!($c, $o, r, a, 3);
                    pad_term!($c, $o, r, a, 4);
                    pad_term!($c, $o, r, a, 5);
                    $s.v[fld!($c, $o, 0)] = r;
                }
                kind::ST => {
                    let ws = [
                        $s.v[fld!($c, $o, 3)],
                        $s.v[fld!($c, $o, 4)],
                        $s.v[fld!($c, $o, 5)],
                        $s.v[fld!($c, $o, 6)],
                    ];
                    $m.st_shared(
                        $c!($o.f[0] != 0),
                        $s.v[fld!($c, $o, 1)],
                        fld!($c, $o, 2) as u32,
                        ws,
                    );
                }
                kind::LD => {
                    let x = $m.ld_shared(
                        $c!($o.f[1] != 0),
                        $s.v[fld!($c, $o, 2)],
                        fld!($c, $o, 3) as u32,
                    );
                    four!($c, $o, $s, x, 0);
                }
                kind::STMATRIX => {
                    let ws = [
                        $s.v[fld!($c, $o, 3)],
                        $s.v[fld!($c, $o, 4)],
                        $s.v[fld!($c, $o, 5)],
                        $s.v[fld!($c, $o, 6)],
                    ];
                    $m.stmatrix(
                        fld!($c, $o, 0) as u8,
                        $s.v[fld!($c, $o, 1)],
                        $c!($o.f[2] != 0),
                        ws,
                    );
                }
                kind::LDMATRIX => {
                    let x = $m.ldmatrix(
                        fld!($c, $o, 1) as u8,
                        $s.v[fld!($c, $o, 2)],
                        $c!($o.f[3] != 0),
                    );
                    four!($c, $o, $s, x, 0);
                }
                kind::BARRIER => $m.barrier(match fld!($c, $o, 0) {
                    0 => Barrier::Warp,
                    1 => Barrier::Block,
                    _ => Barrier::Cluster,
                }),
                kind::SCRATCH_WRITE_BEGIN => $m.scratch_write_begin(),
                kind::SCRATCH_READS_PENDING => $m.scratch_reads_pending(),
                _ => {}
            }
        }
    };
}

/// Position `I` of tape `P`, written out.
#[cfg_attr(not(target_arch = "nvptx64"), inline(always))]
#[cfg_attr(target_arch = "nvptx64", rustc_force_inline)]
fn arm<P: Recorded, E: Element, T: Thread, const NV: usize, const I: usize>(
    s: &mut Slots<NV>,
    m: &mut Values<'_, E, T>,
) {
    step!(fixed, At::<P, I>::OP, s, m)
}

macro_rules! arms16 {
    ($P:ident, $E:ident, $T:ident, $s:ident, $m:ident, $base:expr) => {
        arms16!(@ $P, $E, $T, $s, $m, $base; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    };
    (@ $P:ident, $E:ident, $T:ident, $s:ident, $m:ident, $base:expr; $($k:literal)*) => {
        $( if const { $base + $k < $P::LEN } {
            arm::<$P, $E, $T, NV, { $base + $k }>(&mut $s, &mut $m);
        } )*
    };
}

macro_rules! arms256 {
    ($P:ident, $E:ident, $T:ident, $s:ident, $m:ident, $base:expr) => {
        arms256!(@ $P, $E, $T, $s, $m, $base; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    };
    (@ $P:ident, $E:ident, $T:ident, $s:ident, $m:ident, $base:expr; $($k:literal)*) => {
        $( if const { $base + 16 * $k < $P::LEN } {
            arms16!($P, $E, $T, $s, $m, $base + 16 * $k);
        } )*
    };
}

macro_rules! tier {
    ($(#[$doc:meta])* $name:ident, $run:ident, $alone:ident, $ops:literal, $($arms:ident($base:expr))*) => {
        $(#[$doc])*
        /// Its positions are inlined in MIR (force-inlined on nvptx), so that the tier is one
        /// function of constant operations before LLVM; the tier itself is inlined by LLVM,
        /// not in MIR, where each of its callers would carry a copy of all its positions in
        /// the crate's metadata.
        #[inline(always)]
        #[cfg_attr(target_arch = "nvptx64", rustc_no_mir_inline)]
        pub fn $name<P: Recorded, E: Element, T: Thread, const NS: usize, const ND: usize>(
            t: &T,
            src: &[E; NS],
        ) -> [E; ND] {
            const NV: usize = slots_for($ops);
            let mut s = fresh!(NV);
            // A constant, so that code generation writes a memset, not a loop (a loop would
            // give LLVM's passes another function shape than the proc macro's `[0; N]`).
            let mut out = [E::ZERO; ND];
            let mut m = Values::new(t, src, &mut out);
            $( $arms!(P, E, T, s, m, $base); )*
            out
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

// The widest tier writes out 512 positions: a longer tape would lose its last operations.
const _: () = assert!(
    layout_plan::tape::TAPE_OPS <= 512,
    "replay's widest tier (replay512) writes out 512 positions: widen it with TAPE_OPS"
);

tier!(
    /// A tape of at most 16 operations.
    replay16, run16, alone16, 16, arms16(0)
);
tier!(
    /// A tape of at most 32 operations.
    replay32, run32, alone32, 32, arms16(0) arms16(16)
);
tier!(
    /// A tape of at most 64 operations.
    replay64, run64, alone64, 64, arms16(0) arms16(16) arms16(32) arms16(48)
);
tier!(
    /// A tape of at most 128 operations.
    replay128, run128, alone128, 128,
    arms16(0) arms16(16) arms16(32) arms16(48) arms16(64) arms16(80) arms16(96) arms16(112)
);
tier!(
    /// A tape of at most 256 operations.
    replay256, run256, alone256, 256, arms256(0)
);
tier!(
    /// A tape of at most 512 operations.
    replay512, run512, alone512, 512, arms256(0) arms256(256)
);

/// A written-out replay: the tier's function for one tape.
type Replay<E, T, const NS: usize, const ND: usize> = fn(&T, &[E; NS]) -> [E; ND];

/// The tier that holds tape `P`, chosen in a const whose value is the tier's function: the
/// other tiers appear only in the const's initialiser, which rustc evaluates, so it neither
/// instantiates them nor evaluates their positions' operands (a call that names every tier,
/// even in branches on constants, has all of them collected with every position's consts).
macro_rules! choose {
    ($P:ident, $tiers:ident) => {
        if $P::LEN <= 16 {
            $tiers.0
        } else if $P::LEN <= 32 {
            $tiers.1
        } else if $P::LEN <= 64 {
            $tiers.2
        } else if $P::LEN <= 128 {
            $tiers.3
        } else if $P::LEN <= 256 {
            $tiers.4
        } else {
            $tiers.5
        }
    };
}

/// Tape `P` written out (the tier that holds it, the only one instantiated): the
/// conversion's replay on nvptx, inlined into its caller. On the host it is only for tests
/// that check it against [`looped`].
#[inline(always)]
pub fn written_out<P: Recorded, E: Element, T: Thread, const NS: usize, const ND: usize>(
    t: &T,
    src: &[E; NS],
) -> [E; ND] {
    let tier: Replay<E, T, NS, ND> = const {
        let tiers: (Replay<E, T, NS, ND>, _, _, _, _, _) = (
            run16::<P, E, T, NS, ND>,
            run32::<P, E, T, NS, ND>,
            run64::<P, E, T, NS, ND>,
            run128::<P, E, T, NS, ND>,
            run256::<P, E, T, NS, ND>,
            run512::<P, E, T, NS, ND>,
        );
        choose!(P, tiers)
    };
    tier(t, src)
}

/// Tape `P` written out as a function of call site `S`'s own (a store's or a load's replay on
/// nvptx, each `convert!` naming its own type).
#[inline(always)]
pub fn written_out_alone<
    P: Recorded,
    E: Element,
    T: Thread,
    S,
    const NS: usize,
    const ND: usize,
>(
    t: &T,
    src: &[E; NS],
) -> [E; ND] {
    let tier: Replay<E, T, NS, ND> = const {
        let tiers: (Replay<E, T, NS, ND>, _, _, _, _, _) = (
            alone16::<P, E, T, S, NS, ND>,
            alone32::<P, E, T, S, NS, ND>,
            alone64::<P, E, T, S, NS, ND>,
            alone128::<P, E, T, S, NS, ND>,
            alone256::<P, E, T, S, NS, ND>,
            alone512::<P, E, T, S, NS, ND>,
        );
        choose!(P, tiers)
    };
    tier(t, src)
}

/// Tape `P` in one loop: the same ops as [`written_out`], in the same order, each dispatched
/// on its kind as it comes.
#[inline]
pub fn looped<P: Recorded, E: Element, T: Thread, const NS: usize, const ND: usize>(
    t: &T,
    src: &[E; NS],
) -> [E; ND] {
    let mut out = [E::ZERO; ND];
    replay_ops(P::OPS, t, src, &mut out);
    out
}

/// The operations `ops` of a tape (of at most [`SLOTS`] value slots) on this thread, `src` in,
/// the destination registers `out` out: [`looped`]'s loop, one instance per element type and
/// thread type, whatever the tape and the register counts (a debug build compiles it once, not
/// once per conversion). Also what replays a tape recorded at run time.
pub fn replay_ops<E: Element, T: Thread>(ops: &[(u8, u16, u128)], t: &T, src: &[E], out: &mut [E]) {
    let mut s = fresh!(SLOTS);
    let mut m = Values::new(t, src, out);
    for &o in ops {
        let d = decode(o);
        step!(value, d, s, m);
    }
}

/// Replay conversion tape `P` on this thread: `src` in, the destination registers out
/// (written out on nvptx, looped elsewhere).
#[inline(always)]
pub fn run_tape<P: Recorded, E: Element, T: Thread, const NS: usize, const ND: usize>(
    t: &T,
    src: &[E; NS],
) -> [E; ND] {
    #[cfg(target_arch = "nvptx64")]
    return written_out::<P, E, T, NS, ND>(t, src);
    #[cfg(not(target_arch = "nvptx64"))]
    return looped::<P, E, T, NS, ND>(t, src);
}

/// Replay store or load tape `P` of call site `S` (written out on nvptx, looped elsewhere).
#[inline(always)]
pub fn access_tape<P: Recorded, E: Element, T: Thread, S, const NS: usize, const ND: usize>(
    t: &T,
    src: &[E; NS],
) -> [E; ND] {
    #[cfg(target_arch = "nvptx64")]
    return written_out_alone::<P, E, T, S, NS, ND>(t, src);
    #[cfg(not(target_arch = "nvptx64"))]
    return looped::<P, E, T, NS, ND>(t, src);
}
