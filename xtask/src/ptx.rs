//! Building the kernels for nvptx64 and reading the PTX back.

use std::path::PathBuf;

/// Build `kernels` for sm_90a (wgmma needs the arch-specific target) with the builder users get, into `target/ptx/kernels.ptx`.
pub fn build() -> Result<PathBuf, String> {
    let root = crate::root();
    layout_builder::PtxBuilder::new(root.join("kernels"))
        .arch("sm_90a")
        .target_dir(root.join("target/nvptx"))
        .out_file(root.join("target/ptx/kernels.ptx"))
        .build()
        .map_err(|e| e.to_string())
}

/// Instructions of each `.func` / `.entry` in a PTX file: statements ending in `;` inside the
/// body that are not declarations (`.reg`, `.param`, `.local`, `.shared`).
pub fn count_instructions(ptx: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut name: Option<String> = None;
    let mut depth = 0usize;
    let mut count = 0usize;
    for line in ptx.lines() {
        let t = line.trim();
        if depth == 0 {
            if t.contains(".func") || t.contains(".entry") {
                // `.visible .func (.param .b64 func_retval0) tile_macro(`
                let head = t.split('(').collect::<Vec<_>>();
                let candidate = if t.contains(".func (") || t.contains(".func  (") {
                    head.get(1)
                        .and_then(|s| s.split(')').nth(1))
                        .map(|s| s.trim().to_string())
                } else {
                    head.first()
                        .and_then(|s| s.split_whitespace().last())
                        .map(String::from)
                };
                if let Some(c) = candidate.filter(|c| !c.is_empty()) {
                    name = Some(c);
                }
            }
            if t == "{" && name.is_some() {
                depth = 1;
                count = 0;
            }
            continue;
        }
        if t == "{" {
            depth += 1;
        } else if t == "}" {
            depth -= 1;
            if depth == 0 {
                if let Some(n) = name.take() {
                    out.push((n, count));
                }
            }
        } else if t.ends_with(';') && !t.starts_with('.') && !t.starts_with("//") {
            count += 1;
        }
    }
    out
}

