//! What `layout!` costs at build time: the same crate built with N layouts and with none, the
//! layouts being the first N Triton fixtures of tests/macro_differential/cases.rs (all
//! encodings). Dependencies are built once first; each timed build recompiles only the crate.

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
