//! The random differential against Triton 3.9: a few hundred random pairs of NVIDIA distributed
//! layouts (blocked, mma v2/v3, dot operands, slices; ranks 1-3; 4 and 8 warps; 8- to 64-bit
//! elements; both directions) and round trips through swizzled and nvmma shared layouts, each
//! compiled by Triton for sm_90 with its PTX counted (fixtures/triton-3.9.0-random-pairs.jsonl,
//! made by scripts/triton_random_pairs.py).
//!
//! Every case is planned here for sm_90 from the same linear layouts and must be no worse than
//! Triton on shared-memory instructions, shuffles and barriers (and use no shared memory where
//! Triton uses none); every case also runs on the simulator (both directions are cases), where
//! each element must arrive, no access may race, and no thread may issue more shuffles, shared
//! accesses or barriers than the plan's cost says.
//!
//! `PRINT_TABLE=1 cargo test --test triton_random_pairs -- --nocapture` prints the per-family
//! table of BENCHMARKS.md.

use std::collections::BTreeMap;
use std::sync::Mutex;

use linear_layouts::convert::{
    plan_conversion_for, plan_shared_access, ConversionPlan, Force, SmemAccess,
};
use linear_layouts::runtime::convert::{convert_slices, load_access, store_access};
use linear_layouts::runtime::{Cost, Element, Thread};
use linear_layouts::sim::{launch, Issued, Launch};
use linear_layouts::{LinearLayout, Target};
use serde_json::Value;

mod support;
use support::{flat, value};

/// One fixture line.
struct Case {
    name: String,
    family: String,
    bits: u32,
    shape: Vec<i32>,
    src: LinearLayout,
    dst: LinearLayout,
    smem: Option<LinearLayout>,
    triton: Counts,
}

/// What a conversion issues per thread (ours: the plan's cost; Triton's: its PTX, straight-line).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    shared: u32,
    shuffles: u32,
    selects: u32,
    barriers: u32,
    scratch: u32,
}

fn bases(v: &Value) -> Vec<Vec<i32>> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|b| {
                    b.as_array()
                        .map(|x| {
                            x.iter()
                                .filter_map(|c| c.as_i64())
                                .map(|c| c as i32)
                                .collect()
                        })
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default()
}

fn layout(ins: &[(&str, &Value)], shape: &[i32]) -> LinearLayout {
    let ins = ins.iter().map(|(n, v)| (n.to_string(), bases(v))).collect();
    let outs = (0..shape.len())
        .map(|i| (format!("dim{}", i), shape[i]))
        .collect();
    LinearLayout::from_parts(ins, outs, true).expect("a fixture layout")
}

fn distributed(v: &Value, shape: &[i32]) -> LinearLayout {
    let dims = ["register", "lane", "warp", "block"];
    let ins: Vec<(&str, &Value)> = dims.iter().map(|d| (*d, &v[*d])).collect();
    layout(&ins, shape)
}

fn cases() -> Vec<Case> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/triton-3.9.0-random-pairs.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("the random-pairs fixture");
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON line"))
        .map(|v| {
            let shape: Vec<i32> = v["shape"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_i64())
                        .map(|x| x as i32)
                        .collect()
                })
                .unwrap_or_default();
            let c = &v["counts"];
            let n = |k: &str| c[k].as_u64().unwrap_or(0) as u32;
            let shared = c["shared"]
                .as_object()
                .map(|m| m.values().filter_map(|x| x.as_u64()).sum::<u64>() as u32)
                .unwrap_or(0);
            let empty = Value::Array(Vec::new());
            Case {
                name: v["name"].as_str().unwrap_or("").to_string(),
                family: v["family"].as_str().unwrap_or("").to_string(),
                bits: v["bits"].as_u64().unwrap_or(32) as u32,
                src: distributed(&v["src"], &shape),
                dst: distributed(&v["dst"], &shape),
                smem: v
                    .get("smem")
                    .map(|s| layout(&[("offset", s), ("block", &empty)], &shape)),
                shape,
                triton: Counts {
                    shared,
                    shuffles: n("shfl"),
                    selects: n("selp") + n("prmt"),
                    barriers: n("bar.sync") + n("bar.warp.sync") + n("barrier.cluster.wait"),
                    scratch: n("shared_bytes"),
                },
            }
        })
        .collect()
}

