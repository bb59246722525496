//! CuTe-style pictures of a layout, as `print_layout` and `print_latex` draw them: one cell per
//! tensor element, placed where the element sits in the tensor (rows are the second-to-last dim,
//! columns the last; a tensor of rank 3 or more gets one grid per index of its leading dims).
//!
//! A distributed layout labels each element with the thread and register holding it, in Triton's
//! notation (`T5:2`; `B1:T5:2` with several CTAs); a shared layout with its offset (`B1:40`;
//! `P1:40` in partition 1 of a partitioned one); a Blackwell tensor-memory layout with its row
//! and column (`R33:C2`). Where several places hold an element (broadcast), the cell shows the
//! first in hardware order (block, warp, lane, register) and the caption counts such elements.
//! In the LaTeX picture a colour stands for a thread (hue by thread modulo 32, darker for each
//! further 32; a tensor-memory row counts as the thread `tcgen05.ld` gives it to), or, for
//! shared layouts, for the bank the element falls in ([`Smem::banks`] of them): a conflict-free
//! swizzle shows as a row of distinct colours.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use layout_core::{LinearLayout, Result};

/// Cells a text grid draws at most.
const MAX_CELLS: u64 = 1 << 16;
/// Cells a TikZ picture draws at most (TikZ grows slow well before the text grid does).
const MAX_LATEX_CELLS: u64 = 1 << 14;
/// In-dim points walked at most.
const MAX_INPUTS: u64 = 1 << 22;

pub(crate) struct Cell {
    pub(crate) label: String,
    /// 0..32: a thread (or tensor-memory row) modulo 32, or a bank modulo 32.
    pub(crate) hue: u32,
    /// 0..4: which 32 threads, rows or banks (darker for later ones).
    pub(crate) shade: u32,
    /// The warp that holds (or alone reaches, for tensor memory) the element; 0 for shared memory.
    pub(crate) warp: u64,
    /// The in-dim values in walk order (see [`Kind::walk_order`]), unpadded.
    pub(crate) hw: [u64; 4],
}

/// What a layout's in-dims are places of, which decides how a picture walks and labels them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Registers of threads: `register, lane, warp, block`.
    Distributed,
    /// One shared buffer per CTA: `offset, block`.
    Shared,
    /// `#ttg.partitioned_shared`: several buffers per CTA, `offset, partition, block`.
    Partitioned,
    /// Blackwell tensor memory: `col, row, block` (a row is the lane a `tcgen05.ld` reaches).
    TensorMemory,
}

impl Kind {
    /// The kind of places the layout's in-dims name.
    pub fn of(ll: &LinearLayout) -> Kind {
        let has = |d| ll.in_dim_index(d).is_some();
        if has("offset") && has("partition") {
            Kind::Partitioned
        } else if has("offset") {
            Kind::Shared
        } else if has("row") || has("col") {
            Kind::TensorMemory
        } else {
            Kind::Distributed
        }
    }

    /// In-dims a picture walks, inner to outer.
    pub fn walk_order(self) -> &'static [&'static str] {
        match self {
            Kind::Distributed => &["register", "lane", "warp", "block"],
            Kind::Shared => &["offset", "block"],
            Kind::Partitioned => &["offset", "partition", "block"],
            Kind::TensorMemory => &["col", "row", "block"],
        }
    }

    /// Whether cells are shared-memory offsets (coloured by bank).
    pub fn is_shared(self) -> bool {
        matches!(self, Kind::Shared | Kind::Partitioned)
    }

    /// The name the page's script reads.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Distributed => "distributed",
            Kind::Shared => "shared",
            Kind::Partitioned => "partitioned",
            Kind::TensorMemory => "tmem",
        }
    }
}

/// How a picture draws shared memory: the banks it colours by (32 on NVIDIA and gfx942, 64 on
/// gfx950 and gfx1250; `Target::banks`) and a padded layout's `(interval, pad)` pairs, in
/// elements, whose padded offsets the cells show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Smem<'a> {
    /// Four-byte banks (a power of two, at most 128).
    pub banks: u32,
    /// `#ttg.padded_shared`'s `(interval, pad)` pairs; empty if not padded.
    pub padding: &'a [(u32, u32)],
}

