//! The layout-moving ops of a whole TTGIR module as Triton dumps it: every `ttg.convert_layout`,
//! `ttg.local_alloc`, `ttg.local_store` and `ttg.local_load`, with its result name, its source
//! and destination types, and its source location resolved through the module's `#loc` aliases
//! (named locations, call sites and fused locations lead to the kernel's own line).

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{parse_aliases, parse_tensor_type, Aliases, TensorType};

/// Which op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// `ttg.convert_layout`: distributed to distributed.
    ConvertLayout,
    /// `ttg.local_alloc`: a new buffer, stored from a tensor if it has an operand.
    LocalAlloc,
    /// `ttg.local_store`: a tensor into a buffer.
    LocalStore,
    /// `ttg.local_load`: a buffer into a tensor.
    LocalLoad,
    /// `ttng.tmem_alloc`: tensor memory, stored from a tensor if it has an operand.
    TmemAlloc,
    /// `ttng.tmem_store`: a tensor into tensor memory (`tcgen05.st`).
    TmemStore,
    /// `ttng.tmem_load`: tensor memory into a tensor (`tcgen05.ld`).
    TmemLoad,
    /// `ttng.tc_gen5_mma`: a `tcgen05.mma` accumulating in tensor memory (`src` is operand A,
    /// `dst` the accumulator).
    TcGen5Mma,
}

impl OpKind {
    /// The op's name in TTGIR.
    pub fn name(self) -> &'static str {
        match self {
            OpKind::ConvertLayout => "ttg.convert_layout",
            OpKind::LocalAlloc => "ttg.local_alloc",
            OpKind::LocalStore => "ttg.local_store",
            OpKind::LocalLoad => "ttg.local_load",
            OpKind::TmemAlloc => "ttng.tmem_alloc",
            OpKind::TmemStore => "ttng.tmem_store",
            OpKind::TmemLoad => "ttng.tmem_load",
            OpKind::TcGen5Mma => "ttng.tc_gen5_mma",
        }
    }

    /// Whether the op moves data to or from Blackwell's tensor memory.
    pub fn is_tensor_memory(self) -> bool {
        matches!(
            self,
            OpKind::TmemAlloc | OpKind::TmemStore | OpKind::TmemLoad | OpKind::TcGen5Mma
        )
    }

    const ALL: [OpKind; 8] = [
        OpKind::ConvertLayout,
        OpKind::LocalAlloc,
        OpKind::LocalStore,
        OpKind::LocalLoad,
        OpKind::TmemAlloc,
        OpKind::TmemStore,
        OpKind::TmemLoad,
        OpKind::TcGen5Mma,
    ];
}

/// A source location: file, line, column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLoc {
    /// The file as the dump names it.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// Column.
    pub col: u32,
}

/// One op that moves a tensor between layouts.
#[derive(Clone, Debug)]
pub struct ModuleOp {
    /// Which op.
    pub kind: OpKind,
    /// Its result (`%5`, `%acc_12`), if it has one.
    pub result: Option<String>,
    /// The type it reads (`None` for a `local_alloc` without operand).
    pub src: Option<TensorType>,
    /// The type it produces or writes.
    pub dst: TensorType,
    /// The source and destination encodings as written (`#blocked`, `#ttg.dot_op<{...}>`).
    pub layouts: (String, String),
    /// Its line in the dump (1-based).
    pub line: usize,
    /// Where in the kernel's source it comes from, if the dump has locations.
    pub loc: Option<SourceLoc>,
}

/// Every layout-moving op of `text`, in order. Lines that mention such an op but cannot be read
/// are errors naming the line.
pub fn module_ops(text: &str) -> Result<Vec<ModuleOp>, String> {
    let aliases = parse_aliases(text).map_err(|e| e.to_string())?;
    let locs = loc_aliases(text);
    let mut ops = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(kind) = op_kind(line) else { continue };
        let op = parse_op(kind, line, i + 1, &aliases, &locs)
            .map_err(|e| format!("line {}: {}: {}", i + 1, kind.name(), e))?;
        ops.push(op);
    }
    Ok(ops)
}