/// What we plan for a case.
enum Ours {
    Convert(ConversionPlan),
    Trip(SmemAccess, SmemAccess, Cost),
}

impl Ours {
    fn cost(&self) -> Cost {
        match self {
            Ours::Convert(p) => p.cost,
            Ours::Trip(_, _, c) => *c,
        }
    }

    fn counts(&self) -> Counts {
        let c = self.cost();
        Counts {
            shared: c.stores + c.loads,
            shuffles: c.shuffles,
            selects: c.selects,
            barriers: c.barriers,
            scratch: c.shared_bytes,
        }
    }
}

fn plan(c: &Case) -> Result<Ours, String> {
    let t = Target::SM_90;
    match &c.smem {
        None => plan_conversion_for(&t, &c.src, &c.dst, c.bits, Force::Auto)
            .map(Ours::Convert)
            .map_err(|e| e.to_string()),
        Some(s) => {
            let (st, sc) =
                plan_shared_access(&c.src, s, c.bits, true, &t).map_err(|e| e.to_string())?;
            let (ld, lc) =
                plan_shared_access(&c.dst, s, c.bits, false, &t).map_err(|e| e.to_string())?;
            let cost = Cost {
                loads: lc.loads,
                barriers: 1,
                ..sc
            };
            Ok(Ours::Trip(st, ld, cost))
        }
    }
}

impl Counts {
    /// The planner's figure for choosing between strategies ([`Cost::weight`]).
    fn weight(&self) -> u32 {
        Cost {
            shuffles: self.shuffles,
            selects: self.selects,
            stores: self.shared,
            barriers: self.barriers,
            ..Cost::of(linear_layouts::runtime::Strategy::SharedMemory)
        }
        .weight()
    }
}

/// Why ours is worse than Triton's, if it is: on the same side of the line between shuffles and
/// shared memory, any of shared accesses, shuffles or barriers more; across it (shuffles where
/// Triton goes through shared memory, or the reverse), a higher weight (selects not counted:
/// Triton's PTX counts them with its packing).
fn worse(ours: &Counts, tri: &Counts) -> Vec<String> {
    let mut why = Vec::new();
    if (ours.shared == 0) != (tri.shared == 0) {
        let (o, t) = (
            Counts {
                selects: 0,
                ..*ours
            },
            Counts { selects: 0, ..*tri },
        );
        if o.weight() > t.weight() {
            why.push(format!(
                "{} shuffles, {} shared accesses and {} barriers weigh more than Triton's {}, {} and {}",
                o.shuffles, o.shared, o.barriers, t.shuffles, t.shared, t.barriers
            ));
        }
        return why;
    }
    let mut more = |what: &str, a: u32, b: u32| {
        if a > b {
            why.push(format!("{} {}, Triton {}", a, what, b));
        }
    };
    more("shared accesses", ours.shared, tri.shared);
    more("shuffles", ours.shuffles, tri.shuffles);
    more("barriers", ours.barriers, tri.barriers);
    why
}

/// The kinds of win over Triton, if any.
fn better(ours: &Counts, tri: &Counts) -> Vec<&'static str> {
    let mut why = Vec::new();
    if tri.shared > 0 && ours.shared == 0 {
        why.push("shuffles instead of shared memory");
    } else if ours.shared < tri.shared {
        why.push("fewer shared accesses");
    }
    if ours.barriers < tri.barriers {
        why.push("fewer barriers");
    }
    if ours.shuffles < tri.shuffles {
        why.push("fewer shuffles");
    }
    if ours.scratch < tri.scratch && tri.shared > 0 {
        why.push("less scratch");
    }
    why
}