/// The global-memory instructions each kernel issues, as the PTX has them today: the transposes
/// load and store through `Tile`, whose 16-byte-contiguous layouts must give `v4` accesses;
/// every other count guards a kernel's access widths against regressions.
const GLOBAL_ACCESSES: &[(&str, &str, usize)] = &[
    // Q's 16-byte loads (LLVM reloads one word of each as a 32-bit load, as in the GEMMs), K's
    // and V's 16-byte copies at two sites (block 0, the loop's next block), O's stores.
    ("attention_bf16", "cp.async.cg.shared.global", 8),
    ("attention_bf16", "ld.global.b32", 4),
    ("attention_bf16", "ld.global.v4.b32", 4),
    ("attention_bf16", "st.global.v4.b32", 4),
    // At head dimension 128, Q goes by cp.async into shared memory too (8 copies).
    ("attention_d128_bf16", "cp.async.cg.shared.global", 24),
    ("attention_d128_bf16", "st.global.v4.b32", 8),
    ("attention_d128_f16", "cp.async.cg.shared.global", 24),
    ("attention_d128_f16", "st.global.v4.b32", 8),
    ("attention_f16", "cp.async.cg.shared.global", 8),
    ("attention_f16", "ld.global.b32", 4),
    ("attention_f16", "ld.global.v4.b32", 4),
    ("attention_f16", "st.global.v4.b32", 4),
    // Q's 16-byte copies (4 a thread at head dim 64, 8 at 128), and K's and V's (2 each, or 4)
    // at three sites: block 0, block 1 (the first step is peeled off the loop) and the loop's.
    (
        "attention_hopper_bf16",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
        7,
    ),
    ("attention_hopper_bf16", "st.global.v4.b32", 4),
    (
        "attention_hopper_d128_bf16",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
        14,
    ),
    ("attention_hopper_d128_bf16", "st.global.v4.b32", 8),
    (
        "attention_hopper_d128_f16",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
        14,
    ),
    ("attention_hopper_d128_f16", "st.global.v4.b32", 8),
    (
        "attention_hopper_f16",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
        7,
    ),
    ("attention_hopper_f16", "st.global.v4.b32", 4),
    ("cluster_transpose", "ld.global.v4.b32", 4),
    ("cluster_transpose", "st.global.v4.b32", 4),
    ("compaction_offsets_rows", "ld.global.v2.b32", 4),
    ("compaction_offsets_rows", "st.global.b64", 4),
    ("copy_v4", "ld.global.b64", 2),
    ("copy_v4", "st.global.b64", 2),
    // The scans' 2-element vectors: 4 rows of a warp per thread, or one run of 2.
    ("cumsum_line_f32", "ld.global.v2.b32", 1),
    ("cumsum_line_f32", "st.global.v2.b32", 1),
    ("cumsum_rows_f32", "ld.global.v2.b32", 4),
    ("cumsum_rows_f32", "st.global.v2.b32", 4),
    // Two rows of pairs per thread, joined or split in registers: whole 16-byte vectors.
    ("deinterleave_f32", "ld.global.v4.b32", 2),
    ("deinterleave_f32", "st.global.v4.b32", 2),
    ("fp16_to_fp8_operand", "ld.global.b16", 16),
    ("fp16_to_fp8_operand", "st.global.b32", 8),
    ("gelu_tanh_f16", "ld.global.v4.b32", 1),
    ("gelu_tanh_f16", "st.global.v4.b32", 1),
    // Per K step 2 + 2 16-byte operand loads on each B path; LLVM reloads the first word of one
    // vector per operand as a 32-bit load (it recombines the halves that were split out of it).
    ("gemm_bf16", "ld.global.b32", 6),
    ("gemm_bf16", "ld.global.v4.b32", 6),
    ("gemm_bf16", "st.global.v4.b32", 4),
    ("gemm_f16", "ld.global.b32", 6),
    ("gemm_f16", "ld.global.v4.b32", 6),
    ("gemm_f16", "st.global.v4.b32", 4),
    // TMA boxes: per K step A's and 4 of a row-major B (or 1 of a column-major one), at the
    // sites of the prologue (copied by LLVM) and of the main loop; the epilogue's 16-byte stores
    // for each B order.
    (
        "gemm_hopper_bf16",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
        24,
    ),
    ("gemm_hopper_bf16", "st.global.v4.b32", 32),
    (
        "gemm_hopper_f16",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
        24,
    ),
    ("gemm_hopper_f16", "st.global.v4.b32", 32),
    // The warp-specialised producer's loop, which LLVM peels into 3 copies per B order:
    // 3 x (1 + 4) boxes for a row-major B, 3 x (1 + 1) for a column-major one.
    (
        "gemm_hopper_ws_bf16",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
        21,
    ),
    ("gemm_hopper_ws_bf16", "st.global.v4.b32", 32),
    (
        "gemm_hopper_ws_f16",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
        21,
    ),
    ("gemm_hopper_ws_f16", "st.global.v4.b32", 32),
    // 16-byte async copies per K step: 4 of A, 4 of B for each B order; issued at two sites
    // (the prologue's loop and the main loop).
    ("gemm_pipelined_bf16", "cp.async.cg.shared.global", 24),
    ("gemm_pipelined_bf16", "st.global.v4.b32", 16),
    ("gemm_pipelined_f16", "cp.async.cg.shared.global", 24),
    ("gemm_pipelined_f16", "st.global.v4.b32", 16),
    ("index_kernel", "st.global.b64", 11),
    ("interleave_f32", "ld.global.v4.b32", 2),
    ("interleave_f32", "st.global.v4.b32", 2),
    ("mma_acc_regperm", "ld.global.v2.b32", 16),
    ("mma_acc_regperm", "st.global.v2.b32", 16),
    ("mma_acc_to_operand", "ld.global.b32", 16),
    ("mma_acc_to_operand", "st.global.b32", 16),
    // The accumulator's pairs of f32 in, rows of 16-byte vectors out.
    ("mma_acc_to_rows", "ld.global.v2.b32", 16),
    ("mma_acc_to_rows", "st.global.v4.b32", 8),
    ("mma_acc_to_rows_generic", "ld.global.v2.b32", 16),
    ("mma_acc_to_rows_generic", "st.global.v4.b32", 8),
    ("nvmma_roundtrip", "ld.global.b32", 4),
    ("nvmma_roundtrip", "ld.global.v4.b32", 4),
    ("nvmma_roundtrip", "st.global.v4.b32", 4),
    // One vector of the row per thread; each copy of the row's sum stores it.
    ("row_sums_column_f32", "ld.global.v4.b32", 1),
    ("row_sums_column_f32", "st.global.b32", 1),
    ("silu_f16", "ld.global.v4.b32", 1),
    ("silu_f16", "st.global.v4.b32", 1),
    ("suffix_sums_exclusive_line_f32", "ld.global.v2.b32", 1),
    ("suffix_sums_exclusive_line_f32", "st.global.v2.b32", 1),
    ("suffix_sums_rows_f32", "ld.global.v2.b32", 4),
    ("suffix_sums_rows_f32", "st.global.v2.b32", 4),
    // A tile read as its transpose, through shared memory to 16-byte stores.
    ("trans_f32", "ld.global.v4.b32", 1),
    ("trans_f32", "st.global.v4.b32", 1),
    ("transpose_f32", "ld.global.v4.b32", 8),
    ("transpose_f32", "st.global.v4.b32", 8),
    ("transpose_f32_generic", "ld.global.v4.b32", 8),
    ("transpose_f32_generic", "st.global.v4.b32", 8),
    ("transpose_u16", "ld.global.v4.b32", 4),
    ("transpose_u16", "st.global.v4.b32", 4),
    ("transpose_u16_128", "ld.global.v4.b32", 8),
    ("transpose_u16_128", "st.global.v4.b32", 8),
    ("transpose_u16_generic", "ld.global.v4.b32", 4),
    ("transpose_u16_generic", "st.global.v4.b32", 4),
];

