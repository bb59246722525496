//! Warp convergence of a kernel's aligned instructions, which the simulator cannot see: it
//! runs the kernel's Rust, while LLVM decides where each instruction lands. An `.aligned`
//! instruction (`bar.sync`, `mma.sync.aligned`, `wgmma.*.aligned`, ...) must be reached by all
//! of a warp's threads at the same instruction. LLVM treats inline asm as free to copy, so it
//! can tail-duplicate one into both arms of a branch on the lane (thread 0 initialising
//! mbarriers, the others waiting), and the hardware then lets a CTA barrier through early; a
//! kernel can also call one in both arms itself (which the simulator reports too).
//!
//! The check ([`check`], run by every build): a branch whose predicate depends on the lane
//! (`%laneid`, `%tid` other than `%tid.x` through its warp, lane masks, `elect.sync`, atomics'
//! results) splits its warp until its immediate post-dominator; no block between the two may
//! hold an aligned instruction. The lane dependence is followed through registers
//! flow-insensitively (LLVM's PTX assigns most registers once); a branch on the warp
//! (`%tid.x / 32`, `%tid.x > 255`) is uniform, not followed; a branch to a trap ends no
//! reconvergence (the lanes that trap never go on). Not checked: an aligned instruction under
//! a lane predicate of its own (`@%p bar.sync`, which LLVM does not emit for these), `.func`
//! bodies (kernels inline everything).

use std::collections::{BTreeMap, HashMap, HashSet};

/// A basic block: its statements and the blocks control can go to next.
struct Block<'a> {
    lines: Vec<&'a str>,
    /// The labels it branches to.
    targets: Vec<&'a str>,
    /// Whether control can fall through to the next block.
    falls: bool,
    /// `targets` and the fall-through as block indices.
    succ: Vec<usize>,
    /// It ends in `trap`: no thread that enters it goes on, so it constrains no reconvergence.
    traps: bool,
}

impl Block<'_> {
    fn new() -> Self {
        Block {
            lines: Vec::new(),
            targets: Vec::new(),
            falls: true,
            succ: Vec::new(),
            traps: false,
        }
    }
}

/// An entry's statements, one at a time (`trap; exit;` is two), trimmed.
fn statements<'a>(body: &[&'a str]) -> Vec<&'a str> {
    body.iter()
        .flat_map(|l| l.split_inclusive(';'))
        .map(str::trim)
        .collect()
}

/// Whether `op` must be reached by a warp converged: every `.aligned` form, and `bar.sync`,
/// `bar.arrive` and `bar.red` (also as `bar.cta.*`), which are `barrier.*.aligned`.
fn is_aligned(op: &str) -> bool {
    op.split('.').any(|part| part == "aligned")
        || [
            "bar.sync",
            "bar.arrive",
            "bar.red",
            "bar.cta.sync",
            "bar.cta.arrive",
            "bar.cta.red",
        ]
        .iter()
        .any(|b| op == *b || op.starts_with(&format!("{}.", b)))
}

/// The opcode of a statement (after its guard), or `None` for labels, braces and directives.
fn opcode(line: &str) -> Option<&str> {
    let mut words = line.split_whitespace();
    let mut w = words.next()?;
    if w.starts_with('@') {
        w = words.next()?;
    }
    let w = w.trim_end_matches(';');
    (!w.is_empty() && !w.ends_with(':') && !w.starts_with(['{', '}', '.', '/'])).then_some(w)
}

/// The `%` registers named in `s`.
fn regs(s: &str) -> Vec<&str> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '%' || c == '_' || c == '.'))
        .filter(|w| w.starts_with('%'))
        .map(|w| w.trim_end_matches('.'))
        .collect()
}

