//! Tensor views: a global tensor with its shape and strides ([`View`], [`ViewMut`]), so that a
//! tile loads and stores by its origin alone and every access is masked against the tensor's
//! real extent (Triton's block pointers, cuTile's tensors): `x.load::<Rows>(t, origin, other)`,
//! `y.store(t, origin, &tile)`. A kernel takes its views as parameters whose shape the launcher
//! sets and checks against the buffer (`#[kernel(extent(x = [n_rows, n_cols]))]`), so that safe
//! code cannot reach past a buffer: a view is made only there, by [`View::new_unchecked`] (whose
//! contract the launcher's check keeps), or on the host over memory that checks every access
//! ([`View::host`]). What a view derives from itself stays inside it: [`View::transpose`],
//! [`View::as_rows`] (a vector as every row), [`View::rows`] (a window of rows). Loads and stores
//! are the masked [`Tile`] ones (the same instructions); a store writes each element once.
//!
//! [`View::aligned`] is the `_aligned` specialisation (Triton's divisibility by 16): the shape's
//! fast dim and the other strides are multiples of the vector, so each vector is wholly inside or
//! outside and masks cost one compare per vector.

use crate::element::Element;
use crate::global::{Global, GlobalMut};
use crate::layout::Registers;
use crate::slices::{Build, Distributed, TileOf};
use crate::thread::Thread;
use crate::tile::Tile;

/// Row-major strides of `shape`: the last dim contiguous.
pub(crate) const fn row_major<const R: usize>(shape: [u32; R]) -> [u32; R] {
    let mut strides = [1; R];
    let mut d = R;
    while d > 1 {
        d -= 1;
        strides[d - 1] = strides[d] * shape[d];
    }
    strides
}

/// A global tensor a kernel reads, with its shape and strides (in elements; the fast dim's
/// stride is 1), starting at coordinate `start` of its buffer (element `[c]` of the view is
/// the buffer's `sum((start[d] + c[d]) * strides[d])`: a batch's matrix starts at row
/// `matrix * rows`). `ALIGNED`: [`View::aligned`]'s promise.
///
/// Every element of the shape is inside the buffer, and its index fits in a `u32`: the
/// constructors' contract, which the accesses rely on. (A view with no elements may start
/// anywhere: its start plus its shape may pass a `u32`, and nothing is reached.)
#[derive(Clone, Copy)]
pub struct View<'a, E, const R: usize, const ALIGNED: bool = false> {
    src: Global<'a, E>,
    shape: [u32; R],
    strides: [u32; R],
    start: [u32; R],
}

/// A global tensor a kernel writes, with its shape and strides, as [`View`].
pub struct ViewMut<'a, E, const R: usize, const ALIGNED: bool = false> {
    dst: GlobalMut<'a, E>,
    shape: [u32; R],
    strides: [u32; R],
    start: [u32; R],
}

impl<'a, E: Element, const R: usize, const ALIGNED: bool> View<'a, E, R, ALIGNED> {
    /// `src` as a row-major tensor of `shape` (the last dim contiguous): what `#[kernel]` makes
    /// of a `View` parameter from the shape its `extent(..)` gives.
    ///
    /// # Safety
    /// `src` holds at least the product of `shape` elements, and that product is at most
    /// `u32::MAX + 1`; with `ALIGNED`, `src` is 16-byte aligned and the last dim a multiple of
    /// 16 bytes (the launcher checks all of it before a launch).
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn new_unchecked(src: Global<'a, E>, shape: [u32; R]) -> Self {
        let strides = row_major(shape);
        View {
            src,
            shape,
            strides,
            start: [0; R],
        }
    }
}

impl<'a, E: Element, const R: usize, const ALIGNED: bool> ViewMut<'a, E, R, ALIGNED> {
    /// `dst` as a row-major tensor of `shape`, as [`View::new_unchecked`].
    ///
    /// # Safety
    /// As [`View::new_unchecked`].
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn new_unchecked(dst: GlobalMut<'a, E>, shape: [u32; R]) -> Self {
        let strides = row_major(shape);
        ViewMut {
            dst,
            shape,
            strides,
            start: [0; R],
        }
    }
}