impl Smem<'static> {
    /// 32 banks, no padding.
    pub const DEFAULT: Smem<'static> = Smem {
        banks: 32,
        padding: &[],
    };
}

impl Default for Smem<'static> {
    fn default() -> Self {
        Smem::DEFAULT
    }
}

pub(crate) struct Picture {
    /// The tensor shape, at least rank 2 (a rank-1 tensor is drawn as one row).
    pub(crate) shape: Vec<i64>,
    /// Row-major over `shape`; `None` where no input maps.
    pub(crate) cells: Vec<Option<Cell>>,
    /// How many inputs map to each element (more than one: broadcast copies).
    pub(crate) held: Vec<u8>,
    pub(crate) caption: String,
    /// What the layout's places are.
    pub(crate) kind: Kind,
    /// Banks the cells of a shared layout are coloured by.
    pub(crate) banks: u32,
}

fn digits(v: i64) -> usize {
    v.to_string().len()
}

/// Walk the layout's inputs in hardware order and keep, per element, the first that maps to it;
/// shared memory drawn as `smem` says (padded offsets, coloured by its banks).
pub(crate) fn picture_in(
    ll: &LinearLayout,
    element_bits: u32,
    max_cells: u64,
    smem: &Smem,
) -> Result<Picture> {
    let kind = check_drawable(ll, element_bits, max_cells, smem)?;
    let mut shape: Vec<i64> = ll.out_dims().iter().map(|(_, s)| *s as i64).collect();
    if shape.len() == 1 {
        shape.insert(0, 1);
    }
    let cells = Cells {
        kind,
        element_bits,
        banks: smem.banks,
        pads: layout_core::convert::padding_of(smem.padding, 0),
        n_lane: ll.in_dim_size("lane") as u64,
        several_blocks: ll.in_dim_size("block") > 1,
    };
    let (cells_of, held) = place_cells(ll, &cells);
    let caption = caption(ll, kind, &held);
    Ok(Picture {
        shape,
        cells: cells_of,
        held,
        caption,
        kind,
        banks: smem.banks,
    })
}

/// The hardware's point of view (Triton's `--use-hw-view`) as a picture: a distributed layout as
/// one row per thread (lane, then warp, then block) and one column per register; a shared layout
/// as rows of 128 bytes of offsets (one pass over 32 four-byte banks), a partitioned one's
/// partitions one after the other; tensor memory as its rows and columns. Each cell is labelled
/// with the tensor coordinate it holds and coloured by thread, row or bank; a cell whose element
/// an earlier cell already holds (a broadcast copy) is marked. Cell `i` is the `i`-th input in
/// walk order.
pub(crate) fn hw_picture(ll: &LinearLayout, element_bits: u32, smem: &Smem) -> Result<Picture> {
    let kind = check_drawable(ll, element_bits, MAX_CELLS, smem)?;
    let sizes: Vec<u64> = kind
        .walk_order()
        .iter()
        .map(|d| ll.in_dim_size(d) as u64)
        .collect();
    let n: u64 = sizes.iter().product();
    if n > MAX_CELLS {
        bail!(
            "the layout has {} hardware locations, more than the {} a picture shows; draw a smaller tensor (a tile of it)",
            n,
            MAX_CELLS
        );
    }
    let cols = if kind.is_shared() {
        (1024 / element_bits as u64).clamp(1, sizes[0])
    } else {
        sizes[0]
    };
    let drawn = Cells {
        kind,
        element_bits,
        banks: smem.banks,
        pads: layout_core::convert::padding_of(&[], 0),
        n_lane: ll.in_dim_size("lane") as u64,
        several_blocks: false,
    };
    let mut seen = alloc::vec![false; ll.total_out_dim_size() as usize];
    let mut cells = Vec::with_capacity(n as usize);
    let mut held = Vec::with_capacity(n as usize);
    walk(ll, kind, |v, out, lin| {
        held.push(if core::mem::replace(&mut seen[lin], true) {
            2
        } else {
            1
        });
        let label: Vec<String> = out.iter().map(|o| o.to_string()).collect();
        let mut c = drawn.cell(&v);
        c.label = label.join(",");
        cells.push(Some(c));
    });
    let caption = match kind {
        Kind::Distributed => String::from("hardware view: row = thread (lane, then warp, then block), column = register; cell = tensor coordinate"),
        Kind::TensorMemory => String::from("hardware view: row = tensor-memory row (lane), then block; column = tensor-memory column; cell = tensor coordinate"),
        Kind::Shared | Kind::Partitioned => format!(
            "hardware view: offsets in rows of {} (128 bytes){}; cell = tensor coordinate",
            cols,
            if kind == Kind::Partitioned { ", each partition's buffer after the previous one's" } else { "" }
        ),
    };
    Ok(Picture {
        shape: alloc::vec![(n / cols) as i64, cols as i64],
        cells,
        held,
        caption,
        kind,
        banks: smem.banks,
    })
}

