//! Tiles: the registers a thread holds of a tensor tile in a distributed layout, loaded from and
//! stored to global tensors in the widest aligned vectors the layout allows.
//!
//! The vector width is a property of the layout and the element type, fixed at compile time:
//! the run of leading register bases that step `1, 2, 4, ...` along one dim (the tile's *fast*
//! dim, whose stride in memory must be 1), shortened until every other basis keeps that run
//! aligned, and capped at 16 bytes. A blocked layout with `sizePerThread = [1, 4]` of f32 loads
//! with one `ld.global.v4.f32` per 4 registers; with `[1, 8]` of f16, one `ld.global.v4.b32`
//! per 8.

use core::marker::PhantomData;

use crate::element::Element;
use crate::global::{Global, GlobalMut};
use crate::layout::{Layout, LayoutKind, Registers, Tables};
use crate::thread::Thread;

/// The `N` registers a thread holds of a tile in distributed layout `L`, in register order (what
/// `convert!(L => ..).run` takes and returns). `N` must be `L::ELEMENTS_PER_THREAD`: the bound
/// `L: Registers<N>` makes another count a type error, reported by `cargo check` with both
/// counts.
#[derive(Clone, Copy)]
pub struct Tile<L: Registers<N>, E, const N: usize> {
    /// Register `r` holds the element at `L::apply(r, lane, warp, block)`.
    pub values: [E; N],
    layout: PhantomData<L>,
}

// By hand, not derived: a derive would ask the layout type for `PartialEq` and `Debug` too.
impl<L: Registers<N>, E: PartialEq, const N: usize> PartialEq for Tile<L, E, N> {
    /// Whether every register is equal (element by element, as a mask: `Tile::equal`).
    fn eq(&self, other: &Self) -> bool {
        self.values == other.values
    }
}

impl<L: Registers<N>, E: core::fmt::Debug, const N: usize> core::fmt::Debug for Tile<L, E, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Tile")
            .field("layout", &L::NAME)
            .field("values", &self.values)
            .finish()
    }
}

/// Whether basis `b` is `2^k` along `dim` and zero elsewhere.
const fn is_unit(b: &[u32], dim: usize, k: usize) -> bool {
    let mut e = 0;
    while e < b.len() {
        if b[e] != if e == dim { 1 << k } else { 0 } {
            return false;
        }
        e += 1;
    }
    true
}

/// The fast dim and the elements per vector access of `L` for `elem_bytes`-byte elements.
const fn vector_of<L: Layout>(elem_bytes: usize) -> (usize, usize) {
    let rank = L::RANK;
    let reg = &L::IN_DIMS[0];
    let reg_bits = reg.size.trailing_zeros() as usize;
    // The fast dim: the one register basis 0 moves by exactly 1.
    let mut fast = 0;
    while fast < rank && !(reg_bits > 0 && is_unit(reg.basis(0, rank), fast, 0)) {
        fast += 1;
    }
    if fast == rank {
        return (rank - 1, 1);
    }
    // The run: register bases 0..k step 1, 2, 4, ... along `fast` alone, within 16 bytes.
    let max_elems = if elem_bytes >= 16 { 1 } else { 16 / elem_bytes };
    let mut k = 0;
    while k < reg_bits && (1usize << (k + 1)) <= max_elems && is_unit(reg.basis(k, rank), fast, k) {
        k += 1;
    }
    // Every other basis must keep the run aligned: no component below 2^k along `fast`.
    let mut d = 0;
    while d < L::IN_DIMS.len() {
        let dim = &L::IN_DIMS[d];
        let bits = dim.size.trailing_zeros() as usize;
        let mut bit = if d == 0 { k } else { 0 };
        while bit < bits {
            let low = dim.basis(bit, rank)[fast] & ((1u32 << k) - 1);
            if low != 0 {
                k = low.trailing_zeros() as usize;
            }
            bit += 1;
        }
        d += 1;
    }
    (fast, 1 << k)
}