impl<'a, E: Element, const R: usize, const ALIGNED: bool> View<'a, E, R, ALIGNED> {
    /// The tensor of `shape` and `strides` from coordinate `start` of `src`.
    ///
    /// # Safety
    /// Every element of the shape is inside `src`'s buffer and its index fits a `u32`; with
    /// `ALIGNED`, the element at `start` is 16-byte aligned, the strides but the last and the
    /// last dim multiples of 16 bytes.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) unsafe fn from_parts(
        src: Global<'a, E>,
        shape: [u32; R],
        strides: [u32; R],
        start: [u32; R],
    ) -> Self {
        View {
            src,
            shape,
            strides,
            start,
        }
    }

    /// The buffer, the start, the strides and the shape: what a copy from the view reads.
    #[inline(always)]
    pub(crate) fn parts(&self) -> (&Global<'a, E>, [u32; R], [u32; R], [u32; R]) {
        (&self.src, self.start, self.strides, self.shape)
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
impl<'a, E: Element, const R: usize, const ALIGNED: bool> View<'a, E, R, ALIGNED> {
    /// Host memory (the simulator's `HostMemory`) as a row-major tensor of `shape`: host memory
    /// checks every access itself (the simulator reports one outside it, or misaligned), so
    /// any shape is safe.
    pub fn host(mem: &'a dyn crate::global::HostBuffer, shape: [u32; R]) -> Self {
        View {
            src: Global::host(mem),
            shape,
            strides: row_major(shape),
            start: [0; R],
        }
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
impl<'a, E: Element, const R: usize, const ALIGNED: bool> ViewMut<'a, E, R, ALIGNED> {
    /// Host memory as a row-major tensor of `shape` a kernel writes, as [`View::host`].
    pub fn host(mem: &'a dyn crate::global::HostBuffer, shape: [u32; R]) -> Self {
        ViewMut {
            dst: GlobalMut::host(mem),
            shape,
            strides: row_major(shape),
            start: [0; R],
        }
    }
}

/// What both views share: the shape, the strides, the alignment promise and the views derived
/// from a view (each inside it).
macro_rules! view_common {
    ($view:ident, $mem:ident) => {
        impl<'a, E: Element, const R: usize, const ALIGNED: bool> $view<'a, E, R, ALIGNED> {
            /// The tensor's shape.
            #[inline(always)]
            pub fn shape(&self) -> [u32; R] {
                self.shape
            }
            /// Its strides, in elements.
            #[inline(always)]
            pub fn strides(&self) -> [u32; R] {
                self.strides
            }
            /// The same buffer with other `strides` (in elements; the fast dim's stride is 1),
            /// from the same start coordinates: the view's first element is then
            /// `sum(start[d] * strides[d])` with the new strides (element 0 for a view that is
            /// not a window, [`Self::rows`], or a batch's matrix), so a window's first row moves
            /// with them.
            ///
            /// # Safety
            /// Every element of the shape is still inside what the view holds: for each
            /// coordinate `c` below the shape, `sum((start[d] + c[d]) * strides[d])` with the
            /// new strides is an element this view reaches.
            #[inline(always)]
            #[allow(unsafe_code)]
            pub unsafe fn with_strides(mut self, strides: [u32; R]) -> Self {
                self.strides = strides;
                self
            }
            /// Rows `start..start + count` of dim 0, as far as the tensor has them (fewer, or
            /// none, past its end): a tensor of the same strides whose row 0 is row `start`
            /// (without the `_aligned` promise: row `start` of a vector need not be aligned).
            #[inline(always)]
            pub fn rows(self, start: u32, count: u32) -> $view<'a, E, R, false> {
                let (mut shape, strides) = (self.shape, self.strides);
                let start = start.min(shape[0]);
                shape[0] = count.min(shape[0] - start);
                // Past a `u32` only for a view with no elements (nothing is reached).
                let mut first = self.start;
                first[0] = first[0].wrapping_add(start);
                self.remade(shape, strides, first)
            }

            /// The same buffer as another view of it: every view derived here is one, its
            /// shape, strides and start inside this one's (the callers' to keep).
            #[inline(always)]
            fn remade<const R2: usize, const A2: bool>(
                self,
                shape: [u32; R2],
                strides: [u32; R2],
                start: [u32; R2],
            ) -> $view<'a, E, R2, A2> {
                $view {
                    $mem: self.$mem,
                    shape,
                    strides,
                    start,
                }
            }
        }

        impl<'a, E: Element, const ALIGNED: bool> $view<'a, E, 2, ALIGNED> {
            /// The transposed tensor: element `[i, j]` is this one's `[j, i]` (the same
            /// elements, the shape and strides swapped).
            #[inline(always)]
            pub fn transpose(mut self) -> Self {
                self.shape = [self.shape[1], self.shape[0]];
                self.strides = [self.strides[1], self.strides[0]];
                self.start = [self.start[1], self.start[0]];
                self
            }
        }

        impl<'a, E: Element, const ALIGNED: bool> $view<'a, E, 1, ALIGNED> {
            /// This vector as every row of a matrix (row stride 0: Triton's `x[None, :]`
            /// broadcast), as many rows as a `u32` counts (the `_aligned` promise kept: the
            /// rows' width is the vector's length, their stride 0).
            #[inline(always)]
            pub fn as_rows(self) -> $view<'a, E, 2, ALIGNED> {
                let (shape, strides, start) = (
                    [u32::MAX, self.shape[0]],
                    [0, self.strides[0]],
                    [0, self.start[0]],
                );
                self.remade(shape, strides, start)
            }
        }

        impl<'a, E: Element, const R: usize> $view<'a, E, R, false> {
            /// The same tensor, promising that the shape along the tiles' fast dim, the other
            /// strides and the tiles' origins along the fast dim are multiples of the vector (16
            /// bytes), and the view's first element (at its start: not the buffer's, for a
            /// window) 16-byte aligned: each vector is then wholly inside the
            /// tensor or wholly outside, one access or none (Triton's specialisation of a kernel
            /// for sizes divisible by 16). A kernel parameter `View<E, R, true>` has the shape
            /// and buffer checked by the launcher instead (whole allocations are 256-byte
            /// aligned), and every access its origin checked (a trap where it is off the vector;
            /// it folds where origins are constants along the fast dim).
            ///
            /// # Safety
            /// The promise: a vector access the GPU makes under it at a misaligned address is
            /// undefined (the simulator reports one in debug builds).
            #[inline(always)]
            #[allow(unsafe_code)]
            pub unsafe fn aligned(self) -> $view<'a, E, R, true> {
                let (shape, strides, start) = (self.shape, self.strides, self.start);
                self.remade(shape, strides, start)
            }
        }
    };
}
view_common!(View, src);
view_common!(ViewMut, dst);