/// Refuse what a picture cannot show (nothing to draw, too large, unknown in-dims, odd element
/// sizes or bank counts); the kind of places the layout's in-dims are.
fn check_drawable(
    ll: &LinearLayout,
    element_bits: u32,
    max_cells: u64,
    smem: &Smem,
) -> Result<Kind> {
    if ll.num_out_dims() == 0 {
        bail!("a rank-0 layout has nothing to draw");
    }
    let total = ll.total_out_dim_size();
    if total > max_cells || ll.total_in_dim_size() > MAX_INPUTS {
        bail!(
            "the tensor has {} elements, more than the {} a picture shows; draw a smaller tensor (a tile of it)",
            total,
            max_cells
        );
    }
    let kind = Kind::of(ll);
    let known = kind.walk_order();
    if let Some(d) = ll.in_dim_names().find(|d| !known.contains(d)) {
        bail!(
            "cannot draw in-dim '{}': a picture shows distributed layouts (register, lane, warp, block), shared ones (offset, [partition,] block) or tensor memory (row, col, block)",
            d
        );
    }
    if !matches!(element_bits, 1..=1024) {
        bail!(
            "element size {} bits: give 1 to 1024 (e.g. 16 for f16)",
            element_bits
        );
    }
    if !smem.banks.is_power_of_two() || smem.banks > 128 {
        bail!(
            "{} banks: give a power of two up to 128 (32 on NVIDIA GPUs, 64 on gfx950)",
            smem.banks
        );
    }
    Ok(kind)
}

/// How a picture turns an input into a cell.
struct Cells {
    kind: Kind,
    element_bits: u32,
    banks: u32,
    pads: layout_core::convert::Padding,
    n_lane: u64,
    /// Whether labels name the CTA (`B1:`).
    several_blocks: bool,
}

impl Cells {
    /// The cell of the input `v` (in-dim values in walk order): its offset coloured by bank, its
    /// thread and register coloured by thread, or its tensor-memory row and column coloured by
    /// row (the lane that reaches it).
    fn cell(&self, v: &[u64; 4]) -> Cell {
        let last = self.kind.walk_order().len() - 1;
        let block = if self.several_blocks {
            format!("B{}:", v[last])
        } else {
            String::new()
        };
        match self.kind {
            Kind::Shared | Kind::Partitioned => {
                let offset = layout_core::convert::pad_address(v[0] as u32, &self.pads) as u64;
                let bank = (offset * self.element_bits as u64 / 32) % self.banks as u64;
                let part = match self.kind {
                    Kind::Partitioned => format!("P{}:", v[1]),
                    _ => String::new(),
                };
                Cell {
                    label: format!("{}{}{}", block, part, offset),
                    hue: (bank % 32) as u32,
                    shade: (bank / 32) as u32,
                    warp: 0,
                    hw: *v,
                }
            }
            Kind::Distributed => {
                let thread = v[1] + v[2] * self.n_lane;
                Cell {
                    label: format!("{}T{}:{}", block, thread, v[0]),
                    hue: (thread % 32) as u32,
                    shade: ((thread / 32) % 4) as u32,
                    warp: v[2],
                    hw: *v,
                }
            }
            Kind::TensorMemory => Cell {
                label: format!("{}R{}:C{}", block, v[1], v[0]),
                hue: (v[1] % 32) as u32,
                shade: ((v[1] / 32) % 4) as u32,
                warp: (v[1] / 32) % 4,
                hw: *v,
            },
        }
    }
}

