//! SVG pictures of a layout, in the manner of CuTe's `print_svg`: the tensor as a grid, each cell
//! labelled as in [`crate::print_layout`] (`T<thread>:<register>`, or the shared offset) and
//! coloured by thread, by warp, or (shared layouts) by bank, with a legend. Elements held by
//! several threads (broadcast copies) carry a dark corner mark. A tensor of rank 3 or more is a
//! row of grids, one per index of its leading dims.
//!
//! Large tensors stay small files: cells of one colour are one `<path>`, and past
//! [`LABEL_CELLS`] cells the labels are dropped (colours kept), so a 128x128 picture is a few
//! hundred kilobytes.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::print::{heading, Cell, Kind, Picture, Smem};
use layout_core::{LinearLayout, Result};

/// Cells an SVG draws at most (a 256x256 tensor).
const MAX_SVG_CELLS: u64 = 1 << 16;
/// Above this many cells, cells are small squares without labels.
pub const LABEL_CELLS: usize = 4096;
/// Pixel size of an unlabelled cell.
const SMALL: i64 = 8;
/// Height of a labelled cell; its width follows the longest label.
const TALL: i64 = 18;
/// Space around and between grids.
const PAD: i64 = 24;

/// What a cell's colour stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColourBy {
    /// The thread holding the element (hue by thread modulo 32, darker for each further 32); for
    /// tensor memory, the row (the lane a `tcgen05.ld` gives it to).
    Thread,
    /// The warp holding the element (tensor memory: the warp that alone reaches its row).
    Warp,
    /// The shared-memory bank of the element (shared layouts).
    Bank,
}

impl ColourBy {
    /// The default for a layout: by bank for shared layouts, by thread for distributed ones.
    pub fn default_for(ll: &LinearLayout) -> Self {
        if ll.in_dim_index("offset").is_some() {
            ColourBy::Bank
        } else {
            ColourBy::Thread
        }
    }
}

/// The fill of a colour class: 32 hues spread so that neighbours differ, four shades.
pub fn fill(hue: u32, shade: u32) -> String {
    let h = (hue * 11 % 32) * 360 / 32;
    format!("hsl({},70%,{}%)", h, 84 - 10 * shade.min(3))
}

/// An SVG picture of the layout (elements of `element_bits` for the bank colouring).
///
/// ```
/// use layout_core::parse::{parse_encoding, Aliases};
/// use layout_view::svg::{print_svg, ColourBy};
/// let text = "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>";
/// let ll = parse_encoding(text, &Aliases::new()).unwrap().to_linear_layout(&[4, 16]).unwrap();
/// let svg = print_svg(&ll, 16, ColourBy::Thread).unwrap();
/// assert!(svg.starts_with("<svg") && svg.contains(">T0:0</text>"));
/// ```
pub fn print_svg(ll: &LinearLayout, element_bits: u32, by: ColourBy) -> Result<String> {
    print_svg_in(ll, element_bits, by, &Smem::DEFAULT)
}

/// [`print_svg`] with shared memory as `smem` says: padded offsets, coloured by its banks.
pub fn print_svg_in(
    ll: &LinearLayout,
    element_bits: u32,
    by: ColourBy,
    smem: &Smem,
) -> Result<String> {
    let p = crate::print::picture_in(ll, element_bits, MAX_SVG_CELLS, smem)?;
    match (p.kind.is_shared(), by) {
        (true, ColourBy::Thread | ColourBy::Warp) => {
            bail!("a shared layout has no threads or warps to colour by: colour it by bank (`--colour-by bank`)")
        }
        (false, ColourBy::Bank) => {
            bail!("a {} layout has no banks: colour it by thread or by warp (`--colour-by thread` or `warp`; banks belong to shared layouts)",
                if p.kind == Kind::TensorMemory { "tensor-memory" } else { "distributed" })
        }
        _ => {}
    }
    Ok(draw_svg(&p, &[Scheme::of(by, &p)], ""))
}

