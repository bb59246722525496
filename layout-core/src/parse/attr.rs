//! A value tree for MLIR attribute syntax (the subset layouts use) and its parser.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::error::ParseError;
use super::lexer::{Lexer, Span, Tok};

/// Named attribute aliases (`#mma = ...`), in definition order.
#[derive(Clone, Debug, Default)]
pub struct Aliases {
    entries: Vec<(String, Attr, String)>,
}

impl Aliases {
    /// No aliases.
    pub fn new() -> Self {
        Self::default()
    }
    /// Look one up by name (without `#`).
    pub fn get(&self, name: &str) -> Option<&Attr> {
        self.entries
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, a, _)| a)
    }
    /// Names in definition order, with the source text of each definition.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Attr, &str)> {
        self.entries
            .iter()
            .map(|(n, a, t)| (n.as_str(), a, t.as_str()))
    }
    /// Define or redefine.
    pub fn insert(&mut self, name: String, attr: Attr, text: String) {
        self.entries.retain(|(n, _, _)| *n != name);
        self.entries.push((name, attr, text));
    }
}

/// A parsed attribute value with its place in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attr {
    /// The value.
    pub kind: AttrKind,
    /// Where it was written.
    pub span: Span,
}

/// The kinds of attribute values layouts use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttrKind {
    /// An integer (`4`, `4 : i32`).
    Int(i64),
    /// `true` / `false`.
    Bool(bool),
    /// `[a, b, ...]`.
    Array(Vec<Attr>),
    /// `{key = value, ...}`; keys keep their spans.
    Dict(Vec<(String, Span, Attr)>),
    /// `#dialect.name<...>`: the mnemonic (without dialect), then the body.
    Layout {
        /// `blocked`, `nvidia_mma`, ...
        name: String,
        /// The dialect prefix as written (`ttg`, `triton_gpu`).
        dialect: String,
        /// The `<...>` body.
        body: Vec<Attr>,
    },
    /// `[interval:+padding, ...]` of padded_shared.
    Paddings(Vec<(i64, i64)>),
    /// A bare keyword assignment inside a layout body: `alignment = 16`.
    Keyword(String, Box<Attr>),
    /// An enum value: `kThenMn`.
    Word(String),
}

pub(crate) fn err<T>(span: Span, msg: String) -> Result<T, ParseError> {
    Err(ParseError::new(span, msg))
}

/// The span from the start of `a` to the end of `b`.
pub(crate) fn span_to(a: Span, b: Span) -> Span {
    Span {
        len: (b.offset + b.len).saturating_sub(a.offset),
        ..a
    }
}

/// A copy of an aliased attribute whose spans all point at the reference (`#mma`): its own spans
/// belong to the alias definition's text, not to the text being parsed.
fn respan(a: &Attr, at: Span) -> Attr {
    let kind = match &a.kind {
        AttrKind::Array(v) => AttrKind::Array(v.iter().map(|x| respan(x, at)).collect()),
        AttrKind::Dict(d) => AttrKind::Dict(
            d.iter()
                .map(|(k, _, v)| (k.clone(), at, respan(v, at)))
                .collect(),
        ),
        AttrKind::Layout {
            name,
            dialect,
            body,
        } => AttrKind::Layout {
            name: name.clone(),
            dialect: dialect.clone(),
            body: body.iter().map(|x| respan(x, at)).collect(),
        },
        AttrKind::Keyword(k, v) => AttrKind::Keyword(k.clone(), Box::new(respan(v, at))),
        other => other.clone(),
    };
    Attr { kind, span: at }
}

