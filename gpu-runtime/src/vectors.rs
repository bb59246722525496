//! Thread partitions: a global tensor of short vectors of `V` elements (vector `k` at elements
//! `k * V..`) owned by the grid's threads (of a 1-D grid of 1-D CTAs), what an element-wise
//! kernel needs where a tile partition would need whole tiles:
//!
//! - [`Vectors`], [`VectorsMut`]: `count` vectors (`#[kernel(extent(x = count))]`) taken
//!   grid-stride, `for k in y.each(t)` giving thread `i` vectors `i`, `i + threads`, ... below
//!   `count` (a copy over any length). The launcher checks the buffer holds them and the loop
//!   cannot wrap; a [`VectorIndex`] comes only from the loop, so no two threads write one
//!   vector, and its check against a tensor's count folds into the loop's where the counts are
//!   one value (a copy's input and output);
//! - [`PerThreadMut`]: one vector per thread, thread `i`'s vector `i` (`y.store(t, v)`): the
//!   launcher checks the buffer holds one for every thread of the grid, so nothing is checked
//!   on the device.
//!
//! A vector of 16 bytes is one 16-byte access, of 1, 2, 4 or 8 bytes one access as wide;
//! others are `V` scalar accesses. The buffer's start is aligned as the allocator's (256 bytes
//! on CUDA), which vector `k`'s offset keeps for a vector's own width.

use crate::element::Element;
use crate::global::{Global, GlobalMut};
use crate::thread::Thread;

/// A tensor a kernel reads, `count` vectors of `V` elements, grid-stride (see the module).
pub struct Vectors<'a, E, const V: usize> {
    src: Global<'a, E>,
    count: u32,
}

/// A tensor a kernel writes, `count` vectors of `V` elements, vector `k` written by the thread
/// whose grid-stride loop ([`VectorsMut::each`]) reaches it.
pub struct VectorsMut<'a, E, const V: usize> {
    dst: GlobalMut<'a, E>,
    count: u32,
}

/// A tensor a kernel writes, one vector of `V` elements per thread of the grid (see the
/// module).
pub struct PerThreadMut<'a, E, const V: usize> {
    dst: GlobalMut<'a, E>,
}

/// Vector `k` of a grid-stride loop over the grid's threads ([`VectorsMut::each`]): made only
/// there, so a thread stores only the vectors its loop reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VectorIndex(u32);

impl VectorIndex {
    /// The vector's number.
    #[inline(always)]
    pub fn get(self) -> u32 {
        self.0
    }
}

/// This thread's vectors of `count`: its index in the grid, then on by the grid's threads.
#[derive(Clone, Copy, Debug)]
pub struct EachVector {
    /// The vector before the next one (one step before the first: the step is taken at the top
    /// of `next`, after the previous vector's body, where a hand-written loop takes it).
    last: u32,
    step: u32,
    count: u32,
}

impl Iterator for EachVector {
    type Item = VectorIndex;
    #[inline(always)]
    fn next(&mut self) -> Option<VectorIndex> {
        // `last` is below `count` (or the first's step before it), and `count + threads` fits
        // a u32 (the constructor's contract): the step never wraps past a vector.
        let k = self.last.wrapping_add(self.step);
        (k < self.count).then(|| {
            self.last = k;
            VectorIndex(k)
        })
    }
}

/// What both share: the constructors, the count, the loop.
macro_rules! vectors_common {
    ($vectors:ident, $mem:ident, $global:ident) => {
        impl<'a, E: Element, const V: usize> $vectors<'a, E, V> {
            /// Elements per vector (what the launcher checks the buffer against).
            pub const WIDTH: usize = V;

            /// `count` vectors of `mem`: what `#[kernel]` makes of the parameter.
            ///
            /// # Safety
            /// The launch's grid and block are 1-D, `count` plus the grid's threads is at most
            /// `u32::MAX`, and `mem` holds `count * V` elements (at most `u32::MAX + 1`): the
            /// launcher checks all three.
            #[inline(always)]
            #[allow(unsafe_code)]
            pub unsafe fn new_unchecked($mem: $global<'a, E>, count: u32) -> Self {
                $vectors { $mem, count }
            }

            /// `count` vectors of host memory, which checks every access itself (the simulator
            /// reports one outside it).
            #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
            pub fn host(mem: &'a dyn crate::global::HostBuffer, count: u32) -> Self {
                $vectors {
                    $mem: $global::host(mem),
                    count,
                }
            }

            /// The vectors it holds.
            #[inline(always)]
            pub fn count(&self) -> u32 {
                self.count
            }

            /// This thread's vectors, grid-stride over the grid's threads.
            #[inline(always)]
            pub fn each<T: Thread>(&self, t: &T) -> EachVector {
                crate::tiles::exclusive::<T>();
                let step = t.grid_threads_1d();
                EachVector {
                    last: t.index_1d().wrapping_sub(step),
                    step,
                    count: self.count,
                }
            }

            /// Vector `k`'s first element, after the check that it is one of this tensor's
            /// vectors (a trap, a panic on the simulator, otherwise; it folds into the loop's
            /// own where the counts are one value).
            #[inline(always)]
            fn first(&self, k: VectorIndex) -> usize {
                const { assert!(V > 0, "a vector has at least one element") };
                assert!(
                    k.0 < self.count,
                    "a vector past the partitioned tensor's count"
                );
                k.0 as usize * V
            }
        }
    };
}
vectors_common!(Vectors, src, Global);
vectors_common!(VectorsMut, dst, GlobalMut);

