//! The encodings the parser knows, by TTGIR name: [`encoding_from_attr`] looks a parsed
//! attribute's name up in [`ENCODINGS`] and hands its parameters to that encoding's
//! `parse_<name>`, which lives with the encoding. Misspelt names get a suggestion from the same
//! list.

use alloc::format;
use alloc::vec::Vec;

use super::{amd, distributed, nvidia, shared, Encoding};
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
    parse(name, a, body)
}

/// Every encoding the parser knows: its TTGIR name and the function that reads its parameters.
/// A new encoding is its `parse_<name>`, next to its type, and one line here.
const ENCODINGS: &[(&str, Parser)] = &[
    ("blocked", distributed::parse_blocked),
    ("slice", distributed::parse_slice),
    ("dot_op", distributed::parse_dot_op),
    ("nvidia_mma", nvidia::parse_nvidia_mma),
    ("amd_mfma", amd::parse_amd_mfma),
    ("amd_wmma", amd::parse_amd_wmma),
    ("swizzled_shared", shared::parse_swizzled_shared),
    ("amd_rotating_shared", shared::parse_swizzled_shared),
    ("shared", shared::parse_swizzled_shared),
    ("nvmma_shared", shared::parse_nvmma_shared),
    ("padded_shared", shared::parse_padded_shared),
    ("linear", distributed::parse_linear),
    ("generic_linear", distributed::parse_linear),
    ("shared_linear", shared::parse_shared_linear),
];

/// Reads one encoding's parameters from its attribute (`name` as written, `body` its contents).
type Parser = fn(&str, &Attr, &[Attr]) -> R<Encoding>;

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
    // Point at `#ttg.name`, not the whole attribute.
    let head = match &a.kind {
        AttrKind::Layout { dialect, .. } => 2 + dialect.len() + other.len(),
        _ => a.span.len,
    };
    ParseError::new(
        Span {
            len: head.min(a.span.len),
            ..a.span
        },
        format!("unknown encoding '#ttg.{}'{}", other, hint),
    )
}

/// Older or alternative spellings, accepted but not suggested.
const SYNONYMS: &[&str] = &["shared", "generic_linear"];
