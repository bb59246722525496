//! Conversions planned from the layouts' const tables while the compiler evaluates a const, so
//! they work where the layouts are generic parameters or aliases: [`Planned`] and
//! [`Tile::convert`]. The planner is layout-plan's `const fn` one, the same that layout-core
//! (and through it `convert!` and the CLI) calls for these strategies, and the plan runs through
//! the one executor, so a generic conversion and `convert!` of the same pair issue the same
//! shuffles, shared-memory accesses and barriers. In optimised builds the plan folds to
//! straight-line code (no loops, registers stay registers), and its lane, warp and CTA maps
//! carry the shift-and-mask terms `convert!` writes (layout-plan's `linear`, for maps of up to
//! 16 terms, which covers blocked, MMA and swizzled layouts), applied outside any branch so
//! that LLVM folds them as it folds `convert!`'s: the kernels written both ways (`ptx-check`'s
//! generic twins) compile to the same PTX instructions.
//!
//! Planned at compile time, as `convert!` without a target plans (sm_90's model with the
//! layouts' warp size): nothing, a register permutation, selects and shuffles, shuffles that
//! several lanes read alike (a gather, where it weighs less than shared memory), and shared
//! memory (swizzled, `ldmatrix`/`stmatrix` where they fit, between the CTAs of a cluster too).
//! A pair that cannot be converted is a compile error when the function is instantiated,
//! naming both layouts and why.

use core::marker::PhantomData;

use layout_plan::fixed::Fixed;
use layout_plan::flat::{Flat, FlatError};
use layout_plan::solve::{check_pair, plan, Mismatch};
use layout_plan::Target;

use crate::convert::{convert, Cost, Plan};
use crate::element::Element;
use crate::layout::{Layout, LayoutKind, Registers, Tables};
use crate::reduce::Msg;
use crate::thread::Thread;
use crate::tile::Tile;

/// The conversion of a tile of `A` into one of `B`, elements of type `E`, planned from the
/// layouts' tables at compile time: [`Planned::COST`] is a const, [`Planned::run`] the
/// conversion. A conversion the const planner does not plan yet is an error where the code that
/// names it is compiled for concrete layouts (a post-monomorphisation error, so `cargo build`
/// reports it and `cargo check` may not), naming both layouts:
///
/// ```compile_fail,E0080
/// use linear_layouts::planned::Planned;
/// use linear_layouts::layout;
///
/// layout! {
///     OneWarp = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]) for [8, 32];
///     TwoWarps = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]) for [8, 32];
/// }
///
/// // error: cannot convert `OneWarp` to `TwoWarps` in generic code: the layouts have different
/// // numbers of warps (1 and 2); a conversion keeps them
/// const SHUFFLES: u32 = Planned::<OneWarp, TwoWarps, u8>::COST.shuffles;
/// ```
pub struct Planned<A, B, E>(PhantomData<Types<A, B, E>>);

/// `Planned` holds no values of its types (and is `Send`, `Sync` and `Copy` whatever they are).
type Types<A, B, E> = fn() -> (A, B, E);

impl<A: Layout, B: Layout, E: Element> Planned<A, B, E> {
    const SOLVED: (Plan<Fixed>, Cost) = match solve(&Tables::of::<A>(), &Tables::of::<B>(), E::BITS)
    {
        Ok(p) => p,
        Err(why) => panic!("{}", why.as_str()),
    };
    /// The plan's tables (a reference to the const, so no copy of them is made at run time).
    pub const PLAN: &'static Plan<Fixed> = &Self::SOLVED.0;
    /// What the conversion costs per thread.
    pub const COST: Cost = Self::SOLVED.1;

    /// The values this thread holds in `B`, from those it holds in `A`; every thread of the
    /// warp calls it.
    #[inline(always)]
    pub fn run<T: Thread, const NS: usize, const ND: usize>(t: &T, src: &[E; NS]) -> [E; ND] {
        convert(Self::PLAN, t, src)
    }
}

