//! `layout explain KERNEL.ttgir [--json | --html -o DIR] [--target T]`: every
//! `convert_layout`, `local_alloc`, `local_store` and `local_load` of a whole TTGIR dump, named by
//! its result and source line, with the plan `convert!` makes for it and its cost, dearest first;
//! Blackwell's `tmem_alloc`, `tmem_store`, `tmem_load` and `tc_gen5_mma` with their tcgen05
//! messages. Exit status 1 when an op could not be planned.
//! The planning lives in `layout_view::explain`; this module writes text, JSON or pages.

use std::path::{Path, PathBuf};

use clap::Parser;
use layout_core::encodings::TmemMessages;
use layout_core::parse::module::OpKind;
use layout_view::explain::{explain_module, module_target, op_name, Explained, Outcome};
use serde_json::json;

use crate::plan::summary_json;
use crate::target_by_name;

/// Explain the layout conversions of a TTGIR module.
#[derive(Parser, Debug)]
#[command(name = "layout explain")]
pub struct ExplainCli {
    /// The TTGIR file, as Triton dumps it (MLIR_ENABLE_DUMP=1, or the .ttgir in Triton's cache).
    file: PathBuf,
    /// One JSON object.
    #[arg(long, conflicts_with = "html")]
    json: bool,
    /// Write an index page and one page per conversion into the folder given with -o.
    #[arg(long, requires = "output")]
    html: bool,
    /// With --html: the folder to write.
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    /// The GPU to plan for; by default the module's own (`ttg.target = "cuda:90"`).
    #[arg(long)]
    target: Option<String>,
}

/// What `layout explain` prints, and how many ops could not be planned (exit status 1 if any).
pub struct Report {
    /// The report, or with --html what was written.
    pub text: String,
    /// Ops that could not be planned.
    pub failed: usize,
}

/// The report, or the message of exit status 2.
pub fn run(cli: &ExplainCli) -> Result<Report, String> {
    let text = std::fs::read_to_string(&cli.file)
        .map_err(|e| format!("could not open {}: {}", cli.file.display(), e))?;
    let file = cli.file.display().to_string();
    let target = match &cli.target {
        Some(t) => target_by_name(t)?,
        None => module_target(&text).map_err(|e| format!("{}: {}", file, e))?,
    };
    let ops = explain_module(&text, &target).map_err(|e| format!("{}: {}", file, e))?;
    if ops.is_empty() && !text.lines().any(|l| l.trim_start().starts_with("module")) {
        return Err(format!(
            "{} is no TTGIR module (no `module attributes {{...}}` line, no op): give a dump as Triton writes it (`kernel.asm[\"ttgir\"]`, or MLIR_ENABLE_DUMP=1), e.g. fixtures/ttgir/matmul_sm80.ttgir",
            file
        ));
    }
    let failed = ops
        .iter()
        .filter(|e| matches!(e.outcome, Outcome::Unplanned(_)))
        .count();
    let text = if cli.html {
        let dir = cli.output.as_deref().expect("clap requires -o with --html");
        write_pages(dir, &file, target.name, &ops)?
    } else if cli.json {
        let v = json!({
            "file": file,
            "target": target.name,
            "failed": failed,
            "ops": ops.iter().map(op_json).collect::<Vec<_>>(),
        });
        format!("{}\n", v)
    } else {
        report_text(&file, target.name, &ops, failed)
    };
    Ok(Report { text, failed })
}

/// `tcgen05.ld 32x32b: 128 registers per thread, 128 messages in 1 instruction (.x128)`.
fn messages_text(e: &Explained, m: &TmemMessages) -> String {
    let verb = if e.op.kind == OpKind::TmemLoad {
        "ld"
    } else {
        "st"
    };
    let per = m.messages.min(m.atom.max_repeat());
    format!(
        "tcgen05.{} {}: {} registers per thread, {} messages in {} instruction{} (tcgen05.{}.sync.aligned.{}.x{}.b32)",
        verb,
        m.atom.name(),
        m.registers,
        m.messages,
        m.instructions,
        if m.instructions == 1 { "" } else { "s" },
        verb,
        m.atom.name(),
        per
    )
}

