//! A first look at linear-layouts: parse Triton layouts from TTGIR text, print them the way Triton
//! does, solve a conversion between two of them, and do the same with `layout!` types and
//! `convert!`, run on the CPU simulator.
//!
//! Run: `cargo run --example tour`

use std::error::Error;
use std::sync::atomic::{AtomicU32, Ordering};

use linear_layouts::parse::{parse_aliases, parse_tensor_type};
use linear_layouts::sim::{launch, Launch};
use linear_layouts::view::layout_str;
use linear_layouts::{convert, layout, Cost, LinearLayout, Strategy, Thread};

// The same layouts as types, solved at compile time: const tables and straight-line index math.
layout! {
    pub Blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}> : tensor<32x16xf16>;
    pub Mma = nvidia_mma(version_major = 2, version_minor = 0, warps_per_cta = [2, 2], instr_shape = [16, 8]) for [32, 16];
}

/// Alias lines exactly as a TTGIR dump prints them (`examples/kernel.ttgir` is a whole dump).
const TTGIR: &str = r#"
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
"#;

fn main() -> Result<(), Box<dyn Error>> {
    let blocked = parse_layout("tensor<32x16xf16, #blocked>")?;
    let mma = parse_layout("tensor<32x16xf16, #mma>")?;
    print_layouts(&blocked, &mma)?;
    explain_conversion(&blocked, &mma)?;
    show_types(&blocked, &mma);
    run_convert()?;
    what_next();
    Ok(())
}

/// A tensor type of the TTGIR above, as the linear layout of its encoding.
fn parse_layout(tensor: &str) -> Result<LinearLayout, Box<dyn Error>> {
    let aliases = parse_aliases(TTGIR)?;
    let ty = parse_tensor_type(tensor, &aliases)?;
    let encoding = ty.encoding.ok_or("the tensor type has no encoding")?;
    Ok(encoding.to_linear_layout(&ty.shape)?)
}

/// Both layouts as Triton's `LinearLayout::toString` prints them, and #mma as
/// `triton-tensor-layout` draws it.
fn print_layouts(blocked: &LinearLayout, mma: &LinearLayout) -> Result<(), Box<dyn Error>> {
    println!("== #blocked on tensor<32x16xf16>, as Triton's LinearLayout::toString prints it:{blocked}\n");
    println!("== #mma on tensor<32x16xf16>:{mma}\n");
    println!("== Who holds each element of the 32x16 tensor under #mma (T<thread>:<register>, as triton-tensor-layout prints it):");
    print!("{}", layout_str(mma, false, false)?);
    Ok(())
}

/// Converting #blocked -> #mma: for each hardware location of the destination, where does its
/// element live in the source? Triton's minimalCvtLayout starts from exactly this.
fn explain_conversion(blocked: &LinearLayout, mma: &LinearLayout) -> Result<(), Box<dyn Error>> {
    let cvt = mma.invert_and_compose(blocked)?;
    println!("\n== Converting #blocked -> #mma: for each destination index, the source index holding the same element:{cvt}");
    let moves = |dim: &str| -> Result<bool, Box<dyn Error>> {
        let sub = cvt.sublayout(&[dim], &[dim])?;
        Ok(sub
            .bases()
            .iter()
            .flat_map(|(_, v)| v)
            .flatten()
            .any(|&x| x != 0))
    };
    let (lanes, warps) = (moves("lane")?, moves("warp")?);
    println!(
        "\n{}",
        match (lanes, warps) {
            (_, true) => "Data moves between warps, so the conversion goes through shared memory.",
            (true, false) =>
                "Data moves only between the lanes of a warp: warp shuffles can do it.",
            (false, false) => "Every thread already holds its elements: a register permutation.",
        }
    );
    let free: Vec<String> = blocked
        .free_variable_masks()
        .into_iter()
        .filter(|&(_, mask)| mask != 0)
        .map(|(dim, mask)| format!("{dim} mask {mask:#b}"))
        .collect();
    if free.is_empty() {
        println!(
            "#blocked has no broadcast bits: no two threads or registers hold the same element."
        );
    } else {
        println!(
            "#blocked holds copies: its broadcast bits are {}.",
            free.join(", ")
        );
    }
    Ok(())
}

