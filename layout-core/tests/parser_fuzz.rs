//! The parser and every encoding must never panic: random and mutated inputs either parse and
//! convert, or return an error. Mutations start from Triton's own TTGIR text (the fixture);
//! structured inputs put extreme numbers into every key of every encoding.
//!
//! `FUZZ_CASES=1000000 cargo test --release -p layout-core --test parser_fuzz` runs a long
//! campaign; the default is sized for CI.

use layout_core::parse::{parse_aliases, parse_encoding, parse_tensor_type, Aliases};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

const FIXTURE: &str = include_str!("../../fixtures/triton-3.9.0-layouts.jsonl");
const CUTE: &str = include_str!("../../fixtures/cute-layouts.jsonl");

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000)
}

fn texts() -> Vec<(String, String)> {
    FIXTURE
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let a = v["aliases"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap())
                .collect::<Vec<_>>()
                .join("\n");
            (a, v["tensor"].as_str().unwrap().to_string())
        })
        .collect()
}

/// Parse and convert; only a panic is a failure.
fn exercise(aliases: &str, tensor: &str) {
    let al = parse_aliases(aliases).unwrap_or_default();
    if let Ok(ty) = parse_tensor_type(tensor, &al) {
        if let Some(e) = ty.encoding {
            if let Ok(ll) = e.to_linear_layout(&ty.shape) {
                let _ = ll.to_string();
                let _ = ll.pseudoinvert();
                let _ = ll.free_variable_masks();
                if ll.total_out_dim_size() <= 1 << 12 {
                    let _ = layout_view::view::layout_str(&ll, e.is_shared(), false);
                }
            }
        }
    }
    if let Ok(e) = parse_encoding(aliases, &Aliases::new()) {
        let _ = e.to_linear_layout(&[64, 64]);
    }
}

