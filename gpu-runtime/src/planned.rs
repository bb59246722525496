//! Conversions planned from the layouts' const tables while the compiler evaluates a const, so
//! they work where the layouts are generic parameters or aliases: [`Planned`] (what `convert!`
//! of two named layouts gives) and [`Tile::convert`]. The planner is layout-plan's `const fn`
//! one, the same that layout-core (and through it the proc macro's inline sides and the CLI)
//! calls. The plan is recorded on a const tape by `layout_plan::trace` and replayed by
//! [`crate::replay`] with every operand a constant, so it compiles to the straight-line code a
//! written-out conversion is (every kernel of `kernels/` issues the same PTX instructions as
//! when the proc macro wrote its code). A plan longer than a tape, and every plan on SPIR-V, is
//! interpreted instead ([`crate::convert::convert`]: loops written out, map terms outside any
//! branch, so that it folds to straight-line code too).
//!
//! Planned at compile time, as `convert!` without a target plans (sm_90's model with the
//! layouts' warp size): nothing, a register permutation, selects and shuffles, shuffles that
//! several lanes read alike (a gather, where it weighs less than shared memory), and shared
//! memory (swizzled, `ldmatrix`/`stmatrix` where they fit, between the CTAs of a cluster too).
//! Between a distributed layout and a shared one the kernel chose, [`Planned::store`] and
//! [`Planned::load`] make the accesses `convert!(Distributed => Shared, E)` and
//! `convert!(Shared => Distributed, E)` make (the shared layout's offsets and padding, vectors
//! as wide as they allow, `ldmatrix`/`stmatrix` where they fit; for sm_90, as `convert!` without
//! a target plans them).
//! A pair that cannot be converted is a compile error when the function is instantiated,
//! naming both layouts and why.
//!
//! `run`, `store` and `load` come in two forms: [`Planned`]'s own, for layouts `layout!`
//! declared, take arrays of the layouts' register counts (inferred, and checked by `cargo
//! check`); [`Generic`]'s, which `Planned` dereferences to, take arrays of any length, for code
//! whose layouts are type parameters (checked where it is compiled for concrete layouts).

use core::marker::PhantomData;
use core::ops::Deref;

use layout_plan::fixed::Fixed;
use layout_plan::flat::{Bases, Flat, FlatError};
use layout_plan::solve::shared::plan_layout_access;
use layout_plan::solve::{check_pair, plan, Mismatch};
use layout_plan::{SmemAccess, Target};

use crate::convert::{
    convert, load_access, store_access, Converter, Cost, Plan, SharedLoad, SharedStore,
};
use crate::element::Element;
use crate::layout::{Declared, Layout, LayoutKind, Registers, Tables};
use crate::thread::{scratch_fits, ScratchUse, Thread};
use crate::tile::Tile;
use layout_plan::msg::Msg;

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
/// // error: cannot convert `OneWarp` to `TwoWarps`: the layouts have different
/// // numbers of warps (1 and 2); a conversion keeps them
/// const SHUFFLES: u32 = Planned::<OneWarp, TwoWarps, u8>::COST.shuffles;
/// ```
pub struct Planned<A, B, E, S = ()> {
    /// What it costs per thread ([`Planned::COST`]).
    pub cost: Cost,
    _types: PhantomData<Types<A, B, E, S>>,
}

/// `Planned` holds no values of its types (and is `Send` and `Sync` whatever they are).
type Types<A, B, E, S = ()> = fn() -> (A, B, E, S);

// By hand rather than derived: a derive would ask the layouts and the element for the trait.
impl<A, B, E, S> Clone for Planned<A, B, E, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A, B, E, S> Copy for Planned<A, B, E, S> {}

impl<A, B, E, S> core::fmt::Debug for Planned<A, B, E, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Planned").field("cost", &self.cost).finish()
    }
}

/// What the const planner made of a pair of layouts.
// Only consts hold one (a `Box` cannot exist there), read through references.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug)]
pub enum Route {
    /// A conversion between two distributed layouts.
    Convert(Plan<Fixed>),
    /// Stores of a distributed layout's registers into a shared layout (Triton's
    /// `local_store`).
    Store(SmemAccess<Fixed>),
    /// Loads of a distributed layout's registers from a shared layout (`local_load`).
    Load(SmemAccess<Fixed>),
}