/// `layout!`: the same two layouts as types, with const tables and index math.
fn show_types(blocked: &LinearLayout, mma: &LinearLayout) {
    println!("\n== The same layouts as layout! types, solved at compile time:");
    let bases: Vec<String> = Mma::REGISTER_BASES
        .iter()
        .enumerate()
        .map(|(bit, [row, col])| format!("register {} holds the element ({row}, {col})", 1 << bit))
        .collect();
    println!(
        "Mma has {} registers per thread, {} lanes and {} warps; relative to register 0, {}.",
        Mma::REGISTERS,
        Mma::LANES,
        Mma::WARPS,
        bases.join(" and ")
    );
    let [row, col] = Mma::apply(1, 4, 3, 0);
    let at = Blocked::locate([row, col]);
    println!(
        "Register 1 of lane 4 of warp 3 holds the element ({row}, {col}) under Mma; under Blocked, \
         register {} of lane {} of warp {} holds it.",
        at.register, at.lane, at.warp
    );
    assert_eq!(Mma::linear_layout(), *mma);
    assert_eq!(Blocked::linear_layout(), *blocked);
    println!("Both types' linear_layout() equal the layouts parsed at run time above.");
}

/// `convert!`: the plan is solved at compile time and its cost is a const; run it on the CPU
/// SIMT simulator with 4 warps, each thread holding its 4 elements of a 32x16 tensor whose
/// element (i, j) has the value 100 i + j.
fn run_convert() -> Result<(), Box<dyn Error>> {
    let cvt = convert!(Blocked => Mma, f32);
    println!(
        "\n== convert!(Blocked => Mma, f32): {}",
        describe(&cvt.cost)
    );
    let wrong = AtomicU32::new(0);
    launch(Launch::new(1, 128, cvt.shared_bytes()), |t| {
        let (lane, warp) = (t.lane(), t.warp());
        let mine: [f32; 4] = std::array::from_fn(|r| {
            let [i, j] = Blocked::apply(r as u32, lane, warp, 0);
            (100 * i + j) as f32
        });
        let out = cvt.run(t, &mine);
        for (r, v) in out.iter().enumerate() {
            let [i, j] = Mma::apply(r as u32, lane, warp, 0);
            if *v != (100 * i + j) as f32 {
                wrong.fetch_add(1, Ordering::Relaxed);
            }
            if lane == 4 && warp == 0 && r < 2 {
                println!("  After it, lane 4 of warp 0 holds the element ({i}, {j}) = {v} in register {r}.");
            }
        }
    })
    .map_err(|e| format!("simulator: {e}"))?;
    let wrong = wrong.into_inner();
    println!("It ran on the simulator's 128 threads: {wrong} of the 512 values were wrong.");
    Ok(())
}

/// A conversion's cost in words.
fn describe(c: &Cost) -> String {
    match c.strategy {
        Strategy::Nothing => "nothing to do, the layouts are equal".into(),
        Strategy::Registers => "a register permutation within each thread".into(),
        Strategy::Shuffles => format!(
            "warp shuffles: {} shuffles and {} selects per thread",
            c.shuffles, c.selects
        ),
        Strategy::SharedMemory => format!(
            "through shared memory: {} bytes, {} stores and {} loads of {} elements per thread, \
             {} extra wavefronts from bank conflicts on stores and {} on loads, {} barrier{}",
            c.shared_bytes,
            c.stores,
            c.loads,
            c.vector,
            c.write_conflicts,
            c.read_conflicts,
            c.barriers,
            if c.barriers == 1 { "" } else { "s" }
        ),
    }
}

/// Where to go from here.
fn what_next() {
    println!(
        "\n== What to try next
- The `layout` CLI on a real TTGIR dump (examples/kernel.ttgir), from the repository root:
    cargo run -p layout-cli -- -i examples/kernel.ttgir -t 'tensor<64x64xf16>' -alias-names=mma -use-hw-view
    cargo run -p layout-cli -- -i examples/kernel.ttgir -l '#mma' --to '#blocked1' -t 'tensor<64x64xf16>'
  and the other commands in README.md's \"The CLI\" section.
- Your own layouts as types: the layout! block at the top of examples/tour.rs is a template;
  copy it into a crate that depends on linear-layouts and paste your TTGIR attributes in.
  cargo doc --open documents layout! (an example per encoding) and convert! (its options).
- The kernels written with the macros (kernels/), run on the simulator by cargo test -p kernels;
  a GPU kernel crate of your own builds to PTX with layout-builder (README.md, \"What is here\").
- cargo test --workspace runs every test (about 10 minutes on 2 cores, see README.md)."
    );
}
