//! `layout`: print a TritonGPU layout, a drop-in for Triton's `triton-tensor-layout`.
//!
//! ```text
//! layout -l '#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>' -t 'tensor<32x16xf16>'
//! layout -i examples/kernel.ttgir -t 'tensor<64x64xf16>' --alias-names mma,blocked1 --use-hw-view
//! layout -l '#ttg.blocked<{...}>' -t 'tensor<64x16xf16>' --json
//! echo '{"layout": "#ttg.blocked<{...}>", "tensor": "tensor<64x16xf16>"}' | layout --jsonl
//! layout -l '#ttg.nvmma_shared<{...}>' -t 'tensor<8x64xf16>' --table   # CuTe-style grid
//! layout -l '#ttg.nvmma_shared<{...}>' -t 'tensor<8x64xf16>' --latex -o picture.tex  # TikZ
//! layout -l '#ttg.blocked<{...}>' -t 'tensor<64x64xf16>' --svg --colour-by warp -o picture.svg
//! layout -l '#ttg.blocked<{...}>' -t 'tensor<64x64xf16>' --html -o view.html  # hover, hw view, bases
//! layout -i examples/kernel.ttgir -l '#mma' --to '#blocked1' -t 'tensor<64x64xf16>'  # convert!'s plan
//! layout -i examples/kernel.ttgir -l '#mma' --to '#blocked1' -t 'tensor<64x64xf16>' --html -o cvt.html
//! layout -l '#ttg.blocked<{...}>' -t 'tensor<64x64xf32>' --reduce 1 [--json]  # Tile::reduce's plan
//! layout -l '#ttg.blocked<{...}>' -t 'tensor<64x64xi32>' --reduce 1 --combine max  # redux.sync
//! layout -l '#ttg.blocked<{...}>' -t 'tensor<64x64xf32>' --scan 1 [--json]    # Tile::scan's plan
//! layout conflicts -l '#ttg.swizzled_shared<{...}>' --access '#ttg.blocked<{...}>' -t 'tensor<64x64xf16>'
//! layout -l '#ttg.nvmma_shared<{...}>' -t 'tensor<64x64xf16>' --cute  # Sw<3,4,3> o _0 o (...):(...)
//! layout -l 'Sw<3,4,3> o _0 o (8,64):(64,1)' -t 'tensor<8x64xf16>'      # CuTe layouts read too
//! layout -l '#ttng.tensor_memory_encoding<...>' -t 'tensor<128x64xf32>' --tmem-reg 32x32b --warps 4
//! layout explain kernel.ttgir [--json | --html -o folder]  # every conversion of a dump, dearest first
//! ```
//! Bad input prints a message naming the problem and exits with status 2: so does a `-i` file
//! without layouts, and a `--jsonl` run with failed lines (after printing every line's answer).
//! A closed standard output (`layout ... | head -1`) ends the run quietly.

mod collective;
mod conflicts;
mod explain;
mod json;
mod plan;

use std::io::{BufRead, Write};
use std::process::ExitCode;

use clap::Parser;
use layout_core::convert::{Force, Target};
use layout_core::parse::{
    parse_aliases, parse_encoding, parse_tensor_type, Aliases, Attr, AttrKind, TensorType,
};
use layout_core::Encoding;
use layout_view::svg::{print_svg_in, ColourBy};
use layout_view::view::layout_str;
use layout_view::{print_latex_in, print_layout_in, Smem};

