//! Conversions between random layouts of every distributed encoding on the simulator: blocked,
//! nvidia_mma v2 and v3, dot_op (MMA and blocked parents), slice, linear, and AMD's mfma on
//! 64-lane warps, over a common 2-D shape (broadcasting where a layout's tile is larger than the
//! tensor). Every destination register must hold exactly the element the destination layout
//! names, for 8-, 16-, 32- and 64-bit elements; also on warps of 8 and 16 lanes (Vulkan
//! subgroups) planned for that target. `CONVERT_ENC_CASES` sets the number of pairs
//! (default 10,000; tests/convert_sim.rs runs 10,000 random linear pairs besides); the same cases
//! every run unless `CONVERT_RANDOM=1`.

use std::sync::Mutex;

use linear_layouts::convert::{
    flatten, minimal_cvt_layout, plan_conversion, plan_conversion_for, reach, Force, Reach,
};
use linear_layouts::encodings::{AmdMfma, Blocked, Cga, NvidiaMma};
use linear_layouts::runtime::convert::convert_slices;
use linear_layouts::runtime::{Element, Thread};
use linear_layouts::sim::{launch, Launch};
use linear_layouts::{Encoding, LinearLayout, Target};
use proptest::prelude::*;
use proptest::test_runner::Config;

mod support;
use support::runner;

fn cases() -> u32 {
    support::cases("CONVERT_ENC_CASES", 10_000)
}

/// Split `2^total` into `parts` powers of two by the random bits in `r`.
fn split(total: u32, parts: usize, r: &[u8]) -> Vec<u32> {
    let mut v = vec![0u32; parts];
    for i in 0..total as usize {
        v[r[i % r.len()] as usize % parts] += 1;
    }
    v.into_iter().map(|b| 1 << b).collect()
}

/// A random CGA layout of `ctas` CTAs over `rank` dims (CTAsPerCGA, CTASplitNum with some dims
/// not split, i.e. broadcast, and CTAOrder), from the knob bytes.
fn cga(k: &[u8], rank: usize, ctas: u32) -> Cga {
    if ctas == 1 {
        return Cga::single(rank);
    }
    let per = split(ctas.trailing_zeros(), rank, &k[16..18]);
    let split_num: Vec<u32> = per
        .iter()
        .enumerate()
        .map(|(d, &c)| if (k[18] >> d) & 3 == 0 { 1 } else { c })
        .collect();
    let order: Vec<u32> = if k[19].is_multiple_of(2) {
        (0..rank as u32).rev().collect()
    } else {
        (0..rank as u32).collect()
    };
    Cga::from_split_params(&per, &split_num, &order).unwrap_or_else(|_| Cga::single(rank))
}

/// A random `#ttg.linear` layout of `shape` (one CTA) from the knob bytes: the tensor's bits
/// shuffled over the lane, warp and register bases; sometimes a lane or warp basis zero (that
/// bit broadcast, its tensor bit moved to the registers), sometimes a register basis XORed with
/// another (a swizzle).
fn linear(k: &[u8], shape: [i64; 2], warps: u32, lanes: u32) -> Encoding {
    let mut bits: Vec<Vec<i32>> = (0..2)
        .flat_map(|d| {
            (0..shape[d].trailing_zeros()).map(move |b| {
                let mut v = vec![0, 0];
                v[d] = 1 << b;
                v
            })
        })
        .collect();
    for i in (1..bits.len()).rev() {
        bits.swap(i, k[i % 20] as usize % (i + 1));
    }
    let (nl, nw) = (
        lanes.trailing_zeros() as usize,
        warps.trailing_zeros() as usize,
    );
    let mut register = bits.split_off((nl + nw).min(bits.len()));
    let mut lane = bits;
    let mut warp = lane.split_off(nl.min(lane.len()));
    let thread = nl + nw;
    if k[12].is_multiple_of(4) && thread > 0 {
        let j = k[13] as usize % thread;
        let b = if j < nl {
            &mut lane[j]
        } else {
            &mut warp[j - nl]
        };
        register.push(std::mem::replace(b, vec![0, 0]));
    }
    if k[14].is_multiple_of(3) && register.len() >= 2 {
        let (a, b) = (register[0].clone(), &mut register[1]);
        b.iter_mut().zip(a).for_each(|(x, y)| *x ^= y);
    }
    let bases = vec![
        ("register".to_string(), register),
        ("lane".to_string(), lane),
        ("warp".to_string(), warp),
        ("block".to_string(), vec![]),
    ];
    let outs = vec![
        ("dim0".to_string(), shape[0] as i32),
        ("dim1".to_string(), shape[1] as i32),
    ];
    Encoding::Linear(LinearLayout::from_parts(bases, outs, false).expect("bases of the shape"))
}