/// `(kernel, instruction, count)` of every instruction of every entry in `ptx` that `keep`
/// selects, sorted.
fn entry_ops(ptx: &str, keep: impl Fn(&str) -> bool) -> Vec<(String, String, usize)> {
    let mut counts: std::collections::BTreeMap<(String, String), usize> = Default::default();
    let mut entry = None;
    for line in ptx.lines() {
        if let Some(rest) = line.strip_prefix(".visible .entry ") {
            entry = rest.split('(').next().map(str::to_string);
        } else if line.contains(".func ") && !line.starts_with(char::is_whitespace) {
            // A function's body is its own, not the entry's before it.
            entry = None;
        }
        let op = line.split_whitespace().next().unwrap_or("");
        if let (Some(k), true) = (&entry, keep(op)) {
            *counts.entry((k.clone(), op.to_string())).or_default() += 1;
        }
    }
    counts.into_iter().map(|((k, op), n)| (k, op, n)).collect()
}

/// `(kernel, instruction, count)` of every global load and store (async copies included) in
/// `ptx`, sorted.
pub fn global_accesses(ptx: &str) -> Vec<(String, String, usize)> {
    entry_ops(ptx, |op| {
        op.starts_with("ld.global")
            || op.starts_with("st.global")
            || op.starts_with("cp.async.cg.shared.global")
            || op.starts_with("cp.async.ca.shared.global")
            || op.starts_with("cp.async.bulk.tensor")
    })
}

/// The math instructions of the kernels that use `linear_layouts::math`: each function one
/// instruction, each 16-bit value widened by one `cvt` and each pair narrowed by one packed
/// `cvt` (`Tile::to`), 8 elements per thread.
pub const MATH_INSTRUCTIONS: &[(&str, &str, usize)] = &[
    ("gelu_tanh_f16", "cvt.f32.f16", 8),
    ("gelu_tanh_f16", "cvt.rn.f16x2.f32", 4),
    ("gelu_tanh_f16", "tanh.approx.f32", 8),
    ("silu_f16", "cvt.f32.f16", 8),
    ("silu_f16", "cvt.rn.f16x2.f32", 4),
    ("silu_f16", "ex2.approx.ftz.f32", 8),
    ("silu_f16", "rcp.approx.ftz.f32", 8),
];