/// `L`'s register, lane, warp and block bits that only repeat elements (Triton's free
/// variables, found jointly in that order): indices with all of them zero hold each element
/// once.
const fn free_bits<L: Layout>() -> [u32; 4] {
    let mut free = [0; 4];
    let mut i = 0;
    while i < L::IN_DIMS.len() && i < 4 {
        free[i] = L::IN_DIMS[i].free_mask;
        i += 1;
    }
    free
}

/// Whether the parent's coordinate `dim` of a thread (`[0, lane, warp, block]`) is 0 exactly when
/// its `free` lane, warp and block bits (a slice's copies, the slice's in-dims `own`) are: the
/// parent has the slice's lanes, warps and blocks, each free bit moves the coordinate by its own
/// power of two, and no other bit moves it.
const fn parent_marks_copies(
    parent: &Tables,
    dim: usize,
    own: &[crate::layout::InDim],
    free: [u32; 4],
) -> bool {
    if parent.in_dims.len() != own.len() {
        return false;
    }
    let mut seen = 0u32;
    let mut i = 1;
    while i < parent.in_dims.len() && i < 4 {
        let d = &parent.in_dims[i];
        if d.size != own[i].size {
            return false;
        }
        let mut bit = 0;
        while bit < d.size.trailing_zeros() as usize {
            let c = d.basis(bit, parent.rank)[dim];
            let ok = if (free[i] >> bit) & 1 == 1 {
                c.is_power_of_two() && c & seen == 0
            } else {
                c == 0
            };
            if !ok {
                return false;
            }
            seen |= c;
            bit += 1;
        }
        i += 1;
    }
    // Free bits past the parent's in-dims (none for a slice of it) would go untested.
    while i < 4 {
        if free[i] != 0 {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `L`'s register bases and its lane, warp and block bases touch disjoint bits of every
/// coordinate, so that an element's coordinates are its register's part plus its thread's part
/// (every blocked layout): an access can then add the register's part, a constant, to one
/// thread address instead of computing an address per register.
const fn separable<L: Layout>() -> bool {
    let rank = L::RANK;
    let mut d = 0;
    while d < rank {
        let (mut reg, mut thread) = (0u32, 0u32);
        let mut i = 0;
        while i < L::IN_DIMS.len() {
            let dim = &L::IN_DIMS[i];
            let mut bit = 0;
            while bit < dim.size.trailing_zeros() as usize {
                let c = dim.basis(bit, rank)[d];
                if i == 0 {
                    reg |= c;
                } else {
                    thread |= c;
                }
                bit += 1;
            }
            i += 1;
        }
        if reg & thread != 0 {
            return false;
        }
        d += 1;
    }
    true
}

impl<L: Registers<N>, E: Element, const N: usize> Tile<L, E, N> {
    /// The dim along which registers are consecutive (stride 1 in memory for loads and
    /// stores), and the elements per vector access: both fixed by `L` and `E`.
    pub const VECTOR: (usize, usize) = {
        assert!(
            matches!(L::KIND, LayoutKind::Distributed),
            "a Tile's layout must be distributed (register, lane, warp, block)"
        );
        assert!(
            N == L::ELEMENTS_PER_THREAD as usize,
            "Tile<L, E, N>: N must be L::ELEMENTS_PER_THREAD"
        );
        vector_of::<L>(core::mem::size_of::<E>())
    };

    /// The register, lane, warp and block bits that only repeat elements: stores skip the
    /// copies they make, so that each element is written once (a slice layout's 32 lanes
    /// holding one row's value store it from one).
    const FREE: [u32; 4] = free_bits::<L>();

    /// Whether a slice's parent's coordinate along the sliced dim is 0 exactly for the thread
    /// holding the first copy ([`parent_marks_copies`]).
    const BY_PARENT: bool = match L::SLICE_OF {
        Some((parent, dim)) => parent_marks_copies(&parent, dim, L::IN_DIMS, Self::FREE),
        None => false,
    };

    /// Whether this thread holds the first copy of its elements (every thread, for a layout
    /// without copies: the indices are not even read then). For a slice, by its parent's
    /// coordinate where that says the same: the column a row's thread tests, which the
    /// parent's loads computed already.
    #[inline(always)]
    fn stores_copies<T: Thread>(t: &T) -> bool {
        let [_, lanes, warps, blocks] = Self::FREE;
        if Self::BY_PARENT {
            return L::parent_coord([0, t.lane(), t.warp(), t.cta_rank()]) == 0;
        }
        (lanes == 0 || t.lane() & lanes == 0)
            && (warps == 0 || t.warp() & warps == 0)
            && (blocks == 0 || t.cta_rank() & blocks == 0)
    }

    /// A tile from a thread's registers.
    #[inline(always)]
    pub fn new(values: [E; N]) -> Self {
        let _ = Self::VECTOR;
        Tile {
            values,
            layout: PhantomData,
        }
    }

    /// A tile whose element at coordinates `c` is `f(c)` (Triton's `arange` and the
    /// arithmetic on it: masks, iota, positions), `c` of `L`'s rank `R`.
    #[inline(always)]
    pub fn from_coords<const R: usize>(t: &impl Thread, f: impl Fn([u32; R]) -> E) -> Self {
        const {
            assert!(
                R == L::RANK,
                "from_coords: the closure takes L's rank of coordinates"
            )
        };
        let (lane, warp, cta) = (t.lane(), t.warp(), t.cta_rank());
        let mut values = [E::default(); N];
        crate::unroll!(N, |r| {
            let at = [r as u32, lane, warp, cta];
            values[r] = f(core::array::from_fn(|d| L::coord(at, d)));
        });
        Self::new(values)
    }

    /// Every element `v` (Triton's `tl.full`).
    #[inline(always)]
    pub fn splat(v: E) -> Self {
        // Element by element: `[v; N]` is a loop over a run-time index, which can leave the
        // whole array in local memory on the GPU (a 64-register accumulator did).
        Self::new(crate::unroll::splat(v))
    }

    /// `f` of each element: a tile of the same layout (element-wise math, casts).
    #[inline(always)]
    pub fn map<F: Element>(&self, f: impl Fn(E) -> F) -> Tile<L, F, N> {
        let mut out = [F::default(); N];
        crate::unroll!(N, |r| out[r] = f(self.values[r]));
        Tile::new(out)
    }

    /// The elements converted to `F` (Triton's `x.to(dtype)`): `tile.to::<F16>()`. Narrowing
    /// to a 16-bit float rounds (nearest, ties to even) two registers at a time, as one packed
    /// conversion on the GPU; see [`CastFrom`](crate::cast::CastFrom) for the rest.
    #[inline(always)]
    pub fn to<F: crate::cast::CastFrom<E>>(&self) -> Tile<L, F, N> {
        // Each element set on its own (`[x; N]` is a loop that keeps a large tile in memory).
        let mut out = crate::unroll::splat(F::default());
        crate::unroll!(N / 2, |i| {
            let [lo, hi] = F::cast2(self.values[2 * i], self.values[2 * i + 1]);
            (out[2 * i], out[2 * i + 1]) = (lo, hi);
        });
        if N % 2 == 1 {
            out[N - 1] = F::cast(self.values[N - 1]);
        }
        Tile::new(out)
    }

    /// `f` of the elements at the same place of `self` and `other` (binary element-wise ops).
    #[inline(always)]
    pub fn zip_with<F: Element, G: Element>(
        &self,
        other: &Tile<L, F, N>,
        f: impl Fn(E, F) -> G,
    ) -> Tile<L, G, N> {
        let mut out = [G::default(); N];
        crate::unroll!(N, |r| out[r] = f(self.values[r], other.values[r]));
        Tile::new(out)
    }

    /// `f` of the elements at the same place of `self`, `b` and `c` (ternary element-wise ops:
    /// a multiply-add as one `fma`, Triton's `tl.fma`).
    #[inline(always)]
    pub fn zip3_with<F: Element, G: Element, H: Element>(
        &self,
        b: &Tile<L, F, N>,
        c: &Tile<L, G, N>,
        f: impl Fn(E, F, G) -> H,
    ) -> Tile<L, H, N> {
        let mut out = [H::default(); N];
        crate::unroll!(N, |r| out[r] = f(self.values[r], b.values[r], c.values[r]));
        Tile::new(out)
    }

    /// Where register `r` of this thread lives in a tensor whose element `c` is at
    /// `sum((start[d] + origin[d] + c[d]) * strides[d])` (`start`: where the tensor starts in
    /// its buffer, in coordinates of the buffer's, as a batch's matrix starts at row
    /// `matrix * rows`).
    #[inline(always)]
    pub(crate) fn index<T: Thread, const R: usize>(
        t: &T,
        r: usize,
        start: [u32; R],
        origin: [u32; R],
        strides: [u32; R],
    ) -> usize {
        let (thread, reg, exact) = Self::index_parts(t, r, start, origin, strides);
        checked_index(thread, reg, exact)
    }

    /// [`Tile::index`] as the thread's part (a `u32`: a view's indices fit one) and the
    /// register's (a constant where `L` is [`separable`]). The register's part is added after
    /// widening, so each register's address is the thread's plus an immediate offset; masked
    /// accesses take the thread's part before their branches, so that it is computed once
    /// rather than in each vector's branch, and add the register's in the branch that
    /// accesses ([`checked_index`]).
    #[inline(always)]
    pub(crate) fn index_parts<T: Thread, const R: usize>(
        t: &T,
        r: usize,
        start: [u32; R],
        origin: [u32; R],
        strides: [u32; R],
    ) -> (u32, usize, u64) {
        let fast = Self::VECTOR.0;
        debug_assert!(
            Self::VECTOR.1 == 1 || fast >= R || strides[fast] == 1,
            "a Tile's fast dim must have stride 1 in memory: dim {} of this layout holds consecutive registers, its stride is {}",
            fast,
            strides[if fast < R { fast } else { 0 }]
        );
        let (thread, reg) = Self::parts(t, r);
        // The tensor's start joins the origin, both uniform across the CTA, before the thread's
        // part: a batch's row is then one add, as a hand-written kernel numbers it. The sum
        // wraps: it is formed before the masks, also for vectors past the tensor, whose index
        // may not fit a u32 and is never used (an element inside has its true index, below
        // 2^32, as the view's contract says; `exact`, summed in debug builds only, checks it
        // where an access is made).
        let (mut i, mut k, mut exact) = (0u32, 0usize, 0u64);
        let mut d = 0;
        while d < R {
            let c = start[d]
                .wrapping_add(origin[d])
                .wrapping_add(L::coord(thread, d));
            i = i.wrapping_add(c.wrapping_mul(strides[d]));
            k += L::coord(reg, d) as usize * strides[d] as usize;
            if cfg!(debug_assertions) {
                let e = start[d] as u64 + origin[d] as u64 + L::coord(thread, d) as u64;
                exact += (e + L::coord(reg, d) as u64) * strides[d] as u64;
            }
            d += 1;
        }
        (i, k, exact)
    }

    /// The in-dim values of this thread and of register `r` whose coordinates add up to the
    /// element's: `([0, lane, warp, block], [r, 0, 0, 0])` where `L` is [`separable`], else the
    /// whole index and none.
    #[inline(always)]
    fn parts<T: Thread>(t: &T, r: usize) -> ([u32; 4], [u32; 4]) {
        if const { separable::<L>() } {
            ([0, t.lane(), t.warp(), t.cta_rank()], [r as u32, 0, 0, 0])
        } else {
            ([r as u32, t.lane(), t.warp(), t.cta_rank()], [0; 4])
        }
    }

    /// Loads this thread's registers of the tile at `origin` of `src`, a tensor with `strides`
    /// (in elements; the fast dim's stride is 1), in vectors of `VECTOR.1` elements.
    ///
    /// The tile's origin along the fast dim, the other strides and the buffer's address must be
    /// multiples of the vector (16 bytes at most): the simulator checks it, the GPU requires it.
    ///
    /// # Safety
    /// Every element the tile reaches (`sum((origin[d] + c[d]) * strides[d])` for its
    /// coordinates `c`) is inside `src`'s buffer. A [`View`](crate::View) keeps this
    /// by construction: prefer its `load`.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn load<T: Thread, const R: usize>(
        t: &T,
        src: &Global<'_, E>,
        origin: [u32; R],
        strides: [u32; R],
    ) -> Self {
        let mut values = [E::default(); N];
        let v = Self::VECTOR.1;
        crate::unroll!(N / Self::VECTOR.1, |g| {
            let i = Self::index(t, v * g, [0; R], origin, strides);
            load_vector(src, i, &mut values, v * g, v);
        });
        Self::new(values)
    }

    /// Stores this thread's registers to the tile at `origin` of `dst`, as [`Tile::load`].
    /// Each element is written once: registers, lanes, warps and CTAs that hold copies of
    /// another's elements (zero or dependent bases, as in a slice layout) store nothing.
    ///
    /// # Safety
    /// Every element the tile reaches (`sum((origin[d] + c[d]) * strides[d])` for its
    /// coordinates `c`) is inside `dst`'s buffer, and no other thread accesses them while it writes. A [`View`](crate::View) keeps this
    /// by construction: prefer its `store`.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn store<T: Thread, const R: usize>(
        &self,
        t: &T,
        dst: &GlobalMut<'_, E>,
        origin: [u32; R],
        strides: [u32; R],
    ) {
        let v = Self::VECTOR.1;
        let first = Self::stores_copies(t);
        crate::unroll!(N / Self::VECTOR.1, |g| {
            if first && (v * g) as u32 & Self::FREE[0] == 0 {
                let i = Self::index(t, v * g, [0; R], origin, strides);
                store_vector(dst, i, &self.values, v * g, v);
            }
        });
    }

    /// How many of the `v` elements from register `r` on (consecutive along the fast dim) lie
    /// inside `bounds` (a tensor of that shape, the tile at `origin`).
    #[inline(always)]
    pub(crate) fn inside<T: Thread, const R: usize>(
        t: &T,
        r: usize,
        v: usize,
        origin: [u32; R],
        bounds: [u32; R],
    ) -> usize {
        let fast = Self::VECTOR.0;
        let (thread, reg) = Self::parts(t, r);
        let mut n = v as u32;
        let mut d = 0;
        while d < R {
            // What is left of the tensor past the thread's part, against the register's part (a
            // constant): each register's mask is then one compare with an immediate.
            let left = bounds[d].saturating_sub(origin[d].saturating_add(L::coord(thread, d)));
            let c = L::coord(reg, d);
            if d == fast {
                n = n.min(left.saturating_sub(c));
            } else if c >= left {
                n = 0;
            }
            d += 1;
        }
        n as usize
    }

    /// [`Tile::load`] of a tile that may reach past the tensor's `bounds` (its shape): the
    /// elements outside are `other` and not read (Triton's `tl.load(.., mask, other)` with the
    /// mask `coordinate < bound`). Vectors wholly inside and aligned load as one access; one
    /// that straddles the edge, or that a stride leaves unaligned (a row of 37 elements), loads
    /// element by element.
    ///
    /// # Safety
    /// Every element inside `bounds` that the tile reaches is inside `src`'s buffer
    /// (the masks trust `bounds`). A [`View`](crate::View) keeps this by construction: prefer
    /// its `load`.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn load_masked<T: Thread, const R: usize>(
        t: &T,
        src: &Global<'_, E>,
        origin: [u32; R],
        strides: [u32; R],
        bounds: [u32; R],
        other: E,
    ) -> Self {
        unsafe {
            Self::load_masked_at::<T, R, false>(t, src, [0; R], origin, strides, bounds, other)
        }
    }

    /// [`Tile::store`] of the elements inside the tensor's `bounds` only, as
    /// [`Tile::load_masked`] (each element once, as `store`).
    ///
    /// # Safety
    /// Every element inside `bounds` that the tile reaches is inside `dst`'s buffer, and no other thread accesses them while it writes
    /// (the masks trust `bounds`). A [`View`](crate::View) keeps this by construction: prefer
    /// its `store`.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn store_masked<T: Thread, const R: usize>(
        &self,
        t: &T,
        dst: &GlobalMut<'_, E>,
        origin: [u32; R],
        strides: [u32; R],
        bounds: [u32; R],
    ) {
        unsafe { self.store_masked_at::<T, R, false>(t, dst, [0; R], origin, strides, bounds) }
    }

    /// [`Tile::load_masked`] where the bounds, the origin along the fast dim and the other
    /// strides are multiples of the vector, so that each vector is wholly inside or wholly
    /// outside: one access or none per vector, no element-by-element path (Triton's masked load
    /// when the launcher found the sizes divisible by 16). Kernels that cannot promise it use
    /// `load_masked`; the simulator checks the promise.
    ///
    /// # Safety
    /// Every element inside `bounds` that the tile reaches is inside `src`'s buffer
    /// (the masks trust `bounds`). A [`View`](crate::View) keeps this by construction: prefer
    /// its `load`.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn load_masked_aligned<T: Thread, const R: usize>(
        t: &T,
        src: &Global<'_, E>,
        origin: [u32; R],
        strides: [u32; R],
        bounds: [u32; R],
        other: E,
    ) -> Self {
        unsafe {
            Self::load_masked_at::<T, R, true>(t, src, [0; R], origin, strides, bounds, other)
        }
    }

    /// [`Tile::store_masked`] under [`Tile::load_masked_aligned`]'s promise: one access or none
    /// per vector.
    ///
    /// # Safety
    /// Every element inside `bounds` that the tile reaches is inside `dst`'s buffer, and no other thread accesses them while it writes
    /// (the masks trust `bounds`). A [`View`](crate::View) keeps this by construction: prefer
    /// its `store`.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn store_masked_aligned<T: Thread, const R: usize>(
        &self,
        t: &T,
        dst: &GlobalMut<'_, E>,
        origin: [u32; R],
        strides: [u32; R],
        bounds: [u32; R],
    ) {
        unsafe { self.store_masked_at::<T, R, true>(t, dst, [0; R], origin, strides, bounds) }
    }

    /// The masked load, `ALIGNED` or not, of a tensor that starts at coordinate `start` of
    /// `src` (see [`Tile::index`]).
    ///
    /// # Safety
    /// As [`Tile::load_masked`], for the tensor at `start`.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) unsafe fn load_masked_at<T: Thread, const R: usize, const ALIGNED: bool>(
        t: &T,
        src: &Global<'_, E>,
        start: [u32; R],
        origin: [u32; R],
        strides: [u32; R],
        bounds: [u32; R],
        other: E,
    ) -> Self {
        let mut values = [other; N];
        let v = Self::VECTOR.1;
        crate::unroll!(N / Self::VECTOR.1, |g| {
            let n = Self::inside(t, v * g, v, origin, bounds);
            let (thread, reg, exact) = Self::index_parts(t, v * g, start, origin, strides);
            if reached::<ALIGNED>(n, v) {
                let i = checked_index(thread, reg, exact);
                if ALIGNED || n == v && i.is_multiple_of(v) {
                    aligned_promise::<ALIGNED>(i, n, v);
                    load_vector(src, i, &mut values, v * g, v);
                } else {
                    load_part(src, i, &mut values, v * g, n);
                }
            }
        });
        Self::new(values)
    }

    /// The masked store, `ALIGNED` or not, to a tensor that starts at coordinate `start` of
    /// `dst` (see [`Tile::index`]).
    ///
    /// # Safety
    /// As [`Tile::store_masked`], for the tensor at `start`.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) unsafe fn store_masked_at<T: Thread, const R: usize, const ALIGNED: bool>(
        &self,
        t: &T,
        dst: &GlobalMut<'_, E>,
        start: [u32; R],
        origin: [u32; R],
        strides: [u32; R],
        bounds: [u32; R],
    ) {
        let v = Self::VECTOR.1;
        let first = Self::stores_copies(t);
        crate::unroll!(N / Self::VECTOR.1, |g| {
            let n = Self::inside(t, v * g, v, origin, bounds);
            let (thread, reg, exact) = Self::index_parts(t, v * g, start, origin, strides);
            if reached::<ALIGNED>(n, v) && first && (v * g) as u32 & Self::FREE[0] == 0 {
                let i = checked_index(thread, reg, exact);
                if ALIGNED || n == v && i.is_multiple_of(v) {
                    aligned_promise::<ALIGNED>(i, n, v);
                    store_vector(dst, i, &self.values, v * g, v);
                } else {
                    store_part(dst, i, &self.values, v * g, n);
                }
            }
        });
    }
}

