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
        // From scratch each time: an incremental rebuild of unchanged source reuses the last
        // build's queries (its const evaluations, its code), which is not what a change costs.
        .env("CARGO_INCREMENTAL", "0")
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
/// is a register renaming or one round of shuffles; with `shared`, a warp bit exchanged with a
/// register bit too, so that each conversion goes through shared memory.
fn variants(n: usize, shared: bool) -> Vec<String> {
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
            let mut w = ["[4, 0]", "[8, 0]"];
            if i > 0 && shared {
                let (a, b) = (next(2), next(r.len()));
                std::mem::swap(&mut w[a], &mut r[b]);
            }
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
                "    pub V{} = linear(register = [{}], lane = [{}], warp = [{}], block = []) for [64, 32];",
                i,
                r.join(", "),
                l.join(", "),
                w.join(", ")
            )
        })
        .collect()
}

/// Build each crate once (warm), then `runs` times in turn; the median build time of each.
fn time_crates(names: &[(&str, String)], runs: usize) -> Result<(Vec<f64>, Vec<Vec<f64>>), String> {
    let base = crate::root().join("target/compile-time");
    let target = base.join("target");
    let mut dirs = Vec::new();
    for (name, text) in names {
        let dir = base.join(name);
        write_crate(&dir, &name.replace('-', "_"), text)?;
        build(&dir, &target)?;
        dirs.push(dir);
    }
    let mut times = vec![Vec::new(); dirs.len()];
    for _ in 0..runs.max(1) {
        for (k, d) in dirs.iter().enumerate() {
            times[k].push(build(d, &target)?);
        }
    }
    Ok((times.iter().map(|t| median(t.clone())).collect(), times))
}

/// `n` reductions of blocked 64x64 layouts (every split of 32 lanes over the dims, 1 to 8
/// registers along dim 1, 4 warps along dim 0) along dim 1 and dim 0 in turn, as consts of
/// their plans (`run`: each a sum's code, in a function that runs it on the simulator's
/// thread), against the crate with only the layouts (the parents and their slices).
pub fn reductions(n: usize, run: bool, runs: usize) -> Result<(), String> {
    let mut items = Vec::new();
    let mut consts = String::new();
    for i in 0..n {
        let (k, dim) = (i / 2, i % 2);
        let (lanes1, regs1) = (1u32 << (k % 6), 1u32 << ((k / 6) % 4));
        items.push(format!(
            "    pub L{i} = blocked(sizePerThread = [1, {regs1}], threadsPerWarp = [{}, {lanes1}], warpsPerCTA = [4, 1], order = [1, 0]) for [64, {}];\n    pub S{i} = slice(dim = {dim}, parent = L{i});",
            32 / lanes1,
            64 + 64 * (k / 24) as u32,
        ));
        let (n, m) = (
            format!("{{ L{i}::ELEMENTS_PER_THREAD as usize }}"),
            format!("{{ S{i}::ELEMENTS_PER_THREAD as usize }}"),
        );
        consts.push_str(&match run {
            false => format!(
                "pub const R{i}: u32 = Slice::<L{i}, S{i}, {dim}, {n}, {m}>::SHARED_BYTES;\n"
            ),
            true => format!(
                "pub fn red{i}(t: &linear_layouts::sim::SimThread, x: &Tile<L{i}, f32, {n}>) -> Tile<S{i}, f32, {m}> {{ x.sum::<{dim}>(t) }}\n"
            ),
        });
    }
    let head = format!(
        "//! {} reductions.\n#![allow(unused_imports)]\nuse linear_layouts::{{layout, reduce::Slice, Layout, Tile}};\nlayout! {{\n{}\n}}\n",
        n,
        items.join("\n")
    );
    let (m, times) = time_crates(
        &[
            ("red-layouts", head.clone()),
            ("red-planned", head + &consts),
        ],
        runs,
    )?;
    println!(
        "cargo build (debug) of {} layouts: {:.2} s; with {} reductions planned{}: {:.2} s ({:.2} ms per reduction); median of {} runs each",
        2 * n, m[0], n, if run { " and their code" } else { "" }, m[1], (m[1] - m[0]) * 1000.0 / n as f64, runs
    );
    println!("runs: {:?}", times);
    Ok(())
}

/// Time N conversions by `convert!` (the const planner, its tape replayed) and by the proc
/// macro (`convert!` with `target = sm_90`, the same plan, planned and written out by the proc
/// macro), each against their layouts alone (`shared`: conversions between warps, through
/// shared memory; `run`: each conversion's code compiled too, in a function that runs it on the
/// simulator's thread, not only its cost).
pub fn conversions(n: usize, shared: bool, run: bool, runs: usize) -> Result<(), String> {
    let layouts = format!("layout! {{\n{}\n}}\n", variants(n, shared).join("\n"));
    let head = format!(
        "//! {} conversions.\n#![allow(unused_imports)]\nuse linear_layouts::{{convert, layout, Cost}};\n{}",
        n, layouts
    );
    let items = |opt: &str| -> String {
        (1..=n)
            .map(|i| match run {
                false => format!("pub const C{i}: Cost = convert!(V0 => V{i}, f32{opt}).cost;\n"),
                true => format!(
                    "pub fn run{i}(t: &linear_layouts::sim::SimThread, x: &[f32; 16]) -> [f32; 16] {{ convert!(V0 => V{i}, f32{opt}).run(t, x) }}\n"
                ),
            })
            .collect()
    };
    let crates = [
        ("cvt-layouts", head.clone()),
        ("cvt-macro", head.clone() + &items("")),
        ("cvt-proc-macro", head + &items(", target = sm_90")),
    ];
    let (m, times) = time_crates(&crates, runs)?;
    let per = |x: f64| (x - m[0]) * 1000.0 / n as f64;
    println!(
        "cargo build (debug) of {} layouts: {:.2} s; with {} conversions{} by convert! (the const planner): {:.2} s ({:.1} ms per conversion); by the proc macro (target = sm_90): {:.2} s ({:.1} ms per conversion); median of {} runs each",
        n + 1, m[0], n, if run { " and their code" } else { "" }, m[1], per(m[1]), m[2], per(m[2]), runs
    );
    println!("runs: {:?}", times);
    Ok(())
}
