//! Every kernel of `kernels` and `kernels-spirv` is safe code: no `unsafe` written in their
//! sources (the `#[kernel]` entries make views and partitions in the macro's own `unsafe`,
//! under the launcher's checks). `#![deny(unsafe_code)]` in both crates stops an `unsafe`
//! block; this also stops one written under `#[allow(unsafe_code)]`.

use std::path::Path;

/// The code of `src` without its comments and string literals (a token `unsafe` in either is
/// not code).
fn code(src: &str) -> String {
    let (mut out, mut chars) = (String::new(), src.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('"', _) => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    match (c, escaped) {
                        ('"', false) => break,
                        ('\\', false) => escaped = true,
                        _ => escaped = false,
                    }
                }
                out.push_str("\"\"");
            }
            _ => out.push(c),
        }
    }
    out
}

/// The lines of `src` with `unsafe` code (`file` names them).
fn unsafe_in(file: &str, src: &str) -> Vec<String> {
    let code = code(src);
    let lines: Vec<&str> = code.lines().map(str::trim).collect();
    let mut found = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let mut words = line.split(|c: char| !(c.is_alphanumeric() || c == '_'));
        // `no_mangle` is the one `unsafe_code` attribute allowed (the index-math pairs' PTX
        // symbols): no code of its own.
        let no_mangle =
            *line == "#[allow(unsafe_code)]" && lines.get(n + 1) == Some(&"#[no_mangle]");
        let denied = *line == "#![deny(unsafe_code)]";
        if !no_mangle && !denied && words.any(|w| w == "unsafe" || w == "unsafe_code") {
            found.push(format!("{}:{}: {}", file, n + 1, line));
        }
    }
    found
}

#[test]
fn the_kernels_are_safe_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for dir in [root.join("src"), root.join("../kernels-spirv/src")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs") {
                let src = std::fs::read_to_string(&path).unwrap();
                found.extend(unsafe_in(&path.display().to_string(), &src));
            }
        }
    }
    assert!(
        found.is_empty(),
        "unsafe code in the kernels:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_finds_unsafe_code() {
    let src = "#![deny(unsafe_code)]\n// unsafe in a comment\nlet s = \"unsafe\";\n#[allow(unsafe_code)]\n#[no_mangle]\nfn f() {}\n#[allow(unsafe_code)]\nfn g() { unsafe { h() } }\n";
    assert_eq!(
        unsafe_in("k.rs", src),
        [
            "k.rs:7: #[allow(unsafe_code)]",
            "k.rs:8: fn g() { unsafe { h() } }"
        ]
    );
}