/// `(destinations, sources)` registers of a statement (`%` names; a guard is a source).
fn operands(line: &str) -> (Vec<&str>, Vec<&str>) {
    let line = line
        .split("//")
        .next()
        .unwrap_or("")
        .trim()
        .trim_end_matches(';');
    let (guard, rest) = match line.strip_prefix('@') {
        Some(g) => g.split_once(char::is_whitespace).unwrap_or((g, "")),
        None => ("", line),
    };
    let rest = rest.trim();
    let args = rest.split_once(char::is_whitespace).map_or("", |(_, a)| a);
    let mut sources = regs(guard.trim_start_matches('!'));
    // The first operand: a vector `{...}` whole, else up to the first comma.
    let end = match args.strip_prefix('{') {
        Some(v) => v.find('}').map_or(args.len(), |i| i + 2),
        None => args.find(',').unwrap_or(args.len()),
    };
    let (first, others) = args.split_at(end);
    if first.starts_with('[') {
        // A store's address: nothing is written to a register.
        sources.extend(regs(args));
        (Vec::new(), sources)
    } else {
        sources.extend(regs(others));
        (regs(first), sources)
    }
}

/// The basic blocks of an entry's statements: labels `$...:` start one, branches, `ret`,
/// `exit` and `trap` end one. Labels inside inline asm (`LAB_WAIT:`) are loops the asm keeps
/// to itself.
fn blocks<'a>(statements: &[&'a str]) -> Vec<Block<'a>> {
    let mut out = vec![Block::new()];
    let mut labels = BTreeMap::new();
    for &s in statements {
        if let Some(label) = s.strip_suffix(':').filter(|l| l.starts_with('$')) {
            if !out.last().unwrap().lines.is_empty() {
                out.push(Block::new());
            }
            labels.insert(label, out.len() - 1);
            continue;
        }
        let Some(op) = opcode(s) else { continue };
        let block = out.last_mut().unwrap();
        block.lines.push(s);
        let guarded = s.starts_with('@');
        let target = s
            .split_whitespace()
            .last()
            .unwrap_or("")
            .trim_end_matches(';');
        if op.starts_with("bra") && target.starts_with('$') {
            block.targets.push(target);
            block.falls = guarded;
            out.push(Block::new());
        } else if !guarded && (op == "ret" || op == "exit" || op == "trap") {
            block.falls = false;
            block.traps |= op == "trap";
            out.push(Block::new());
        }
    }
    let n = out.len();
    for (i, block) in out.iter_mut().enumerate() {
        block.succ = block
            .targets
            .iter()
            .filter_map(|t| labels.get(t).copied())
            .collect();
        if block.falls && i + 1 < n {
            block.succ.push(i + 1);
        }
    }
    out
}

/// What differs between the lanes of a warp: the lane, the thread's index (x through
/// [`warp_of`]'s exceptions), lane masks, `elect.sync`'s choice, an atomic's result.
const LANE_SOURCES: &[&str] = &["%laneid", "%tid.", "%lanemask", "elect.sync", "atom."];

/// Registers whose value depends on the lane: `%laneid`, `%tid.x` and everything computed from
/// them, except what [`warp_of`] takes from `%tid.x`, which is the same across a warp.
fn lane_registers<'a>(statements: &[&'a str]) -> HashSet<&'a str> {
    let parsed: Vec<_> = statements.iter().map(|l| (*l, operands(l))).collect();
    // How often each register is written: a `%tid.x` register is trusted to be only that (for
    // `warp_of`) when written once, since the set ignores the order of statements.
    let mut writes: HashMap<&str, usize> = HashMap::new();
    for d in parsed.iter().flat_map(|(_, (dests, _))| dests) {
        *writes.entry(d).or_default() += 1;
    }
    let tid: HashSet<&str> = parsed
        .iter()
        .filter(|(l, _)| l.contains("%tid.x"))
        .flat_map(|(_, (dests, _))| dests.iter().copied())
        .filter(|r| writes.get(r) == Some(&1))
        .collect();
    // Each statement that can carry the lane, with whether it always does (a lane source) or
    // only when a source does and it is not `warp_of`'s.
    let carriers: Vec<_> = parsed
        .iter()
        .filter(|(_, (dests, _))| !dests.is_empty())
        .map(|(l, ops)| {
            (
                LANE_SOURCES.iter().any(|s| l.contains(s)),
                !warp_of(l, &tid),
                ops,
            )
        })
        .collect();
    let mut lane: HashSet<&str> = HashSet::new();
    loop {
        let before = lane.len();
        for (always, follows, (dests, sources)) in &carriers {
            if *always || *follows && sources.iter().any(|s| lane.contains(s)) {
                lane.extend(dests.iter().copied());
            }
        }
        if lane.len() == before {
            return lane;
        }
    }
}

