//! Global memory as kernel bodies see it. Kernels take [`Global`] (read) and [`GlobalMut`]
//! (read and write) tensors as parameters: on the GPU each is one device pointer (what a host
//! launcher passes); on the host either a pointer or a borrowed [`HostBuffer`] (the
//! simulator's `HostMemory`), so the same body runs on both. Which one is a value, not a
//! feature: every constructor exists in every build of the host. [`Tile`](crate::tile::Tile) loads and stores a layout's registers
//! through them in the widest aligned vectors; the element-indexed accesses below are the
//! building blocks (16-byte vectors through [`A16`], which makes LLVM emit `ld.global.v4` /
//! `st.global.v4`).
//!
//! [`Memory`] is what backs them: [`Ptr`] on the GPU, [`Ptr`] or a [`HostBuffer`] on the host.

use core::marker::PhantomData;

use crate::element::Element;
use crate::thread::{CopySource, Thread};

/// A 16-byte aligned value (what a 16-byte vector access reads or writes).
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct A16<T>(pub T);

/// Element-indexed global memory with 16-byte vector accesses (`N * size_of::<E>() == 16`, the
/// index a multiple of `N`): the backend of [`Global`] and [`GlobalMut`].
pub trait Memory<E: Copy> {
    /// `N` elements from `idx`.
    fn load16<const N: usize>(&self, idx: usize) -> [E; N];
    /// `N` elements to `idx`.
    fn store16<const N: usize>(&self, idx: usize, v: [E; N]);
    /// `N` elements from `idx` in one access of `N * size_of::<E>()` bytes (1, 2, 4 or 8; `idx`
    /// aligned to it).
    fn load_n<const N: usize>(&self, idx: usize) -> [E; N];
    /// `N` elements to `idx` in one access, as [`Memory::load_n`].
    fn store_n<const N: usize>(&self, idx: usize, v: [E; N]);
    /// One element.
    fn load1(&self, idx: usize) -> E;
    /// One element.
    fn store1(&self, idx: usize, v: E);
}

/// Device memory through a raw pointer (on SPIR-V, to a storage buffer's runtime array: logical
/// addressing has no pointer arithmetic, so accesses index the array).
#[repr(transparent)]
pub struct Ptr<E>(
    #[cfg(not(target_arch = "spirv"))] *mut E,
    #[cfg(target_arch = "spirv")] *mut [E],
);

impl<E> Clone for Ptr<E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E> Copy for Ptr<E> {}

#[cfg(not(target_arch = "spirv"))]
#[allow(unsafe_code)]
impl<E> Ptr<E> {
    /// Global memory at `p`.
    ///
    /// # Safety
    /// Every index a kernel body accesses through it must be in the buffer at `p`, each access
    /// aligned to its width (16 bytes for [`Memory::load16`]), and no other thread may write an
    /// element while it is read.
    #[inline(always)]
    pub unsafe fn new(p: *mut E) -> Self {
        Ptr(p)
    }
}

// The accesses are unsafe; `Ptr::new`'s contract makes them sound.
#[cfg(not(target_arch = "spirv"))]
#[allow(unsafe_code)]
impl<E: Copy> Memory<E> for Ptr<E> {
    #[inline(always)]
    fn load16<const N: usize>(&self, idx: usize) -> [E; N] {
        // SAFETY: the kernel's contract: the buffer holds the index, 16-byte aligned.
        unsafe { (self.0.add(idx) as *const A16<[E; N]>).read().0 }
    }
    #[inline(always)]
    fn store16<const N: usize>(&self, idx: usize, v: [E; N]) {
        // SAFETY: as load16.
        unsafe { (self.0.add(idx) as *mut A16<[E; N]>).write(A16(v)) }
    }
    #[inline(always)]
    fn load_n<const N: usize>(&self, idx: usize) -> [E; N] {
        let p = unsafe { self.0.add(idx) } as *const u8;
        // SAFETY: as load16; the access is as wide as the array, which `idx` is aligned to.
        unsafe {
            match N * core::mem::size_of::<E>() {
                2 => core::mem::transmute_copy(&(p as *const u16).read()),
                4 => core::mem::transmute_copy(&(p as *const u32).read()),
                8 => core::mem::transmute_copy(&(p as *const u64).read()),
                _ => (p as *const [E; N]).read(),
            }
        }
    }
    #[inline(always)]
    fn store_n<const N: usize>(&self, idx: usize, v: [E; N]) {
        let p = unsafe { self.0.add(idx) } as *mut u8;
        // SAFETY: as load_n.
        unsafe {
            match N * core::mem::size_of::<E>() {
                2 => (p as *mut u16).write(core::mem::transmute_copy(&v)),
                4 => (p as *mut u32).write(core::mem::transmute_copy(&v)),
                8 => (p as *mut u64).write(core::mem::transmute_copy(&v)),
                _ => (p as *mut [E; N]).write(v),
            }
        }
    }
    #[inline(always)]
    fn load1(&self, idx: usize) -> E {
        // SAFETY: as load16.
        unsafe { self.0.add(idx).read() }
    }
    #[inline(always)]
    fn store1(&self, idx: usize, v: E) {
        // SAFETY: as load16.
        unsafe { self.0.add(idx).write(v) }
    }
}

