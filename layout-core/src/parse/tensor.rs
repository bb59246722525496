//! Tensor and memdesc types (`tensor<64x16xf16, #enc>`, `!ttg.memdesc<...>`): the shape and
//! element from the syntax, the encoding solved by the encodings layer.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::attr::{err, parse_attr};
use super::lexer::{Lexer, Span, Tok};
use super::{Aliases, ParseError, TensorType};

/// Parse `tensor<AxBxT[, enc]>` or `!ttg.memdesc<AxBxT, enc, ...>`.
pub fn parse_tensor_type(p: &mut Lexer, aliases: &Aliases) -> Result<TensorType, ParseError> {
    let (memdesc, s) = type_keyword(p)?;
    p.expect_punct('<')?;
    let (shape, element) = parse_shape(p)?;
    let mut encoding = None;
    let mut alloc_shape = Vec::new();
    if p.eat(',')? {
        let a = parse_attr(p, aliases)?;
        encoding = Some(super::encoding_from_attr(&a)?);
        if memdesc {
            // The memory space and flags (`#smem, mutable`), and a subview's allocation shape
            // (`128x32`).
            while p.eat(',')? {
                if let (Tok::Int(v), s) = p.next_tok()? {
                    alloc_shape.push(positive_dim(v, s)?);
                    if let (Tok::Ident(w), s) = p.peek()? {
                        p.next_tok()?;
                        if shape_word(w.trim_start_matches('x'), s, &mut alloc_shape)?.is_some() {
                            return err(
                                s,
                                format!("expected an allocation shape like 128x32, found '{}'", w),
                            );
                        }
                    }
                }
            }
        }
    }
    p.expect_punct('>')?;
    check_rank(&shape, s)?;
    Ok(TensorType {
        shape,
        element,
        encoding,
        alloc_shape,
    })
}

/// `tensor` or `!ttg.memdesc` (true for a memdesc), and where it is.
fn type_keyword(p: &mut Lexer) -> Result<(bool, Span), ParseError> {
    let (t, s) = p.next_tok()?;
    match &t {
        Tok::Ident(w) if w == "tensor" => Ok((false, s)),
        Tok::Bang(w) if w.ends_with("memdesc") => Ok((true, s)),
        other => err(
            s,
            format!(
                "expected a tensor type like tensor<64x16xf16>, found {}",
                other.describe()
            ),
        ),
    }
}

/// The shape and element type: INT (x INT)* x TYPE. The lexer reads `64` then `x16xf16` as one
/// identifier.
fn parse_shape(p: &mut Lexer) -> Result<(Vec<i64>, String), ParseError> {
    let mut shape = Vec::new();
    loop {
        let (t, s) = p.next_tok()?;
        match t {
            Tok::Int(v) => shape.push(positive_dim(v, s)?),
            Tok::Ident(w) if w.starts_with('x') => match shape_word(&w[1..], s, &mut shape)? {
                Some(e) => return Ok((shape, e)),
                // `64x!tt.ptr<f16>`: the element type follows as its own token.
                None => return Ok((shape, pointer_element(p)?)),
            },
            other => {
                return err(
                    s,
                    format!(
                        "expected a shape like 64x16xf16, found {}",
                        other.describe()
                    ),
                )
            }
        }
    }
}

/// A tensor dimension as written: positive, else an error at `s`.
fn positive_dim(v: i64, s: Span) -> Result<i64, ParseError> {
    if v <= 0 {
        return err(s, format!("tensor dimension {} must be positive", v));
    }
    Ok(v)
}

/// The `16xf16` of `x16xf16`: its dimensions go to `shape`; the element type if it ends with one.
fn shape_word(word: &str, s: Span, shape: &mut Vec<i64>) -> Result<Option<String>, ParseError> {
    let mut parts = word.split('x').peekable();
    let mut elem = None;
    while let Some(part) = parts.next() {
        if parts.peek().is_none() && !part.is_empty() && !part.chars().all(|c| c.is_ascii_digit()) {
            elem = Some(String::from(part));
        } else if let Ok(v) = part.parse::<i64>() {
            shape.push(positive_dim(v, s)?);
        } else if !part.is_empty() {
            return err(
                s,
                format!("expected a dimension or element type, found '{}'", part),
            );
        }
    }
    Ok(elem)
}

/// An element type written as its own token after the shape: `!tt.ptr<f16>`.
fn pointer_element(p: &mut Lexer) -> Result<String, ParseError> {
    let (t, s) = p.next_tok()?;
    let Tok::Bang(b) = t else {
        return err(
            s,
            format!("expected an element type, found {}", t.describe()),
        );
    };
    p.expect_punct('<')?;
    let (inner, _) = p.next_tok()?;
    p.expect_punct('>')?;
    Ok(format!(
        "!{}<{}>",
        b,
        match inner {
            Tok::Ident(i) => i,
            _ => String::new(),
        }
    ))
}

/// A shape of 1 to [`MAX_RANK`](super::keys::MAX_RANK) dims, else an error at the type (`s`).
fn check_rank(shape: &[i64], s: Span) -> Result<(), ParseError> {
    if shape.len() > super::keys::MAX_RANK {
        return err(
            s,
            format!(
                "a tensor of rank {} is too large: at most {} dims",
                shape.len(),
                super::keys::MAX_RANK
            ),
        );
    }
    if shape.is_empty() {
        return err(
            s,
            String::from("a tensor type needs a shape, e.g. tensor<64x16xf16>"),
        );
    }
    Ok(())
}
