//! Global memory on the simulator: host memory that kernel bodies taking `Global` and
//! `GlobalMut` tensors read and write through [`HostBuffer`], so they run on the CPU unchanged.

use std::format;
use std::string::String;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::vec::Vec;

use crate::global::{with_current, Record};
use crate::issue::IssueKind;

use gpu_runtime::global::HostBuffer;
use gpu_runtime::{
    Batch, BatchChunksMut, BlockCols, BlockRows, Blocked, Blocks, BlocksMut, ChunksMut, Element,
    Global, GlobalMut, GroupedMut, Layout, PerThreadMut, Tiled, TiledMut, Tiles, TilesMut, Vectors,
    VectorsMut, View, ViewMut,
};

/// Global memory for kernel bodies on the simulator: host memory that simulated threads read
/// and write concurrently, one element per 64-bit cell (any `Element`); vector accesses check
/// their alignment as the GPU requires. It counts the stores to each element, and checks each
/// access of a simulated thread against the element's record (`global`): a race between
/// threads or CTAs is an issue of the launch.
pub struct HostMemory {
    cells: Vec<AtomicU64>,
    stores: Vec<AtomicU32>,
    /// Each element's accesses in its last launch (made when a simulated thread first
    /// accesses the memory).
    records: Mutex<Vec<Record>>,
    name: String,
}

impl HostMemory {
    /// Memory holding `values` (each element's bits).
    pub fn new(values: impl Iterator<Item = u64>) -> Self {
        let cells: Vec<AtomicU64> = values.map(AtomicU64::new).collect();
        let stores = cells.iter().map(|_| AtomicU32::new(0)).collect();
        HostMemory {
            cells,
            stores,
            records: Mutex::new(Vec::new()),
            name: String::from("a tensor"),
        }
    }
    /// The same memory, named `name` in the issues its accesses raise (a kernel parameter's
    /// name, say).
    pub fn named(mut self, name: &str) -> Self {
        self.name = format!("tensor `{}`", name);
        self
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
    /// This memory as a row-major tensor of `E` of `shape` a kernel reads (a `View` parameter):
    /// an access outside the memory is reported as an issue, whatever the shape.
    pub fn view<E: Element, const R: usize>(&self, shape: [u32; R]) -> View<'_, E, R> {
        View::host(self, shape)
    }
    /// This memory as a row-major tensor of `shape` a kernel writes (a `ViewMut` parameter).
    pub fn view_mut<E: Element, const R: usize>(&self, shape: [u32; R]) -> ViewMut<'_, E, R> {
        ViewMut::host(self, shape)
    }
    /// This memory as a row-major tensor of `shape` in chunks of `L`'s rows, one per CTA,
    /// written (a `ChunksMut` parameter).
    pub fn chunks_mut<E: Element, L: Layout, const R: usize>(
        &self,
        shape: [u32; R],
    ) -> ChunksMut<'_, E, L, R> {
        ChunksMut::host(self, shape)
    }
    /// [`HostMemory::view`] under the `_aligned` promise (a `View<E, R, true>` parameter): the
    /// simulator reports a vector the promise does not hold for.
    pub fn view_aligned<E: Element, const R: usize>(
        &self,
        shape: [u32; R],
    ) -> View<'_, E, R, true> {
        View::host(self, shape)
    }
    /// [`HostMemory::chunks_mut`] under the `_aligned` promise.
    pub fn chunks_mut_aligned<E: Element, L: Layout, const R: usize>(
        &self,
        shape: [u32; R],
    ) -> ChunksMut<'_, E, L, R, true> {
        ChunksMut::host(self, shape)
    }
    /// This memory cut into one tile of `L` per CTA, read (a `Tiles` parameter).
    pub fn tiles<E: Element, L: Layout>(&self) -> Tiles<'_, E, L> {
        Tiles::host(self)
    }
    /// This memory cut into one tile of `L` per CTA, written (a `TilesMut` parameter).
    pub fn tiles_mut<E: Element, L: Layout>(&self) -> TilesMut<'_, E, L> {
        TilesMut::host(self)
    }
    /// This memory as `count` tiles of `L` taken grid-stride, read (a `Tiled` parameter).
    pub fn tiled<E: Element, L: Layout>(&self, count: u32) -> Tiled<'_, E, L> {
        Tiled::host(self, count)
    }
    /// This memory as `count` tiles of `L` taken grid-stride, written (a `TiledMut` parameter).
    pub fn tiled_mut<E: Element, L: Layout>(&self, count: u32) -> TiledMut<'_, E, L> {
        TiledMut::host(self, count)
    }
    /// This memory as a batch of row-major `[rows, cols]` matrices, one per row of CTAs, read
    /// (a `Batch` parameter).
    pub fn batch<E: Element, const ALIGNED: bool>(&self, shape: [u32; 2]) -> Batch<'_, E, ALIGNED> {
        Batch::host(self, shape)
    }
    /// This memory as a batch of row-major `[rows, cols]` matrices in chunks of `L`'s rows, one
    /// matrix per row of CTAs, written (a `BatchChunksMut` parameter).
    pub fn batch_chunks_mut<E: Element, L: Layout, const ALIGNED: bool>(
        &self,
        shape: [u32; 2],
    ) -> BatchChunksMut<'_, E, L, ALIGNED> {
        BatchChunksMut::host(self, shape)
    }
    /// This memory as a row-major `[rows, cols]` matrix in blocks of `L` numbered in grouped
    /// order, written (a `GroupedMut` parameter).
    pub fn grouped_mut<E: Element, L: Layout>(&self, shape: [u32; 2]) -> GroupedMut<'_, E, L> {
        GroupedMut::host(self, shape)
    }
    /// This memory as one vector of `V` elements per thread of the grid, written (a
    /// `PerThreadMut` parameter).
    pub fn per_thread_mut<E: Element, const V: usize>(&self) -> PerThreadMut<'_, E, V> {
        PerThreadMut::host(self)
    }
    /// This memory as `count` vectors of `V` elements taken grid-stride by the grid's threads,
    /// read (a `Vectors` parameter).
    pub fn vectors<E: Element, const V: usize>(&self, count: u32) -> Vectors<'_, E, V> {
        Vectors::host(self, count)
    }
    /// This memory as `count` vectors of `V` elements taken grid-stride by the grid's threads,
    /// written (a `VectorsMut` parameter).
    pub fn vectors_mut<E: Element, const V: usize>(&self, count: u32) -> VectorsMut<'_, E, V> {
        VectorsMut::host(self, count)
    }
    /// This memory as a row-major matrix `cols` wide in blocks of `L`, one per CTA, read (a
    /// `Blocks` parameter; `T`: of the transpose).
    pub fn blocks<E: Element, L: Layout, const T: bool>(&self, cols: u32) -> Blocks<'_, E, L, T> {
        Blocks::host(self, cols)
    }
    /// This memory as a `[rows, cols]` matrix read by block (a `Blocked` parameter).
    pub fn blocked<E: Element, L: Layout>(&self, shape: [u32; 2]) -> Blocked<'_, E, L> {
        Blocked::host(self, shape)
    }
    /// This memory as a row-major matrix `cols` wide read by the CTAs' block rows (a
    /// `BlockRows` parameter).
    pub fn block_rows<E: Element, L: Layout>(&self, cols: u32) -> BlockRows<'_, E, L> {
        BlockRows::host(self, cols)
    }
    /// This memory as a `[rows, cols]` matrix read by the CTAs' block columns (a `BlockCols`
    /// parameter).
    pub fn block_cols<E: Element, L: Layout>(&self, shape: [u32; 2]) -> BlockCols<'_, E, L> {
        BlockCols::host(self, shape)
    }
    /// The same, written (a `BlocksMut` parameter).
    pub fn blocks_mut<E: Element, L: Layout, const T: bool>(
        &self,
        cols: u32,
    ) -> BlocksMut<'_, E, L, T> {
        BlocksMut::host(self, cols)
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
    pub(crate) tensor: String,
    pub(crate) index: usize,
    pub(crate) len: usize,
}