/// How cells are coloured and what the legend says: by thread, warp or bank, or by named classes
/// (such as how an element moves in a conversion).
pub(crate) struct Scheme {
    /// What a colour stands for, as the legend's first line says.
    pub(crate) what: String,
    /// Colour by warp (from the cell's in-dim values) instead of the picture's own hue and shade.
    pub(crate) by_warp: bool,
    /// Names of the hues (their first shade) for the legend; empty: the hue numbers.
    pub(crate) names: Vec<(u32, String)>,
    /// If not empty, each cell's class (row-major), overriding the others.
    pub(crate) per_cell: Vec<(u32, u32)>,
}

impl Scheme {
    /// Colour `p`'s cells by `by`.
    pub(crate) fn of(by: ColourBy, p: &Picture) -> Self {
        let tmem = p.kind == Kind::TensorMemory;
        let what = match by {
            ColourBy::Thread if tmem => String::from(
                "tensor-memory row mod 32 = the lane tcgen05.ld gives it to (darker: rows 32-63, 64-95, 96-127)",
            ),
            ColourBy::Thread => {
                String::from("thread mod 32 (darker: threads 32-63, 64-95, 96-127 mod 128)")
            }
            ColourBy::Warp if tmem => String::from("warp (mod 4) that reaches the row"),
            ColourBy::Warp => String::from("warp"),
            ColourBy::Bank if p.banks > 32 => format!(
                "bank mod 32 (4-byte banks, {} of them; darker: banks 32-63{})",
                p.banks,
                if p.banks > 64 { ", ..." } else { "" }
            ),
            ColourBy::Bank => format!("bank (4-byte banks, {} of them)", p.banks),
        };
        Scheme {
            what,
            by_warp: by == ColourBy::Warp,
            names: Vec::new(),
            per_cell: Vec::new(),
        }
    }
    /// The class of cell `i`.
    fn class(&self, i: usize, c: &Cell) -> (u32, u32) {
        match self.per_cell.get(i) {
            Some(&k) => k,
            None if self.by_warp => ((c.warp % 32) as u32, ((c.warp / 32) % 4) as u32),
            None => (c.hue, c.shade),
        }
    }
}

/// The SVG of a picture under colour schemes: the first is shown, the others are groups
/// (`<g data-scheme="k">`) hidden until a script shows them; `id` (if not empty) names the
/// `<svg>` element, which carries its grid geometry for scripts: `data-grid="x0 y0 cell-width
/// cell-height rows cols grids grid-stride"`.
pub(crate) fn draw_svg(p: &Picture, schemes: &[Scheme], id: &str) -> String {
    let g = Geometry::of(p);
    let (x0, y0) = g.origin(0);
    let id = if id.is_empty() {
        String::new()
    } else {
        format!(
            " id=\"{}\" data-grid=\"{} {} {} {} {} {} {} {}\"",
            id,
            x0,
            y0,
            g.cw,
            g.ch,
            g.rows,
            g.cols,
            g.grids,
            g.origin(1).0 - x0
        )
    };
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\"{id} width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"monospace\" font-size=\"10\">\n",
        id = id,
        w = g.width(),
        h = g.height()
    );
    out.push_str(&format!("<title>{}</title>\n", escape(&p.caption)));
    styles(&mut out, p, schemes);
    out.push_str(&format!(
        "<text x=\"{}\" y=\"14\" font-size=\"12\">{}</text>\n",
        PAD,
        escape(&p.caption)
    ));
    for k in 0..g.grids {
        grid(&mut out, p, &g, k, schemes);
    }
    for (k, scheme) in schemes.iter().enumerate() {
        in_group(&mut out, k, schemes.len(), |out| legend(out, p, &g, scheme));
    }
    out.push_str("</svg>\n");
    out
}

/// Sizes of the picture.
struct Geometry {
    rows: i64,
    cols: i64,
    grids: i64,
    cw: i64,
    ch: i64,
    labels: bool,
    heading: i64,
}

