//! `layout -l L -t T --reduce D` and `--scan D`: the plan `Tile::reduce` / `Tile::scan` would
//! run on a layout and its cost per thread, as `--to` prints a conversion's. The planning is
//! layout-plan's (`reduce::reduce_plan`, `scan::scan_plan`: the functions the `Tile` methods
//! evaluate at compile time), here on tables made from the parsed layout; the slice layout is
//! layout-core's `#ttg.slice` of it.

use layout_core::{Encoding, LinearLayout};
use layout_plan::reduce::{reduce_plan, ReduceCost};
use layout_plan::scan::{scan_plan, ScanStep};
use layout_plan::tables::{InDim, LayoutKind, Tables};
use serde_json::json;

/// A reduction or a scan along a dim.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// `--reduce D`, whether its combiner has a `redux.sync` form for the element type
    /// (`--combine` sum, max, min, and, or or xor of integers of at most 32 bits), and the
    /// combiner's name.
    Reduce(u32, bool, &'static str),
    /// `--scan D`.
    Scan(u32),
}

/// The plan and cost of `op` on `enc` for a tensor of `shape` with `bits`-bit elements, as
/// text or one JSON object.
pub fn collective(
    enc: &Encoding,
    shape: &[i64],
    bits: u32,
    op: Op,
    json: bool,
) -> Result<String, String> {
    let ll = enc.to_linear_layout(shape).map_err(|e| e.to_string())?;
    if ll.in_dim_names().next() != Some("register") {
        return Err(
            "--reduce and --scan take a distributed layout (registers, lanes, warps)".into(),
        );
    }
    let regs = ll.in_dim_size("register") as u32;
    let (name, dim, cost, steps) = match op {
        Op::Reduce(d, redux, _) => {
            let slice = Encoding::Slice {
                dim: d,
                parent: Box::new(enc.clone()),
            };
            let mut sshape = shape.to_vec();
            if (d as usize) >= shape.len() {
                return Err(format!(
                    "--reduce {}: the tensor has {} dims",
                    d,
                    shape.len()
                ));
            }
            sshape.remove(d as usize);
            let sl = slice.to_linear_layout(&sshape).map_err(|e| e.to_string())?;
            let plan = reduce_plan(tables(&ll, "L"), tables(&sl, "slice"), d as usize)
                .map_err(|m| m.as_str().to_string())?;
            let out = sl.in_dim_size("register") as u32;
            let lanes = match (redux && bits <= 32, plan.redux_groups()) {
                (true, 1) if plan.spare != 0 => {
                    "one redux.sync over the warp (lanes holding copies add the identity)".to_string()
                }
                (true, 1) => "one redux.sync over the warp".to_string(),
                (true, g) if g > 1 => format!(
                    "{} redux.sync over the warp, one per group of lanes (lane bits {:?}), the others adding the identity",
                    g,
                    bit_list(plan.distinct_lanes())
                ),
                _ => format!("butterflies over lane bits {:?}", bit_list(plan.lanes)),
            };
            let steps = format!(
                "{} registers combined into {} per thread, {}, {}",
                regs,
                out,
                lanes,
                match plan.warps {
                    0 => "no shared memory".to_string(),
                    w => format!(
                        "shared memory across warp bits {:?}, read by lane bits {:?}",
                        bit_list(w),
                        bit_list(plan.readers())
                    ),
                }
            );
            ("reduce", d, plan.cost_with(out, bits, redux), steps)
        }
        Op::Scan(d) => {
            let plan = scan_plan(tables(&ll, "L"), d as usize).map_err(str::to_string)?;
            let steps: Vec<String> = plan.steps[..plan.len]
                .iter()
                .map(|s| match s {
                    ScanStep::Register(b) => format!("register bit {}", b),
                    ScanStep::Lane(b) => format!("lane bit {}", b),
                    ScanStep::Warp(b) => format!("warp bit {}", b),
                })
                .collect();
            let phase = match plan.phase < plan.len {
                true => format!(
                    "; from {} on, one cross-warp phase (every block total stored, one barrier)",
                    steps[plan.phase]
                ),
                false => String::new(),
            };
            (
                "scan",
                d,
                plan.cost(regs, bits),
                format!(
                    "positions walked lowest first: {}{}",
                    steps.join(", "),
                    phase
                ),
            )
        }
    };
    Ok(if json {
        let mut v = cost_json(name, dim, bits, &cost);
        if let Op::Reduce(_, _, combine) = op {
            v["combine"] = json!(combine);
        }
        format!("{}\n", v)
    } else {
        let redux = match cost.redux {
            0 => String::new(),
            n => format!("{} redux.sync, ", n),
        };
        format!(
            "{} along dim {} ({}-bit elements): {}\ncost per thread: {}{}, {}, {}, {}, {} shared bytes\n",
            name,
            dim,
            bits,
            steps,
            redux,
            counted(cost.shuffles, "shuffle"),
            counted(cost.stores, "store"),
            counted(cost.loads, "load"),
            counted(cost.barriers, "barrier"),
            cost.shared_bytes
        )
    })
}

fn cost_json(op: &str, dim: u32, bits: u32, c: &ReduceCost) -> serde_json::Value {
    let mut v = json!({
        "op": op,
        "dim": dim,
        "element_bits": bits,
        "shuffles": c.shuffles,
        "stores": c.stores,
        "loads": c.loads,
        "barriers": c.barriers,
        "shared_bytes": c.shared_bytes,
    });
    if c.redux > 0 {
        v["redux"] = json!(c.redux);
    }
    v
}

/// `n` and `what`, plural unless `n` is 1.
fn counted(n: u32, what: &str) -> String {
    format!("{} {}{}", n, what, if n == 1 { "" } else { "s" })
}

fn bit_list(mask: u32) -> Vec<u32> {
    (0..32).filter(|b| mask >> b & 1 == 1).collect()
}

/// `ll`'s tables as `layout!` writes them for a type (leaked: the process plans once and ends).
fn tables(ll: &LinearLayout, name: &'static str) -> Tables {
    let outs: Vec<&str> = ll.out_dim_names().collect();
    let dims: Vec<InDim> = ll
        .in_dim_names()
        .map(|d| {
            let bases: Vec<u32> = ll
                .in_dim_bases(d)
                .unwrap_or_default()
                .iter()
                .flat_map(|b| b.iter().map(|&x| x as u32))
                .collect();
            InDim {
                name: leak_str(d),
                size: ll.in_dim_size(d) as u32,
                bases: Box::leak(bases.into_boxed_slice()),
                // The plans do not read it; nothing else sees these tables.
                free_mask: 0,
            }
        })
        .collect();
    let shape: Vec<u32> = ll.out_dims().iter().map(|(_, s)| *s as u32).collect();
    Tables {
        name,
        kind: if ll.has_in_dim("offset") {
            LayoutKind::Shared
        } else {
            LayoutKind::Distributed
        },
        rank: outs.len(),
        shape: Box::leak(shape.into_boxed_slice()),
        in_dims: Box::leak(dims.into_boxed_slice()),
        // Collectives read distributed layouts only.
        padding: &[],
    }
}

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}
