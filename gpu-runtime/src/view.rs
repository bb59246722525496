//! Tensor views: a global tensor with its shape and strides ([`View`], [`ViewMut`]), so that a
//! tile loads and stores by its origin alone and every access is masked against the tensor's
//! real extent (Triton's block pointers, cuTile's partitioned tensors): `x.view([n_rows,
//! n_cols]).load::<Rows>(t, origin, other)`, `y.view([n_rows, n_cols]).store(t, origin, &tile)`.
//! A view holds nothing the launcher passes: its shape comes from the kernel's scalar
//! parameters (which `#[kernel(extent(..))]` checks against the buffers at launch). Loads and
//! stores are the masked [`Tile`] ones (the same instructions); a store writes each element once.
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
const fn row_major<const R: usize>(shape: [u32; R]) -> [u32; R] {
    let mut strides = [1; R];
    let mut d = R;
    while d > 1 {
        d -= 1;
        strides[d - 1] = strides[d] * shape[d];
    }
    strides
}

/// A global tensor a kernel reads, with its shape and strides (in elements; the fast dim's
/// stride is 1). `ALIGNED`: [`View::aligned`]'s promise.
#[derive(Clone, Copy)]
pub struct View<'a, E, const R: usize, const ALIGNED: bool = false> {
    src: Global<'a, E>,
    shape: [u32; R],
    strides: [u32; R],
}

/// A global tensor a kernel writes, with its shape and strides, as [`View`].
pub struct ViewMut<'a, E, const R: usize, const ALIGNED: bool = false> {
    dst: &'a GlobalMut<'a, E>,
    shape: [u32; R],
    strides: [u32; R],
}

impl<'a, E: Element> Global<'a, E> {
    /// This tensor as a row-major tensor of `shape` (the last dim contiguous).
    #[inline(always)]
    pub fn view<const R: usize>(self, shape: [u32; R]) -> View<'a, E, R> {
        View {
            src: self,
            shape,
            strides: row_major(shape),
        }
    }
}

impl<'a, E: Element> GlobalMut<'a, E> {
    /// This tensor as a row-major tensor of `shape` (the last dim contiguous).
    #[inline(always)]
    pub fn view<const R: usize>(&'a self, shape: [u32; R]) -> ViewMut<'a, E, R> {
        ViewMut {
            dst: self,
            shape,
            strides: row_major(shape),
        }
    }
}

/// What both views share: the shape, the strides and the alignment promise.
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
            /// The same tensor with other `strides` (in elements; the fast dim's stride is 1):
            /// a column-major tensor, a tensor with padded rows.
            #[inline(always)]
            pub fn with_strides(mut self, strides: [u32; R]) -> Self {
                self.strides = strides;
                self
            }
        }

        impl<'a, E: Element, const R: usize> $view<'a, E, R, false> {
            /// The same tensor, promising that the shape along the tiles' fast dim, the other
            /// strides and the tiles' origins along the fast dim are multiples of the vector (16
            /// bytes), and the buffer 16-byte aligned: each vector is then wholly inside the
            /// tensor or wholly outside, one access or none (Triton's specialisation of a kernel
            /// for sizes divisible by 16). The simulator checks the promise; a host launches
            /// such a kernel only for such sizes.
            #[inline(always)]
            pub fn aligned(self) -> $view<'a, E, R, true> {
                let $view {
                    $mem,
                    shape,
                    strides,
                } = self;
                $view {
                    $mem,
                    shape,
                    strides,
                }
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

impl<'a, E: Element, const R: usize, const ALIGNED: bool> ViewMut<'a, E, R, ALIGNED> {
    /// Stores `tile` at `origin`: the elements inside the tensor, each once (copies in
    /// registers, lanes, warps or CTAs store nothing).
    #[inline(always)]
    pub fn store<L: Registers<N>, const N: usize>(
        &self,
        t: &impl Thread,
        origin: [u32; R],
        tile: &Tile<L, E, N>,
    ) {
        tile.store_to(t, self, origin)
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
        match ALIGNED {
            true => Self::load_masked_aligned(t, &src.src, origin, strides, bounds, other),
            false => Self::load_masked(t, &src.src, origin, strides, bounds, other),
        }
    }

    /// Stores this tile at `origin` of `dst` ([`ViewMut::store`]).
    #[inline(always)]
    pub fn store_to<const R: usize, const ALIGNED: bool>(
        &self,
        t: &impl Thread,
        dst: &ViewMut<'_, E, R, ALIGNED>,
        origin: [u32; R],
    ) {
        let (strides, bounds) = (dst.strides, dst.shape);
        match ALIGNED {
            true => self.store_masked_aligned(t, dst.dst, origin, strides, bounds),
            false => self.store_masked(t, dst.dst, origin, strides, bounds),
        }
    }
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
