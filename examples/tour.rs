//! A first look at linear-layouts: parse Triton layouts from TTGIR text, print them the way Triton
//! does, and solve a conversion between two of them.
//!
//! Run: `cargo run --example tour`

use linear_layouts::parse::{parse_aliases, parse_tensor_type};
use linear_layouts::sim::{launch, Launch};
use linear_layouts::view::layout_str;
use linear_layouts::{convert, layout, Thread};

// The same layouts as types, solved at compile time: const tables and straight-line index math.
layout! {
    pub Blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}> : tensor<32x16xf16>;
    pub Mma = nvidia_mma(version_major = 2, version_minor = 0, warps_per_cta = [2, 2], instr_shape = [16, 8]) for [32, 16];
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Alias lines exactly as a TTGIR dump prints them.
    let ttgir = r#"
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
"#;
    let aliases = parse_aliases(ttgir)?;

    let blocked = parse_tensor_type("tensor<32x16xf16, #blocked>", &aliases)?;
    let acc = parse_tensor_type("tensor<32x16xf16, #mma>", &aliases)?;
    let a = blocked
        .encoding
        .as_ref()
        .unwrap()
        .to_linear_layout(&blocked.shape)?;
    let b = acc
        .encoding
        .as_ref()
        .unwrap()
        .to_linear_layout(&acc.shape)?;

    println!(
        "== #blocked on tensor<32x16xf16>, as Triton's LinearLayout::toString prints it:{}\n",
        a
    );
    println!("== #mma on tensor<32x16xf16>:{}\n", b);

    println!(
        "== who owns each element of the 32x16 tensor under #mma (triton-tensor-layout's view):"
    );
    print!("{}", layout_str(&b, false, false)?);

    // Converting #blocked -> #mma: for each hardware location of the destination, where does its
    // element live in the source? Triton's minimalCvtLayout starts from exactly this.
    let cvt = b.invert_and_compose(&a)?;
    println!(
        "\n== #mma -> #blocked location map (dst hardware index -> src hardware index):{}",
        cvt
    );
    let moves_lanes = cvt.sublayout(&["lane"], &["lane"]).map(|s| {
        s.bases()
            .iter()
            .any(|(_, v)| v.iter().any(|b| b.iter().any(|&x| x != 0)))
    })?;
    let moves_warps = cvt.sublayout(&["warp"], &["warp"]).map(|s| {
        s.bases()
            .iter()
            .any(|(_, v)| v.iter().any(|b| b.iter().any(|&x| x != 0)))
    })?;
    println!(
        "\nThe conversion {} lanes and {} warps; free (broadcast) bits of the source: {:?}",
        if moves_lanes {
            "crosses"
        } else {
            "stays within"
        },
        if moves_warps {
            "crosses"
        } else {
            "stays within"
        },
        a.free_variable_masks()
    );

    // layout!: the same two layouts as types.
    println!("\n== layout! types, solved at compile time (no run-time solving):");
    println!(
        "Mma: {} registers x {} lanes x {} warps; register bases {:?}",
        Mma::REGISTERS,
        Mma::LANES,
        Mma::WARPS,
        Mma::REGISTER_BASES
    );
    let c = Mma::apply(1, 4, 3, 0);
    println!(
        "Mma::apply(register 1, lane 4, warp 3) = {:?}; Blocked::locate of that element = {:?}",
        c,
        Blocked::locate(c)
    );
    assert_eq!(Mma::linear_layout(), b);
    assert_eq!(Blocked::linear_layout(), a);
    println!("Both equal the layouts parsed at run time above.");

    // convert!: the plan is solved at compile time; its cost is a const.
    let cvt = convert!(Blocked => Mma, f32);
    println!("\n== convert!(Blocked => Mma, f32): {:?}", cvt.cost);
    // Run it on the CPU SIMT simulator: 4 warps, each thread holds its 4 elements of a 32x16
    // tensor whose element (i, j) has the value 100 i + j.
    let wrong = std::sync::atomic::AtomicU32::new(0);
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
                wrong.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            if lane == 4 && warp == 0 && r < 2 {
                println!(
                    "  lane 4 of warp 0, Mma register {}: element ({}, {}) = {}",
                    r, i, j, v
                );
            }
        }
    })
    .map_err(|e| format!("simulator: {}", e))?;
    println!(
        "Ran on the simulator (128 threads): {} wrong values of {}",
        wrong.into_inner(),
        128 * 4
    );
    Ok(())
}
