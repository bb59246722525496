//! `layout -l A --to B -t TENSOR`: the conversion `convert!(A => B)` would emit, as Triton
//! plans it, and its cost (text or `--json`). A shared layout on one side gives the store or
//! load of `local_store` / `local_load`. The planning and its wording live in
//! `layout_core::convert::summarize`; this module solves the layouts and writes JSON.

use layout_core::convert::{summarize_padded, Cost, Force, PlanSummary, Target};
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
    /// The shared side's padding (`#ttg.padded_shared`), `(interval, pad)` in elements.
    pub padding: Vec<(u32, u32)>,
}

/// Both layouts solved for a tensor of `shape`, or a message naming the side that failed.
pub fn solve_pair(
    src: &Encoding,
    dst: &Encoding,
    shape: &[i64],
) -> Result<(LinearLayout, LinearLayout), String> {
    let solve = |e: &Encoding, side: &str| -> Result<LinearLayout, String> {
        e.to_linear_layout(shape)
            .map_err(|err| format!("the {} layout: {}", side, err))
    };
    Ok((
        solve(src, "source (-l)")?,
        solve(dst, "destination (--to)")?,
    ))
}

/// Plan `a => b` as `convert!` would; sm_90's model with the layouts' warp size unless
/// `--target` says otherwise.
pub fn plan(a: &LinearLayout, b: &LinearLayout, r: &Request) -> Result<PlanSummary, String> {
    let lanes = a.in_dim_size("lane").max(b.in_dim_size("lane")).max(1);
    let target = r.target.unwrap_or(Target::unspecified(lanes as u32));
    summarize_padded(a, b, &r.padding, r.bits, r.force, &target).map_err(|e| e.to_string())
}

/// The summary as one JSON object.
pub fn summary_json(s: &PlanSummary) -> serde_json::Value {
    let mut v = cost_json(&s.cost);
    v["kind"] = json!(s.kind.name());
    v["element_bits"] = json!(s.bits);
    if let Some(b) = s.barrier {
        v["barrier"] = json!(format!("{:?}", b));
    }
    for a in &s.sides {
        v[if a.store { "store" } else { "load" }] = json!({
            "count": a.count(),
            "elements": a.access.vec,
            "instruction": a.instruction,
            "wavefronts": a.conflicts.iter().map(|i| i.wavefronts()).sum::<u32>(),
            "ideal_wavefronts": a.conflicts.iter().map(|i| i.ideal()).sum::<u32>(),
        });
    }
    if s.gather {
        v["shuffle_form"] = json!("gather");
    }
    v
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