/// The index of [`Tile::index_parts`]' `thread` and `reg`, for an access that is made: checked
/// (in debug builds: on the simulator) to be the true one, `exact`, a tensor's indices fitting
/// a `u32` (the views' and partitions' contract; an index that wrapped would reach another
/// element).
#[inline(always)]
pub(crate) fn checked_index(thread: u32, reg: usize, exact: u64) -> usize {
    let i = thread as usize + reg;
    debug_assert!(
        exact == i as u64 && exact <= u32::MAX as u64,
        "a tile's element at index {exact} is past a u32: a tensor's indices must fit one"
    );
    i
}

/// Whether a masked access of a vector with `n` of its `v` elements inside the tensor touches
/// memory: any element inside, or with the `_aligned` promise the whole vector (each vector
/// is then wholly inside or outside; one the promise does not hold for is skipped, not read
/// or written past the tensor: the same one compare, with another immediate).
#[inline(always)]
pub(crate) fn reached<const ALIGNED: bool>(n: usize, v: usize) -> bool {
    debug_assert!(
        !ALIGNED || n == 0 || n == v,
        "an _aligned masked access: a vector of {} elements has only {} of them inside the tensor: with the promise, the tensor's last dim, the origin and the strides are multiples of the vector (use a view without `aligned`, or `Tile::load_masked`/`store_masked`)",
        v,
        n
    );
    n >= if ALIGNED { v } else { 1 }
}