impl Geometry {
    fn of(p: &Picture) -> Self {
        let rank = p.shape.len();
        let (rows, cols) = (p.shape[rank - 2], p.shape[rank - 1]);
        let labels = p.cells.len() <= LABEL_CELLS;
        let longest = p.cells.iter().flatten().map(|c| c.label.len()).max();
        let (cw, ch) = if labels {
            ((6 * longest.unwrap_or(1) as i64 + 8).max(TALL), TALL)
        } else {
            (SMALL, SMALL)
        };
        Geometry {
            rows,
            cols,
            grids: p.shape[..rank - 2].iter().product(),
            cw,
            ch,
            labels,
            heading: if rank > 2 { 16 } else { 0 },
        }
    }
    /// Top-left corner of grid `k`'s first cell.
    fn origin(&self, k: i64) -> (i64, i64) {
        (
            PAD + 8 + k * (self.cols * self.cw + PAD),
            PAD + 12 + self.heading,
        )
    }
    fn legend_top(&self) -> i64 {
        self.origin(0).1 + self.rows * self.ch + PAD
    }
    fn width(&self) -> i64 {
        (self.origin(self.grids).0).max(PAD + 34 * 16)
    }
    fn height(&self) -> i64 {
        self.legend_top() + 3 * 16 + PAD
    }
}

/// One CSS class per colour in use, and the strokes.
fn styles(out: &mut String, p: &Picture, schemes: &[Scheme]) {
    let mut used = [[false; 4]; 32];
    for scheme in schemes {
        for (i, c) in p.cells.iter().enumerate() {
            if let Some(c) = c {
                let (h, s) = scheme.class(i, c);
                used[h as usize][s as usize] = true;
            }
        }
    }
    out.push_str("<style>\n");
    for (h, shades) in used.iter().enumerate() {
        for (s, &u) in shades.iter().enumerate() {
            if u {
                out.push_str(&format!(
                    ".c{}s{}{{fill:{}}}\n",
                    h,
                    s,
                    fill(h as u32, s as u32)
                ));
            }
        }
    }
    out.push_str(".m{fill:#fff}\n.b{fill:#000;fill-opacity:0.55}\n.l{fill:none;stroke:#333;stroke-width:0.5}\ntext{fill:#000}\n.n{fill:#555;font-size:9px}\n</style>\n");
}

/// Wrap what `f` writes in scheme `k`'s group when there are several schemes (all but the first
/// hidden).
fn in_group(out: &mut String, k: usize, n: usize, f: impl FnOnce(&mut String)) {
    if n > 1 {
        let hide = if k > 0 { " display=\"none\"" } else { "" };
        out.push_str(&format!("<g data-scheme=\"{}\"{}>\n", k, hide));
    }
    f(out);
    if n > 1 {
        out.push_str("</g>\n");
    }
}

/// Grid `k`: heading, cells by colour class (per scheme), copy marks, lines, labels, row and
/// column numbers.
fn grid(out: &mut String, p: &Picture, g: &Geometry, k: i64, schemes: &[Scheme]) {
    let (x0, y0) = g.origin(k);
    if g.heading > 0 {
        out.push_str(&format!(
            "<text x=\"{}\" y=\"{}\">{}</text>\n",
            x0,
            y0 - 14,
            heading(&p.shape, k)
        ));
    }
    for (n, scheme) in schemes.iter().enumerate() {
        in_group(out, n, schemes.len(), |out| {
            for (class, d) in fills(p, g, k, scheme) {
                out.push_str(&format!("<path class=\"{}\" d=\"{}\"/>\n", class, d));
            }
        });
    }
    let mut marks = String::new();
    let m = (g.ch / 3).max(3);
    for r in 0..g.rows {
        for c in 0..g.cols {
            if p.held[((k * g.rows + r) * g.cols + c) as usize] > 1 {
                let (x, y) = (x0 + (c + 1) * g.cw, y0 + r * g.ch);
                marks.push_str(&format!("M{} {}h-{}l{} {}z", x, y, m, m, m));
            }
        }
    }
    if !marks.is_empty() {
        out.push_str(&format!("<path class=\"b\" d=\"{}\"/>\n", marks));
    }
    lines(out, g, x0, y0);
    if g.labels {
        labels(out, p, g, k, (x0, y0));
    }
}