/// A table of `(kernel, instruction, count)` as [`entry_ops`] gives them.
fn owned(table: &[(&str, &str, usize)]) -> Vec<(String, String, usize)> {
    table
        .iter()
        .map(|&(k, op, n)| (k.to_string(), op.to_string(), n))
        .collect()
}

/// Fails unless the instructions `keep` selects in the kernels `table` names are `table`'s
/// (`what` names them in the error).
fn check_counts(
    ptx: &str,
    table: &[(&str, &str, usize)],
    keep: impl Fn(&str) -> bool,
    what: &str,
) -> Result<(), String> {
    let kernels: std::collections::BTreeSet<&str> = table.iter().map(|m| m.0).collect();
    let found: Vec<(String, String, usize)> = entry_ops(ptx, keep)
        .into_iter()
        .filter(|(k, _, _)| kernels.contains(k.as_str()))
        .collect();
    let want = owned(table);
    match found == want {
        true => Ok(()),
        false => Err(format!(
            "{} changed:\nexpected {:?}\nfound {:?}",
            what, want, found
        )),
    }
}

/// Fails unless the math kernels' math instructions are [`MATH_INSTRUCTIONS`].
fn check_math(ptx: &str) -> Result<(), String> {
    check_counts(
        ptx,
        MATH_INSTRUCTIONS,
        |op| {
            op.contains(".approx") || op.starts_with("cvt.f32.f16") || op.starts_with("cvt.rn.f16")
        },
        "math instructions",
    )?;
    println!("ptx-check: math kernels use one approx instruction per function");
    Ok(())
}

/// The scans' exchanges (`kernels::scans`): along a row in one warp, a shuffle per lane bit
/// for each of the thread's 4 rows; across 8 warps, 5 shuffles, then one cross-warp phase: a
/// store of the warp's total (by one lane), one barrier, the 8 warps' totals in two 16-byte
/// loads (Triton's staging). Reverse and exclusive scans exchange exactly as many.
pub const SCAN_INSTRUCTIONS: &[(&str, &str, usize)] = &[
    ("compaction_offsets_rows", "shfl.sync.bfly.b32", 20),
    ("cumsum_line_f32", "bar.sync", 1),
    ("cumsum_line_f32", "ld.shared.v4.b32", 2),
    ("cumsum_line_f32", "shfl.sync.bfly.b32", 5),
    ("cumsum_line_f32", "st.shared.b32", 1),
    ("cumsum_rows_f32", "shfl.sync.bfly.b32", 20),
    ("suffix_sums_exclusive_line_f32", "bar.sync", 1),
    ("suffix_sums_exclusive_line_f32", "ld.shared.v4.b32", 2),
    ("suffix_sums_exclusive_line_f32", "shfl.sync.bfly.b32", 5),
    ("suffix_sums_exclusive_line_f32", "st.shared.b32", 1),
    ("suffix_sums_rows_f32", "shfl.sync.bfly.b32", 20),
];

/// Fails unless the scan kernels' exchanges are [`SCAN_INSTRUCTIONS`].
fn check_scans(ptx: &str) -> Result<(), String> {
    let exchange = |op: &str| {
        op.starts_with("shfl.")
            || op.starts_with("bar.")
            || op.starts_with("ld.shared")
            || op.starts_with("st.shared")
    };
    check_counts(ptx, SCAN_INSTRUCTIONS, exchange, "scan exchanges")?;
    println!("ptx-check: scans exchange with the shuffles, shared accesses and barriers planned");
    Ok(())
}

/// The row kernels (`kernels::rows`: `softmax_{f32,f16}_W`, `layer_norm_{f16,bf16}_W`, each
/// also `_aligned`), whose accesses follow from their element type and form, not their width.
fn is_row_kernel(name: &str) -> bool {
    name.starts_with("softmax_") || name.starts_with("layer_norm_")
}

