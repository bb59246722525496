//! The gallery: SVG pictures and interactive HTML pages of the layouts the seed documents use as
//! examples (a blocked layout, an mma accumulator, its dot operand, a swizzled and an nvmma shared
//! layout) and of a conversion (the mma accumulator to the blocked layout, with its plan).
//!
//! Run: `cargo run --example gallery` (writes `target/gallery/`; open `index.html`).

use std::error::Error;
use std::path::PathBuf;

use linear_layouts::convert::{summarize, Force, Target};
use linear_layouts::html::{conversion_html, print_html};
use linear_layouts::parse::{parse_encoding, Aliases};
use linear_layouts::svg::{print_svg, ColourBy};
use linear_layouts::LinearLayout;

/// Name, Triton's attribute text, tensor shape, element bits.
const LAYOUTS: [(&str, &str, [i64; 2], u32); 5] = [
    ("blocked", "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>", [32, 32], 16),
    ("mma", "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>", [32, 32], 16),
    ("dot_op", "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>", [32, 16], 16),
    ("swizzled_shared", "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>", [16, 64], 16),
    ("nvmma_shared", "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>", [8, 64], 16),
];

fn solve(text: &str, shape: &[i64]) -> Result<LinearLayout, Box<dyn Error>> {
    Ok(parse_encoding(text, &Aliases::new())?.to_linear_layout(shape)?)
}

fn main() -> Result<(), Box<dyn Error>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/gallery");
    std::fs::create_dir_all(&dir)?;
    let mut links = String::new();
    for (name, text, shape, bits) in LAYOUTS {
        let ll = solve(text, &shape)?;
        std::fs::write(
            dir.join(format!("{name}.svg")),
            print_svg(&ll, bits, ColourBy::default_for(&ll))?,
        )?;
        std::fs::write(
            dir.join(format!("{name}.html")),
            print_html(&ll, bits, text)?,
        )?;
        links.push_str(&format!(
            "<li><a href=\"{name}.html\">{name}</a> (<a href=\"{name}.svg\">svg</a>): <code>{}</code> for {:?}</li>\n",
            text.replace('<', "&lt;").replace('>', "&gt;"),
            shape
        ));
    }
    // The conversion: the mma accumulator into the blocked layout, as convert! plans it.
    let (mma, blocked) = (
        solve(LAYOUTS[1].1, &[32, 32])?,
        solve(LAYOUTS[0].1, &[32, 32])?,
    );
    let plan = summarize(&mma, &blocked, 16, Force::Auto, &Target::SM_90)?;
    std::fs::write(
        dir.join("conversion.html"),
        conversion_html(&mma, &blocked, &plan, "mma => blocked")?,
    )?;
    links.push_str("<li><a href=\"conversion.html\">mma => blocked</a>: both layouts, how each element moves, the plan</li>\n");
    std::fs::write(
        dir.join("index.html"),
        format!("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>linear-layouts gallery</title></head><body style=\"font-family:monospace\"><h2>linear-layouts gallery</h2><ul>\n{links}</ul></body></html>\n"),
    )?;
    println!("wrote {} (open index.html)", dir.display());
    Ok(())
}
