//! `layout explain`: every layout-moving op of a TTGIR module (see [`layout_core::parse::module`])
//! planned as `convert!` plans it, for the GPU the module targets (`ttg.target = "cuda:90"`), and
//! ordered by cost, dearest first.
//!
//! A `local_load` from a subview (`!ttg.memdesc<128x16xf16, ..., 128x32>`) reads the
//! allocation's layout: the shared layout is solved for the allocation shape and the tensor's
//! layout widened to it, as Triton lowers it.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use layout_core::convert::{summarize, Force, PlanSummary, Target};
use layout_core::parse::module::{module_ops, ModuleOp, OpKind};
use layout_core::parse::TensorType;
use layout_core::LinearLayout;

/// What became of one op.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Planned: the summary and both layouts as the plan saw them.
    Planned(PlanSummary, LinearLayout, LinearLayout),
    /// No data moves (an allocation without a value).
    NoMove(&'static str),
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

/// The target a module names (`ttg.target = "cuda:80"`), sm_90 if it names none we model.
pub fn module_target(text: &str) -> Target {
    let cc = text
        .split("ttg.target = \"cuda:")
        .nth(1)
        .and_then(|r| r.split('"').next());
    match cc {
        Some(c) if c.starts_with('8') => Target::SM_80,
        _ => Target::SM_90,
    }
}

/// Every layout-moving op of the module, planned for `target`, dearest first (ties in dump
/// order).
pub fn explain_module(text: &str, target: &Target) -> Result<Vec<Explained>, String> {
    let mut out: Vec<Explained> = module_ops(text)?
        .into_iter()
        .map(|op| {
            let outcome = plan_op(&op, target);
            Explained { op, outcome }
        })
        .collect();
    out.sort_by_key(|e| core::cmp::Reverse(e.weight()));
    Ok(out)
}

fn plan_op(op: &ModuleOp, target: &Target) -> Outcome {
    let Some(src) = &op.src else {
        return Outcome::NoMove("allocates a buffer; no data moves");
    };
    match solve_pair(op, src) {
        Ok((a, b)) => {
            let bits = op.dst.element_bits().unwrap_or(32);
            match summarize(&a, &b, bits, Force::Auto, target) {
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
