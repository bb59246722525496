//! What gpu-bench does without a GPU: the problem size, inputs, the element-by-element check,
//! the kernel table as JSON lines and the report's rows.

use runner::table::{self, Kernel, Reference};

/// The byte the output buffers are filled with before a kernel runs; no input element is made
/// of it only, so an element the kernel did not write cannot pass the check.
pub const POISON: u8 = 0xFF;

/// The problem size from the command line: `n x n` elements, `n` a positive multiple of every
/// kernel's tile ([`table::n_multiple`]) and at most [`table::MAX_N`].
pub fn parse_n(arg: Option<&str>) -> Result<u32, String> {
    let m = table::n_multiple();
    let arg = arg.unwrap_or("16384");
    match arg.parse::<u32>() {
        Ok(n) if n > 0 && n.is_multiple_of(m) && n <= table::MAX_N => Ok(n),
        _ => Err(format!(
            "N must be a positive multiple of {} up to {}, got {}",
            m,
            table::MAX_N,
            arg
        )),
    }
}

/// A seed that differs from run to run (the time), for [`random_input`].
pub fn time_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(7)
}

/// xorshift64*: inputs differ from run to run (seeded by time) and are never all zeros; seeds
/// that differ below bit 63 give different sequences.
fn xorshift(seed: u64) -> impl Iterator<Item = u64> {
    let mut x = (seed << 1) | 1;
    std::iter::repeat_with(move || {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    })
}

/// `elems` random elements of `bytes` bytes each, little-endian; none of them all [`POISON`].
pub fn random_input(elems: usize, bytes: usize, seed: u64) -> Vec<u8> {
    let mut v: Vec<u8> = xorshift(seed)
        .flat_map(u64::to_le_bytes)
        .take(elems * bytes)
        .collect();
    for e in v.chunks_mut(bytes) {
        if e.iter().all(|&b| b == POISON) {
            e[0] = !POISON;
        }
    }
    v
}

/// Element `i` of a buffer of `bytes`-byte elements, as a number.
fn element(buf: &[u8], i: usize, bytes: usize) -> u64 {
    buf[i * bytes..(i + 1) * bytes]
        .iter()
        .rev()
        .fold(0, |a, &b| (a << 8) | b as u64)
}

/// `Ok` if the kernel wrote exactly `expected`; else the first wrong element, with its row and
/// column for `n x n` outputs.
pub fn check(k: &Kernel, n: u32, out: &[u8], expected: &[u8]) -> Result<(), String> {
    let e = k.elem.bytes();
    if out.len() != expected.len() {
        return Err(format!(
            "{}: {} bytes back, {} expected",
            k.name,
            out.len(),
            expected.len()
        ));
    }
    let Some(i) =
        (0..out.len() / e).find(|&i| out[i * e..(i + 1) * e] != expected[i * e..(i + 1) * e])
    else {
        return Ok(());
    };
    let at = if k.output_elems(n) == n as usize * n as usize {
        format!(
            "element {} (row {}, column {})",
            i,
            i / n as usize,
            i % n as usize
        )
    } else {
        format!("element {}", i)
    };
    Err(format!(
        "{} wrong at {}: {:#x}, expected {:#x}",
        k.name,
        at,
        element(out, i, e),
        element(expected, i, e)
    ))
}

/// A JSON string literal.
fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// A row-kernel width class as a JSON object on one line: what `gpu-bench --rows` prints and
/// `scripts/rows_gpu_bench.py` reads.
pub fn row_class_json(c: &kernels::rows::RowClass) -> String {
    let [sm32, sm16, ln16, lnbf] = c.names.map(json_str);
    let [sm32a, sm16a, ln16a, lnbfa] = c.aligned.map(json_str);
    format!(
        "{{\"width\": {}, \"rows_per_cta\": {}, \"threads\": {}, \"shared_bytes\": {}, \
         \"softmax_f32\": {}, \"softmax_f16\": {}, \"layer_norm_f16\": {}, \"layer_norm_bf16\": {}, \
         \"aligned\": {{\"softmax_f32\": {}, \"softmax_f16\": {}, \"layer_norm_f16\": {}, \"layer_norm_bf16\": {}}}}}",
        c.width, c.rows_per_cta, c.threads, c.shared_bytes, sm32, sm16, ln16, lnbf, sm32a, sm16a, ln16a, lnbfa
    )
}

