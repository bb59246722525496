//! The kernels through ptxas: every entry assembles for sm_90a with no stack frame or spill and
//! no serialised wgmma, and the entries built with launch bounds (`#[kernel(min_blocks = ..)]`) carry them and fit the
//! CTAs they ask for.

use std::path::Path;
use std::process::Command;

/// Entries with launch bounds: `(entry, .maxntid, .minnctapersm)`.
pub const LAUNCH_BOUNDS: &[(&str, [u32; 3], u32)] = &[
    ("attention_bf16", [128, 1, 1], 4),
    ("attention_d128_bf16", [128, 1, 1], 3),
    ("attention_d128_f16", [128, 1, 1], 3),
    ("attention_f16", [128, 1, 1], 4),
];

/// What ptxas reports of one entry.
#[derive(Debug, Default)]
struct Entry {
    name: String,
    /// `None` where the log has no readable count.
    registers: Option<u32>,
    /// Stack frame, spill stores and spill loads, in bytes.
    local: [u32; 3],
}

/// `(entry, [x, y, z], min CTAs)` of every entry that carries `.maxntid` and `.minnctapersm`.
fn bounds_in(ptx: &str) -> Vec<(String, [u32; 3], u32)> {
    let mut out = Vec::new();
    let mut entry: Option<(String, Option<[u32; 3]>)> = None;
    for line in ptx.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix(".visible .entry ") {
            entry = rest.split('(').next().map(|n| (n.to_string(), None));
        } else if let (Some(v), Some((_, ntid))) = (t.strip_prefix(".maxntid "), entry.as_mut()) {
            let n: Vec<u32> = v.split(',').filter_map(|x| x.trim().parse().ok()).collect();
            *ntid = <[u32; 3]>::try_from(n).ok();
        } else if let Some(v) = t.strip_prefix(".minnctapersm ") {
            if let Some((name, Some(ntid))) = entry.take() {
                out.push((name, ntid, v.trim().parse().unwrap_or(0)));
            }
        } else if t == "{" {
            entry = None;
        }
    }
    out.sort();
    out
}

/// ptxas' `-v` report, entry by entry.
fn report(stderr: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let num = |s: &str, after: &str| -> Option<u32> {
        s.split(after)
            .next()?
            .split_whitespace()
            .last()?
            .parse()
            .ok()
    };
    for line in stderr.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or("").to_string();
            out.push(Entry {
                name,
                ..Entry::default()
            });
        } else if let Some(e) = out.last_mut() {
            if line.contains("bytes stack frame") {
                e.local = [
                    num(line, " bytes stack frame").unwrap_or(u32::MAX),
                    num(line, " bytes spill stores").unwrap_or(u32::MAX),
                    num(line, " bytes spill loads").unwrap_or(u32::MAX),
                ];
            } else if line.contains("Used ") && line.contains(" registers") {
                e.registers = num(line, " registers");
            }
        }
    }
    out
}

/// CTAs of `threads` threads at `registers` each that an SM's 64K registers hold (allocated per
/// warp in units of 256).
fn ctas_fitting(registers: u32, threads: u32) -> u32 {
    // Registers are allocated per warp in units of 256 (at least one).
    let per_warp = registers
        .saturating_mul(32)
        .div_ceil(256)
        .max(1)
        .saturating_mul(256);
    65536 / per_warp.saturating_mul(threads.div_ceil(32).max(1))
}