impl<A: Layout, B: Layout, E: Element> Planned<A, B, E> {
    const SOLVED: (Route, Cost) = match route(Flattened::<A>::SIDE, Flattened::<B>::SIDE, E::BITS) {
        Ok(p) => p,
        Err(why) => panic!("{}", showing::<B>(showing::<A>(why)).as_str()),
    };
    /// What the planner made of `A => B` (references to the const, so no copy of its tables is
    /// made at run time).
    pub const ROUTE: &'static Route = &Self::SOLVED.0;
    /// What it costs per thread.
    pub const COST: Cost = Self::SOLVED.1;
    /// The conversion's tables, where both layouts are distributed.
    pub const PLAN: &'static Plan<Fixed> = match Self::ROUTE {
        Route::Convert(p) => p,
        r => panic!("{}", misuse(A::NAME, B::NAME, r, "run` or `plan").as_str()),
    };
    /// The accesses of a store (`A` distributed, `B` shared) or a load (`A` shared, `B`
    /// distributed).
    pub const ACCESS: &'static SmemAccess<Fixed> = match Self::ROUTE {
        Route::Store(a) | Route::Load(a) => a,
        r => panic!("{}", misuse(A::NAME, B::NAME, r, "access").as_str()),
    };
    const STORES: &'static SmemAccess<Fixed> = match Self::ROUTE {
        Route::Store(a) => a,
        r => panic!("{}", misuse(A::NAME, B::NAME, r, "store").as_str()),
    };
    const LOADS: &'static SmemAccess<Fixed> = match Self::ROUTE {
        Route::Load(a) => a,
        r => panic!("{}", misuse(A::NAME, B::NAME, r, "load").as_str()),
    };
}

/// What a `Planned` value offers, whatever its call site `S`.
impl<A: Layout, B: Layout, E: Element, S> Planned<A, B, E, S> {
    /// The value: what `convert!(A => B, E)` gives, planned here.
    pub const NEW: Self = Planned {
        cost: Planned::<A, B, E>::COST,
        _types: PhantomData,
    };

    /// The conversion's tables ([`Planned::PLAN`]).
    pub const fn plan(&self) -> &'static Plan<Fixed> {
        Planned::<A, B, E>::PLAN
    }

    /// The store's or load's tables ([`Planned::ACCESS`]).
    pub const fn access(&self) -> &'static SmemAccess<Fixed> {
        Planned::<A, B, E>::ACCESS
    }

    /// The same plan run by interpreting its tables instead of replaying its tape (what tests
    /// compare the replay with).
    pub const fn interpreted<const NS: usize, const ND: usize>(
        &self,
    ) -> Converter<E, NS, ND, Plan> {
        Converter::new(Planned::<A, B, E>::PLAN.as_static(), self.cost)
    }

    /// Scratch (or destination) shared memory per CTA, in bytes.
    pub const fn shared_bytes(&self) -> u32 {
        self.cost.shared_bytes
    }

    /// The store (`A` distributed, `B` shared) as the [`SharedStore`] of `A`'s `N` registers
    /// that `convert!(A => B, E)` gives, its tables interpreted: for what takes a store, such
    /// as [`crate::AsyncCopy::new`], in code whose layouts are type parameters. Not a store, or
    /// `N` not `A`'s registers, is an error where it is compiled for concrete layouts. Its tables
    /// carry no shift-and-mask terms (as `convert!`'s tables have none): to store, call
    /// [`Planned::store`], whose code folds like `convert!`'s.
    pub const fn shared_store<const N: usize>(&self) -> SharedStore<E, N> {
        const {
            if let Route::Store(_) = Planned::<A, B, E>::ROUTE {
                registers::<A>(N, "source");
            }
        };
        SharedStore::new(
            Planned::<A, B, E>::STORES.as_static(),
            Planned::<A, B, E>::COST,
        )
    }

    /// The load (`A` shared, `B` distributed) as the [`SharedLoad`] of `B`'s `N` registers
    /// that `convert!(A => B, E)` gives, its tables interpreted ([`Planned::shared_store`]'s
    /// counterpart).
    pub const fn shared_load<const N: usize>(&self) -> SharedLoad<E, N> {
        const {
            if let Route::Load(_) = Planned::<A, B, E>::ROUTE {
                registers::<B>(N, "destination");
            }
        };
        SharedLoad::new(
            Planned::<A, B, E>::LOADS.as_static(),
            Planned::<A, B, E>::COST,
        )
    }
}