/// The op this line is, if it is one we look for (`%x = ttg.local_load ...` or `ttg.local_store
/// ...`).
fn op_kind(line: &str) -> Option<OpKind> {
    let t = line.trim_start();
    let body = match t.strip_prefix('%') {
        Some(_) => t.split_once(" = ")?.1,
        None => t,
    };
    let name = body.split([' ', '(']).next()?;
    OpKind::ALL.into_iter().find(|k| k.name() == name)
}

fn parse_op(
    kind: OpKind,
    line: &str,
    number: usize,
    aliases: &Aliases,
    locs: &BTreeMap<String, String>,
) -> Result<ModuleOp, String> {
    let t = line.trim();
    // `%r = ...`, or `%r, %token = ...`: the first result names the op.
    let result = t
        .strip_prefix('%')
        .and_then(|_| t.split_once(" = "))
        .map(|(r, _)| r.split(',').next().unwrap_or(r).trim().to_string());
    let (body, loc_text) = split_loc(t);
    let colon = top_level(body, " : ").ok_or("no ' : ' before the types")?;
    let types = &body[colon + 3..];
    let (src, dst) = if kind == OpKind::TcGen5Mma {
        // `A, B, D, barrier...`: operand A, and the accumulator.
        let list = split_top(types.split(" -> ").next().unwrap_or(types));
        match (list.first(), list.get(2)) {
            (Some(a), Some(d)) => (*a, *d),
            _ => return Err("expected the types of A, B and the accumulator".into()),
        }
    } else {
        let arrow = top_level(types, " -> ").ok_or("no ' -> ' between the types")?;
        (types[..arrow].trim(), first_of(types[arrow + 4..].trim()))
    };
    let src = src
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or(src);
    let ty = |s: &str| parse_tensor_type(s, aliases).map_err(|e| format!("'{}': {}", s, e));
    let dst_ty = ty(dst)?;
    let src_ty = if src.is_empty() { None } else { Some(ty(src)?) };
    Ok(ModuleOp {
        kind,
        result,
        layouts: (encoding_text(src), encoding_text(dst)),
        src: src_ty,
        dst: dst_ty,
        line: number,
        loc: loc_text.and_then(|l| resolve(l, locs, 0)),
    })
}

/// A type list's elements, split at top-level commas.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s.trim();
    while let Some(i) = top_level(rest, ", ") {
        out.push(rest[..i].trim());
        rest = rest[i + 2..].trim();
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// The first of a parenthesised result list (`(!ttg.memdesc<...>, !ttg.async.token)`), or the
/// type itself.
fn first_of(s: &str) -> &str {
    match s.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        Some(inner) if !inner.trim().is_empty() => {
            split_top(inner).first().copied().unwrap_or(inner)
        }
        _ => s,
    }
}

/// The op without its trailing ` loc(...)`, and the location's inside.
fn split_loc(t: &str) -> (&str, Option<&str>) {
    match t.rfind(" loc(") {
        Some(i) if t.ends_with(')') => (&t[..i], Some(&t[i + 5..t.len() - 1])),
        _ => (t, None),
    }
}

/// Where `pat` first occurs outside brackets and quotes.
fn top_level(s: &str, pat: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut quoted = false;
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '<' | '(' | '[' | '{' if !quoted => depth += 1,
            '>' | ')' | ']' | '}' if !quoted && !s[..i].ends_with('-') => depth -= 1,
            _ if depth == 0 && !quoted && s[i..].starts_with(pat) => return Some(i),
            _ => {}
        }
    }
    None
}

/// The encoding of a type as written: what follows the shape's comma, up to the type's end (or
/// a memdesc's memory space).
fn encoding_text(ty: &str) -> String {
    let inner = ty
        .split_once('<')
        .and_then(|(_, rest)| rest.strip_suffix('>'))
        .unwrap_or("");
    match top_level(inner, ", ") {
        Some(i) => {
            let rest = &inner[i + 2..];
            let end = top_level(rest, ", ").unwrap_or(rest.len());
            rest[..end].to_string()
        }
        None => String::new(),
    }
}

