//! Benchmarks behind BENCHMARKS.md. `cargo bench --bench layouts`
//!
//! 1. Parse and convert 10,000 layouts: the TTGIR text of the Triton 3.9 fixture cases, cycled,
//!    each parsed (aliases + tensor type) and converted to a linear layout.
//! 2. invertAndCompose on large layouts: 16 register, 5 lane, 3 warp and 2 block bits.
//!
//! Each figure is the median of several timed repetitions after a warm-up, all in one process.

use std::hint::black_box;
use std::time::{Duration, Instant};

use linear_layouts::parse::{parse_aliases, parse_tensor_type};
use linear_layouts::LinearLayout;

const FIXTURE: &str = include_str!("../fixtures/triton-3.9.0-layouts.jsonl");

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<F: FnMut()>(reps: usize, mut f: F) -> Duration {
    f();
    median(
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

/// A random invertible-ish layout with the given bits per in-dim over 26 out bits.
fn big_layout(seed: u64) -> LinearLayout {
    let dims = [("register", 16), ("lane", 5), ("warp", 3), ("block", 2)];
    let total: usize = dims.iter().map(|d| d.1).sum();
    // A random permutation of the unit vectors, XOR-mixed with lower bits: invertible.
    let mut perm: Vec<usize> = (0..total).collect();
    let mut s = seed;
    let mut rnd = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for i in (1..total).rev() {
        perm.swap(i, (rnd() % (i as u64 + 1)) as usize);
    }
    let mut vals: Vec<u64> = perm.iter().map(|&p| 1u64 << p).collect();
    for i in 1..total {
        if rnd() % 2 == 0 {
            vals[i] ^= vals[(rnd() % i as u64) as usize];
        }
    }
    let mut it = vals.into_iter();
    let bases = dims
        .iter()
        .map(|(n, k)| {
            (
                n.to_string(),
                (0..*k)
                    .map(|_| {
                        let v = it.next().unwrap();
                        vec![(v & 0x1fff) as i32, (v >> 13) as i32]
                    })
                    .collect(),
            )
        })
        .collect();
    LinearLayout::from_parts(
        bases,
        vec![("dim0".into(), 1 << 13), ("dim1".into(), 1 << 13)],
        false,
    )
    .unwrap()
}

fn main() {
    let cases: Vec<(String, String)> = FIXTURE
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let aliases = v["aliases"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_string())
                .collect::<Vec<_>>()
                .join("\n");
            (aliases, v["tensor"].as_str().unwrap().to_string())
        })
        .collect();
    let n = 10_000;
    let parse_only = time(5, || {
        for i in 0..n {
            let (a, t) = &cases[i % cases.len()];
            let al = parse_aliases(a).unwrap();
            black_box(parse_tensor_type(t, &al).unwrap());
        }
    });
    let parse_convert = time(5, || {
        for i in 0..n {
            let (a, t) = &cases[i % cases.len()];
            let al = parse_aliases(a).unwrap();
            let ty = parse_tensor_type(t, &al).unwrap();
            black_box(ty.encoding.unwrap().to_linear_layout(&ty.shape).unwrap());
        }
    });
    println!(
        "parse 10,000 layouts (aliases + tensor type):             {:>9.2} ms  ({:.2} us/layout)",
        parse_only.as_secs_f64() * 1e3,
        parse_only.as_secs_f64() * 1e6 / n as f64
    );
    println!(
        "parse and convert 10,000 layouts to linear layouts:       {:>9.2} ms  ({:.2} us/layout)",
        parse_convert.as_secs_f64() * 1e3,
        parse_convert.as_secs_f64() * 1e6 / n as f64
    );

    let pairs: Vec<(LinearLayout, LinearLayout)> = (1..=64)
        .map(|i| (big_layout(i * 7919), big_layout(i * 104729 + 1)))
        .collect();
    assert!(pairs
        .iter()
        .all(|(a, b)| a.is_invertible() && b.is_invertible()));
    let iac = time(7, || {
        for (a, b) in &pairs {
            black_box(a.invert_and_compose(b).unwrap());
        }
    });
    let per = iac.as_secs_f64() * 1e6 / pairs.len() as f64;
    println!("invertAndCompose, 16 reg + 5 lane + 3 warp + 2 block bits: {:>9.2} us per call (median of 7 x {} calls)", per, pairs.len());
    let mul = time(7, || {
        for (a, _) in &pairs {
            black_box(
                a.sublayout(&["register"], &["dim0", "dim1"])
                    .unwrap()
                    .checked_mul(
                        &a.sublayout(&["lane", "warp", "block"], &["dim0", "dim1"])
                            .unwrap(),
                    )
                    .ok(),
            );
        }
    });
    println!(
        "sublayout x2 + operator* on the same layouts:              {:>9.2} us per call",
        mul.as_secs_f64() * 1e6 / pairs.len() as f64
    );
}
