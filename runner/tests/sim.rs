//! The GPU kernels on the CPU simulator: on the host each `#[kernel]` function is its body,
//! called here with simulator memory as its `Global` tensors, every element checked.

use linear_layouts::sim::{launch, HostMemory, Launch, SimThread};

#[test]
fn conversion_bodies_on_the_simulator() {
    use kernels::conversions::*;
    let tiles = 3u32;
    let n = tiles as usize * TILE;
    // fp16 -> fp8 operand: out must hold, in row-major order, the same tensor.
    let inp = HostMemory::new((0..n).map(|i| (i as u64 * 131 + 7) & 0xff));
    let out = HostMemory::new((0..n).map(|_| 0x1ff));
    launch(Launch::new(tiles, 128, 4), |t| {
        fp16_to_fp8_operand(t, inp.tiled(tiles), out.tiled_mut(tiles), tiles);
    })
    .expect("simulator");
    for i in 0..n {
        assert_eq!(out.get(i), inp.get(i), "fp16 -> fp8 operand, element {}", i);
    }
    // Accumulator to operand A (16-bit): out == in.
    let inp = HostMemory::new((0..n).map(|i| (i as u64 * 40503 + 11) & 0xffff));
    let out = HostMemory::new((0..n).map(|_| 0x1ffff));
    launch(Launch::new(tiles, 128, 4), |t| {
        mma_acc_to_operand(t, inp.tiled(tiles), out.tiled_mut(tiles), tiles);
    })
    .expect("simulator");
    for i in 0..n {
        assert_eq!(
            out.get(i),
            inp.get(i),
            "accumulator to operand, element {}",
            i
        );
    }
    // Register-only accumulator permutation: out == in.
    let inp = HostMemory::new((0..n).map(|i| ((i as u64 * 2654435761) & 0xffff_ffff) >> 9));
    let out = HostMemory::new((0..n).map(|_| u32::MAX as u64));
    launch(Launch::new(tiles, 128, 4), |t| {
        mma_acc_regperm(t, inp.tiled(tiles), out.tiled_mut(tiles), tiles);
    })
    .expect("simulator");
    for i in 0..n {
        assert_eq!(
            out.get(i),
            inp.get(i),
            "accumulator permutation, element {}",
            i
        );
    }
    // nvmma round trip: out == in, two tiles per CTA (the loop's barriers matter).
    let inp = HostMemory::new((0..n).map(|i| (i as u64 * 40503) & 0xffff));
    let out = HostMemory::new((0..n).map(|_| 0x1ffff));
    launch(Launch::new(2, 128, NVMMA_SMEM), |t| {
        // Two CTAs over three tiles: the grid-stride loop's barriers matter.
        nvmma_roundtrip(t, inp.tiled(tiles), out.tiled_mut(tiles), tiles);
    })
    .expect("simulator");
    for i in 0..n {
        assert_eq!(out.get(i), inp.get(i), "nvmma round trip, element {}", i);
    }
}

#[test]
fn cluster_transpose_body_on_the_simulator() {
    use kernels::cluster::{cluster_transpose, CLUSTER_SMEM, TILE};
    let tiles = 3u32;
    let n = tiles as usize * TILE;
    let inp = HostMemory::new((0..n).map(|i| (i as u64).wrapping_mul(2654435761) & 0xffff_ffff));
    let out = HostMemory::new((0..n).map(|_| u64::MAX)); // poisoned
    launch(
        Launch::new(2 * tiles, 128, CLUSTER_SMEM).with_cluster(2),
        |t| cluster_transpose(t, inp.tiled(tiles), out.tiled_mut(tiles), tiles),
    )
    .expect("simulator");
    for k in 0..tiles as usize {
        for i in 0..64 {
            for j in 0..64 {
                assert_eq!(
                    out.get(k * TILE + j * 64 + i),
                    inp.get(k * TILE + i * 64 + j),
                    "tile {} element ({}, {})",
                    k,
                    i,
                    j
                );
            }
        }
    }
    // One cluster walking all three tiles: each element stored once, by one of its CTAs.
    let once = HostMemory::new((0..n).map(|_| u64::MAX));
    launch(Launch::new(2, 128, CLUSTER_SMEM).with_cluster(2), |t| {
        cluster_transpose(t, inp.tiled(tiles), once.tiled_mut(tiles), tiles)
    })
    .expect("simulator");
    for i in 0..n {
        assert_eq!(
            (once.get(i), once.stores(i)),
            (out.get(i), 1),
            "element {}",
            i
        );
    }
}

