//! The one error type of layout-core: what went wrong, in words that name the fix.

use alloc::string::String;
use core::fmt;

/// Why a layout could not be built, parsed or transformed.
///
/// Triton asserts on these conditions; we return them, so that a macro can turn them into a
/// spanned compile error and the CLI into a message and exit status 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutError {
    msg: String,
    key: Option<String>,
    kind: ErrorKind,
    span: Option<Span>,
}

/// A place in the input: 1-based line and column, byte offset and length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in characters).
    pub col: u32,
    /// Byte offset in the parsed text.
    pub offset: usize,
    /// Length in bytes.
    pub len: usize,
}

/// What kind of problem a [`LayoutError`] is, for callers that react to it (a macro choosing
/// where to point, a CLI choosing an exit status) without reading its message.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// An invalid layout or parameter (the key, if any, says which).
    Invalid,
    /// Tensor shapes, ranks, or counts of lanes, warps or CTAs that do not fit together.
    Shape,
    /// An element type the operation does not support.
    Element,
    /// A layout of the wrong kind (a shared layout where a distributed one is needed, ...).
    Kind,
    /// The target lacks what the operation needs (a warp size, cluster memory, ...).
    Target,
    /// A forced conversion strategy cannot do the conversion.
    Strategy,
    /// Text that does not parse.
    Syntax,
    /// A name (`#mma`, a parent layout) that nothing defines.
    UnknownName,
    /// A size beyond what the implementation handles (the message names the limit).
    Limit,
    /// The layout's lanes do not make one warp of the given size; it would with `lanes` lanes per
    /// warp. `alternative`: the message already proposes another fix, so this one is an "or".
    WarpSize {
        /// The warp size that would fit.
        lanes: u32,
        /// Whether the message offers another fix first.
        alternative: bool,
    },
}

impl LayoutError {
    /// An error with this message.
    pub fn new(msg: impl Into<String>) -> Self {
        LayoutError {
            msg: msg.into(),
            key: None,
            kind: ErrorKind::Invalid,
            span: None,
        }
    }

    /// The same error of another kind.
    pub fn with_kind(self, kind: ErrorKind) -> Self {
        LayoutError { kind, ..self }
    }

    /// An error of `kind`.
    pub fn of(kind: ErrorKind, msg: impl Into<String>) -> Self {
        LayoutError {
            kind,
            ..LayoutError::new(msg)
        }
    }

    /// What kind of problem it is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// An error caused by one parameter of an encoding (`threadsPerWarp`), so that a parser or a
    /// macro can point at that key's value rather than at the whole layout.
    pub fn at(key: impl Into<String>, msg: impl Into<String>) -> Self {
        LayoutError {
            msg: msg.into(),
            key: Some(key.into()),
            kind: ErrorKind::Invalid,
            span: None,
        }
    }

    /// The parameter at fault, in Triton's camelCase spelling, if one is.
    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// The same error at a place in the parsed text.
    pub fn with_span(self, span: Span) -> Self {
        LayoutError {
            span: Some(span),
            ..self
        }
    }

    /// Where in the parsed text the problem is, for errors that come from parsing.
    pub fn span(&self) -> Option<Span> {
        self.span
    }

    /// The message, without the fix its kind implies (see `Display` for both).
    pub fn message(&self) -> &str {
        &self.msg
    }
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.msg)?;
        self.kind.write_hint(f)
    }
}

impl ErrorKind {
    /// The fix a kind implies, in words for the CLI and the library (the macros say it in their
    /// own terms: `#[warp_size = N]`).
    pub(crate) fn write_hint(&self, f: &mut impl fmt::Write) -> fmt::Result {
        match self {
            ErrorKind::WarpSize {
                lanes,
                alternative: true,
            } => {
                write!(f, " (or set the warp size to {})", lanes)
            }
            ErrorKind::WarpSize {
                lanes,
                alternative: false,
            } => {
                write!(f, "; set the warp size to {}", lanes)
            }
            _ => Ok(()),
        }
    }
}

impl core::error::Error for LayoutError {}

/// `return Err(LayoutError::new(format!(...)))`; `bail!(kind: Shape, ...)` for another kind.
macro_rules! bail {
    (kind: $kind:ident, $($arg:tt)*) => {
        return Err($crate::LayoutError::of(
            $crate::ErrorKind::$kind,
            alloc::format!($($arg)*),
        ))
    };
    ($($arg:tt)*) => {
        return Err($crate::LayoutError::new(alloc::format!($($arg)*)))
    };
}
pub(crate) use bail;

/// `return Err(LayoutError::at(key, format!(...)))`: an error caused by one parameter.
macro_rules! bail_at {
    ($key:expr; $($arg:tt)*) => {
        return Err($crate::LayoutError::at($key, alloc::format!($($arg)*)))
    };
}
pub(crate) use bail_at;
