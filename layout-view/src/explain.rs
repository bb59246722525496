//! `layout explain`: every layout-moving op of a TTGIR module (see [`layout_core::parse::module`])
//! planned as `convert!` plans it, for the GPU the module targets (`ttg.target = "cuda:90"`,
//! `"hip:gfx950"`), and ordered by cost, dearest first. Blackwell's tensor-memory ops are told as
//! the `tcgen05.ld`/`st` messages that move them.
//!
//! A `local_load` from a subview (`!ttg.memdesc<128x16xf16, ..., 128x32>`) reads the
//! allocation's layout: the shared layout is solved for the allocation shape and the tensor's
//! layout widened to it, as Triton lowers it.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use layout_core::convert::{summarize_padded, Force, PlanSummary, Target};
use layout_core::encodings::{tmem_messages, TmemMessages};
use layout_core::parse::module::{module_ops, ModuleOp, OpKind};
use layout_core::parse::TensorType;
use layout_core::LinearLayout;

/// What became of one op.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Planned: the summary and both layouts as the plan saw them.
    Planned(PlanSummary, LinearLayout, LinearLayout),
    /// A move between tensor memory and registers: its `tcgen05.ld`/`st` messages.
    TensorMemory(TmemMessages),
    /// No data moves through registers (an allocation without a value, an MMA): what it does.
    NoMove(String),
    /// It could not be planned: why.
    Unplanned(String),
}

/// One op and its plan.
#[derive(Clone, Debug)]
pub struct Explained {
    /// The op as the dump writes it.
    pub op: ModuleOp,
    /// Its plan.
    pub outcome: Outcome,
}

impl Explained {
    /// The planner's cost figure ([`layout_core::convert::Cost::weight`]); 0 without a plan.
    pub fn weight(&self) -> u32 {
        match &self.outcome {
            Outcome::Planned(s, ..) => s.cost.weight(),
            _ => 0,
        }
    }
}

/// The target a module names (`ttg.target = "cuda:90"`, `"hip:gfx942"`); sm_90 for a module
/// that names none, an error for one the planner does not model.
pub fn module_target(text: &str) -> Result<Target, String> {
    let Some(name) = module_attr(text, "ttg.target = \"").and_then(|r| r.split('"').next()) else {
        return Ok(Target::SM_90);
    };
    let by = |n: &str| Target::by_name(n).ok_or(());
    let found = match name.split_once(':') {
        Some(("cuda", cc)) if cc.starts_with('8') && cc.len() == 2 => by("sm_80"),
        Some(("cuda", cc)) if cc.starts_with('9') && cc.len() == 2 => by("sm_90"),
        Some(("cuda", cc)) if cc.starts_with("10") && cc.len() == 3 => by("sm_100"),
        Some(("hip", arch)) => by(arch),
        _ => Err(()),
    };
    found.map_err(|_| {
        format!(
            "the module's ttg.target = \"{}\" is not a GPU the planner models (cuda:8x, cuda:9x, cuda:10x, hip:gfx942, hip:gfx950, hip:gfx1250): give one with --target",
            name
        )
    })
}

/// What follows `key` on the module's `module attributes` line.
fn module_attr<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("module attributes"))?;
    line.split(key).nth(1)
}

/// The module's warps per CTA (`"ttg.num-warps" = 8`), 4 if it says none.
fn module_warps(text: &str) -> u32 {
    module_attr(text, "\"ttg.num-warps\" = ")
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(4)
}

/// Every layout-moving and tensor-memory op of the module, planned for `target`, dearest first
/// (ties in dump order).
pub fn explain_module(text: &str, target: &Target) -> Result<Vec<Explained>, String> {
    let warps = module_warps(text);
    let mut out: Vec<Explained> = module_ops(text)?
        .into_iter()
        .map(|op| {
            let outcome = match op.kind.is_tensor_memory() {
                true => tensor_memory_op(&op, warps),
                false => plan_op(&op, target),
            };
            Explained { op, outcome }
        })
        .collect();
    out.sort_by_key(|e| core::cmp::Reverse(e.weight()));
    Ok(out)
}

