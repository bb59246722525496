//! A small lexer over MLIR attribute text that tracks lines and columns.

use alloc::format;
use alloc::string::String;

use super::error::ParseError;

pub use crate::error::Span;

/// One token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// An identifier or keyword (`sizePerThread`, `true`, `tensor`, `f16`, `x`).
    Ident(String),
    /// `#name` or `#dialect.name`.
    Hash(String),
    /// `!dialect.type`.
    Bang(String),
    /// An integer, possibly negative.
    Int(i64),
    /// Punctuation.
    Punct(char),
    /// End of input.
    End,
}

impl Tok {
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("'{}'", s),
            Tok::Hash(s) => format!("'#{}'", s),
            Tok::Bang(s) => format!("'!{}'", s),
            Tok::Int(i) => format!("'{}'", i),
            Tok::Punct(c) => format!("'{}'", c),
            Tok::End => String::from("the end of the input"),
        }
    }
}

/// The lexer, with one token of lookahead.
pub struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    line: u32,
    col: u32,
    peeked: Option<(Tok, Span)>,
}

impl<'a> Lexer<'a> {
    /// Start at line 1, column 1.
    pub fn new(src: &'a str) -> Self {
        Self::new_at(src, 1, 1)
    }
    /// Start at a given line and column (for text cut out of a larger file).
    pub fn new_at(src: &'a str, line: u32, col: u32) -> Self {
        Lexer {
            src,
            pos: 0,
            line,
            col,
            peeked: None,
        }
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.src[self.pos..].chars().next()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn cur(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    /// Skip whitespace and `//` comments.
    fn skip_trivia(&mut self) {
        while let Some(c) = self.cur() {
            if c.is_whitespace() {
                self.bump();
            } else if self.src[self.pos..].starts_with("//") {
                while self.cur().is_some_and(|c| c != '\n') {
                    self.bump();
                }
            } else {
                break;
            }
        }
    }

    /// Take characters while `f` holds; the text taken.
    fn take_while(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        let s = self.pos;
        while self.cur().is_some_and(&f) {
            self.bump();
        }
        &self.src[s..self.pos]
    }

    /// The next token, after any whitespace and comments.
    fn lex(&mut self) -> Result<(Tok, Span), ParseError> {
        self.skip_trivia();
        let start = Span {
            line: self.line,
            col: self.col,
            offset: self.pos,
            len: 0,
        };
        let Some(c) = self.cur() else {
            return Ok((Tok::End, start));
        };
        let tok = if c == '#' || c == '!' {
            self.lex_sigil(c, start)?
        } else if c.is_ascii_digit()
            || (c == '-' && self.src[self.pos + 1..].starts_with(|d: char| d.is_ascii_digit()))
        {
            self.lex_int(start)?
        } else if c.is_ascii_alphabetic() || c == '_' {
            // Identifiers stop at '.' only for shape literals like 64x16xf16; keep dots inside.
            Tok::Ident(String::from(self.take_while(is_word)))
        } else if "<>{}[]()=,:+".contains(c) {
            self.bump();
            Tok::Punct(c)
        } else {
            return Err(ParseError::new(
                Span {
                    len: c.len_utf8(),
                    ..start
                },
                format!("unexpected character '{}'", c),
            ));
        };
        Ok((
            tok,
            Span {
                len: self.pos - start.offset,
                ..start
            },
        ))
    }

    /// `#name` or `!name` (`c` is the sigil, not yet taken).
    fn lex_sigil(&mut self, c: char, start: Span) -> Result<Tok, ParseError> {
        self.bump();
        let name = String::from(self.take_while(is_word));
        if name.is_empty() {
            return Err(ParseError::new(
                start,
                format!("expected a name after '{}'", c),
            ));
        }
        Ok(if c == '#' {
            Tok::Hash(name)
        } else {
            Tok::Bang(name)
        })
    }

    /// An integer, possibly negative; an error if it does not fit `i64`.
    fn lex_int(&mut self, start: Span) -> Result<Tok, ParseError> {
        let s = self.pos;
        self.bump();
        self.take_while(|d| d.is_ascii_digit());
        let text = &self.src[s..self.pos];
        match text.parse::<i64>() {
            Ok(v) => Ok(Tok::Int(v)),
            Err(_) => Err(ParseError::new(
                Span {
                    len: self.pos - s,
                    ..start
                },
                format!("integer {} is out of range", text),
            )),
        }
    }

    /// Look at the next token without taking it.
    pub fn peek(&mut self) -> Result<(Tok, Span), ParseError> {
        let t = match self.peeked.take() {
            Some(t) => t,
            None => self.lex()?,
        };
        self.peeked = Some(t.clone());
        Ok(t)
    }

    /// Take the next token.
    pub fn next_tok(&mut self) -> Result<(Tok, Span), ParseError> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.lex(),
        }
    }

    /// Take `c` or fail saying what came instead.
    pub fn expect_punct(&mut self, c: char) -> Result<Span, ParseError> {
        let (t, s) = self.next_tok()?;
        if t == Tok::Punct(c) {
            Ok(s)
        } else {
            Err(ParseError::new(
                s,
                format!("expected '{}', found {}", c, t.describe()),
            ))
        }
    }

    /// Take `c` if it comes next.
    pub fn eat(&mut self, c: char) -> Result<bool, ParseError> {
        if self.peek()?.0 == Tok::Punct(c) {
            self.next_tok()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// Fail unless the input is used up.
    pub fn expect_end(&mut self) -> Result<(), ParseError> {
        let (t, s) = self.next_tok()?;
        if t == Tok::End {
            Ok(())
        } else {
            Err(ParseError::new(
                s,
                format!("unexpected {} after the end of the layout", t.describe()),
            ))
        }
    }
}

/// Characters of names and identifiers (dots included: `ttg.blocked`, `64x16xf16`'s tail).
fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$'
}