/// A random encoding for `warps` warps of `lanes` lanes and `ctas` CTAs, rank 2, from the knob
/// bytes.
fn encoding(k: &[u8], warps: u32, lanes: u32, ctas: u32) -> Encoding {
    let lane_bits = lanes.trailing_zeros();
    let warp_bits = warps.trailing_zeros();
    let blocked = |k: &[u8], rank: usize| {
        Encoding::Blocked(Blocked {
            size_per_thread: split(k[0] as u32 % 4, rank, &k[1..4]),
            threads_per_warp: split(lane_bits, rank, &k[4..8]),
            warps_per_cta: split(warp_bits, rank, &k[8..10]),
            order: if k[10].is_multiple_of(2) {
                (0..rank as u32).rev().collect()
            } else {
                (0..rank as u32).collect()
            },
            cga: cga(k, rank, ctas),
        })
    };
    let mma = |k: &[u8]| {
        let w = split(warp_bits, 2, &k[11..13]);
        Encoding::NvidiaMma(NvidiaMma {
            version_major: 2,
            version_minor: 0,
            warps_per_cta: w,
            instr_shape: vec![16, 8],
            cga: cga(k, 2, ctas),
        })
    };
    if lanes < 32 {
        // Warps of 8 or 16 lanes (Vulkan subgroups): only the encodings that allow them.
        return match k[15] % 4 {
            0 | 1 => blocked(k, 2),
            2 => Encoding::Slice {
                dim: (k[13] % 3) as u32,
                parent: Box::new(blocked(k, 3)),
            },
            _ => Encoding::DotOperand {
                op_idx: (k[13] % 2) as u32,
                parent: Box::new(blocked(k, 2)),
                k_width: 0,
            },
        };
    }
    if lanes == 64 {
        return match k[15] % 2 {
            0 => Encoding::AmdMfma(AmdMfma {
                version: 3,
                warps_per_cta: split(warp_bits, 2, &k[11..13]),
                instr_shape: if k[13].is_multiple_of(2) {
                    vec![32, 32]
                } else {
                    vec![16, 16]
                },
                is_transposed: k[14].is_multiple_of(2),
                tiles_per_warp: vec![1, 1],
                element_bit_width: 32,
                cga: cga(k, 2, ctas),
            }),
            _ => blocked(k, 2),
        };
    }
    match k[15] % 6 {
        0 | 1 => blocked(k, 2),
        2 => mma(k),
        3 => Encoding::DotOperand {
            op_idx: (k[13] % 2) as u32,
            parent: Box::new(mma(k)),
            k_width: [1, 2, 4, 8][(k[14] % 4) as usize],
        },
        4 => Encoding::Slice {
            dim: (k[13] % 3) as u32,
            parent: Box::new(blocked(k, 3)),
        },
        _ => {
            if warps == 4 && k[13].is_multiple_of(2) {
                Encoding::NvidiaMma(NvidiaMma {
                    version_major: 3,
                    version_minor: 0,
                    warps_per_cta: vec![4, 1],
                    instr_shape: vec![16, [8, 16, 32][(k[14] % 3) as usize], 16],
                    cga: cga(k, 2, ctas),
                })
            } else {
                Encoding::DotOperand {
                    op_idx: (k[13] % 2) as u32,
                    parent: Box::new(blocked(k, 2)),
                    k_width: 0,
                }
            }
        }
    }
}

#[derive(Clone, Debug)]
struct Pair {
    shape: [i64; 2],
    warps: u32,
    lanes: u32,
    ctas: u32,
    src: Encoding,
    dst: Encoding,
    bits: u32,
}

/// Which warp sizes a run draws from.
#[derive(Clone, Copy)]
enum Warps {
    /// 32 lanes, or 64 (AMD) for some pairs.
    Gpu,
    /// 8 or 16 lanes, planned for a Vulkan target of that subgroup size.
    Small,
}

