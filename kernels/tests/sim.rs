//! The GPU kernels' bodies on the CPU simulator: the same `transpose_*_tile` functions the PTX
//! kernels call, over host memory, every element checked.

use kernels::transpose::{
    transpose_f32_tile, transpose_u16_big_tile, transpose_u16_tile, TRANSPOSE16_BIG_SMEM,
    TRANSPOSE16_SMEM, TRANSPOSE_SMEM,
};
use linear_layouts::sim::{launch, HostMemory, Launch};
use linear_layouts::Thread;

/// A transpose body: thread, input, output, n, tile row, tile column.
type TransposeBody =
    dyn Fn(&linear_layouts::sim::SimThread, &HostMemory, &HostMemory, u32, u32, u32) + Sync;

fn check_transpose(n: usize, tile: usize, bits: u32, warps: u32, smem: u32, body: &TransposeBody) {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let inp = HostMemory::new(
        (0..n * n).map(|i| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7 & mask),
    );
    let out = HostMemory::new((0..n * n).map(|_| mask)); // poisoned
    let tiles = (n / tile) as u32;
    launch(Launch::new(tiles * tiles, 32 * warps, smem), |t| {
        let b = t.block();
        body(t, &inp, &out, n as u32, b % tiles, b / tiles);
    })
    .expect("simulator");
    for i in 0..n {
        for j in 0..n {
            assert_eq!(
                out.get(j * n + i),
                inp.get(i * n + j),
                "element ({}, {})",
                i,
                j
            );
        }
    }
}

#[test]
fn transpose_bodies_on_the_simulator() {
    check_transpose(128, 64, 32, 4, TRANSPOSE_SMEM, &|t, a, b, n, x, y| {
        transpose_f32_tile(t, a, b, n, x, y)
    });
    check_transpose(128, 64, 16, 4, TRANSPOSE16_SMEM, &|t, a, b, n, x, y| {
        transpose_u16_tile(t, a, b, n, x, y)
    });
    check_transpose(
        256,
        128,
        16,
        8,
        TRANSPOSE16_BIG_SMEM,
        &|t, a, b, n, x, y| transpose_u16_big_tile(t, a, b, n, x, y),
    );
}

#[test]
fn conversion_bodies_on_the_simulator() {
    use kernels::conversions::*;
    let tiles = 3u32;
    let n = tiles as usize * TILE;
    // fp16 -> fp8 operand: out must hold, in row-major order, the same tensor.
    let inp = HostMemory::new((0..n).map(|i| (i as u64 * 131 + 7) & 0xff));
    let out = HostMemory::new((0..n).map(|_| 0x1ff));
    launch(Launch::new(tiles, 128, 4), |t| {
        fp16_to_fp8_operand_tile(t, &inp, &out, t.block());
    })
    .expect("simulator");
    for i in 0..n {
        assert_eq!(out.get(i), inp.get(i), "fp16 -> fp8 operand, element {}", i);
    }
    // Accumulator to operand A (16-bit): out == in.
    let inp = HostMemory::new((0..n).map(|i| (i as u64 * 40503 + 11) & 0xffff));
    let out = HostMemory::new((0..n).map(|_| 0x1ffff));
    launch(Launch::new(tiles, 128, 4), |t| {
        mma_acc_to_operand_tile(t, &inp, &out, t.block());
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
        mma_acc_regperm_tile(t, &inp, &out, t.block());
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
        let mut k = t.block();
        while k < tiles {
            nvmma_roundtrip_tile(t, &inp, &out, k);
            k += 2;
        }
    })
    .expect("simulator");
    for i in 0..n {
        assert_eq!(out.get(i), inp.get(i), "nvmma round trip, element {}", i);
    }
}

