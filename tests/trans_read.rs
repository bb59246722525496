//! AMD's transposed LDS reads on the simulator: a dot operand loaded from a shared layout that
//! runs along M or N (as Triton 3.9 lowers such a `local_load` on gfx950 and gfx1250, checked
//! against its AMDGCN in layout-cli's explain tests) is planned as `ds_read_b64_tr_b16` and kin,
//! every register gets its element, and every instruction takes the wavefronts the bank model
//! says; on random swizzles of the shared layout too, where the read fits and where it does not.
//!
//! Raw shared-memory accesses are `unsafe` (the contract of `Thread`): the simulator checks it.

use std::sync::atomic::{AtomicU32, Ordering};

use linear_layouts::convert::{bank_conflicts_of_warp, instruction_name, plan_padded_access};
use linear_layouts::convert::{pad_address, Instr, Target};
use linear_layouts::parse::{parse_encoding, Aliases};
use linear_layouts::runtime::convert::{load_access, st_at};
use linear_layouts::sim::{launch_profiled, Launch};
use linear_layouts::{Element, LinearLayout, Thread};

fn solve(text: &str, shape: &[i64]) -> (LinearLayout, Vec<(u32, u32)>) {
    let enc = parse_encoding(text, &Aliases::new()).unwrap_or_else(|e| panic!("{}: {}", text, e));
    let ll = enc.to_linear_layout(shape).unwrap();
    (ll, enc.padding())
}

/// The element at tensor coordinate `c` (distinct in its low bits for every element).
fn value<E: Element>(c: &[u32], shape: &[i64]) -> E {
    let flat = c[0] as u64 * shape[1] as u64 + c[1] as u64;
    E::from_bits(flat.wrapping_mul(0x9E37) & ((1u64 << E::BITS) - 1))
}

/// Load `dist` from `smem` on the simulator under `target`: the instruction's name, and errors
/// (wrong values, wavefronts other than the model's) as text.
fn run<E: Element>(target: &Target, dist: &str, smem: &str, shape: &[i64]) -> (String, String) {
    let ((d, _), (s, padding)) = (solve(dist, shape), solve(smem, shape));
    let bits = E::BITS;
    let (ld, cost) = plan_padded_access(&d, &s, &padding, bits, false, target).unwrap();
    let name = instruction_name(&ld, false, bits, target);
    let eb = bits / 8;
    let threads = (d.in_dim_size("lane") * d.in_dim_size("warp")) as u32;
    let regs = d.in_dim_size("register") as u32;
    let offsets = s.in_dim_size("offset") as u32;
    let bad = AtomicU32::new(0);
    let mut launch = Launch::new(1, threads, cost.shared_bytes);
    launch.warp_size = target.lanes;
    let profile = launch_profiled(launch, |th| {
        let (lane, warp) = (th.lane(), th.warp());
        // Every element where the (padded) shared layout keeps it.
        for o in (lane + target.lanes * warp..offsets).step_by(threads as usize) {
            let w = value::<E>(&s.apply_flat(&[o, 0]), shape).to_bits() as u32;
            unsafe {
                st_at(
                    th,
                    false,
                    pad_address(o * eb, &ld.padding),
                    eb,
                    [w, 0, 0, 0],
                )
            };
        }
        th.sync_block();
        let mut out = vec![E::default(); regs as usize];
        load_access(&ld, th, &mut out);
        for r in 0..regs {
            if out[r as usize] != value(&d.apply_flat(&[r, lane, warp, 0]), shape) {
                bad.fetch_add(1, Ordering::Relaxed);
            }
        }
    })
    .unwrap();
    let mut errors = String::new();
    if bad.load(Ordering::Relaxed) > 0 {
        errors += &format!("{} registers wrong; ", bad.load(Ordering::Relaxed));
    }
    let mut sim: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
    for i in profile
        .instructions(target, target.lanes)
        .iter()
        .filter(|i| !i.store)
    {
        sim.entry(i.warp).or_default().push(i.wavefronts());
    }
    for (warp, sim) in sim {
        let model: Vec<u32> =
            bank_conflicts_of_warp(&ld, eb, target.lanes as usize, true, target, warp)
                .iter()
                .map(|i| i.wavefronts())
                .collect();
        if sim != model {
            errors += &format!("warp {}: wavefronts {:?}, model {:?}; ", warp, sim, model);
        }
    }
    assert!(
        matches!(ld.instr, Instr::TransRead { .. }) == name.contains("tr"),
        "{}",
        name
    );
    (name, errors)
}

