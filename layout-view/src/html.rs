//! Interactive HTML views of layouts and conversions: one self-contained file each (inline SVG,
//! CSS and a small script; no network, no framework).
//!
//! [`print_html`] shows one layout as the SVG of [`crate::svg`] (the tensor view) and, behind a
//! toggle, from the hardware's point of view (Triton's `--use-hw-view`: a row per thread, a
//! column per register; rows of 128 bytes of offsets for a shared layout). Hovering a cell shows
//! its register, lane, warp and block (or offset, bank, and the offset bits that a swizzle XORs
//! into other coordinates); the bases are listed beside it, and hovering one highlights the
//! elements whose holder has that bit set.
//!
//! [`conversion_html`] shows a conversion: both layouts side by side, the destination also
//! coloured by how each element moves (stays, renamed register, across lanes, across warps,
//! across CTAs), and the plan of [`layout_core::convert::summarize`] with every shared-memory
//! instruction's wavefronts per phase.
//!
//! The page's data is the layouts' bases and, per element, the first holder in hardware order;
//! the script computes everything else, so a 128x128 view stays well under a megabyte.
//! Scripts (and tests) can hover a cell by opening the page as `view.html#cell=<svg id>,<row>,<col>`.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::print::{hw_picture, picture_in, walk, Kind, Picture, Smem};
use crate::svg::{draw_svg, ColourBy, Scheme};
use layout_core::convert::{PlanKind, PlanSummary, SideAccess};
use layout_core::{LinearLayout, Result};

const SCRIPT: &str = include_str!("html.js");
const STYLE: &str = "body{margin:0;font-family:monospace;font-size:12px}\
#main{display:flex;align-items:flex-start;height:100vh}\
#views{display:flex;align-items:flex-start;flex:1 1 auto;overflow:auto;max-height:100vh}\
#side{padding:8px;width:460px;flex:none;overflow:auto;max-height:100vh;box-sizing:border-box}#side pre{white-space:pre-wrap}#info{background:#f4f4f4;padding:6px;min-height:5em}\
.hidden{display:none}.hl{fill:#000;fill-opacity:0.35;pointer-events:none}\
li.basis{cursor:default}li.basis:hover{background:#ffe9a8}button{margin:0 4px 6px 0}\
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:1px 5px;text-align:right}";
/// Cells a view draws at most.
const MAX_CELLS: u64 = 1 << 16;

/// An HTML page of one layout (`element_bits` for banks and byte addresses).
///
/// ```
/// use layout_core::parse::{parse_encoding, Aliases};
/// let text = "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]}>";
/// let ll = parse_encoding(text, &Aliases::new()).unwrap().to_linear_layout(&[8, 16]).unwrap();
/// let page = layout_view::html::print_html(&ll, 16, "blocked").unwrap();
/// assert!(page.contains("<svg") && page.contains("id=\"hardware\""));
/// ```
pub fn print_html(ll: &LinearLayout, element_bits: u32, title: &str) -> Result<String> {
    print_html_in(ll, element_bits, title, &Smem::DEFAULT)
}

/// [`print_html`] with shared memory as `smem` says: the tensor view shows padded offsets, and
/// banks are counted and coloured modulo its banks.
pub fn print_html_in(
    ll: &LinearLayout,
    element_bits: u32,
    title: &str,
    smem: &Smem,
) -> Result<String> {
    let p = picture_in(ll, element_bits, MAX_CELLS, smem)?;
    let hw = hw_picture(ll, element_bits, smem)?;
    let by = ColourBy::default_for(ll);
    let views = format!(
        "<div class=\"view\">{}</div><div class=\"view hidden\">{}</div>",
        draw_svg(&p, &[Scheme::of(by, &p)], "tensor"),
        draw_svg(&hw, &[Scheme::of(by, &hw)], "hardware")
    );
    let data = format!(
        "{{\"layouts\":{{\"A\":{}}},\"views\":{{\"tensor\":[\"A\",\"tensor\"],\"hardware\":[\"A\",\"hw\"]}}}}",
        layout_json(ll, &p, element_bits, smem.padding)
    );
    let side = format!(
        "<div><button data-toggle=\"tensor hardware\">tensor view / hardware view</button></div>\
         <pre id=\"info\">hover a cell</pre><h3>bases</h3>{}",
        bases_list(ll, "A")
    );
    Ok(page(title, &views, &side, &data))
}