#[test]
fn cluster_transpose_body_on_the_simulator() {
    use kernels::cluster::{cluster_transpose_tile, CLUSTER_SMEM, TILE};
    let tiles = 3u32;
    let n = tiles as usize * TILE;
    let inp = HostMemory::new((0..n).map(|i| (i as u64).wrapping_mul(2654435761) & 0xffff_ffff));
    let out = HostMemory::new((0..n).map(|_| u64::MAX)); // poisoned
    launch(
        Launch::new(2 * tiles, 128, CLUSTER_SMEM).with_cluster(2),
        |t| cluster_transpose_tile(t, &inp, &out, t.block() / 2),
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
}

/// A kernel's wrapper on the simulator: thread, input, output, the table's `u32` argument, and
/// the grid. Each does what the `#[no_mangle]` entry of the same name does around its body.
type Entry =
    dyn Fn(&linear_layouts::sim::SimThread, &HostMemory, &HostMemory, u32, [u32; 3]) + Sync;

/// The simulator form of the PTX entry `name`; `None` for the kernels whose code is nvptx-only
/// (`copy_v4`, `index_kernel`).
fn sim_entry(name: &str) -> Option<Box<Entry>> {
    use kernels::cluster::cluster_transpose_tile;
    use kernels::conversions::*;
    /// `(bx, by)` from the flat block index of a 2-D grid.
    fn xy(t: &linear_layouts::sim::SimThread, grid: [u32; 3]) -> (u32, u32) {
        (t.block() % grid[0], t.block() / grid[0])
    }
    /// The grid-stride loop of the tile kernels: tile `block / cluster`, then every
    /// `grid / cluster`-th.
    macro_rules! tiles {
        ($body:ident, $cluster:expr) => {
            Box::new(|t, a, b, tiles, grid| {
                let mut k = t.block() / $cluster;
                while k < tiles {
                    $body(t, a, b, k);
                    k += grid[0] / $cluster;
                }
            })
        };
    }
    Some(match name {
        "transpose_f32" => Box::new(|t, a, b, n, g| {
            let (x, y) = xy(t, g);
            transpose_f32_tile(t, a, b, n, x, y)
        }),
        "transpose_u16" => Box::new(|t, a, b, n, g| {
            let (x, y) = xy(t, g);
            transpose_u16_tile(t, a, b, n, x, y)
        }),
        "transpose_u16_128" => Box::new(|t, a, b, n, g| {
            let (x, y) = xy(t, g);
            transpose_u16_big_tile(t, a, b, n, x, y)
        }),
        "nvmma_roundtrip" => tiles!(nvmma_roundtrip_tile, 1),
        "mma_acc_to_operand" => tiles!(mma_acc_to_operand_tile, 1),
        "mma_acc_regperm" => tiles!(mma_acc_regperm_tile, 1),
        "fp16_to_fp8_operand" => tiles!(fp16_to_fp8_operand_tile, 1),
        // The entry hard-codes clusters of 2 CTAs; the table takes them from the layouts.
        "cluster_transpose" => tiles!(cluster_transpose_tile, 2),
        _ => return None,
    })
}

/// Every kernel of `kernels::table` with a body on the simulator, launched with the table's grid,
/// block, cluster, shared memory and argument, checked against the table's reference.
#[test]
fn table_entries_on_the_simulator() {
    use kernels::table::{n_multiple, KERNELS};
    let n = 2 * n_multiple();
    let mut simulated = Vec::new();
    for k in KERNELS {
        let Some(entry) = sim_entry(k.name) else {
            continue;
        };
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
        let grid = k.grid(n);
        // The simulator's grid, blocks and clusters are 1-D: a 2-D grid is flattened x first.
        assert_eq!(grid[2], 1, "{}", k.name);
        assert_eq!(
            [k.block[1], k.block[2], k.cluster[1], k.cluster[2]],
            [1; 4],
            "{}",
            k.name
        );
        let blocks = grid[0] * grid[1];
        let arg = k.arg(n).expect("kernels with a body take an argument");
        let shape = Launch::new(blocks, k.threads(), k.shared_bytes).with_cluster(k.cluster[0]);
        launch(shape, |t| entry(t, &inp, &out, arg, grid))
            .unwrap_or_else(|err| panic!("{}: {}", k.name, err));
        for (i, x) in expected.chunks(e).enumerate() {
            let want = x.iter().rev().fold(0u64, |a, &b| (a << 8) | b as u64);
            assert_eq!(out.get(i), want, "{}: element {}", k.name, i);
        }
        simulated.push(k.name);
    }
    // Only the kernels whose whole code is nvptx-only may be missing.
    let missing: Vec<_> = KERNELS
        .iter()
        .map(|k| k.name)
        .filter(|n| !simulated.contains(n))
        .collect();
    assert_eq!(missing, ["copy_v4", "index_kernel"]);
}

/// The table names exactly the `.entry` symbols of the PTX, when `cargo xtask ptx` has written
/// one newer than the kernels' sources (a stale or missing PTX is skipped, with a note).
#[test]
fn table_names_are_the_ptx_entries() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let ptx = root.join("../target/ptx/kernels.ptx");
    let modified = |p: &std::path::Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let Some(built) = modified(&ptx) else {
        eprintln!(
            "no {}: run `cargo xtask ptx` to check the table's names",
            ptx.display()
        );
        return;
    };
    let sources = std::fs::read_dir(root.join("src")).expect("kernels/src");
    if sources
        .filter_map(|f| modified(&f.ok()?.path()))
        .any(|m| m > built)
    {
        eprintln!("{} is older than kernels/src: not checked", ptx.display());
        return;
    }
    let text = std::fs::read_to_string(&ptx).expect("PTX");
    let mut entries: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix(".visible .entry "))
        .map(|l| l.split('(').next().unwrap_or(l).trim())
        .collect();
    let mut names: Vec<&str> = kernels::table::KERNELS.iter().map(|k| k.name).collect();
    entries.sort_unstable();
    names.sort_unstable();
    assert_eq!(names, entries);
}