const MFMA_B16: &str = "#ttg.dot_op<{opIdx = 1, parent = #ttg.amd_mfma<{version = 4, warpsPerCTA = [2, 2], instrShape = [32, 32, 16], isTransposed = true}>, kWidth = 8}>";
const MFMA_A16: &str = "#ttg.dot_op<{opIdx = 0, parent = #ttg.amd_mfma<{version = 4, warpsPerCTA = [2, 2], instrShape = [32, 32, 16], isTransposed = true}>, kWidth = 8}>";
const MFMA_B8: &str = "#ttg.dot_op<{opIdx = 1, parent = #ttg.amd_mfma<{version = 4, warpsPerCTA = [2, 2], instrShape = [16, 16, 128], isTransposed = true}>, kWidth = 16}>";
const WMMA_B16: &str = "#ttg.dot_op<{opIdx = 1, parent = #ttg.amd_wmma<{version = 3, isTranspose = true, ctaLayout = {warp = [[0, 1], [1, 0]]}, instrShape = [16, 16, 32]}>, kWidth = 8}>";
const WMMA_B8: &str = "#ttg.dot_op<{opIdx = 1, parent = #ttg.amd_wmma<{version = 3, isTranspose = true, ctaLayout = {warp = [[0, 1], [1, 0]]}, instrShape = [16, 16, 64]}>, kWidth = 16}>";

/// N (or M) contiguous in shared memory: the shared layouts Triton's matmuls use for these
/// operands, and random swizzles of them.
fn swizzled(vec: u32, per_phase: u32, max_phase: u32, order: [u32; 2]) -> String {
    format!(
        "#ttg.swizzled_shared<{{vec = {}, perPhase = {}, maxPhase = {}, order = [{}, {}]}}>",
        vec, per_phase, max_phase, order[0], order[1]
    )
}

/// A target, the destination and shared layouts, the shape, the element bits and the
/// instruction Triton's AMDGCN has for the load.
type Case = (Target, &'static str, String, [i64; 2], u32, &'static str);

#[test]
fn dot_operands_along_m_or_n_load_with_transposed_reads() {
    let b_order = [1, 0];
    let cases: Vec<Case> = vec![
        // The gfx950 matmul's B operand, as its dump has it (padded, N fastest).
        (
            Target::GFX950,
            MFMA_B16,
            "#ttg.padded_shared<[512:+16] {order = [1, 0], shape = [64, 128]}>".into(),
            [64, 128],
            16,
            "ds_read_b64_tr_b16",
        ),
        (
            Target::GFX950,
            MFMA_B16,
            swizzled(8, 1, 16, b_order),
            [64, 128],
            16,
            "ds_read_b64_tr_b16",
        ),
        (
            Target::GFX950,
            MFMA_A16,
            swizzled(4, 1, 8, [0, 1]),
            [128, 64],
            16,
            "ds_read_b64_tr_b16",
        ),
        (
            Target::GFX950,
            MFMA_B8,
            swizzled(8, 1, 8, b_order),
            [128, 128],
            8,
            "ds_read_b64_tr_b8",
        ),
        (
            Target::GFX1250,
            WMMA_B16,
            "#ttg.padded_shared<[128:+16] {order = [1, 0], shape = [64, 128]}>".into(),
            [64, 128],
            16,
            "ds_load_tr16_b128",
        ),
        (
            Target::GFX1250,
            WMMA_B8,
            swizzled(16, 1, 8, b_order),
            [128, 128],
            8,
            "ds_load_tr8_b64",
        ),
        // K fastest: plain vector reads, as Triton's (and no transposed read exists on gfx942).
        (
            Target::GFX950,
            MFMA_B16,
            swizzled(8, 1, 8, [0, 1]),
            [64, 128],
            16,
            "ds_read_b128",
        ),
        (
            Target::GFX942,
            MFMA_B16,
            swizzled(8, 1, 16, b_order),
            [64, 128],
            16,
            "ds_read_u16",
        ),
    ];
    for (target, dist, smem, shape, bits, want) in cases {
        let (name, errors) = match bits {
            8 => run::<u8>(&target, dist, &smem, &shape),
            _ => run::<u16>(&target, dist, &smem, &shape),
        };
        assert_eq!(
            (name.as_str(), errors.as_str()),
            (want, ""),
            "{} {} from {}",
            target.name,
            dist,
            smem
        );
    }
}