impl<A: Registers<N>, E: Element, const N: usize> Tile<A, E, N> {
    /// The same tensor in layout `B`: Triton's `convert_layout`, planned at compile time from
    /// both layouts' tables (so `A` and `B` may be generic parameters), with the instructions
    /// `convert!(A => B, E)` would issue. Every thread of the warp calls it.
    ///
    /// ```
    /// use linear_layouts::sim::{launch, Launch};
    /// use linear_layouts::{layout, Registers, Thread, Tile};
    ///
    /// layout! {
    ///     Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]) for [4, 32];
    ///     Pairs = blocked(sizePerThread = [2, 2], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]) for [4, 32];
    /// }
    ///
    /// // Generic over both layouts: no macro names them.
    /// fn regroup<A: Registers<N>, B: Registers<M>, const N: usize, const M: usize>(
    ///     t: &impl Thread,
    ///     x: Tile<A, u32, N>,
    /// ) -> Tile<B, u32, M> {
    ///     x.convert::<B, M>(t)
    /// }
    ///
    /// launch(Launch::new(1, 32, 0), |t| {
    ///     let x = Tile::<Rows, u32, 4>::from_coords(t, |[i, j]| 100 * i + j);
    ///     let y: Tile<Pairs, u32, 4> = regroup(t, x);
    ///     let want = Tile::<Pairs, u32, 4>::from_coords(t, |[i, j]| 100 * i + j);
    ///     assert_eq!(y.values, want.values);
    ///     // The plan is a const: one transposition of a register bit with a lane bit.
    ///     assert_eq!(linear_layouts::planned::Planned::<Rows, Pairs, u32>::COST.shuffles, 4);
    /// })
    /// .unwrap();
    /// ```
    #[inline(always)]
    pub fn convert<B: Registers<M>, const M: usize>(&self, t: &impl Thread) -> Tile<B, E, M> {
        Tile::new(Planned::<A, B, E>::run(t, &self.values))
    }
}

/// `l`'s tables flattened for the planner.
const fn flat(l: &Tables) -> Result<Flat, FlatError> {
    let mut f = match Flat::new(l.shape) {
        Ok(f) => f,
        Err(e) => return Err(e),
    };
    let mut i = 0;
    while i < l.in_dims.len() {
        if let Err(e) = f.add_in_dim(l.in_dims[i].name, l.in_dims[i].bases) {
            return Err(e);
        }
        i += 1;
    }
    Ok(f)
}

/// The plan of converting `a` to `b`, or the message that says why there is none (a value, not
/// a box: this runs in a const).
#[allow(clippy::result_large_err)]
const fn solve(a: &Tables, b: &Tables, elem_bits: u32) -> Result<(Plan<Fixed>, Cost), Msg> {
    let mut m = Msg::new();
    m.push("cannot convert `")
        .push(a.name)
        .push("` to `")
        .push(b.name)
        .push("` in generic code: ");
    if !matches!(a.kind, LayoutKind::Distributed) || !matches!(b.kind, LayoutKind::Distributed) {
        m.push("both layouts must be distributed (registers, lanes, warps, CTAs)");
        return Err(m);
    }
    let (s, t) = match (flat(a), flat(b)) {
        (Ok(s), Ok(t)) => (s, t),
        _ => {
            m.push("a layout is larger than the planner's tables (63 coordinate bits, 2^32 values of an in-dim)");
            return Err(m);
        }
    };
    match check_pair(&s, &t) {
        Ok(()) => {}
        Err(Mismatch::Shape) => {
            m.push("the layouts cover different shapes; a conversion keeps the tensor");
            return Err(m);
        }
        Err(Mismatch::Threads { which, src, dst }) => {
            m.push("the layouts have different numbers of ")
                .push(Mismatch::what(which))
                .push(" (")
                .num(src)
                .push(" and ")
                .num(dst)
                .push("); a conversion keeps them");
            return Err(m);
        }
    }
    let target = Target::unspecified(1 << s.lane.len());
    match plan(&s, &t, elem_bits, &target) {
        Ok(p) => Ok(p),
        Err(why) => {
            m.push(why.describe());
            Err(m)
        }
    }
}
