//! A library that re-exports the facade's macros and runtime, as a kernel library built on
//! linear-layouts would. Its users (`through-reexport`) never name `linear_layouts`.

pub use linear_layouts::{convert, layout, sim, Layout, Strategy, Thread};

/// Layouts other crates convert from by path.
pub mod tiles {
    use linear_layouts::layout;

    layout! {
        /// Rows of a 64x64 tile.
        pub Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
        /// Only this crate sees it (and its macro: nothing at the crate root).
        pub(crate) Inner = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
    }
}

layout! {
    /// Private to the crate root module.
    Private = blocked(sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]) for [64, 64];
}

/// The shared memory `crate::tiles::Rows => Inner` takes, planned inside this crate from layouts
/// of every visibility (`crate::`, `self::` paths).
pub const INNER_SCRATCH: u32 = convert!(crate::tiles::Rows => tiles::Inner, f32)
    .cost
    .shared_bytes;

/// The same plan through `self::` and a private layout: the rows of [`tiles::Rows`] held as
/// `Private`.
pub const PRIVATE_STRATEGY: Strategy = convert!(self::tiles::Rows => self::Private, f32)
    .cost
    .strategy;