// The operations of the conversion, the store or the load, recorded while the const is
// evaluated (only the one the route has is ever evaluated: each is named by its method alone).
impl<A: Layout, B: Layout, E: Element> Planned<A, B, E> {
    const STATIC_PLAN: layout_plan::Plan = Self::PLAN.as_static();
    const TAPE: &'static layout_plan::tape::Tape =
        &layout_plan::trace::trace(&Self::STATIC_PLAN, E::BITS);
    const STORE_TAPE: &'static layout_plan::tape::Tape =
        &layout_plan::trace::trace_store(&Self::STORES.as_static(), E::BITS);
    const LOAD_TAPE: &'static layout_plan::tape::Tape =
        &layout_plan::trace::trace_load(&Self::LOADS.as_static(), E::BITS);
}

impl<A: Layout, B: Layout, E: Element> crate::replay::Recorded for Planned<A, B, E> {
    const OPS: &'static [layout_plan::tape::Op] = Self::TAPE.ops();
}

/// A store's operations ([`Planned::store`]'s tape).
pub struct StoreTape<A, B, E>(PhantomData<Types<A, B, E>>);
/// A load's operations.
pub struct LoadTape<A, B, E>(PhantomData<Types<A, B, E>>);

impl<A: Layout, B: Layout, E: Element> crate::replay::Recorded for StoreTape<A, B, E> {
    const OPS: &'static [layout_plan::tape::Op] = Planned::<A, B, E>::STORE_TAPE.ops();
}

impl<A: Layout, B: Layout, E: Element> crate::replay::Recorded for LoadTape<A, B, E> {
    const OPS: &'static [layout_plan::tape::Op] = Planned::<A, B, E>::LOAD_TAPE.ops();
}

/// `run`, `store` and `load` of layouts `layout!` declared (concrete types, or aliases of them):
/// the arrays' lengths are the layouts' register counts, so `let y = Planned::<A, B,
/// f32>::NEW.run(t, &x);` needs no annotation, and an array of another length is a type error
/// that `cargo check` reports (so is `run` on a pair with a shared side, which holds no
/// registers: call `store` or `load`):
///
/// ```compile_fail,E0277
/// use linear_layouts::planned::Planned;
/// use linear_layouts::sim::{launch, Launch};
/// use linear_layouts::layout;
///
/// layout! {
///     Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]) for [4, 32];
///     Pairs = blocked(sizePerThread = [2, 2], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]) for [4, 32];
/// }
///
/// launch(Launch::new(1, 32, 0), |t| {
///     // error: `Rows` does not hold 8 registers per thread
///     let _ = Planned::<Rows, Pairs, u32>::NEW.run(t, &[0u32; 8]);
/// });
/// ```
///
/// Where a layout is a type parameter these methods do not apply, and the calls go to
/// [`Generic`]'s (what `Planned` dereferences to); [`Planned::generic`] reaches those for
/// declared layouts too, for arrays whose lengths are a generic function's parameters.
impl<A: Declared, B: Declared, E: Element, S> Planned<A, B, E, S> {
    /// [`Generic::run`], the arrays `A`'s and `B`'s registers.
    #[inline(always)]
    pub fn run<T: Thread, const NS: usize, const ND: usize>(&self, t: &T, src: &[E; NS]) -> [E; ND]
    where
        A: Registers<NS>,
        B: Registers<ND>,
    {
        self.generic().run(t, src)
    }

    /// [`Generic::store`], the array `A`'s registers.
    #[inline(always)]
    pub fn store<T: Thread, const N: usize>(&self, t: &T, src: &[E; N])
    where
        A: Registers<N>,
    {
        self.generic().store(t, src)
    }

    /// [`Generic::load`], the array `B`'s registers.
    #[inline(always)]
    pub fn load<T: Thread, const N: usize>(&self, t: &T) -> [E; N]
    where
        B: Registers<N>,
    {
        self.generic().load(t)
    }
}

/// What [`Planned`] dereferences to: `run`, `store` and `load` for arrays of any length, the
/// methods generic code calls (where a layout is a type parameter, `Planned`'s own, which read
/// the lengths off the layouts, do not apply). An array whose length is not the layout's
/// register count, or a method that does not fit the pair, is an error where the call is
/// compiled for concrete layouts (after monomorphisation: `cargo build` reports it, `cargo
/// check` may not), naming the layouts and the numbers.
pub struct Generic<A, B, E, S = ()>(PhantomData<Types<A, B, E, S>>);