impl<'a, E: Element, const R: usize, const ALIGNED: bool> View<'a, E, R, ALIGNED> {
    /// The tile of layout `L` at `origin`: elements outside the tensor are `other` and not read
    /// (Triton's `tl.load(ptr, mask, other)` with the tensor's bounds as the mask).
    #[inline(always)]
    pub fn load<L: Distributed>(
        &self,
        t: &impl Thread,
        origin: [u32; R],
        other: E,
    ) -> TileOf<L, E> {
        L::build(Loading {
            view: self,
            t,
            origin,
            other,
        })
    }
}

impl<'a, E: Element, const R: usize, const ALIGNED: bool> View<'a, E, R, ALIGNED> {
    /// The element at `index`, or `other` outside the tensor (a masked load of one element).
    #[inline(always)]
    pub fn load_one(&self, index: [u32; R], other: E) -> E {
        match element_index(self.start, index, self.shape, self.strides) {
            // SAFETY: inside the shape, which the view's contract keeps in the buffer.
            #[allow(unsafe_code)]
            Some(i) => unsafe { self.src.load1(i) },
            None => other,
        }
    }
}

/// Where element `index` of a tensor of `shape` and `strides` from coordinate `start` is, if
/// inside.
#[inline(always)]
fn element_index<const R: usize>(
    start: [u32; R],
    index: [u32; R],
    shape: [u32; R],
    strides: [u32; R],
) -> Option<usize> {
    let mut d = 0;
    while d < R {
        if index[d] >= shape[d] {
            return None;
        }
        d += 1;
    }
    // Only an element inside the shape is summed, and its index fits a `u32` (the view's
    // contract; the simulator checks it): the wrapping sum is its index.
    let (mut i, mut exact) = (0u32, 0u64);
    d = 0;
    while d < R {
        i = i.wrapping_add(start[d].wrapping_add(index[d]).wrapping_mul(strides[d]));
        exact += (start[d] as u64 + index[d] as u64) * strides[d] as u64;
        d += 1;
    }
    debug_assert!(
        exact == i as u64,
        "element {index:?} of a view is at index {exact}, past a u32: a view's indices must fit one"
    );
    Some(i as usize)
}

impl<'a, E: Element, const R: usize, const ALIGNED: bool> ViewMut<'a, E, R, ALIGNED> {
    /// Stores `tile` at `origin`: the elements inside the tensor, each once (copies in
    /// registers, lanes, warps or CTAs store nothing).
    ///
    /// # Safety
    /// No other thread writes these elements, nor reads them, without an ordering: a view
    /// bounds its stores, not who else stores there. A partition ([`ChunksMut`](crate::ChunksMut),
    /// [`TilesMut`](crate::TilesMut), [`BlocksMut`](crate::BlocksMut)) gives each CTA its own.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn store<L: Registers<N>, const N: usize>(
        &self,
        t: &impl Thread,
        origin: [u32; R],
        tile: &Tile<L, E, N>,
    ) {
        // SAFETY: the caller's.
        unsafe { tile.store_to(t, self, origin) }
    }

    /// Stores `v` at `index` if it is inside the tensor (a masked store of one element).
    ///
    /// # Safety
    /// As [`ViewMut::store`]: no other thread accesses the element unordered.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn store_one(&self, index: [u32; R], v: E) {
        if let Some(i) = element_index(self.start, index, self.shape, self.strides) {
            // SAFETY: inside the shape, which the view's contract keeps in the buffer.
            #[allow(unsafe_code)]
            unsafe {
                self.dst.store1(i, v)
            }
        }
    }
}

