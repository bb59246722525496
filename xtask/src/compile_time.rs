//! What the macros cost at build time. `run`: the same crate built with N layouts and with
//! none, the layouts being the first N Triton fixtures of tests/macro_differential/cases.rs (all
//! encodings). `conversions`: N conversions within a warp planned by `convert!` and the same N
//! planned from the layouts' tables by the const planner (`Planned`), each against the crate
//! with only their layouts. Dependencies are built once first; each timed build recompiles only
//! the crate.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

fn layouts(n: usize) -> Result<Vec<String>, String> {
    let path = crate::root().join("tests/macro_differential/cases.rs");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {}", path.display(), e))?;
    let v: Vec<String> = text
        .lines()
        .skip_while(|l| !l.starts_with("layout! {"))
        .skip(1)
        .take_while(|l| !l.starts_with('}'))
        .map(|l| l.replacen("    C", "    pub C", 1))
        .collect();
    if v.len() < n {
        return Err(format!(
            "only {} layouts available, asked for {}",
            v.len(),
            n
        ));
    }
    Ok(v.into_iter().take(n).collect())
}

fn write_crate(dir: &Path, name: &str, body: &str) -> Result<(), String> {
    let root = crate::root();
    std::fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
    let manifest = format!(
        "[package]\nname = \"{}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\nlinear-layouts = {{ path = {:?} }}\n\n[workspace]\n",
        name,
        root.display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("src/lib.rs"), body).map_err(|e| e.to_string())
}

fn build(dir: &Path, target: &Path) -> Result<f64, String> {
    // Touch the source so that only this crate rebuilds.
    let lib = dir.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).map_err(|e| e.to_string())?;
    std::fs::write(&lib, text).map_err(|e| e.to_string())?;
    let t = Instant::now();
    let st = Command::new("cargo")
        .current_dir(dir)
        .args(["build", "--quiet", "--target-dir"])
        .arg(target)
        .env_remove("RUSTFLAGS")
        .status()
        .map_err(|e| e.to_string())?;
    if !st.success() {
        return Err(format!("cargo build in {} failed", dir.display()));
    }
    Ok(t.elapsed().as_secs_f64())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

pub fn run(n: usize, runs: usize) -> Result<(), String> {
    let runs = runs.max(1);
    let base = crate::root().join("target/compile-time");
    let target = base.join("target");
    let with = base.join("with");
    let without = base.join("without");
    let items = layouts(n)?;
    write_crate(
        &with,
        "with_layouts",
        &format!(
            "//! {} layouts.\nuse linear_layouts::layout;\n\nlayout! {{\n{}\n}}\n",
            n,
            items.join("\n")
        ),
    )?;
    write_crate(
        &without,
        "without_layouts",
        "//! No layouts.\n#[allow(unused_imports)]\nuse linear_layouts::layout;\n",
    )?;
    // Warm: dependencies, the proc macro, the first build of each crate.
    build(&with, &target)?;
    build(&without, &target)?;
    let mut tw = Vec::new();
    let mut to = Vec::new();
    // Alternate, so that machine noise hits both alike.
    for _ in 0..runs {
        tw.push(build(&with, &target)?);
        to.push(build(&without, &target)?);
    }
    let (mw, mo) = (median(tw.clone()), median(to.clone()));
    println!(
        "cargo build (debug) of a crate with {} layouts: {:.2} s; without: {:.2} s; added: {:.2} s ({:.1} ms per layout); median of {} runs each",
        n,
        mw,
        mo,
        mw - mo,
        (mw - mo) * 1000.0 / n as f64,
        runs
    );
    println!("runs with: {:?}\nruns without: {:?}", tw, to);
    Ok(())
}

/// N variants of one layout (64x32, 4 registers, 32 lanes, 4 warps): lanes permuted and, in every
/// other one, one register bit exchanged with a lane bit, so that converting the first to each
/// is a register renaming or one round of shuffles.
fn variants(n: usize) -> Vec<String> {
    let reg = ["[0, 1]", "[0, 2]", "[16, 0]", "[32, 0]"];
    let lane = ["[0, 4]", "[0, 8]", "[0, 16]", "[1, 0]", "[2, 0]"];
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move |m: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % m as u64) as usize
    };
    (0..=n)
        .map(|i| {
            let (mut r, mut l) = (reg.to_vec(), lane.to_vec());
            if i > 0 {
                for k in (1..l.len()).rev() {
                    l.swap(k, next(k + 1));
                }
                if i % 2 == 0 {
                    let (a, b) = (next(2), next(l.len()));
                    std::mem::swap(&mut r[a], &mut l[b]);
                }
            }
            format!(
                "    pub V{} = linear(register = [{}], lane = [{}], warp = [[4, 0], [8, 0]], block = []) for [64, 32];",
                i,
                r.join(", "),
                l.join(", ")
            )
        })
        .collect()
}

/// Time N conversions by `convert!` and by the const planner, each against their layouts alone.
pub fn conversions(n: usize, runs: usize) -> Result<(), String> {
    let runs = runs.max(1);
    let base = crate::root().join("target/compile-time");
    let target = base.join("target");
    let layouts = format!("layout! {{\n{}\n}}\n", variants(n).join("\n"));
    let head = "use linear_layouts::{convert, layout, planned::Planned, Cost};\n";
    let consts = |f: &dyn Fn(usize) -> String| -> String {
        (1..=n)
            .map(|i| format!("pub const C{}: Cost = {};\n", i, f(i)))
            .collect()
    };
    let crates = [
        ("layouts", String::new()),
        (
            "macro",
            consts(&|i| format!("convert!(V0 => V{}, f32).cost", i)),
        ),
        (
            "generic",
            consts(&|i| format!("Planned::<V0, V{}, f32>::COST", i)),
        ),
    ];
    let mut dirs = Vec::new();
    for (name, body) in &crates {
        let dir = base.join(format!("cvt-{}", name));
        let text = format!(
            "//! {} conversions.\n#![allow(unused_imports)]\n{}{}{}",
            n, head, layouts, body
        );
        write_crate(&dir, &format!("cvt_{}", name), &text)?;
        build(&dir, &target)?;
        dirs.push(dir);
    }
    let mut times = vec![Vec::new(); dirs.len()];
    for _ in 0..runs {
        for (k, d) in dirs.iter().enumerate() {
            times[k].push(build(d, &target)?);
        }
    }
    let m: Vec<f64> = times.iter().map(|t| median(t.clone())).collect();
    let per = |x: f64| (x - m[0]) * 1000.0 / n as f64;
    println!(
        "cargo build (debug) of {} layouts: {:.2} s; with {} conversions by convert!: {:.2} s ({:.1} ms per conversion); by the const planner: {:.2} s ({:.1} ms per conversion); median of {} runs each",
        n + 1, m[0], n, m[1], per(m[1]), m[2], per(m[2]), runs
    );
    println!("runs: {:?}", times);
    Ok(())
}
