//! The encodings the parser knows, by TTGIR name: [`encoding_from_attr`] looks a parsed
//! attribute's name up in [`ENCODINGS`] and hands its parameters to that encoding's
//! `parse_<name>`, which lives with the encoding. Misspelt names get a suggestion from the same
//! list.

use alloc::format;
use alloc::vec::Vec;

use super::{amd, distributed, nvidia, partitioned, shared, tmem, Encoding};
use crate::error::Span;
use crate::parse::attr::{Attr, AttrKind};
use crate::parse::error::ParseError;
use crate::parse::keys::did_you_mean;
use crate::parse::params::R;

/// Convert a parsed attribute into an encoding.
pub fn encoding_from_attr(a: &Attr) -> R<Encoding> {
    let AttrKind::Layout { name, body, .. } = &a.kind else {
        return Err(ParseError::new(
            a.span,
            "expected a layout attribute like #ttg.blocked<{...}>",
        ));
    };
    let name = name.as_str();
    let Some((_, parse)) = ENCODINGS.iter().find(|(n, _)| *n == name) else {
        return Err(unknown_encoding(a, name));
    };
    match parse {
        Parser::Leaf(f) => f(name, a, body),
        Parser::Nested(f) => f(name, a, body, encoding_from_attr),
    }
}

/// Every encoding the parser knows: its TTGIR name and the function that reads its parameters.
/// A new encoding is its `parse_<name>`, next to its type, and one line here.
const ENCODINGS: &[(&str, Parser)] = &[
    ("blocked", Parser::Leaf(distributed::parse_blocked)),
    ("slice", Parser::Nested(distributed::parse_slice)),
    ("dot_op", Parser::Nested(distributed::parse_dot_op)),
    ("nvidia_mma", Parser::Leaf(nvidia::parse_nvidia_mma)),
    ("amd_mfma", Parser::Leaf(amd::parse_amd_mfma)),
    ("amd_wmma", Parser::Leaf(amd::parse_amd_wmma)),
    (
        "swizzled_shared",
        Parser::Leaf(shared::parse_swizzled_shared),
    ),
    (
        "amd_rotating_shared",
        Parser::Leaf(shared::parse_swizzled_shared),
    ),
    ("shared", Parser::Leaf(shared::parse_swizzled_shared)),
    ("nvmma_shared", Parser::Leaf(shared::parse_nvmma_shared)),
    ("padded_shared", Parser::Leaf(shared::parse_padded_shared)),
    (
        "partitioned_shared",
        Parser::Nested(partitioned::parse_partitioned_shared),
    ),
    ("linear", Parser::Leaf(distributed::parse_linear)),
    ("generic_linear", Parser::Leaf(distributed::parse_linear)),
    ("shared_linear", Parser::Leaf(shared::parse_shared_linear)),
    (
        "tensor_memory_encoding",
        Parser::Leaf(tmem::parse_tensor_memory),
    ),
    (
        "tensor_memory_scales_encoding",
        Parser::Leaf(tmem::parse_tensor_memory_scales),
    ),
];

/// Reads one encoding's parameters from its attribute (`name` as written, `body` its
/// contents); an encoding with a parent layout (slice, dot_op) is also handed the parser of
/// parents, this module's [`encoding_from_attr`], so that it need not import it back.
#[derive(Clone, Copy)]
enum Parser {
    Leaf(fn(&str, &Attr, &[Attr]) -> R<Encoding>),
    Nested(fn(&str, &Attr, &[Attr], ParseParent) -> R<Encoding>),
}

/// The parser of a parent encoding.
pub(crate) type ParseParent = fn(&Attr) -> R<Encoding>;

/// `unknown encoding '#ttg.x'`, with a did-you-mean over [`ENCODINGS`], at `#ttg.x`.
fn unknown_encoding(a: &Attr, other: &str) -> ParseError {
    let known: Vec<&str> = ENCODINGS
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !SYNONYMS.contains(n))
        .collect();
    let hint = did_you_mean(other, &known).map_or_else(
        || format!("; known encodings: {}", known.join(", ")),
        |s| format!("; did you mean '{}'?", s),
    );
    // Point at `#ttg.name`, not the whole attribute; name the dialect as written.
    let (head, dialect) = match &a.kind {
        AttrKind::Layout { dialect, .. } => (2 + dialect.len() + other.len(), dialect.as_str()),
        _ => (a.span.len, "ttg"),
    };
    ParseError::new(
        Span {
            len: head.min(a.span.len),
            ..a.span
        },
        format!("unknown encoding '#{}.{}'{}", dialect, other, hint),
    )
}

/// Older or alternative spellings, accepted but not suggested.
const SYNONYMS: &[&str] = &["shared", "generic_linear"];