/// Elements of a row each thread of row kernel `name` holds: 8, and 16 in the widest class
/// (`kernels::rows`' layouts; the width is the name's number).
fn row_kernel_per_thread(name: &str) -> usize {
    let width = name
        .split('_')
        .find_map(|w| w.parse::<u32>().ok())
        .unwrap_or(0);
    if width >= 8192 {
        16
    } else {
        8
    }
}

/// The global accesses a row kernel must issue, sorted: each thread holds
/// [`row_kernel_per_thread`] elements of a row; softmax reads x and writes y, layer norm reads
/// x, w and b, writes y and (one thread per row) its two f32 statistics. `_aligned` kernels move
/// whole 16-byte vectors (4 f32 or 8 16-bit elements), the any-width ones single elements.
fn row_kernel_accesses(name: &str) -> Vec<(String, usize)> {
    let bits = if name.starts_with("softmax_f32") {
        32
    } else {
        16
    };
    let per_thread = row_kernel_per_thread(name);
    let reads = if name.starts_with("layer_norm") { 3 } else { 1 };
    let mut want = if name.ends_with("_aligned") {
        let vectors = per_thread * bits / 128;
        vec![
            ("ld.global.v4.b32".to_string(), reads * vectors),
            ("st.global.v4.b32".to_string(), vectors),
        ]
    } else {
        vec![
            (format!("ld.global.b{}", bits), reads * per_thread),
            (format!("st.global.b{}", bits), per_thread),
        ]
    };
    if reads == 3 {
        match want.iter_mut().find(|w| w.0 == "st.global.b32") {
            Some(w) => w.1 += 2,
            None => want.push(("st.global.b32".to_string(), 2)),
        }
    }
    want.sort();
    want
}

/// Fails unless each row kernel's accesses are [`row_kernel_accesses`].
fn check_row_kernels(found: &[(String, String, usize)]) -> Result<usize, String> {
    let kernels: std::collections::BTreeSet<&str> = found
        .iter()
        .map(|f| f.0.as_str())
        .filter(|k| is_row_kernel(k))
        .collect();
    for k in &kernels {
        let got: Vec<(String, usize)> = found
            .iter()
            .filter(|f| f.0 == *k)
            .map(|f| (f.1.clone(), f.2))
            .collect();
        if got != row_kernel_accesses(k) {
            return Err(format!(
                "{}: global accesses {:?}, expected {:?}",
                k,
                got,
                row_kernel_accesses(k)
            ));
        }
    }
    Ok(kernels.len())
}

/// Fails unless every kernel's global accesses are [`GLOBAL_ACCESSES`] (the row kernels:
/// [`check_row_kernels`]).
fn check_global_accesses(ptx: &str) -> Result<(), String> {
    let all = global_accesses(ptx);
    let rows = check_row_kernels(&all)?;
    println!(
        "ptx-check: the {} row kernels move whole 16-byte vectors or single coalesced elements",
        rows
    );
    let found: Vec<_> = all.into_iter().filter(|f| !is_row_kernel(&f.0)).collect();
    let want = owned(GLOBAL_ACCESSES);
    if found == want {
        println!(
            "ptx-check: global accesses of all {} kernels as expected ({} v4)",
            found
                .iter()
                .map(|f| &f.0)
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
            found
                .iter()
                .filter(|f| f.1.contains(".v4"))
                .map(|f| f.2)
                .sum::<usize>()
        );
        return Ok(());
    }
    let show = |v: &[(String, String, usize)]| {
        v.iter()
            .map(|(k, op, n)| format!("  {} {} {}", k, op, n))
            .collect::<Vec<_>>()
            .join("\n")
    };
    Err(format!(
        "global accesses changed:\nexpected\n{}\nfound\n{}",
        show(&want),
        show(&found)
    ))
}

