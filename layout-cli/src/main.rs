//! `layout`: print a TritonGPU layout, a drop-in for Triton's `triton-tensor-layout`.
//!
//! ```text
//! layout -l '#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>' -t 'tensor<32x16xf16>'
//! layout -i kernel.ttgir -t 'tensor<128x64xf16>' --alias-names mma,blocked --use-hw-view
//! layout -l '...' -t '...' --json
//! echo '{"layout": "...", "tensor": "tensor<64x16xf16>"}' | layout --jsonl
//! layout -l '#ttg.nvmma_shared<{...}>' -t 'tensor<8x64xf16>' --table   # CuTe-style grid
//! layout -l '...' -t '...' --latex -o picture.tex                      # TikZ, by thread or bank
//! layout -l '#blocked' --to '#mma' -i kernel.ttgir -t 'tensor<64x64xf16>'  # convert!'s plan and cost
//! ```
//! Bad input prints a message naming the problem and exits with status 2.

mod json;
mod plan;

use std::io::{BufRead, Write};
use std::process::ExitCode;

use clap::Parser;
use layout_core::convert::{Force, Target};
use layout_core::parse::{parse_aliases, parse_encoding, parse_tensor_type, Aliases, TensorType};
use layout_core::view::layout_str;
use layout_core::{print_latex, print_layout, Encoding};

/// Print TritonGPU layouts from the tensor's or the hardware's point of view, or as JSON.
#[derive(Parser, Debug)]
#[command(name = "layout", version, about)]
struct Cli {
    /// A layout attribute, e.g. '#ttg.blocked<{...}>' (or an alias defined in -i FILE).
    #[arg(short = 'l', long = "layout")]
    layout: Option<String>,
    /// The tensor type, e.g. 'tensor<128x256xf16>' (an encoding inside it is used if -l is absent).
    #[arg(short = 't', long = "tensor")]
    tensor: Option<String>,
    /// A TTGIR/MLIR file of alias definitions (#mma = #ttg.nvidia_mma<...>).
    #[arg(short = 'i', long = "input")]
    input: Option<std::path::PathBuf>,
    /// Which aliases of the input file to print (comma separated); all if absent.
    #[arg(long = "alias-names", value_delimiter = ',')]
    alias_names: Vec<String>,
    /// Write the output here instead of standard output.
    #[arg(short = 'o', long = "output")]
    output: Option<std::path::PathBuf>,
    /// Print from the hardware's point of view (per warp, register by register).
    #[arg(long = "use-hw-view")]
    use_hw_view: bool,
    /// Print the linear layout's bases as one JSON object.
    #[arg(long, conflicts_with_all = ["jsonl", "table", "latex", "use_hw_view"])]
    json: bool,
    /// Draw the tensor as a grid, one cell per element (CuTe's print_layout).
    #[arg(long, conflicts_with_all = ["jsonl", "latex", "use_hw_view"])]
    table: bool,
    /// Write a LaTeX/TikZ picture, cells coloured by thread or shared-memory bank (CuTe's
    /// print_latex).
    #[arg(long, conflicts_with_all = ["jsonl", "use_hw_view"])]
    latex: bool,
    /// Read {"layout": ..., "tensor": ...} lines from standard input; write one JSON object each.
    #[arg(long)]
    jsonl: bool,
    /// Plan the conversion from the layout (-l) to this one, as convert! would, and print its cost
    /// (element size from -t; --json for an object).
    #[arg(long, conflicts_with_all = ["jsonl", "table", "latex", "use_hw_view"])]
    to: Option<String>,
    /// With --to: force `shared` memory or `shuffles` instead of the cheapest plan.
    #[arg(long, requires = "to", value_parser = ["shared", "shuffles"])]
    strategy: Option<String>,
    /// With --to: the GPU to plan for (sm_90, sm_80, spirv_8 ... spirv_64); by default sm_90's
    /// model with the layouts' own warp size.
    #[arg(long, requires = "to")]
    target: Option<String>,
}

/// Triton's tool takes single-dash long options (`-use-hw-view`, `-alias-names=a,b`).
fn normalize_args() -> Vec<String> {
    std::env::args()
        .enumerate()
        .map(|(i, a)| {
            if i > 0
                && (a == "-use-hw-view"
                    || a.starts_with("-alias-names")
                    || a == "-json"
                    || a == "-jsonl")
            {
                format!("-{}", a)
            } else {
                a
            }
        })
        .collect()
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {}", msg);
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(normalize_args()) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    if cli.jsonl {
        return run_jsonl();
    }
    match run(&cli) {
        Ok(text) => {
            let res = match &cli.output {
                Some(p) => std::fs::write(p, text)
                    .map_err(|e| format!("cannot write {}: {}", p.display(), e)),
                None => std::io::stdout()
                    .write_all(text.as_bytes())
                    .map_err(|e| e.to_string()),
            };
            match res {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(e),
            }
        }
        Err(e) => fail(e),
    }
}

/// One layout to print: its header line and the encoding.
type Job = (String, Encoding);

/// Everything but `--jsonl`: the text to write, or the message of exit status 2.
fn run(cli: &Cli) -> Result<String, String> {
    let tensor = cli
        .tensor
        .as_deref()
        .ok_or("must specify the tensor type argument: -t 'tensor<64x16xf16>'")?;
    let aliases = read_aliases(cli)?;
    let ty = parse_tensor_type(tensor, &aliases)
        .map_err(|e| format!("in the tensor type (-t): {}", e))?;
    let jobs = jobs(cli, &aliases, tensor, &ty)?;
    if let Some(to) = &cli.to {
        return plan_conversion(cli, to, &jobs, &aliases, &ty);
    }
    render(cli, jobs, &ty)
}