/// Run a case on the simulator: every destination element right, no race, and no thread issuing
/// more than the plan's cost.
fn simulate<E: Element>(c: &Case, ours: &Ours) -> Result<(), String> {
    let shape: Vec<u32> = c.shape.iter().map(|&s| s as u32).collect();
    let warps = c.src.in_dim_size("warp") as u32;
    let ns = c.src.in_dim_size("register") as usize;
    let nd = c.dst.in_dim_size("register") as usize;
    let cost = ours.cost();
    let bad = Mutex::new(Vec::new());
    let l = Launch::new(1, 32 * warps, cost.shared_bytes.max(4));
    let r = launch(l, |t| {
        let (lane, warp) = (t.lane(), t.warp());
        let vals: Vec<E> = (0..ns as u32)
            .map(|r| value(flat(&c.src.apply_flat(&[r, lane, warp, 0]), &shape)))
            .collect();
        let mut out = vec![E::default(); nd];
        match ours {
            Ours::Convert(p) => convert_slices(&p.body, t, &vals, &mut out),
            Ours::Trip(st, ld, _) => {
                store_access(st, t, &vals);
                t.sync_block();
                load_access(ld, t, &mut out);
            }
        }
        let mut e = Vec::new();
        for (r, v) in out.iter().enumerate() {
            let want: E = value(flat(&c.dst.apply_flat(&[r as u32, lane, warp, 0]), &shape));
            if v.to_bits() != want.to_bits() {
                e.push(format!("lane {} warp {} register {} wrong", lane, warp, r));
            }
        }
        let i = t.issued();
        let allowed = Issued {
            shuffles: cost.shuffles,
            shared_stores: cost.stores,
            shared_loads: cost.loads,
            barriers: cost.barriers,
            redux: 0,
        };
        if i.shuffles > allowed.shuffles
            || i.redux > allowed.redux
            || i.shared_stores > allowed.shared_stores
            || i.shared_loads > allowed.shared_loads
            || i.barriers > allowed.barriers
        {
            e.push(format!(
                "thread issued {:?}, the plan says {:?}",
                i, allowed
            ));
        }
        if !e.is_empty() {
            if let Ok(mut b) = bad.lock() {
                b.extend(e);
            }
        }
    });
    let mut bad = bad.into_inner().unwrap_or_default();
    if let Err(e) = r {
        bad.extend(e.issues.into_iter().map(|i| i.message));
    }
    bad.truncate(4);
    if bad.is_empty() {
        Ok(())
    } else {
        Err(bad.join("; "))
    }
}

/// Per family: cases, our totals and Triton's, equal / better / worse.
#[derive(Default)]
struct Family {
    cases: u32,
    ours: Counts,
    triton: Counts,
    equal: u32,
    better: u32,
    worse: u32,
}

fn add(a: &mut Counts, b: &Counts) {
    a.shared += b.shared;
    a.shuffles += b.shuffles;
    a.selects += b.selects;
    a.barriers += b.barriers;
    a.scratch += b.scratch;
}

