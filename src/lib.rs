//! # linear-layouts
//!
//! Typed GF(2) tensor layouts for GPU kernels, bit-exact with Triton.
//!
//! ```
//! use linear_layouts::sim::{launch, Launch};
//! use linear_layouts::{convert, layout, Strategy, Thread};
//!
//! layout! {
//!     /// A 64x64 tile in rows of 4 (Triton's attribute text works too: `#ttg.blocked<{...}>`).
//!     pub Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
//!     /// The same tile in columns of 4.
//!     pub Cols = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
//! }
//!
//! // Planned at compile time, as Triton plans it: through swizzled shared memory (the plan and
//! // its cost are consts).
//! const _: () = assert!(matches!(
//!     convert!(Rows => Cols, f32).cost.strategy,
//!     Strategy::SharedMemory
//! ));
//! let cvt = convert!(Rows => Cols, f32);
//!
//! // The same body runs on a GPU (`#[kernel]`) and here on the CPU simulator, which would report
//! // a race, a missing barrier or fence, or a misaligned access rather than a wrong answer.
//! launch(Launch::new(1, Rows::THREADS, cvt.shared_bytes()), |t| {
//!     let (lane, warp) = (t.lane(), t.warp());
//!     // Each of the thread's 32 registers of `Rows` holds its element's row-major index ...
//!     let rows: [f32; 32] = std::array::from_fn(|r| {
//!         let [i, j] = Rows::apply(r as u32, lane, warp, 0);
//!         (64 * i + j) as f32
//!     });
//!     // ... and after the conversion each register of `Cols` holds its own.
//!     for (r, v) in cvt.run(t, &rows).iter().enumerate() {
//!         let [i, j] = Cols::apply(r as u32, lane, warp, 0);
//!         assert_eq!(*v, (64 * i + j) as f32);
//!     }
//! })
//! .unwrap();
//! ```
//!
//! * [`layout!`] defines layout types solved at compile time: const basis tables and inline
//!   index math, usable from `no_std` kernels.
//! * [`convert!`] solves a conversion between two layouts at compile time and expands into
//!   straight-line code ([`Converter`], [`SharedStore`], [`SharedLoad`]) whose [`Cost`] is a
//!   const.
//! * [`Layout`], [`Thread`], [`Element`]: the runtime side, the same on the GPU and on the
//!   simulator; [`runtime`] is the whole runtime crate.
//! * With the `host` feature: the algebra ([`LinearLayout`]), every TritonGPU encoding
//!   ([`encodings`]), the TTGIR parser ([`parse`]), the conversion planner ([`mod@convert`]), and
//!   Triton's text views and CuTe-style pictures ([`view`], [`print_layout`]).
//! * With the `sim` feature: the CPU SIMT simulator ([`sim`]) that runs kernel bodies.
//! * [`kernel`], [`Global`], [`GlobalMut`], [`Tile`]: the device API of a kernel crate; with the
//!   `launch` feature, the host launcher (`launch`). The [`guide`] walks through a kernel crate
//!   from `build.rs` to launch.
//!
//! ## Features
//!
//! `host` and `sim` are on by default, like `std` in other crates. A GPU kernel crate turns them
//! off (`default-features = false`): it then gets the macros and the runtime only, `no_std`
//! without `alloc`, and builds for `nvptx64-nvidia-cuda` (or any other GPU target). Its tests
//! turn `sim` back on as a dev-dependency.
#![no_std]

#[cfg(feature = "host")]
extern crate alloc;

// `#[kernel]` names the facade `::linear_layouts`, in this crate too.
extern crate self as linear_layouts;

#[doc(inline)]
pub use gpu_runtime::convert::{Converter, Cost, SharedLoad, SharedStore, Strategy};
#[doc(inline)]
pub use gpu_runtime::kernel::{max_shared, KernelSpec};
#[cfg(not(target_arch = "spirv"))]
#[doc(inline)]
pub use gpu_runtime::{
    Accumulate, Hopper, MBarrier, MBarriers, Older, OperandA, Partition, Pending, SharedTile,
    SharedTiles, Swizzle, TensorMap, TmaTile, Wgmma,
};
#[doc(inline)]
pub use gpu_runtime::{
    AsyncCopy, Batch, BatchChunksMut, Bf16, BlockAt, BlockCols, BlockRows, Blocked, Blocks,
    BlocksMut, BroadcastTo, ChunksMut, Distributed, DotOperand, Element, Global, GlobalMut,
    GroupedMut, Holds, HwIndex, InDim, KStep, KSteps, Layout, LayoutKind, Mma, Panel, PerThreadMut,
    Registers, Reread, SharedIndex, SharedWindow, SliceAlong, SliceOf, SliceTile, Thread, Tile,
    TileIndex, TileOf, Tiled, TiledMut, Tiles, TilesMut, VectorIndex, Vectors, VectorsMut, View,
    ViewMut, F16,
};
#[doc(inline)]
pub use layout_macros::kernel;
#[doc(inline)]
pub use layout_plan::{Barrier, Target};

/// The runtime: the traits and backends generated code runs on (`gpu-runtime`).
pub use gpu_runtime as runtime;

#[doc(inline)]
pub use gpu_runtime::math;
#[doc(inline)]
pub use gpu_runtime::planned;
#[doc(inline)]
pub use gpu_runtime::reduce;
#[doc(inline)]
pub use gpu_runtime::redux;
#[doc(inline)]
pub use gpu_runtime::scan;
#[doc(inline)]
pub use gpu_runtime::unroll;

/// Launching `#[kernel]`s on an NVIDIA GPU from the host (`layout-launch`).
#[cfg(feature = "launch")]
pub use layout_launch as launch;