/// Checks (in debug builds: on the simulator) the promise of the `_aligned` masked accesses (and
/// of `AsyncCopy::start_masked`): the `n` elements inside of a vector of `v` at element `i` are
/// all of it, and it is aligned.
#[inline(always)]
pub(crate) fn aligned_promise<const ALIGNED: bool>(i: usize, n: usize, v: usize) {
    debug_assert!(
        !ALIGNED || n == v && i.is_multiple_of(v),
        "an _aligned masked access: a vector of {} elements at element {} {}: with the promise, the tensor's last dim, the origin and the strides are multiples of the vector (use a view without `aligned`, or `Tile::load_masked`/`store_masked`)",
        v,
        i,
        if n == v { "is not aligned to its size" } else { "is cut by the tensor's edge" }
    );
}

/// Registers `at..at + n` from elements `i..i + n` of `src`, one by one (a vector cut by the
/// tensor's edge or left unaligned by a stride). A function of its own: an `unroll!` inside
/// an `unroll!` would be written out 128 x 128 times in the crate's metadata.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn load_part<E: Element, const N: usize>(
    src: &Global<'_, E>,
    i: usize,
    values: &mut [E; N],
    at: usize,
    n: usize,
) {
    // SAFETY: the caller's: elements `i..i + n` are inside the buffer.
    crate::unroll!(16, |k| if k < n {
        values[at + k] = unsafe { src.load1(i + k) }
    });
}

