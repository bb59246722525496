//! Conversion plans run on the CPU SIMT simulator: for random pairs of layouts of the same tensor
//! (permutations of its bits over registers, lanes and warps, with broadcasting and XOR-mixed
//! bases), every destination register must hold exactly the element the destination layout says,
//! for 8-, 16-, 32- and 64-bit elements. `CONVERT_CASES` sets the number of pairs (default
//! 10,000; each runs on the simulator once, the element size cycling); the cases are the same
//! every run unless `CONVERT_RANDOM=1`. A second test does the same over clusters of 2 and 4
//! CTAs whose layouts split the tensor differently.

use std::sync::Mutex;

use linear_layouts::convert::{plan_conversion, ConversionPlan, Force, PlanBody, Strategy as Plan};
use linear_layouts::runtime::convert::convert_slices;
use linear_layouts::runtime::replay::replay_ops;
use linear_layouts::runtime::{Element, Thread};
use linear_layouts::sim::{launch_profiled, Launch};
use linear_layouts::{ErrorKind, LinearLayout};
use proptest::prelude::*;
use proptest::test_runner::Config;

mod support;
use support::runner;

fn cases() -> u32 {
    support::cases("CONVERT_CASES", 10_000)
}

/// A tensor shape as bits per dim, and a random distributed layout of it.
#[derive(Clone, Debug)]
struct Case {
    dims: Vec<u32>,
    warps: u32,
    /// log2 CTAs per cluster.
    blocks: u32,
    src: Vec<Vec<u64>>,
    dst: Vec<Vec<u64>>,
    bits: u32,
    force: u8,
    /// Run the plan as the GPU runs a plan in a const: its recorded tape replayed, not the
    /// interpreter.
    replay: bool,
}

fn unflat(v: u64, dims: &[u32]) -> Vec<i32> {
    let mut out = Vec::new();
    let mut sh = 0;
    for &d in dims {
        out.push(((v >> sh) & ((1 << d) - 1)) as i32);
        sh += d;
    }
    out
}

fn flat(c: &[u32], dims: &[u32]) -> u64 {
    let mut v = 0u64;
    let mut sh = 0;
    for (i, &d) in dims.iter().enumerate() {
        v |= (c[i] as u64) << sh;
        sh += d;
    }
    v
}

fn layout(bases: &[Vec<u64>], dims: &[u32]) -> LinearLayout {
    let names = ["register", "lane", "warp", "block"];
    let ins = names
        .iter()
        .zip(bases.iter().chain(std::iter::repeat(&Vec::new())))
        .map(|(n, bs)| (n.to_string(), bs.iter().map(|&b| unflat(b, dims)).collect()))
        .collect();
    let outs = dims
        .iter()
        .enumerate()
        .map(|(i, &d)| (format!("dim{}", i), 1 << d))
        .collect();
    LinearLayout::from_parts(ins, outs, true).expect("a valid random layout")
}