fn op_json(e: &Explained) -> serde_json::Value {
    let op = &e.op;
    let mut v = json!({
        "op": op.kind.name(),
        "result": op.result,
        "line": op.line,
        "source": op.loc.as_ref().map(|l| json!({"file": l.file, "line": l.line, "col": l.col})),
        "src_layout": op.layouts.0,
        "dst_layout": op.layouts.1,
        "shape": op.dst.shape,
        "element": op.dst.element,
    });
    match &e.outcome {
        Outcome::Planned(s, ..) => {
            v["plan"] = summary_json(s);
            v["weight"] = json!(s.cost.weight());
        }
        Outcome::TensorMemory(m) => {
            v["tensor_memory"] = json!({
                "message": m.atom.name(),
                "registers": m.registers,
                "messages": m.messages,
                "instructions": m.instructions,
            });
        }
        Outcome::NoMove(why) => v["note"] = json!(why),
        Outcome::Unplanned(why) => v["error"] = json!(why),
    }
    v
}

/// `tensor<128x128xf16>` from an op's destination.
fn tensor_text(e: &Explained) -> String {
    let dims: Vec<String> = e.op.dst.shape.iter().map(|d| d.to_string()).collect();
    format!("{}x{}", dims.join("x"), e.op.dst.element)
}

fn report_text(file: &str, target: &str, ops: &[Explained], failed: usize) -> String {
    let mut out = format!(
        "{}: {} ops that move tensors between layouts or tensor memory, planned for {}, dearest first{}\n",
        file,
        ops.len(),
        target,
        match failed {
            0 => String::new(),
            n => format!("; {} could not be planned", n),
        }
    );
    for (i, e) in ops.iter().enumerate() {
        // An allocation without a value has no source layout.
        let from = match e.op.layouts.0.as_str() {
            "" => String::new(),
            l => format!("{} ", l),
        };
        out.push_str(&format!(
            "\n{}. {}: {} {}-> {} ({})\n",
            i + 1,
            op_name(&e.op),
            e.op.kind.name(),
            from,
            e.op.layouts.1,
            tensor_text(e)
        ));
        match &e.outcome {
            Outcome::Planned(s, ..) => {
                for line in s.text().lines() {
                    out.push_str(&format!("   {}\n", line));
                }
                out.push_str(&format!("   cost weight: {}\n", s.cost.weight()));
            }
            Outcome::TensorMemory(m) => out.push_str(&format!("   {}\n", messages_text(e, m))),
            Outcome::NoMove(why) => out.push_str(&format!("   {}\n", why)),
            Outcome::Unplanned(why) => out.push_str(&format!("   not planned: {}\n", why)),
        }
    }
    out
}

/// `DIR/index.html` (the ops, dearest first, linking to their pages) and `DIR/op<N>.html`.
fn write_pages(dir: &Path, file: &str, target: &str, ops: &[Explained]) -> Result<String, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {}", dir.display(), e))?;
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {}", p.display(), e))
    };
    let mut rows = String::new();
    for (i, e) in ops.iter().enumerate() {
        let (link, what) = match &e.outcome {
            Outcome::Planned(s, a, b) => {
                let name = format!("op{}.html", i + 1);
                let title = format!("{}: {}", op_name(&e.op), e.op.kind.name());
                let page = layout_view::html::conversion_html(a, b, s, &title)
                    .map_err(|err| format!("{}: {}", title, err))?;
                write(&name, &page)?;
                (
                    format!("<a href=\"{}\">{}</a>", name, esc(&op_name(&e.op))),
                    esc(&s.text()),
                )
            }
            Outcome::TensorMemory(m) => (esc(&op_name(&e.op)), esc(&messages_text(e, m))),
            Outcome::NoMove(why) => (esc(&op_name(&e.op)), esc(why)),
            Outcome::Unplanned(why) => (esc(&op_name(&e.op)), format!("not planned: {}", esc(why))),
        };
        rows.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{} &#8594; {}</td><td>{}</td><td>{}</td><td><pre>{}</pre></td></tr>\n",
            i + 1,
            link,
            e.op.kind.name(),
            esc(&e.op.layouts.0),
            esc(&e.op.layouts.1),
            tensor_text(e),
            e.weight(),
            what
        ));
    }
    let index = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{f}</title><style>body{{font-family:monospace;font-size:12px}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:2px 6px;vertical-align:top}}pre{{margin:0}}</style></head><body>\n<h2>{f}: {n} ops that move tensors, planned for {t}, dearest first</h2>\n<table><tr><th>#</th><th>op</th><th>kind</th><th>layouts</th><th>tensor</th><th>cost weight</th><th>plan</th></tr>\n{rows}</table></body></html>\n",
        f = esc(file),
        n = ops.len(),
        t = target,
        rows = rows
    );
    write("index.html", &index)?;
    Ok(format!(
        "wrote {} ({} ops)\n",
        dir.join("index.html").display(),
        ops.len()
    ))
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
