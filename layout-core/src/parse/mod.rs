//! One parser for Triton's layout attribute text, exactly as TTGIR prints it.
//!
//! Accepts `#ttg.<encoding><{...}>` (and the `#triton_gpu.` prefix of older dumps), parents inline
//! or through alias lines (`#mma = #ttg.nvidia_mma<{...}>` then `parent = #mma`), padded and
//! shared_linear's special syntax, and tensor types `tensor<64x16xf16>` /
//! `tensor<64x16xf16, #blocked>`. Errors carry a line and column and say what was expected.

pub(crate) mod attr;
pub(crate) mod error;
pub(crate) mod keys;
mod lexer;
pub mod module;
pub(crate) mod params;
mod tensor;

use alloc::string::{String, ToString};
use alloc::vec::Vec;

pub use crate::encodings::registry::encoding_from_attr;
pub use attr::{Aliases, Attr, AttrKind};
pub use error::ParseError;
pub use keys::MAX_RANK;
pub use lexer::Span;

use crate::Encoding;

/// Parse every alias definition (`#name = #ttg....`) in a TTGIR file; other lines, and the
/// location aliases of a dump with debug info (`#loc = loc(...)`), are skipped.
pub fn parse_aliases(text: &str) -> Result<Aliases, ParseError> {
    let mut out = Aliases::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('#') else {
            continue;
        };
        let Some(eq) = rest.find('=') else { continue };
        let name = rest[..eq].trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$' || c == '-')
        {
            continue;
        }
        let value = &rest[eq + 1..];
        // Debug-info locations (`#loc3 = loc("kernel.py":12:8)`) are aliases of no layout.
        if value.trim_start().starts_with("loc(") {
            continue;
        }
        let start_col = (line.len() - value.len()) as u32 + 1;
        let mut p = lexer::Lexer::new_at(value, i as u32 + 1, start_col);
        let a = attr::parse_attr(&mut p, &out)?;
        out.insert(name.to_string(), a, value.trim().to_string());
    }
    Ok(out)
}

/// Parse one layout attribute (`#ttg.blocked<{...}>` or an alias `#name`).
pub fn parse_encoding(text: &str, aliases: &Aliases) -> Result<Encoding, ParseError> {
    let mut p = lexer::Lexer::new(text);
    let a = attr::parse_attr(&mut p, aliases)?;
    p.expect_end()?;
    encoding_from_attr(&a)
}

/// Parse one attribute into its value tree, keeping spans (for front ends that map errors back
/// to their own tokens; see [`crate::spec::solve_attr`]).
pub fn parse_attribute(text: &str, aliases: &Aliases) -> Result<Attr, ParseError> {
    let mut p = lexer::Lexer::new(text);
    let a = attr::parse_attr(&mut p, aliases)?;
    p.expect_end()?;
    Ok(a)
}

/// A `tensor<...>` or `!ttg.memdesc<...>` type.
#[derive(Clone, Debug)]
pub struct TensorType {
    /// The shape.
    pub shape: Vec<i64>,
    /// The element type as written (`f16`, `i32`, `!tt.ptr<f16>`).
    pub element: String,
    /// Its encoding, if any.
    pub encoding: Option<Encoding>,
    /// A memdesc subview's allocation shape (`!ttg.memdesc<128x16xf16, #shared, #smem, mutable,
    /// 128x32>`), empty otherwise: the shared layout is the allocation's.
    pub alloc_shape: Vec<i64>,
}

impl TensorType {
    /// Element size in bits, where known (`f16` -> 16, pointers -> 64).
    pub fn element_bits(&self) -> Option<u32> {
        element_bits(&self.element)
    }
}

/// Bits of a scalar MLIR type name.
pub fn element_bits(e: &str) -> Option<u32> {
    if e.starts_with("!tt.ptr") {
        return Some(64);
    }
    let digits: String = e
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    if e == "bf16" {
        return Some(16);
    }
    // MLIR's narrow floats name their format after the width (`f8E4M3FN`, `f6E2M3FN`,
    // `f4E2M1FN`); `f64` is a 64-bit float.
    for (prefix, bits) in [("f8E", 8), ("f6E", 6), ("f4E", 4)] {
        if e.starts_with(prefix) {
            return Some(bits);
        }
    }
    digits.parse().ok()
}

/// Parse `tensor<64x16xf16>` or `tensor<64x16xf16, #enc>` (also `!ttg.memdesc<...>`).
pub fn parse_tensor_type(text: &str, aliases: &Aliases) -> Result<TensorType, ParseError> {
    let mut p = lexer::Lexer::new(text);
    let t = tensor::parse_tensor_type(&mut p, aliases)?;
    p.expect_end()?;
    Ok(t)
}

#[cfg(test)]
mod element_tests {
    use super::element_bits;

    #[test]
    fn element_widths_of_mlir_scalar_types() {
        for (ty, bits) in [
            ("f64", 64),
            ("f32", 32),
            ("f16", 16),
            ("bf16", 16),
            ("tf32", 32),
            ("i64", 64),
            ("i1", 1),
            ("f8E4M3FN", 8),
            ("f8E5M2", 8),
            ("f6E2M3FN", 6),
            ("f4E2M1FN", 4),
            ("!tt.ptr<f16>", 64),
        ] {
            assert_eq!(element_bits(ty), Some(bits), "{}", ty);
        }
    }
}
