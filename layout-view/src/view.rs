//! Text views of a layout, exactly as Triton's `getLayoutStr` prints them (the output of
//! `triton-tensor-layout`): the tensor view (who owns each element) and the hardware view (what
//! each register of each lane holds).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use layout_core::{LinearLayout, Result};

fn digits(v: i64) -> i64 {
    v.to_string().len() as i64
}

/// Spaces so that `value` is as wide as `max` (none if it is wider).
fn pad(value: i64, max: i64) -> String {
    " ".repeat((digits(max) - digits(value)).max(0) as usize)
}

fn padded(value: i64, max: i64) -> String {
    let mut s = pad(value, max);
    s.push_str(&value.to_string());
    s
}

fn delinearize(mut idx: i64, shape: &[i64]) -> Vec<i64> {
    let mut r = alloc::vec![0; shape.len()];
    for i in (0..shape.len()).rev() {
        r[i] = idx % shape[i];
        idx /= shape[i];
    }
    r
}

/// Too many elements to print is an error, not an endless stream.
const MAX_ELEMENTS: u64 = 1 << 22;

fn nested(shape: &[i64], cells: &[String], sep: &str) -> String {
    let rank = shape.len();
    let total: i64 = shape.iter().product();
    let mut out = String::new();
    let mut new_line = true;
    for i in 0..total {
        let idx = delinearize(i, shape);
        let mut open = 0;
        for j in (0..rank).rev() {
            if idx[j] % shape[j] != 0 {
                break;
            }
            out.push('[');
            open += 1;
        }
        if new_line {
            out.push_str(&" ".repeat(rank - open));
            new_line = false;
        }
        out.push_str(&cells[i as usize]);
        let next = delinearize(i + 1, shape);
        for j in (0..rank).rev() {
            if next[j] % shape[j] != 0 {
                break;
            }
            out.push(']');
        }
        if next[rank - 1] % shape[rank - 1] == 0 {
            out.push('\n');
            new_line = true;
        } else {
            out.push_str(sep);
        }
    }
    out
}

fn check_printable(ll: &LinearLayout) -> Result<()> {
    if ll.total_out_dim_size() > MAX_ELEMENTS || ll.total_in_dim_size() > MAX_ELEMENTS {
        crate::bail!(
            "the layout has {} elements, too many to print",
            ll.total_out_dim_size()
        );
    }
    if ll.num_out_dims() == 0 {
        crate::bail!("a rank-0 layout has nothing to print");
    }
    Ok(())
}