/// The flash attention kernels' tiles, launches and entry points as a JSON object on one line
/// (`{"ampere": {..}, "ampere_d128": {..}, "hopper": {..}, "hopper_d128": {..}}`): what
/// `gpu-bench --attention` prints (the Hopper ones with `"tensor_maps"`: Q, K and V are
/// tensor maps) and
/// `scripts/attention_gpu_bench.py` reads (each grid is `[seq.div_ceil(block_m), heads, 1]`).
pub fn attention_json() -> String {
    use kernels::{attention as a, attention_hopper as h};
    let one = |[m, n, d, threads, shared]: [u32; 5], [f16, bf16]: [&str; 2]| {
        format!(
            "{{\"block_m\": {}, \"block_n\": {}, \"head_dim\": {}, \"threads\": {}, \
             \"shared_bytes\": {}, \"f16\": {}, \"bf16\": {}}}",
            m,
            n,
            d,
            threads,
            shared,
            json_str(f16),
            json_str(bf16)
        )
    };
    let ampere = |d, smem, names| {
        one(
            [a::ATTN_BLOCK_M, a::ATTN_BLOCK_N, d, a::ATTN_THREADS, smem],
            names,
        )
    };
    let ampere64 = ampere(
        64,
        a::ATTN_SMEM,
        [a::ATTENTION_F16.name(), a::ATTENTION_BF16.name()],
    );
    let ampere128 = ampere(
        128,
        a::ATTN_SMEM_128,
        [a::ATTENTION_D128_F16.name(), a::ATTENTION_D128_BF16.name()],
    );
    // The Hopper kernels take Q, K and V as tensor maps of `[heads · seq, d]`: their boxes and
    // swizzle (`CUtensorMapSwizzle`'s value).
    let maps = format!(
        ", \"tensor_maps\": {{\"box_q\": [{}, {}], \"box_kv\": [{}, {}], \"swizzle\": {}}}}}",
        h::HATTN_BOX_Q[0],
        h::HATTN_BOX_Q[1],
        h::HATTN_BOX_KV[0],
        h::HATTN_BOX_KV[1],
        h::HATTN_SWIZZLE.tensor_map_code()
    );
    let hopper = |d, smem, names| {
        let mut o = one(
            [
                h::HATTN_BLOCK_M,
                h::HATTN_BLOCK_N,
                d,
                h::HATTN_THREADS,
                smem,
            ],
            names,
        );
        o.pop();
        o + &maps
    };
    let hopper64 = hopper(
        64,
        h::HATTN_SMEM_64,
        [
            h::ATTENTION_HOPPER_F16.name(),
            h::ATTENTION_HOPPER_BF16.name(),
        ],
    );
    let hopper128 = hopper(
        128,
        h::HATTN_SMEM_128,
        [
            h::ATTENTION_HOPPER_D128_F16.name(),
            h::ATTENTION_HOPPER_D128_BF16.name(),
        ],
    );
    format!(
        "{{\"ampere\": {}, \"ampere_d128\": {}, \"hopper\": {}, \"hopper_d128\": {}}}",
        ampere64, ampere128, hopper64, hopper128
    )
}

/// One kernel of the table as a JSON object on one line, with its launch for `n x n` elements:
/// what `gpu-bench --list N` prints and `scripts/gpu_bench.py` reads.
pub fn json_line(k: &Kernel, n: u32) -> String {
    let dims = |d: [u32; 3]| format!("[{}, {}, {}]", d[0], d[1], d[2]);
    let side = match k.reference {
        Reference::TileTranspose { side } => side.to_string(),
        _ => "null".into(),
    };
    format!(
        "{{\"name\": {}, \"label\": {}, \"elem\": \"{}\", \"elem_bytes\": {}, \"grid\": {}, \
         \"block\": {}, \"cluster\": {}, \"shared_bytes\": {}, \"arg\": {}, \"input_elems\": {}, \
         \"output_elems\": {}, \"bytes_moved\": {}, \"reference\": \"{}\", \"tile_side\": {}}}",
        json_str(k.name),
        json_str(k.label),
        k.elem.name(),
        k.elem.bytes(),
        dims(k.grid(n)),
        dims(k.block),
        dims(k.cluster),
        k.shared_bytes,
        k.arg(n).map_or("null".into(), |a| a.to_string()),
        k.input_elems(n),
        k.output_elems(n),
        k.bytes_moved(n),
        k.reference.name(),
        side
    )
}

