//! Reading one encoding's parameters from its parsed attribute: key names (camelCase as Triton
//! prints them, or snake_case), required and optional keys, did-you-mean for unknown ones, and
//! bases dictionaries. Each encoding's `parse_<name>` (in `crate::encodings`) reads its keys
//! through [`Params`]; this layer knows no encoding, so it imports none.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::attr::{Attr, AttrKind};
use super::error::ParseError;
use super::keys::{canonical_key, did_you_mean, MAX_RANK};
use super::lexer::Span;
use crate::utils::standard_out_dim_names;
use crate::LinearLayout;

/// What reading parameters returns: a value, or an error at a place in the input.
pub(crate) type R<T> = Result<T, ParseError>;

/// Keyed access to a layout's parameters with error reporting.
pub(crate) struct Params<'a> {
    encoding: &'a str,
    span: Span,
    entries: Vec<(String, Span, &'a Attr)>,
    used: Vec<bool>,
}

impl<'a> Params<'a> {
    /// The parameters of `#ttg.<name><{...}>` (`a` the attribute, `body` its contents), as
    /// [`Params::new`] reads them.
    pub(crate) fn of(name: &'a str, a: &'a Attr, body: &'a [Attr], allowed: &[&str]) -> R<Self> {
        Params::new(name, a.span, body_dict(name, a, body)?, allowed)
    }

    /// The entries of `dict`, refusing keys not in `allowed` (with a suggestion) and duplicates.
    pub(crate) fn new(
        encoding: &'a str,
        span: Span,
        dict: &'a [(String, Span, Attr)],
        allowed: &[&str],
    ) -> R<Self> {
        let mut entries = Vec::new();
        for (k, ks, v) in dict {
            let ck = canonical_key(k);
            if !allowed.contains(&ck.as_str()) {
                let hint = match did_you_mean(&ck, allowed) {
                    Some(s) => format!("; did you mean '{}'?", s),
                    None => format!("; expected one of: {}", allowed.join(", ")),
                };
                return Err(ParseError::new(
                    *ks,
                    format!("unknown key '{}' for {}{}", k, full_name(encoding), hint),
                ));
            }
            if entries
                .iter()
                .any(|(e, _, _): &(String, Span, &Attr)| *e == ck)
            {
                return Err(ParseError::new(*ks, format!("duplicate key '{}'", k)));
            }
            entries.push((ck, *ks, v));
        }
        let used = alloc::vec![false; entries.len()];
        Ok(Params {
            encoding,
            span,
            entries,
            used,
        })
    }

    /// The value of `k`, if given (marking it read).
    pub(crate) fn get(&mut self, k: &str) -> Option<&'a Attr> {
        let i = self.entries.iter().position(|(e, _, _)| e == k)?;
        self.used[i] = true;
        Some(self.entries[i].2)
    }

    /// The value of `k`, if given, without marking it read.
    pub(crate) fn peek(&self, k: &str) -> Option<&'a Attr> {
        self.entries.iter().find(|e| e.0 == k).map(|e| e.2)
    }

    /// The whole attribute's span.
    pub(crate) fn span(&self) -> Span {
        self.span
    }

    /// Where `k` is written, else the whole attribute.
    pub(crate) fn key_span(&self, k: &str) -> Span {
        self.entries
            .iter()
            .find(|(e, _, _)| e == k)
            .map_or(self.span, |e| e.1)
    }

    /// The value of `k`, or an error naming the missing key.
    pub(crate) fn required(&mut self, k: &str) -> R<&'a Attr> {
        let span = self.span;
        let enc = self.encoding;
        self.get(k).ok_or_else(|| {
            ParseError::new(
                span,
                format!("{} is missing the required key '{}'", full_name(enc), k),
            )
        })
    }

    /// A required non-negative integer.
    pub(crate) fn uint(&mut self, k: &str) -> R<u32> {
        let a = self.required(k)?;
        as_uint(a, k)
    }
    /// An optional non-negative integer, `d` if absent.
    pub(crate) fn uint_or(&mut self, k: &str, d: u32) -> R<u32> {
        match self.get(k) {
            Some(a) => as_uint(a, k),
            None => Ok(d),
        }
    }
    /// An optional boolean (`true`/`false`, or 0/1), `d` if absent.
    pub(crate) fn bool_or(&mut self, k: &str, d: bool) -> R<bool> {
        match self.get(k) {
            Some(Attr {
                kind: AttrKind::Bool(b),
                ..
            }) => Ok(*b),
            Some(Attr {
                kind: AttrKind::Int(i @ (0 | 1)),
                ..
            }) => Ok(*i == 1),
            Some(a) => Err(ParseError::new(
                a.span,
                format!("'{}' must be true or false", k),
            )),
            None => Ok(d),
        }
    }
    /// An optional enum value (`kThenMn`).
    pub(crate) fn ident_opt(&mut self, k: &str) -> R<Option<String>> {
        match self.get(k) {
            Some(Attr {
                kind: AttrKind::Word(w),
                ..
            }) => Ok(Some(w.clone())),
            Some(a) => Err(ParseError::new(a.span, format!("'{}' must be a name", k))),
            None => Ok(None),
        }
    }
    /// A required array of non-negative integers.
    pub(crate) fn uints(&mut self, k: &str) -> R<Vec<u32>> {
        let a = self.required(k)?;
        as_uints(a, k)
    }
    /// An optional array of non-negative integers.
    pub(crate) fn uints_opt(&mut self, k: &str) -> R<Option<Vec<u32>>> {
        self.get(k).map(|a| as_uints(a, k)).transpose()
    }
}

