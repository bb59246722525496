//! What a plan does, for people: the strategy, the cost, and each shared-memory side's PTX
//! instruction and bank conflicts. One summary feeds the CLI's `--to` text and JSON, the HTML
//! conversion view and `layout explain`, so they cannot disagree with each other or with
//! `convert!` (all plan through [`plan_conversion_for`] / [`plan_padded_access`]).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{
    bank_conflicts, plan_conversion_for, plan_padded_access, Barrier, Cost, Force, Instr,
    InstrConflicts, PlanBody, SmemAccess, Strategy, Target,
};
use crate::error::bail;
use crate::{LinearLayout, Result};

/// What moves: a conversion between distributed layouts, or a store to / load from a shared one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanKind {
    /// `ttg.convert_layout`.
    Conversion,
    /// `ttg.local_alloc` with a value, `ttg.local_store`.
    Store,
    /// `ttg.local_load`.
    Load,
}

impl PlanKind {
    /// `conversion`, `store to shared memory`, `load from shared memory`.
    pub fn name(self) -> &'static str {
        match self {
            PlanKind::Conversion => "conversion",
            PlanKind::Store => "store to shared memory",
            PlanKind::Load => "load from shared memory",
        }
    }
}

/// One side's shared-memory accesses as the PTX issues them.
#[derive(Clone, Debug)]
pub struct SideAccess {
    /// A store (else a load).
    pub store: bool,
    /// The access tables.
    pub access: SmemAccess,
    /// The PTX instruction (`st.shared.v4.b32`, `ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16`).
    pub instruction: String,
    /// Per instruction, its wavefronts per phase (warp 0).
    pub conflicts: Vec<InstrConflicts>,
}

impl SideAccess {
    fn of(access: SmemAccess, store: bool, bits: u32, lanes: usize, target: &Target) -> Self {
        let instruction = instruction_name(&access, store, bits, target);
        let conflicts = bank_conflicts(&access, (bits / 8).max(1), lanes, !store, target);
        SideAccess {
            store,
            access,
            instruction,
            conflicts,
        }
    }
    /// Instructions per thread.
    pub fn count(&self) -> u32 {
        self.access.reg_offsets.len() as u32
    }
}

/// A planned conversion, store or load, summarised.
#[derive(Clone, Debug)]
pub struct PlanSummary {
    /// What moves.
    pub kind: PlanKind,
    /// Element size in bits.
    pub bits: u32,
    /// The cost, as `convert!` publishes it.
    pub cost: Cost,
    /// The barrier of a shared-memory round trip.
    pub barrier: Option<Barrier>,
    /// The shared-memory sides: store then load.
    pub sides: Vec<SideAccess>,
    /// A gather (lanes reading the same source) rather than a bit permutation of shuffles.
    pub gather: bool,
    /// The target's shared-memory banks (the pictures of the plan colour by them).
    pub banks: u32,
}

/// `ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16`, `st.shared::cluster.v4.b32`, ...
pub fn instruction_name(a: &SmemAccess, store: bool, bits: u32, target: &Target) -> String {
    let op = if store { "st" } else { "ld" };
    if target.isa == layout_plan::Isa::Amdgcn {
        return amdgcn_name(a, store, bits, target);
    }
    match a.instr {
        Instr::Matrix { count, trans } => format!(
            "{}matrix.sync.aligned.m8n8.x{}{}.shared.b16",
            op,
            count,
            if trans { ".trans" } else { "" }
        ),
        Instr::Vector | Instr::TransRead { .. } => {
            let space = if a.remote {
                "shared::cluster"
            } else {
                "shared"
            };
            let ty = match a.vec * bits / 8 {
                16 => String::from(".v4.b32"),
                8 => String::from(".v2.b32"),
                b => format!(".b{}", 8 * b),
            };
            format!("{}.{}{}", op, space, ty)
        }
    }
}

/// LLVM's AMDGPU name of an LDS access: `ds_read_b128` (`ds_load_b128` from gfx12 on, as LLVM
/// spells that generation's mnemonics), or a transposed read (`ds_read_b64_tr_b16`,
/// `ds_load_tr16_b128`).
fn amdgcn_name(a: &SmemAccess, store: bool, bits: u32, target: &Target) -> String {
    let gfx12 = target.name.starts_with("gfx12");
    let bytes = a.vec * bits / 8;
    if let (Instr::TransRead { .. }, false) = (a.instr, store) {
        return match gfx12 {
            true => format!("ds_load_tr{}_b{}", bits, 8 * bytes),
            false => format!("ds_read_b{}_tr_b{}", 8 * bytes, bits),
        };
    }
    let verb = match (store, gfx12) {
        (true, false) => "ds_write",
        (true, true) => "ds_store",
        (false, false) => "ds_read",
        (false, true) => "ds_load",
    };
    match bytes {
        1 | 2 if !store => format!("{}_u{}", verb, 8 * bytes),
        b => format!("{}_b{}", verb, 8 * b),
    }
}