/// Registers `at..at + n` of `src` to elements `i..i + n` of `dst`, one by one, as
/// [`load_part`]. Last element first: ending this path and the vector one with the same store
/// would let LLVM sink it into the block after them, splitting the vector store in two.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn store_part<E: Element, const N: usize>(
    dst: &GlobalMut<'_, E>,
    i: usize,
    src: &[E; N],
    at: usize,
    n: usize,
) {
    // SAFETY: as load_part.
    crate::unroll!(16, |k| if 15 - k < n {
        unsafe { dst.store1(i + 15 - k, src[at + 15 - k]) }
    });
}

/// Registers `at..at + v` from element `i` of `src`, in one access of `v` elements.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn load_vector<E: Element, const N: usize>(
    src: &Global<'_, E>,
    i: usize,
    values: &mut [E; N],
    at: usize,
    v: usize,
) {
    // SAFETY: the caller's: the `v` elements from `i` are inside the buffer, aligned.
    unsafe {
        match v {
            1 => values[at] = src.load1(i),
            2 => put(
                values,
                at,
                vector::<E, 2>(|| src.load16(i), || src.load_n(i)),
            ),
            4 => put(
                values,
                at,
                vector::<E, 4>(|| src.load16(i), || src.load_n(i)),
            ),
            8 => put(
                values,
                at,
                vector::<E, 8>(|| src.load16(i), || src.load_n(i)),
            ),
            _ => put(
                values,
                at,
                vector::<E, 16>(|| src.load16(i), || src.load_n(i)),
            ),
        }
    }
}