/// A tensor-memory op: the tcgen05 messages of a load or store, what an MMA reads.
fn tensor_memory_op(op: &ModuleOp, warps: u32) -> Outcome {
    let space = |t: &TensorType| match &t.encoding {
        Some(e) if e.is_tensor_memory() => "tensor memory",
        Some(e) if e.is_shared() => "shared memory",
        _ => "registers",
    };
    let (regs, tmem) = match (op.kind, &op.src) {
        (OpKind::TcGen5Mma, Some(a)) => {
            return Outcome::NoMove(format!(
                "tcgen05.mma: A from {} ({}), the accumulator in tensor memory ({}); no registers involved",
                space(a),
                op.layouts.0,
                op.layouts.1
            ))
        }
        (OpKind::TmemLoad, Some(s)) => (&op.dst, s),
        (OpKind::TmemStore | OpKind::TmemAlloc, Some(s)) => (s, &op.dst),
        _ => return Outcome::NoMove("allocates tensor memory; no data moves".into()),
    };
    let solved = solve(tmem, &tmem.shape).and_then(|t| Ok((t, solve(regs, &regs.shape)?)));
    let bits = op.dst.element_bits().unwrap_or(32);
    match solved.and_then(|(t, r)| tmem_messages(&t, &r, warps, bits).map_err(|e| e.to_string())) {
        Ok(m) => Outcome::TensorMemory(m),
        Err(e) => Outcome::Unplanned(e),
    }
}

fn plan_op(op: &ModuleOp, target: &Target) -> Outcome {
    let Some(src) = &op.src else {
        return Outcome::NoMove("allocates a buffer; no data moves".into());
    };
    let padding: Vec<(u32, u32)> = [src, &op.dst]
        .iter()
        .filter_map(|t| t.encoding.as_ref())
        .flat_map(|e| e.padding())
        .collect();
    match solve_pair(op, src) {
        Ok((a, b)) => {
            let bits = op.dst.element_bits().unwrap_or(32);
            match summarize_padded(&a, &b, &padding, bits, Force::Auto, target) {
                Ok(s) => Outcome::Planned(s, a, b),
                Err(e) => Outcome::Unplanned(e.to_string()),
            }
        }
        Err(e) => Outcome::Unplanned(e),
    }
}

/// Both sides' layouts; a shared side for its allocation shape, with the distributed side
/// widened to it.
fn solve_pair(op: &ModuleOp, src: &TensorType) -> Result<(LinearLayout, LinearLayout), String> {
    let (dist, smem) = match op.kind {
        OpKind::ConvertLayout => {
            return Ok((solve(src, &src.shape)?, solve(&op.dst, &op.dst.shape)?))
        }
        OpKind::LocalLoad => (&op.dst, src),
        OpKind::LocalAlloc | OpKind::LocalStore => (src, &op.dst),
        k => {
            return Err(format!(
                "{} is a tensor-memory op, not a conversion",
                k.name()
            ))
        }
    };
    let rank = dist.shape.len();
    let alloc = if smem.alloc_shape.len() >= rank {
        &smem.alloc_shape[smem.alloc_shape.len() - rank..]
    } else {
        &smem.shape[smem.shape.len().saturating_sub(rank)..]
    };
    let s = solve(smem, alloc)?;
    let mut d = solve(dist, &dist.shape)?;
    if alloc != dist.shape.as_slice() {
        // The subview's elements are the allocation's first ones along each dim: the same
        // bases, in out-dims of the allocation's sizes.
        let outs = d
            .out_dims()
            .iter()
            .zip(alloc)
            .map(|((n, _), &a)| (n.clone(), a as i32))
            .collect();
        d = LinearLayout::from_parts(d.bases().clone(), outs, false).map_err(|e| e.to_string())?;
    }
    Ok(if op.kind == OpKind::LocalLoad {
        (s, d)
    } else {
        (d, s)
    })
}

fn solve(t: &TensorType, shape: &[i64]) -> Result<LinearLayout, String> {
    let enc = t
        .encoding
        .as_ref()
        .ok_or("the type has no layout (encoding)")?;
    enc.to_linear_layout(shape).map_err(|e| e.to_string())
}

/// `%acc_40 (kernel.py:34)`, or the dump line where there is no result or location.
pub fn op_name(op: &ModuleOp) -> String {
    let name = op
        .result
        .clone()
        .unwrap_or_else(|| format!("{} at line {}", op.kind.name(), op.line));
    match &op.loc {
        Some(l) => format!(
            "{} ({}:{})",
            name,
            l.file.rsplit('/').next().unwrap_or(""),
            l.line
        ),
        None => name,
    }
}
