//! CuTe interop against CuTe's own layout algebra: fixtures/cute-layouts.jsonl (made by
//! scripts/cute_layouts.py with pycute) holds random power-of-two layouts in pycute's printed
//! text, shared ones with and without a swizzle and thread-value ones, with CuTe's mapping at
//! sample points. Each is read, checked point by point, printed back in CuTe's notation and read
//! again; the ones CuTe maps non-linearly, and thread-value ones that miss elements of their
//! tile, must be refused. Every Triton fixture layout that has a
//! CuTe form round-trips through it too.

use layout_core::cute::{parse_cute, to_cute, Kind};
use layout_core::parse::{parse_aliases, parse_tensor_type};
use layout_core::LinearLayout;
use serde_json::Value;

const CUTE: &str = include_str!("../../fixtures/cute-layouts.jsonl");
const TRITON: &str = include_str!("../../fixtures/triton-3.9.0-layouts.jsonl");

/// The coordinates of a colexicographic index (dim0 in the low bits).
fn unravel(mut i: u64, sizes: &[i64]) -> Vec<u32> {
    sizes
        .iter()
        .map(|&d| {
            let c = i & (d as u64 - 1);
            i >>= d.trailing_zeros();
            c as u32
        })
        .collect()
}

/// Where CuTe's point `(index, value)` lands in our layout, and where CuTe says it should.
fn point(ll: &LinearLayout, kind: Kind, sizes: &[i64], i: u64, v: u64) -> (Vec<u32>, Vec<u32>) {
    match kind {
        Kind::Shared => (ll.apply_flat(&[v as u32, 0]), unravel(i, sizes)),
        Kind::ThreadValue => {
            let lanes = ll.in_dim_size_log2("lane");
            let threads = lanes + ll.in_dim_size_log2("warp");
            let (t, r) = (i & ((1 << threads) - 1), i >> threads);
            let ins = [
                r as u32,
                (t & ((1 << lanes) - 1)) as u32,
                (t >> lanes) as u32,
                0,
            ];
            (ll.apply_flat(&ins), unravel(v, sizes))
        }
    }
}

fn check_case(case: &Value) -> Result<bool, String> {
    let text = case["text"].as_str().unwrap();
    let c = parse_cute(text).map_err(|e| format!("parse: {}", e))?;
    let sizes: Vec<i64> = match c.kind {
        Kind::Shared => c.shape_sizes().map_err(|e| e.to_string())?,
        Kind::ThreadValue => case["tile"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect(),
    };
    let ll = c.to_linear_layout(&sizes, 32);
    if !case["linear"].as_bool().unwrap() {
        return match ll {
            Err(e) if e.to_string().contains("not linear over GF(2)") => Ok(false),
            Err(e) => Err(format!("refused, but not as non-linear: {}", e)),
            Ok(_) => Err("CuTe's map is not linear, but it was accepted".into()),
        };
    }
    if case["covers"] == false {
        return match ll {
            Err(e) if e.to_string().contains("elements") => Ok(false),
            Err(e) => Err(format!("refused, but not as partial: {}", e)),
            Ok(_) => Err("the layout misses elements of its tile, but it was accepted".into()),
        };
    }
    let ll = ll.map_err(|e| e.to_string())?;
    for p in case["points"].as_array().unwrap() {
        let (i, v) = (p[0].as_u64().unwrap(), p[1].as_u64().unwrap());
        let (got, want) = point(&ll, c.kind, &sizes, i, v);
        if got != want {
            return Err(format!(
                "index {} -> {}: ours {:?}, CuTe {:?}",
                i, v, got, want
            ));
        }
    }
    // In element offsets, and in CuTe's byte addresses of 16-bit elements.
    for bits in [None, Some(16)] {
        let printed = to_cute(&ll, bits).map_err(|e| format!("no CuTe form: {}", e))?;
        let back = parse_cute(&printed)
            .and_then(|p| p.to_linear_layout(&sizes, 32))
            .map_err(|e| format!("printed {} does not read back: {}", printed, e))?;
        if back != ll {
            return Err(format!("printed {} reads back as another layout", printed));
        }
    }
    Ok(true)
}

#[test]
fn cute_layouts_match_pycute_and_round_trip() {
    let (mut linear, mut swizzled, mut tv, mut refused) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for (n, line) in CUTE.lines().enumerate() {
        let case: Value = serde_json::from_str(line).unwrap();
        match check_case(&case) {
            Ok(true) => {
                linear += 1;
                swizzled += case["text"].as_str().unwrap().starts_with("SW_") as usize;
                tv += (case["kind"] == "tv") as usize;
            }
            Ok(false) => refused += 1,
            Err(e) => failures.push(format!("case {} {}: {}", n, case["text"], e)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        linear >= 500 && swizzled >= 50 && tv >= 150 && refused >= 20,
        "{} linear ({} swizzled, {} thread-value), {} refused",
        linear,
        swizzled,
        tv,
        refused
    );
}

#[test]
fn triton_layouts_with_a_cute_form_round_trip() {
    let mut printed = std::collections::BTreeMap::<String, usize>::new();
    for line in TRITON.lines() {
        let case: Value = serde_json::from_str(line).unwrap();
        let aliases: Vec<&str> = case["aliases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let aliases = parse_aliases(&aliases.join("\n")).unwrap();
        let ty = parse_tensor_type(case["tensor"].as_str().unwrap(), &aliases).unwrap();
        let Ok(ll) = ty.encoding.unwrap().to_linear_layout(&ty.shape) else {
            continue;
        };
        let Ok(text) = to_cute(&ll, None) else {
            continue;
        };
        let c = parse_cute(&text).unwrap_or_else(|e| panic!("{}: {}", text, e));
        let sizes: Vec<i64> = ll.out_dims().iter().map(|d| d.1 as i64).collect();
        let lanes = 1u32 << ll.in_dim_size_log2("lane");
        let back = c
            .to_linear_layout(&sizes, lanes.max(1))
            .unwrap_or_else(|e| panic!("{}: {}", text, e));
        assert_eq!(back, ll, "{} for {}", text, case["tensor"]);
        *printed
            .entry(case["encoding"].as_str().unwrap().into())
            .or_default() += 1;
    }
    for enc in ["blocked", "nvmma", "swizzled", "mma"] {
        assert!(
            printed.get(enc).copied().unwrap_or(0) >= 10,
            "{:?}",
            printed
        );
    }
}