// By hand, as `Planned`'s: no bounds on the layouts.
impl<A, B, E, S> Clone for Generic<A, B, E, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A, B, E, S> Copy for Generic<A, B, E, S> {}

impl<A, B, E, S> core::fmt::Debug for Generic<A, B, E, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Generic")
    }
}

// No bounds, as `Deref`'s impl below has none.
impl<A, B, E, S> Planned<A, B, E, S> {
    /// [`Generic`]'s `run`, `store` and `load` (arrays of any length), for layouts `layout!`
    /// declared used with arrays whose lengths are a generic function's parameters: `fn f<const
    /// N: usize, const M: usize>(..) -> [f32; M] { Planned::<Rows, Cols, f32>::NEW.generic().run(t,
    /// &x) }`.
    #[inline(always)]
    pub const fn generic(&self) -> &Generic<A, B, E, S> {
        &Generic(PhantomData)
    }
}

impl<A, B, E, S> Deref for Planned<A, B, E, S> {
    type Target = Generic<A, B, E, S>;
    #[inline(always)]
    fn deref(&self) -> &Generic<A, B, E, S> {
        self.generic()
    }
}

impl<A: Layout, B: Layout, E: Element, S> Generic<A, B, E, S> {
    /// Panics (at compile time, in a const) if `op` of `A => B`, whose plan uses
    /// `Planned::<A, B, E>::COST.shared_bytes` from offset 0, does not fit in `have`, the
    /// thread's declared shared memory.
    const fn scratch_fits(have: Option<u32>, op: &'static str) {
        let what = ScratchUse {
            op,
            layout: A::NAME,
            dim: None,
            to: B::NAME,
        };
        scratch_fits(have, Planned::<A, B, E>::COST.shared_bytes, what);
    }

    /// The values this thread holds in `B`, from those it holds in `A`; every thread of the
    /// CTA calls it (it may shuffle and synchronise), with [`Planned::shared_bytes`] of shared
    /// memory available to `t`. A pair that is a store or a load, or arrays of other lengths
    /// than the layouts' registers, are errors where the call is compiled for concrete layouts:
    ///
    /// ```compile_fail,E0080
    /// use linear_layouts::planned::Planned;
    /// use linear_layouts::sim::{launch, Launch};
    /// use linear_layouts::{layout, Layout, Thread};
    ///
    /// layout! {
    ///     Rows = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    ///     Swz = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [64, 64];
    /// }
    ///
    /// fn convert_any<A: Layout, B: Layout>(t: &impl Thread) -> [u16; 32] {
    ///     Planned::<A, B, u16>::NEW.run(t, &[0u16; 32])
    /// }
    ///
    /// launch(Launch::new(1, 128, 8192), |t| {
    ///     // error: `Rows` => `Swz` stores into a shared layout: call `store`, not `run`
    ///     let _ = convert_any::<Rows, Swz>(t);
    /// });
    /// ```
    #[inline(always)]
    pub fn run<T: Thread, const NS: usize, const ND: usize>(
        &self,
        t: &T,
        src: &[E; NS],
    ) -> [E; ND] {
        const {
            if let Route::Convert(_) = Planned::<A, B, E>::ROUTE {
                registers::<A>(NS, "source");
                registers::<B>(ND, "destination");
                Self::scratch_fits(T::SHARED_BYTES, "the conversion");
            }
        };
        if const { !REPLAY || Planned::<A, B, E>::TAPE.overflow } {
            convert(Planned::<A, B, E>::PLAN, t, src)
        } else {
            crate::replay::run_tape::<Planned<A, B, E>, E, T, NS, ND>(t, src)
        }
    }