/// Random bases: the tensor bits shuffled over 5 lane bits, `warps` warp bits, `blocks` block
/// bits and the rest in registers; some lane, warp or block bits broadcast (zero) with their
/// tensor bit moved to registers, some zero register bases, and sometimes a basis XORed with
/// another (a swizzle).
fn bases(total: u32, warps: u32, blocks: u32) -> impl Strategy<Value = Vec<Vec<u64>>> {
    (
        Just(total).prop_perturb(move |t, mut rng| {
            let mut v: Vec<u64> = (0..t).map(|b| 1u64 << b).collect();
            for i in (1..v.len()).rev() {
                let j = rng.random_range(0..=i);
                v.swap(i, j);
            }
            v
        }),
        prop::collection::vec(0u8..8, 10),
    )
        .prop_map(move |(bits, knobs)| {
            let mut it = bits.into_iter();
            let mut lane: Vec<u64> = Vec::new();
            let mut warp: Vec<u64> = Vec::new();
            let mut reg: Vec<u64> = Vec::new();
            // Broadcast lanes/warps with some probability.
            for i in 0..5 {
                if knobs[0] == 1 && i == (knobs[1] % 5) as usize {
                    lane.push(0);
                } else {
                    lane.push(it.next().unwrap_or(0));
                }
            }
            for i in 0..warps {
                if knobs[2] == 1 && i == 0 {
                    warp.push(0);
                } else {
                    warp.push(it.next().unwrap_or(0));
                }
            }
            let mut block: Vec<u64> = Vec::new();
            for i in 0..blocks {
                if knobs[8] == 1 && i == (knobs[9] as u32) % blocks {
                    block.push(0);
                } else {
                    block.push(it.next().unwrap_or(0));
                }
            }
            reg.extend(it);
            if knobs[3] == 1 {
                let at = (knobs[4] as usize) % (reg.len() + 1);
                reg.insert(at, 0);
            }
            // A swizzle: XOR one register basis into a lane or warp basis.
            if knobs[5] == 1 && !reg.is_empty() {
                let r = reg[(knobs[6] as usize) % reg.len()];
                let l = (knobs[7] as usize) % 5;
                if lane[l] != 0 {
                    lane[l] ^= r;
                }
            }
            vec![reg, lane, warp, block]
        })
}

/// A random pair of layouts over clusters of `2^blocks` CTAs, `blocks` in `min_blocks..=max_blocks`.
fn case(min_blocks: u32, max_blocks: u32) -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(0u32..5, 1..=3),
        0u32..3,
        min_blocks..=max_blocks,
        0u32..4,
        0u8..4,
        0u8..6,
        any::<u64>(),
        any::<bool>(),
    )
        .prop_flat_map(
            |(mut dims, warps, blocks, bits, force, relation, seed, replay)| {
                let total: u32 = dims.iter().sum();
                let need = 5 + warps + blocks;
                if total < need {
                    dims[0] += need - total;
                }
                let total: u32 = dims.iter().sum::<u32>().min(12);
                if dims.iter().sum::<u32>() > 12 {
                    dims = vec![total];
                }
                (
                    Just(dims),
                    Just(warps),
                    bases(total, warps, blocks),
                    bases(total, warps, blocks),
                    Just(bits),
                    Just(force),
                )
                    .prop_map(move |(dims, warps, src, dst, bits, force)| {
                        let dst = related(&src, dst, relation, seed);
                        Case {
                            dims,
                            warps,
                            blocks,
                            src,
                            dst,
                            bits: [8, 16, 32, 64][bits as usize],
                            force,
                            replay,
                        }
                    })
            },
        )
}

/// The destination: independent of the source (0, 4), or the source with its registers permuted
/// (1), one register basis swapped with a lane basis (2), its lanes permuted (3), or one block
/// basis swapped with a register, lane or warp basis (5: data crosses CTAs, little else moves).
fn related(src: &[Vec<u64>], dst: Vec<Vec<u64>>, relation: u8, seed: u64) -> Vec<Vec<u64>> {
    let mut d = src.to_vec();
    let pick = |n: usize, k: u64| ((seed >> (8 * k)) as usize) % n.max(1);
    match relation {
        1 if d[0].len() > 1 => {
            let (a, b) = (pick(d[0].len(), 0), pick(d[0].len(), 1));
            d[0].swap(a, b);
            d
        }
        2 if !d[0].is_empty() => {
            let (r, l) = (pick(d[0].len(), 2), pick(5, 3));
            let (x, y) = (d[0][r], d[1][l]);
            d[0][r] = y;
            d[1][l] = x;
            d
        }
        3 => {
            let (a, b) = (pick(5, 4), pick(5, 5));
            d[1].swap(a, b);
            d
        }
        5 if !d[3].is_empty() => {
            let from = [0, 1, 2][pick(3, 6)];
            if d[from].is_empty() {
                return dst;
            }
            let (i, b) = (pick(d[from].len(), 2), pick(d[3].len(), 7));
            let (x, y) = (d[from][i], d[3][b]);
            d[from][i] = y;
            d[3][b] = x;
            d
        }
        _ => dst,
    }
}