#[cfg(target_arch = "spirv")]
#[allow(unsafe_code)]
impl<E: Copy> Ptr<E> {
    /// The storage buffer at `b` (an entry point's `#[spirv(storage_buffer)]` slice).
    #[inline(always)]
    fn from_raw(b: *mut [E]) -> Self {
        Ptr(b)
    }
    #[inline(always)]
    fn at(&self, idx: usize) -> &mut E {
        // SAFETY: the buffer outlives the kernel; indices are bounds-checked.
        unsafe { &mut (*self.0)[idx] }
    }
}

// A vector access is its elements one by one: the runtime array has no wider view, and the
// driver's compiler merges adjacent accesses where the device can.
#[cfg(target_arch = "spirv")]
impl<E: Copy + Default> Memory<E> for Ptr<E> {
    #[inline(always)]
    fn load16<const N: usize>(&self, idx: usize) -> [E; N] {
        self.load_n(idx)
    }
    #[inline(always)]
    fn store16<const N: usize>(&self, idx: usize, v: [E; N]) {
        self.store_n(idx, v)
    }
    #[inline(always)]
    fn load_n<const N: usize>(&self, idx: usize) -> [E; N] {
        let mut v = [E::default(); N];
        let mut k = 0;
        while k < N {
            v[k] = *self.at(idx + k);
            k += 1;
        }
        v
    }
    #[inline(always)]
    fn store_n<const N: usize>(&self, idx: usize, v: [E; N]) {
        let mut k = 0;
        while k < N {
            *self.at(idx + k) = v[k];
            k += 1;
        }
    }
    #[inline(always)]
    fn load1(&self, idx: usize) -> E {
        *self.at(idx)
    }
    #[inline(always)]
    fn store1(&self, idx: usize, v: E) {
        *self.at(idx) = v
    }
}

/// Where a global tensor's elements are: on the GPU and SPIR-V one device pointer (the
/// kernel parameter's whole ABI), on the host a pointer or a [`HostBuffer`].
#[cfg(any(target_arch = "nvptx64", target_arch = "spirv"))]
type Backing<'a, E> = Ptr<E>;

/// See the GPU's `Backing`: on the host, a pointer or borrowed host memory.
#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
enum Backing<'a, E> {
    Device(Ptr<E>),
    Host(&'a dyn HostBuffer),
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
impl<E> Clone for Backing<'_, E> {
    fn clone(&self) -> Self {
        *self
    }
}
#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
impl<E> Copy for Backing<'_, E> {}

#[cfg(target_arch = "nvptx64")]
impl<E> Ptr<E> {
    #[inline(always)]
    fn device(p: Ptr<E>) -> Self {
        p
    }
}
#[cfg(target_arch = "nvptx64")]
impl<E> Ptr<E> {
    #[inline(always)]
    fn ptr(&self) -> *mut E {
        self.0
    }
}