/// A kernel on the simulator: thread, input, output, the table's `u32` argument.
type Entry = dyn Fn(&SimThread, &HostMemory, &HostMemory, u32) + Sync;

/// Kernel `$k` as an [`Entry`], its input and output made of simulator memory as its parameters
/// are typed: raw tensors, a grid-stride partition of `arg` tiles (`tiled`), or an `arg x arg`
/// matrix in blocks (`blocks`).
macro_rules! entry {
    ($k:path) => {
        entry!(@ $k, |a, b, _arg| (a.global(), b.global_mut()))
    };
    (tiled $k:path) => {
        entry!(@ $k, |a, b, arg| (a.tiled(arg), b.tiled_mut(arg)))
    };
    (blocks $k:path) => {
        entry!(@ $k, |a, b, arg| (a.blocks(arg), b.blocks_mut(arg)))
    };
    (vectors $k:path) => {
        entry!(@ $k, |a, b, arg| (a.vectors(arg), b.vectors_mut(arg)))
    };
    (@ $k:path, |$a:ident, $b:ident, $arg:ident| ($x:expr, $y:expr)) => {
        Box::new(
            |t: &SimThread, $a: &HostMemory, $b: &HostMemory, $arg: u32| {
                $k(t, $x, $y, $arg)
            },
        ) as Box<Entry>
    };
}

/// The `#[kernel]` function behind the PTX entry `name`: on the host it is the body itself,
/// taking simulator memory as its `Global` tensors.
fn sim_entry(name: &str) -> Option<Box<Entry>> {
    use kernels::{cluster::*, conversions::*, index_math::*, transpose::*};
    Some(match name {
        "transpose_f32" => entry!(blocks transpose_f32),
        "transpose_u16" => entry!(blocks transpose_u16),
        "transpose_u16_128" => entry!(blocks transpose_u16_128),
        "transpose_f32_generic" => entry!(blocks transpose_f32_generic),
        "transpose_u16_generic" => entry!(blocks transpose_u16_generic),
        "nvmma_roundtrip" => entry!(tiled nvmma_roundtrip),
        "mma_acc_to_operand" => entry!(tiled mma_acc_to_operand),
        "mma_acc_regperm" => entry!(tiled mma_acc_regperm),
        "mma_acc_to_rows" => entry!(tiled mma_acc_to_rows),
        "mma_acc_to_rows_generic" => entry!(tiled mma_acc_to_rows_generic),
        "fp16_to_fp8_operand" => entry!(tiled fp16_to_fp8_operand),
        "cluster_transpose" => entry!(tiled cluster_transpose),
        "copy_v4" => entry!(vectors copy_v4),
        "index_kernel" => Box::new(|t, _, b, _| index_kernel(t, b.per_thread_mut())),
        _ => return None,
    })
}