    /// Store this thread's values in `A` into shared memory laid out as `B`, at `B`'s offsets
    /// from the start of the CTA's dynamic shared memory as `t` sees it (threads that hold copies skip). Every thread
    /// of the CTA calls it; a barrier must follow before other threads read.
    ///
    /// ```
    /// use linear_layouts::planned::Planned;
    /// use linear_layouts::sim::{launch, Launch};
    /// use linear_layouts::{layout, Layout, Registers, Thread, Tile};
    ///
    /// layout! {
    ///     Rows = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    ///     Swz = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [64, 64];
    ///     Cols = blocked(sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
    /// }
    ///
    /// // Generic over the layouts: a tile through any shared layout into any other layout.
    /// fn through<A: Registers<N>, S: Layout, B: Registers<M>, const N: usize, const M: usize>(
    ///     t: &impl Thread,
    ///     x: &Tile<A, u16, N>,
    /// ) -> Tile<B, u16, M> {
    ///     Planned::<A, S, u16>::NEW.store(t, &x.values);
    ///     t.sync_block();
    ///     Tile::new(Planned::<S, B, u16>::NEW.load(t))
    /// }
    ///
    /// launch(Launch::new(1, 128, 8192), |t| {
    ///     let x = Tile::<Rows, u16, 32>::from_coords(t, |[i, j]: [u32; 2]| (64 * i + j) as u16);
    ///     let y: Tile<Cols, u16, 32> = through::<_, Swz, _, 32, 32>(t, &x);
    ///     assert_eq!(y.values, Tile::<Cols, u16, 32>::from_coords(t, |[i, j]| (64 * i + j) as u16).values);
    ///     // 16-byte stores, as `convert!(Rows => Swz, u16)` plans them.
    ///     assert_eq!(Planned::<Rows, Swz, u16>::COST.vector, 8);
    /// })
    /// .unwrap();
    /// ```
    #[inline(always)]
    pub fn store<T: Thread, const N: usize>(&self, t: &T, src: &[E; N]) {
        const {
            if let Route::Store(_) = Planned::<A, B, E>::ROUTE {
                registers::<A>(N, "source");
                Self::scratch_fits(T::SHARED_BYTES, "the shared store");
            }
        };
        if const { !REPLAY || Planned::<A, B, E>::STORE_TAPE.overflow } {
            store_access(Planned::<A, B, E>::STORES, t, src)
        } else {
            let _: [E; 0] = crate::replay::access_tape::<StoreTape<A, B, E>, E, T, S, N, 0>(t, src);
        }
    }

    /// This thread's values in `B`, loaded from shared memory laid out as `A`.
    #[inline(always)]
    pub fn load<T: Thread, const N: usize>(&self, t: &T) -> [E; N] {
        const {
            if let Route::Load(_) = Planned::<A, B, E>::ROUTE {
                registers::<B>(N, "destination");
                Self::scratch_fits(T::SHARED_BYTES, "the shared load");
            }
        };
        if const { !REPLAY || Planned::<A, B, E>::LOAD_TAPE.overflow } {
            let mut out = [E::default(); N];
            load_access(Planned::<A, B, E>::LOADS, t, &mut out);
            out
        } else {
            crate::replay::access_tape::<LoadTape<A, B, E>, E, T, S, 0, N>(t, &[])
        }
    }
}

/// Whether plans are replayed from their tapes. Not on SPIR-V: rust-gpu cannot lower the
/// replay's value slots (arrays of flags), so plans are interpreted there, as before tapes.
const REPLAY: bool = !cfg!(target_arch = "spirv");

/// The message of a method that does not fit the route `r` of `a => b`.
const fn misuse(a: &str, b: &str, r: &Route, wanted: &str) -> Msg {
    let mut m = Msg::new();
    m.push("`").push(a).push("` => `").push(b).push("` ");
    m.push(match r {
        Route::Convert(_) => "converts between distributed layouts: call `run`",
        Route::Store(_) => "stores into a shared layout: call `store`",
        Route::Load(_) => "loads from a shared layout: call `load`",
    });
    m.push(", not `").push(wanted).push("`");
    m
}

/// `m` followed by layout `L`, like `convert!`'s errors show each side: its name, the layout as
/// written with its shape, and the solved layout as Triton's linear attribute (as much as fits).
const fn showing<L: Layout>(mut m: Msg) -> Msg {
    m.push("\n\n`")
        .push(L::NAME)
        .push("` = ")
        .push(L::SOURCE)
        .push(" for [");
    let mut d = 0;
    while d < L::SHAPE.len() {
        if d > 0 {
            m.push(", ");
        }
        m.num(L::SHAPE[d]);
        d += 1;
    }
    m.push("]:\n  ").push(L::LINEAR_TTGIR);
    m
}