/// Global memory the host gives kernel bodies run on the CPU: element bits by index, read and
/// written by many simulated threads at once. The simulator's `HostMemory` is one; a test can
/// bring its own.
#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
pub trait HostBuffer: Sync {
    /// The bits of element `idx` (the low `E::BITS` of them are the element's).
    fn load_bits(&self, idx: usize) -> u64;
    /// Element `idx` becomes `bits`.
    fn store_bits(&self, idx: usize, bits: u64);
    /// The elements the memory holds, where it knows: what a simulated launch checks the
    /// kernel's extents against, as the GPU launcher checks a device buffer's length (`None`:
    /// nothing to check).
    fn elements(&self) -> Option<u64> {
        None
    }
    /// A vector `what` (load, store, async copy) of `elems` elements of `elem_bytes` bytes at
    /// element `idx`, not aligned to its size: the GPU faults on it. The access then goes on
    /// element by element. By default a panic; the simulator's memory reports it as an issue of
    /// the thread that made it.
    fn misaligned(&self, what: &'static str, idx: usize, elems: usize, elem_bytes: usize) {
        panic!(
            "misaligned global {}: {} bytes at byte {} (element {}) is not aligned to its size",
            what,
            elems * elem_bytes,
            idx * elem_bytes,
            idx
        )
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
impl<E> Backing<'_, E> {
    fn device(p: Ptr<E>) -> Self {
        Backing::Device(p)
    }
}

// Host memory checks alignment as the GPU requires; a pointer's accesses are as on the GPU.
#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
impl<E: Element> Memory<E> for Backing<'_, E> {
    fn load16<const N: usize>(&self, idx: usize) -> [E; N] {
        match self {
            Backing::Device(p) => p.load16(idx),
            Backing::Host(_) => self.load_n(idx),
        }
    }
    fn store16<const N: usize>(&self, idx: usize, v: [E; N]) {
        match self {
            Backing::Device(p) => p.store16(idx, v),
            Backing::Host(_) => self.store_n(idx, v),
        }
    }
    fn load_n<const N: usize>(&self, idx: usize) -> [E; N] {
        match self {
            Backing::Device(p) => p.load_n(idx),
            Backing::Host(h) => {
                if !idx.is_multiple_of(N) {
                    h.misaligned("load", idx, N, E::BITS as usize / 8);
                }
                core::array::from_fn(|k| E::from_bits(h.load_bits(idx + k)))
            }
        }
    }
    fn store_n<const N: usize>(&self, idx: usize, v: [E; N]) {
        match self {
            Backing::Device(p) => p.store_n(idx, v),
            Backing::Host(h) => {
                if !idx.is_multiple_of(N) {
                    h.misaligned("store", idx, N, E::BITS as usize / 8);
                }
                for (k, x) in v.iter().enumerate() {
                    h.store_bits(idx + k, x.to_bits());
                }
            }
        }
    }
    fn load1(&self, idx: usize) -> E {
        match self {
            Backing::Device(p) => p.load1(idx),
            Backing::Host(h) => E::from_bits(h.load_bits(idx)),
        }
    }
    fn store1(&self, idx: usize, v: E) {
        match self {
            Backing::Device(p) => p.store1(idx, v),
            Backing::Host(h) => h.store_bits(idx, v.to_bits()),
        }
    }
}

/// A global tensor a kernel reads: a kernel parameter (one device pointer on the GPU, passed
/// by the host launcher as a device buffer of `E`), or simulator memory.
#[repr(transparent)]
pub struct Global<'a, E> {
    mem: Backing<'a, E>,
    elem: PhantomData<&'a [E]>,
}

/// A global tensor a kernel reads and writes (threads write disjoint elements).
#[repr(transparent)]
pub struct GlobalMut<'a, E> {
    mem: Backing<'a, E>,
    elem: PhantomData<&'a mut [E]>,
}

impl<E> Clone for Global<'_, E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E> Copy for Global<'_, E> {}

#[cfg(not(target_arch = "spirv"))]
#[allow(unsafe_code)]
impl<E> Global<'_, E> {
    /// The tensor at device pointer `p`.
    ///
    /// # Safety
    /// As [`Ptr::new`]: every element the kernel reads is in the buffer, vector accesses are
    /// aligned (the buffer 16-byte aligned, tile origins and strides multiples of the vector).
    #[inline(always)]
    pub unsafe fn from_ptr(p: *const E) -> Self {
        Global {
            mem: Backing::device(unsafe { Ptr::new(p as *mut E) }),
            elem: PhantomData,
        }
    }
}

#[cfg(not(target_arch = "spirv"))]
#[allow(unsafe_code)]
impl<E> GlobalMut<'_, E> {
    /// The tensor at device pointer `p`.
    ///
    /// # Safety
    /// As [`Global::from_ptr`], and no two threads write one element.
    #[inline(always)]
    pub unsafe fn from_ptr(p: *mut E) -> Self {
        GlobalMut {
            mem: Backing::device(unsafe { Ptr::new(p) }),
            elem: PhantomData,
        }
    }
}