impl<L: Registers<N>, E: Element, const N: usize> Tile<L, E, N> {
    /// [`View::load`] with the register count written out, for generic code.
    #[inline(always)]
    pub fn load_from<const R: usize, const ALIGNED: bool>(
        t: &impl Thread,
        src: &View<'_, E, R, ALIGNED>,
        origin: [u32; R],
        other: E,
    ) -> Self {
        let (strides, bounds) = (src.strides, src.shape);
        contiguous::<L, E, N, R, ALIGNED>(strides, origin);
        // SAFETY: the masks keep every access inside the shape, which the view's contract
        // keeps inside the buffer; a vector is contiguous in it (checked above).
        #[allow(unsafe_code)]
        unsafe {
            Self::load_masked_at::<_, R, ALIGNED>(
                t, &src.src, src.start, origin, strides, bounds, other,
            )
        }
    }

    /// Stores this tile at `origin` of `dst` ([`ViewMut::store`]).
    ///
    /// # Safety
    /// As [`ViewMut::store`].
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn store_to<const R: usize, const ALIGNED: bool>(
        &self,
        t: &impl Thread,
        dst: &ViewMut<'_, E, R, ALIGNED>,
        origin: [u32; R],
    ) {
        let (strides, bounds) = (dst.strides, dst.shape);
        contiguous::<L, E, N, R, ALIGNED>(strides, origin);
        // SAFETY: as `load_from`.
        #[allow(unsafe_code)]
        unsafe {
            self.store_masked_at::<_, R, ALIGNED>(t, &dst.dst, dst.start, origin, strides, bounds)
        }
    }
}

/// A tile of `L` moves vectors along its fast dim, which must then be contiguous in the view
/// (stride 1): a transposed view's tiles are of a layout whose fast dim is its dim 0. A trap (a
/// panic on the simulator) otherwise: a vector elsewhere would read or write past its
/// elements. Views make their strides from constants, so the check folds away where it holds.
#[inline(always)]
pub(crate) fn contiguous<
    L: Registers<N>,
    E: Element,
    const N: usize,
    const R: usize,
    const ALIGNED: bool,
>(
    strides: [u32; R],
    origin: [u32; R],
) {
    const {
        if L::RANK != R {
            panic!("a tile is loaded from or stored to a view of its layout's rank: these differ");
        }
    }
    let (fast, v) = Tile::<L, E, N>::VECTOR;
    assert!(
        v == 1 || fast >= R || strides[fast] == 1,
        "a tile's vectors run along its layout's fast dim, which has stride 1 in memory: this view's stride there is not 1 (a transposed view takes a layout whose dim 0 is fast)"
    );
    // Under the `_aligned` promise each vector is accessed whole: its origin along the fast dim
    // must keep it aligned (the launcher checked the shape and the buffer, not the origin).
    assert!(
        !ALIGNED || v == 1 || fast >= R || origin[fast].is_multiple_of(v as u32),
        "an `_aligned` view's tiles start at multiples of the vector along the fast dim: this origin does not"
    );
}

/// A view's load, built once the layout's register count is known.
struct Loading<'v, 'a, E, T, const R: usize, const ALIGNED: bool> {
    view: &'v View<'a, E, R, ALIGNED>,
    t: &'v T,
    origin: [u32; R],
    other: E,
}

impl<L, E: Element, T: Thread, const R: usize, const ALIGNED: bool> Build<L, E>
    for Loading<'_, '_, E, T, R, ALIGNED>
{
    #[inline(always)]
    fn build<const N: usize>(self) -> Tile<L, E, N>
    where
        L: Registers<N>,
    {
        Tile::load_from(self.t, self.view, self.origin, self.other)
    }
}

/// A view as the GPU entry makes it: its shape, whole (row-major from element 0).
macro_rules! made_view {
    ($($view:ident, $buf:ident);*) => {$(
        #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
        impl<E, const R: usize, const A: bool> crate::made::Made for $view<'_, E, R, A> {
            type Sizes = [u32; R];
            fn sizes(&self) -> [u32; R] {
                self.shape
            }
            fn elements(&self) -> Option<u64> {
                self.$buf.elements()
            }
            fn whole(&self) -> bool {
                self.strides == row_major(self.shape) && self.start == [0; R]
            }
        }
    )*};
}
made_view!(View, src; ViewMut, dst);