/// Grid `k`'s fills: per colour class, one path of rectangles, each a run of same-class cells
/// along a row.
fn fills(p: &Picture, g: &Geometry, k: i64, scheme: &Scheme) -> Vec<(String, String)> {
    let (x0, y0) = g.origin(k);
    // A cell's class: `Some((hue, shade))`, or `None` where no input maps.
    let class_at = |r: i64, c: i64| {
        let i = ((k * g.rows + r) * g.cols + c) as usize;
        p.cells[i].as_ref().map(|cell| scheme.class(i, cell))
    };
    let mut paths: Vec<(Option<(u32, u32)>, String)> = Vec::new();
    for r in 0..g.rows {
        let mut c = 0;
        while c < g.cols {
            let class = class_at(r, c);
            let mut end = c + 1;
            while end < g.cols && class_at(r, end) == class {
                end += 1;
            }
            let w = (end - c) * g.cw;
            let d = format!(
                "M{} {}h{}v{}h-{}z",
                x0 + c * g.cw,
                y0 + r * g.ch,
                w,
                g.ch,
                w
            );
            match paths.iter_mut().find(|(n, _)| *n == class) {
                Some((_, path)) => path.push_str(&d),
                None => paths.push((class, d)),
            }
            c = end;
        }
    }
    let name = |class: Option<(u32, u32)>| match class {
        Some((h, s)) => format!("c{}s{}", h, s),
        None => String::from("m"),
    };
    paths.into_iter().map(|(c, d)| (name(c), d)).collect()
}

/// The grid's lines: one path.
fn lines(out: &mut String, g: &Geometry, x0: i64, y0: i64) {
    let mut d = String::new();
    for r in 0..=g.rows {
        d.push_str(&format!("M{} {}h{}", x0, y0 + r * g.ch, g.cols * g.cw));
    }
    for c in 0..=g.cols {
        d.push_str(&format!("M{} {}v{}", x0 + c * g.cw, y0, g.rows * g.ch));
    }
    out.push_str(&format!("<path class=\"l\" d=\"{}\"/>\n", d));
}

/// Cell labels, and the row and column numbers around the grid.
fn labels(out: &mut String, p: &Picture, g: &Geometry, k: i64, (x0, y0): (i64, i64)) {
    out.push_str("<g text-anchor=\"middle\">\n");
    for r in 0..g.rows {
        for c in 0..g.cols {
            let label = p.cells[((k * g.rows + r) * g.cols + c) as usize]
                .as_ref()
                .map_or("-", |c| c.label.as_str());
            out.push_str(&format!(
                "<text x=\"{}\" y=\"{}\">{}</text>\n",
                x0 + c * g.cw + g.cw / 2,
                y0 + r * g.ch + g.ch / 2 + 4,
                label
            ));
        }
    }
    for c in 0..g.cols {
        out.push_str(&format!(
            "<text class=\"n\" x=\"{}\" y=\"{}\">{}</text>\n",
            x0 + c * g.cw + g.cw / 2,
            y0 - 3,
            c
        ));
    }
    out.push_str("</g>\n");
    for r in 0..g.rows {
        out.push_str(&format!(
            "<text class=\"n\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
            x0 - 3,
            y0 + r * g.ch + g.ch / 2 + 4,
            r
        ));
    }
}

/// The legend: a swatch per hue in use (the first shade), what the shades mean, the copy mark.
fn legend(out: &mut String, p: &Picture, g: &Geometry, scheme: &Scheme) {
    let top = g.legend_top();
    out.push_str(&format!(
        "<text x=\"{}\" y=\"{}\">colour = {}</text>\n",
        PAD,
        top,
        escape(&scheme.what)
    ));
    let mut hues = [false; 32];
    for (i, c) in p.cells.iter().enumerate() {
        if let Some(c) = c {
            hues[scheme.class(i, c).0 as usize] = true;
        }
    }
    let mut x = PAD;
    for (h, _) in hues.iter().enumerate().filter(|(_, &u)| u) {
        let name = scheme.names.iter().find(|(n, _)| *n == h as u32);
        let label = name.map_or(alloc::format!("{}", h), |(_, l)| l.clone());
        let step = if name.is_some() {
            8 * label.len() as i64 + 24
        } else {
            16
        };
        out.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" class=\"c{}s0\"/>",
            x,
            top + 6,
            h
        ));
        if name.is_some() {
            out.push_str(&format!(
                "<text x=\"{}\" y=\"{}\">{}</text>\n",
                x + 18,
                top + 17,
                escape(&label)
            ));
        } else {
            out.push_str(&format!(
                "<text class=\"n\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                x + 7,
                top + 32,
                h
            ));
        }
        x += step;
    }
    if p.held.iter().any(|&h| h > 1) {
        out.push_str(&format!(
            "<path class=\"b\" d=\"M{} {}h-8l8 8z\"/><text x=\"{}\" y=\"{}\">held by several threads (broadcast copies)</text>\n",
            PAD + 8,
            top + 38,
            PAD + 12,
            top + 46
        ));
    }
}