/// A random pair of encodings over clusters of `2^min_ctas ..= 2^max_ctas` CTAs (log2).
fn pair(
    min_ctas: u32,
    max_ctas: u32,
    warp_sizes: Warps,
) -> impl Strategy<Value = (Pair, LinearLayout, LinearLayout)> {
    (
        0u32..4,
        0u32..4,
        0u32..3,
        min_ctas..=max_ctas,
        prop::bool::weighted(0.15),
        prop::collection::vec(any::<u8>(), 20),
        prop::collection::vec(any::<u8>(), 20),
        0usize..4,
    )
        .prop_filter_map("a valid pair", move |(m, n, w, c, amd, a, b, bits)| {
            let shape = [8i64 << m, 8i64 << n];
            let (warps, ctas) = (1 << w, 1 << c);
            let lanes = match (warp_sizes, amd) {
                (Warps::Gpu, true) => 64,
                (Warps::Gpu, false) => 32,
                (Warps::Small, _) => [8, 16][(a[19] % 2) as usize],
            };
            // Small warps draw a linear layout for one side in five (one CTA).
            let pick = |k: &[u8]| match warp_sizes {
                Warps::Small if ctas == 1 && k[17].is_multiple_of(5) => {
                    linear(k, shape, warps, lanes)
                }
                _ => encoding(k, warps, lanes, ctas),
            };
            let (src, dst) = (pick(&a), pick(&b));
            let ls = src.to_linear_layout(&shape).ok()?;
            let ld = dst.to_linear_layout(&shape).ok()?;
            if ls.in_dim_size("block") != ctas as i32 || ld.in_dim_size("block") != ctas as i32 {
                return None;
            }
            // Same lanes and warps per CTA (a layout may cover fewer warps than the CTA has).
            if ls.in_dim_size("lane") != lanes as i32 || ld.in_dim_size("lane") != lanes as i32 {
                return None;
            }
            if ls.in_dim_size("warp") != warps as i32 || ld.in_dim_size("warp") != warps as i32 {
                return None;
            }
            let p = Pair {
                shape,
                warps,
                lanes,
                ctas,
                src,
                dst,
                bits: [8, 16, 32, 64][bits],
            };
            Some((p, ls, ld))
        })
}

fn value<E: Element>(c: &[u32], shape: &[i64; 2]) -> E {
    let id = c[0] as u64 * shape[1] as u64 + c[1] as u64;
    E::from_bits(id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - E::BITS))
}

/// The planner's [`reach`] names the slowest in-dim left by Triton's `minimalCvtLayout`.
fn check_reach(src: &LinearLayout, dst: &LinearLayout) -> Result<(), String> {
    let cvt = minimal_cvt_layout(src, dst).map_err(|e| e.to_string())?;
    let triton = [
        ("block", Reach::Blocks),
        ("warp", Reach::Warps),
        ("lane", Reach::Lanes),
        ("register", Reach::Registers),
    ]
    .into_iter()
    .find(|(d, _)| cvt.has_in_dim(d))
    .map_or(Reach::Nothing, |(_, r)| r);
    let ours = reach(&flatten(src).unwrap(), &flatten(dst).unwrap());
    // Registers quotiented away but of another count still move (into a renaming).
    let triton = match triton {
        Reach::Nothing if src.in_dim_size("register") != dst.in_dim_size("register") => {
            Reach::Registers
        }
        r => r,
    };
    if ours != triton {
        return Err(format!(
            "reach {:?}, Triton's minimal conversion {:?}",
            ours, triton
        ));
    }
    Ok(())
}