/// Panics (at compile time, in a const) unless `n` is `L`'s registers per thread.
const fn registers<L: Layout>(n: usize, side: &str) {
    let want = L::ELEMENTS_PER_THREAD as usize;
    if n != want {
        let mut m = Msg::new();
        m.push("the ")
            .push(side)
            .push(" `")
            .push(L::NAME)
            .push("` holds ")
            .num(want as u32)
            .push(" registers per thread; the array has ")
            .num(n as u32);
        panic!("{}", m.as_str());
    }
}

impl<A: Registers<N>, E: Element, const N: usize> Tile<A, E, N> {
    /// The same tensor in layout `B` with `B`'s register count `M` written out, for generic
    /// code ([`Tile::convert`] infers it): Triton's `convert_layout`, planned at compile time
    /// from both layouts' tables (so `A` and `B` may be generic parameters), with the
    /// instructions `convert!(A => B, E)` would issue. Every thread of the warp calls it.
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
    ///     x.convert_into::<B, M>(t)
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
    pub fn convert_into<B: Registers<M>, const M: usize>(&self, t: &impl Thread) -> Tile<B, E, M> {
        Tile::new(Planned::<A, B, E>::NEW.run(t, &self.values))
    }
}

/// Why a layout cannot be planned for.
const TOO_LARGE: &str =
    "a layout is larger than the planner's tables (63 coordinate bits, 2^32 values of an in-dim)";

/// Registers per thread the const planner plans a conversion, store or load for: as many as
/// its tables hold (`layout_plan::fixed::FIXED_CAP`). Triton's fixtures reach 2,048 (layouts
/// that broadcast most of a tile to every thread).
pub const MAX_REGISTERS: u32 = layout_plan::fixed::FIXED_CAP as u32;

/// Why a side holding `regs` registers per thread is past [`MAX_REGISTERS`] (`m` the start of
/// the message), if it is.
// The message is built in place: a const fn of a crate without `alloc` cannot box it.
#[allow(clippy::result_large_err)]
const fn too_many_registers(m: Msg, name: &str, regs: u32) -> Result<(), Msg> {
    if regs <= MAX_REGISTERS {
        return Ok(());
    }
    let mut m = m;
    m.push("`")
        .push(name)
        .push("` holds ")
        .num(regs)
        .push(" registers per thread; the const planner plans for ")
        .num(MAX_REGISTERS)
        .push(" at most (`planned::MAX_REGISTERS`): split the tile into smaller ones, or give it more lanes or warps");
    Err(m)
}

/// A layout as the planner reads it: its tables, and them flattened.
type Side = (&'static Tables, &'static Result<Flat, FlatError>);

/// Layout `L` as the planner reads it, made once per layout (every pair it is a side of reads
/// it; a const evaluation would otherwise flatten it for each).
struct Flattened<L>(PhantomData<L>);