impl<E: Element, const V: usize> Vectors<'_, E, V> {
    /// Vector `k`.
    #[inline(always)]
    pub fn load(&self, k: VectorIndex) -> [E; V] {
        let i = self.first(k);
        // SAFETY: vector `k` is one of the `count` the constructor's contract keeps in the
        // buffer (checked in `first`); `i` is a multiple of `V`, aligned for the vector's width.
        #[allow(unsafe_code)]
        unsafe {
            match V * core::mem::size_of::<E>() {
                16 => self.src.load16(i),
                1 | 2 | 4 | 8 => self.src.load_n(i),
                _ => {
                    let mut v = [self.src.load1(i); V];
                    let mut j = 1;
                    while j < V {
                        v[j] = self.src.load1(i + j);
                        j += 1;
                    }
                    v
                }
            }
        }
    }
}

impl<E: Element, const V: usize> VectorsMut<'_, E, V> {
    /// Stores `v` as vector `k`.
    #[inline(always)]
    pub fn store(&self, k: VectorIndex, v: [E; V]) {
        let i = self.first(k);
        // SAFETY: as `Vectors::load`; vector `k` is reached by this thread's loop alone.
        #[allow(unsafe_code)]
        unsafe {
            store_vector(&self.dst, i, v)
        }
    }
}

impl<'a, E: Element, const V: usize> PerThreadMut<'a, E, V> {
    /// Elements per vector (what the launcher checks the buffer against).
    pub const WIDTH: usize = V;

    /// `mem`, one vector per thread: what `#[kernel]` makes of the parameter.
    ///
    /// # Safety
    /// The launch's grid and block are 1-D and `mem` holds `V` elements for every thread of
    /// the grid (at most `u32::MAX + 1`): the launcher checks both.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn new_unchecked(dst: GlobalMut<'a, E>) -> Self {
        PerThreadMut { dst }
    }

    /// Host memory, one vector per thread; host memory checks every access itself (the
    /// simulator reports one outside it).
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
    pub fn host(mem: &'a dyn crate::global::HostBuffer) -> Self {
        PerThreadMut {
            dst: GlobalMut::host(mem),
        }
    }

    /// Stores `v` as this thread's vector (number [`Thread::index_1d`]).
    #[inline(always)]
    pub fn store<T: Thread>(&self, t: &T, v: [E; V]) {
        const { assert!(V > 0, "a vector has at least one element") };
        crate::tiles::exclusive::<T>();
        // SAFETY: the thread's own vector, which the constructor's contract keeps in the
        // buffer; no other thread of a 1-D grid of 1-D CTAs has its index.
        #[allow(unsafe_code)]
        unsafe {
            store_vector(&self.dst, t.index_1d() as usize * V, v)
        }
    }
}

/// Stores `v` at element `i` of `dst`, in one access where it is 1, 2, 4, 8 or 16 bytes.
///
/// # Safety
/// The elements are inside the buffer, `i` a multiple of `V`, and no other thread accesses them
/// unordered.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn store_vector<E: Element, const V: usize>(dst: &GlobalMut<'_, E>, i: usize, v: [E; V]) {
    // SAFETY: the caller's.
    unsafe {
        match V * core::mem::size_of::<E>() {
            16 => dst.store16(i, v),
            1 | 2 | 4 | 8 => dst.store_n(i, v),
            _ => {
                let mut j = 0;
                while j < V {
                    dst.store1(i + j, v[j]);
                    j += 1;
                }
            }
        }
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
crate::made::made! {
    impl['a, E, const V: usize] Vectors<'a, E, V>, src, u32, |self| self.count;
    impl['a, E, const V: usize] VectorsMut<'a, E, V>, dst, u32, |self| self.count;
    impl['a, E, const V: usize] PerThreadMut<'a, E, V>, dst, (), |self| ();
}