/// Whether `line` takes something warp-uniform from a `%tid.x` register: `shr` by 5 or more,
/// `and` with a constant whose low 5 bits are clear, or a comparison with a warp boundary
/// (`tid > 255`, a warp-specialised kernel's roles).
fn warp_of(line: &str, tid: &HashSet<&str>) -> bool {
    let Some(op) = opcode(line) else { return false };
    let args: Vec<&str> = line
        .trim()
        .trim_end_matches(';')
        .split_once(char::is_whitespace)
        .map_or("", |(_, a)| a)
        .split(',')
        .map(str::trim)
        .collect();
    let [_, src, imm] = args[..] else {
        return false;
    };
    let Ok(imm) = imm.parse::<i64>() else {
        return false;
    };
    let cmp = op.split('.').nth(1).unwrap_or("");
    let boundary = match cmp {
        "lt" | "ge" => imm % 32 == 0,
        "gt" | "le" => (imm + 1) % 32 == 0,
        _ => false,
    };
    tid.contains(src)
        && (op.starts_with("shr.") && imm >= 5
            || op.starts_with("and.") && imm & 31 == 0
            || op.starts_with("setp.") && boundary)
}

/// For each block, the blocks that post-dominate it (itself included); index `n` is the exit.
/// A trapping block is post-dominated by every block: the threads that enter it never meet the
/// others again, so a bounds check's trap does not make the rest of the kernel divergent.
fn post_dominators(blocks: &[Block]) -> Vec<Vec<bool>> {
    let n = blocks.len();
    let mut pdom = vec![vec![true; n + 1]; n + 1];
    pdom[n] = (0..=n).map(|i| i == n).collect();
    let succ = |b: usize| -> Vec<usize> {
        if blocks[b].succ.is_empty() {
            vec![n]
        } else {
            blocks[b].succ.clone()
        }
    };
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev().filter(|&b| !blocks[b].traps) {
            let mut set = vec![true; n + 1];
            for s in succ(b) {
                set.iter_mut().zip(&pdom[s]).for_each(|(x, y)| *x &= *y);
            }
            set[b] = true;
            if set != pdom[b] {
                pdom[b] = set;
                changed = true;
            }
        }
    }
    pdom
}

/// The aligned instructions of an entry reached between a branch on the lane and the point
/// where its warp meets again: `(branch, instruction)` pairs.
fn divergent_aligned<'a>(body: &[&'a str]) -> Vec<(&'a str, &'a str)> {
    let statements = statements(body);
    let blocks = blocks(&statements);
    let lane = lane_registers(&statements);
    let pdom = post_dominators(&blocks);
    let mut found = Vec::new();
    for (b, block) in blocks.iter().enumerate() {
        let Some(branch) = block.lines.last().filter(|l| l.starts_with('@')) else {
            continue;
        };
        if !operands(branch).1.iter().any(|r| lane.contains(r)) || block.succ.len() < 2 {
            continue;
        }
        let mut seen = vec![false; blocks.len()];
        let mut stack = block.succ.clone();
        while let Some(s) = stack.pop() {
            if seen[s] || pdom[b][s] {
                continue;
            }
            seen[s] = true;
            for line in &blocks[s].lines {
                if opcode(line).is_some_and(is_aligned) {
                    found.push((*branch, *line));
                }
            }
            stack.extend(&blocks[s].succ);
        }
    }
    found
}