/// An HTML page of the conversion `src => dst` (solved for one tensor) that `plan` summarises.
pub fn conversion_html(
    src: &LinearLayout,
    dst: &LinearLayout,
    plan: &PlanSummary,
    title: &str,
) -> Result<String> {
    let bits = plan.bits;
    let smem = Smem {
        banks: plan.banks,
        padding: &[],
    };
    let (pa, pb) = (
        picture_in(src, bits, MAX_CELLS, &smem)?,
        picture_in(dst, bits, MAX_CELLS, &smem)?,
    );
    let sa = Scheme::of(ColourBy::default_for(src), &pa);
    let mut sb = alloc::vec![Scheme::of(ColourBy::default_for(dst), &pb)];
    let mut toggles = String::new();
    if plan.kind == PlanKind::Conversion {
        sb.push(move_scheme(src, dst, &pb));
        toggles.push_str(
            "<button data-scheme=\"dst\">destination: by thread / by how elements move</button>",
        );
    }
    let views = format!(
        "<div class=\"view\"><h3>source</h3>{}</div><div class=\"view\"><h3>destination</h3>{}</div>",
        draw_svg(&pa, &[sa], "src"),
        draw_svg(&pb, &sb, "dst")
    );
    let data = format!(
        "{{\"layouts\":{{\"A\":{},\"B\":{}}},\"views\":{{\"src\":[\"A\",\"tensor\"],\"dst\":[\"B\",\"tensor\"]}},\"pair\":true}}",
        layout_json(src, &pa, bits, &[]),
        layout_json(dst, &pb, bits, &[])
    );
    let side = format!(
        "<div>{}</div><pre id=\"info\">hover a cell</pre><h3>plan</h3><pre>{}</pre>{}\
         <h3>source bases</h3>{}<h3>destination bases</h3>{}",
        toggles,
        escape(&plan.text()),
        plan.sides.iter().map(side_table).collect::<String>(),
        bases_list(src, "A"),
        bases_list(dst, "B")
    );
    Ok(page(title, &views, &side, &data))
}

/// The whole page.
fn page(title: &str, views: &str, side: &str, data: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{t}</title><style>{css}</style></head>\n\
         <body><div id=\"main\"><div id=\"views\">{views}</div><div id=\"side\"><h2>{t}</h2>{side}</div></div>\n\
         <script id=\"data\" type=\"application/json\">{data}</script>\n<script>{js}</script>\n</body></html>\n",
        t = escape(title),
        css = STYLE,
        views = views,
        side = side,
        data = data,
        js = SCRIPT
    )
}

/// The layout as the script reads it: what its places are, in-dims in walk order with sizes and
/// bases, out-dims, element size, banks and padding, and per element the first holder's walk
/// index (-1: none) and holder count.
fn layout_json(ll: &LinearLayout, p: &Picture, bits: u32, padding: &[(u32, u32)]) -> String {
    let order = p.kind.walk_order();
    let ins: Vec<String> = order
        .iter()
        .map(|d| {
            let bases = ll.in_dim_bases(d).unwrap_or(&[]);
            format!(
                "[\"{}\",{},{}]",
                d,
                ll.in_dim_size(d).max(1),
                int_lists(bases.iter().map(|b| b.as_slice()))
            )
        })
        .collect();
    let outs: Vec<String> = ll
        .out_dims()
        .iter()
        .map(|(n, s)| format!("[\"{}\",{}]", n, s))
        .collect();
    let sizes: Vec<u64> = order
        .iter()
        .map(|d| ll.in_dim_size(d).max(1) as u64)
        .collect();
    let first: Vec<String> = p
        .cells
        .iter()
        .map(|c| {
            c.as_ref().map_or(String::from("-1"), |c| {
                let mut flat = 0u64;
                for i in (0..sizes.len()).rev() {
                    flat = flat * sizes[i] + c.hw[i];
                }
                flat.to_string()
            })
        })
        .collect();
    let held: Vec<String> = p.held.iter().map(|h| h.to_string()).collect();
    let pads: Vec<String> = padding
        .iter()
        .map(|(i, p)| format!("[{},{}]", i, p))
        .collect();
    format!(
        "{{\"kind\":\"{}\",\"bits\":{},\"banks\":{},\"padding\":[{}],\"ins\":[{}],\"outs\":[{}],\"first\":[{}],\"held\":[{}]}}",
        p.kind.name(),
        bits,
        p.banks,
        pads.join(","),
        ins.join(","),
        outs.join(","),
        first.join(","),
        held.join(",")
    )
}

/// `[[0,1],[1,0]]`.
fn int_lists<'a>(lists: impl Iterator<Item = &'a [i32]>) -> String {
    let v: Vec<String> = lists
        .map(|l| {
            let v: Vec<String> = l.iter().map(|x| x.to_string()).collect();
            format!("[{}]", v.join(","))
        })
        .collect();
    format!("[{}]", v.join(","))
}

/// The bases, one list item each; hovering one highlights what it moves.
fn bases_list(ll: &LinearLayout, key: &str) -> String {
    let mut out = String::from("<ul>");
    for (dim, bases) in ll.bases() {
        for (bit, b) in bases.iter().enumerate() {
            let v: Vec<String> = b.iter().map(|x| x.to_string()).collect();
            let note = if b.iter().all(|&x| x == 0) {
                " (copies: no element moves)"
            } else {
                ""
            };
            out.push_str(&format!(
                "<li class=\"basis\" data-layout=\"{}\" data-dim=\"{}\" data-bit=\"{}\">{} bit {} (= {}) &#8594; ({}){}</li>",
                key,
                dim,
                bit,
                dim,
                bit,
                1u64 << bit,
                v.join(", "),
                note
            ));
        }
    }
    out.push_str("</ul>");
    out
}