/// Registers `at..at + v` of `src` to element `i` of `dst`, in one access.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn store_vector<E: Element, const N: usize>(
    dst: &GlobalMut<'_, E>,
    i: usize,
    src: &[E; N],
    at: usize,
    v: usize,
) {
    // SAFETY: as load_vector.
    unsafe {
        match v {
            1 => dst.store1(i, src[at]),
            2 => store::<E, N, 2>(src, at, |x| dst.store16(i, x), |x| dst.store_n(i, x)),
            4 => store::<E, N, 4>(src, at, |x| dst.store16(i, x), |x| dst.store_n(i, x)),
            8 => store::<E, N, 8>(src, at, |x| dst.store16(i, x), |x| dst.store_n(i, x)),
            _ => store::<E, N, 16>(src, at, |x| dst.store16(i, x), |x| dst.store_n(i, x)),
        }
    }
}

/// A `V`-element load: the 16-byte form when `V` elements are 16 bytes, else the narrower one.
#[inline(always)]
fn vector<E, const V: usize>(
    wide: impl FnOnce() -> [E; V],
    narrow: impl FnOnce() -> [E; V],
) -> [E; V] {
    if V * core::mem::size_of::<E>() == 16 {
        wide()
    } else {
        narrow()
    }
}

/// `x` into `values[at..at + V]`, element by element (no slices: SPIR-V has no pointer casts
/// from arrays to slices).
#[inline(always)]
fn put<E: Copy, const N: usize, const V: usize>(values: &mut [E; N], at: usize, x: [E; V]) {
    let mut k = 0;
    while k < V {
        values[at + k] = x[k];
        k += 1;
    }
}

/// A `V`-element store of `src[at..at + V]`, as [`vector`].
#[inline(always)]
fn store<E: Copy + Default, const N: usize, const V: usize>(
    src: &[E; N],
    at: usize,
    wide: impl FnOnce([E; V]),
    narrow: impl FnOnce([E; V]),
) {
    let mut x = [E::default(); V];
    let mut k = 0;
    while k < V {
        x[k] = src[at + k];
        k += 1;
    }
    if V * core::mem::size_of::<E>() == 16 {
        wide(x)
    } else {
        narrow(x)
    }
}