fn mix(id: u64, bits: u32) -> u64 {
    let h = id.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (id << 7) ^ 0x5555;
    if bits == 64 {
        h
    } else {
        h & ((1u64 << bits) - 1)
    }
}

fn run<E: Element>(
    c: &Case,
    src: &LinearLayout,
    dst: &LinearLayout,
    plan: &ConversionPlan,
) -> Result<(), String> {
    let rp = &plan.body;
    let tape = c
        .replay
        .then(|| layout_plan::trace::trace(&borrowed_plan(rp), E::BITS));
    // A plan past the tape's tables runs interpreted, as a kernel's does.
    let tape = tape.filter(|t| {
        let counter = if t.overflow {
            &TRACE_OVERFLOWS
        } else {
            &TRACED
        };
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        !t.overflow
    });
    let errors = Mutex::new(Vec::new());
    let ns = src.in_dim_size("register") as u32;
    let nd = dst.in_dim_size("register") as u32;
    let threads = 32 << c.warps;
    let ctas = 1 << c.blocks;
    let profile = launch_profiled(
        Launch::new(ctas, threads, plan.cost.shared_bytes.max(4)).with_cluster(ctas),
        |t| {
            let (lane, warp, cta) = (t.lane(), t.warp(), t.cta_rank());
            let vals: Vec<E> = (0..ns)
                .map(|r| {
                    let co = src.apply_flat(&[r, lane, warp, cta]);
                    E::from_bits(mix(flat(&co, &c.dims), E::BITS))
                })
                .collect();
            let mut out = vec![E::default(); nd as usize];
            match &tape {
                Some(tape) => replay_ops(tape.ops(), t, &vals, &mut out),
                None => convert_slices(rp, t, &vals, &mut out),
            }
            for r in 0..nd {
                let co = dst.apply_flat(&[r, lane, warp, cta]);
                let want = E::from_bits(mix(flat(&co, &c.dims), E::BITS));
                if out[r as usize] != want {
                    if let Ok(mut e) = errors.lock() {
                        if e.len() < 4 {
                            e.push(format!(
                                "CTA {} lane {} warp {} register {}: got {:?}, want {:?} (element {:?})",
                                cta, lane, warp, r, out[r as usize], want, co
                            ));
                        }
                    }
                }
            }
        },
    )
    .map_err(|e| format!("simulator: {}", e))?;
    // Each shared access's wavefronts, as the bank model derives them from the tables.
    support::check_wavefronts(rp, &profile, E::BITS / 8)?;
    let e = errors.into_inner().unwrap_or_default();
    if e.is_empty() {
        Ok(())
    } else {
        Err(e.join("; "))
    }
}