/// Print TritonGPU layouts from the tensor's or the hardware's point of view, or as JSON.
#[derive(Parser, Debug)]
#[command(name = "layout", version, about)]
// One way to show the layout at a time: Triton's text (the default), its hardware view, JSON, a
// grid, a TikZ or SVG picture, or a page. Kept as Triton's flags, read as one `View`.
#[command(group(clap::ArgGroup::new("view").multiple(false).args(["use_hw_view", "json", "table", "latex", "svg", "html", "cute"])))]
struct Cli {
    /// A layout attribute, e.g. '#ttg.blocked<{...}>' (or an alias defined in -i FILE), or a CuTe
    /// layout: '(8,64):(64,1)', 'Sw<3,4,3> o _0 o (8,64):(64,1)' (shared memory), or
    /// 'tv((32,4):(1,32))' (thread, value -> index into the tile of -t).
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
    #[arg(long)]
    json: bool,
    /// Draw the tensor as a grid, one cell per element (CuTe's print_layout).
    #[arg(long)]
    table: bool,
    /// Write a LaTeX/TikZ picture, cells coloured by thread or shared-memory bank (CuTe's
    /// print_latex).
    #[arg(long)]
    latex: bool,
    /// Write an SVG picture (CuTe's print_svg): cells labelled `T<thread>:<register>` (or the
    /// shared offset), coloured as --colour-by says, a legend, broadcast copies marked.
    #[arg(long)]
    svg: bool,
    /// With --svg: colour cells by `thread` or `warp` (distributed layouts) or `bank` (shared
    /// layouts); by thread, or by bank for shared layouts, if absent.
    #[arg(long = "colour-by", alias = "color-by", requires = "svg", value_enum)]
    colour_by: Option<ColourArg>,
    /// Write an interactive HTML page (one file, no network): the SVG grid, a hardware view, hover
    /// for what holds a cell, bases that highlight what they move; with --to, both layouts, how
    /// each element moves, and the plan with its shared accesses' banks per phase.
    #[arg(long)]
    html: bool,
    /// Print the layout in CuTe's notation: `(shape):(stride)` with a `Sw<B,M,S>` on top for
    /// shared layouts, `tv((thread):(value))` for distributed ones; or say why it has none.
    #[arg(long)]
    cute: bool,
    /// Read {"layout": ..., "tensor": ...} lines from standard input; write one JSON object each.
    #[arg(long, conflicts_with_all = ["view", "to", "reduce", "scan", "combine"])]
    jsonl: bool,
    /// Plan the conversion from the layout (-l) to this one, as convert! would, and print its cost
    /// (element size from -t; --json for an object).
    #[arg(long, conflicts_with_all = ["table", "latex", "svg", "use_hw_view"])]
    to: Option<String>,
    /// Plan `Tile::reduce` along this dim (into the slice layout) and print its cost per thread
    /// (shuffles, stores, loads, barriers, shared bytes; --json for an object).
    #[arg(long, value_name = "DIM", conflicts_with_all = ["to", "scan", "table", "latex", "svg", "html", "use_hw_view"])]
    reduce: Option<u32>,
    /// With --reduce: the combiner, as `Tile::reduce_op` names it (`custom`: a closure). Sum,
    /// max, min, and, or and xor of integers of at most 32 bits take one `redux.sync` where the
    /// dim spans a whole warp, as Triton lowers them. Sum if absent.
    #[arg(long, value_enum)]
    combine: Option<Combine>,
    /// Plan `Tile::scan` along this dim and print its cost per thread, as --reduce.
    #[arg(long, value_name = "DIM", conflicts_with_all = ["to", "table", "latex", "svg", "html", "use_hw_view"])]
    scan: Option<u32>,
    /// With a tensor-memory layout (-l '#ttng.tensor_memory_encoding<...>'): show the register
    /// layout a tcgen05.ld/st of this message shape (32x32b, 16x64b, 16x128b, 16x256b) gives
    /// (Gluon's get_tmem_reg_layout), in any view.
    #[arg(long = "tmem-reg", value_name = "ATOM", conflicts_with_all = ["to", "reduce", "scan"])]
    tmem_reg: Option<String>,
    /// With --tmem-reg: how many warps load (a power of two, at least 4).
    #[arg(long, requires = "tmem_reg", default_value_t = 4)]
    warps: u32,
    /// With --to: force `shared` memory or `shuffles` instead of the cheapest plan.
    #[arg(long, requires = "to", value_enum)]
    strategy: Option<StrategyArg>,
    /// With --to: the GPU to plan for (sm_90, sm_80, gfx950, spirv_8 ... spirv_64); by default
    /// sm_90's model with the layouts' own warp size. With a picture (--table, --latex, --svg,
    /// --html): whose banks shared layouts are coloured by (64 on gfx950 and gfx1250, else 32).
    #[arg(long, value_parser = target_by_name)]
    target: Option<Target>,
}

/// How a layout is shown: one of the exclusive view flags, or Triton's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum View {
    Text,
    HwText,
    Json,
    Table,
    Latex,
    Svg,
    Html,
    Cute,
}

