//! A linear layout in CuTe's notation, when one exists: a shared layout as
//! `[Sw<B,M,S> o _0 o ](shape):(stride)` (coordinates -> offset), a distributed one as
//! `tv((thread):(value))` (thread = lanes then warps, value = registers -> colexicographic index).

use alloc::string::String;
use alloc::vec::Vec;

use super::Swizzle;
use crate::LinearLayout;

/// The layout in CuTe's notation, or why it has none. With `element_bits`, a swizzle is written
/// over byte addresses as CuTe prints it (`Sw<3,4,3> o smem_ptr[16b](unset) o ...`); without,
/// over element offsets (`Sw<3,3,3> o _0 o ...`).
pub fn to_cute(ll: &LinearLayout, element_bits: Option<u32>) -> Result<String, String> {
    if ll.in_dim_size("block") > 1 {
        return Err(alloc::format!(
            "the layout spans {} CTAs: CuTe's layouts describe one CTA",
            ll.in_dim_size("block")
        ));
    }
    let sizes: Vec<i64> = ll.out_dims().iter().map(|d| d.1 as i64).collect();
    if let Some(d) = ["partition", "row", "col"]
        .iter()
        .find(|d| ll.has_in_dim(d))
    {
        return Err(alloc::format!("its in-dim '{}' has no CuTe mode: CuTe's layouts map one buffer's offsets or (thread, value)", d));
    }
    if ll.has_in_dim("offset") {
        shared(ll, element_bits)
    } else if ll.has_in_dim("lane") || ll.has_in_dim("register") {
        thread_value(ll, &sizes)
    } else {
        Err(
            "CuTe notation is for shared (offset) and distributed (register, lane, warp) layouts"
                .into(),
        )
    }
}

/// The colexicographic index of a coordinate vector (dim0 in the low bits).
fn ravel(c: &[i32], sizes: &[i64]) -> i64 {
    let mut shift = 0;
    let mut x = 0i64;
    for (&v, &d) in c.iter().zip(sizes) {
        x |= (v as i64) << shift;
        shift += d.trailing_zeros();
    }
    x
}

/// Leaves `(size, stride)` of a run of bit images: consecutive doubling strides merge.
fn leaves(imgs: &[i64]) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = Vec::new();
    let mut prev: Option<i64> = None;
    for &v in imgs {
        match (out.last_mut(), prev) {
            (Some(last), Some(p)) if (p != 0 && v == 2 * p) || (p == 0 && v == 0) => last.0 *= 2,
            _ => out.push((2, v)),
        }
        prev = Some(v);
    }
    out
}

/// `size:stride` for one leaf, `(s, s):(d, d)` for several, `1:0` for none.
fn mode(leaves: &[(i64, i64)]) -> (String, String) {
    match leaves {
        [] => ("1".into(), "0".into()),
        [(s, d)] => (alloc::format!("{}", s), alloc::format!("{}", d)),
        _ => {
            let s: Vec<String> = leaves.iter().map(|l| alloc::format!("{}", l.0)).collect();
            let d: Vec<String> = leaves.iter().map(|l| alloc::format!("{}", l.1)).collect();
            (
                alloc::format!("({})", s.join(",")),
                alloc::format!("({})", d.join(",")),
            )
        }
    }
}

fn join_modes(modes: &[(String, String)]) -> String {
    match modes {
        // One nested mode keeps its own parentheses: `((2,4)):((4,1))` is rank 1.
        [(s, d)] if s.starts_with('(') => return alloc::format!("({}):({})", s, d),
        [(s, d)] => return alloc::format!("{}:{}", s, d),
        _ => {}
    }
    let s: Vec<&str> = modes.iter().map(|m| m.0.as_str()).collect();
    let d: Vec<&str> = modes.iter().map(|m| m.1.as_str()).collect();
    alloc::format!("({}):({})", s.join(","), d.join(","))
}

fn shared(ll: &LinearLayout, element_bits: Option<u32>) -> Result<String, String> {
    let inv = ll
        .invert()
        .map_err(|_| String::from("offsets and elements are not one to one (a shared layout CuTe can write has one offset per element)"))?;
    // Each coordinate bit's offset, dim by dim.
    let per_dim: Vec<Vec<i64>> = inv
        .in_dim_names()
        .filter(|d| *d != "block")
        .map(|d| {
            inv.in_dim_bases(d)
                .unwrap_or(&[])
                .iter()
                .map(|b| b[inv.out_dim_index("offset").unwrap_or(0)] as i64)
                .collect()
        })
        .collect();
    let n = ll.in_dim_size_log2("offset");
    let single = |sw: &Swizzle| {
        per_dim
            .iter()
            .flatten()
            .all(|&o| sw.apply(o as u64).is_power_of_two())
    };
    let plain = Swizzle { b: 0, m: 0, s: 0 };
    let sw = core::iter::once(plain)
        .chain((1..=n).flat_map(|b| (0..n).flat_map(move |m| (b..=n).map(move |s| Swizzle { b, m, s }))))
        .filter(|sw| sw.b == 0 || sw.top_bit() as i32 <= n)
        .find(|sw| single(sw))
        .ok_or_else(|| String::from("its offsets XOR coordinate bits in a way no Swizzle<B, M, S> on top of a (shape):(stride) undoes"))?;
    let modes: Vec<(String, String)> = per_dim
        .iter()
        .map(|m| {
            mode(&leaves(
                &m.iter()
                    .map(|&o| sw.apply(o as u64) as i64)
                    .collect::<Vec<_>>(),
            ))
        })
        .collect();
    let body = join_modes(&modes);
    Ok(match element_bits {
        _ if sw.b == 0 => body,
        Some(bits) if bits >= 8 && bits.is_power_of_two() => {
            let bytes = Swizzle {
                m: sw.m + bits.trailing_zeros() as i32 - 3,
                ..sw
            };
            alloc::format!("{} o smem_ptr[{}b](unset) o {}", bytes, bits, body)
        }
        _ => alloc::format!("{} o _0 o {}", sw, body),
    })
}

fn thread_value(ll: &LinearLayout, sizes: &[i64]) -> Result<String, String> {
    let imgs = |dim: &str| -> Vec<(String, i64)> {
        ll.in_dim_bases(dim)
            .unwrap_or(&[])
            .iter()
            .enumerate()
            .map(|(i, b)| {
                (
                    alloc::format!("{} basis {} {:?}", dim, i, b),
                    ravel(b, sizes),
                )
            })
            .collect()
    };
    let (reg, lane, warp) = (imgs("register"), imgs("lane"), imgs("warp"));
    let all: Vec<&(String, i64)> = reg.iter().chain(&lane).chain(&warp).collect();
    for (i, a) in all.iter().enumerate() {
        if let Some(b) = all[..i].iter().find(|b| b.1 & a.1 != 0) {
            return Err(alloc::format!(
                "{} and {} both move index bit {} of the colexicographic tile: an XOR of coordinates that CuTe's added strides cannot express",
                b.0, a.0, (a.1 & b.1).trailing_zeros()
            ));
        }
    }
    let thread: Vec<i64> = lane.iter().chain(&warp).map(|x| x.1).collect();
    let value: Vec<i64> = reg.iter().map(|x| x.1).collect();
    let body = join_modes(&[mode(&leaves(&thread)), mode(&leaves(&value))]);
    Ok(alloc::format!("tv({})", body))
}
