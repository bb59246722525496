//! From a parsed attribute to an [`Encoding`]: key names (camelCase as Triton prints them, or
//! snake_case), required and optional keys, and did-you-mean for unknown ones.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::attr::{Attr, AttrKind};
use super::keys::{canonical_key, did_you_mean, MAX_RANK};
use super::lexer::Span;
use super::ParseError;
use crate::encodings::{
    AmdMfma, AmdWmma, Blocked, Cga, NvidiaMma, NvmmaShared, PaddedShared, SwizzledShared,
};
use crate::utils::standard_out_dim_names;
use crate::{Encoding, LinearLayout};

type R<T> = Result<T, ParseError>;

/// Keyed access to a layout's parameters with error reporting.
struct Params<'a> {
    encoding: &'a str,
    span: Span,
    entries: Vec<(String, Span, &'a Attr)>,
    used: Vec<bool>,
}

impl<'a> Params<'a> {
    fn new(
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
                    format!("unknown key '{}' for #ttg.{}{}", k, encoding, hint),
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

    fn get(&mut self, k: &str) -> Option<&'a Attr> {
        let i = self.entries.iter().position(|(e, _, _)| e == k)?;
        self.used[i] = true;
        Some(self.entries[i].2)
    }

    fn key_span(&self, k: &str) -> Span {
        self.entries
            .iter()
            .find(|(e, _, _)| e == k)
            .map_or(self.span, |e| e.1)
    }

    fn required(&mut self, k: &str) -> R<&'a Attr> {
        let span = self.span;
        let enc = self.encoding;
        self.get(k).ok_or_else(|| {
            ParseError::new(
                span,
                format!("#ttg.{} is missing the required key '{}'", enc, k),
            )
        })
    }

    fn uint(&mut self, k: &str) -> R<u32> {
        let a = self.required(k)?;
        as_uint(a, k)
    }
    fn uint_or(&mut self, k: &str, d: u32) -> R<u32> {
        match self.get(k) {
            Some(a) => as_uint(a, k),
            None => Ok(d),
        }
    }
    fn bool_or(&mut self, k: &str, d: bool) -> R<bool> {
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
    fn uints(&mut self, k: &str) -> R<Vec<u32>> {
        let a = self.required(k)?;
        as_uints(a, k)
    }
    fn uints_opt(&mut self, k: &str) -> R<Option<Vec<u32>>> {
        self.get(k).map(|a| as_uints(a, k)).transpose()
    }

    /// The CGA: `CGALayout = [[...]]`, or the legacy `CTAsPerCGA / CTASplitNum / CTAOrder`.
    fn cga(&mut self, rank: usize) -> R<Cga> {
        let span = self.span;
        check_rank(span, rank)?;
        if let Some(a) = self.get("CGALayout") {
            let bases = as_bases(a, "CGALayout")?;
            return Cga::from_bases(bases, rank)
                .map_err(|e| ParseError::new(a.span, e.message().to_string()));
        }
        let ctas = self.uints_opt("CTAsPerCGA")?;
        let split = self.uints_opt("CTASplitNum")?;
        let order = self.uints_opt("CTAOrder")?;
        if ctas.is_none() && split.is_none() && order.is_none() {
            return Ok(Cga::single(rank));
        }
        let ctas = ctas.unwrap_or_else(|| alloc::vec![1; rank]);
        let split = split.unwrap_or_else(|| ctas.clone());
        let order = order.unwrap_or_else(|| (0..rank as u32).rev().collect());
        if ctas.len() != rank || split.len() != rank || order.len() != rank {
            return Err(ParseError::new(
                self.key_span("CTAsPerCGA"),
                format!(
                    "CTAsPerCGA, CTASplitNum and CTAOrder must have rank {}",
                    rank
                ),
            ));
        }
        Cga::from_split_params(&ctas, &split, &order)
            .map_err(|e| ParseError::new(span, e.message().to_string()))
    }
}