impl Attr {
    /// The span of `key = value` for the first dictionary entry named `key` (camelCase or
    /// snake_case), searching nested layouts too: where an error caused by that key points.
    pub fn key_span(&self, key: &str) -> Option<Span> {
        match &self.kind {
            AttrKind::Dict(d) => d.iter().find_map(|(k, ks, v)| {
                if super::keys::canonical_key(k) == key {
                    Some(span_to(*ks, v.span))
                } else {
                    v.key_span(key)
                }
            }),
            AttrKind::Layout { body, .. } => body.iter().find_map(|b| b.key_span(key)),
            AttrKind::Array(v) => v.iter().find_map(|b| b.key_span(key)),
            AttrKind::Keyword(k, v) => {
                if super::keys::canonical_key(k) == key {
                    Some(span_to(self.span, v.span))
                } else {
                    v.key_span(key)
                }
            }
            _ => None,
        }
    }
}

/// Parse one attribute: a layout (`#ttg.x<...>`), an alias reference, a dict, array or scalar.
pub fn parse_attr(p: &mut Lexer, aliases: &Aliases) -> Result<Attr, ParseError> {
    let (t, s) = p.next_tok()?;
    match t {
        Tok::Int(v) => {
            // Optional type suffix: `4 : i32`.
            if p.peek()?.0 == Tok::Punct(':') {
                p.next_tok()?;
                let (ty, ts) = p.next_tok()?;
                if !matches!(ty, Tok::Ident(_)) {
                    return err(
                        ts,
                        format!(
                            "expected an integer type after ':', found {}",
                            ty.describe()
                        ),
                    );
                }
            }
            Ok(Attr {
                kind: AttrKind::Int(v),
                span: s,
            })
        }
        Tok::Ident(w) if w == "true" || w == "false" => Ok(Attr {
            kind: AttrKind::Bool(w == "true"),
            span: s,
        }),
        Tok::Ident(w) if w.starts_with(|c: char| c.is_ascii_alphabetic()) => Ok(Attr {
            kind: AttrKind::Word(w),
            span: s,
        }),
        Tok::Punct('[') => parse_array(p, aliases, s),
        Tok::Punct('{') => parse_dict(p, aliases, s),
        Tok::Hash(name) => {
            if let Some((dialect, mnemonic)) = name.split_once('.') {
                if !matches!(dialect, "ttg" | "triton_gpu" | "ttng" | "triton_nvidia_gpu") {
                    return err(
                        s,
                        format!(
                            "unknown dialect '{}': layouts are written #ttg.<name><...>",
                            dialect
                        ),
                    );
                }
                let (body, end) = parse_layout_body(p, aliases, mnemonic)?;
                Ok(Attr {
                    kind: AttrKind::Layout {
                        name: String::from(mnemonic),
                        dialect: String::from(dialect),
                        body,
                    },
                    span: span_to(s, end.unwrap_or(s)),
                })
            } else {
                match aliases.get(&name) {
                    Some(a) => Ok(respan(a, s)),
                    None => {
                        let known: Vec<&str> = aliases.iter().map(|(n, _, _)| n).collect();
                        let hint = if known.is_empty() {
                            String::from("no aliases are defined (pass them with -i FILE)")
                        } else {
                            format!("defined aliases: #{}", known.join(", #"))
                        };
                        err(s, format!("unknown alias '#{}'; {}", name, hint))
                            .map_err(|e| e.with_kind(crate::ErrorKind::UnknownName))
                    }
                }
            }
        }
        other => err(
            s,
            format!(
                "expected a layout attribute, array, dictionary or number, found {}",
                other.describe()
            ),
        ),
    }
}

fn parse_array(p: &mut Lexer, aliases: &Aliases, open: Span) -> Result<Attr, ParseError> {
    let mut items = Vec::new();
    let mut end;
    if p.peek()?.0 == Tok::Punct(']') {
        end = p.next_tok()?.1;
    } else {
        loop {
            items.push(parse_attr(p, aliases)?);
            let (t, s) = p.next_tok()?;
            end = s;
            match t {
                Tok::Punct(',') => continue,
                Tok::Punct(']') => break,
                other => {
                    return err(
                        s,
                        format!(
                            "expected ',' or ']' in an array, found {}",
                            other.describe()
                        ),
                    )
                }
            }
        }
    }
    Ok(Attr {
        kind: AttrKind::Array(items),
        span: span_to(open, end),
    })
}

