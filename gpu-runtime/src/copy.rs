//! Async copies of a tile from global memory straight into a shared layout (Ampere's
//! `cp.async`, what Triton's pipeliner emits for `tl.load` feeding a `local_alloc`): each thread
//! copies the elements it would hold in a distributed layout `L` to where the shared layout puts
//! them, with the addresses of `convert!(L => Shared, T)`'s stores. No element passes through
//! registers, and no index is written by hand.

use core::marker::PhantomData;

use crate::blocks::BlockAt;
use crate::convert::{store_addresses, Instr, SharedStore, SmemAccess};
use crate::element::Element;
use crate::global::Global;
use crate::layout::{Layout, Registers};
use crate::planned::Planned;
use crate::thread::Thread;
use crate::tile::{aligned_promise, reached, Tile};
use crate::view::{contiguous, View};

/// The async copy of a tile held in distributed layout `L` into the shared layout of a
/// `convert!(L => Shared, E)` store: `const COPY: AsyncCopy<L, E> =
/// AsyncCopy::new(convert!(L => Shared, E));` (`L`'s register count is the one its `layout!`
/// states, taken where the copy is made and started). `new` refuses, at compile time, a store whose
/// accesses are not 4-, 8- or 16-byte vectors of registers consecutive in `L` (the only
/// accesses `cp.async` makes).
#[derive(Clone, Copy, Debug)]
pub struct AsyncCopy<L, E> {
    access: SmemAccess,
    shared_bytes: u32,
    layout: PhantomData<fn() -> (L, E)>,
}

impl<L: Layout, E: Element> AsyncCopy<L, E> {
    /// The copy that lands `L`'s tile where a [`SharedStore`] stores it (what `convert!` with
    /// an inline side or an option gives).
    pub const fn from_store<X, const N: usize>(store: SharedStore<E, N, X>) -> Self
    where
        L: Registers<N>,
    {
        let a = store.access;
        let bytes = a.vec * E::BITS / 8;
        assert!(
            matches!(a.instr, Instr::Vector) && !a.remote,
            "AsyncCopy: the store uses stmatrix or another CTA's memory; cp.async writes this CTA's shared memory from global memory"
        );
        assert!(
            matches!(bytes, 4 | 8 | 16),
            "AsyncCopy: the store's vectors are not 4, 8 or 16 bytes; give the distributed layout more consecutive elements per thread along the shared layout's fastest dim"
        );
        assert!(
            N == L::ELEMENTS_PER_THREAD as usize,
            "AsyncCopy<L, E>: the store is not of L's registers (N != L::ELEMENTS_PER_THREAD)"
        );
        assert!(
            Tile::<L, E, N>::VECTOR.1 >= a.vec as usize,
            "AsyncCopy: L's registers are not consecutive in memory for a whole vector of the store"
        );
        let (vec, mut r) = (a.vec as usize, 0);
        while r < a.regs.len() {
            let first = a.regs[r - r % vec] as usize;
            assert!(
                first.is_multiple_of(vec) && a.regs[r] as usize == first + r % vec,
                "AsyncCopy: a vector of the store is not a run of consecutive registers"
            );
            r += 1;
        }
        AsyncCopy {
            access: a,
            shared_bytes: store.cost.shared_bytes,
            layout: PhantomData,
        }
    }

    /// The copy of `L`'s tile into `S` where `convert!(L => S, E)` (a [`Planned`] value) stores
    /// it, planned from the layouts' tables ([`Planned::shared_store`]), so that it works where
    /// the layouts are type parameters too. Its checks are evaluated at compile time even where
    /// it is called at run time (where the function that calls it is compiled for concrete
    /// layouts: `cargo build` reports them):
    ///
    /// ```compile_fail,E0080
    /// use linear_layouts::{convert, layout, AsyncCopy, Layout, Registers};
    ///
    /// layout! {
    ///     Rows = blocked(sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 1], order = [1, 0]) for [16, 64];
    ///     Swz = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [16, 64];
    /// }
    ///
    /// fn copy<L: Registers<N>, S: Layout, const N: usize>() -> AsyncCopy<L, u16> {
    ///     AsyncCopy::new(convert!(L => S, u16))
    /// }
    ///
    /// // error: the store's vectors are not 4, 8 or 16 bytes (one u16 per thread along the row)
    /// let _ = copy::<Rows, Swz, _>();
    /// ```
    pub const fn new<S: Layout, X, const N: usize>(store: Planned<L, S, E, X>) -> Self
    where
        L: Registers<N>,
    {
        let _ = store;
        const { Self::from_store(Planned::<L, S, E>::NEW.shared_store::<N>()) }
    }

    /// Shared memory the shared layout spans, in bytes (one stage of a pipeline).
    pub const fn shared_bytes(&self) -> u32 {
        self.shared_bytes
    }

