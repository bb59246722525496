//! `layout -l A --to B -t TENSOR`: the conversion `convert!(A => B)` would emit, as Triton
//! plans it, and its cost (text or `--json`). A shared layout on one side gives the store or
//! load of `local_store` / `local_load`.

use layout_core::convert::{
    plan_conversion_for, plan_shared_access, Barrier, Cost, Force, Instr, PlanBody, SmemAccess,
    Strategy, Target,
};
use layout_core::{Encoding, LinearLayout};
use serde_json::json;

/// What `--to` asks for besides the two layouts.
pub struct Request {
    /// Element size in bits.
    pub bits: u32,
    /// `--strategy`.
    pub force: Force,
    /// `--target`, if given.
    pub target: Option<Target>,
    /// `--json`.
    pub json: bool,
}

/// Plan `src => dst` for a tensor of `shape`.
pub fn describe(
    src: &Encoding,
    dst: &Encoding,
    shape: &[i64],
    r: &Request,
) -> Result<String, String> {
    let (bits, force) = (r.bits, r.force);
    let solve = |e: &Encoding, side: &str| -> Result<LinearLayout, String> {
        e.to_linear_layout(shape)
            .map_err(|err| format!("the {} layout: {}", side, err))
    };
    let (a, b) = (
        solve(src, "source (-l)")?,
        solve(dst, "destination (--to)")?,
    );
    let lanes = [&a, &b]
        .iter()
        .map(|l| l.in_dim_size("lane"))
        .max()
        .unwrap_or(1)
        .max(1);
    let target = &r.target.unwrap_or(Target::unspecified(lanes as u32));
    // The barrier kind of a shared-memory conversion (warp, CTA, or cluster across CTAs), and
    // each side's accesses.
    let mut barrier = None;
    let mut sides: Vec<Access> = Vec::new();
    let mut gather = false;
    let (what, cost) = match (src.is_shared(), dst.is_shared()) {
        (true, true) => {
            return Err("both layouts are shared: a conversion stores a distributed layout into shared memory, loads one from it, or converts between distributed layouts".into())
        }
        (false, true) | (true, false) => {
            if force != Force::Auto {
                return Err("--strategy applies to conversions between distributed layouts; a store or load to a shared layout has one plan".into());
            }
            let store = dst.is_shared();
            let (d, s) = if store { (&a, &b) } else { (&b, &a) };
            let (acc, cost) = plan_shared_access(d, s, bits, store, target).map_err(|e| e.to_string())?;
            sides.push(Access::of(&acc, store, bits));
            (if store { "store to shared memory" } else { "load from shared memory" }, cost)
        }
        (false, false) => {
            let plan =
                plan_conversion_for(target, &a, &b, bits, force).map_err(|e| e.to_string())?;
            match &plan.body {
                PlanBody::Shared(p) => {
                    barrier = Some(p.barrier);
                    sides.push(Access::of(&p.store, true, bits));
                    sides.push(Access::of(&p.load, false, bits));
                }
                PlanBody::Gather(_) => gather = true,
                _ => {}
            }
            ("conversion", plan.cost)
        }
    };
    Ok(if r.json {
        let mut v = cost_json(&cost);
        v["kind"] = json!(what);
        v["element_bits"] = json!(bits);
        if let Some(b) = barrier {
            v["barrier"] = json!(format!("{:?}", b));
        }
        for a in &sides {
            v[if a.store { "store" } else { "load" }] = json!({
                "count": a.count,
                "elements": a.elements,
                "instruction": a.instruction,
            });
        }
        if gather {
            v["shuffle_form"] = json!("gather");
        }
        format!("{}\n", v)
    } else {
        cost_text(what, bits, &cost, barrier, &sides, gather)
    })
}