/// Kernel `k` of a table on the simulator with warps of `lanes`, checked against its reference.
fn simulate(k: &runner::table::Kernel, entry: &Entry, n: u32, lanes: u32) {
    let e = k.elem.bytes();
    let mask = u64::MAX >> (64 - 8 * e);
    let input: Vec<u64> = (0..k.input_elems(n) as u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) & mask)
        .collect();
    let bytes: Vec<u8> = input
        .iter()
        .flat_map(|v| v.to_le_bytes()[..e].to_vec())
        .collect();
    let mut expected = vec![0u8; k.output_elems(n) * e];
    k.reference.expected(k, n, &bytes, &mut expected);
    let inp = HostMemory::new(input.into_iter());
    let out = HostMemory::new((0..k.output_elems(n)).map(|_| mask)); // poisoned
                                                                     // The simulator's clusters group CTAs along x.
    assert_eq!([k.cluster[1], k.cluster[2]], [1; 2], "{}", k.name);
    let arg = k.arg(n).unwrap_or(0);
    let shape = Launch {
        warp_size: lanes,
        ..Launch::dims(k.grid(n), k.block, k.shared_bytes).with_cluster(k.cluster[0])
    };
    launch(shape, |t| entry(t, &inp, &out, arg))
        .unwrap_or_else(|err| panic!("{}: {}", k.name, err));
    for (i, x) in expected.chunks(e).enumerate() {
        let want = x.iter().rev().fold(0u64, |a, &b| (a << 8) | b as u64);
        assert_eq!(out.get(i), want, "{}: element {}", k.name, i);
    }
}

/// Every kernel of `runner::table` with a body on the simulator, launched with the table's grid,
/// block, cluster, shared memory and argument, checked against the table's reference.
#[test]
fn table_entries_on_the_simulator() {
    use runner::table::{n_multiple, KERNELS};
    let n = 2 * n_multiple();
    let mut simulated = Vec::new();
    for k in KERNELS {
        let Some(entry) = sim_entry(k.name) else {
            continue;
        };
        simulate(k, &entry, n, 32);
        simulated.push(k.name);
    }
    assert_eq!(
        simulated.len(),
        KERNELS.len(),
        "every kernel runs on the simulator"
    );
}

/// Every kernel of the SPIR-V module (`table::SPIRV_KERNELS`) on the simulator, each with warps of
/// the size its layouts were written for: the bodies rust-gpu builds, checked as the PTX ones are.
#[test]
fn spirv_table_entries_on_the_simulator() {
    use kernels::subgroup::{w16, w32, w64, w8};
    use runner::table::SPIRV_KERNELS;
    for k in SPIRV_KERNELS {
        let entry: Box<Entry> = match k.name {
            // `kernels-spirv`'s copy: `copy_v4`'s body in 64-thread workgroups.
            "copy_v4" => Box::new(|t: &SimThread, a: &HostMemory, b: &HostMemory, n: u32| {
                kernels::transpose::copy_v4_body(t, &a.vectors(n), &b.vectors_mut(n))
            }),
            "transpose_f32_w8" => entry!(blocks w8::transpose_f32_w8),
            "transpose_u16_w8" => entry!(blocks w8::transpose_u16_w8),
            "shuffle_f32_w8" => entry!(tiled w8::shuffle_f32_w8),
            "transpose_f32_w16" => entry!(blocks w16::transpose_f32_w16),
            "transpose_u16_w16" => entry!(blocks w16::transpose_u16_w16),
            "shuffle_f32_w16" => entry!(tiled w16::shuffle_f32_w16),
            "transpose_f32_w32" => entry!(blocks w32::transpose_f32_w32),
            "transpose_u16_w32" => entry!(blocks w32::transpose_u16_w32),
            "shuffle_f32_w32" => entry!(tiled w32::shuffle_f32_w32),
            "transpose_f32_w64" => entry!(blocks w64::transpose_f32_w64),
            "transpose_u16_w64" => entry!(blocks w64::transpose_u16_w64),
            "shuffle_f32_w64" => entry!(tiled w64::shuffle_f32_w64),
            other => panic!("no simulator body for SPIR-V kernel {}", other),
        };
        let lanes = if k.warp_size == 0 { 32 } else { k.warp_size };
        simulate(&k, &entry, 256, lanes);
    }
}