impl<L: Layout> Flattened<L> {
    const TABLES: Tables = L::TABLES;
    const FLAT: Result<Flat, FlatError> = flat(&Self::TABLES);
    const SIDE: Side = (&Self::TABLES, &Self::FLAT);
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

/// The flat bases of shared layout `l`'s offsets and CTAs, laid out as `f`'s coordinates (the
/// same shape, so the same dim shifts); `None` past a table's size.
const fn shared_bases(f: &Flat, l: &Tables) -> Option<(Bases, Bases)> {
    let (mut offsets, mut blocks) = (Bases::EMPTY, Bases::EMPTY);
    let mut d = 0;
    while d < l.in_dims.len() {
        let dim = &l.in_dims[d];
        let to = match dim.name.as_bytes() {
            b"offset" => &mut offsets,
            b"block" => &mut blocks,
            _ => {
                d += 1;
                continue;
            }
        };
        let mut b = 0;
        while b < dim.size.trailing_zeros() as usize {
            if !to.try_push(f.flatten(dim.basis(b, l.rank))) {
                return None;
            }
            b += 1;
        }
        d += 1;
    }
    Some((offsets, blocks))
}

/// The route of `a => b`: a conversion between distributed layouts, or a store into or a load
/// from a shared one; or the message that says why there is none.
#[allow(clippy::result_large_err)]
const fn route(a: Side, b: Side, elem_bits: u32) -> Result<(Route, Cost), Msg> {
    use LayoutKind::{Distributed as D, Shared as S};
    match (a.0.kind, b.0.kind) {
        (D, D) => match solve(a, b, elem_bits) {
            Ok((p, c)) => Ok((Route::Convert(p), c)),
            Err(m) => Err(m),
        },
        (D, S) => match access(a, b, elem_bits, true) {
            Ok((p, c)) => Ok((Route::Store(p), c)),
            Err(m) => Err(m),
        },
        (S, D) => match access(b, a, elem_bits, false) {
            Ok((p, c)) => Ok((Route::Load(p), c)),
            Err(m) => Err(m),
        },
        (S, S) => {
            let mut m = Msg::new();
            m.push("`")
                .push(a.0.name)
                .push("` and `")
                .push(b.0.name)
                .push("` are both shared-memory layouts; a conversion stores a distributed layout into shared memory, loads it back, or converts between distributed layouts");
            Err(m)
        }
    }
}

/// The start of a message: "cannot `verb` `a``link``b`: " (made only on the way to an error).
const fn cannot(verb: &str, a: &str, link: &str, b: &str) -> Msg {
    let mut m = Msg::new();
    m.push("cannot ")
        .push(verb)
        .push(" `")
        .push(a)
        .push("`")
        .push(link)
        .push("`")
        .push(b)
        .push("`: ");
    m
}

/// The accesses of distributed layout `d`'s registers to shared layout `s` (as [`route`] found
/// their kinds): stores if `store`, else loads; or the message that says why there are none.
#[allow(clippy::result_large_err)]
const fn access(
    d: Side,
    s: Side,
    elem_bits: u32,
    store: bool,
) -> Result<(SmemAccess<Fixed>, Cost), Msg> {
    let (from, to) = if store { (d.0, s.0) } else { (s.0, d.0) };
    let verb = if store { "store" } else { "load" };
    if !layout_plan::slices::same_u32(d.0.shape, s.0.shape) {
        let mut m = cannot(verb, from.name, " into ", to.name);
        m.push("the layouts cover different shapes; the shared layout holds the same tensor");
        return Err(m);
    }
    let (f, (offsets, blocks)) = match d.1 {
        Ok(f) => match shared_bases(f, s.0) {
            Some(b) => (f, b),
            None => return Err(*cannot(verb, from.name, " into ", to.name).push(TOO_LARGE)),
        },
        Err(_) => return Err(*cannot(verb, from.name, " into ", to.name).push(TOO_LARGE)),
    };
    let regs = 1 << f.reg.len();
    if let Err(m) = too_many_registers(cannot(verb, from.name, " into ", to.name), d.0.name, regs) {
        return Err(m);
    }
    let target = Target::unspecified(1 << f.lane.len());
    let (o, b) = (offsets.as_slice(), blocks.as_slice());
    match plan_layout_access(f, o, b, s.0.padding, elem_bits, store, &target) {
        Ok(p) => Ok(p),
        Err(why) => {
            let mut m = cannot(verb, from.name, " into ", to.name);
            why.describe(&mut m);
            Err(m)
        }
    }
}

/// The plan of converting `a` to `b`, or the message that says why there is none (a value, not
/// a box: this runs in a const).
#[allow(clippy::result_large_err)]
const fn solve(a: Side, b: Side, elem_bits: u32) -> Result<(Plan<Fixed>, Cost), Msg> {
    let (s, t) = match (a.1, b.1) {
        (Ok(s), Ok(t)) => (s, t),
        _ => return Err(*cannot("convert", a.0.name, " to ", b.0.name).push(TOO_LARGE)),
    };
    let m = cannot("convert", a.0.name, " to ", b.0.name);
    if let Err(m) = too_many_registers(m, a.0.name, 1 << s.reg.len()) {
        return Err(m);
    }
    let m = cannot("convert", a.0.name, " to ", b.0.name);
    if let Err(m) = too_many_registers(m, b.0.name, 1 << t.reg.len()) {
        return Err(m);
    }
    match check_pair(s, t) {
        Ok(()) => {}
        Err(Mismatch::Shape) => {
            let mut m = cannot("convert", a.0.name, " to ", b.0.name);
            m.push("the layouts cover different shapes; a conversion keeps the tensor");
            return Err(m);
        }
        Err(Mismatch::Threads { which, src, dst }) => {
            let mut m = cannot("convert", a.0.name, " to ", b.0.name);
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
    match plan(s, t, elem_bits, &target) {
        Ok(p) => Ok(p),
        Err(why) => Err(*cannot("convert", a.0.name, " to ", b.0.name).push(why.describe())),
    }
}
