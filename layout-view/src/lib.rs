//! # layout-view
//!
//! What a [`LinearLayout`](layout_core::LinearLayout) looks like: the views of the `layout`
//! CLI, kept apart from the algebra as Triton keeps its printers apart from `LinearLayout.h`
//! (the proc macros build `layout-core` and not this crate).
//!
//! ```
//! use layout_core::parse::{parse_encoding, Aliases};
//! use layout_core::encodings::Encoding;
//!
//! let enc = parse_encoding(
//!     "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>",
//!     &Aliases::new(),
//! )?;
//! let ll = enc.to_linear_layout(&[8, 16])?;
//! // Triton's text view: who holds each element.
//! let text = layout_view::view::layout_str(&ll, false, false)?;
//! assert!(text.contains("T0:0"));
//! // CuTe's print_layout: one cell per element.
//! let grid = layout_view::print_layout(&ll)?;
//! assert!(grid.lines().count() > 8);
//! # Ok::<(), layout_core::LayoutError>(())
//! ```
//!
//! * [`view`]: Triton's `triton-tensor-layout` text (tensor view and hardware view).
//! * [`print`]: CuTe's `print_layout` grid and `print_latex` picture.
//! * [`svg`]: CuTe's `print_svg`, coloured by thread, warp or bank.
//! * [`html`]: one-file interactive pages of a layout or a conversion.
//! * [`explain`]: every layout-moving op of a whole TTGIR dump, planned.
//! * [`tmem`]: text views of Blackwell tensor-memory layouts.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;
#[cfg(test)]
extern crate std;

/// `return Err(..)` with a formatted message (and optionally an [`ErrorKind`](layout_core::ErrorKind)).
macro_rules! bail {
    (kind: $kind:ident, $($arg:tt)*) => {
        return Err(layout_core::LayoutError::of(
            layout_core::ErrorKind::$kind,
            alloc::format!($($arg)*),
        ))
    };
    ($($arg:tt)*) => {
        return Err(layout_core::LayoutError::new(alloc::format!($($arg)*)))
    };
}
pub(crate) use bail;

pub mod explain;
pub mod html;
pub mod print;
pub mod svg;
pub mod tmem;
pub mod view;

pub use print::{print_latex, print_latex_in, print_layout, print_layout_in, Kind, Smem};