/// Whether `line` begins a function (`.entry` or `.func`, `.visible`, `.weak` or neither).
fn starts_function(line: &str) -> bool {
    line.starts_with('.') && (line.contains(".entry ") || line.contains(".func "))
}

/// Every entry of `ptx` checked; the number of entries, or each aligned instruction that a
/// lane-dependent branch reaches.
pub fn check(ptx: &str) -> Result<usize, String> {
    let mut errors = Vec::new();
    let mut entries = 0;
    let mut lines = ptx.lines().peekable();
    while let Some(line) = lines.next() {
        let Some((_, name)) = line.split_once(".entry ").filter(|_| line.starts_with('.')) else {
            continue;
        };
        let name = name.split('(').next().unwrap_or(name);
        // To the next function: inline asm keeps its own braces at the line's start.
        let mut body = Vec::new();
        while let Some(l) = lines.peek().filter(|l| !starts_function(l)) {
            body.push(*l);
            lines.next();
        }
        entries += 1;
        for (branch, op) in divergent_aligned(&body) {
            errors.push(format!("{}: `{}` reached under `{}`", name, op, branch));
        }
    }
    if errors.is_empty() {
        Ok(entries)
    } else {
        Err(format!(
            "aligned instructions reached by part of a warp, which the GPU leaves undefined (a barrier \
             completes before the rest of the warp arrives):\n  {}\nEither the kernel calls them inside \
             a branch on the lane (`if t.lane() == 0 {{ .. t.sync_block() }}`: call them once, after \
             the branch), or LLVM copied one into such a branch, which happens to inline asm (wrap the \
             instruction in a convergent LLVM intrinsic, as `gpu-runtime`'s barriers are)",
            errors.join("\n  ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Thread 0 of warp 0 initialises a barrier; the CTA barrier after the `if`, as the
    /// source has it, or copied by LLVM into both arms (what ran early on an H200).
    const JOINED: &str = "\
\tmov.u32 \t%r2, %tid.x;
\tshr.u32 \t%r3, %r2, 5;
\tsetp.ne.b32 \t%p1, %r3, 0;
\t@%p1 bra \t$L__BB0_2;
\tmov.u32 %r4, %laneid;
\tsetp.ne.b32 \t%p2, %r4, 0;
\t@%p2 bra \t$L__BB0_2;
\tmbarrier.init.shared::cta.b64 [%r1], %r5;
$L__BB0_2:
\tbar.sync \t0;
\tret;";
    const COPIED: &str = "\
\tmov.u32 \t%r2, %tid.x;
\tshr.u32 \t%r3, %r2, 5;
\tsetp.ne.b32 \t%p1, %r3, 0;
\t@%p1 bra \t$L__BB0_3;
\tmov.u32 %r4, %laneid;
\tadd.s32 \t%r6, %r4, 0;
\tsetp.ne.b32 \t%p2, %r6, 0;
\t@%p2 bra \t$L__BB0_3;
\tbra.uni \t$L__BB0_1;
$L__BB0_3:
\tbar.sync 0;
\tbra.uni \t$L__BB0_5;
$L__BB0_1:
\tmbarrier.init.shared::cta.b64 [%r1], %r5;
\tbar.sync 0;
$L__BB0_5:
\tret;";

    fn lines(s: &str) -> Vec<&str> {
        s.lines().collect()
    }

    #[test]
    fn a_barrier_after_the_lane_branch_joins() {
        assert!(divergent_aligned(&lines(JOINED)).is_empty());
    }

    #[test]
    fn a_barrier_copied_into_the_lane_branch_is_found() {
        let found = divergent_aligned(&lines(COPIED));
        assert_eq!(found.len(), 2, "{:?}", found);
        assert!(found
            .iter()
            .all(|(b, op)| b.contains("%p2") && op.starts_with("bar.sync")));
    }

    #[test]
    fn a_branch_on_the_warp_is_uniform() {
        // The same copies under the warp's branch alone: the warp takes one arm whole.
        let warp_only = COPIED.replace("setp.ne.b32 \t%p2, %r6, 0", "setp.ne.b32 \t%p2, %r3, 1");
        assert!(divergent_aligned(&lines(&warp_only)).is_empty());
    }

    #[test]
    fn a_branch_on_the_thread_index_splits_a_warp_unless_on_a_warp_boundary() {
        let on = |cmp: &str| COPIED.replace("setp.ne.b32 \t%p2, %r6, 0", cmp);
        for split in [
            "setp.eq.u32 \t%p2, %r2, 0",
            "setp.gt.u32 \t%p2, %r2, 15",
            "setp.lt.u32 \t%p2, %r2, 48",
        ] {
            assert_eq!(divergent_aligned(&lines(&on(split))).len(), 2, "{}", split);
        }
        for warps in [
            "setp.gt.u32 \t%p2, %r2, 255",
            "setp.lt.u32 \t%p2, %r2, 64",
            "setp.ne.b32 \t%p2, %r3, 0",
        ] {
            assert!(
                divergent_aligned(&lines(&on(warps))).is_empty(),
                "{}",
                warps
            );
        }
    }

    #[test]
    fn entries_are_named_in_the_error() {
        // Inline asm keeps its braces at the line's start, inside the entry.
        let asm = "{\n.reg .pred p;\nLAB_WAIT:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%r1], %r5;\n@!p bra LAB_WAIT;\n}\n";
        let ptx = format!(
            ".visible .entry good(\n)\n{{\n{}\n}}\n.visible .entry bad(\n)\n{{\n{}{}\n}}\n",
            JOINED, asm, COPIED
        );
        let err = check(&ptx).unwrap_err();
        assert!(
            err.contains("bad: `bar.sync 0;`") && !err.contains("good:"),
            "{}",
            err
        );
        assert_eq!(
            check(&format!(".visible .entry good(\n)\n{{\n{}\n}}\n", JOINED)),
            Ok(1)
        );
    }

    #[test]
    fn returns_end_blocks_and_traps_do_not_split_the_warp() {
        // Each arm returns on its own: both copies are found.
        let returns = "\tmov.u32 %r4, %laneid;\n\tsetp.ne.b32 \t%p2, %r4, 0;\n\t@%p2 bra \t$L__BB0_2;\n\tmbarrier.init.shared::cta.b64 [%r1], %r5;\n\tbar.sync \t0;\n\tret;\n$L__BB0_2:\n\tbar.sync \t0;\n\tret;";
        assert_eq!(divergent_aligned(&lines(returns)).len(), 2);
        // A lane's bounds check that traps: the lanes that go on are the whole warp.
        let checked = "\tmov.u32 %r4, %laneid;\n\tsetp.gt.u32 \t%p2, %r4, 40;\n\t@%p2 bra \t$L__BB0_9;\n\tbar.sync \t0;\n\tret;\n$L__BB0_9:\n\ttrap; exit;";
        assert!(divergent_aligned(&lines(checked)).is_empty());
    }

    #[test]
    fn aligned_kinds() {
        for op in [
            "bar.sync",
            "bar.cta.sync",
            "bar.arrive",
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
            "wgmma.fence.sync.aligned",
            "barrier.cluster.wait.aligned",
            "barrier.sync.aligned",
        ] {
            assert!(is_aligned(op), "{}", op);
        }
        for op in [
            "barrier.sync",
            "bar.warp.sync",
            "shfl.sync.bfly.b32",
            "mbarrier.arrive.shared::cta.b64",
            "barrier.cluster.wait",
        ] {
            assert!(!is_aligned(op), "{}", op);
        }
    }
}