/// Kernels written once generically (`Tile::convert`) next to their `convert!` twins: the
/// generic plan, interpreted from a const, must fold to the twin's straight-line code.
pub const GENERIC_TWINS: &[(&str, &str)] = &[
    ("transpose_f32_generic", "transpose_f32"),
    ("transpose_u16_generic", "transpose_u16"),
    ("mma_acc_to_rows_generic", "mma_acc_to_rows"),
];

/// The run-time checks (`trap`) each kernel keeps, where a bound depends on values LLVM does not
/// bound: the Hopper kernels' mbarrier rings and shared-tile stages (indexed by stage counters)
/// and the pipelined GEMM's stage windows (at a run-time base; its operands' panels are taken at
/// the output block, `row_of`/`col_of`, whose checks fold). Every other kernel keeps none: its
/// checks (shared windows, scratch, mbarrier and tile bounds) fold.
pub const RUNTIME_CHECKS: &[(&str, usize)] = &[
    ("attention_hopper_bf16", 1),
    ("attention_hopper_d128_bf16", 1),
    ("attention_hopper_d128_f16", 1),
    ("attention_hopper_f16", 1),
    ("gemm_hopper_bf16", 5),
    ("gemm_hopper_f16", 5),
    ("gemm_hopper_ws_bf16", 9),
    ("gemm_hopper_ws_f16", 9),
    ("gemm_pipelined_bf16", 2),
    ("gemm_pipelined_f16", 2),
];

/// Fails unless the kernels keep exactly the run-time checks of [`RUNTIME_CHECKS`] (a check
/// added or folded away changes the table, on purpose); returns how many kernels keep none.
fn check_runtime_checks(ptx: &str) -> Result<usize, String> {
    let found: Vec<(String, usize)> = entry_ops(ptx, |op| op == "trap;")
        .into_iter()
        .map(|(k, _, n)| (k, n))
        .collect();
    let want: Vec<(String, usize)> = RUNTIME_CHECKS
        .iter()
        .map(|&(k, n)| (k.to_string(), n))
        .collect();
    if found != want {
        return Err(format!(
            "the run-time checks (trap) the kernels keep changed: fold the new ones, or list them \
             in RUNTIME_CHECKS with why they stay\nexpected {:?}\nfound {:?}",
            want, found
        ));
    }
    Ok(ptx.matches(".visible .entry ").count() - found.len())
}

/// Fails if any kernel keeps a local-memory frame (registers indexed at run time, a spill).
fn check_no_local_memory(ptx: &str) -> Result<usize, String> {
    let locals = entry_ops(ptx, |op| {
        op.starts_with("ld.local") || op.starts_with("st.local")
    });
    let frames: Vec<&str> = ptx
        .lines()
        .filter(|l| l.contains("__local_depot"))
        .collect();
    if !locals.is_empty() || !frames.is_empty() {
        return Err(format!(
            "local memory in kernels: {:?} {:?}",
            locals,
            frames.first()
        ));
    }
    Ok(ptx.matches(".visible .entry ").count())
}

/// Fails unless each of [`GENERIC_TWINS`] issues exactly its twin's instructions, opcode by
/// opcode (the same multiset; registers and order may differ); prints both counts.
fn check_generic_twins(ptx: &str) -> Result<(), String> {
    let tables = TwinTables::of(ptx);
    for (generic, twin) in GENERIC_TWINS {
        tables.check(generic, twin)?;
    }
    Ok(())
}

/// What [`check_generic_twins`] compares, read from the PTX once: each entry's opcodes
/// (predicates dropped, since their register numbers differ) and how often each occurs.
struct TwinTables {
    ops: Vec<(String, String, usize)>,
}

impl TwinTables {
    fn of(ptx: &str) -> Self {
        let body = |op: &str| {
            !op.is_empty()
                && !op.starts_with(['.', '/', '{', '}', '$', '(', ')'])
                && !op.ends_with(':')
        };
        let unpredicated: String = ptx
            .lines()
            .map(|l| match l.trim_start().strip_prefix('@') {
                Some(rest) => rest.split_once(char::is_whitespace).map_or("", |x| x.1),
                None => l,
            })
            .collect::<Vec<_>>()
            .join("\n");
        TwinTables {
            ops: entry_ops(&unpredicated, body),
        }
    }

