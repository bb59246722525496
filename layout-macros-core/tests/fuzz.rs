//! The macro never panics: random and mutated token streams go through the whole expansion
//! (syn parsing, rendering, layout-core's parser and solver, code emission) and must come back as
//! code or as compile errors. `FUZZ_CASES` sets the number of cases per target (default 2,000 in
//! CI; the million ran as `FUZZ_CASES=500000 cargo test --release -p layout-macros-core --test fuzz`,
//! see BENCHMARKS.md).

use proc_macro2::TokenStream;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000)
}

/// Valid items of every kind, the seeds that mutations start from.
const SEEDS: &[&str] = &[
    "pub Tile = #ttg.blocked<{sizePerThread = [4, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}> : tensor<64x16xf16>;",
    "pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [32, 32];",
    "pub OpA = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [32, 16];",
    "pub S = slice(dim = 1, parent = Tile) for [64];",
    "pub V3 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}> : tensor<64x64xf32>;",
    "#[warp_size = 64] pub M = amd_mfma(version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = true) for [64, 64];",
    "pub W = #ttg.amd_wmma<{version = 2, isTranspose = false, ctaLayout = {warp = [[1, 0]]}, instrShape = [16, 16, 16]}> : tensor<32x32xf16>;",
    "pub Sm = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [64, 64];",
    "pub N = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}> : !ttg.memdesc<64x64xf16>;",
    "pub P = #ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}> : tensor<64x64xf16>;",
    "pub P2 = padded_shared([16:+1, 64:+4], order = [0, 1], shape = [8, 16]) for [8, 16];",
    "pub L = linear(register = [[0, 1]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [], block = []) for [32, 2];",
    "pub SL = shared_linear(offset = [[0, 1], [0, 2], [1, 0]], block = [], alignment = 16) for [2, 4];",
    "pub C = Swizzle<3, 3, 3> for [64, 64];",
    "pub R = #ttg.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 4, order = [1, 0]}> : tensor<16x16xf16>;",
];

/// Fragments that mutations splice in: every kind of token the grammar uses, and some it
/// does not.
const FRAGMENTS: &[&str] = &[
    "#",
    "#ttg.",
    "ttg",
    ".",
    "<",
    ">",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ",",
    ";",
    ":",
    "=",
    "+",
    "-",
    "!",
    "0",
    "1",
    "2",
    "3",
    "7",
    "64",
    "4294967295",
    "99999999999",
    "-1",
    "true",
    "false",
    "for",
    "pub",
    "tensor",
    "64x16xf16",
    "1x1xi8",
    "blocked",
    "slice",
    "dot_op",
    "nvidia_mma",
    "linear",
    "parent",
    "Acc",
    "Tile",
    "order",
    "kWidth",
    "opIdx",
    "register",
    "lane",
    "warp",
    "block",
    "offset",
    "Swizzle",
    "\"str\"",
    "'c'",
    "1.5",
    "#[warp_size = 64]",
    "#![warp_size = 32]",
    "[[0, 1]]",
    "[[]]",
    "[]",
    "{}",
    "::",
    "=>",
    "x",
    "sizePerThread",
    "CGALayout",
    "instrShape",
];

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    })
}

/// Fail the test with proptest's minimal failing input.
fn check(r: Result<(), proptest::test_runner::TestError<impl std::fmt::Debug>>) {
    assert!(
        r.is_ok(),
        "{}",
        r.err().map(|e| e.to_string()).unwrap_or_default()
    );
}

