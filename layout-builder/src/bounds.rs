//! Launch bounds: `#[kernel(block = .., min_blocks = N)]` leaves a marker static,
//! `__launch_bounds__<entry>` = `[x, y, z, N]` as four `u32`s, because rustc cannot write an
//! entry's performance directives. Here each marker becomes its entry's `.maxntid x, y, z` and
//! `.minnctapersm N` (what nvcc writes for `__launch_bounds__`), and the marker is removed, so
//! the module ptxas sees is the one nvcc would have written.

use crate::error::BuildError;

const PREFIX: &str = "__launch_bounds__";

/// `ptx` with every marker turned into its entry's directives; an error names a marker whose
/// entry is missing or whose value cannot be read.
pub fn apply(ptx: &str) -> Result<String, BuildError> {
    let mut bounds = Vec::new();
    let mut kept = Vec::new();
    for line in ptx.lines() {
        match marker(line) {
            Some(Ok(b)) => bounds.push(b),
            Some(Err(e)) => return Err(e),
            // The `// .globl` comment rustc writes before the marker goes with it.
            None if is_marker_comment(line) => {}
            None => kept.push(line),
        }
    }
    let mut out = kept.join("\n");
    if ptx.ends_with('\n') {
        out.push('\n');
    }
    for (entry, [x, y, z, n]) in bounds {
        out = insert(
            &out,
            &entry,
            &format!(".maxntid {x}, {y}, {z}\n.minnctapersm {n}\n"),
        )?;
    }
    Ok(out)
}

fn is_marker_comment(line: &str) -> bool {
    line.trim()
        .strip_prefix("// .globl")
        .is_some_and(|r| r.trim().starts_with(PREFIX))
}

/// The entry and values of a marker's declaration, e.g.
/// `.visible .global .align 4 .b8 __launch_bounds__k[16] = {128, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 3};`
/// (LLVM writes the bytes, leaving out trailing zeros) or the same as `.u32 ..[4] = {128, 1, 1, 3}`.
fn marker(line: &str) -> Option<Result<(String, [u32; 4]), BuildError>> {
    let t = line.trim();
    if !t.starts_with(".visible .global") && !t.starts_with(".global") {
        return None;
    }
    let at = t.find(PREFIX)?;
    let rest = &t[at + PREFIX.len()..];
    let entry = rest.split('[').next()?.to_string();
    let bad = || {
        BuildError::Failed(format!(
            "the launch bounds of `{entry}` are not four 32-bit numbers in the PTX: `{t}`"
        ))
    };
    let body = t
        .split_once('{')
        .and_then(|(_, b)| b.split_once('}'))
        .map(|(b, _)| b);
    let nums: Option<Vec<u32>> =
        body.and_then(|b| b.split(',').map(|n| n.trim().parse().ok()).collect());
    let Some(nums) = nums else {
        return Some(Err(bad()));
    };
    let words: Vec<u32> = if t.contains(".b8 ") || t.contains(".u8 ") {
        let mut bytes = nums;
        bytes.resize(16, 0);
        bytes
            .chunks(4)
            .map(|c| c.iter().rev().fold(0, |w, &b| w << 8 | b))
            .collect()
    } else {
        let mut w = nums;
        w.resize(4, 0);
        w
    };
    match <[u32; 4]>::try_from(words) {
        Ok(v) if v.iter().all(|&x| x > 0) => Some(Ok((entry, v))),
        _ => Some(Err(bad())),
    }
}

/// `ptx` with `directives` between entry `name`'s parameter list and its body.
fn insert(ptx: &str, name: &str, directives: &str) -> Result<String, BuildError> {
    let missing = || {
        BuildError::Failed(format!(
            "launch bounds name the entry `{name}`, which the PTX does not define"
        ))
    };
    let head = format!(".entry {name}(");
    let start = ptx.find(&head).ok_or_else(missing)?;
    // The parameter list holds no parentheses of its own.
    let close = ptx[start + head.len()..].find(')').ok_or_else(missing)? + start + head.len();
    let brace = ptx[close..].find('{').ok_or_else(missing)? + close;
    Ok(format!(
        "{}\n{}{}",
        ptx[..close + 1].trim_end(),
        directives,
        &ptx[brace..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "\
.version 8.7
.target sm_90a
.address_size 64

\t// .globl\tk
\t// .globl\t__launch_bounds__k
.visible .global .align 4 .b8 __launch_bounds__k[16] = {128, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 3};

.visible .entry k(
\t.param .u64 k_param_0
)
{
\tret;
}
";

    #[test]
    fn a_marker_becomes_the_entrys_directives() {
        let out = apply(PTX).unwrap();
        assert!(!out.contains(PREFIX), "{out}");
        assert!(
            out.contains(".param .u64 k_param_0\n)\n.maxntid 128, 1, 1\n.minnctapersm 3\n{"),
            "{out}"
        );
        assert!(out.contains("// .globl\tk\n"));
    }

    #[test]
    fn words_and_bytes_read_alike() {
        let w = ".visible .global .align 4 .u32 __launch_bounds__k[4] = {64, 2, 1, 4};";
        let b = ".visible .global .align 4 .b8 __launch_bounds__k[16] = {64, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 4};";
        let v = |l: &str| marker(l).unwrap().unwrap();
        assert_eq!(v(w), ("k".to_string(), [64, 2, 1, 4]));
        assert_eq!(v(b), v(w));
        // 256 threads: a byte past the first.
        let big = ".visible .global .align 4 .b8 __launch_bounds__k[16] = {0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2};";
        assert_eq!(v(big).1, [256, 1, 1, 2]);
    }

    #[test]
    fn a_module_without_markers_is_unchanged() {
        let plain = PTX.replace(
            "\t// .globl\t__launch_bounds__k\n.visible .global .align 4 .b8 __launch_bounds__k[16] = {128, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 3};\n",
            "",
        );
        assert_eq!(apply(&plain).unwrap(), plain);
    }

    #[test]
    fn a_marker_without_its_entry_or_value_is_an_error() {
        let orphan = PTX.replace(".entry k(", ".entry other(");
        let e = apply(&orphan).unwrap_err().to_string();
        assert!(e.contains("`k`"), "{e}");
        let zero = PTX.replace("{128, 0, 0, 0, 1,", "{0, 0, 0, 0, 1,");
        let e = apply(&zero).unwrap_err().to_string();
        assert!(e.contains("four 32-bit numbers"), "{e}");
        let declared = ".visible .global .align 4 .b8 __launch_bounds__k[16];";
        let e = marker(declared).expect("a marker").unwrap_err().to_string();
        assert!(e.contains("four 32-bit numbers"), "{e}");
    }
}