/// Run `n` random cases over clusters of `2^min_blocks ..= 2^max_blocks` CTAs; the strategies
/// chosen, counted.
fn run_random(n: u32, min_blocks: u32, max_blocks: u32) -> std::collections::BTreeMap<String, u32> {
    let mut runner = runner(Config {
        cases: n,
        failure_persistence: None,
        ..Config::default()
    });
    let counts = Mutex::new(std::collections::BTreeMap::new());
    let r = runner.run(&case(min_blocks, max_blocks), |c| {
        let src = layout(&c.src, &c.dims);
        let dst = layout(&c.dst, &c.dims);
        let force = [
            Force::Auto,
            Force::Auto,
            Force::Shuffles,
            Force::SharedMemory,
        ][c.force as usize];
        let plan = match plan_conversion(&src, &dst, c.bits, force) {
            // Forced shuffles that cannot do it are an error, never another strategy: the
            // planner's own choice must then be shared memory.
            Err(e) if force == Force::Shuffles && e.kind() == ErrorKind::Strategy => {
                let auto = plan_conversion(&src, &dst, c.bits, Force::Auto)
                    .map_err(|e| TestCaseError::fail(format!("planning failed: {}", e)))?;
                if auto.cost.strategy != Plan::SharedMemory {
                    return Err(TestCaseError::fail(format!(
                        "shuffles refused ({}) but the planner chose {:?}",
                        e, auto.cost.strategy
                    )));
                }
                auto
            }
            r => r.map_err(|e| TestCaseError::fail(format!("planning failed: {}", e)))?,
        };
        if let Ok(mut m) = counts.lock() {
            *m.entry(support::strategy_key(&plan)).or_insert(0u32) += 1;
        }
        let res = match c.bits {
            8 => run::<u8>(&c, &src, &dst, &plan),
            16 => run::<u16>(&c, &src, &dst, &plan),
            32 => run::<u32>(&c, &src, &dst, &plan),
            _ => run::<u64>(&c, &src, &dst, &plan),
        };
        res.map_err(|e| TestCaseError::fail(format!("{:?} plan {:?}: {}", plan.cost, plan.body, e)))
    });
    let (traced, overflows) = (
        TRACED.load(std::sync::atomic::Ordering::Relaxed),
        TRACE_OVERFLOWS.load(std::sync::atomic::Ordering::Relaxed),
    );
    println!("replayed {traced} plans from their tapes, {overflows} past the tape's tables");
    // About half the cases replay their tape: most fit it, which is what kernels replay.
    assert!(
        traced > 0 && overflows * 4 <= traced,
        "{traced} plans replayed and {overflows} past the tape's tables"
    );
    println!(
        "strategies: {:?}",
        counts.lock().map(|m| m.clone()).unwrap_or_default()
    );
    assert!(
        r.is_ok(),
        "{}",
        r.err().map(|e| e.to_string()).unwrap_or_default()
    );
    counts.into_inner().unwrap_or_default()
}

#[test]
fn random_conversions_on_the_simulator() {
    let m = run_random(cases(), 0, 0);
    for s in [Plan::Registers, Plan::Shuffles, Plan::SharedMemory] {
        assert!(
            m.keys().any(|k| k.starts_with(&format!("{:?}", s))) || cases() < 200,
            "no {:?} plan among the cases: {:?}",
            s,
            m
        );
    }
}

/// Layouts of a cluster of 2 or 4 CTAs, split differently: data moves between CTAs through
/// distributed shared memory, with cluster barriers. `CLUSTER_CASES` sets the number (default
/// 1,000).
#[test]
fn random_cluster_conversions_on_the_simulator() {
    let n = support::cases("CLUSTER_CASES", 1_000);
    let m = run_random(n, 1, 2);
    for want in ["Cluster barrier", "Block barrier", "Registers"] {
        assert!(
            m.keys().any(|k| k.contains(want)) || n < 200,
            "no plan with {} among the cases: {:?}",
            want,
            m
        );
    }
}

/// Regression (found by the random test): a destination register whose basis lands on a vector
/// offset and a round bit at once; vectors must stay within one round.
#[test]
fn vectors_never_span_rounds() {
    let c = Case {
        dims: vec![0, 3, 4],
        warps: 0,
        blocks: 0,
        src: vec![vec![8, 4], vec![2, 72, 1, 16, 32], vec![]],
        dst: vec![vec![64, 8, 2], vec![0, 1, 32, 16, 4], vec![]],
        bits: 32,
        force: 0,
        replay: false,
    };
    let (src, dst) = (layout(&c.src, &c.dims), layout(&c.dst, &c.dims));
    let plan = plan_conversion(&src, &dst, 32, Force::Auto).expect("plan");
    run::<u32>(&c, &src, &dst, &plan).expect("correct on the simulator, interpreted");
    let c = Case { replay: true, ..c };
    run::<u32>(&c, &src, &dst, &plan).expect("correct on the simulator, replayed");
}