fn check_rank(span: Span, rank: usize) -> R<()> {
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

fn as_uint(a: &Attr, k: &str) -> R<u32> {
    match a.kind {
        AttrKind::Int(v) if (0..=u32::MAX as i64).contains(&v) => Ok(v as u32),
        _ => Err(ParseError::new(
            a.span,
            format!("'{}' must be a non-negative integer", k),
        )),
    }
}

fn as_uints(a: &Attr, k: &str) -> R<Vec<u32>> {
    match &a.kind {
        AttrKind::Array(v) => v.iter().map(|x| as_uint(x, k)).collect(),
        _ => Err(ParseError::new(
            a.span,
            format!("'{}' must be an array of integers like [4, 2]", k),
        )),
    }
}

fn as_bases(a: &Attr, k: &str) -> R<Vec<Vec<i32>>> {
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

fn body_dict<'a>(name: &str, a: &'a Attr, body: &'a [Attr]) -> R<&'a [(String, Span, Attr)]> {
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
fn linear_from_dict(
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
/// A new encoding is one such function and one line here.
const ENCODINGS: &[(&str, Parser)] = &[
    ("blocked", parse_blocked),
    ("slice", parse_slice),
    ("dot_op", parse_dot_op),
    ("nvidia_mma", parse_nvidia_mma),
    ("amd_mfma", parse_amd_mfma),
    ("amd_wmma", parse_amd_wmma),
    ("swizzled_shared", parse_swizzled_shared),
    ("amd_rotating_shared", parse_swizzled_shared),
    ("shared", parse_swizzled_shared),
    ("nvmma_shared", parse_nvmma_shared),
    ("padded_shared", parse_padded_shared),
    ("linear", parse_linear),
    ("generic_linear", parse_linear),
    ("shared_linear", parse_shared_linear),
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

/// `#ttg.blocked<{...}>`'s parameters.
fn parse_blocked(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let mut p = Params::new(
        name,
        a.span,
        body_dict(name, a, body)?,
        &[
            "sizePerThread",
            "threadsPerWarp",
            "warpsPerCTA",
            "order",
            "CGALayout",
            "CTAsPerCGA",
            "CTASplitNum",
            "CTAOrder",
        ],
    )?;
    let spt = p.uints("sizePerThread")?;
    let tpw = p.uints("threadsPerWarp")?;
    let wpc = p.uints("warpsPerCTA")?;
    let order = p.uints("order")?;
    let cga = p.cga(order.len())?;
    Ok(Encoding::Blocked(Blocked {
        size_per_thread: spt,
        threads_per_warp: tpw,
        warps_per_cta: wpc,
        order,
        cga,
    }))
}

/// `#ttg.slice<{...}>`'s parameters.
fn parse_slice(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let mut p = Params::new(name, a.span, body_dict(name, a, body)?, &["dim", "parent"])?;
    let dim = p.uint("dim")?;
    let parent = encoding_from_attr(p.required("parent")?)?;
    if parent.is_shared() {
        return Err(ParseError::new(
            p.key_span("parent"),
            format!(
                "the parent of a slice must be a distributed layout, not #ttg.{}",
                parent.name()
            ),
        ));
    }
    if dim as usize >= parent.rank() {
        return Err(ParseError::new(
            p.key_span("dim"),
            format!(
                "slice dim {} is out of range for a rank-{} parent",
                dim,
                parent.rank()
            ),
        ));
    }
    Ok(Encoding::Slice {
        dim,
        parent: Box::new(parent),
    })
}

/// `#ttg.dot_op<{...}>`'s parameters.
fn parse_dot_op(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let mut p = Params::new(
        name,
        a.span,
        body_dict(name, a, body)?,
        &["opIdx", "parent", "kWidth"],
    )?;
    let op_idx = p.uint("opIdx")?;
    if op_idx > 1 {
        return Err(ParseError::new(
            p.key_span("opIdx"),
            format!("dot_op opIdx must be 0 or 1, got {}", op_idx),
        ));
    }
    let parent = encoding_from_attr(p.required("parent")?)?;
    let k_width = p.uint_or("kWidth", 0)?;
    if !matches!(
        parent,
        Encoding::Blocked(_) | Encoding::NvidiaMma(_) | Encoding::AmdMfma(_) | Encoding::AmdWmma(_)
    ) {
        return Err(ParseError::new(p.key_span("parent"), format!("the parent of a dot_op must be blocked, nvidia_mma, amd_mfma or amd_wmma, not #ttg.{}", parent.name())));
    }
    if !matches!(parent, Encoding::Blocked(_)) && k_width == 0 {
        return Err(ParseError::new(
            p.span,
            "dot_op: kWidth is mandatory for an MMA parent (e.g. kWidth = 2 for 16-bit elements)",
        ));
    }
    Ok(Encoding::DotOperand {
        op_idx,
        parent: Box::new(parent),
        k_width,
    })
}

/// `#ttg.nvidia_mma<{...}>`'s parameters.
fn parse_nvidia_mma(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let mut p = Params::new(
        name,
        a.span,
        body_dict(name, a, body)?,
        &[
            "versionMajor",
            "versionMinor",
            "warpsPerCTA",
            "instrShape",
            "CGALayout",
            "CTAsPerCGA",
            "CTASplitNum",
            "CTAOrder",
        ],
    )?;
    let vmaj = p.uint("versionMajor")?;
    let vmin = p.uint_or("versionMinor", 0)?;
    let w = p.uints("warpsPerCTA")?;
    let instr = p.uints("instrShape")?;
    let cga = p.cga(w.len())?;
    Ok(Encoding::NvidiaMma(NvidiaMma {
        version_major: vmaj,
        version_minor: vmin,
        warps_per_cta: w,
        instr_shape: instr,
        cga,
    }))
}

/// `#ttg.amd_mfma<{...}>`'s parameters.
fn parse_amd_mfma(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let mut p = Params::new(
        name,
        a.span,
        body_dict(name, a, body)?,
        &[
            "version",
            "versionMajor",
            "versionMinor",
            "warpsPerCTA",
            "instrShape",
            "MDim",
            "NDim",
            "isTransposed",
            "tilesPerWarp",
            "elementBitWidth",
            "CGALayout",
            "CTAsPerCGA",
            "CTASplitNum",
            "CTAOrder",
        ],
    )?;
    let version = match p.get("version") {
        Some(v) => as_uint(v, "version")?,
        None => p.uint_or("versionMajor", 0)?,
    };
    let _ = p.uint_or("versionMinor", 0)?;
    let w = p.uints("warpsPerCTA")?;
    let instr = match p.uints_opt("instrShape")? {
        Some(s) => s,
        None => {
            let m = p.uint("MDim")?;
            let n = p.uint("NDim")?;
            alloc::vec![m, n]
        }
    };
    let t = p.bool_or("isTransposed", false)?;
    let tiles = p
        .uints_opt("tilesPerWarp")?
        .unwrap_or_else(|| alloc::vec![1; w.len()]);
    let ebw = p.uint_or("elementBitWidth", 32)?;
    let cga = p.cga(w.len())?;
    Ok(Encoding::AmdMfma(AmdMfma {
        version,
        warps_per_cta: w,
        instr_shape: instr,
        is_transposed: t,
        tiles_per_warp: tiles,
        element_bit_width: ebw,
        cga,
    }))
}

/// `#ttg.amd_wmma<{...}>`'s parameters.
fn parse_amd_wmma(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let mut p = Params::new(
        name,
        a.span,
        body_dict(name, a, body)?,
        &[
            "version",
            "isTranspose",
            "isTransposed",
            "ctaLayout",
            "warpsPerCTA",
            "tilesPerWarp",
            "instrShape",
            "rank",
            "CGALayout",
            "CTAsPerCGA",
            "CTASplitNum",
            "CTAOrder",
        ],
    )?;
    let version = p.uint("version")?;
    let t = if p.get("isTransposed").is_some() {
        p.bool_or("isTransposed", false)?
    } else {
        p.bool_or("isTranspose", false)?
    };
    let rank_key = p.uint_or("rank", 0)? as usize;
    let instr = p
        .uints_opt("instrShape")?
        .unwrap_or_else(|| alloc::vec![16, 16, 16]);
    let cta = if let Some(c) = p.get("ctaLayout") {
        let AttrKind::Dict(d) = &c.kind else {
            return Err(ParseError::new(
                c.span,
                "expected a dictionary value for 'ctaLayout'",
            ));
        };
        let rank = if rank_key == 0 { 2 } else { rank_key };
        if d.iter().any(|(k, _, _)| k == "register") {
            // Triton prints ctaLayout with empty bases skipped.
            linear_from_dict(
                c.span,
                d,
                &["register", "warp"],
                &["register", "warp"],
                rank,
            )?
        } else {
            let w = linear_from_dict(c.span, d, &["warp"], &["warp"], rank)?;
            let r = w.num_out_dims();
            let names = standard_out_dim_names(r);
            LinearLayout::identity_1d(1, "register", &names[r - 1])
                .and_then(|reg| reg.checked_mul(&w))
                .map_err(|e| ParseError::new(c.span, e.message().to_string()))?
        }
    } else if let Some(w) = p.uints_opt("warpsPerCTA")? {
        let tiles = p
            .uints_opt("tilesPerWarp")?
            .unwrap_or_else(|| alloc::vec![1; w.len()]);
        crate::encodings::wmma_cta_layout(&w, &tiles)
            .map_err(|e| ParseError::new(p.span, e.message().to_string()))?
    } else {
        return Err(ParseError::new(
            p.span,
            "#ttg.amd_wmma needs 'ctaLayout = {warp = [...]}' (or the legacy 'warpsPerCTA')",
        ));
    };
    let cga = p.cga(cta.num_out_dims())?;
    Ok(Encoding::AmdWmma(AmdWmma {
        version,
        is_transposed: t,
        cta_layout: cta,
        instr_shape: instr,
        cga,
    }))
}

/// `#ttg.swizzled_shared<{...}>`'s parameters.
fn parse_swizzled_shared(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let mut p = Params::new(
        name,
        a.span,
        body_dict(name, a, body)?,
        &[
            "vec",
            "perPhase",
            "maxPhase",
            "order",
            "CGALayout",
            "CTAsPerCGA",
            "CTASplitNum",
            "CTAOrder",
        ],
    )?;
    let s = SwizzledShared {
        vec: p.uint("vec")?,
        per_phase: p.uint("perPhase")?,
        max_phase: p.uint("maxPhase")?,
        order: p.uints("order")?,
        cga: Cga::single(0),
    };
    let cga = p.cga(s.order.len())?;
    let s = SwizzledShared { cga, ..s };
    Ok(if name == "amd_rotating_shared" {
        Encoding::AmdRotatingShared(s)
    } else {
        Encoding::SwizzledShared(s)
    })
}

/// `#ttg.nvmma_shared<{...}>`'s parameters.
fn parse_nvmma_shared(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let mut p = Params::new(
        name,
        a.span,
        body_dict(name, a, body)?,
        &[
            "swizzlingByteWidth",
            "transposed",
            "elementBitWidth",
            "fp4Padded",
            "rank",
            "CGALayout",
            "CTAsPerCGA",
            "CTASplitNum",
            "CTAOrder",
        ],
    )?;
    let sw = p.uint("swizzlingByteWidth")?;
    let tr = p.bool_or("transposed", false)?;
    let ebw = p.uint("elementBitWidth")?;
    let fp4 = p.bool_or("fp4Padded", false)?;
    let rank_key = p.uint_or("rank", 0)? as usize;
    // Without `rank`, the CGALayout entries tell it; failing both, rank 2.
    let cga_rank = p
        .entries
        .iter()
        .find(|e| e.0 == "CGALayout")
        .and_then(|e| match &e.2.kind {
            AttrKind::Array(v) => match v.first().map(|f| &f.kind) {
                Some(AttrKind::Array(b)) => Some(b.len()),
                _ => None,
            },
            _ => None,
        });
    let rank = if rank_key != 0 {
        rank_key
    } else {
        cga_rank.unwrap_or(2)
    };
    let cga = p.cga(rank)?;
    Ok(Encoding::NvmmaShared(NvmmaShared {
        swizzling_byte_width: sw,
        transposed: tr,
        element_bit_width: ebw,
        fp4_padded: fp4,
        rank,
        cga,
    }))
}

/// `#ttg.padded_shared<{...}>`'s parameters.
fn parse_padded_shared(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let Some(Attr {
        kind: AttrKind::Paddings(pads),
        span: ps,
    }) = body.first()
    else {
        return Err(ParseError::new(a.span, "#ttg.padded_shared needs intervals: #ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}>"));
    };
    let Some(Attr {
        kind: AttrKind::Dict(d),
        span: ds,
    }) = body.get(1)
    else {
        return Err(ParseError::new(*ps, "expected {offset = [...], block = [...]} or {order = [...], shape = [...]} after the intervals"));
    };
    let linear = if d.iter().any(|(k, _, _)| k == "offset" || k == "block") {
        linear_from_dict(*ds, d, &["offset", "block"], &["block"], 0)?
    } else {
        let mut p = Params::new(name, *ds, d, &["order", "shape"])?;
        let order = p.uints("order")?;
        let shape = p.uints("shape")?;
        if order.len() != shape.len() {
            return Err(ParseError::new(
                *ds,
                "mismatch of shape and order ranks in padded layout",
            ));
        }
        PaddedShared::identity_component(&shape, &order)
            .map_err(|e| ParseError::new(*ds, e.message().to_string()))?
    };
    let mut intervals = Vec::new();
    let mut paddings = Vec::new();
    for &(i, p) in pads {
        if !(1..=1 << 30).contains(&i) || !(1..=1 << 30).contains(&p) {
            return Err(ParseError::new(
                *ps,
                format!(
                    "interval {} and padding {} must be positive powers of two",
                    i, p
                ),
            ));
        }
        intervals.push(i as u32);
        paddings.push(p as u32);
    }
    let pl = PaddedShared {
        intervals,
        paddings,
        linear,
    };
    pl.validate()
        .map_err(|e| ParseError::new(*ps, e.message().to_string()))?;
    Ok(Encoding::PaddedShared(pl))
}

/// `#ttg.linear<{...}>`'s parameters.
fn parse_linear(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let d = body_dict(name, a, body)?;
    Ok(Encoding::Linear(linear_from_dict(
        a.span,
        d,
        &["register", "lane", "warp", "block"],
        &[],
        0,
    )?))
}

/// `#ttg.shared_linear<{...}>`'s parameters.
fn parse_shared_linear(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let d = body_dict(name, a, body)?;
    let l = linear_from_dict(a.span, d, &["offset", "block"], &["block"], 0)?;
    let alignment = body
        .iter()
        .find_map(|x| match &x.kind {
            AttrKind::Keyword(k, v) if k == "alignment" => Some(as_uint(v, "alignment")),
            _ => None,
        })
        .transpose()?
        .ok_or_else(|| {
            ParseError::new(
                a.span,
                "#ttg.shared_linear needs ', alignment = N' after the bases",
            )
        })?;
    Ok(Encoding::SharedLinear {
        layout: l,
        alignment,
    })
}
