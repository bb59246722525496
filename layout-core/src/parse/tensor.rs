//! Tensor and memdesc types (`tensor<64x16xf16, #enc>`, `!ttg.memdesc<...>`): the shape and
//! element from the syntax, the encoding solved by the encodings layer.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::attr::{err, parse_attr};
use super::lexer::{Lexer, Tok};
use super::{Aliases, ParseError, TensorType};

/// Parse `tensor<AxBxT[, enc]>` or `!ttg.memdesc<AxBxT, enc, ...>`.
pub fn parse_tensor_type(p: &mut Lexer, aliases: &Aliases) -> Result<TensorType, ParseError> {
    let (t, s) = p.next_tok()?;
    let memdesc = match &t {
        Tok::Ident(w) if w == "tensor" => false,
        Tok::Bang(w) if w.ends_with("memdesc") => true,
        other => {
            return err(
                s,
                format!(
                    "expected a tensor type like tensor<64x16xf16>, found {}",
                    other.describe()
                ),
            )
        }
    };
    p.expect_punct('<')?;
    let mut shape = Vec::new();
    let element;
    // Shape: INT (x INT)* x TYPE. The lexer reads `64` then `x16xf16` as one identifier.
    loop {
        let (t, s) = p.next_tok()?;
        match t {
            Tok::Int(v) => {
                if v <= 0 {
                    return err(s, format!("tensor dimension {} must be positive", v));
                }
                shape.push(v);
            }
            Tok::Ident(w) if w.starts_with('x') => {
                let mut parts = w[1..].split('x').peekable();
                let mut elem = None;
                while let Some(part) = parts.next() {
                    if parts.peek().is_none()
                        && !part.is_empty()
                        && !part.chars().all(|c| c.is_ascii_digit())
                    {
                        elem = Some(String::from(part));
                    } else if let Ok(v) = part.parse::<i64>() {
                        if v <= 0 {
                            return err(s, format!("tensor dimension {} must be positive", v));
                        }
                        shape.push(v);
                    } else if !part.is_empty() {
                        return err(
                            s,
                            format!("expected a dimension or element type, found '{}'", part),
                        );
                    }
                }
                match elem {
                    Some(e) => {
                        element = e;
                        break;
                    }
                    None => {
                        // `64x!tt.ptr<f16>`: the element type follows as its own token.
                        let (t2, s2) = p.next_tok()?;
                        match t2 {
                            Tok::Bang(b) => {
                                let from = s2.offset;
                                p.expect_punct('<')?;
                                let (inner, _) = p.next_tok()?;
                                p.expect_punct('>')?;
                                let _ = from;
                                element = format!(
                                    "!{}<{}>",
                                    b,
                                    match inner {
                                        Tok::Ident(i) => i,
                                        _ => String::new(),
                                    }
                                );
                                break;
                            }
                            other => {
                                return err(
                                    s2,
                                    format!("expected an element type, found {}", other.describe()),
                                )
                            }
                        }
                    }
                }
            }
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
    let mut encoding = None;
    if p.eat(',')? {
        let a = parse_attr(p, aliases)?;
        encoding = Some(super::encoding::encoding_from_attr(&a)?);
        if memdesc {
            // Skip the memory space and flags (`#smem, mutable`).
            while p.eat(',')? {
                p.next_tok()?;
            }
        }
    }
    p.expect_punct('>')?;
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
    Ok(TensorType {
        shape,
        element,
        encoding,
    })
}