/// `#loc12 = loc(...)` lines: name to the inside of `loc(...)`.
fn loc_aliases(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|l| {
            let (name, rest) = l.trim().split_once(" = loc(")?;
            Some((name.to_string(), rest.strip_suffix(')')?.to_string()))
        })
        .collect()
}

/// The file location a location leads to: through aliases, names (`"acc"(#loc3)`), call sites
/// (the caller: the kernel's line, not the library's) and fused locations (the first).
fn resolve(l: &str, locs: &BTreeMap<String, String>, depth: u32) -> Option<SourceLoc> {
    let l = l.trim();
    if depth > 64 {
        return None;
    }
    if l.starts_with("#loc") {
        return resolve(locs.get(l)?, locs, depth + 1);
    }
    if let Some(inner) = l
        .strip_prefix("callsite(")
        .and_then(|s| s.strip_suffix(')'))
    {
        let at = top_level(inner, " at ")?;
        return resolve(&inner[at + 4..], locs, depth + 1);
    }
    if let Some(inner) = l.strip_prefix("fused[").and_then(|s| s.split_once(']')) {
        let first = top_level(inner.0, ", ").unwrap_or(inner.0.len());
        return resolve(&inner.0[..first], locs, depth + 1);
    }
    let rest = l.strip_prefix('"')?;
    let close = rest.find('"')?;
    let after = &rest[close + 1..];
    if let Some(named) = after.strip_prefix('(').and_then(|s| s.strip_suffix(')')) {
        return resolve(named, locs, depth + 1);
    }
    let mut nums = after.strip_prefix(':')?.split(':');
    Some(SourceLoc {
        file: rest[..close].to_string(),
        line: nums.next()?.trim().parse().ok()?,
        col: nums.next().and_then(|c| c.trim().parse().ok()).unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMP: &str = r#"#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
#loc = loc("k.py":7:0)
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @k() {
    %a_3 = ttg.local_alloc %a_2 : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem> loc(#loc4)
    %b = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> loc(#loc5)
    %c = ttg.local_load %s token %t : !ttg.memdesc<64x16xf16, #shared, #smem, mutable, 64x64> -> tensor<64x16xf16, #ttg.dot_op<{opIdx = 0, parent = #blocked, kWidth = 2}>> loc(#loc3)
    ttg.local_store %x, %b : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc2 = loc("/lib/standard.py":188:15)
#loc3 = loc("k.py":12:9)
#loc4 = loc("a"(#loc3))
#loc5 = loc(callsite(#loc2 at #loc3))
"#;

    #[test]
    fn ops_are_found_with_their_types_and_source_lines() {
        let ops = module_ops(DUMP).unwrap();
        let kinds: Vec<OpKind> = ops.iter().map(|o| o.kind).collect();
        use OpKind::*;
        assert_eq!(kinds, [LocalAlloc, LocalAlloc, LocalLoad, LocalStore]);
        assert_eq!(ops[0].result.as_deref(), Some("%a_3"));
        assert_eq!(ops[0].layouts, ("#blocked".into(), "#shared".into()));
        assert_eq!(ops[0].loc.as_ref().unwrap().line, 12);
        assert!(ops[1].src.is_none() && ops[1].dst.shape == [2, 64, 64]);
        assert_eq!(ops[1].loc.as_ref().unwrap().file, "k.py");
        assert_eq!(ops[2].src.as_ref().unwrap().alloc_shape, [64, 64]);
        assert!(ops[2].layouts.1.starts_with("#ttg.dot_op<{opIdx = 0"));
        assert_eq!(ops[3].result, None);
        assert_eq!(ops[3].loc, None);
    }

    #[test]
    fn unreadable_ops_name_their_line() {
        let err =
            module_ops("%x = ttg.convert_layout %y : tensor<4xf32, #nope> -> tensor<4xf32>\n")
                .unwrap_err();
        assert!(err.starts_with("line 1: ttg.convert_layout:"), "{}", err);
    }
}
