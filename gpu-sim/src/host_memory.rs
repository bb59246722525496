//! Global memory on the simulator: host memory that kernel bodies taking `Global` and
//! `GlobalMut` tensors read and write through [`HostBuffer`], so they run on the CPU unchanged.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::vec::Vec;

use gpu_runtime::global::HostBuffer;
use gpu_runtime::{Global, GlobalMut};

/// Global memory for kernel bodies on the simulator: host memory that simulated threads read
/// and write concurrently, one element per 64-bit cell (any `Element`); vector accesses check
/// their alignment as the GPU requires. It counts the stores to each element.
pub struct HostMemory {
    cells: Vec<AtomicU64>,
    stores: Vec<AtomicU32>,
}

impl HostMemory {
    /// Memory holding `values` (each element's bits).
    pub fn new(values: impl Iterator<Item = u64>) -> Self {
        let cells: Vec<AtomicU64> = values.map(AtomicU64::new).collect();
        let stores = cells.iter().map(|_| AtomicU32::new(0)).collect();
        HostMemory { cells, stores }
    }
    /// How many times element `i` was stored to (by every launch so far).
    pub fn stores(&self, i: usize) -> u32 {
        self.stores[i].load(Ordering::Relaxed)
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
        self.cells[i].load(Ordering::Relaxed)
    }
    /// Elements held.
    pub fn len(&self) -> usize {
        self.cells.len()
    }
    /// Whether it holds no element.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
}

/// The unwind payload of a global access past its tensor: the launch reports it as an
/// `OutOfBounds` issue of the thread (a panic of the kernel body is a `Panic`).
pub(crate) struct OutOfRange {
    pub(crate) what: &'static str,
    pub(crate) index: usize,
    pub(crate) len: usize,
}

impl HostMemory {
    /// Element `idx`, or the thread unwinds with [`OutOfRange`].
    fn cell(&self, idx: usize, what: &'static str) -> usize {
        if idx >= self.cells.len() {
            std::panic::panic_any(OutOfRange {
                what,
                index: idx,
                len: self.cells.len(),
            });
        }
        idx
    }
}

impl HostBuffer for HostMemory {
    fn load_bits(&self, idx: usize) -> u64 {
        self.get(self.cell(idx, "load"))
    }
    fn store_bits(&self, idx: usize, bits: u64) {
        let idx = self.cell(idx, "store");
        self.cells[idx].store(bits, Ordering::Relaxed);
        self.stores[idx].fetch_add(1, Ordering::Relaxed);
    }
}