    /// Start copying this thread's elements of the tile at `origin` of `src` (a tensor with
    /// `strides`, in elements, the fast dim's 1) into shared memory; they land by the
    /// [`Thread::cp_async_wait`] of the group they are committed in. Every thread of the CTA
    /// calls it (threads holding copies of an element skip it, as the store does).
    ///
    /// # Safety
    /// Every element the tile reaches is inside `src`'s buffer, as for [`Tile::load`].
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn start<T: Thread, G: Element, const R: usize, const N: usize>(
        &self,
        t: &T,
        src: &Global<'_, G>,
        origin: [u32; R],
        strides: [u32; R],
    ) where
        L: Registers<N>,
    {
        const {
            assert!(
                G::BITS == E::BITS,
                "AsyncCopy: the tensor's elements are not the store's size"
            )
        };
        crate::convert::fits_declared::<T>(self.shared_bytes);
        let a = &self.access;
        let bytes = a.vec * G::BITS / 8;
        store_addresses(a, t, |v, smem| {
            let reg = a.regs[v * a.vec as usize] as usize;
            let i = Tile::<L, G, N>::index(t, reg, [0; R], origin, strides);
            // SAFETY: `smem` is the shared layout's own address of the vector (inside the
            // layout's bytes, which the kernel's shared bytes cover: checked above); the copies
            // land by the wait of their group, before any read that a barrier orders after it.
            unsafe { src.copy_to_shared(t, i, bytes, smem) };
        });
    }

    /// [`AsyncCopy::start`] of a tile that may reach past the tensor's `bounds` (its shape):
    /// the vectors outside are not read, and zeros are stored in their place (what `cp.async`'s
    /// zero fill gives, as an ordinary store: visible, as the copies are, after the wait and a
    /// barrier). Each vector is wholly inside or wholly outside (the bounds, origin and strides
    /// multiples of the vector), the promise of [`Tile::load_masked_aligned`].
    ///
    /// # Safety
    /// Every element inside `bounds` that the tile reaches is inside `src`'s buffer, as for
    /// [`Tile::load_masked`].
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn start_masked<T: Thread, G: Element, const R: usize, const N: usize>(
        &self,
        t: &T,
        src: &Global<'_, G>,
        origin: [u32; R],
        strides: [u32; R],
        bounds: [u32; R],
    ) where
        L: Registers<N>,
    {
        // SAFETY: the caller's, for the tensor at element 0.
        unsafe { self.start_masked_at::<T, G, R, N>(t, src, [0; R], origin, strides, bounds) }
    }

    /// [`AsyncCopy::start`] of a block of a [`Blocked`](crate::Blocked) matrix (of `L`'s shape, inside it by
    /// construction: no mask).
    #[inline(always)]
    pub fn start_block<T: Thread, G: Element, const COLUMN_MAJOR: bool, const N: usize>(
        &self,
        t: &T,
        block: BlockAt<'_, '_, G, L, COLUMN_MAJOR>,
    ) where
        L: Registers<N>,
    {
        // Each copy is a vector along `L`'s fast dim: the matrix's contiguous one.
        crate::tiles::contiguous::<L, G, N, COLUMN_MAJOR>();
        let (src, origin, strides) = block.parts();
        // SAFETY: the block is inside the matrix, which the buffer holds (its makers'
        // contract), and is the tile `L` reaches from its origin.
        #[allow(unsafe_code)]
        unsafe {
            self.start::<T, G, 2, N>(t, src, origin, strides)
        }
    }

    /// [`AsyncCopy::start_masked`] of the tile at `origin` of an `_aligned` view: the vectors
    /// outside the view are not read, and zeros are stored in their place. The origin along the
    /// fast dim is a multiple of the vector (a trap otherwise, which folds for constants).
    #[inline(always)]
    pub fn start_from<T: Thread, G: Element, const R: usize, const N: usize>(
        &self,
        t: &T,
        src: &View<'_, G, R, true>,
        origin: [u32; R],
    ) where
        L: Registers<N>,
    {
        let (mem, start, strides, shape) = src.parts();
        contiguous::<L, G, N, R, true>(strides, origin);
        // SAFETY: the masks keep every copy inside the view's shape, which its contract keeps
        // in the buffer; each vector is wholly inside or outside (the `_aligned` promise, the
        // origin checked above).
        #[allow(unsafe_code)]
        unsafe {
            self.start_masked_at::<T, G, R, N>(t, mem, start, origin, strides, shape)
        }
    }

    /// [`AsyncCopy::start_masked`] of a tensor from coordinate `start` of `src` (see
    /// [`View`]).
    ///
    /// # Safety
    /// As [`AsyncCopy::start_masked`], for the tensor at `start`.
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn start_masked_at<T: Thread, G: Element, const R: usize, const N: usize>(
        &self,
        t: &T,
        src: &Global<'_, G>,
        start: [u32; R],
        origin: [u32; R],
        strides: [u32; R],
        bounds: [u32; R],
    ) where
        L: Registers<N>,
    {
        const {
            assert!(
                G::BITS == E::BITS,
                "AsyncCopy: the tensor's elements are not the store's size"
            )
        };
        crate::convert::fits_declared::<T>(self.shared_bytes);
        let a = &self.access;
        let (vec, bytes) = (a.vec as usize, a.vec * G::BITS / 8);
        store_addresses(a, t, |v, smem| {
            let reg = a.regs[v * vec] as usize;
            let n = Tile::<L, G, N>::inside(t, reg, vec, origin, bounds);
            let (thread, k, exact) = Tile::<L, G, N>::index_parts(t, reg, start, origin, strides);
            if reached::<true>(n, vec) {
                let i = crate::tile::checked_index(thread, k, exact);
                aligned_promise::<true>(i, n, vec);
                // SAFETY: as in `start`.
                unsafe { src.copy_to_shared(t, i, bytes, smem) };
            } else {
                // SAFETY: as in `start`.
                unsafe { t.st_shared(smem, bytes, [0; 4]) };
            }
        });
    }
}
