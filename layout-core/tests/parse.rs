//! The TTGIR parser: the forms Triton prints, the older forms, and errors that say what is wrong,
//! where, and what was expected.

use layout_core::parse::{parse_aliases, parse_encoding, parse_tensor_type, Aliases};
use layout_core::{Encoding, LinearLayout};

fn enc(s: &str) -> Encoding {
    parse_encoding(s, &Aliases::new()).unwrap_or_else(|e| panic!("{}: {}", s, e))
}

fn err(s: &str) -> String {
    parse_encoding(s, &Aliases::new())
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

#[test]
fn forms_triton_prints_and_older_ones() {
    let a = enc("#ttg.blocked<{sizePerThread = [4, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>");
    let b = enc("#triton_gpu.blocked<{sizePerThread = [4, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>");
    let c = enc("#ttg.blocked<{size_per_thread = [4, 2], threads_per_warp = [8, 4], warps_per_cta = [2, 2], order = [1, 0]}>");
    assert_eq!(a, b);
    assert_eq!(a, c);
    // CGALayout and the legacy split parameters describe the same CGA.
    let d = enc("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0], CGALayout = [[0, 1]]}>");
    let e = enc("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [1, 0]}>");
    assert_eq!(
        d.to_linear_layout(&[64, 64]).unwrap(),
        e.to_linear_layout(&[64, 64]).unwrap()
    );
    // Typed integers as MLIR may print them.
    enc("#ttg.slice<{dim = 1 : i32, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>}>");
    // MFMA's older MDim / NDim spelling.
    let m1 = enc("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], MDim = 32, NDim = 32, isTransposed = true}>");
    let m2 = enc("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>");
    assert_eq!(
        m1.to_linear_layout(&[64, 64]).unwrap(),
        m2.to_linear_layout(&[64, 64]).unwrap()
    );
    // WMMA's older warpsPerCTA spelling.
    let w1 = enc("#ttg.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [2, 2]}>");
    let w2 = enc(
        "#ttg.amd_wmma<{version = 2, isTranspose = false, ctaLayout = {warp = [[0, 1], [1, 0]]}}>",
    );
    assert_eq!(
        w1.to_linear_layout(&[64, 64]).unwrap(),
        w2.to_linear_layout(&[64, 64]).unwrap()
    );
    enc("#ttg.padded_shared<[32:+4, 64:+8] {order = [1, 0], shape = [64, 64]}>");
    enc("#ttg.shared_linear<{offset = [[0, 1], [1, 0]]}, alignment = 16>");
}

#[test]
fn aliases_and_tensor_types() {
    let text = "// a TTGIR dump\n#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>\n\
                #mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>\n\
                #smem = #ttg.shared_memory\nmodule attributes {\"ttg.num-warps\" = 4 : i32} {\n}\n";
    let al = parse_aliases(text).unwrap();
    let t = parse_tensor_type(
        "tensor<32x16xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>",
        &al,
    )
    .unwrap();
    assert_eq!(t.shape, [32, 16]);
    assert_eq!(t.element, "f16");
    assert_eq!(t.element_bits(), Some(16));
    assert!(matches!(t.encoding, Some(Encoding::DotOperand { .. })));
    let t = parse_tensor_type(
        "tensor<128xf32, #ttg.slice<{dim = 1, parent = #blocked}>>",
        &al,
    )
    .unwrap();
    assert_eq!(t.shape, [128]);
    let t = parse_tensor_type("tensor<64x16xbf16>", &al).unwrap();
    assert!(t.encoding.is_none());
    let t = parse_tensor_type("!ttg.memdesc<64x64xf16, #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>, #smem, mutable>", &al).unwrap();
    assert!(t.encoding.unwrap().is_shared());
}

#[test]
fn errors_say_what_where_and_what_was_expected() {
    let e = err(
        "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], ordr = [0]}>",
    );
    assert!(
        e.contains("line 1, column 78")
            && e.contains("unknown key 'ordr'")
            && e.contains("did you mean 'order'?"),
        "{}",
        e
    );
    let e = err("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4]}>");
    assert!(e.contains("missing the required key 'order'"), "{}", e);
    let e = err("#ttg.blocked<{sizePerThread = [1], sizePerThread = [2]}>");
    assert!(e.contains("duplicate key 'sizePerThread'"), "{}", e);
    let e = err("#ttg.nvdia_mma<{}>");
    assert!(e.contains("did you mean 'nvidia_mma'?"), "{}", e);
    let e = err("#ttg.blocked<{sizePerThread = [1, 2}>");
    assert!(
        e.contains("line 1, column 36") && e.contains("expected ',' or ']'"),
        "{}",
        e
    );
    let e = err("#ttg.slice<{dim = 0, parent = #blocked}>");
    assert!(
        e.contains("unknown alias '#blocked'") && e.contains("-i FILE"),
        "{}",
        e
    );
    let e = err("#ttg.dot_op<{opIdx = 2, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>}>");
    assert!(e.contains("opIdx must be 0 or 1"), "{}", e);
    let e = err("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>}>");
    assert!(e.contains("kWidth is mandatory"), "{}", e);
    let e = err("#ttg.linear<{register = [[0, 1]], lane = [[1, 0]], warp = []}>");
    assert!(e.contains("'block' not found"), "{}", e);
    let e = err("#ttg.linear<{register = [[0, 2]], lane = [], warp = [], block = []}>");
    assert!(e.contains("surjective"), "{}", e);
    let e = err("#ttg.blocked<{sizePerThread = [1]}> trailing");
    assert!(e.contains("unexpected 'trailing'"), "{}", e);
    // Multi-line alias files report the line of the problem.
    let e = parse_aliases(
        "#a = #ttg.blocked<{sizePerThread = [1]}>\n\n   #b = #ttg.blocked<{x = [1}>\n",
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("line 3, column 29"), "{}", e);
}

#[test]
fn invalid_layouts_are_errors_when_solved() {
    let solve = |s: &str, shape: &[i64]| {
        enc(s)
            .to_linear_layout(shape)
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    let e = solve("#ttg.blocked<{sizePerThread = [3], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>", &[128]);
    assert!(e.contains("power of two"), "{}", e);
    let e = solve("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [0, 0]}>", &[64, 64]);
    assert!(e.contains("not a permutation"), "{}", e);
    let e = solve("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>", &[64]);
    assert!(e.contains("rank"), "{}", e);
    let e = solve("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 64, 16]}>", &[64, 64]);
    assert!(e.contains("multiple of 4"), "{}", e);
    let e = solve(
        "#ttg.nvmma_shared<{swizzlingByteWidth = 96, transposed = false, elementBitWidth = 16}>",
        &[64, 64],
    );
    assert!(e.contains("0, 32, 64 or 128"), "{}", e);
    // Hopper's N = 72 has dot operands (tests/triton_differential.rs checks them) but no
    // accumulator layout, in Triton too.
    let e = solve("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 72, 8]}>", &[128, 72]);
    assert!(e.contains("N = 72, not a power of two"), "{}", e);
    let e = solve("#ttg.amd_wmma<{version = 3, isTranspose = false, ctaLayout = {warp = [[1, 0]]}, instrShape = [32, 32, 64]}>", &[64, 64]);
    assert!(e.contains("invalid WMMA v3 instruction shape"), "{}", e);
    // 2^55 registers per thread: more than an in-dim's int32 size holds.
    let big = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>";
    let e = solve(big, &[1 << 30, 1 << 30]);
    assert!(
        e.contains("in-dim 'register' has 2^55 elements; an in-dim holds at most 2^30"),
        "{}",
        e
    );
}

#[test]
fn layouts_past_the_bit_limits_are_errors() {
    let zeros = |name: &str, n: usize| (name.to_string(), vec![vec![0]; n]);
    let e = LinearLayout::from_bases(
        vec![zeros("a", 21), zeros("b", 21), zeros("c", 22)],
        &["out"],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("64 in-bits and 0 out-bits, at most 63"), "{}", e);
    let e = LinearLayout::from_bases(vec![zeros("a", 31)], &["out"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("in-dim 'a' has 2^31 elements"), "{}", e);
    let ok = LinearLayout::from_bases(vec![zeros("a", 30), zeros("b", 30)], &["out"]).unwrap();
    assert_eq!(
        ok.free_variable_masks(),
        vec![
            ("a".to_string(), (1 << 30) - 1),
            ("b".to_string(), (1 << 30) - 1)
        ]
    );
}

#[test]
fn a_parse_error_keeps_its_place_as_a_layout_error() {
    let text = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0], bogus = 3}>";
    let p = parse_encoding(text, &Aliases::new()).unwrap_err();
    let e = layout_core::LayoutError::from(p.clone());
    let s = e.span().expect("the parser's span survives the conversion");
    assert_eq!(s, p.span);
    assert_eq!(&text[s.offset..s.offset + s.len], "bogus");
    assert_eq!(e.kind(), p.kind);
    // Errors that do not come from text have no place.
    assert_eq!(layout_core::LayoutError::new("x").span(), None);
}

#[test]
fn location_aliases_of_a_dump_are_skipped() {
    let text = "#loc = loc(\"k.py\":3:1)\n#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\n#loc7 = loc(\"p\"(#loc))\n";
    let a = parse_aliases(text).unwrap();
    assert_eq!(a.iter().map(|(n, _, _)| n).collect::<Vec<_>>(), ["blocked"]);
}