impl Cli {
    /// The view the flags ask for (clap lets at most one through).
    fn view(&self) -> View {
        [
            (self.use_hw_view, View::HwText),
            (self.json, View::Json),
            (self.table, View::Table),
            (self.latex, View::Latex),
            (self.svg, View::Svg),
            (self.html, View::Html),
            (self.cute, View::Cute),
        ]
        .into_iter()
        .find_map(|(on, v)| on.then_some(v))
        .unwrap_or(View::Text)
    }
}

/// `--colour-by`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ColourArg {
    Thread,
    Warp,
    Bank,
}

/// `--combine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Combine {
    Sum,
    Max,
    Min,
    And,
    Or,
    Xor,
    Custom,
}

impl Combine {
    /// The name `--combine` takes.
    fn name(self) -> &'static str {
        match self {
            Combine::Sum => "sum",
            Combine::Max => "max",
            Combine::Min => "min",
            Combine::And => "and",
            Combine::Or => "or",
            Combine::Xor => "xor",
            Combine::Custom => "custom",
        }
    }
}

/// `--strategy`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum StrategyArg {
    Shared,
    Shuffles,
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

/// A write to standard output failed: quietly done when the reader went away (`| head -1`),
/// else status 2.
fn write_failed(e: std::io::Error) -> ExitCode {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        ExitCode::SUCCESS
    } else {
        fail(format!("cannot write to standard output: {}", e))
    }
}

/// The options, or the exit status after clap printed help, the version or an error.
fn parse_args<C: Parser>(args: &[String]) -> Result<C, ExitCode> {
    C::try_parse_from(args).map_err(|e| {
        let code = if e.use_stderr() { 2 } else { 0 };
        let _ = e.print();
        ExitCode::from(code)
    })
}

fn main() -> ExitCode {
    let args = normalize_args();
    match args.get(1).map(String::as_str) {
        Some("conflicts") => return subcommand(&args[1..], conflicts::run),
        Some("explain") => return explain_subcommand(&args[1..]),
        _ => {}
    }
    let cli: Cli = match parse_args(&args) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if cli.jsonl {
        return run_jsonl();
    }
    let text = match run(&cli) {
        Ok(text) => text,
        Err(e) => return fail(e),
    };
    if let Some(p) = &cli.output {
        return match std::fs::write(p, text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(format!("cannot write {}: {}", p.display(), e)),
        };
    }
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => write_failed(e),
    }
}

/// One layout to print.
struct Job {
    /// Its header line (`Print layout attribute: ...`).
    header: String,
    /// The alias's name when `-i` prints every alias of the file: such a layout that does not
    /// fit the tensor is skipped with a note instead of failing the run.
    optional: Option<String>,
    /// The layout.
    enc: Encoding,
}

/// Everything but `--jsonl`: the text to write, or the message of exit status 2.
fn run(cli: &Cli) -> Result<String, String> {
    let tensor = cli
        .tensor
        .as_deref()
        .ok_or("must specify the tensor type argument: -t 'tensor<64x16xf16>'")?;
    let aliases = read_aliases(cli.input.as_deref())?;
    let ty = parse_tensor_type(tensor, &aliases)
        .map_err(|e| format!("in the tensor type (-t): {}", e))?;
    let jobs = jobs(cli, &aliases, tensor, &ty)?;
    let picture = matches!(
        cli.view(),
        View::Table | View::Latex | View::Svg | View::Html
    );
    if cli.target.is_some() && cli.to.is_none() && !picture {
        return Err("--target names the GPU a conversion is planned for (--to) or whose banks a picture colours (--table, --latex, --svg, --html); this view uses neither".into());
    }
    if let Some(to) = &cli.to {
        return plan_conversion(cli, to, &jobs, &aliases, &ty);
    }
    let int = ["i", "si", "ui"].iter().any(|p| {
        ty.element
            .strip_prefix(p)
            .is_some_and(|d| d.starts_with(|c: char| c.is_ascii_digit()))
    });
    let int32 = int && ty.element_bits().is_some_and(|b| b <= 32);
    check_combine(cli, int, &ty.element)?;
    let redux = int32 && cli.combine != Some(Combine::Custom);
    let op = match (cli.reduce, cli.scan) {
        (Some(d), _) => Some(collective::Op::Reduce(
            d,
            redux,
            cli.combine.unwrap_or(Combine::Sum).name(),
        )),
        (None, Some(d)) => Some(collective::Op::Scan(d)),
        (None, None) => None,
    };
    if let Some(op) = op {
        let [Job { enc, .. }] = &jobs[..] else {
            return Err("--reduce and --scan take one layout: give it with -l".into());
        };
        let bits = ty.element_bits().unwrap_or(32);
        return collective::collective(enc, &ty.shape, bits, op, cli.view() == View::Json);
    }
    render(cli, jobs, &ty)
}