/// `getDistributedLayoutStr`: in-dims `register, lane, warp, block`.
pub fn distributed_layout_str(ll: &LinearLayout, hw_view: bool) -> Result<String> {
    check_printable(ll)?;
    let shape: Vec<i64> = ll.out_dims().iter().map(|(_, s)| *s as i64).collect();
    let n_lane = ll.in_dim_size("lane") as i64;
    let n_warp = ll.in_dim_size("warp") as i64;
    let n_block = ll.in_dim_size("block") as i64;
    let n_reg = ll.in_dim_size("register") as i64;
    let pos: Vec<usize> = ["register", "lane", "warp", "block"]
        .iter()
        .map(|d| ll.in_dim_index(d).unwrap_or(usize::MAX))
        .collect();
    let total: i64 = shape.iter().product();
    let mut elems = alloc::vec![String::new(); total as usize];
    let mut threads: Vec<String> = Vec::new();
    for b in 0..n_block {
        for w in 0..n_warp {
            for t in 0..n_lane {
                for r in 0..n_reg {
                    let mut ins = alloc::vec![0u32; ll.num_in_dims()];
                    for (v, &p) in [r, t, w, b].iter().zip(&pos) {
                        if p != usize::MAX {
                            ins[p] = *v as u32;
                        }
                    }
                    let out = ll.apply_flat(&ins);
                    let mut lin = 0i64;
                    let mut stride = 1i64;
                    for i in (0..out.len()).rev() {
                        lin += out[i] as i64 * stride;
                        stride *= shape[i];
                    }
                    let tid = t + w * n_lane;
                    let v = &mut elems[lin as usize];
                    if !v.is_empty() {
                        v.push('|');
                    }
                    let padding = (digits(n_block) - digits(b))
                        + (digits(n_warp * n_lane) - digits(tid))
                        + (digits(n_reg) - digits(r));
                    v.push_str(&" ".repeat(padding.max(0) as usize));
                    if n_block > 1 {
                        v.push_str(&alloc::format!("B{}:", b));
                    }
                    v.push_str(&alloc::format!("T{}:{}", tid, r));
                    let coords: Vec<String> = out
                        .iter()
                        .zip(&shape)
                        .map(|(&o, &s)| padded(o as i64, s))
                        .collect();
                    threads.push(alloc::format!("({})", coords.join(",")));
                }
            }
        }
    }
    if !hw_view {
        return Ok(nested(&shape, &elems, ", "));
    }
    let mut out = String::new();
    for b in 0..n_block {
        if n_block > 1 {
            out.push_str(&alloc::format!("Block{}:\n", b));
        }
        for w in 0..n_warp {
            out.push_str(&alloc::format!("Warp{}:\n", w));
            for r in 0..n_reg {
                for t in 0..n_lane {
                    let i = b * n_warp * n_lane * n_reg + w * n_lane * n_reg + t * n_reg + r;
                    out.push_str(&threads[i as usize]);
                    if t < n_lane - 1 {
                        out.push_str(", ");
                    }
                }
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// `getSharedLayoutStr`: in-dims `offset, block` (and a partitioned layout's `partition`, each
/// partition's buffer after the previous one's). The tensor view lists, in memory order, the
/// element each offset holds (as Triton does).
pub fn shared_layout_str(ll: &LinearLayout, hw_view: bool) -> Result<String> {
    check_printable(ll)?;
    let shape: Vec<i64> = ll.out_dims().iter().map(|(_, s)| *s as i64).collect();
    let total: i64 = shape.iter().product();
    let n_block = ll.in_dim_size("block") as i64;
    let n_part = ll.in_dim_size("partition").max(1) as i64;
    let block_size = total / n_block / n_part;
    let pos = ["offset", "partition", "block"].map(|d| ll.in_dim_index(d));
    let mut elems = alloc::vec![String::new(); total as usize];
    let mut offs: Vec<String> = Vec::new();
    // Memory order: each block's partitions, each partition's offsets.
    let places = (0..n_block)
        .flat_map(|b| (0..n_part).flat_map(move |q| (0..block_size).map(move |o| (b, q, o))));
    for (idx, (b, q, o)) in places.enumerate() {
        let mut ins = alloc::vec![0u32; ll.num_in_dims()];
        for (p, v) in pos.iter().zip([o, q, b]) {
            if let Some(p) = p {
                ins[*p] = v as u32;
            }
        }
        let out = ll.apply_flat(&ins);
        let cs: Vec<String> = out
            .iter()
            .zip(&shape)
            .map(|(&v, &s)| padded(v as i64, s))
            .collect();
        if idx < elems.len() {
            let v = &mut elems[idx];
            if !v.is_empty() {
                v.push('|');
            }
            v.push_str(&alloc::format!("({})", cs.join(":")));
        }
        offs.push(alloc::format!("({})", cs.join(",")));
    }
    if !hw_view {
        return Ok(nested(&shape, &elems, ","));
    }
    let mut out = String::new();
    let mut i = 0;
    for b in 0..n_block {
        out.push_str(&alloc::format!("Block: {}:\n", b));
        for q in 0..n_part {
            if n_part > 1 {
                out.push_str(&alloc::format!("Partition: {}:\n", q));
            }
            for o in 0..block_size {
                out.push_str(&alloc::format!("Offset: {} -> {}\n", o, offs[i]));
                i += 1;
            }
        }
    }
    Ok(out)
}

/// The view Triton's `getLayoutStr` prints for this layout.
pub fn layout_str(ll: &LinearLayout, shared: bool, hw_view: bool) -> Result<String> {
    if shared {
        shared_layout_str(ll, hw_view)
    } else {
        distributed_layout_str(ll, hw_view)
    }
}