/// Fails unless [`LAUNCH_BOUNDS`] are the PTX's, and, where ptxas is found, every entry
/// assembles with no local memory and the bounded ones fit their CTAs. Returns what to print.
pub fn check(ptx_path: &Path, ptx: &str) -> Result<Vec<String>, String> {
    let want: Vec<(String, [u32; 3], u32)> = LAUNCH_BOUNDS
        .iter()
        .map(|&(n, t, c)| (n.to_string(), t, c))
        .collect();
    let found = bounds_in(ptx);
    if found != want {
        return Err(format!(
            "launch bounds changed: expected {want:?}, found {found:?}"
        ));
    }
    let mut said = vec![format!(
        "ptx-check: launch bounds on the {} kernels that ask for them",
        want.len()
    )];
    let Some(ptxas) = layout_builder::find_ptxas() else {
        if std::env::var("LAYOUT_PTXAS").is_ok_and(|v| v == "require") {
            return Err("LAYOUT_PTXAS=require and no ptxas found: set PTXAS, or pip install nvidia-cuda-nvcc-cu12".into());
        }
        said.push("ptx-check: no ptxas found; registers and spills not checked".into());
        return Ok(said);
    };
    let out = Command::new(&ptxas)
        .args(["-arch=sm_90a", "-v", "-o", "/dev/null"])
        .arg(ptx_path)
        .output()
        .map_err(|e| format!("could not run {}: {}", ptxas.display(), e))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("ptxas refused the kernels: {stderr}"));
    }
    let entries = report(&stderr);
    if entries.len() != ptx.matches(".visible .entry ").count() {
        return Err(format!(
            "ptxas reported {} entries: {stderr}",
            entries.len()
        ));
    }
    if let Some(e) = entries.iter().find(|e| e.local != [0, 0, 0]) {
        return Err(format!(
            "{} has local memory under ptxas (stack frame, spill stores, spill loads: {:?} bytes)",
            e.name, e.local
        ));
    }
    // A register written while a wgmma that reads it may be in flight: ptxas then waits for
    // each wgmma before the next (its "Potential Performance Loss" C7513).
    if let Some(l) = stderr.lines().find(|l| l.contains("(C7513)")) {
        return Err(format!("ptxas serialises a kernel's wgmmas: {}", l.trim()));
    }
    said.push(format!(
        "ptx-check: ptxas assembles all {} kernels for sm_90a with no stack frame or spill, no wgmma serialised",
        entries.len()
    ));
    for (name, [x, y, z], ctas) in &want {
        let e = entries
            .iter()
            .find(|e| &e.name == name)
            .ok_or(format!("ptxas did not report {name}"))?;
        let registers = e
            .registers
            .ok_or(format!("ptxas reported no register count for {name}"))?;
        let fit = ctas_fitting(registers, x * y * z);
        if fit < *ctas {
            return Err(format!(
                "{name}: {registers} registers fit {fit} CTAs, not {ctas}"
            ));
        }
        said.push(format!(
            "  {name}: {} registers, {fit} CTAs of {} threads per SM",
            registers,
            x * y * z
        ));
    }
    Ok(said)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_bounds_and_reports() {
        let ptx = ".visible .entry a(\n.param .u32 a_0\n)\n.maxntid 128, 1, 1\n.minnctapersm 3\n{\n}\n.visible .entry b(\n)\n{\n}\n";
        assert_eq!(bounds_in(ptx), vec![("a".to_string(), [128, 1, 1], 3)]);
        let log = "ptxas info    : Compiling entry function 'a' for 'sm_90a'\nptxas info    : Function properties for a\n    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\nptxas info    : Used 168 registers, used 1 barriers\n";
        let r = report(log);
        assert_eq!(
            (r[0].name.as_str(), r[0].registers, r[0].local),
            ("a", Some(168), [8, 4, 4])
        );
    }

    #[test]
    fn occupancy_by_registers() {
        assert_eq!(ctas_fitting(168, 128), 3);
        assert_eq!(ctas_fitting(173, 128), 2);
        assert_eq!(ctas_fitting(127, 128), 4);
        assert_eq!(ctas_fitting(96, 128), 5);
        // Counts out of range give no CTA rather than an overflow or a division by zero.
        assert_eq!(ctas_fitting(u32::MAX, 128), 0);
        assert_eq!(ctas_fitting(0, 128), 64);
        assert!(report("ptxas info    : Compiling entry function 'a'\n")[0]
            .registers
            .is_none());
    }
}
