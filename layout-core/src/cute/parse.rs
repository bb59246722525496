//! CuTe's layout text as CuTe (`print(layout)`) and pycute print it: `(_8,(_8,_8)):(_64,(_1,_8))`,
//! `Sw<3,3,3> o _0 o (8,64):(64,1)`, `SW_3_3_3 o 0 o (8, 64):(64, 1)` (swizzles over element
//! offsets), `Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)` (over byte addresses, as
//! CuTe prints its GMMA/UMMA atoms), and `tv(...)` around a thread-value layout. Integers may
//! carry CuTe's `_` (static) prefix.

use alloc::string::String;
use alloc::vec::Vec;

use super::{Cute, IntTuple, Kind, Swizzle};
use crate::error::Span;
use crate::{ErrorKind, LayoutError, Result};

/// A token and where it starts (byte offset) and ends.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Int(i64),
    Word(String),
    Punct(char),
}

struct Lexer<'a> {
    text: &'a str,
    toks: Vec<(Tok, usize, usize)>,
    pos: usize,
}

fn error(text: &str, at: usize, len: usize, msg: impl Into<String>) -> LayoutError {
    error_at(text, at, len, ErrorKind::Syntax, msg)
}

/// An error of `kind` at bytes `at..at + len` of `text` (a token's start), with its line and
/// column.
pub(super) fn error_at(
    text: &str,
    at: usize,
    len: usize,
    kind: ErrorKind,
    msg: impl Into<String>,
) -> LayoutError {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() as u32 + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
    LayoutError::of(kind, msg).with_span(Span {
        line,
        col,
        offset: at,
        len: len.max(1),
    })
}

fn lex(text: &str) -> Result<Vec<(Tok, usize, usize)>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_alphanumeric() || c == '_' {
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let w = &text[start..i];
            let digits = w.trim_start_matches('_');
            let tok = match digits.parse::<i64>() {
                Ok(v) if w.len() - digits.len() <= 1 => Tok::Int(v),
                // smem_ptr[16b]: a size in bits.
                _ if w.ends_with('b') && w[..w.len() - 1].parse::<u32>().is_ok() => {
                    Tok::Word(w.into())
                }
                _ if digits.starts_with(|c: char| c.is_ascii_digit()) => {
                    return Err(error(
                        text,
                        start,
                        w.len(),
                        alloc::format!("`{}` is not an integer", w),
                    ))
                }
                _ => Tok::Word(w.into()),
            };
            out.push((tok, start, i));
            continue;
        }
        if "(),:<>-[]".contains(c) {
            out.push((Tok::Punct(c), start, i + 1));
            i += 1;
            continue;
        }
        let len = text[start..].chars().next().map_or(1, char::len_utf8);
        return Err(error(
            text,
            start,
            len,
            alloc::format!(
                "unexpected `{}` in a CuTe layout",
                &text[start..start + len]
            ),
        ));
    }
    Ok(out)
}

impl<'a> Lexer<'a> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn here(&self) -> (usize, usize) {
        match self.toks.get(self.pos) {
            Some(&(_, s, e)) => (s, e - s),
            None => (self.text.len(), 1),
        }
    }

    fn fail<T>(&self, msg: impl Into<String>) -> Result<T> {
        let (at, len) = self.here();
        Err(error(self.text, at, len, msg))
    }

    fn punct(&mut self, c: char, what: &str) -> Result<()> {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.pos += 1;
            return Ok(());
        }
        self.fail(alloc::format!("expected `{}` {}", c, what))
    }

    fn int(&mut self, what: &str) -> Result<i64> {
        let neg = self.peek() == Some(&Tok::Punct('-'));
        if neg {
            self.pos += 1;
        }
        match self.peek() {
            Some(&Tok::Int(v)) => {
                self.pos += 1;
                Ok(if neg { -v } else { v })
            }
            _ => self.fail(alloc::format!("expected an integer ({})", what)),
        }
    }

    fn word(&mut self, w: &str) -> bool {
        if self.peek() == Some(&Tok::Word(w.into())) {
            self.pos += 1;
            return true;
        }
        false
    }
}

