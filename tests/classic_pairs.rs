//! The classic conversions: each pair defined with `layout!`, converted with `convert!`, run on
//! the simulator, its plan cost asserted, and compared with what Triton 3.9 emits for the same
//! pair (fixtures/triton-3.9.0-convert-costs.jsonl, made by scripts/triton_convert_costs.py from
//! the pairs this test exports with `CLASSIC_PAIRS_EXPORT=path`).
//!
//! `PRINT_TABLE=1 cargo test --test classic_pairs -- --nocapture` prints the table of
//! BENCHMARKS.md.

use std::collections::BTreeMap;
use std::io::Write;

mod support;
use linear_layouts::convert::{plan_conversion_for, Force};
use linear_layouts::runtime::{Cost, Strategy};
use linear_layouts::{convert, Element, Layout, LinearLayout, Target};
use support::check;

mod l {
    use linear_layouts::layout;
    layout! {
        pub RowMajor = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
        pub ColMajor = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
        pub RowMajor8 = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
        pub ColMajor8 = blocked(sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
        pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [64, 64];
        pub Acc41 = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]) for [64, 64];
        pub OpA2 = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [64, 64];
        pub OpA4 = dot_op(opIdx = 0, parent = Acc, kWidth = 4) for [64, 64];
        pub OpB2 = dot_op(opIdx = 1, parent = Acc, kWidth = 2) for [64, 64];
        pub Acc41A2 = dot_op(opIdx = 0, parent = Acc41, kWidth = 2) for [64, 64];
        pub Acc41A4 = dot_op(opIdx = 0, parent = Acc41, kWidth = 4) for [64, 64];
        pub Epilogue = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
        pub Hopper = nvidia_mma(versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]) for [64, 64];
        pub Row = slice(dim = 0, parent = RowMajor) for [64];
        pub Col = slice(dim = 1, parent = RowMajor) for [64];
        pub Vec1d = blocked(sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]) for [64];
        pub RegsA = linear(register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []) for [32, 16];
        pub RegsB = linear(register = [[0, 2], [0, 1]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []) for [32, 16];
        pub SwapA = linear(register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [], block = []) for [8, 16];
        pub SwapB = linear(register = [[0, 1], [1, 0]], lane = [[0, 4], [0, 8], [0, 2], [2, 0], [4, 0]], warp = [], block = []) for [8, 16];
        pub LaneA = linear(register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [2, 0]], warp = [], block = []) for [4, 16];
        pub LaneB = linear(register = [[1, 0]], lane = [[0, 8], [0, 4], [0, 2], [0, 1], [2, 0]], warp = [], block = []) for [4, 16];
        pub Swz = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [64, 64];
        pub Nv128 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}> : tensor<64x64xf16>;
        // Clusters of 2 CTAs: rows split, columns split, and both CTAs holding everything.
        pub SplitRows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]) for [64, 64];
        pub SplitCols = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [0, 1]) for [64, 64];
        pub Replicated = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]) for [64, 64];
        pub AccRows = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]) for [64, 64];
    }
}

struct Row {
    name: &'static str,
    bits: u32,
    src: LinearLayout,
    dst: LinearLayout,
    cost: Cost,
    /// The barrier kind of a shared-memory plan ("warp", "CTA", "cluster").
    barrier: &'static str,
}

fn barrier_kind<S: linear_layouts::runtime::convert::Storage>(
    p: &linear_layouts::runtime::convert::Plan<S>,
) -> &'static str {
    use linear_layouts::runtime::convert::{Barrier, Plan};
    match p {
        Plan::Shared(s) => match s.barrier {
            Barrier::Warp => "warp",
            Barrier::Block => "CTA",
            Barrier::Cluster => "cluster",
        },
        _ => "",
    }
}

macro_rules! pairs {
    ($($name:literal: $a:ident => $b:ident, $e:ty;)*) => {{
        let mut rows = Vec::new();
        $(
            let c = convert!(l::$a => l::$b, $e);
            {
            let (src, dst) = (l::$a::linear_layout(), l::$b::linear_layout());
            check(&c, &src, &dst);
            // The tables, interpreted, must agree with the replayed tape.
            const NS: usize = <l::$a as Layout>::ELEMENTS_PER_THREAD as usize;
            const ND: usize = <l::$b as Layout>::ELEMENTS_PER_THREAD as usize;
            check(&c.interpreted::<NS, ND>(), &src, &dst);
            rows.push(Row { name: $name, bits: <$e as Element>::BITS, src, dst, cost: c.cost, barrier: barrier_kind(c.plan()) });
            }
        )*
        rows
    }};
}