/// Plan `src => dst` (solved for one tensor) as `convert!` would under `target`: a conversion
/// between distributed layouts, or the store (`dst` shared) or load (`src` shared) of
/// `local_store` / `local_load`.
pub fn summarize(
    src: &LinearLayout,
    dst: &LinearLayout,
    bits: u32,
    force: Force,
    target: &Target,
) -> Result<PlanSummary> {
    summarize_padded(src, dst, &[], bits, force, target)
}

/// [`summarize`] where the shared side is padded (`#ttg.padded_shared`'s `(interval, pad)`
/// pairs in elements; empty for other layouts).
pub fn summarize_padded(
    src: &LinearLayout,
    dst: &LinearLayout,
    padding: &[(u32, u32)],
    bits: u32,
    force: Force,
    target: &Target,
) -> Result<PlanSummary> {
    let shared = |l: &LinearLayout| l.has_in_dim("offset");
    let lanes = [src, dst]
        .iter()
        .map(|l| l.in_dim_size("lane"))
        .max()
        .unwrap_or(1)
        .max(1) as usize;
    let mut s = PlanSummary {
        kind: PlanKind::Conversion,
        bits,
        cost: Cost::of(Strategy::Nothing),
        barrier: None,
        sides: Vec::new(),
        gather: false,
        banks: target.banks,
    };
    match (shared(src), shared(dst)) {
        (true, true) => bail!("both layouts are shared: a conversion stores a distributed layout into shared memory, loads one from it, or converts between distributed layouts"),
        (false, false) => {
            let plan = plan_conversion_for(target, src, dst, bits, force)?;
            match plan.body {
                PlanBody::Shared(p) => {
                    s.barrier = Some(p.barrier);
                    s.sides.push(SideAccess::of(p.store, true, bits, lanes, target));
                    s.sides.push(SideAccess::of(p.load, false, bits, lanes, target));
                }
                PlanBody::Gather(_) => s.gather = true,
                _ => {}
            }
            s.cost = plan.cost;
        }
        (_, store) => {
            if force != Force::Auto {
                bail!("a forced strategy applies to conversions between distributed layouts; a store or load to a shared layout has one plan");
            }
            let (d, m) = if store { (src, dst) } else { (dst, src) };
            let (acc, cost) = plan_padded_access(d, m, padding, bits, store, target)?;
            s.kind = if store { PlanKind::Store } else { PlanKind::Load };
            s.sides.push(SideAccess::of(acc, store, bits, lanes, target));
            s.cost = cost;
        }
    }
    Ok(s)
}

/// `1 store`, `2 stores`.
fn count_of(n: u32, noun: &str) -> String {
    format!("{} {}{}", n, noun, if n == 1 { "" } else { "s" })
}

/// What the strategy means, in words.
pub fn strategy_name(s: Strategy) -> &'static str {
    match s {
        Strategy::Nothing => "nothing (the layouts are equal)",
        Strategy::Registers => "registers (each thread already holds its values)",
        Strategy::Shuffles => "warp shuffles",
        Strategy::SharedMemory => "shared memory",
    }
}

impl PlanSummary {
    /// The summary as lines of text (the CLI's `--to` output).
    pub fn text(&self) -> String {
        let c = &self.cost;
        let mut out = if self.kind == PlanKind::Conversion {
            format!(
                "conversion of {}-bit elements: {}{}\n",
                self.bits,
                strategy_name(c.strategy),
                if self.gather {
                    " (lanes reading the same source)"
                } else {
                    ""
                }
            )
        } else {
            format!("{} of {}-bit elements\n", self.kind.name(), self.bits)
        };
        if c.shuffles + c.selects > 0 {
            out.push_str(&format!(
                "  per thread: {}, {}\n",
                count_of(c.shuffles, "shuffle"),
                count_of(c.selects, "select")
            ));
        }
        for a in self.sides.iter().filter(|a| a.count() > 0) {
            out.push_str(&format!(
                "  per thread: {} of {} ({})\n",
                count_of(a.count(), if a.store { "store" } else { "load" }),
                count_of(a.access.vec, "element"),
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
            let kind = match self.barrier {
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
}