/// A shared side's instructions: wavefronts per phase and the banks touched.
fn side_table(s: &SideAccess) -> String {
    let mut out = format!(
        "<h4>{} x {} per thread ({} elements each)</h4><table><tr><th>instruction</th><th>lanes</th><th>wavefronts</th><th>banks touched</th><th>worst bank: words at bytes</th></tr>",
        s.count(),
        escape(&s.instruction),
        s.access.vec
    );
    for (k, i) in s.conflicts.iter().enumerate() {
        for p in &i.phases {
            out.push_str(&format!(
                "<tr><td>{}</td><td>{}-{}</td><td>{}</td><td>{}</td><td>{}: {:?}</td></tr>",
                k,
                p.lanes.0,
                p.lanes.0 + p.lanes.1 - 1,
                p.wavefronts,
                p.banks.count_ones(),
                p.worst_bank,
                p.worst_words
            ));
        }
    }
    out.push_str("</table>");
    out
}

/// How an element moves from `src` to `dst`, as colour classes.
const MOVES: [&str; 5] = [
    "stays in its register",
    "another register of its thread",
    "across lanes",
    "across warps",
    "across CTAs",
];

/// Well-separated hues for the movement classes.
fn move_hue(k: u32) -> u32 {
    [11, 0, 14, 25, 6][k as usize]
}

/// The destination's cells coloured by movement: for each element, the farthest any of its
/// destination holders is from the nearest source holder.
fn move_scheme(src: &LinearLayout, dst: &LinearLayout, pb: &Picture) -> Scheme {
    let (hs, hd) = (holders(src), holders(dst));
    let per_cell = (0..pb.cells.len())
        .map(|i| {
            let k = hd[i]
                .iter()
                .map(|d| hs[i].iter().map(|s| distance(s, d)).min().unwrap_or(4))
                .max()
                .unwrap_or(0);
            (move_hue(k), 0)
        })
        .collect();
    Scheme {
        what: "how the element moves (the farthest any destination copy comes from)".to_string(),
        by_warp: false,
        names: (0..MOVES.len() as u32)
            .map(|k| (move_hue(k), MOVES[k as usize].to_string()))
            .collect(),
        per_cell,
    }
}

/// 0 same register, 1 same thread, 2 same warp, 3 same CTA, 4 another CTA.
fn distance(a: &[u32; 4], b: &[u32; 4]) -> u32 {
    match (0..4).rev().find(|&i| a[i] != b[i]) {
        None => 0,
        Some(i) => i as u32 + 1,
    }
}

/// Per element (row-major), every (register, lane, warp, block) that holds it.
fn holders(ll: &LinearLayout) -> Vec<Vec<[u32; 4]>> {
    let mut out = alloc::vec![Vec::new(); ll.total_out_dim_size() as usize];
    walk(ll, Kind::Distributed, |v, _, lin| {
        out[lin].push(v.map(|x| x as u32))
    });
    out
}

/// Text as HTML (or XML) character data.
pub fn escape(s: &str) -> String {
    crate::svg::escape(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use layout_core::convert::{summarize, Force, Target};
    use layout_core::parse::{parse_encoding, Aliases};

    fn solve(text: &str, shape: &[i64]) -> LinearLayout {
        let enc = parse_encoding(text, &Aliases::new()).unwrap();
        enc.to_linear_layout(shape).unwrap()
    }

    #[test]
    fn pages_of_128x128_layouts_stay_under_a_megabyte() {
        let mma = solve("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>", &[128, 128]);
        let blocked = solve("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>", &[128, 128]);
        let shared = solve(
            "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
            &[128, 128],
        );
        for ll in [&mma, &shared] {
            let page = print_html(ll, 16, "x").unwrap();
            assert!(page.len() < 1 << 20, "{} bytes", page.len());
        }
        let plan = summarize(&mma, &blocked, 16, Force::Auto, &Target::SM_90).unwrap();
        let page = conversion_html(&mma, &blocked, &plan, "x").unwrap();
        assert!(page.len() < 1 << 20, "{} bytes", page.len());
        // Both layouts' data, the movement colouring and the plan's shared accesses are there.
        assert!(page.contains("\"A\":{") && page.contains("\"B\":{"));
        assert!(page.contains("data-scheme=\"1\"") && page.contains("across lanes"));
        assert!(page.contains("wavefronts"));
    }

    #[test]
    fn movement_classes_follow_the_nearest_source_copy() {
        let a = [1, 2, 0, 0];
        assert_eq!(distance(&a, &a), 0);
        assert_eq!(distance(&a, &[0, 2, 0, 0]), 1);
        assert_eq!(distance(&a, &[1, 3, 0, 0]), 2);
        assert_eq!(distance(&a, &[1, 2, 1, 0]), 3);
        assert_eq!(distance(&a, &[1, 2, 0, 1]), 4);
    }
}
