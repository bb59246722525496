//! Global memory on the simulator: host memory that kernel bodies taking `Global` and
//! `GlobalMut` tensors read and write through [`HostBuffer`], so they run on the CPU unchanged.

use std::sync::atomic::{AtomicU64, Ordering};
use std::vec::Vec;

use gpu_runtime::global::HostBuffer;
use gpu_runtime::{Global, GlobalMut};

/// Global memory for kernel bodies on the simulator: host memory that simulated threads read
/// and write concurrently, one element per 64-bit cell (any `Element`); vector accesses check
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
    /// Elements held.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether it holds no element.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl HostBuffer for HostMemory {
    fn load_bits(&self, idx: usize) -> u64 {
        self.get(idx)
    }
    fn store_bits(&self, idx: usize, bits: u64) {
        self.0[idx].store(bits, Ordering::Relaxed);
    }
}
