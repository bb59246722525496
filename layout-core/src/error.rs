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
}

impl LayoutError {
    /// An error with this message.
    pub fn new(msg: impl Into<String>) -> Self {
        LayoutError {
            msg: msg.into(),
            key: None,
        }
    }

    /// An error caused by one parameter of an encoding (`threadsPerWarp`), so that a parser or a
    /// macro can point at that key's value rather than at the whole layout.
    pub fn at(key: impl Into<String>, msg: impl Into<String>) -> Self {
        LayoutError {
            msg: msg.into(),
            key: Some(key.into()),
        }
    }

    /// The parameter at fault, in Triton's camelCase spelling, if one is.
    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.msg
    }
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.msg)
    }
}

impl core::error::Error for LayoutError {}

/// `return Err(LayoutError::new(format!(...)))`.
macro_rules! bail {
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
