//! `layout conflicts -l SHARED --access DISTRIBUTED -t TENSOR [--store | --load]`: the bank
//! conflicts of each shared-memory instruction a `local_store` / `local_load` between the two
//! layouts issues (as `convert!` plans it), per phase, with the words of the worst bank: the
//! figures Nsight Compute reports as `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st` /
//! `_op_ld` (per warp and instruction here; ncu sums them over the kernel). The count is checked
//! against the simulator's, made from the addresses the code really issues, on every classic
//! pair, every random conversion and random shared layouts (`tests/bank_conflicts.rs`).

use clap::Parser;
use layout_core::convert::{summarize_padded, Force, InstrConflicts, Target};
use layout_core::parse::{parse_encoding, parse_tensor_type};
use serde_json::json;

use crate::{read_aliases, target_by_name};

/// Bank conflicts of storing a distributed layout into a shared one, or loading it back.
#[derive(Parser, Debug)]
#[command(name = "layout conflicts")]
pub struct ConflictsCli {
    /// The shared layout, e.g. '#ttg.swizzled_shared<{...}>' (or an alias of -i FILE).
    #[arg(short = 'l', long = "layout")]
    layout: String,
    /// The distributed layout that stores into it or loads from it.
    #[arg(long = "access")]
    access: String,
    /// The tensor type, e.g. 'tensor<64x64xf16>'.
    #[arg(short = 't', long = "tensor")]
    tensor: String,
    /// A TTGIR file whose aliases the layouts may name.
    #[arg(short = 'i', long = "input")]
    input: Option<std::path::PathBuf>,
    /// Only the store (`local_store`).
    #[arg(long, conflicts_with = "load")]
    store: bool,
    /// Only the load (`local_load`).
    #[arg(long)]
    load: bool,
    /// The GPU (sm_90 by default).
    #[arg(long)]
    target: Option<String>,
    /// One JSON object.
    #[arg(long)]
    json: bool,
}

/// The report, or the message of exit status 2.
pub fn run(cli: &ConflictsCli) -> Result<String, String> {
    let aliases = read_aliases(cli.input.as_deref())?;
    let ty = parse_tensor_type(&cli.tensor, &aliases).map_err(|e| format!("in -t: {}", e))?;
    let bits = ty
        .element_bits()
        .ok_or("the tensor's element type has no known size")?;
    let smem = parse_encoding(&cli.layout, &aliases).map_err(|e| format!("in -l: {}", e))?;
    let dist = parse_encoding(&cli.access, &aliases).map_err(|e| format!("in --access: {}", e))?;
    if !smem.is_shared() || dist.is_shared() {
        return Err("give the shared layout with -l and the distributed one with --access".into());
    }
    if let Some(dims) = smem.unusual_in_dims() {
        return Err(format!(
            "#ttg.{} spreads over several buffers (in-dims {}); conflicts are counted in one",
            smem.name(),
            dims
        ));
    }
    let solve = |e: &layout_core::Encoding, what: &str| {
        e.to_linear_layout(&ty.shape)
            .map_err(|err| format!("the {} layout: {}", what, err))
    };
    let (s, d) = (
        solve(&smem, "shared (-l)")?,
        solve(&dist, "distributed (--access)")?,
    );
    let target = match &cli.target {
        Some(n) => target_by_name(n)?,
        None => Target::SM_90,
    };
    let sides: Vec<bool> = match (cli.store, cli.load) {
        (true, _) => vec![true],
        (_, true) => vec![false],
        _ => vec![true, false],
    };
    let mut reports = Vec::new();
    for store in sides {
        let (src, dst) = if store { (&d, &s) } else { (&s, &d) };
        let mut summary = summarize_padded(src, dst, &smem.padding(), bits, Force::Auto, &target)
            .map_err(|e| e.to_string())?;
        let side = summary.sides.remove(0);
        reports.push((store, side.instruction, side.conflicts));
    }
    Ok(if cli.json {
        format!("{}\n", report_json(&reports))
    } else {
        report_text(&cli.tensor, &reports)
    })
}

type Report = (bool, String, Vec<InstrConflicts>);

fn report_json(reports: &[Report]) -> serde_json::Value {
    let sides: Vec<serde_json::Value> = reports
        .iter()
        .map(|(store, name, instrs)| {
            json!({
                "op": if *store { "store" } else { "load" },
                "instruction": name,
                "wavefronts": instrs.iter().map(|i| i.wavefronts()).sum::<u32>(),
                "ideal": instrs.iter().map(|i| i.ideal()).sum::<u32>(),
                "conflicts": instrs.iter().map(|i| i.conflicts()).sum::<u32>(),
                "instructions": instrs.iter().map(|i| json!({
                    "reg_offset": i.reg_offset,
                    "bytes_per_lane": i.bytes,
                    "wavefronts": i.wavefronts(),
                    "ideal": i.ideal(),
                    "phases": i.phases.iter().map(|p| json!({
                        "lanes": [p.lanes.0, p.lanes.0 + p.lanes.1 - 1],
                        "wavefronts": p.wavefronts,
                        "worst_bank": p.worst_bank,
                        "worst_words": p.worst_words,
                    })).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "per": "warp", "sides": sides })
}

fn report_text(tensor: &str, reports: &[Report]) -> String {
    let mut out = String::new();
    for (store, name, instrs) in reports {
        let (w, ideal): (u32, u32) = instrs
            .iter()
            .fold((0, 0), |(w, i), x| (w + x.wavefronts(), i + x.ideal()));
        out.push_str(&format!(
            "{} of {}: {} x {} per thread; per warp {} wavefronts, ideal {}: {} bank conflicts (ncu: l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{})\n",
            if *store { "store" } else { "load" },
            tensor,
            instrs.len(),
            name,
            w,
            ideal,
            w - ideal,
            if *store { "st" } else { "ld" },
        ));
        for (k, i) in instrs.iter().enumerate() {
            out.push_str(&format!(
                "  instruction {} (register offset +{} bytes, {} bytes per lane): {}, ideal {}\n",
                k,
                i.reg_offset,
                i.bytes,
                wavefronts(i.wavefronts()),
                i.ideal()
            ));
            for p in i.phases.iter().filter(|p| p.wavefronts > 1) {
                out.push_str(&format!(
                    "    lanes {}-{}: {} wavefronts; bank {} holds the words at bytes {:?}\n",
                    p.lanes.0,
                    p.lanes.0 + p.lanes.1 - 1,
                    p.wavefronts,
                    p.worst_bank,
                    p.worst_words
                ));
            }
        }
    }
    out
}

/// `1 wavefront`, `2 wavefronts`.
fn wavefronts(n: u32) -> String {
    format!("{} wavefront{}", n, if n == 1 { "" } else { "s" })
}