/// Round trips through a given shared layout (local_store then local_load): the cost row holds
/// the store's and the load's accesses together.
macro_rules! trips {
    ($($name:literal: $a:ident => $s:ident => $b:ident, $e:ty;)*) => {{
        let mut rows = Vec::new();
        $(
            let st = convert!(l::$a => l::$s, $e);
            let ld = convert!(l::$s => l::$b, $e);
            let mut cost = st.cost;
            cost.loads = ld.cost.loads;
            cost.read_conflicts = ld.cost.read_conflicts;
            cost.vector = st.cost.vector.min(ld.cost.vector);
            cost.barriers = 1;
            rows.push((Row { name: $name, bits: <$e as Element>::BITS, src: l::$a::linear_layout(), dst: l::$b::linear_layout(), cost, barrier: "CTA" }, l::$s::linear_layout()));
        )*
        rows
    }};
}

fn shared_rows() -> Vec<(Row, LinearLayout)> {
    trips! {
        "blocked -> swizzled shared -> dot operand A, f16": RowMajor8 => Swz => OpA2, u16;
        "mma accumulator -> nvmma_shared 128B -> dot operand B, f16": Acc => Nv128 => OpB2, u16;
    }
}

fn rows() -> Vec<Row> {
    pairs! {
        "blocked transpose, f32": RowMajor => ColMajor, f32;
        "blocked transpose, f16": RowMajor => ColMajor, u16;
        "blocked transpose, 8-bit": RowMajor8 => ColMajor8, u8;
        "blocked transpose, f64": RowMajor => ColMajor, f64;
        "mma accumulator -> dot operand A (kWidth 2), f16": Acc => OpA2, u16;
        "mma accumulator -> dot operand B (kWidth 2), f16": Acc => OpB2, u16;
        "mma accumulator -> dot operand A, warps [4, 1], f16": Acc41 => Acc41A2, u16;
        "fp16 -> fp8 operand (dot A kWidth 2 -> 4), 8-bit": OpA2 => OpA4, u8;
        "fp16 -> fp8 operand, warps [4, 1], 8-bit": Acc41A2 => Acc41A4, u8;
        "mma accumulator -> blocked epilogue, f32": Acc => Epilogue, f32;
        "blocked -> mma accumulator, f32": Epilogue => Acc, f32;
        "mma warps [2, 2] -> [4, 1], f32": Acc => Acc41, f32;
        "Hopper wgmma accumulator -> blocked, f32": Hopper => Epilogue, f32;
        "Hopper wgmma accumulator -> blocked, f16": Hopper => Epilogue, u16;
        "slice(dim 0) -> 1-D blocked, f32": Row => Vec1d, f32;
        "slice(dim 1) -> 1-D blocked, f32": Col => Vec1d, f32;
        "1-D blocked -> slice(dim 0), f16": Vec1d => Row, u16;
        "blocked 8 per thread -> 4 per thread, 8-bit": RowMajor8 => RowMajor, u8;
        "register permutation, f32": RegsA => RegsB, f32;
        "register <-> lane bit swap, f32": SwapA => SwapB, f32;
        "register <-> lane bit swap, f16": SwapA => SwapB, u16;
        "lane permutation, f32": LaneA => LaneB, f32;
        "2 CTAs: rows split -> columns split (transpose), f32": SplitRows => SplitCols, f32;
        "2 CTAs: rows split -> columns split (transpose), f16": SplitRows => SplitCols, u16;
        "2 CTAs: mma accumulator, rows split -> blocked, columns split, f32": AccRows => SplitCols, f32;
        "2 CTAs: rows split -> replicated (gather), f32": SplitRows => Replicated, f32;
        "2 CTAs: replicated -> rows split, f32": Replicated => SplitRows, f32;
    }
}

/// `n kind`, or 0.
fn barriers(n: u32, kind: &str) -> String {
    if n == 0 {
        "0".to_string()
    } else {
        format!("{} {}", n, kind)
    }
}