/// Random swizzles of shared layouts that run along N: every load is right and counted as the
/// model counts it, whichever instruction the planner takes.
#[test]
fn random_swizzles_load_right_with_the_models_wavefronts() {
    let mut transposed = 0;
    for vec in [1, 2, 4, 8] {
        for per_phase in [1, 2] {
            for max_phase in [1, 4, 16] {
                for (target, dist) in [(Target::GFX950, MFMA_B16), (Target::GFX1250, WMMA_B16)] {
                    let smem = swizzled(vec, per_phase, max_phase, [1, 0]);
                    let (name, errors) = run::<u16>(&target, dist, &smem, &[64, 128]);
                    assert_eq!(errors, "", "{} {} ({})", target.name, smem, name);
                    transposed += name.contains("tr") as u32;
                }
            }
        }
    }
    assert!(transposed >= 24, "{} transposed reads", transposed);
}

/// No transposed store exists; a store through a transposed read's tables (which the planner
/// never makes) still puts every element where the read finds it.
#[test]
fn a_store_through_a_transposed_reads_tables_writes_each_element_in_place() {
    let target = Target::GFX950;
    let shape = [64i64, 128];
    let ((d, _), (s, padding)) = (
        solve(MFMA_B16, &shape),
        solve(&swizzled(8, 1, 16, [1, 0]), &shape),
    );
    let (mut ld, cost) = plan_padded_access(&d, &s, &padding, 16, false, &target).unwrap();
    assert!(matches!(ld.instr, Instr::TransRead { .. }));
    // The warps that hold copies store nothing, as a store's own plan says.
    let (st, _) = plan_padded_access(&d, &s, &padding, 16, true, &target).unwrap();
    (ld.lane_skip, ld.warp_skip) = (st.lane_skip, st.warp_skip);
    let bad = AtomicU32::new(0);
    let mut launch = Launch::new(1, 256, cost.shared_bytes);
    launch.warp_size = 64;
    launch_profiled(launch, |th| {
        let (lane, warp) = (th.lane(), th.warp());
        let regs = d.in_dim_size("register") as u32;
        let vals: Vec<u16> = (0..regs)
            .map(|r| value(&d.apply_flat(&[r, lane, warp, 0]), &shape))
            .collect();
        linear_layouts::runtime::convert::store_access(&ld, th, &vals);
        th.sync_block();
        for o in (lane + 64 * warp..8192).step_by(256) {
            let w =
                unsafe { linear_layouts::runtime::convert::ld_at(th, false, o * 2, 2) }[0] as u16;
            if w != value::<u16>(&s.apply_flat(&[o, 0]), &shape) {
                bad.fetch_add(1, Ordering::Relaxed);
            }
        }
    })
    .unwrap();
    assert_eq!(bad.load(Ordering::Relaxed), 0);
}

mod l {
    use linear_layouts::layout;
    layout! {
        #[warp_size = 64]
        pub OpB = #ttg.dot_op<{opIdx = 1, parent = #ttg.amd_mfma<{version = 4, warpsPerCTA = [2, 2], instrShape = [32, 32, 16], isTransposed = true}>, kWidth = 8}> : tensor<64x128xf16>;
        pub SmemN = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 16, order = [1, 0]}> : tensor<64x128xf16>;
    }
}

/// `convert!` for gfx950 emits the transposed read (straight-line code: a row load, then a
/// shuffle per word and selects per register) and it loads every register right.
#[test]
fn convert_emits_the_transposed_read_for_gfx950() {
    use linear_layouts::convert;
    // The emitted load, not an interpretation of its tables.
    let ld = convert!(l::SmemN => l::OpB, u16, target = gfx950);
    assert!(matches!(ld.access.instr, Instr::TransRead { .. }));
    assert_eq!(ld.cost.loads, 16);
    let (d, s) = (l::OpB::linear_layout(), l::SmemN::linear_layout());
    let bad = AtomicU32::new(0);
    let mut launch = Launch::new(1, 256, 64 * 128 * 2);
    launch.warp_size = 64;
    launch_profiled(launch, |th| {
        let (lane, warp) = (th.lane(), th.warp());
        for o in (lane + 64 * warp..8192).step_by(256) {
            let w = value::<u16>(&s.apply_flat(&[o, 0]), &[64, 128]) as u32;
            unsafe { st_at(th, false, o * 2, 2, [w, 0, 0, 0]) };
        }
        th.sync_block();
        let out = ld.load(th);
        for (r, v) in out.iter().enumerate() {
            if *v != value::<u16>(&d.apply_flat(&[r as u32, lane, warp, 0]), &[64, 128]) {
                bad.fetch_add(1, Ordering::Relaxed);
            }
        }
    })
    .unwrap();
    assert_eq!(bad.load(Ordering::Relaxed), 0);
}