impl<'a> Lexer<'a> {
    /// `8`, `_8`, or `(t, t, ...)` with an optional trailing comma (Python's 1-tuples).
    fn tuple(&mut self, depth: usize) -> Result<IntTuple> {
        if depth > 8 {
            return self.fail("CuTe modes nested more than 8 deep");
        }
        if self.peek() != Some(&Tok::Punct('(')) {
            let (at, len) = self.here();
            let value = self.int("a mode's size or stride")?;
            return Ok(IntTuple::Int { value, at, len });
        }
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            if self.peek() == Some(&Tok::Punct(')')) && !items.is_empty() {
                break;
            }
            items.push(self.tuple(depth + 1)?);
            if self.peek() == Some(&Tok::Punct(',')) {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.punct(')', "to close the tuple")?;
        Ok(IntTuple::Tuple(items))
    }

    /// `Sw<B,M,S>`, `Swizzle<B,M,S>` or pycute's `SW_B_M_S`, then `o`, then CuTe's offset
    /// (`_0 o`, which must be 0), if the text starts with one.
    fn swizzle(&mut self) -> Result<Option<(Swizzle, Option<u32>)>> {
        let sw = match self.peek() {
            Some(Tok::Word(w)) if w == "Sw" || w == "Swizzle" => {
                self.pos += 1;
                self.punct('<', "after Sw (Sw<B, M, S>)")?;
                let b = self.int("B")?;
                self.punct(',', "between B and M")?;
                let m = self.int("M")?;
                self.punct(',', "between M and S")?;
                let s = self.int("S")?;
                self.punct('>', "to close Sw<B, M, S>")?;
                (b, m, s)
            }
            Some(Tok::Word(w)) if w.starts_with("SW_") => {
                let parts: Vec<Option<i64>> = w[3..].split('_').map(|p| p.parse().ok()).collect();
                let [Some(b), Some(m), Some(s)] = parts[..] else {
                    return self.fail("write pycute's swizzle as SW_B_M_S, e.g. SW_3_4_3");
                };
                self.pos += 1;
                (b, m, s)
            }
            _ => return Ok(None),
        };
        if [sw.0, sw.1, sw.2].iter().any(|x| x.abs() > 40) {
            self.pos -= 1;
            return self.fail("a swizzle's B, M and S are at most 40");
        }
        if !self.word("o") {
            return self.fail(
                "expected `o` (composition) after the swizzle: Sw<B, M, S> o (shape):(stride)",
            );
        }
        let mut sw = Swizzle {
            b: sw.0 as i32,
            m: sw.1 as i32,
            s: sw.2 as i32,
        };
        let mut bits = None;
        if self.word("smem_ptr") {
            let log2 = self.smem_ptr_bytes_log2(sw)?;
            sw.m -= log2;
            bits = Some(8 << log2);
        } else if matches!(self.peek(), Some(Tok::Int(_))) {
            if self.int("the offset")? != 0 {
                self.pos -= 1;
                return self.fail("a composed layout's offset must be 0");
            }
            if !self.word("o") {
                return self
                    .fail("expected `o` after the offset: Sw<B, M, S> o _0 o (shape):(stride)");
            }
        }
        Ok(Some((sw, bits)))
    }

    /// CuTe's `smem_ptr[16b](unset) o`: the swizzle acts on byte addresses of 16-bit elements.
    /// Returns log2 of the element's bytes, by which `M` shrinks to count elements.
    fn smem_ptr_bytes_log2(&mut self, sw: Swizzle) -> Result<i32> {
        self.punct('[', "after smem_ptr (smem_ptr[16b])")?;
        let bits = match self.peek() {
            Some(Tok::Word(w)) if w.ends_with('b') => w[..w.len() - 1].parse::<u32>().unwrap_or(0),
            _ => return self.fail("expected the element size in bits, e.g. smem_ptr[16b]"),
        };
        if bits < 8 || !bits.is_power_of_two() || bits.trailing_zeros() - 3 > sw.m as u32 {
            return self.fail(alloc::format!(
                "{} over {}-bit elements: the swizzle must keep whole elements (M at least log2 of the element's bytes)",
                sw, bits));
        }
        self.pos += 1;
        self.punct(']', "to close smem_ptr[...]")?;
        self.punct('(', "after smem_ptr[..] (CuTe prints `(unset)`)")?;
        if matches!(self.peek(), Some(Tok::Word(_)) | Some(Tok::Int(_))) {
            self.pos += 1;
        }
        self.punct(')', "to close smem_ptr[..](...)")?;
        if !self.word("o") {
            return self.fail("expected `o` after smem_ptr[..](unset)");
        }
        Ok(bits.trailing_zeros() as i32 - 3)
    }

    fn layout(&mut self) -> Result<(IntTuple, IntTuple)> {
        let shape = self.tuple(0)?;
        self.punct(':', "between the shape and the stride: (shape):(stride)")?;
        let stride = self.tuple(0)?;
        Ok((shape, stride))
    }
}

/// Whether `text` is written in CuTe's notation (rather than Triton's `#ttg...`).
pub fn looks_like_cute(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with('(')
        || t.starts_with("Sw<")
        || t.starts_with("Swizzle<")
        || t.starts_with("SW_")
        || t.starts_with("tv(")
        || t.starts_with(|c: char| c.is_ascii_digit() || c == '_')
}

/// Parse CuTe's layout text: `[swizzle o [offset o]] (shape):(stride)` (a shared-memory layout)
/// or `tv((shape):(stride))` (a thread-value layout).
pub fn parse_cute(text: &str) -> Result<Cute> {
    let mut lx = Lexer {
        text,
        toks: lex(text)?,
        pos: 0,
    };
    let tv = lx.peek() == Some(&Tok::Word("tv".into()));
    let (kind, swizzle) = if tv {
        lx.pos += 1;
        lx.punct('(', "after tv: tv((thread, value):(stride, stride))")?;
        (Kind::ThreadValue, None)
    } else {
        (Kind::Shared, lx.swizzle()?)
    };
    let (swizzle, smem_ptr_bits) = match swizzle {
        Some((s, bits)) => (Some(s), bits),
        None => (None, None),
    };
    let (shape, stride) = lx.layout()?;
    if tv {
        lx.punct(')', "to close tv(...)")?;
    }
    if lx.pos < lx.toks.len() {
        return lx.fail("unexpected text after the layout");
    }
    Ok(Cute {
        kind,
        swizzle,
        smem_ptr_bits,
        shape,
        stride,
        text: text.into(),
    })
}