fn bases_json(l: &LinearLayout) -> String {
    let dims = ["register", "lane", "warp", "block"];
    let parts: Vec<String> = dims
        .iter()
        .map(|d| {
            let bs: Vec<String> = l
                .in_dim_bases(d)
                .unwrap_or(&[])
                .iter()
                .map(|b| format!("{:?}", b))
                .collect();
            format!("\"{}\": [{}]", d, bs.join(", "))
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// Triton's counts for a pair, from the committed fixture (compiled in: a missing or
/// malformed fixture fails the build or this function, never reads as "no figures").
fn triton() -> BTreeMap<String, BTreeMap<String, i64>> {
    let text = include_str!("../fixtures/triton-3.9.0-convert-costs.jsonl");
    let table: BTreeMap<_, _> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            let name = v["name"].as_str().expect("a name").to_string();
            let counts = v["counts"]
                .as_object()
                .expect("counts")
                .iter()
                .map(|(k, x)| (k.clone(), x.as_i64().expect("an integer count")))
                .collect();
            (name, counts)
        })
        .collect();
    assert!(!table.is_empty(), "the Triton fixture has no rows");
    table
}

#[test]
fn classic_pairs() {
    let trips = shared_rows();
    let smems: Vec<(&str, LinearLayout)> = trips.iter().map(|(r, s)| (r.name, s.clone())).collect();
    let mut rows = rows();
    rows.extend(trips.into_iter().map(|(r, _)| r));
    assert!(rows.len() >= 20);
    let _ = &smems;
    if let Ok(path) = std::env::var("CLASSIC_PAIRS_EXPORT") {
        let mut f = std::fs::File::create(&path).expect("export file");
        for r in &rows {
            let shape: Vec<i32> = r.src.out_dims().iter().map(|(_, s)| *s).collect();
            let smem = smems
                .iter()
                .find(|(n, _)| *n == r.name)
                .map(|(_, s)| {
                    let bs: Vec<String> = s
                        .in_dim_bases("offset")
                        .unwrap_or(&[])
                        .iter()
                        .map(|b| format!("{:?}", b))
                        .collect();
                    format!(", \"smem\": [{}]", bs.join(", "))
                })
                .unwrap_or_default();
            writeln!(
                f,
                "{{\"name\": {:?}, \"bits\": {}, \"shape\": {:?}, \"src\": {}, \"dst\": {}{}}}",
                r.name,
                r.bits,
                shape,
                bases_json(&r.src),
                bases_json(&r.dst),
                smem
            )
            .expect("write");
        }
    }
    // Naming the target sm_90 gives the plans convert! chose without one (the rows that are
    // conversions between distributed layouts; stores and loads are checked by their costs).
    for r in rows
        .iter()
        .filter(|r| !smems.iter().any(|(n, _)| *n == r.name))
    {
        let named = plan_conversion_for(&Target::SM_90, &r.src, &r.dst, r.bits, Force::Auto);
        let named = named.unwrap_or_else(|e| panic!("{}: {}", r.name, e));
        assert_eq!(named.cost, r.cost, "{}: sm_90 plans differently", r.name);
    }
    // Costs asserted here are the plans' (see the table in BENCHMARKS.md).
    let by_name: BTreeMap<&str, &Cost> = rows.iter().map(|r| (r.name, &r.cost)).collect();
    assert_eq!(
        by_name["register permutation, f32"].strategy,
        Strategy::Registers
    );
    assert_eq!(
        by_name["register <-> lane bit swap, f32"].strategy,
        Strategy::Shuffles
    );
    assert_eq!(
        by_name["lane permutation, f32"].strategy,
        Strategy::Shuffles
    );
    assert_eq!(
        by_name["blocked transpose, f32"].strategy,
        Strategy::SharedMemory
    );
    let tri = triton();
    let stale: Vec<&String> = tri
        .keys()
        .filter(|k| !rows.iter().any(|r| r.name == k.as_str()))
        .collect();
    assert!(
        stale.is_empty(),
        "fixture rows with no pair here: {:?}",
        stale
    );
    let mut table = Vec::new();
    let mut worse: Vec<String> = Vec::new();
    for r in &rows {
        let c = &r.cost;
        let ours_ls = c.stores + c.loads;
        let row = match tri.get(r.name) {
            Some(t) => {
                let get = |k: &str| t.get(k).copied().unwrap_or(0) as u32;
                // Shared accesses include distributed ones (`ld.shared::cluster`).
                let (t_sh, t_sel, t_ls, t_bytes) = (
                    get("shfl"),
                    get("selp") + get("prmt"),
                    get("st.shared") + get("ld.shared") + get("stmatrix") + get("ldmatrix"),
                    get("shared_bytes"),
                );
                // No worse: no more shuffles, selects, shared accesses or scratch than Triton.
                let mut why = Vec::new();
                if t_ls == 0 {
                    if ours_ls != 0 {
                        why.push("shared memory where Triton uses none".to_string());
                    }
                    if c.shuffles > t_sh || c.selects > t_sel {
                        why.push(format!(
                            "{} shuffles and {} selects, Triton {} and {}",
                            c.shuffles, c.selects, t_sh, t_sel
                        ));
                    }
                } else if ours_ls == 0 {
                    // Shuffles where Triton goes through shared memory: no worse by the
                    // planner's weight (selects aside: Triton's count holds its packing).
                    let t_bar = get("bar.sync") + get("bar.warp.sync") + get("barrier.cluster.wait");
                    let theirs = Cost { shuffles: t_sh, stores: t_ls, barriers: t_bar, ..Cost::of(Strategy::SharedMemory) };
                    let ours = Cost { selects: 0, ..*c };
                    if ours.weight() > theirs.weight() {
                        why.push(format!("{} shuffles weigh more than Triton's {} shared accesses and {} barriers", c.shuffles, t_ls, t_bar));
                    }
                } else {
                    if ours_ls > t_ls {
                        why.push(format!("{} shared accesses, Triton {}", ours_ls, t_ls));
                    }
                    if c.shared_bytes > t_bytes {
                        why.push(format!(
                            "{} bytes of scratch, Triton {}",
                            c.shared_bytes, t_bytes
                        ));
                    }
                    if c.shuffles > t_sh {
                        why.push(format!("{} shuffles, Triton {}", c.shuffles, t_sh));
                    }
                    let t_bar = get("bar.sync") + get("bar.warp.sync") + get("barrier.cluster.wait");
                    if c.barriers > t_bar {
                        why.push(format!("{} barriers, Triton {}", c.barriers, t_bar));
                    }
                }
                if !why.is_empty() {
                    worse.push(format!("{}: {}", r.name, why.join(", ")));
                }
                let t_bars: Vec<String> = [("bar.warp.sync", "warp"), ("bar.sync", "CTA"), ("barrier.cluster.wait", "cluster")]
                    .iter()
                    .filter(|(k, _)| get(k) > 0)
                    .map(|(k, n)| format!("{} {}", get(k), n))
                    .collect();
                format!(
                    "| {} | {:?} | {} / {} | {} / {} | {} / {} | {} | {} / {} | {} / {} | {} / {} | {} | {} | {} |",
                    r.name, c.strategy, c.shuffles, c.selects, c.stores, c.loads, c.vector, c.shared_bytes,
                    barriers(c.barriers, r.barrier),
                    c.write_conflicts, c.read_conflicts,
                    t_sh, t_sel, get("st.shared") + get("stmatrix"), get("ld.shared") + get("ldmatrix"), t_bytes,
                    if t_bars.is_empty() { "0".to_string() } else { t_bars.join(" + ") },
                    if worse.last().is_some_and(|w| w.starts_with(r.name)) { "**worse**" } else { "no worse" }
                )
            }
            None => format!(
                "| {} | {:?} | {} / {} | {} / {} | {} / {} | {} | {} / {} | (no Triton figure) | | | | |",
                r.name,
                c.strategy,
                c.shuffles,
                c.selects,
                c.stores,
                c.loads,
                c.vector,
                c.shared_bytes,
                barriers(c.barriers, r.barrier),
                c.write_conflicts,
                c.read_conflicts
            ),
        };
        table.push(row);
    }
    if std::env::var("PRINT_TABLE").is_ok() {
        println!("| pair | ours: strategy | shuffles / selects | stores / loads | vector / scratch bytes | barriers | conflicts (write / read) | Triton: shuffles / selects | stores / loads | scratch bytes | barriers | |");
        println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
        for t in table {
            println!("{}", t);
        }
    }
    assert!(tri.len() >= 20 || tri.is_empty(), "partial Triton fixture");
    for w in &worse {
        println!("worse than Triton: {}", w);
    }
    let unexpected = &worse;
    assert!(unexpected.is_empty(), "worse than Triton: {:?}", unexpected);
}
