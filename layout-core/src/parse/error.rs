//! The parser's error: what is wrong and what was expected, at a place in the text.

use alloc::string::String;
use core::fmt;

use crate::error::Span;

/// A parse or validation error at a place in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong and what was expected.
    pub message: String,
    /// Where.
    pub span: Span,
    /// What kind of problem (`Syntax` for text that does not parse).
    pub kind: crate::ErrorKind,
}

impl ParseError {
    pub(crate) fn new(span: Span, message: impl Into<String>) -> Self {
        ParseError {
            message: message.into(),
            span,
            kind: crate::ErrorKind::Syntax,
        }
    }

    /// The same error of another kind.
    pub(crate) fn with_kind(self, kind: crate::ErrorKind) -> Self {
        ParseError { kind, ..self }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.span.line, self.span.col, self.message
        )?;
        self.kind.write_hint(f)
    }
}

impl core::error::Error for ParseError {}

impl From<ParseError> for crate::LayoutError {
    fn from(e: ParseError) -> Self {
        crate::LayoutError::of(
            e.kind,
            alloc::format!("line {}, column {}: {}", e.span.line, e.span.col, e.message),
        )
        .with_span(e.span)
    }
}
