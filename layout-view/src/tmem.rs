//! Text views of Blackwell tensor-memory layouts (in-dims `row, col, block`), in the manner of
//! Triton's `triton-tensor-layout`: the tensor view puts each element's tensor-memory place
//! (`R<row>:C<col>`, `B<cta>:` first over several CTAs) where the element sits; the hardware view
//! lists each row's columns as tensor coordinates, grouped by the warp (modulo 4) that alone may
//! reach those 32 rows with `tcgen05.ld`/`st`.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use layout_core::{LinearLayout, Result};

/// Elements printed at most.
const MAX_ELEMENTS: u64 = 1 << 20;

/// Every place of the layout in order (column fastest, then row, then CTA): its in-dim values and
/// the coordinates it holds.
fn places(ll: &LinearLayout) -> Result<Vec<([u32; 3], Vec<u32>)>> {
    if ll.total_in_dim_size() > MAX_ELEMENTS || ll.total_out_dim_size() > MAX_ELEMENTS {
        crate::bail!(
            "the layout has {} elements, too many to print",
            ll.total_out_dim_size()
        );
    }
    let dims = ["row", "col", "block"];
    if let Some(d) = ll.in_dim_names().find(|d| !dims.contains(d)) {
        crate::bail!("in-dim '{}' is not tensor memory's (row, col, block)", d);
    }
    let size = |d: &str| ll.in_dim_size(d).max(1) as u32;
    let mut out = Vec::new();
    for b in 0..size("block") {
        for r in 0..size("row") {
            for c in 0..size("col") {
                let mut ins = alloc::vec![0u32; ll.num_in_dims()];
                for (d, v) in dims.iter().zip([r, c, b]) {
                    if let Some(p) = ll.in_dim_index(d) {
                        ins[p] = v;
                    }
                }
                out.push(([r, c, b], ll.apply_flat(&ins)));
            }
        }
    }
    Ok(out)
}

/// The tensor view (each element's `R<row>:C<col>`, `|` between copies, `-` where none) or, with
/// `hw_view`, the rows of tensor memory.
pub fn tmem_layout_str(ll: &LinearLayout, hw_view: bool) -> Result<String> {
    let places = places(ll)?;
    if hw_view {
        return Ok(hardware(ll, &places));
    }
    let shape: Vec<u32> = ll.out_dims().iter().map(|d| d.1 as u32).collect();
    let total: u32 = shape.iter().product();
    let several = ll.in_dim_size("block") > 1;
    let mut cells = alloc::vec![String::new(); total as usize];
    for ([r, c, b], out) in &places {
        let lin = out.iter().zip(&shape).fold(0u32, |a, (&o, &s)| a * s + o) as usize;
        if !cells[lin].is_empty() {
            cells[lin].push('|');
        }
        if several {
            cells[lin].push_str(&format!("B{}:", b));
        }
        cells[lin].push_str(&format!("R{}:C{}", r, c));
    }
    let width = cells.iter().map(|c| c.len()).max().unwrap_or(1).max(1);
    let cols = *shape.last().unwrap_or(&1) as usize;
    let mut text = String::new();
    for (i, row) in cells.chunks(cols.max(1)).enumerate() {
        let items: Vec<String> = row
            .iter()
            .map(|c| format!("{:>w$}", if c.is_empty() { "-" } else { c }, w = width))
            .collect();
        text.push_str(&format!(
            "{}[{}]\n",
            if i == 0 { "[" } else { " " },
            items.join(", ")
        ));
    }
    text.pop();
    text.push_str("]\n");
    Ok(text)
}

/// One line per tensor-memory row: its columns' coordinates, under a heading per 32 rows.
fn hardware(ll: &LinearLayout, places: &[([u32; 3], Vec<u32>)]) -> String {
    let cols = ll.in_dim_size("col").max(1) as usize;
    let mut text = String::new();
    for row in places.chunks(cols) {
        let [r, _, b] = row[0].0;
        if r % 32 == 0 {
            let cta = if ll.in_dim_size("block") > 1 {
                format!("CTA {}, ", b)
            } else {
                String::new()
            };
            text.push_str(&format!(
                "{}rows {}-{} (warps {} mod 4):\n",
                cta,
                r,
                r + 31,
                r / 32
            ));
        }
        let coords: Vec<String> = row
            .iter()
            .map(|(_, out)| {
                let c: Vec<String> = out.iter().map(|v| v.to_string()).collect();
                format!("({})", c.join(","))
            })
            .collect();
        text.push_str(&format!("R{}: {}\n", r, coords.join(", ")));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use layout_core::parse::{parse_encoding, Aliases};

    #[test]
    fn a_128_row_accumulator_is_drawn_row_by_row() {
        let enc = parse_encoding(
            "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>",
            &Aliases::new(),
        )
        .unwrap();
        let ll = enc.to_linear_layout(&[128, 8]).unwrap();
        let t = tmem_layout_str(&ll, false).unwrap();
        assert!(t.starts_with("[[  R0:C0,   R0:C1,"), "{}", t);
        assert!(t.contains("R127:C7]]"), "{}", t);
        let hw = tmem_layout_str(&ll, true).unwrap();
        assert!(
            hw.contains("rows 32-63 (warps 1 mod 4):\nR32: (32,0), (32,1),"),
            "{}",
            hw
        );
    }
}