#[test]
fn no_pair_worse_than_triton() {
    let cases = cases();
    assert!(
        cases.len() >= 300,
        "only {} cases in the fixture",
        cases.len()
    );
    let mut families: BTreeMap<String, Family> = BTreeMap::new();
    let mut wins: BTreeMap<&str, u32> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut worse_cases: Vec<(String, String)> = Vec::new();
    let mut better_cases: Vec<String> = Vec::new();
    let mut strategies: BTreeMap<String, u32> = BTreeMap::new();
    for c in &cases {
        let ours = match plan(c) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{} ({}): planning failed: {}", c.name, c.family, e));
                continue;
            }
        };
        let key = match &ours {
            Ours::Convert(p) => format!("{:?}", p.cost.strategy),
            Ours::Trip(..) => "shared round trip".to_string(),
        };
        *strategies.entry(key).or_default() += 1;
        let sim = match c.bits {
            8 => simulate::<u8>(c, &ours),
            16 => simulate::<u16>(c, &ours),
            32 => simulate::<u32>(c, &ours),
            _ => simulate::<u64>(c, &ours),
        };
        if let Err(e) = sim {
            failures.push(format!(
                "{} ({}): on the simulator: {}",
                c.name, c.family, e
            ));
        }
        let (o, t) = (ours.counts(), c.triton);
        if std::env::var("SHOW_CASE").is_ok_and(|n| n == c.name) {
            show(c, &ours);
        }
        let f = families.entry(c.family.clone()).or_default();
        f.cases += 1;
        add(&mut f.ours, &o);
        add(&mut f.triton, &t);
        let (w, b) = (worse(&o, &t), better(&o, &t));
        if !w.is_empty() {
            f.worse += 1;
            let why = format!(
                "{}, {}-bit, {:?}: {}",
                c.family,
                c.bits,
                c.shape,
                w.join(", ")
            );
            worse_cases.push((c.name.clone(), why));
        } else if !b.is_empty() {
            f.better += 1;
            better_cases.push(format!("{} ({}): {}", c.name, c.family, b.join(", ")));
            for k in b {
                *wins.entry(k).or_default() += 1;
            }
        } else {
            f.equal += 1;
        }
    }
    let (better, equal): (u32, u32) = families
        .values()
        .fold((0, 0), |(b, e), f| (b + f.better, e + f.equal));
    println!(
        "{} cases: {} better than Triton, {} equal, {} worse, {} failing otherwise; wins by kind: {:?}; our strategies: {:?}",
        cases.len(),
        better,
        equal,
        worse_cases.len(),
        failures.len(),
        wins,
        strategies
    );
    for b in &better_cases {
        println!("better: {}", b);
    }
    if std::env::var("PRINT_TABLE").is_ok() {
        print_table(&families);
    }
    // The cases still worse than Triton are listed in a committed file: a case worse and not
    // listed fails, and so does a listed case that is no longer worse (take it off the list).
    let known = known_worse();
    for (name, why) in &worse_cases {
        if !known.contains(name) {
            failures.push(format!(
                "{}: worse than Triton and not on the known list: {}",
                name, why
            ));
        }
    }
    for name in &known {
        if !worse_cases.iter().any(|(n, _)| n == name) {
            failures.push(format!(
                "{}: no longer worse than Triton; take it off {}",
                name, KNOWN_WORSE
            ));
        }
    }
    for (name, why) in &worse_cases {
        println!("worse: {}: {}", name, why);
    }
    for f in &failures {
        println!("{}", f);
    }
    assert!(
        failures.is_empty(),
        "{} cases fail (listed above)",
        failures.len()
    );
}

/// The cases still worse than Triton, one name per line (`#` comments).
const KNOWN_WORSE: &str = "fixtures/triton-3.9.0-random-pairs-known-worse.txt";

fn known_worse() -> Vec<String> {
    let path = format!("{}/{}", env!("CARGO_MANIFEST_DIR"), KNOWN_WORSE);
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

fn print_table(families: &BTreeMap<String, Family>) {
    println!("| family | cases | shared accesses (ours / Triton) | shuffles | selects + prmt | barriers | scratch bytes | equal / better / worse |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut total = Family::default();
    let row = |name: &str, f: &Family| {
        let (o, t) = (&f.ours, &f.triton);
        println!(
            "| {} | {} | {} / {} | {} / {} | {} / {} | {} / {} | {} / {} | {} / {} / {} |",
            name,
            f.cases,
            o.shared,
            t.shared,
            o.shuffles,
            t.shuffles,
            o.selects,
            t.selects,
            o.barriers,
            t.barriers,
            o.scratch,
            t.scratch,
            f.equal,
            f.better,
            f.worse
        );
    };
    for (name, f) in families {
        row(name, f);
        total.cases += f.cases;
        add(&mut total.ours, &f.ours);
        add(&mut total.triton, &f.triton);
        total.equal += f.equal;
        total.better += f.better;
        total.worse += f.worse;
    }
    row("**all**", &total);
}

/// `SHOW_CASE=<name>`: a case's layouts, our plan and Triton's counts.
fn show(c: &Case, ours: &Ours) {
    println!("{}: {} ({}-bit, {:?})", c.name, c.family, c.bits, c.shape);
    println!("src {:?}\ndst {:?}", c.src, c.dst);
    if let Some(s) = &c.smem {
        println!("smem {:?}", s);
    }
    match ours {
        Ours::Convert(p) => println!("ours {:?}\n{:?}", p.cost, p.body),
        Ours::Trip(st, ld, cost) => println!("ours {:?}\nstore {:?}\nload {:?}", cost, st, ld),
    }
    println!("Triton {:?}", c.triton);
}