/// Every element's cell (the first input in hardware order that maps to it) and how many inputs
/// map to it, both row-major over the out-dims.
fn place_cells(ll: &LinearLayout, drawn: &Cells) -> (Vec<Option<Cell>>, Vec<u8>) {
    let total = ll.total_out_dim_size();
    let mut cells: Vec<Option<Cell>> = (0..total).map(|_| None).collect();
    let mut held = alloc::vec![0u8; total as usize];
    walk(ll, drawn.kind, |v, _, lin| {
        held[lin] = held[lin].saturating_add(1);
        if cells[lin].is_none() {
            cells[lin] = Some(drawn.cell(&v));
        }
    });
    (cells, held)
}

/// Every input of the layout in walk order (see [`Kind::walk_order`]): its in-dim values in walk
/// order, the coordinates it maps to, and their row-major index.
pub(crate) fn walk(ll: &LinearLayout, kind: Kind, mut f: impl FnMut([u64; 4], &[u32], usize)) {
    let order = kind.walk_order();
    let sizes: Vec<u64> = order.iter().map(|d| ll.in_dim_size(d) as u64).collect();
    let n: u64 = sizes.iter().product();
    let mut ins = alloc::vec![0u32; ll.num_in_dims()];
    for flat in 0..n {
        let mut rest = flat;
        let mut v = [0u64; 4];
        for (i, &s) in sizes.iter().enumerate() {
            v[i] = rest % s;
            rest /= s;
        }
        for (i, d) in order.iter().enumerate() {
            if let Some(p) = ll.in_dim_index(d) {
                ins[p] = v[i] as u32;
            }
        }
        let out = ll.apply_flat(&ins);
        let lin = out
            .iter()
            .zip(ll.out_dims())
            .fold(0usize, |acc, (&o, (_, s))| acc * *s as usize + o as usize);
        f(v, &out, lin);
    }
}

/// The picture's caption: the shape, what a cell shows, and counts of elements held several
/// times or not at all (`held` counts the inputs per element).
fn caption(ll: &LinearLayout, kind: Kind, held: &[u8]) -> String {
    let dims: Vec<String> = ll.out_dims().iter().map(|(_, s)| s.to_string()).collect();
    let mut caption = format!(
        "{} tensor; cell = {}",
        dims.join("x"),
        match kind {
            Kind::Shared => "offset",
            Kind::Partitioned => "P<partition>:<offset>",
            Kind::Distributed => "T<thread>:<register>",
            Kind::TensorMemory => "R<tensor-memory row>:C<column>",
        }
    );
    let shared_by_many = held.iter().filter(|&&h| h > 1).count();
    if shared_by_many > 0 {
        caption.push_str(&format!(
            "; {} of {} elements have several {} (the first is shown)",
            shared_by_many,
            held.len(),
            if kind.is_shared() {
                "offsets"
            } else {
                "holders"
            }
        ));
    }
    let missing = held.iter().filter(|&&h| h == 0).count();
    if missing > 0 {
        caption.push_str(&format!("; {} elements map from nothing (-)", missing));
    }
    caption
}

/// The leading-dim heading of grid `g` (`dim0 = 1, dim1 = 0`), empty for rank 2 or less.
pub(crate) fn heading(shape: &[i64], g: i64) -> String {
    let lead = &shape[..shape.len() - 2];
    let mut idx = alloc::vec![0i64; lead.len()];
    let mut rest = g;
    for i in (0..lead.len()).rev() {
        idx[i] = rest % lead[i];
        rest /= lead[i];
    }
    let parts: Vec<String> = idx
        .iter()
        .enumerate()
        .map(|(i, v)| format!("dim{} = {}", i, v))
        .collect();
    parts.join(", ")
}