/// `--combine` where it applies: with `--reduce`, and bitwise combiners on integers only.
fn check_combine(cli: &Cli, int: bool, element: &str) -> Result<(), String> {
    match (cli.combine, cli.reduce, cli.scan) {
        (Some(_), None, Some(_)) => Err(
            "--combine names a reduction's combiner; a scan takes none (Tile::scan takes a closure): leave --combine out"
                .into(),
        ),
        (Some(_), None, None) => {
            Err("--combine names the combiner of a reduction: give the dim with --reduce".into())
        }
        (Some(Combine::And | Combine::Or | Combine::Xor), Some(_), _) if !int => Err(format!(
            "--combine and, or and xor combine integers, and this tensor's elements are {}: use sum, max, min or custom",
            element
        )),
        _ => Ok(()),
    }
}

/// The aliases of `-i FILE`, or none.
pub(crate) fn read_aliases(input: Option<&std::path::Path>) -> Result<Aliases, String> {
    match input {
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
        let enc = if layout_core::cute::looks_like_cute(l) {
            layout_core::cute::parse_cute(l)
                .and_then(|c| c.check_element(ty.element_bits()).map(|_| c))
                .and_then(|c| c.encoding(&ty.shape, 32))
                .map_err(|e| format!("in the CuTe layout (-l): {}", e))?
        } else {
            parse_encoding(l, aliases).map_err(|e| format!("in the layout (-l): {}", e))?
        };
        Ok(vec![Job {
            header: format!("Print layout attribute: {}", l.trim()),
            optional: None,
            enc,
        }])
    } else if let Some(path) = &cli.input {
        let jobs = alias_jobs(cli, aliases)?;
        if jobs.is_empty() {
            return Err(format!(
                "{} defines no layouts: expected alias lines such as \
                 '#blocked = #ttg.blocked<{{...}}>', as a TTGIR dump starts with; give a TTGIR \
                 file that has them (e.g. examples/kernel.ttgir), or the layout itself with -l",
                path.display()
            ));
        }
        Ok(jobs)
    } else if let Some(enc) = ty.encoding.clone() {
        Ok(vec![Job {
            header: format!("Print layout attribute: {}", tensor.trim()),
            optional: None,
            enc,
        }])
    } else {
        Err(
            "give a layout with -l, an alias file with -i, or a tensor type with an encoding"
                .into(),
        )
    }
}

/// The aliases named by `--alias-names`, or all of them; without `--alias-names`, an alias that
/// is no layout is skipped, with a note unless it is a memory space (`#smem =
/// #ttg.shared_memory`), instead of failing the run.
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
        let all = cli.alias_names.is_empty();
        match layout_core::parse::encoding_from_attr(attr) {
            Ok(enc) => jobs.push(Job {
                header: format!("Print layout attribute: #{} = {}", n, text),
                optional: all.then(|| n.clone()),
                enc,
            }),
            Err(_) if all && is_memory_space(attr) => {}
            Err(e) if all => eprintln!("skipping #{}: {}", n, e),
            Err(e) => return Err(format!("#{}: {}", n, e)),
        }
    }
    Ok(jobs)
}

/// `#ttg.shared_memory`, `#ttng.tensor_memory`: where a memdesc lives, not a layout.
fn is_memory_space(attr: &Attr) -> bool {
    match &attr.kind {
        AttrKind::Layout { name, body, .. } => name.ends_with("_memory") && body.is_empty(),
        _ => false,
    }
}