/// A transpose of a register bit with a CTA bit (2 CTAs): a cluster plan, right on the simulator;
/// the same tables with CTA barriers in place of cluster barriers are reported (races, or reads
/// of bytes not yet written), so the cluster tests above cannot pass for want of a check.
#[test]
fn cta_transpose_needs_cluster_barriers() {
    let c = Case {
        dims: vec![7],
        warps: 0,
        blocks: 1,
        src: vec![vec![64], vec![1, 2, 4, 8, 16], vec![], vec![32]],
        dst: vec![vec![32], vec![1, 2, 4, 8, 16], vec![], vec![64]],
        bits: 32,
        force: 0,
        replay: false,
    };
    let (src, dst) = (layout(&c.src, &c.dims), layout(&c.dst, &c.dims));
    let mut plan = plan_conversion(&src, &dst, 32, Force::Auto).expect("plan");
    let PlanBody::Shared(p) = &plan.body else {
        panic!("expected a shared-memory plan, got {:?}", plan.body)
    };
    assert_eq!(p.barrier, linear_layouts::convert::Barrier::Cluster);
    assert!(p.load.remote && !p.store.remote, "{:?}", p);
    // Two elements per thread in each CTA's buffer, plus the closing barrier.
    assert_eq!((plan.cost.shared_bytes, plan.cost.barriers), (256, 2));
    run::<u32>(&c, &src, &dst, &plan).expect("correct on the simulator");
    if let PlanBody::Shared(p) = &mut plan.body {
        p.barrier = linear_layouts::convert::Barrier::Block;
    }
    let e = run::<u32>(&c, &src, &dst, &plan).expect_err("a race without cluster barriers");
    // A load after the other CTA's store is a race; one before it reads nothing written.
    assert!(e.contains("race") || e.contains("nobody wrote"), "{}", e);
}

/// Plans of the random cases replayed from their tapes, and those past the tape's tables.
static TRACE_OVERFLOWS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
static TRACED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// `body` as slices of its own tables, which the const tracer takes.
fn borrowed_plan(body: &PlanBody) -> layout_plan::ir::Plan<layout_plan::ir::Borrowed<'_>> {
    use layout_plan::ir::{
        Borrowed, GatherPlan as G, Plan as P, SharedPlan as Sh, ShufflePlan as Su, SmemAccess as A,
    };
    fn acc(a: &linear_layouts::convert::SmemAccess) -> A<Borrowed<'_>> {
        A {
            vec: a.vec,
            regs: &a.regs,
            reg_offsets: &a.reg_offsets,
            lane_bases: &a.lane_bases,
            warp_bases: &a.warp_bases,
            block_bases: &a.block_bases,
            reg_skip: a.reg_skip,
            lane_skip: a.lane_skip,
            warp_skip: a.warp_skip,
            remote: a.remote,
            instr: a.instr,
            padding: a.padding,
        }
    }
    match body {
        P::Registers(p) => P::Registers(&p[..]),
        P::Shuffles(p) => P::Shuffles(Su {
            pack: p.pack,
            gather: &p.gather,
            swaps: &p.swaps,
            lane_map: &p.lane_map,
            ship: p.ship,
            scatter: &p.scatter,
        }),
        P::Gather(p) => P::Gather(G {
            pack: p.pack,
            words: &p.words,
            lane_map: &p.lane_map,
            warp_map: &p.warp_map,
            rounds: &p.rounds,
            sel_lane: &p.sel_lane,
            sel_warp: &p.sel_warp,
            choices: p.choices,
            pick: &p.pick,
            pos: &p.pos,
        }),
        P::Shared(p) => P::Shared(Sh {
            store: acc(&p.store),
            load: acc(&p.load),
            barrier: p.barrier,
            rounds: p.rounds,
        }),
    }
}