/// Text as XML character data.
pub(crate) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    fn blocked(rows: i32, cols: i32) -> LinearLayout {
        let enc = layout_core::parse::parse_encoding(
            "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>",
            &layout_core::parse::Aliases::new(),
        )
        .unwrap();
        enc.to_linear_layout(&[rows as i64, cols as i64]).unwrap()
    }

    #[test]
    fn cells_are_labelled_and_coloured_by_thread_or_warp() {
        let svg = print_svg(&blocked(8, 32), 16, ColourBy::Thread).unwrap();
        assert!(svg.contains(">T0:0</text>") && svg.contains(">T1:1</text>"));
        // Threads 0 and 1 (hues 0 and 1) get different fills.
        assert!(svg.contains(&format!(".c0s0{{fill:{}}}", fill(0, 0))));
        assert!(svg.contains(&format!(".c1s0{{fill:{}}}", fill(1, 0))));
        assert_ne!(fill(0, 0), fill(1, 0));
        let by_warp = print_svg(&blocked(8, 32), 16, ColourBy::Warp).unwrap();
        // Four warps, four classes.
        assert_eq!(by_warp.matches("<path class=\"c").count(), 4);
    }

    #[test]
    fn large_tensors_drop_labels_and_stay_small() {
        let svg = print_svg(&blocked(128, 128), 16, ColourBy::Thread).unwrap();
        assert!(!svg.contains(">T0:0</text>"));
        assert!(svg.len() < 1 << 20, "{} bytes", svg.len());
        // Broadcast: a 2x2 tensor under a 8x16-thread layout is held many times over.
        let small = print_svg(&blocked(2, 2), 16, ColourBy::Thread).unwrap();
        assert!(small.contains("class=\"b\""));
        assert!(small.contains("broadcast copies"));
    }

    #[test]
    fn shared_layouts_are_coloured_by_bank_only() {
        let ll = LinearLayout::from_bases(
            alloc::vec![(
                "offset".into(),
                alloc::vec![alloc::vec![0, 1], alloc::vec![0, 2], alloc::vec![1, 0]]
            )],
            &["dim0", "dim1"],
        )
        .unwrap();
        let svg = print_svg(&ll, 32, ColourBy::Bank).unwrap();
        assert!(svg.contains(">5</text>"));
        let err = print_svg(&ll, 32, ColourBy::Thread)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("colour it by bank (`--colour-by bank`)"),
            "{}",
            err
        );
        let err = print_svg(&blocked(8, 8), 32, ColourBy::Bank)
            .unwrap_err()
            .to_string();
        assert!(err.contains("by thread or by warp"), "{}", err);
    }

    #[test]
    fn rank_three_is_a_row_of_grids() {
        let ll = LinearLayout::from_bases(
            alloc::vec![(
                "offset".into(),
                alloc::vec![
                    alloc::vec![0, 0, 1],
                    alloc::vec![0, 1, 0],
                    alloc::vec![1, 0, 0]
                ]
            )],
            &["dim0", "dim1", "dim2"],
        )
        .unwrap();
        let svg = print_svg(&ll, 32, ColourBy::Bank).unwrap();
        assert!(svg.contains(">dim0 = 0</text>") && svg.contains(">dim0 = 1</text>"));
    }
}