/// A text grid of the layout, in the manner of CuTe's `print_layout`.
///
/// ```
/// use layout_core::parse::{parse_encoding, Aliases};
/// use layout_view::print_layout;
/// let text = "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>";
/// let enc = parse_encoding(text, &Aliases::new()).unwrap();
/// let text = print_layout(&enc.to_linear_layout(&[2, 4]).unwrap()).unwrap();
/// assert!(text.contains("| T0:0 | T0:1 | T1:0 | T1:1 |"));
/// ```
pub fn print_layout(ll: &LinearLayout) -> Result<String> {
    print_layout_in(ll, &Smem::DEFAULT)
}

/// [`print_layout`] with shared memory as `smem` says: a padded layout's cells show the
/// element's padded offset.
pub fn print_layout_in(ll: &LinearLayout, smem: &Smem) -> Result<String> {
    let p = picture_in(ll, 32, MAX_CELLS, smem)?;
    let rank = p.shape.len();
    let (rows, cols) = (p.shape[rank - 2], p.shape[rank - 1]);
    let grids: i64 = p.shape[..rank - 2].iter().product();
    let width = p
        .cells
        .iter()
        .map(|c| c.as_ref().map_or(1, |c| c.label.len()))
        .max()
        .unwrap_or(1)
        .max(digits(cols - 1));
    let margin = digits(rows - 1) + 2;
    let mut border = " ".repeat(margin);
    for _ in 0..cols {
        border.push('+');
        border.push_str(&"-".repeat(width + 2));
    }
    border.push_str("+\n");
    let mut out = p.caption.clone();
    out.push('\n');
    for g in 0..grids {
        if rank > 2 {
            out.push_str(&heading(&p.shape, g));
            out.push_str(":\n");
        }
        out.push_str(&" ".repeat(margin));
        for c in 0..cols {
            out.push_str(&format!(" {:>w$}  ", c, w = width));
        }
        out.push('\n');
        out.push_str(&border);
        for r in 0..rows {
            out.push_str(&format!("{:>w$}  ", r, w = margin - 2));
            for c in 0..cols {
                let cell = &p.cells[((g * rows + r) * cols + c) as usize];
                let label = cell.as_ref().map_or("-", |c| c.label.as_str());
                out.push_str(&format!("| {:>w$} ", label, w = width));
            }
            out.push_str("|\n");
            out.push_str(&border);
        }
    }
    Ok(out)
}

/// A standalone LaTeX (TikZ) picture of the layout, in the manner of CuTe's `print_latex`;
/// compile it with `pdflatex`. Cells are coloured by thread (tensor memory: by row, the lane that
/// reaches it), or for a shared layout by the bank of the element (`element_bits` wide, 32 banks
/// of 4 bytes), so conflicts show as repeated colours in a row.
pub fn print_latex(ll: &LinearLayout, element_bits: u32) -> Result<String> {
    print_latex_in(ll, element_bits, &Smem::DEFAULT)
}

/// [`print_latex`] with shared memory as `smem` says: padded offsets, coloured by its banks
/// (banks past 32 a darker shade of the first 32's hues).
pub fn print_latex_in(ll: &LinearLayout, element_bits: u32, smem: &Smem) -> Result<String> {
    let p = picture_in(ll, element_bits, MAX_LATEX_CELLS, smem)?;
    let rank = p.shape.len();
    let grids: i64 = p.shape[..rank - 2].iter().product();
    let mut out = format!("% {}\n", p.caption);
    out.push_str("\\documentclass[convert]{standalone}\n\\usepackage{tikz}\n\\begin{document}\n");
    latex_colours(&mut out, &p.cells);
    out.push_str("\\begin{tikzpicture}[x={(0cm,-1cm)},y={(1cm,0cm)},every node/.style={minimum size=1cm,outer sep=0pt,font=\\scriptsize}]\n");
    for g in 0..grids {
        latex_grid(&mut out, &p, g);
    }
    out.push_str("\\end{tikzpicture}\n\\end{document}\n");
    Ok(out)
}