/// The aliases of `-i FILE`, or none.
fn read_aliases(cli: &Cli) -> Result<Aliases, String> {
    match &cli.input {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("could not open input file {}: {}", p.display(), e))?;
            parse_aliases(&text).map_err(|e| format!("{}: {}", p.display(), e))
        }
        None => Ok(Aliases::new()),
    }
}

/// The layouts to print: `-l`'s, else the aliases of `-i` (those of `--alias-names`, or all),
/// else the tensor type's own encoding.
fn jobs(cli: &Cli, aliases: &Aliases, tensor: &str, ty: &TensorType) -> Result<Vec<Job>, String> {
    if let Some(l) = &cli.layout {
        let enc = parse_encoding(l, aliases).map_err(|e| format!("in the layout (-l): {}", e))?;
        Ok(vec![(format!("Print layout attribute: {}", l.trim()), enc)])
    } else if cli.input.is_some() {
        alias_jobs(cli, aliases)
    } else if let Some(enc) = ty.encoding.clone() {
        Ok(vec![(
            format!("Print layout attribute: {}", tensor.trim()),
            enc,
        )])
    } else {
        Err(
            "give a layout with -l, an alias file with -i, or a tensor type with an encoding"
                .into(),
        )
    }
}

/// The aliases named by `--alias-names`, or all of them; without `--alias-names`, an alias that
/// is no layout is skipped with a note instead of failing the run.
fn alias_jobs(cli: &Cli, aliases: &Aliases) -> Result<Vec<Job>, String> {
    let names: Vec<String> = if cli.alias_names.is_empty() {
        aliases.iter().map(|(n, _, _)| n.to_string()).collect()
    } else {
        cli.alias_names.clone()
    };
    let mut jobs = Vec::new();
    for n in names {
        let n = n.trim_start_matches('#').to_string();
        let Some(attr) = aliases.get(&n) else {
            return Err(format!(
                "can't find the layout attribute #{} in the input file",
                n
            ));
        };
        let text = aliases
            .iter()
            .find(|(m, _, _)| *m == n)
            .map(|x| x.2.to_string())
            .unwrap_or_default();
        match layout_core::parse::encoding_from_attr(attr) {
            Ok(enc) => jobs.push((format!("Print layout attribute: #{} = {}", n, text), enc)),
            Err(e) if cli.alias_names.is_empty() => eprintln!("skipping #{}: {}", n, e),
            Err(e) => return Err(format!("#{}: {}", n, e)),
        }
    }
    Ok(jobs)
}

/// `--to`: the plan from the one layout of `jobs` to `to`, as convert! would make it.
fn plan_conversion(
    cli: &Cli,
    to: &str,
    jobs: &[Job],
    aliases: &Aliases,
    ty: &TensorType,
) -> Result<String, String> {
    let [(_, src)] = jobs else {
        return Err("--to converts one layout: give it with -l (or one --alias-names)".into());
    };
    let dst = parse_encoding(to, aliases).map_err(|e| format!("in the layout (--to): {}", e))?;
    let force = match cli.strategy.as_deref() {
        Some("shared") => Force::SharedMemory,
        Some(_) => Force::Shuffles,
        None => Force::Auto,
    };
    let target = cli.target.as_deref().map(target_by_name).transpose()?;
    let bits = ty.element_bits().unwrap_or(32);
    let request = plan::Request {
        bits,
        force,
        target,
        json: cli.json,
    };
    plan::describe(src, &dst, &ty.shape, &request)
}

/// `--target NAME`, or an error listing the known targets.
fn target_by_name(name: &str) -> Result<Target, String> {
    Target::by_name(name).ok_or_else(|| {
        let names: Vec<&str> = Target::ALL.iter().map(|t| t.name).collect();
        format!(
            "unknown --target '{}': use one of {}",
            name,
            names.join(", ")
        )
    })
}

/// Every job's layout for the tensor's shape, as JSON, a grid, a TikZ picture or Triton's text.
fn render(cli: &Cli, jobs: Vec<Job>, ty: &TensorType) -> Result<String, String> {
    let mut out = String::new();
    for (header, enc) in jobs {
        let ll = enc.to_linear_layout(&ty.shape).map_err(|e| e.to_string())?;
        if cli.json {
            out.push_str(&json::layout_json(&ll).to_string());
            out.push('\n');
        } else if cli.table || cli.latex {
            let pic = if cli.table {
                print_layout(&ll)
            } else {
                print_latex(&ll, ty.element_bits().unwrap_or(32))
            };
            out.push_str(&pic.map_err(|e| e.to_string())?);
        } else {
            out.push_str(&header);
            out.push('\n');
            out.push_str(
                &layout_str(&ll, enc.is_shared(), cli.use_hw_view).map_err(|e| e.to_string())?,
            );
            if !cli.alias_names.is_empty() {
                out.push('\n');
            }
        }
    }
    Ok(out)
}

fn run_jsonl() -> ExitCode {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else {
            return fail("standard input is not valid UTF-8");
        };
        if line.trim().is_empty() {
            continue;
        }
        let v = json::jsonl_line(&line);
        if writeln!(stdout, "{}", v).is_err() {
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