    /// [`check_generic_twins`] for one pair.
    fn check(&self, generic: &str, twin: &str) -> Result<(), String> {
        let of = |k: &str| -> Vec<(&str, usize)> {
            self.ops
                .iter()
                .filter(|(e, _, _)| e == k)
                .map(|(_, op, n)| (op.as_str(), *n))
                .collect()
        };
        let (g, t) = (of(generic), of(twin));
        let total = |v: &[(&str, usize)]| v.iter().map(|x| x.1).sum::<usize>();
        println!(
            "  {}: {} PTX instructions, {}: {}",
            generic,
            total(&g),
            twin,
            total(&t)
        );
        if g.is_empty() || g != t {
            let only = |a: &[(&str, usize)], b: &[(&str, usize)]| -> Vec<String> {
                a.iter()
                    .filter(|x| !b.contains(x))
                    .map(|(op, n)| format!("{} {}", op, n))
                    .collect()
            };
            return Err(format!(
                "{} does not issue {}'s instructions: {:?} against {:?}; the generic plan no \
                 longer folds to convert!'s code (see layout-plan's linear.rs and exec.rs)",
                generic,
                twin,
                only(&g, &t),
                only(&t, &g)
            ));
        }
        Ok(())
    }
}

/// Build, count, compare, print.
pub fn check(markdown: bool) -> Result<(), String> {
    // `LAYOUT_PTX_FILE`: check a PTX file built before (or elsewhere) instead of building it.
    let path = match std::env::var_os("LAYOUT_PTX_FILE") {
        Some(f) => std::path::PathBuf::from(f),
        None => build()?,
    };
    let ptx = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    check_global_accesses(&ptx)?;
    check_math(&ptx)?;
    check_scans(&ptx)?;
    let converged = layout_builder::convergence::check(&ptx)?;
    println!(
        "ptx-check: no aligned instruction (barriers, mma, wgmma) reached by part of a warp in any of the {} kernels",
        converged
    );
    let entries = check_no_local_memory(&ptx)?;
    println!(
        "ptx-check: no local memory in any of the {} kernels",
        entries
    );
    let unchecked = check_runtime_checks(&ptx)?;
    println!(
        "ptx-check: run-time checks (trap) kept: {}; none in the other {} kernels",
        RUNTIME_CHECKS
            .iter()
            .map(|(k, n)| format!("{} {}", k, n))
            .collect::<Vec<_>>()
            .join(", "),
        unchecked
    );
    check_generic_twins(&ptx)?;
    println!(
        "ptx-check: the {} generic conversions issue their convert! twins' instructions exactly",
        GENERIC_TWINS.len()
    );
    for line in crate::ptxas::check(&path, &ptx)? {
        println!("{}", line);
    }
    let counts = count_instructions(&ptx);
    let get = |n: &str| counts.iter().find(|(k, _)| k == n).map(|x| x.1);
    let mut rows = Vec::new();
    for (n, c) in &counts {
        if let Some(base) = n.strip_suffix("_macro") {
            let hand = get(&format!("{}_hand", base))
                .ok_or_else(|| format!("no {}_hand next to {}", base, n))?;
            rows.push((base.to_string(), *c, hand));
        }
    }
    if rows.len() < 10 {
        return Err(format!(
            "expected at least 10 macro/hand pairs in {}, found {}",
            path.display(),
            rows.len()
        ));
    }
    if get("index_kernel").is_none() {
        return Err("the kernel index_kernel is missing from the PTX".into());
    }
    if markdown {
        println!("| layout | generated (instructions) | hand-written | |");
        println!("|---|---:|---:|---|");
    } else {
        println!(
            "{:<10} {:>10} {:>6}  (PTX instructions per function, {})",
            "layout",
            "generated",
            "hand",
            path.display()
        );
    }
    let mut worse = Vec::new();
    for (n, m, h) in &rows {
        let verdict = if m <= h { "ok" } else { "LONGER" };
        if m > h {
            worse.push(n.clone());
        }
        if markdown {
            println!("| {} | {} | {} | {} |", n, m, h, verdict);
        } else {
            println!("{:<10} {:>10} {:>6}  {}", n, m, h, verdict);
        }
    }
    if worse.is_empty() {
        println!(
            "ptx-check: generated index math is no longer than hand-written for all {} layouts",
            rows.len()
        );
        Ok(())
    } else {
        Err(format!(
            "generated index math is longer than hand-written for: {}",
            worse.join(", ")
        ))
    }
}