/// One `\definecolor` per (hue, shade) the cells use.
fn latex_colours(out: &mut String, cells: &[Option<Cell>]) {
    let mut used = [[false; 4]; 32];
    for c in cells.iter().flatten() {
        used[c.hue as usize][c.shade as usize] = true;
    }
    // Hue around the wheel by thread or bank; each further 32 threads a darker shade.
    for (h, shades) in used.iter().enumerate() {
        for (s, &u) in shades.iter().enumerate() {
            if u {
                out.push_str(&format!(
                    "\\definecolor{{c{}s{}}}{{hsb}}{{{:.4},0.35,{:.2}}}\n",
                    h,
                    s,
                    h as f64 / 32.0,
                    1.0 - 0.15 * s as f64
                ));
            }
        }
    }
}

/// Grid `g` of the picture: its heading (rank 3 and up), cells, lines and row/column numbers.
fn latex_grid(out: &mut String, p: &Picture, g: i64) {
    let rank = p.shape.len();
    let (rows, cols) = (p.shape[rank - 2], p.shape[rank - 1]);
    // Grids stack downwards, two rows apart, each under its heading.
    let top = g * (rows + 2) + if rank > 2 { 1 } else { 0 };
    if rank > 2 {
        out.push_str(&format!(
            "\\node[anchor=west] at ({},-1) {{{}}};\n",
            top - 1,
            heading(&p.shape, g)
        ));
    }
    for r in 0..rows {
        for c in 0..cols {
            match &p.cells[((g * rows + r) * cols + c) as usize] {
                Some(cell) => out.push_str(&format!(
                    "\\node[fill=c{}s{}] at ({},{}) {{{}}};\n",
                    cell.hue,
                    cell.shade,
                    top + r,
                    c,
                    cell.label
                )),
                None => out.push_str(&format!("\\node at ({},{}) {{-}};\n", top + r, c)),
            }
        }
    }
    out.push_str(&format!(
        "\\draw[color=black,thick,shift={{(-0.5,-0.5)}}] ({},0) grid ({},{});\n",
        top,
        top + rows,
        cols
    ));
    for r in 0..rows {
        out.push_str(&format!(
            "\\node at ({},-1) {{\\textbf{{{}}}}};\n",
            top + r,
            r
        ));
    }
    for c in 0..cols {
        out.push_str(&format!(
            "\\node at ({},{}) {{\\textbf{{{}}}}};\n",
            top - 1,
            c,
            c
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked_2x4() -> LinearLayout {
        // Two registers along dim1, then lanes along dim1 and dim0 (blocked spt [1, 2],
        // tpw [2, 2] on a 2x4 tensor), plus a broadcast warp.
        LinearLayout::from_bases(
            alloc::vec![
                ("register".into(), alloc::vec![alloc::vec![0, 1]]),
                (
                    "lane".into(),
                    alloc::vec![alloc::vec![0, 2], alloc::vec![1, 0]]
                ),
                ("warp".into(), alloc::vec![alloc::vec![0, 0]]),
            ],
            &["dim0", "dim1"],
        )
        .unwrap()
    }

    #[test]
    fn text_grid_places_each_holder() {
        let text = print_layout(&blocked_2x4()).unwrap();
        let want = "\
2x4 tensor; cell = T<thread>:<register>; 8 of 8 elements have several holders (the first is shown)
       0      1      2      3  
   +------+------+------+------+
0  | T0:0 | T0:1 | T1:0 | T1:1 |
   +------+------+------+------+
1  | T2:0 | T2:1 | T3:0 | T3:1 |
   +------+------+------+------+
";
        assert_eq!(text, want);
    }

    #[test]
    fn shared_cells_show_offsets_and_grids_per_leading_index() {
        // A 2x2x2 shared layout whose offset bit 0 walks dim0: two grids.
        let ll = LinearLayout::from_bases(
            alloc::vec![(
                "offset".into(),
                alloc::vec![
                    alloc::vec![1, 0, 0],
                    alloc::vec![0, 0, 1],
                    alloc::vec![0, 1, 0]
                ],
            )],
            &["dim0", "dim1", "dim2"],
        )
        .unwrap();
        let text = print_layout(&ll).unwrap();
        assert!(text.starts_with("2x2x2 tensor; cell = offset\ndim0 = 0:\n"));
        assert!(text.contains("0  | 0 | 2 |\n"));
        assert!(text.contains("dim0 = 1:\n"));
        assert!(text.contains("1  | 5 | 7 |\n"));
    }

    #[test]
    fn latex_colours_shared_cells_by_bank() {
        // A 1x4 row of f16 at offsets 0..3: banks 0, 0, 1, 1.
        let ll = LinearLayout::from_bases(
            alloc::vec![("offset".into(), alloc::vec![alloc::vec![1], alloc::vec![2]])],
            &["dim0"],
        )
        .unwrap();
        let tex = print_latex(&ll, 16).unwrap();
        assert!(tex.contains("\\node[fill=c0s0] at (0,1) {1};"));
        assert!(tex.contains("\\node[fill=c1s0] at (0,2) {2};"));
        assert!(tex.contains("\\begin{tikzpicture}"));
        assert_eq!(tex.matches("\\definecolor").count(), 2);
    }

    #[test]
    fn tensor_memory_and_partitions_label_their_places() {
        // Rows along dim0, columns along dim1, two CTAs along dim0.
        let tmem = LinearLayout::from_bases(
            alloc::vec![
                ("row".into(), alloc::vec![alloc::vec![1, 0]]),
                ("col".into(), alloc::vec![alloc::vec![0, 1]]),
                ("block".into(), alloc::vec![alloc::vec![2, 0]]),
            ],
            &["dim0", "dim1"],
        )
        .unwrap();
        assert_eq!(Kind::of(&tmem), Kind::TensorMemory);
        let text = print_layout(&tmem).unwrap();
        assert!(text.contains("1  | B0:R1:C0 | B0:R1:C1 |"), "{}", text);
        assert!(text.contains("2  | B1:R0:C0 | B1:R0:C1 |"), "{}", text);
        let parts = LinearLayout::from_bases(
            alloc::vec![
                ("offset".into(), alloc::vec![alloc::vec![0, 1]]),
                ("partition".into(), alloc::vec![alloc::vec![1, 0]]),
            ],
            &["dim0", "dim1"],
        )
        .unwrap();
        assert_eq!(Kind::of(&parts), Kind::Partitioned);
        let text = print_layout(&parts).unwrap();
        assert!(text.contains("1  | P1:0 | P1:1 |"), "{}", text);
    }

    #[test]
    fn banks_past_32_are_a_darker_shade() {
        // 64 f32 in a row: offset 32 is bank 32 of 64 (hue 0, shade 1), bank 0 of 32.
        let ll = LinearLayout::identity_1d(64, "offset", "dim0").unwrap();
        let wide = Smem {
            banks: 64,
            padding: &[],
        };
        let tex = print_latex_in(&ll, 32, &wide).unwrap();
        assert!(tex.contains("\\node[fill=c0s1] at (0,32) {32};"), "{}", tex);
        let tex = print_latex(&ll, 32).unwrap();
        assert!(tex.contains("\\node[fill=c0s0] at (0,32) {32};"));
        let odd = Smem {
            banks: 48,
            padding: &[],
        };
        assert!(print_latex_in(&ll, 32, &odd).is_err());
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let big = LinearLayout::identity_1d(1 << 20, "register", "dim0").unwrap();
        assert!(print_layout(&big).is_err());
        let other = LinearLayout::identity_1d(4, "x", "dim0").unwrap();
        let err = print_layout(&other).unwrap_err().to_string();
        assert!(err.contains("in-dim 'x'"), "{}", err);
        assert!(print_latex(&blocked_2x4(), 0).is_err());
        assert!(print_layout(&LinearLayout::empty()).is_err());
    }
}