/// One side's shared-memory accesses as the PTX will issue them.
pub(crate) struct Access {
    store: bool,
    /// Instructions per thread.
    count: u32,
    /// Elements each moves.
    elements: u32,
    /// The PTX instruction (`st.shared.v4.b32`, `ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16`).
    pub(crate) instruction: String,
}

impl Access {
    pub(crate) fn of(a: &SmemAccess, store: bool, bits: u32) -> Self {
        let op = if store { "st" } else { "ld" };
        let instruction = match a.instr {
            Instr::Matrix { count, trans } => format!(
                "{}matrix.sync.aligned.m8n8.x{}{}.shared.b16",
                op,
                count,
                if trans { ".trans" } else { "" }
            ),
            Instr::Vector => {
                let space = if a.remote {
                    "shared::cluster"
                } else {
                    "shared"
                };
                let ty = match a.vec * bits / 8 {
                    16 => ".v4.b32".to_string(),
                    8 => ".v2.b32".to_string(),
                    b => format!(".b{}", 8 * b),
                };
                format!("{}.{}{}", op, space, ty)
            }
        };
        Access {
            store,
            count: a.reg_offsets.len() as u32,
            elements: a.vec,
            instruction,
        }
    }
}

/// `1 store`, `2 stores`.
fn count_of(n: u32, noun: &str) -> String {
    format!("{} {}{}", n, noun, if n == 1 { "" } else { "s" })
}

fn strategy_name(s: Strategy) -> &'static str {
    match s {
        Strategy::Nothing => "nothing (the layouts are equal)",
        Strategy::Registers => "registers (each thread already holds its values)",
        Strategy::Shuffles => "warp shuffles",
        Strategy::SharedMemory => "shared memory",
    }
}

fn cost_json(c: &Cost) -> serde_json::Value {
    json!({
        "strategy": format!("{:?}", c.strategy),
        "shuffles": c.shuffles,
        "selects": c.selects,
        "shared_bytes": c.shared_bytes,
        "stores": c.stores,
        "loads": c.loads,
        "vector": c.vector,
        "write_conflicts": c.write_conflicts,
        "read_conflicts": c.read_conflicts,
        "barriers": c.barriers,
    })
}

fn cost_text(
    what: &str,
    bits: u32,
    c: &Cost,
    barrier: Option<Barrier>,
    sides: &[Access],
    gather: bool,
) -> String {
    let mut out = if what == "conversion" {
        format!(
            "conversion of {}-bit elements: {}{}\n",
            bits,
            strategy_name(c.strategy),
            if gather {
                " (lanes reading the same source)"
            } else {
                ""
            }
        )
    } else {
        format!("{} of {}-bit elements\n", what, bits)
    };
    if c.shuffles + c.selects > 0 {
        out.push_str(&format!(
            "  per thread: {}, {}\n",
            count_of(c.shuffles, "shuffle"),
            count_of(c.selects, "select")
        ));
    }
    for a in sides.iter().filter(|a| a.count > 0) {
        out.push_str(&format!(
            "  per thread: {} of {} ({})\n",
            count_of(a.count, if a.store { "store" } else { "load" }),
            count_of(a.elements, "element"),
            a.instruction
        ));
    }
    if c.stores + c.loads > 0 {
        out.push_str(&format!(
            "  bank conflicts (extra wavefronts per instruction, worst case): {} on stores, {} on loads\n",
            c.write_conflicts, c.read_conflicts
        ));
    }
    if c.shared_bytes > 0 {
        out.push_str(&format!(
            "  shared memory: {} bytes per CTA\n",
            c.shared_bytes
        ));
    }
    if c.barriers > 0 {
        let kind = match barrier {
            Some(Barrier::Warp) => " (warp)",
            Some(Barrier::Block) => " (CTA)",
            Some(Barrier::Cluster) => {
                " (cluster: data moves between CTAs through distributed shared memory)"
            }
            None => "",
        };
        out.push_str(&format!("  barriers: {}{}\n", c.barriers, kind));
    }
    out
}