/// Build the PTX and the runner; print how to run them.
pub fn gpu() -> Result<(), String> {
    let ptx = build()?;
    let root = crate::root();
    let st = std::process::Command::new("cargo")
        .current_dir(&root)
        .args(["build", "--release", "--package", "runner"])
        .status()
        .map_err(|e| format!("could not run cargo: {}", e))?;
    if !st.success() {
        return Err(format!(
            "cargo build --release --package runner failed ({})",
            st
        ));
    }
    let bin = root.join("target/release/gpu-bench");
    println!("Built {} and {}.", ptx.display(), bin.display());
    println!("On a machine with an NVIDIA GPU (x86-64, CUDA driver), from the repository root:");
    println!("  target/release/gpu-bench target/ptx/kernels.ptx 16384");
    println!("and, for Triton's kernels next to ours (needs cupy, torch and triton there):");
    println!("  python3 scripts/gpu_bench.py target/ptx/kernels.ptx 16384");
    println!("the GEMMs (checked, timed), and next to Triton autotuned and cuBLAS:");
    println!("  target/release/gemm-bench target/ptx/kernels.ptx 4096 8192");
    println!("  python3 scripts/gemm_gpu_bench.py --bench target/release/gemm-bench --sizes 4096 8192 --sanitize");
    println!("Without a GPU, gpu-bench and gemm-bench say so and exit with status 2.");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry of `n` additions and one shared store.
    fn entry(name: &str, n: usize) -> String {
        let adds = "\tadd.s32 \t%r1, %r1, 1;\n".repeat(n);
        format!(".visible .entry {name}(\n)\n{{\n{adds}\tst.shared.b32 \t[%r1], %r1;\n\tret;\n}}\n")
    }

    #[test]
    fn generic_twins_issue_the_same_instructions() {
        // A function after an entry is not part of it.
        let func = ".visible .func  (.param .b64 func_retval0) f(\n)\n{\n\tadd.s32 \t%r1, %r1, 1;\n\tret;\n}\n";
        let ptx = entry("twin", 10) + func + &entry("same", 10) + &entry("more", 11);
        let predicated = ptx.clone()
            + ".visible .entry guarded(\n)\n{\n\t@%p1 st.shared.b32 \t[%r1], %r1;\n"
            + &"\tadd.s32 \t%r1, %r1, 1;\n".repeat(10)
            + "\tret;\n}\n";
        let tables = TwinTables::of(&predicated);
        assert!(tables.check("same", "twin").is_ok());
        assert!(tables.check("guarded", "twin").is_ok());
        let err = tables.check("more", "twin").unwrap_err();
        assert!(
            err.contains("add.s32 11") && err.contains("add.s32 10"),
            "{}",
            err
        );
        assert!(tables.check("none", "twin").is_err());
    }

    #[test]
    fn counts_body_statements() {
        let ptx = "\
.visible .func  (.param .b64 func_retval0) tile_macro(
\t.param .b32 tile_macro_param_0
)
{
\t.reg .b32 \t%r<4>;

\tld.param.b32 \t%r1, [tile_macro_param_0];
\tshl.b32 \t%r2, %r1, 1;
\tst.param.b64 \t[func_retval0], %rd1;
\tret;

}
.visible .entry index_kernel(
\t.param .u64 index_kernel_param_0
)
{
\tret;
}
";
        assert_eq!(
            count_instructions(ptx),
            vec![
                ("tile_macro".to_string(), 4),
                ("index_kernel".to_string(), 1)
            ]
        );
    }
}