/// The table and the GEMMs name exactly the `.entry` symbols of the PTX, when `cargo xtask ptx`
/// has written one newer than the kernels' sources (a stale or missing PTX is skipped with a
/// note, and fails under LAYOUT_PTX=require, as in CI).
#[test]
fn table_names_are_the_ptx_entries() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let ptx = root.join("../target/ptx/kernels.ptx");
    let modified = |p: &std::path::Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    // CI builds the PTX first and sets LAYOUT_PTX=require: there a missing or stale file fails.
    let required = std::env::var("LAYOUT_PTX").is_ok_and(|v| v == "require");
    let skip = |why: String| {
        assert!(!required, "{} (LAYOUT_PTX=require)", why);
        eprintln!("{}: the table's names not checked", why);
    };
    let Some(built) = modified(&ptx) else {
        return skip(format!("no {}: run `cargo xtask ptx`", ptx.display()));
    };
    let sources = std::fs::read_dir(root.join("../kernels/src")).expect("kernels/src");
    if sources
        .filter_map(|f| modified(&f.ok()?.path()))
        .any(|m| m > built)
    {
        return skip(format!("{} is older than kernels/src", ptx.display()));
    }
    let text = std::fs::read_to_string(&ptx).expect("PTX");
    let mut entries: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix(".visible .entry "))
        .map(|l| l.split('(').next().unwrap_or(l).trim())
        .collect();
    // The GEMMs are launched by gemm-bench through their own specs, not by the table; the
    // activations, the row kernels, the scans, the relayouts and attention are checked by
    // kernels/tests/.
    let own_tests = [
        kernels::activations::GELU_TANH_F16.name(),
        kernels::activations::SILU_F16.name(),
        kernels::scans::CUMSUM_ROWS_F32.name(),
        kernels::scans::CUMSUM_LINE_F32.name(),
        kernels::scans::COMPACTION_OFFSETS_ROWS.name(),
        kernels::scans::SUFFIX_SUMS_ROWS_F32.name(),
        kernels::scans::SUFFIX_SUMS_EXCLUSIVE_LINE_F32.name(),
        kernels::relayouts::INTERLEAVE_F32.name(),
        kernels::relayouts::DEINTERLEAVE_F32.name(),
        kernels::relayouts::ROW_SUMS_COLUMN_F32.name(),
        kernels::relayouts::TRANS_F32.name(),
        kernels::attention::ATTENTION_F16.name(),
        kernels::attention::ATTENTION_BF16.name(),
        kernels::attention::ATTENTION_D128_F16.name(),
        kernels::attention::ATTENTION_D128_BF16.name(),
        kernels::attention_hopper::ATTENTION_HOPPER_F16.name(),
        kernels::attention_hopper::ATTENTION_HOPPER_BF16.name(),
        kernels::attention_hopper::ATTENTION_HOPPER_D128_F16.name(),
        kernels::attention_hopper::ATTENTION_HOPPER_D128_BF16.name(),
        kernels::gemm::GEMM_F16.name(),
        kernels::gemm::GEMM_BF16.name(),
        kernels::gemm_pipelined::GEMM_PIPELINED_F16.name(),
        kernels::gemm_pipelined::GEMM_PIPELINED_BF16.name(),
        kernels::gemm_hopper::GEMM_HOPPER_F16.name(),
        kernels::gemm_hopper::GEMM_HOPPER_BF16.name(),
        kernels::gemm_hopper_ws::GEMM_HOPPER_WS_F16.name(),
        kernels::gemm_hopper_ws::GEMM_HOPPER_WS_BF16.name(),
    ];
    let mut names: Vec<&str> = runner::table::KERNELS.iter().map(|k| k.name).collect();
    names.extend(own_tests);
    names.extend(
        kernels::rows::CLASSES
            .iter()
            .flat_map(|c| c.names.into_iter().chain(c.aligned)),
    );
    entries.sort_unstable();
    names.sort_unstable();
    assert_eq!(names, entries);
}