/// `--to`: the plan from the one layout of `jobs` to `to`, as convert! would make it.
fn plan_conversion(
    cli: &Cli,
    to: &str,
    jobs: &[Job],
    aliases: &Aliases,
    ty: &TensorType,
) -> Result<String, String> {
    let [Job { enc: src, .. }] = jobs else {
        return Err("--to converts one layout: give it with -l (or one --alias-names)".into());
    };
    let dst = parse_encoding(to, aliases).map_err(|e| format!("in the layout (--to): {}", e))?;
    if src.is_tensor_memory() || dst.is_tensor_memory() {
        return Err("--to plans conversions between register and shared-memory layouts; tensor-memory layouts move with tcgen05.ld/st, which it does not plan".into());
    }
    if let Some(e) = [src, &dst]
        .into_iter()
        .find(|e| e.unusual_in_dims().is_some())
    {
        return Err(format!("--to plans conversions through one shared buffer; #ttg.{} spreads over several (in-dims {})", e.name(), e.unusual_in_dims().unwrap_or_default()));
    }
    let force = match cli.strategy {
        Some(StrategyArg::Shared) => Force::SharedMemory,
        Some(StrategyArg::Shuffles) => Force::Shuffles,
        None => Force::Auto,
    };
    let target = cli.target;
    let request = plan::Request {
        bits: ty.element_bits().unwrap_or(32),
        force,
        target,
        padding: [src, &dst].iter().flat_map(|e| e.padding()).collect(),
    };
    let (a, b) = plan::solve_pair(src, &dst, &ty.shape)?;
    let summary = plan::plan(&a, &b, &request)?;
    if cli.view() == View::Html {
        let title = format!("{} => {}", layout_name(cli), to.trim());
        return layout_view::html::conversion_html(&a, &b, &summary, &title)
            .map_err(|e| e.to_string());
    }
    Ok(if cli.view() == View::Json {
        format!("{}\n", plan::summary_json(&summary))
    } else {
        summary.text()
    })
}