/// The input as the facade's front-end hands it over: `[$crate]` first.
fn with_krate(ts: TokenStream) -> TokenStream {
    quote::quote!([::linear_layouts] #ts)
}

fn expand_str(s: &str) {
    // Only strings that lex as Rust tokens reach a macro.
    if let Ok(ts) = s.parse::<TokenStream>() {
        let _ = layout_macros_core::layout(with_krate(ts));
    }
}

/// Split a seed into chunks at spaces and punctuation boundaries for mutation.
fn pieces(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in s.chars() {
        if c.is_alphanumeric() || c == '_' {
            cur.push(c);
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            out.push(c.to_string());
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize),
    Insert(usize, usize),
    Replace(usize, usize),
    Swap(usize, usize),
    Number(usize, i64),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Insert(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Replace(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Swap(a, b)),
        (any::<usize>(), -3i64..5000).prop_map(|(a, n)| Edit::Number(a, n)),
    ]
}

fn mutate(seeds: &[usize], edits: &[Edit]) -> String {
    // A block of one to three seeds, so that parent references resolve (or do not).
    let p: Vec<String> = seeds
        .iter()
        .flat_map(|&i| {
            let mut v = pieces(SEEDS[i % SEEDS.len()]);
            v.push(" ".into());
            v
        })
        .collect();
    apply_edits(p, edits)
}

fn apply_edits(mut p: Vec<String>, edits: &[Edit]) -> String {
    for e in edits {
        let n = p.len().max(1);
        match *e {
            Edit::Delete(i) if !p.is_empty() => {
                p.remove(i % n);
            }
            Edit::Insert(i, f) => p.insert(i % (n + 1), FRAGMENTS[f % FRAGMENTS.len()].into()),
            Edit::Replace(i, f) if !p.is_empty() => {
                p[i % n] = FRAGMENTS[f % FRAGMENTS.len()].into()
            }
            Edit::Swap(a, b) if !p.is_empty() => p.swap(a % n, b % n),
            Edit::Number(i, v) if !p.is_empty() => p[i % n] = v.to_string(),
            _ => {}
        }
    }
    p.concat()
}

#[test]
fn mutated_layouts_never_panic() {
    let mut runner = runner();
    check(runner.run(
        &(
            prop::collection::vec(any::<usize>(), 1..=3),
            prop::collection::vec(edit(), 0..8),
        ),
        |(seeds, edits)| {
            expand_str(&mutate(&seeds, &edits));
            Ok(())
        },
    ));
}

#[test]
fn random_token_soup_never_panics() {
    let mut runner = runner();
    check(
        runner.run(&prop::collection::vec(0..FRAGMENTS.len(), 0..40), |idx| {
            let s: Vec<&str> = idx.iter().map(|&i| FRAGMENTS[i]).collect();
            expand_str(&s.join(" "));
            Ok(())
        }),
    );
}

#[test]
fn extreme_parameters_never_panic() {
    let mut runner = runner();
    let dims = prop::collection::vec(
        prop_oneof![0u64..9, Just(1 << 20), Just(u32::MAX as u64)],
        0..5,
    );
    check(runner.run(
            &(dims.clone(), dims.clone(), dims.clone(), dims.clone(), dims, 0usize..4),
            |(a, b, c, d, shape, kind)| {
                let l = |v: &Vec<u64>| {
                    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
                };
                let spec = match kind {
                    0 => format!(
                        "blocked(sizePerThread = [{}], threadsPerWarp = [{}], warpsPerCTA = [{}], order = [{}])",
                        l(&a), l(&b), l(&c), l(&d)
                    ),
                    1 => format!(
                        "nvidia_mma(versionMajor = {}, warpsPerCTA = [{}], instrShape = [{}])",
                        a.first().copied().unwrap_or(2), l(&b), l(&c)
                    ),
                    2 => format!(
                        "swizzled_shared(vec = {}, perPhase = {}, maxPhase = {}, order = [{}])",
                        a.first().copied().unwrap_or(1), b.first().copied().unwrap_or(1),
                        c.first().copied().unwrap_or(1), l(&d)
                    ),
                    _ => format!(
                        "Swizzle<{}, {}, {}>",
                        a.first().copied().unwrap_or(0), b.first().copied().unwrap_or(0),
                        c.first().copied().unwrap_or(0)
                    ),
                };
                expand_str(&format!("pub X = {} for [{}];", spec, l(&shape)));
                Ok(())
            },
        ));
}

/// A seed item as a `convert!` side: `[#[warp_size = N]] SPEC SHAPE` without `pub Name =` and `;`.
fn side(seed: &str) -> String {
    let (attr, rest) = match seed.strip_prefix("#[") {
        Some(r) => {
            let (a, b) = r.split_once(']').unwrap_or(("", r));
            (format!("#[{}] ", a), b)
        }
        None => (String::new(), seed),
    };
    let body = rest.split_once(" = ").map_or(rest, |x| x.1);
    format!("{}{}", attr, body.trim_end().trim_end_matches(';'))
}

#[test]
fn mutated_conversions_never_panic() {
    let tails = [
        "f32",
        "u16, shared",
        "u8, shuffles",
        "f64",
        "bool",
        "f32, sideways",
    ];
    // The unmutated path solves: seeds converted to themselves, and to a named layout.
    for (a, b) in [(0, 0), (1, 1)] {
        let text = format!("{} => {}, u16", side(SEEDS[a]), side(SEEDS[b]));
        let out = layout_macros_core::convert(with_krate(text.parse().unwrap())).to_string();
        assert!(!out.contains("compile_error"), "{}: {}", text, out);
    }
    let text = format!("{} => Sm, u16", side(SEEDS[0]));
    assert!(
        layout_macros_core::convert(with_krate(text.parse().unwrap()))
            .to_string()
            .contains("Sm ! { @ convert_dst")
    );
    let mut runner = runner();
    check(runner.run(
        &(
            any::<usize>(),
            any::<usize>(),
            0..tails.len(),
            prop::collection::vec(edit(), 0..6),
        ),
        |(a, b, tail, edits)| {
            let text = format!(
                "{} => {}, {}",
                side(SEEDS[a % SEEDS.len()]),
                side(SEEDS[b % SEEDS.len()]),
                tails[tail]
            );
            let text = apply_edits(pieces(&text), &edits);
            if let Ok(ts) = text.parse::<TokenStream>() {
                let _ = layout_macros_core::convert(with_krate(ts));
            }
            Ok(())
        },
    ));
}