#[derive(Debug, Clone)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, String),
    Replace(usize, String),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let token = prop_oneof![
        Just("[".to_string()),
        Just("]".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just("<".to_string()),
        Just(">".to_string()),
        Just(",".to_string()),
        Just("=".to_string()),
        Just("#".to_string()),
        Just("x".to_string()),
        Just(":+".to_string()),
        Just("-1".to_string()),
        Just("0".to_string()),
        Just("3".to_string()),
        Just("1073741824".to_string()),
        Just("4294967295".to_string()),
        Just("99999999999999999999".to_string()),
        Just("#ttg.slice<{dim = 0, parent = #blocked}>".to_string()),
        Just("true".to_string()),
        Just("é".to_string()),
        Just("(".to_string()),
        Just(")".to_string()),
        Just(":".to_string()),
        Just("_".to_string()),
        Just(" o ".to_string()),
        Just("Sw<3,4,3> o smem_ptr[16b](unset) o ".to_string()),
        Just("tv(".to_string()),
        Just("\n".to_string()),
    ];
    prop_oneof![
        (any::<usize>(), 1usize..8).prop_map(|(a, b)| Edit::Delete(a, b)),
        (any::<usize>(), token.clone()).prop_map(|(a, t)| Edit::Insert(a, t)),
        (any::<usize>(), token).prop_map(|(a, t)| Edit::Replace(a, t)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply_edit(s: &str, e: &Edit) -> String {
    let chars: Vec<char> = s.chars().collect();
    let at = |p: usize| {
        if chars.is_empty() {
            0
        } else {
            p % (chars.len() + 1)
        }
    };
    let mut c = chars.clone();
    match e {
        Edit::Delete(p, n) => {
            let p = at(*p).min(c.len());
            let end = (p + n).min(c.len());
            c.drain(p..end);
        }
        Edit::Insert(p, t) => {
            let p = at(*p);
            c.splice(p..p, t.chars());
        }
        Edit::Replace(p, t) => {
            let p = at(*p).min(c.len().saturating_sub(1));
            if !c.is_empty() {
                c.splice(p..p + 1, t.chars());
            }
        }
        Edit::Truncate(p) => c.truncate(at(*p)),
    }
    c.into_iter().collect()
}

#[test]
fn mutated_triton_text_never_panics() {
    let texts = texts();
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(
            &(
                0..texts.len(),
                prop::collection::vec(edit(), 1..4),
                any::<bool>(),
            ),
            |(i, edits, which)| {
                let (mut a, mut t) = texts[i].clone();
                for e in &edits {
                    if which {
                        a = apply_edit(&a, e);
                    } else {
                        t = apply_edit(&t, e);
                    }
                }
                exercise(&a, &t);
                Ok(())
            },
        )
        .unwrap();
}

fn num() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (0u32..=4).prop_map(|e| (1u64 << e).to_string()),
        1 => Just("0".to_string()),
        1 => Just("3".to_string()),
        1 => prop::sample::select(vec!["64", "256", "1024", "65536", "1073741824", "2147483648", "4294967295", "4294967296"]).prop_map(String::from),
    ]
}

fn list(n: std::ops::Range<usize>) -> impl Strategy<Value = String> {
    prop::collection::vec(num(), n).prop_map(|v| format!("[{}]", v.join(", ")))
}

fn bases() -> impl Strategy<Value = String> {
    prop::collection::vec(list(1..4), 0..4).prop_map(|v| format!("[{}]", v.join(", ")))
}

fn encoding_text() -> impl Strategy<Value = String> {
    prop_oneof![
        (list(1..4), list(1..4), list(1..4), list(1..4), bases()).prop_map(|(a, b, c, d, e)| format!(
            "#ttg.blocked<{{sizePerThread = {a}, threadsPerWarp = {b}, warpsPerCTA = {c}, order = {d}, CGALayout = {e}}}>"
        )),
        (num(), list(1..4), list(1..4), bases()).prop_map(|(v, w, i, c)| format!(
            "#ttg.nvidia_mma<{{versionMajor = {v}, versionMinor = 0, warpsPerCTA = {w}, CGALayout = {c}, instrShape = {i}}}>"
        )),
        (num(), list(1..4), list(1..4), any::<bool>(), list(1..4), num()).prop_map(|(v, w, i, t, tp, e)| format!(
            "#ttg.amd_mfma<{{version = {v}, warpsPerCTA = {w}, instrShape = {i}, isTransposed = {t}, tilesPerWarp = {tp}, elementBitWidth = {e}}}>"
        )),
        (num(), any::<bool>(), bases(), bases(), list(1..4)).prop_map(|(v, t, r, w, i)| format!(
            "#ttg.amd_wmma<{{version = {v}, isTranspose = {t}, ctaLayout = {{register = {r}, warp = {w}}}, instrShape = {i}}}>"
        )),
        (num(), num(), num(), list(1..4), bases()).prop_map(|(v, p, m, o, c)| format!(
            "#ttg.swizzled_shared<{{vec = {v}, perPhase = {p}, maxPhase = {m}, order = {o}, CGALayout = {c}}}>"
        )),
        (num(), num(), num(), list(1..4)).prop_map(|(v, p, m, o)| format!(
            "#ttg.amd_rotating_shared<{{vec = {v}, perPhase = {p}, maxPhase = {m}, order = {o}}}>"
        )),
        (num(), any::<bool>(), num(), any::<bool>(), num()).prop_map(|(s, t, e, f, r)| format!(
            "#ttg.nvmma_shared<{{swizzlingByteWidth = {s}, transposed = {t}, elementBitWidth = {e}, fp4Padded = {f}, rank = {r}}}>"
        )),
        (bases(), bases(), bases(), bases()).prop_map(|(r, l, w, b)| format!("#ttg.linear<{{register = {r}, lane = {l}, warp = {w}, block = {b}}}>")),
        (num(), num(), bases()).prop_map(|(i, p, o)| format!("#ttg.padded_shared<[{i}:+{p}] {{offset = {o}, block = []}}>")),
        (num(), num(), list(1..4), list(1..4)).prop_map(|(i, p, o, s)| format!("#ttg.padded_shared<[{i}:+{p}] {{order = {o}, shape = {s}}}>")),
        (bases(), num()).prop_map(|(o, a)| format!("#ttg.shared_linear<{{offset = {o}}}, alignment = {a}>")),
    ]
}

fn wrap() -> impl Strategy<Value = String> {
    (encoding_text(), num(), num(), 0u8..4).prop_map(|(e, d, k, w)| match w {
        0 => format!("#ttg.slice<{{dim = {d}, parent = {e}}}>"),
        1 => format!(
            "#ttg.dot_op<{{opIdx = {}, parent = {e}, kWidth = {k}}}>",
            d.len() % 2
        ),
        _ => e,
    })
}

#[test]
fn extreme_parameters_never_panic() {
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(
            &(wrap(), prop::collection::vec(num(), 1..4)),
            |(enc, shape)| {
                let tensor = format!("tensor<{}xf16, {}>", shape.join("x"), enc);
                exercise("", &tensor);
                Ok(())
            },
        )
        .unwrap();
}

/// CuTe's text, pycute's and CuTe's printed forms, mutated: read and solved over a few shapes
/// (its own, and tiles for thread-value layouts); only a panic is a failure.
#[test]
fn mutated_cute_text_never_panics() {
    let texts: Vec<String> = CUTE
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["text"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(
            &(0..texts.len(), prop::collection::vec(edit(), 1..4)),
            |(i, edits)| {
                let mut t = texts[i].clone();
                for e in &edits {
                    t = apply_edit(&t, e);
                }
                exercise_cute(&t);
                Ok(())
            },
        )
        .unwrap();
}

fn exercise_cute(t: &str) {
    if let Ok(c) = layout_core::cute::parse_cute(t) {
        let own = c.shape_sizes().unwrap_or_default();
        for shape in [
            own,
            vec![64, 64],
            vec![32, 4],
            vec![3, 8],
            vec![],
            vec![1 << 30, 4],
        ] {
            if let Ok(ll) = c.to_linear_layout(&shape, 32) {
                let _ = layout_core::cute::to_cute(&ll, Some(16));
            }
        }
    }
}

/// Extreme sizes, strides and swizzles in CuTe's notation.
#[test]
fn extreme_cute_numbers_never_panic() {
    let big = || {
        prop_oneof![
            3 => num(),
            1 => prop::sample::select(vec!["-1", "1099511627776", "9223372036854775807", "99999999999999999999", "_64", "__8"]).prop_map(String::from),
        ]
    };
    let tuple = prop::collection::vec(big(), 1..5).prop_map(|v| format!("({})", v.join(",")));
    let text = (tuple.clone(), tuple, big(), big(), big(), 0..3u8).prop_map(
        |(sh, st, b, m, s, k)| match k {
            0 => format!("{}:{}", sh, st),
            1 => format!("Sw<{},{},{}> o _0 o {}:{}", b, m, s, sh, st),
            _ => format!("tv(({},{}):({},{}))", sh, sh, st, st),
        },
    );
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&text, |t| {
            exercise_cute(&t);
            Ok(())
        })
        .unwrap();
}