impl HostMemory {
    /// Element `idx`, checked against its record when a simulated thread accesses it, or the
    /// thread unwinds with [`OutOfRange`].
    fn cell(&self, idx: usize, write: bool) -> usize {
        if idx >= self.cells.len() {
            std::panic::panic_any(OutOfRange {
                what: if write { "store" } else { "load" },
                tensor: self.name.clone(),
                index: idx,
                len: self.cells.len(),
            });
        }
        with_current(|t| {
            let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
            if records.is_empty() {
                records.resize(self.cells.len(), Record::default());
            }
            t.global_access(&mut records[idx], &self.name, idx, write);
        });
        idx
    }
}

impl HostBuffer for HostMemory {
    fn load_bits(&self, idx: usize) -> u64 {
        self.get(self.cell(idx, false))
    }
    fn elements(&self) -> Option<u64> {
        Some(self.len() as u64)
    }
    fn store_bits(&self, idx: usize, bits: u64) {
        let idx = self.cell(idx, true);
        self.cells[idx].store(bits, Ordering::Relaxed);
        self.stores[idx].fetch_add(1, Ordering::Relaxed);
    }
    fn misaligned(&self, what: &'static str, idx: usize, elems: usize, elem_bytes: usize) {
        let bytes = elems * elem_bytes;
        let message = format!(
            "misaligned global {} of {} bytes at byte {} (element {}) of {}: a vector access must be aligned to its size (check the origin and strides)",
            what,
            bytes,
            idx * elem_bytes,
            idx,
            self.name
        );
        let mut reported = false;
        with_current(|t| {
            t.report(IssueKind::Misaligned, message.clone());
            reported = true;
        });
        if !reported {
            panic!("{}", message);
        }
    }
}