/// `#ttg.blocked`, `#ttng.tensor_memory_encoding`: an encoding's name with its dialect.
pub(crate) fn full_name(encoding: &str) -> String {
    let dialect = if encoding.starts_with("tensor_memory") {
        "ttng"
    } else {
        "ttg"
    };
    format!("#{}.{}", dialect, encoding)
}

/// A rank of at most [`MAX_RANK`] dims, else an error at `span`.
pub(crate) fn check_rank(span: Span, rank: usize) -> R<()> {
    if rank > MAX_RANK {
        return Err(ParseError::new(
            span,
            format!(
                "rank {} is too large: layouts have at most {} dims",
                rank, MAX_RANK
            ),
        ));
    }
    Ok(())
}

/// A non-negative integer that fits `u32`.
pub(crate) fn as_uint(a: &Attr, k: &str) -> R<u32> {
    match &a.kind {
        AttrKind::Int(v) if (0..=u32::MAX as i64).contains(v) => Ok(*v as u32),
        AttrKind::Word(w) => Err(ParseError::new(
            a.span,
            format!("'{}' must be a non-negative integer, found '{}'", k, w),
        )),
        _ => Err(ParseError::new(
            a.span,
            format!("'{}' must be a non-negative integer", k),
        )),
    }
}

/// An array of [`as_uint`]s.
pub(crate) fn as_uints(a: &Attr, k: &str) -> R<Vec<u32>> {
    match &a.kind {
        AttrKind::Array(v) => v.iter().map(|x| as_uint(x, k)).collect(),
        _ => Err(ParseError::new(
            a.span,
            format!("'{}' must be an array of integers like [4, 2]", k),
        )),
    }
}

/// An array of bases, each an array of non-negative integers (`[[0, 1], [1, 0]]`).
pub(crate) fn as_bases(a: &Attr, k: &str) -> R<Vec<Vec<i32>>> {
    match &a.kind {
        AttrKind::Array(v) => v
            .iter()
            .map(|b| match &b.kind {
                AttrKind::Array(xs) => xs
                    .iter()
                    .map(|x| match x.kind {
                        AttrKind::Int(i) if (0..=i32::MAX as i64).contains(&i) => Ok(i as i32),
                        _ => Err(ParseError::new(
                            x.span,
                            format!("'{}' basis entries must be non-negative integers", k),
                        )),
                    })
                    .collect(),
                _ => Err(ParseError::new(
                    b.span,
                    format!("'{}' must be an array of bases like [[0, 1], [1, 0]]", k),
                )),
            })
            .collect(),
        _ => Err(ParseError::new(
            a.span,
            format!("'{}' must be an array of bases like [[0, 1], [1, 0]]", k),
        )),
    }
}

/// The bare `key = value, ...` list inside `#ttng.name<...>` (the tensor-memory encodings'
/// syntax), as the entries of a dict. An empty list is allowed.
pub(crate) fn keyword_dict(name: &str, body: &[Attr]) -> R<Vec<(String, Span, Attr)>> {
    body.iter()
        .map(|a| match &a.kind {
            AttrKind::Keyword(k, v) => Ok((k.clone(), a.span, (**v).clone())),
            _ => Err(ParseError::new(
                a.span,
                format!("expected `key = value` inside #ttng.{}<...>", name),
            )),
        })
        .collect()
}

/// The `{...}` inside `#ttg.name<...>`.
pub(crate) fn body_dict<'a>(
    name: &str,
    a: &'a Attr,
    body: &'a [Attr],
) -> R<&'a [(String, Span, Attr)]> {
    match body.first() {
        Some(Attr {
            kind: AttrKind::Dict(d),
            ..
        }) => Ok(d),
        Some(x) => Err(ParseError::new(
            x.span,
            format!("expected {{...}} inside #ttg.{}<...>", name),
        )),
        None => Err(ParseError::new(
            a.span,
            format!("#ttg.{} needs parameters: #ttg.{}<{{...}}>", name, name),
        )),
    }
}

/// Build a linear layout from `{register = [...], lane = [...], ...}` with the given in-dims.
pub(crate) fn linear_from_dict(
    span: Span,
    dict: &[(String, Span, Attr)],
    in_dims: &[&str],
    optional: &[&str],
    rank_hint: usize,
) -> R<LinearLayout> {
    for (k, ks, _) in dict {
        if !in_dims.contains(&k.as_str()) {
            let hint = did_you_mean(k, in_dims)
                .map_or(String::new(), |s| format!("; did you mean '{}'?", s));
            return Err(ParseError::new(
                *ks,
                format!(
                    "unexpected basis '{}': expected {}{}",
                    k,
                    in_dims.join(", "),
                    hint
                ),
            ));
        }
    }
    let mut bases = Vec::new();
    for d in in_dims {
        match dict.iter().find(|(k, _, _)| k == d) {
            Some((_, _, a)) => bases.push((d.to_string(), as_bases(a, d)?)),
            None if optional.contains(d) => bases.push((d.to_string(), Vec::new())),
            None => {
                return Err(ParseError::new(
                    span,
                    format!("expected basis of '{}' not found", d),
                ))
            }
        }
    }
    let rank = bases
        .iter()
        .flat_map(|(_, b)| b.first())
        .map(|b| b.len())
        .next()
        .unwrap_or(rank_hint);
    if rank == 0 {
        // All bases empty: the rank comes from the tensor the layout is applied to.
        return LinearLayout::from_parts(bases, Vec::new(), true)
            .map_err(|e| ParseError::new(span, e.message().to_string()));
    }
    LinearLayout::from_bases(bases, &standard_out_dim_names(rank))
        .map_err(|e| ParseError::new(span, e.message().to_string()))
}
