//! Global memory on the simulator: what `Global` is over host memory, so kernel bodies taking
//! [`Global`] and [`GlobalMut`] tensors run on the CPU unchanged.

extern crate std;

use std::sync::atomic::{AtomicU64, Ordering};
use std::vec::Vec;

use crate::element::Element;
use crate::global::{Global, GlobalMut, Memory};

/// Global memory for kernel bodies on the simulator: host memory that simulated threads read
/// and write concurrently, one element per 64-bit cell (any [`Element`]); vector accesses check
/// their alignment as the GPU requires.
pub struct HostMemory(Vec<AtomicU64>);

impl HostMemory {
    /// Memory holding `values` (each element's bits).
    pub fn new(values: impl Iterator<Item = u64>) -> Self {
        HostMemory(values.map(AtomicU64::new).collect())
    }
    /// This memory as a kernel's read-only tensor of `E`.
    pub fn global<E>(&self) -> Global<'_, E> {
        Global::host(self)
    }
    /// This memory as a kernel's read-write tensor of `E`.
    pub fn global_mut<E>(&self) -> GlobalMut<'_, E> {
        GlobalMut::host(self)
    }
    /// The bits of element `i`.
    pub fn get(&self, i: usize) -> u64 {
        self.0[i].load(Ordering::Relaxed)
    }
}

impl<E: Element> Memory<E> for HostMemory {
    // A 16-byte access is an `N`-element access with the same alignment rule.
    fn load16<const N: usize>(&self, idx: usize) -> [E; N] {
        Memory::<E>::load_n(self, idx)
    }
    fn store16<const N: usize>(&self, idx: usize, v: [E; N]) {
        self.store_n(idx, v)
    }
    fn load_n<const N: usize>(&self, idx: usize) -> [E; N] {
        assert_eq!(idx % N, 0, "unaligned vector load");
        std::array::from_fn(|k| E::from_bits(self.get(idx + k)))
    }
    fn store_n<const N: usize>(&self, idx: usize, v: [E; N]) {
        assert_eq!(idx % N, 0, "unaligned vector store");
        for (k, x) in v.iter().enumerate() {
            self.0[idx + k].store(x.to_bits(), Ordering::Relaxed);
        }
    }
    fn load1(&self, idx: usize) -> E {
        E::from_bits(self.get(idx))
    }
    fn store1(&self, idx: usize, v: E) {
        self.0[idx].store(v.to_bits(), Ordering::Relaxed);
    }
}