#[cfg(target_arch = "spirv")]
impl<'a, E: Copy> Global<'a, E> {
    /// The storage buffer `b`, read only (`#[kernel]` binds each `Global` parameter to one).
    #[inline(always)]
    pub fn from_slice(b: &'a [E]) -> Self {
        Global {
            mem: Ptr::from_raw(b as *const [E] as *mut [E]),
            elem: PhantomData,
        }
    }
}

#[cfg(target_arch = "spirv")]
impl<'a, E: Copy> GlobalMut<'a, E> {
    /// The storage buffer `b` (`#[kernel]` binds each `GlobalMut` parameter to one).
    #[inline(always)]
    pub fn from_slice(b: &'a mut [E]) -> Self {
        GlobalMut {
            mem: Ptr::from_raw(b),
            elem: PhantomData,
        }
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
impl<'a, E> Global<'a, E> {
    /// Host memory (the simulator's `HostMemory`), read as a tensor of `E`.
    pub fn host(mem: &'a dyn HostBuffer) -> Self {
        Global {
            mem: Backing::Host(mem),
            elem: PhantomData,
        }
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
impl<'a, E> GlobalMut<'a, E> {
    /// Host memory (the simulator's `HostMemory`), read and written as a tensor of `E`.
    pub fn host(mem: &'a dyn HostBuffer) -> Self {
        GlobalMut {
            mem: Backing::Host(mem),
            elem: PhantomData,
        }
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
impl<E> Backing<'_, E> {
    /// The elements behind it, where known (host memory that says).
    fn elements(&self) -> Option<u64> {
        match self {
            Backing::Host(m) => m.elements(),
            Backing::Device(_) => None,
        }
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
impl<E> Global<'_, E> {
    /// The elements of the host memory it reads, where that memory knows.
    pub fn elements(&self) -> Option<u64> {
        self.mem.elements()
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
impl<E> GlobalMut<'_, E> {
    /// The elements of the host memory it writes, where that memory knows.
    pub fn elements(&self) -> Option<u64> {
        self.mem.elements()
    }
}

/// The element-indexed accesses of a global tensor, on both kinds.
macro_rules! reads {
    () => {
        /// `N` elements from `idx` in one 16-byte access (`N * size_of::<E>() == 16`, `idx` a
        /// multiple of `N`): `ld.global.v4`.
        ///
        /// # Safety
        /// The elements are inside the buffer (and, for vectors, `idx` aligned as stated):
        /// the GPU checks nothing. A [`View`](crate::View) keeps this by construction.
        #[inline(always)]
        #[allow(unsafe_code)]
        pub unsafe fn load16<const N: usize>(&self, idx: usize) -> [E; N] {
            self.mem.load16(idx)
        }
        /// `N` elements from `idx` in one access of `N * size_of::<E>()` bytes (1, 2, 4 or 8),
        /// `idx` a multiple of `N`.
        ///
        /// # Safety
        /// The elements are inside the buffer (and, for vectors, `idx` aligned as stated):
        /// the GPU checks nothing. A [`View`](crate::View) keeps this by construction.
        #[inline(always)]
        #[allow(unsafe_code)]
        pub unsafe fn load_n<const N: usize>(&self, idx: usize) -> [E; N] {
            self.mem.load_n(idx)
        }
        /// Element `idx`.
        ///
        /// # Safety
        /// The elements are inside the buffer (and, for vectors, `idx` aligned as stated):
        /// the GPU checks nothing. A [`View`](crate::View) keeps this by construction.
        #[inline(always)]
        #[allow(unsafe_code)]
        pub unsafe fn load1(&self, idx: usize) -> E {
            self.mem.load1(idx)
        }
        /// `cp.async` of `bytes` bytes (4, 8 or 16; whole elements) from element `idx` (aligned
        /// to `bytes`) to shared byte `byte_offset` of `t`: it lands by the
        /// [`Thread::cp_async_wait`] of its group (see [`Thread::cp_async`]).
        ///
        /// # Safety
        /// [`Thread`]'s shared-memory contract for the `bytes` at `byte_offset`.
        #[inline(always)]
        #[allow(unsafe_code)]
        pub unsafe fn copy_to_shared<T: Thread>(
            &self,
            t: &T,
            idx: usize,
            bytes: u32,
            byte_offset: u32,
        ) {
            // SAFETY: the caller's promise.
            unsafe { t.cp_async(byte_offset, bytes, self.copy_source(idx, bytes)) }
        }
        /// Where an async copy of `bytes` bytes from element `idx` reads.
        #[inline(always)]
        #[allow(unsafe_code)]
        fn copy_source(&self, idx: usize, bytes: u32) -> CopySource {
            #[cfg(target_arch = "nvptx64")]
            {
                let _ = bytes;
                // SAFETY: `from_ptr`'s contract: the kernel's indices are inside the buffer.
                #[allow(unsafe_code)]
                let p = unsafe { self.mem.ptr().add(idx) };
                CopySource::from_global(p as u64)
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let n = (bytes * 8 / E::BITS).clamp(1, 16) as usize;
                if !idx.is_multiple_of(n) {
                    misaligned(&self.mem, "async copy", idx, n, E::BITS as usize / 8);
                }
                let mut v = [E::default(); 16];
                let mut k = 0;
                while k < n {
                    // SAFETY: the caller's (copy_to_shared's) contract.
                    v[k] = unsafe { self.load1(idx + k) };
                    k += 1;
                }
                CopySource::from_words(pack_words(&v, n))
            }
        }
    };
}

/// A misaligned vector access on the host: reported by host memory, a panic otherwise.
#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
fn misaligned<E>(m: &Backing<'_, E>, what: &'static str, idx: usize, n: usize, bytes: usize) {
    match m {
        Backing::Host(h) => h.misaligned(what, idx, n, bytes),
        Backing::Device(_) => panic!(
            "misaligned global {}: {} bytes at element {} is not aligned to its size",
            what,
            n * bytes,
            idx
        ),
    }
}

/// A misaligned vector access on SPIR-V (whose accesses are element by element).
#[cfg(target_arch = "spirv")]
fn misaligned<E>(_: &Ptr<E>, _: &'static str, _: usize, _: usize, _: usize) {
    panic!("misaligned global access")
}

/// The first `n` elements as the little-endian bytes of (up to) four words.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
fn pack_words<E: Element>(v: &[E; 16], n: usize) -> [u32; 4] {
    let mut w = [0u32; 4];
    let bytes = (E::BITS / 8) as usize;
    let mut k = 0;
    while k < n {
        let bits = v[k].to_bits();
        let mut b = 0;
        while b < bytes && k * bytes + b < 16 {
            let pos = k * bytes + b;
            w[pos / 4] |= ((bits >> (8 * b)) as u32 & 0xff) << (8 * (pos % 4));
            b += 1;
        }
        k += 1;
    }
    w
}

impl<E: Element> Global<'_, E> {
    reads!();
}

impl<E: Element> GlobalMut<'_, E> {
    reads!();
    /// `N` elements to `idx` in one 16-byte access: `st.global.v4`.
    ///
    /// # Safety
    /// The elements are inside the buffer (and, for vectors, `idx` aligned as stated), and
    /// no other thread accesses them unordered: the GPU checks nothing. A
    /// [`ViewMut`](crate::ViewMut) keeps the bounds by construction.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn store16<const N: usize>(&self, idx: usize, v: [E; N]) {
        self.mem.store16(idx, v)
    }
    /// `N` elements to `idx` in one access, as [`GlobalMut::load_n`].
    ///
    /// # Safety
    /// The elements are inside the buffer (and, for vectors, `idx` aligned as stated), and
    /// no other thread accesses them unordered: the GPU checks nothing. A
    /// [`ViewMut`](crate::ViewMut) keeps the bounds by construction.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn store_n<const N: usize>(&self, idx: usize, v: [E; N]) {
        self.mem.store_n(idx, v)
    }
    /// Element `idx`.
    ///
    /// # Safety
    /// The elements are inside the buffer (and, for vectors, `idx` aligned as stated), and
    /// no other thread accesses them unordered: the GPU checks nothing. A
    /// [`ViewMut`](crate::ViewMut) keeps the bounds by construction.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn store1(&self, idx: usize, v: E) {
        self.mem.store1(idx, v)
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
crate::made::made! {
    impl['a, E] Global<'a, E>, mem, (), |self| ();
    impl['a, E] GlobalMut<'a, E>, mem, (), |self| ();
}