/// The source layout's text for a title: `-l`'s, or the alias names.
fn layout_name(cli: &Cli) -> String {
    match &cli.layout {
        Some(l) => l.trim().to_string(),
        None => cli
            .alias_names
            .iter()
            .map(|n| format!("#{}", n.trim_start_matches('#')))
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// `--target NAME`, or an error listing the known targets.
pub(crate) fn target_by_name(name: &str) -> Result<Target, String> {
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
    let mut skipped = Vec::new();
    for job in jobs {
        let ll = match (job.enc.to_linear_layout(&ty.shape), job.optional) {
            (Ok(ll), _) => ll,
            (Err(e), Some(name)) => {
                eprintln!("skipping #{}: {}", name, e);
                skipped.push(format!("#{}", name));
                continue;
            }
            (Err(e), None) => return Err(e.to_string()),
        };
        let bits = ty.element_bits().unwrap_or(32);
        let (ll, shared, header) = match &cli.tmem_reg {
            Some(atom) => (
                tmem_registers(&job.enc, &ll, atom, cli.warps, ty)?,
                false,
                format!(
                    "{} in registers after tcgen05.ld {} by {} warps",
                    job.header, atom, cli.warps
                ),
            ),
            None => (ll, job.enc.is_shared(), job.header.clone()),
        };
        // Tensor memory's text views are its own (Triton prints no such layout); its pictures
        // and JSON are every layout's.
        let tmem = job.enc.is_tensor_memory() && cli.tmem_reg.is_none();
        if tmem && matches!(cli.view(), View::Text | View::HwText) {
            let t = layout_view::tmem::tmem_layout_str(&ll, cli.view() == View::HwText)
                .map_err(|e| e.to_string())?;
            out.push_str(&format!("{}\n{}", header, t));
            continue;
        }
        // A padded shared layout's `(interval, pad)` pairs: its JSON and pictures show them.
        let padding = job.enc.padding();
        let smem = Smem {
            banks: cli.target.map_or(32, |t| t.banks),
            padding: &padding,
        };
        let text = match cli.view() {
            View::Json => Ok(format!("{}\n", json::layout_json(&ll, &padding))),
            View::Cute => layout_core::cute::to_cute(&ll, ty.element_bits())
                .map(|t| format!("{}\n", t))
                .map_err(|why| {
                    format!(
                        "{} has no CuTe form: {}",
                        header.trim_start_matches("Print layout attribute: "),
                        why
                    )
                })
                .map_err(layout_core::LayoutError::new),
            View::Html => {
                let title = header.trim_start_matches("Print layout attribute: ");
                layout_view::html::print_html_in(&ll, bits, title, &smem)
            }
            View::Table => print_layout_in(&ll, &smem),
            View::Latex => print_latex_in(&ll, bits, &smem),
            View::Svg => print_svg_in(&ll, bits, colour_by(cli, &ll), &smem),
            View::Text | View::HwText => {
                let hw = cli.view() == View::HwText;
                layout_str(&ll, shared, hw).map(|t| {
                    let gap = if cli.alias_names.is_empty() { "" } else { "\n" };
                    format!("{}\n{}{}", header, t, gap)
                })
            }
        };
        out.push_str(&text.map_err(|e| e.to_string())?);
    }
    if out.is_empty() && !skipped.is_empty() {
        return Err(format!(
            "no layout of the input file fits this tensor ({} skipped, see above): give -t a \
             tensor type of the layouts' rank and sizes",
            skipped.join(", ")
        ));
    }
    Ok(out)
}

/// `--tmem-reg ATOM`: what a tcgen05.ld/st of `atom` by `warps` warps gives the registers.
fn tmem_registers(
    enc: &layout_core::Encoding,
    tmem: &layout_core::LinearLayout,
    atom: &str,
    warps: u32,
    ty: &TensorType,
) -> Result<layout_core::LinearLayout, String> {
    use layout_core::encodings::{tmem_reg_layout, TmemAtom};
    if !matches!(enc, layout_core::Encoding::TensorMemory(_)) {
        return Err(format!(
            "--tmem-reg needs a #ttng.tensor_memory_encoding layout, not #ttg.{}",
            enc.name()
        ));
    }
    let bits = ty
        .element_bits()
        .ok_or("--tmem-reg needs the element type's width: give -t 'tensor<128x64xf32>'")?;
    let atom = TmemAtom::from_name(atom).map_err(|e| e.to_string())?;
    tmem_reg_layout(tmem, atom, warps, bits).map_err(|e| e.to_string())
}

/// `layout conflicts ...`, `layout explain ...`: parse the options, run, print.
fn subcommand<C: Parser>(args: &[String], run: fn(&C) -> Result<String, String>) -> ExitCode {
    let cli: C = match parse_args(args) {
        Ok(c) => c,
        Err(code) => return code,
    };
    match run(&cli) {
        Ok(text) => match std::io::stdout().write_all(text.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => write_failed(e),
        },
        Err(e) => fail(e),
    }
}

/// `layout explain ...`: the report, and exit status 1 when an op could not be planned.
fn explain_subcommand(args: &[String]) -> ExitCode {
    let cli: explain::ExplainCli = match parse_args(args) {
        Ok(c) => c,
        Err(code) => return code,
    };
    match explain::run(&cli) {
        Ok(r) => match std::io::stdout().write_all(r.text.as_bytes()) {
            Ok(()) if r.failed > 0 => ExitCode::from(1),
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => write_failed(e),
        },
        Err(e) => fail(e),
    }
}

/// `--colour-by`, or the layout's default.
fn colour_by(cli: &Cli, ll: &layout_core::LinearLayout) -> ColourBy {
    match cli.colour_by {
        Some(ColourArg::Thread) => ColourBy::Thread,
        Some(ColourArg::Warp) => ColourBy::Warp,
        Some(ColourArg::Bank) => ColourBy::Bank,
        None => ColourBy::default_for(ll),
    }
}

/// `--jsonl`: one answer per non-empty input line (the layout's JSON, or `{"error": ...}`); status
/// 2 if any line failed.
fn run_jsonl() -> ExitCode {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    let mut requests = 0;
    let mut failed: Vec<(usize, String)> = Vec::new();
    for (i, line) in stdin.lock().lines().enumerate() {
        let Ok(line) = line else {
            return fail(format!("standard input line {} is not valid UTF-8", i + 1));
        };
        if line.trim().is_empty() {
            continue;
        }
        requests += 1;
        let v = json::jsonl_line(&line).unwrap_or_else(|e| {
            let v = serde_json::json!({ "error": e });
            failed.push((i + 1, e));
            v
        });
        if let Err(e) = writeln!(stdout, "{}", v) {
            return write_failed(e);
        }
    }
    if let Err(e) = stdout.flush() {
        return write_failed(e);
    }
    match failed.first() {
        None => ExitCode::SUCCESS,
        Some((line, e)) => fail(format!(
            "{} of {} requests failed; their output lines are {{\"error\": ...}} objects. \
             The first, input line {}: {}. Fix those lines and run them again",
            failed.len(),
            requests,
            line,
            e
        )),
    }
}
