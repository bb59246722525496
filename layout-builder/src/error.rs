//! [`BuildError`]: why a build failed, each with what to do about it.

use std::fmt;
use std::path::Path;

/// Why a build failed.
#[derive(Debug)]
pub enum BuildError {
    /// A tool (`rustup`, `cargo`) could not be run.
    Tool(String),
    /// The crate is not a buildable kernel crate (no manifest, no library target).
    Crate(String),
    /// The nvptx build failed (its errors are on stderr above this).
    Failed(String),
    /// Reading or writing files.
    Io(String),
    /// The PTX calls functions that no crate of the build defines (demangled, with their crate).
    Unresolved(Vec<String>),
    /// The nvptx build failed to compile the crate; rustc's rendered errors.
    Compile(String),
    /// An aligned instruction reached by part of a warp ([`crate::convergence`]).
    Divergent(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Tool(m) => write!(f, "{}; install rustup from https://rustup.rs", m),
            BuildError::Crate(m)
            | BuildError::Failed(m)
            | BuildError::Io(m)
            | BuildError::Divergent(m) => f.write_str(m),
            BuildError::Compile(errors) => {
                f.write_str("the kernel crate does not compile for nvptx64-nvidia-cuda:\n")?;
                // Cargo's progress lines say nothing about the failure.
                errors
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("Compiling "))
                    .try_for_each(|l| writeln!(f, "{}", l))
            }
            BuildError::Unresolved(names) => write!(
                f,
                "the PTX calls functions no crate of the build defines, which ptxas would refuse: {}",
                names.join(", ")
            ),
        }
    }
}

impl std::error::Error for BuildError {}

/// A file operation's error, naming the file.
pub(crate) fn io(p: &Path, e: std::io::Error) -> BuildError {
    BuildError::Io(format!("{}: {}", p.display(), e))
}

#[cfg(test)]
mod tests {
    use super::BuildError;

    #[test]
    fn a_compile_error_says_what_failed_first_then_rustcs_errors() {
        let e = BuildError::Compile(
            "   Compiling my-kernels v0.1.0 (/k)\nerror[E0308]: mismatched types\n  --> src/lib.rs:3:5\n".into(),
        );
        assert_eq!(
            e.to_string(),
            "the kernel crate does not compile for nvptx64-nvidia-cuda:\nerror[E0308]: mismatched types\n  --> src/lib.rs:3:5\n"
        );
    }
}