/// The CPU SIMT simulator: launch a kernel body on a grid of simulated threads.
#[cfg(feature = "sim")]
pub use gpu_sim as sim;

#[cfg(feature = "host")]
#[doc(inline)]
pub use layout_core::{
    divide_left, divide_right, Bases, ColumnAction, Encoding, ErrorKind, LayoutError, LinearLayout,
};

/// Every TritonGPU encoding as a linear layout.
#[cfg(feature = "host")]
pub use layout_core::encodings;

/// CuTe's layout notation both ways: `(shape):(stride)`, swizzled and thread-value layouts read
/// as linear layouts, and any linear layout printed in that notation where one exists.
#[cfg(feature = "host")]
pub use layout_core::cute;

/// The TTGIR parser: Triton's attribute text, tensor and memdesc types, alias lines.
#[cfg(feature = "host")]
pub use layout_core::parse;

/// Conversion planning at run time: what `convert!` solves at compile time.
#[cfg(feature = "host")]
pub use layout_core::convert;

/// Triton's text views of a layout (`triton-tensor-layout`'s output).
#[cfg(feature = "host")]
pub use layout_view::view;

#[cfg(feature = "host")]
#[doc(inline)]
pub use layout_view::{print_latex, print_layout};

/// SVG pictures of layouts (CuTe's `print_svg`).
#[cfg(feature = "host")]
pub use layout_view::svg;

/// Interactive HTML views of layouts and conversions.
#[cfg(feature = "host")]
pub use layout_view::html;

/// Every layout-moving op of a whole TTGIR dump, planned as `convert!` plans it.
#[cfg(feature = "host")]
pub use layout_view::explain;

#[doc = include_str!("guide.md")]
pub mod guide {}

#[doc = include_str!("layout_macro.md")]
#[macro_export]
macro_rules! layout {
    ($($tokens:tt)*) => {
        $crate::__private::layout_impl! { [$crate] $($tokens)* }
    };
}

#[doc = include_str!("convert_macro.md")]
#[macro_export]
macro_rules! convert {
    ($($tokens:tt)*) => {
        $crate::__private::convert_impl! { [$crate] $($tokens)* }
    };
}

/// Support for generated code. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use gpu_runtime as rt;
    pub use layout_macros::{
        __convert as convert_impl, __convert_solve as convert_solve, __layout as layout_impl,
    };

    /// `convert!`'s check that a side names a `layout!` type (the error says what it takes).
    pub const fn assert_layout<L: gpu_runtime::Layout>() {}

    /// `convert!(A => B, E)` of named sides: the pair's value (its bounds say what a side must
    /// be, in the error rustc reports for a type that is not a layout).
    pub const fn planned<
        A: gpu_runtime::Layout,
        B: gpu_runtime::Layout,
        E: gpu_runtime::Element,
        S,
    >() -> gpu_runtime::planned::Planned<A, B, E, S> {
        gpu_runtime::planned::Planned::NEW
    }

    /// Host-only items of a `layout!` type.
    #[cfg(feature = "host")]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __linear_layouts_if_host {
        ($($item:tt)*) => { $($item)* };
    }
    /// Host-only items of a `layout!` type: absent without the `host` feature.
    #[cfg(not(feature = "host"))]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __linear_layouts_if_host {
        ($($item:tt)*) => {};
    }
    pub use __linear_layouts_if_host as if_host;

    /// `#[kernel]`'s SPIR-V entry point: present only when rust-gpu builds the crate (the
    /// `cfg` is decided here, so kernel crates need no `check-cfg` for rust-gpu's architecture).
    #[cfg(target_arch = "spirv")]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __linear_layouts_if_spirv {
        ($($item:tt)*) => { $($item)* };
    }
    /// `#[kernel]`'s SPIR-V entry point: absent on every other target.
    #[cfg(not(target_arch = "spirv"))]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __linear_layouts_if_spirv {
        ($($item:tt)*) => {};
    }
    pub use __linear_layouts_if_spirv as if_spirv;
    /// What `#[kernel]` keeps as written on every target but SPIR-V (where the entry point
    /// takes its name).
    #[cfg(not(target_arch = "spirv"))]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __linear_layouts_unless_spirv {
        ($($item:tt)*) => { $($item)* };
    }
    /// Absent on SPIR-V.
    #[cfg(target_arch = "spirv")]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __linear_layouts_unless_spirv {
        ($($item:tt)*) => {};
    }
    pub use __linear_layouts_unless_spirv as unless_spirv;

    #[cfg(feature = "host")]
    pub use layout_core::LinearLayout;

    /// A `layout!` type's layout, built from its const basis tables.
    #[cfg(feature = "host")]
    pub fn linear_layout<L: gpu_runtime::Layout>() -> LinearLayout {
        use alloc::string::String;
        use alloc::vec::Vec;
        let rank = L::RANK;
        let ins = L::IN_DIMS.iter().map(|d| {
            let bits = d.size.trailing_zeros() as usize;
            let bases = (0..bits).map(|b| d.basis(b, rank).iter().map(|&x| x as i32).collect());
            (String::from(d.name), bases.collect())
        });
        let outs: Vec<(String, i32)> = (L::SHAPE.iter().enumerate())
            .map(|(i, &s)| (alloc::format!("dim{}", i), s as i32))
            .collect();
        match LinearLayout::from_parts(ins.collect(), outs, false) {
            Ok(l) => l,
            // layout! wrote these tables from a LinearLayout that passed the same checks.
            Err(e) => unreachable!("a layout! type's tables are not a linear layout: {}", e),
        }
    }
}