/// One line of the report.
pub struct Row {
    /// The kernel's label.
    pub label: &'static str,
    /// Milliseconds per launch.
    pub ms: f32,
    /// Bytes read and written per launch.
    pub bytes: usize,
    /// Milliseconds of a device-to-device copy of the same bytes (kernels with an input).
    pub copy_ms: Option<f32>,
}

/// The report's header lines.
pub fn header(n: u32) -> String {
    format!(
        "N = {}; every kernel checked element by element on fresh random inputs; median of 30 (CUDA events)\n{:48} {:>8} {:>7} {:>9}",
        n, "kernel", "ms", "TB/s", "% of copy"
    )
}

impl std::fmt::Display for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tbs = self.bytes as f64 / self.ms as f64 / 1e9;
        write!(f, "{:48} {:8.3} {:7.2}", self.label, self.ms, tbs)?;
        match self.copy_ms {
            Some(c) => write!(f, " {:8.1}%", 100.0 * c / self.ms),
            None => write!(f, " {:>9}", "-"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use runner::table::{kernel, KERNELS};

    #[test]
    fn problem_size() {
        assert_eq!(parse_n(None), Ok(16384));
        assert_eq!(parse_n(Some("256")), Ok(256));
        for bad in ["0", "100", "-128", "x", "65664"] {
            let e = parse_n(Some(bad)).unwrap_err();
            assert!(
                e.starts_with("N must be a positive multiple of 128"),
                "{}",
                e
            );
        }
    }

    #[test]
    fn inputs_are_random_and_never_poison() {
        for bytes in [1, 2, 4, 8] {
            let a = random_input(1 << 16, bytes, 42);
            assert_eq!(a.len(), bytes << 16);
            assert!(a.chunks(bytes).all(|e| e.iter().any(|&b| b != POISON)));
            assert!(a != random_input(1 << 16, bytes, 43), "seeds 42 and 43");
        }
        // 8-bit inputs cover every value but the poison.
        let a = random_input(1 << 16, 1, 7);
        assert_eq!(
            (0..=255u8).filter(|v| !a.contains(v)).collect::<Vec<_>>(),
            [POISON]
        );
    }

    #[test]
    fn check_names_the_first_wrong_element() {
        let k = kernel("transpose_u16").unwrap();
        let n = 64;
        let input = random_input(k.input_elems(n), 2, 1);
        let mut expected = vec![0; input.len()];
        k.reference.expected(k, n, &input, &mut expected);
        assert_eq!(check(k, n, &expected, &expected), Ok(()));
        let mut out = expected.clone();
        out[2 * (64 + 3)] ^= 1;
        let e = check(k, n, &out, &expected).unwrap_err();
        assert!(
            e.starts_with("transpose_u16 wrong at element 67 (row 1, column 3): "),
            "{}",
            e
        );
        assert!(check(k, n, &out[2..], &expected).is_err());
        // An output the kernel never wrote.
        let poisoned = vec![POISON; expected.len()];
        assert!(check(k, n, &poisoned, &expected).is_err());
    }

    #[test]
    fn json_lines() {
        let k = kernel("cluster_transpose").unwrap();
        let j = json_line(k, 128);
        assert!(
            j.starts_with("{\"name\": \"cluster_transpose\", \"label\": "),
            "{}",
            j
        );
        for part in [
            "\"elem\": \"f32\", \"elem_bytes\": 4",
            "\"grid\": [8, 1, 1], \"block\": [128, 1, 1], \"cluster\": [2, 1, 1]",
            "\"arg\": 4, \"input_elems\": 16384, \"output_elems\": 16384",
            "\"reference\": \"tile_transpose\", \"tile_side\": 64}",
        ] {
            assert!(j.contains(part), "{} not in {}", part, j);
        }
        let j = json_line(kernel("index_kernel").unwrap(), 128);
        assert!(j.contains("\"arg\": null, \"input_elems\": 0"), "{}", j);
        assert_eq!(json_str("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
        for k in KERNELS {
            let j = json_line(k, 256);
            assert!(!j.contains('\n') && j.matches('{').count() == 1, "{}", j);
        }
    }

    #[test]
    fn rows() {
        let r = Row {
            label: "transpose f32 (64x64, 4 warps)",
            ms: 0.5,
            bytes: 2_000_000_000,
            copy_ms: Some(0.45),
        };
        assert_eq!(
            r.to_string(),
            format!("{:48}    0.500    4.00     90.0%", r.label)
        );
        let r = Row { copy_ms: None, ..r };
        assert!(r.to_string().ends_with("    4.00         -"), "{}", r);
    }
}