fn run<E: Element>(p: &Pair, src: &LinearLayout, dst: &LinearLayout) -> Result<String, String> {
    check_reach(src, dst)?;
    let plan = if p.lanes < 32 {
        plan_conversion_for(&Target::spirv(p.lanes), src, dst, E::BITS, Force::Auto)
    } else {
        plan_conversion(src, dst, E::BITS, Force::Auto)
    }
    .map_err(|e| format!("planning: {}", e))?;
    let rp = &plan.body;
    let bad = Mutex::new(None);
    let (ns, nd) = (
        src.in_dim_size("register") as u32,
        dst.in_dim_size("register") as u32,
    );
    let l = Launch {
        warp_size: p.lanes,
        ..Launch::new(p.ctas, p.lanes * p.warps, plan.cost.shared_bytes.max(4)).with_cluster(p.ctas)
    };
    launch(l, |t| {
        let (lane, warp, cta) = (t.lane(), t.warp(), t.cta_rank());
        let vals: Vec<E> = (0..ns)
            .map(|r| value(&src.apply_flat(&[r, lane, warp, cta]), &p.shape))
            .collect();
        let mut out = vec![E::default(); nd as usize];
        convert_slices(rp, t, &vals, &mut out);
        for r in 0..nd {
            let want: E = value(&dst.apply_flat(&[r, lane, warp, cta]), &p.shape);
            if out[r as usize].to_bits() != want.to_bits() {
                *bad.lock().unwrap() = Some(format!(
                    "CTA {} lane {} warp {} register {}",
                    cta, lane, warp, r
                ));
            }
        }
    })
    .map_err(|e| format!("simulator: {}", e))?;
    match bad.into_inner().unwrap() {
        Some(b) => Err(format!(
            "{:?}: wrong value at {}; plan {:?}",
            plan.cost, b, plan.body
        )),
        None => Ok(support::strategy_key(&plan)),
    }
}

/// Run `n` random pairs over clusters of `2^min_ctas ..= 2^max_ctas` CTAs; the strategies and
/// encoding pairs seen, counted.
fn run_pairs(
    n: u32,
    (min_ctas, max_ctas): (u32, u32),
    warps: Warps,
) -> std::collections::BTreeMap<String, u32> {
    let mut runner = runner(Config {
        cases: n,
        failure_persistence: None,
        max_global_rejects: 1_000_000,
        ..Config::default()
    });
    let seen = Mutex::new(std::collections::BTreeMap::new());
    let r = runner.run(&pair(min_ctas, max_ctas, warps), |(p, src, dst)| {
        let res = match p.bits {
            8 => run::<u8>(&p, &src, &dst),
            16 => run::<u16>(&p, &src, &dst),
            32 => run::<u32>(&p, &src, &dst),
            _ => run::<u64>(&p, &src, &dst),
        };
        let s = res.map_err(TestCaseError::fail)?;
        let kinds = format!("{} -> {} ({} lanes)", p.src.name(), p.dst.name(), p.lanes);
        let mut m = seen.lock().unwrap();
        *m.entry(s).or_insert(0u32) += 1;
        *m.entry(kinds).or_insert(0u32) += 1;
        Ok(())
    });
    let m = seen.into_inner().unwrap();
    println!("{:#?}", m);
    assert!(
        r.is_ok(),
        "{}",
        r.err().map(|e| e.to_string()).unwrap_or_default()
    );
    m
}

#[test]
fn random_encoding_pairs_on_the_simulator() {
    run_pairs(cases(), (0, 0), Warps::Gpu);
}

/// Warps of 8 and 16 lanes, planned for `spirv_8` / `spirv_16` (no matrix instructions, no
/// cluster memory): blocked, slices and dot operands of blocked parents and linear layouts,
/// every element width. `SMALL_WARP_CASES` sets the number (default 10,000).
#[test]
fn random_small_warp_encoding_pairs_on_the_simulator() {
    let m = run_pairs(
        support::cases("SMALL_WARP_CASES", 10_000),
        (0, 0),
        Warps::Small,
    );
    for lanes in [8, 16] {
        let tag = format!("({} lanes)", lanes);
        assert!(
            m.keys().any(|k| k.ends_with(&tag)),
            "no pair of {} lanes: {:?}",
            lanes,
            m
        );
    }
    for seen in ["Shuffles", "linear ->"] {
        assert!(m.keys().any(|k| k.contains(seen)), "no {}: {:?}", seen, m);
    }
}

/// Encodings over clusters of 2 and 4 CTAs with random CGA layouts (CTAsPerCGA, CTASplitNum,
/// CTAOrder): conversions between different CGA layouts move data between CTAs.
/// `CLUSTER_ENC_CASES` sets the number (default 1,000).
#[test]
fn random_cluster_encoding_pairs_on_the_simulator() {
    let n = support::cases("CLUSTER_ENC_CASES", 1_000);
    let m = run_pairs(n, (1, 2), Warps::Gpu);
    assert!(
        m.keys().any(|k| k.contains("Cluster")) || n < 200,
        "no conversion crossed CTAs: {:?}",
        m
    );
}
