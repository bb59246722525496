//! Loops over a thread's registers written out as straight-line code. A register array stays in
//! registers only while every index into it is a constant; a loop the compiler declines to
//! unroll (LLVM's threshold is met by a few dozen iterations of a GEMM's epilogue) indexes it at
//! run time and moves the whole array to local memory. [`unroll!`](crate::unroll!) writes each iteration out
//! in optimised builds (up to [`UNROLLED`], a loop after), so the indices are constants;
//! debug builds (the simulator's tests) loop, the same calls in the same order, in a small
//! stack frame.

/// Iterations [`unroll!`](crate::unroll!) writes out; more run in a loop.
pub const UNROLLED: usize = 128;

/// `unroll!(n, |i| body)`: `body` for `i` = 0, 1, ..., `n - 1`, in order. `n` is a constant
/// expression (a literal, `N`, `Plan::<L>::STEPS`: the caller's generics may appear, its locals
/// may not). Optimised builds write each iteration out with `i` a constant, up to [`UNROLLED`]
/// (a loop after); each arm is kept or dropped when the function is instantiated (`if const`),
/// so the code handed to LLVM is `n` arms, not [`UNROLLED`] arms to fold away. Debug builds (the
/// simulator's tests) loop, the same calls in the same order, in a small stack frame.
///
/// A macro, not a function taking a closure: a closure called from many places may stay out of
/// line, and the arrays it borrows then live in memory. Do not nest it: rustc evaluates every
/// inline const of a body and collects every function it names, dead arms included, so an
/// `unroll!` inside an `unroll!` is [`UNROLLED`]² arms for the compiler to drop; put the inner
/// loop in an `#[inline(always)]` function and call that, marked
/// `#[cfg_attr(target_arch = "nvptx64", rustc_no_mir_inline)]` so that rustc's MIR inliner does
/// not nest it again before LLVM inlines it.
#[macro_export]
macro_rules! unroll {
    ($n:expr, |$i:ident| $body:expr) => {{
        #[cfg(not(debug_assertions))]
        {
            $crate::unroll!(@arms $n, $i, $body;
                0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
                32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
                64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95
                96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127);
            if const { $n > $crate::unroll::UNROLLED } {
                let mut next = $crate::unroll::UNROLLED;
                while next < const { $n } {
                    let $i = next;
                    $body;
                    next += 1;
                }
            }
        }
        #[cfg(debug_assertions)]
        {
            let mut next: usize = 0;
            while next < const { $n } {
                let $i = next;
                $body;
                next += 1;
            }
        }
    }};
    (@arms $n:expr, $i:ident, $body:expr; $($k:literal)*) => {$(
        if const { $k < $n } {
            // `$k` itself where the arm is kept; rustc's lints do not evaluate `if const`, and
            // would otherwise report the dead arms' indices past the array as panics.
            let $i: usize = if const { $k < $n } { $k } else { 0 };
            $body;
        }
    )*};
}

/// `a` with `f` applied to each element, as [`unroll!`](crate::unroll!) (`array::map` is a loop).
#[inline(always)]
pub fn map<T: Copy, U: Copy + Default, const N: usize>(
    a: [T; N],
    mut f: impl FnMut(T) -> U,
) -> [U; N] {
    let mut out = splat(U::default());
    crate::unroll!(N, |i| out[i] = f(a[i]));
    out
}

/// `[x; N]`, each element stored on its own: rustc makes `[x; N]` a loop (unrolled only in part
/// for large `N`), whose run-time index keeps the array in memory.
#[inline(always)]
pub fn splat<T: Copy, const N: usize>(x: T) -> [T; N] {
    #[cfg(target_arch = "spirv")]
    {
        [x; N]
    }
    #[cfg(not(target_arch = "spirv"))]
    {
        let mut a = core::mem::MaybeUninit::<[T; N]>::uninit();
        let p = a.as_mut_ptr() as *mut T;
        // SAFETY: every element 0..N is written before the array is read.
        #[allow(unsafe_code)]
        {
            crate::unroll!(N, |i| unsafe { p.add(i).write(x) });
            unsafe { a.assume_init() }
        }
    }
}