fn parse_dict(p: &mut Lexer, aliases: &Aliases, open: Span) -> Result<Attr, ParseError> {
    let mut items: Vec<(String, Span, Attr)> = Vec::new();
    let mut end;
    if p.peek()?.0 == Tok::Punct('}') {
        end = p.next_tok()?.1;
    } else {
        loop {
            let (t, ks) = p.next_tok()?;
            let key = match t {
                Tok::Ident(k) => k,
                other => {
                    return err(
                        ks,
                        format!("expected a key name, found {}", other.describe()),
                    )
                }
            };
            if items.iter().any(|(k, _, _)| *k == key) {
                return err(ks, format!("duplicate key '{}'", key));
            }
            p.expect_punct('=')?;
            let v = parse_attr(p, aliases)?;
            items.push((key, ks, v));
            let (t, s) = p.next_tok()?;
            end = s;
            match t {
                Tok::Punct(',') => continue,
                Tok::Punct('}') => break,
                other => {
                    return err(
                        s,
                        format!(
                            "expected ',' or '}}' in a dictionary, found {}",
                            other.describe()
                        ),
                    )
                }
            }
        }
    }
    Ok(Attr {
        kind: AttrKind::Dict(items),
        span: span_to(open, end),
    })
}

fn parse_layout_body(
    p: &mut Lexer,
    aliases: &Aliases,
    mnemonic: &str,
) -> Result<(Vec<Attr>, Option<Span>), ParseError> {
    if mnemonic == "shared_memory" || mnemonic == "tensor_memory" {
        return Ok((Vec::new(), None));
    }
    p.expect_punct('<')?;
    let mut body = Vec::new();
    let end;
    loop {
        let (t, s) = p.peek()?;
        match t {
            Tok::Punct('>') => {
                end = p.next_tok()?.1;
                break;
            }
            Tok::Punct(',') if !body.is_empty() => {
                p.next_tok()?;
            }
            Tok::Punct('[') if mnemonic == "padded_shared" && body.is_empty() => {
                p.next_tok()?;
                body.push(parse_paddings(p, s)?);
            }
            Tok::Ident(k) if k != "true" && k != "false" => {
                p.next_tok()?;
                p.expect_punct('=')?;
                let v = parse_attr(p, aliases)?;
                body.push(Attr {
                    kind: AttrKind::Keyword(k, Box::new(v)),
                    span: s,
                });
            }
            Tok::End => return err(s, format!("expected '>' to close #ttg.{}<...>", mnemonic)),
            _ => body.push(parse_attr(p, aliases)?),
        }
    }
    Ok((body, Some(end)))
}

fn parse_paddings(p: &mut Lexer, open: Span) -> Result<Attr, ParseError> {
    let mut v = Vec::new();
    loop {
        let (t, s) = p.next_tok()?;
        let Tok::Int(interval) = t else {
            return err(
                s,
                format!("expected an interval like 32:+4, found {}", t.describe()),
            );
        };
        p.expect_punct(':')?;
        p.expect_punct('+')?;
        let (t, s) = p.next_tok()?;
        let Tok::Int(pad) = t else {
            return err(
                s,
                format!("expected a padding after ':+', found {}", t.describe()),
            );
        };
        v.push((interval, pad));
        let (t, s) = p.next_tok()?;
        match t {
            Tok::Punct(',') => continue,
            Tok::Punct(']') => break,
            other => {
                return err(
                    s,
                    format!(
                        "expected ',' or ']' after interval:+padding, found {}",
                        other.describe()
                    ),
                )
            }
        }
    }
    Ok(Attr {
        kind: AttrKind::Paddings(v),
        span: open,
    })
}
