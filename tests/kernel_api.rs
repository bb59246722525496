//! The device API as a kernel sees it, on the simulator: `#[kernel]` functions and their launch
//! descriptions, 1-D/2-D/3-D indices with CUDA's warp numbering, and `Tile` loads and stores in
//! the widest vectors a layout allows.

use linear_layouts::sim::{launch, HostMemory, IssueKind, Launch, Place};
use linear_layouts::{
    convert, kernel, layout, Bf16, BlocksMut, Element, Global, GlobalMut, Registers, Thread, Tile,
    Tiles, ViewMut, F16,
};

layout! {
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    Cols = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
    RowSums = slice(dim = 1, parent = Rows) for [64];
    ColSums = slice(dim = 0, parent = Cols) for [64];
    Rows8 = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    Rows16 = blocked(sizePerThread = [1, 16], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 128];
    // Rows's threads over half its rows: blocks 32 long along a B panel's K.
    RowsK32 = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [32, 64];
    Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]) for [64, 64];
    // Registers 0 and 1 are consecutive columns, but lane 0 moves by one column too: pairs are
    // not aligned, so loads are scalar.
    Odd = linear(register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]], block = []) for [16, 32];
    Odd2 = linear(register = [[0, 1], [0, 2]], lane = [[0, 5], [0, 8], [0, 16], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]], block = []) for [16, 32];
}

#[test]
fn vector_widths_follow_the_layout_and_the_element() {
    assert_eq!(Tile::<Rows, f32, 32>::VECTOR, (1, 4));
    assert_eq!(Tile::<Rows, u16, 32>::VECTOR, (1, 4));
    assert_eq!(Tile::<Cols, f32, 32>::VECTOR, (0, 4));
    assert_eq!(Tile::<Rows8, u16, 32>::VECTOR, (1, 8));
    // 16 bytes at most: 8 f32 in a row are two vectors.
    assert_eq!(Tile::<Rows8, f32, 32>::VECTOR, (1, 4));
    assert_eq!(Tile::<Rows16, u8, 64>::VECTOR, (1, 16));
    assert_eq!(Tile::<Rows16, f64, 64>::VECTOR, (1, 2));
    // The MMA accumulator holds pairs of columns.
    assert_eq!(Tile::<Acc, f32, 32>::VECTOR, (1, 2));
    assert_eq!(Tile::<Odd, f32, 4>::VECTOR, (1, 4));
    assert_eq!(Tile::<Odd2, f32, 4>::VECTOR, (1, 1));
}

fn poisoned(n: usize) -> HostMemory {
    HostMemory::new((0..n).map(|_| u64::MAX))
}

/// `out = in^T` for a 64x64 f32 tile: load rows, convert, store columns.
#[kernel(block = Rows::THREADS, shared = convert!(Rows => Cols, f32).cost.shared_bytes, extent(out = [64, 64]))]
fn tile_transpose(t: &impl Thread, inp: Tiles<f32, Rows>, out: BlocksMut<f32, Cols, true>) {
    let b = Tile::<Cols, f32, 32>::new(convert!(Rows => Cols, f32).run(t, &inp.load(t).values));
    // Element (i, j) to (j, i): the block of the output's transpose, where Cols' fast dim (0)
    // has stride 1.
    out.store(t, &b);
}

/// The same transpose of halves, as the kernels' own `F16`: no detour through `u16`.
#[kernel(block = Rows8::THREADS, shared = convert!(Rows8 => Cols, F16).cost.shared_bytes, extent(out = [64, 64]))]
fn tile_transpose_f16(t: &impl Thread, inp: Tiles<F16, Rows8>, out: BlocksMut<F16, Cols, true>) {
    let b = Tile::<Cols, F16, 32>::new(convert!(Rows8 => Cols, F16).run(t, &inp.load(t).values));
    out.store(t, &b);
}

#[test]
fn sixteen_bit_floats_convert_as_themselves() {
    let inp = HostMemory::new((0..64 * 64).map(|i| F16::from_f32(i as f32).0 as u64));
    let out = poisoned(64 * 64);
    let l = Launch::new(
        1,
        TILE_TRANSPOSE_F16.threads(),
        TILE_TRANSPOSE_F16.shared_bytes(),
    );
    launch(l, |t| {
        tile_transpose_f16(t, inp.tiles(), out.blocks_mut(64))
    })
    .expect("simulator");
    for i in 0..64 {
        for j in 0..64 {
            assert_eq!(out.get(j * 64 + i), inp.get(i * 64 + j), "({}, {})", i, j);
        }
    }
    // A bf16 plan is a 16-bit plan: the same cost as u16's.
    assert_eq!(
        convert!(Rows8 => Cols, Bf16).cost,
        convert!(Rows8 => Cols, u16).cost
    );
}

#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "the stride check is a debug assertion, compiled out of optimised kernels"
)]
fn a_tile_whose_fast_dim_is_not_contiguous_is_refused() {
    let out = poisoned(64 * 64);
    let r = launch(Launch::new(1, 128, 0), |t| {
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        unsafe {
            Tile::<Rows, f32, 32>::new([0.0; 32]).store(t, &out.global_mut(), [0, 0], [1, 64])
        };
    });
    let err = r.expect_err("strides");
    let i = &err.issues[0];
    assert!(
        i.kind == IssueKind::Panic && i.message.contains("stride 1"),
        "{:?}",
        err
    );
}

#[test]
fn tiles_round_trip_through_global_memory() {
    let inp = HostMemory::new((0..64 * 64).map(|i| (i as f32).to_bits() as u64));
    let out = poisoned(64 * 64);
    let l = Launch::new(1, TILE_TRANSPOSE.threads(), TILE_TRANSPOSE.shared_bytes());
    launch(l, |t| tile_transpose(t, inp.tiles(), out.blocks_mut(64))).expect("simulator");
    for i in 0..64 {
        for j in 0..64 {
            assert_eq!(out.get(j * 64 + i), inp.get(i * 64 + j), "({}, {})", i, j);
        }
    }
    assert_eq!(TILE_TRANSPOSE.name(), "tile_transpose");
    assert_eq!(TILE_TRANSPOSE.block(), [128, 1, 1]);
}

#[test]
fn a_misaligned_tile_is_reported_not_silently_wrong() {
    let inp = HostMemory::new((0..64 * 65).map(|i| i as u64));
    let out = poisoned(64 * 65);
    // A row stride of 65 puts every other row's vectors off their 16-byte alignment.
    let r = launch(Launch::new(1, 128, 0), |t| {
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        let a = unsafe { Tile::<Rows, f32, 32>::load(t, &inp.global(), [0, 0], [65, 1]) };
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        unsafe { a.store(t, &out.global_mut(), [0, 0], [65, 1]) };
    });
    let err = r.expect_err("unaligned vectors");
    // Row 1 starts at element 65 (byte 260): thread 16's first vector is its first misaligned one.
    let first = &err.issues[0];
    assert_eq!(first.kind, IssueKind::Misaligned, "{}", err);
    assert_eq!(
        first.place,
        Some(Place {
            block: 0,
            thread: 16
        }),
        "{}",
        err
    );
    assert!(
        first
            .message
            .contains("misaligned global load of 16 bytes at byte 260 (element 65)"),
        "{}",
        err
    );
    assert!(
        err.issues.iter().all(|i| i.kind == IssueKind::Misaligned),
        "{}",
        err
    );
}

/// Each thread writes its indices and warp: a 3-D block of 4 x 4 x 8 threads has 4 warps,
/// numbered as CUDA numbers them (x fastest).
#[kernel(block = [4, 4, 8], block_dims = 3, extent(out = [n]))]
fn indices(t: &impl Thread, out: ViewMut<u32, 1>, n: u32) {
    let [x, y, z] = t.thread_idx();
    let [bx, by, bz] = t.block_idx();
    let [gx, gy, _] = t.grid_dim();
    let block = bx + gx * (by + gy * bz);
    let linear = x + 4 * (y + 4 * z);
    let i = (block * 128 + linear) * 3;
    // SAFETY: each thread writes its own three elements.
    unsafe {
        out.store_one([i], t.warp());
        out.store_one([i + 1], t.lane());
        out.store_one([i + 2], block);
    }
}

#[test]
fn three_d_blocks_number_warps_as_cuda_does() {
    let grid = [2, 3, 2];
    let out = poisoned(12 * 128 * 3);
    let l = Launch::dims(grid, INDICES.block(), 0);
    launch(l, |t| {
        indices(t, out.view_mut([12 * 128 * 3]), 12 * 128 * 3)
    })
    .expect("simulator");
    for b in 0..12u64 {
        for tid in 0..128u64 {
            let i = ((b * 128 + tid) * 3) as usize;
            assert_eq!(
                [out.get(i), out.get(i + 1), out.get(i + 2)],
                [tid / 32, tid % 32, b]
            );
        }
    }
}

#[test]
fn launch_shapes_that_do_not_add_up_are_refused() {
    let mut l = Launch::dims([2, 2, 1], [64, 1, 1], 0);
    l.blocks = 3;
    let err = launch(l, |_| {}).expect_err("inconsistent");
    assert_eq!(err.issues[0].kind, IssueKind::Launch, "{:?}", err);
    assert!(err.issues[0].message.contains("Launch::dims"), "{:?}", err);
}

/// Features are additive: with `sim` on (the facade's default), the pointer constructors a GPU
/// build has are here too, and a pointer-backed tensor reads host memory as a kernel would.
#[test]
fn pointer_tensors_exist_with_the_simulator_on() {
    let data: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let mut out = vec![0f32; 64];
    // SAFETY: both buffers outlive the tensors and hold every index used below.
    let (g, o) = unsafe {
        (
            Global::<f32>::from_ptr(data.as_ptr()),
            GlobalMut::<f32>::from_ptr(out.as_mut_ptr()),
        )
    };
    for i in 0..64 {
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        unsafe { o.store1(i, g.load1(i) * 2.0) };
    }
    assert!(out.iter().enumerate().all(|(i, &x)| x == 2.0 * i as f32));
}

/// A masked load and store of tile `L` (`N` registers of `E`, 128 threads) at origin (1, 2) of
/// a tensor one row and column larger than the tile, cut two rows and one column short: each
/// register holds the element the layout puts there, or `other` outside, and the store writes
/// back exactly the elements inside.
fn masked_round_trip<L: Registers<N>, E: Element, const N: usize>() {
    let (rows, cols) = (L::SHAPE[0] + 1, L::SHAPE[1] + 1);
    let (bounds, origin) = ([rows - 3, cols - 2], [1u32, 2]);
    let inp = HostMemory::new((0..rows * cols).map(|i| i as u64));
    let out = poisoned((rows * cols) as usize);
    let seen = poisoned(128 * N);
    launch(Launch::new(1, 128, 0), |t| {
        let other = E::from_bits(7);
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        let a = unsafe {
            Tile::<L, E, N>::load_masked(t, &inp.global(), origin, [cols, 1], bounds, other)
        };
        let at = (t.warp() * 32 + t.lane()) as usize * N;
        for (r, v) in a.values.iter().enumerate() {
            // SAFETY: host memory checks every access (the simulator reports one outside it).
            unsafe { seen.global_mut().store1(at + r, v.to_bits()) };
        }
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        unsafe { a.store_masked(t, &out.global_mut(), origin, [cols, 1], bounds) };
    })
    .expect("simulator");
    for thread in 0..128u32 {
        for r in 0..N as u32 {
            let c = [0, 1].map(|d| origin[d] + L::coord([r, thread % 32, thread / 32, 0], d));
            let inside = c[0] < bounds[0] && c[1] < bounds[1];
            let want = if inside { c[0] * cols + c[1] } else { 7 };
            let got = seen.get(thread as usize * N + r as usize);
            assert_eq!(got, want as u64, "{} thread {thread} register {r}", L::NAME);
        }
    }
    for i in 0..rows * cols {
        let (y, x) = (i / cols, i % cols);
        let inside = (1..bounds[0]).contains(&y) && (2..bounds[1]).contains(&x);
        let want = if inside { i as u64 } else { u64::MAX };
        assert_eq!(out.get(i as usize), want, "{} element {i}", L::NAME);
    }
}

#[test]
fn masked_tiles_land_where_the_layout_says() {
    // Registers and threads on disjoint bits (each register's address is the thread's plus a
    // constant): vectors of 4 (u32), of 2 (u64: register 2's offset is a constant along the
    // row), and an MMA accumulator whose registers also step down rows (a constant times the
    // row stride).
    masked_round_trip::<Odd, u32, 4>();
    masked_round_trip::<Odd, u64, 4>();
    masked_round_trip::<Acc, u32, 32>();
    // A layout whose lane basis [0, 5] shares a bit with a register's: one address each.
    masked_round_trip::<Odd2, u32, 4>();
}

/// Tiles' operators on the simulator: each register of every result against the same arithmetic
/// on its coordinates, for tile-tile, tile-scalar and scalar-tile forms, the compound
/// assignments, unary minus and not, and the comparisons as masks for `select`.
#[test]
fn tile_operators_act_element_by_element() {
    launch(Launch::new(1, 128, 0), |t| {
        let a = Tile::<Rows, i32, 32>::from_coords(t, |[i, j]| (7 * i + j) as i32 - 200);
        let b = Tile::<Rows, i32, 32>::from_coords(t, |[i, j]| (i % 5 + j % 3) as i32 + 1);
        let x = Tile::<Rows, f32, 32>::from_coords(t, |[i, j]| i as f32 - 0.5 * j as f32);
        let mut acc = a;
        acc += b;
        acc *= 3;
        let mask = a.lt(b) & x.ge(0.0) | !a.not_equal(-200);
        let picked = x.select(&(b.gt(2) ^ x.le(x)), -x * 2.0);
        for r in 0..32 {
            let (va, vb, vx) = (a.values[r], b.values[r], x.values[r]);
            assert_eq!((a + b).values[r], va + vb);
            assert_eq!((a - 5).values[r], va - 5);
            assert_eq!((10 - a).values[r], 10 - va);
            assert_eq!((a * b).values[r], va * vb);
            assert_eq!((a / b).values[r], va / vb);
            assert_eq!((a % b).values[r], va % vb);
            assert_eq!((-a).values[r], -va);
            assert_eq!((1.0 / (x * x + 1.0)).values[r], 1.0 / (vx * vx + 1.0));
            assert_eq!(acc.values[r], (va + vb) * 3);
            assert_eq!(mask.values[r], va < vb && vx >= 0.0 || va == -200);
            let want = if (vb > 2) ^ (vx <= vx) { vx } else { -vx * 2.0 };
            assert_eq!(picked.values[r], want);
            assert_eq!(a.equal(b).values[r], va == vb);
        }
        // Whole tiles compare and print whatever their layout type derives.
        assert_eq!(a + b - b, a);
        assert_ne!(a + 1, a);
        assert!(format!("{:?}", x).starts_with("Tile { layout: \"Rows\", values: ["));
    })
    .expect("no simulator issue");
}

layout! {
    // 8 rows over 32 lanes (lane bits 3 and 4 copies), 4 warps along the columns: its row
    // sums' slice is held by 4 warps x 32 lanes, each row by 16 threads.
    Bcast = blocked(sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [1, 0]) for [8, 16];
    BcastSum = slice(dim = 1, parent = Bcast) for [8];
    // Rows over lanes 3-4 and warp 0, columns over lanes 0-2 and warp 1: a row's 16 threads
    // hold its sum, and the one at column 0 (the parent's coordinate) stores it.
    Stats = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]) for [8, 64];
    StatsSum = slice(dim = 1, parent = Stats) for [8];
    // Copies in registers (bit 1), lanes (bits 3, 4) and warps (both bits).
    Wrapped = linear(register = [[0, 1], [0, 0]], lane = [[1, 0], [2, 0], [4, 0], [0, 0], [0, 0]], warp = [[0, 0], [0, 0]], block = []) for [8, 2];
}

/// A store writes each element once, whichever registers, lanes and warps hold copies of it
/// (the simulator's memory counts every store to every element).
#[test]
fn stores_write_each_element_once() {
    let sums = poisoned(8);
    let wrapped = poisoned(16);
    let masked = poisoned(8);
    let stats = poisoned(8);
    let scratch = linear_layouts::reduce::shared_bytes::<Bcast, 1, f32>()
        .max(linear_layouts::reduce::shared_bytes::<Stats, 1, f32>());
    launch(Launch::new(1, 128, scratch), |t| {
        let y = Tile::<Stats, f32, _>::from_coords(t, |[i, j]| (i * 64 + j) as f32);
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        unsafe { y.sum::<1>(t).store(t, &stats.global_mut(), [0], [1]) };
        let x = Tile::<Bcast, f32, 4>::from_coords(t, |[i, j]| (i * 16 + j) as f32);
        let s: Tile<BcastSum, f32, 1> = x.reduce::<1>(t, |a, b| a + b);
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        unsafe { s.store(t, &sums.global_mut(), [0], [1]) };
        let w = Tile::<Wrapped, f32, 4>::from_coords(t, |[i, j]| (2 * i + j) as f32);
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        unsafe { w.store(t, &wrapped.global_mut(), [0, 0], [2, 1]) };
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        unsafe { s.store_masked(t, &masked.global_mut(), [0], [1], [5]) };
    })
    .expect("no simulator issue");
    for i in 0..8 {
        let want = (0..16).map(|j| (i * 16 + j) as f32).sum::<f32>();
        assert_eq!(f32::from_bits(sums.get(i) as u32), want);
        assert_eq!(sums.stores(i), 1, "element {}", i);
        assert_eq!(masked.stores(i), (i < 5) as u32, "masked element {}", i);
        let want = (0..64).map(|j| (i * 64 + j) as f32).sum::<f32>();
        assert_eq!(f32::from_bits(stats.get(i) as u32), want);
        assert_eq!(stats.stores(i), 1, "row {}'s statistic", i);
    }
    for i in 0..16 {
        assert_eq!(wrapped.stores(i), 1, "element {}", i);
        assert_eq!(f32::from_bits(wrapped.get(i) as u32), i as f32);
    }
}

layout! {
    Flat8 = blocked(sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]) for [256];
}

/// `Tile::to` converts each register as Rust's `as` or the 16-bit floats' rounding does (nearest,
/// ties to even; two at a time on the GPU): values on both sides of each rounding and cast edge.
#[test]
fn to_converts_each_register() {
    let tie_even = 1.0 + f32::powi(2.0, -11); // halfway between two f16s: rounds to 1.0
    let tie_odd = 1.0 + 3.0 * f32::powi(2.0, -11); // halfway: rounds up to 1 + 2^-9
    let xs = [tie_even, tie_odd, -2.7, 1e10, f32::NAN, -1e10, 65520.0, 3.5];
    launch(Launch::new(1, 32, 0), |_| {
        let x = Tile::<Flat8, f32, 8>::new(xs);
        let h = x.to::<F16>();
        let want: Vec<F16> = xs.iter().map(|&v| F16::from_f32(v)).collect();
        assert_eq!(h.values.to_vec(), want);
        assert_eq!(h.values[0].to_f32(), 1.0);
        assert_eq!(h.values[1].to_f32(), 1.0 + f32::powi(2.0, -9));
        assert!(h.values[6].to_f32().is_infinite());
        assert_eq!(h.to::<f32>().values[7], 3.5);
        let b = h.to::<Bf16>();
        assert_eq!(b.values[7].to_f32(), 3.5);
        // -2.7 as f16 is -2.69921875, which bf16's 8 bits of mantissa round to -2.703125.
        assert_eq!(b.values[2].to_f32(), -2.703125);
        assert_eq!(b.to::<F16>().values[2].to_f32(), -2.703125);
        let i = x.to::<i32>();
        assert_eq!(i.values, [1, 1, -2, i32::MAX, 0, i32::MIN, 65520, 3]);
        assert_eq!(i.to::<u32>().values[2], (-2i32) as u32);
        assert_eq!(i.to::<f32>().values[3], 2147483648.0);
    })
    .unwrap();
}

/// A tile minus a tile of its slice subtracts each row's (or column's) value from that row (or
/// column), and compares with it: Triton's `x - s[:, None]` and `x < s[None, :]`.
#[test]
fn operators_broadcast_a_slice_along_its_dim() {
    let x = HostMemory::new((0..64 * 64).map(|i| (i as f32).to_bits() as u64));
    let (d, below) = (poisoned(64 * 64), poisoned(64 * 64));
    let (dc, belowc) = (poisoned(64 * 64), poisoned(64 * 64));
    launch(Launch::new(1, 128, 0), |t| {
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        let v = unsafe { Tile::<Rows, f32, 32>::load(t, &x.global(), [0, 0], [64, 1]) };
        let s = v.sum::<1>(t);
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        unsafe { (v - s).store(t, &d.global_mut(), [0, 0], [64, 1]) };
        let mask = v.lt(s / 64.0);
        let below_ = Tile::splat(1.0f32).select(&mask, 0.0);
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        unsafe { below_.store(t, &below.global_mut(), [0, 0], [64, 1]) };
        // Column-major: element (i, j) of the tile at 64 j + i.
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        let c = unsafe { Tile::<Cols, f32, 32>::load(t, &x.global(), [0, 0], [1, 64]) };
        let m = c.max::<0>(t);
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        unsafe { (c - m).store(t, &dc.global_mut(), [0, 0], [1, 64]) };
        let mask = c.ge(m);
        let below_ = Tile::splat(1.0f32).select(&mask, 0.0);
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        unsafe { below_.store(t, &belowc.global_mut(), [0, 0], [1, 64]) };
    })
    .expect("simulator");
    let f = |m: &HostMemory, i: usize| f32::from_bits(m.get(i) as u32);
    for i in 0..64 {
        let row_sum = (0..64).map(|j| (64 * i + j) as f32).sum::<f32>();
        for j in 0..64 {
            let at = 64 * i + j;
            assert_eq!(f(&d, at), at as f32 - row_sum, "row {} col {}", i, j);
            assert_eq!(
                f(&below, at),
                if j < 32 { 1.0 } else { 0.0 },
                "row {} col {}",
                i,
                j
            );
            // The column-major tile's column i is memory row i: its max is at 64 i + 63.
            assert_eq!(
                f(&dc, at),
                at as f32 - (64 * i + 63) as f32,
                "row {} col {}",
                i,
                j
            );
            assert_eq!(
                f(&belowc, at),
                if j == 63 { 1.0 } else { 0.0 },
                "row {} col {}",
                i,
                j
            );
        }
    }
}

/// Tensor views on the simulator: a tile loads and stores by its origin alone, masked against the
/// view's shape (tails read as `other`, nothing written outside), each element stored once, with
/// row-major, strided and aligned views; the same values as the masked loads with the triplets.
mod views {
    use linear_layouts::sim::{launch, HostMemory, Launch};
    use linear_layouts::{layout, Thread, Tile};

    layout! {
        Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
        RowSums = slice(dim = 1, parent = Rows) for [16];
        // Dim 0 contiguous: a column-major tensor's tile.
        Cols = blocked(sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]) for [32, 16];
    }

    fn memory(n: usize, f: impl Fn(usize) -> f32) -> HostMemory {
        HostMemory::new((0..n).map(|i| f(i).to_bits() as u64))
    }

    fn value(m: &HostMemory, i: usize) -> f32 {
        f32::from_bits(m.get(i) as u32)
    }

    /// Views derived from a view stay inside it: a window of rows past the end is cut short, a
    /// vector as every row reads the same row, one-element accesses are masked by the shape.
    #[test]
    fn derived_views_and_single_elements_stay_inside() {
        let x = memory(8 * 32, |i| i as f32);
        let w = memory(32, |i| 1000.0 + i as f32);
        let y = memory(8 * 32 + 1, |_| -1.0);
        launch(Launch::new(1, 128, 0), |t| {
            // Rows 6..10 of 8: two rows inside, the rest `other`.
            let v = x.view::<f32, 2>([8, 32]).rows(6, 4);
            assert_eq!(v.shape(), [2, 32]);
            let want = |[i, j]: [u32; 2]| {
                if i < 2 {
                    ((6 + i) * 32 + j) as f32
                } else {
                    -7.0
                }
            };
            assert_eq!(v.load::<Rows>(t, [0, 0], -7.0), Tile::from_coords(t, want));
            // A window of a window starts at the sum of their rows, and transposing it keeps
            // that start: its column `j` is row `3 + j` of `x`.
            let tw = x.view::<f32, 2>([8, 32]).rows(2, 6).rows(1, 4).transpose();
            assert_eq!(tw.shape(), [32, 4]);
            let want_t = |[i, j]: [u32; 2]| {
                if j < 4 {
                    ((3 + j) * 32 + i) as f32
                } else {
                    -7.0
                }
            };
            assert_eq!(
                tw.load::<Cols>(t, [0, 0], -7.0),
                Tile::from_coords(t, want_t)
            );
            assert_eq!(tw.load_one([31, 3], 0.0), (6 * 32 + 31) as f32);
            // A window of a vector, as every row: row `i`'s element `j` is the vector's `5 + j`.
            let wr = w.view::<f32, 1>([32]).rows(5, 20).as_rows();
            let want_w = |[_, j]: [u32; 2]| if j < 20 { 1005.0 + j as f32 } else { 0.0 };
            assert_eq!(
                wr.load::<Rows>(t, [3, 0], 0.0),
                Tile::from_coords(t, want_w)
            );
            // A tile far past the end reads nothing, though its rows' indices would not fit a
            // u32.
            let far = x
                .view::<f32, 2>([8, 32])
                .load::<Rows>(t, [1 << 28, 0], -7.0);
            assert_eq!(far, Tile::splat(-7.0));
            // So does one whose origin plus a thread's coordinate would pass u32::MAX.
            for origin in [[u32::MAX - 2, 0], [0, u32::MAX - 1]] {
                let edge = x.view::<f32, 2>([8, 32]).load::<Rows>(t, origin, -7.0);
                assert_eq!(edge, Tile::splat(-7.0));
            }
            // A window starting past the end is empty.
            assert_eq!(x.view::<f32, 2>([8, 32]).rows(9, 4).shape(), [0, 32]);
            let r = w
                .view::<f32, 1>([32])
                .as_rows()
                .load::<Rows>(t, [5, 0], 0.0);
            assert_eq!(r, Tile::from_coords(t, |[_, j]| 1000.0 + j as f32));
            let one = x.view::<f32, 2>([8, 32]);
            assert_eq!(one.load_one([7, 31], 0.0), (7 * 32 + 31) as f32);
            assert_eq!(one.load_one([8, 0], -3.0), -3.0);
            assert_eq!(one.load_one([0, 32], -3.0), -3.0);
            if t.warp() == 0 && t.lane() == 0 {
                let out = y.view_mut::<f32, 2>([8, 32]);
                // SAFETY: one thread stores.
                unsafe {
                    out.store_one([7, 31], 5.0);
                    out.store_one([8, 0], 6.0);
                    out.store_one([0, 32], 6.0);
                }
            }
        })
        .expect("simulator");
        assert_eq!(value(&y, 7 * 32 + 31), 5.0);
        // Nothing stored outside the shape: the element past the tensor and (0, 32) = (1, 0).
        assert_eq!((value(&y, 8 * 32), value(&y, 32)), (-1.0, -1.0));
    }

    /// A window of a view a kernel writes stores at its own rows, transposed too, and each
    /// element once: the rest of the buffer is untouched.
    #[test]
    fn stores_through_a_window_land_at_its_rows() {
        let y = memory(8 * 32, |_| -1.0);
        launch(Launch::new(1, 128, 0), |t| {
            // Rows 2..6 of 8, transposed: element [i, j] is y's [2 + j, i].
            let w = y.view_mut::<f32, 2>([8, 32]).rows(2, 4).transpose();
            let tile = Tile::<Cols, f32, _>::from_coords(t, |[i, j]| (i * 100 + j) as f32);
            // SAFETY: one CTA stores.
            unsafe { w.store(t, [0, 0], &tile) };
            t.sync_block();
            if t.warp() == 0 && t.lane() == 0 {
                // SAFETY: one thread stores, ordered after the tile's store by the barrier.
                unsafe { w.store_one([31, 3], 7.5) };
            }
        })
        .expect("simulator");
        for r in 0..8u32 {
            for c in 0..32u32 {
                let want = match (r, c) {
                    (5, 31) => 7.5,
                    (2..=5, _) => (c * 100 + (r - 2)) as f32,
                    _ => -1.0,
                };
                assert_eq!(value(&y, (r * 32 + c) as usize), want, "y[{r}, {c}]");
            }
        }
    }

    /// A batch's matrices start at rows of the buffer: matrix 1 of `[3, 32]` matrices is rows
    /// 3..6. A batch of empty matrices starts past a u32 and reaches nothing, windows of it too.
    #[test]
    fn batch_matrices_start_at_their_rows() {
        use linear_layouts::Batch;
        let x = memory(2 * 3 * 32, |i| i as f32);
        let empty = memory(1, |_| 5.0);
        launch(Launch::dims([1, 2, 1], [128, 1, 1], 0), |t| {
            let m = Batch::<f32>::host(&x, [3, 32]).matrix(t);
            let by = t.block_idx()[1];
            let want = |[i, j]: [u32; 2]| {
                if i < 3 {
                    ((by * 3 + i) * 32 + j) as f32
                } else {
                    -7.0
                }
            };
            assert_eq!(m.load::<Rows>(t, [0, 0], -7.0), Tile::from_coords(t, want));
            assert_eq!(m.load_one([2, 31], 0.0), ((by * 3 + 2) * 32 + 31) as f32);
            let e = Batch::<f32>::host(&empty, [0xC000_0000, 0]).matrix(t);
            assert_eq!(e.load_one([0x8000_0000, 0], -1.0), -1.0);
            assert_eq!(e.rows(0xC000_0000, 1).shape(), [0, 0]);
        })
        .expect("simulator");
    }

    /// A view whose indices do not fit a u32 (host memory takes any shape) is reported at the
    /// first access that would wrap, not read at a wrapped index.
    #[test]
    fn an_index_past_a_u32_is_reported() {
        use linear_layouts::sim::IssueKind;
        let x = memory(1024, |i| i as f32);
        let r = launch(Launch::new(1, 128, 0), |t| {
            let _ = x
                .view::<f32, 2>([0x8000_0000, 32])
                .load::<Rows>(t, [1 << 27, 0], -7.0);
        });
        let e = r.expect_err("row 2^27 of 32-element rows is element 2^32");
        assert!(
            e.has(IssueKind::Panic) && e.to_string().contains("past a u32"),
            "{}",
            e
        );
    }

    /// A transposed view's dim 1 is not contiguous: a tile whose vectors run along it would
    /// reach past its elements, so the access is refused (a trap on the GPU), not made.
    #[test]
    fn vectors_across_a_transposed_view_are_refused() {
        use linear_layouts::sim::IssueKind;
        let x = memory(32 * 32, |i| i as f32);
        let r = launch(Launch::new(1, 128, 0), |t| {
            let _ = x
                .view::<f32, 2>([32, 32])
                .transpose()
                .load::<Rows>(t, [0, 0], 0.0);
        });
        let e = r.expect_err("Rows' vectors run along dim 1, stride 32 in the transposed view");
        assert!(
            e.has(IssueKind::Panic) && e.to_string().contains("stride 1"),
            "{}",
            e
        );
        // Cols' fast dim is 0, contiguous there: the transposed view loads.
        launch(Launch::new(1, 128, 0), |t| {
            let c = x
                .view::<f32, 2>([32, 32])
                .transpose()
                .load::<Cols>(t, [0, 0], 0.0);
            assert_eq!(c, Tile::from_coords(t, |[i, j]| (j * 32 + i) as f32));
        })
        .expect("simulator");
    }

    /// An `_aligned` view's tiles start on the vector: an origin off it is refused (a trap on
    /// the GPU), where a whole-vector access would be misaligned.
    #[test]
    fn an_aligned_view_refuses_an_origin_off_the_vector() {
        use linear_layouts::sim::IssueKind;
        let x = memory(16 * 64, |i| i as f32);
        let r = launch(Launch::new(1, 128, 0), |t| {
            let _ = x
                .view_aligned::<f32, 2>([16, 64])
                .load::<Rows>(t, [0, 1], 0.0);
        });
        let e = r.expect_err("column 1 is off Rows' 4-element vectors");
        assert!(
            e.has(IssueKind::Panic) && e.to_string().contains("multiples of the vector"),
            "{}",
            e
        );
        launch(Launch::new(1, 128, 0), |t| {
            let v = x
                .view_aligned::<f32, 2>([16, 64])
                .load::<Rows>(t, [0, 32], 0.0);
            assert_eq!(v, Tile::from_coords(t, |[i, j]| (i * 64 + 32 + j) as f32));
        })
        .expect("simulator");
    }

    /// A 21 x 37 tensor in tiles of 16 x 32: every tile but the first has a masked tail.
    #[test]
    fn loads_and_stores_mask_against_the_shape() {
        let (rows, cols) = (21u32, 37u32);
        let x = memory((rows * cols) as usize, |i| i as f32);
        let y = memory((rows * cols) as usize, |_| -1.0);
        let sums = memory(rows as usize, |_| -1.0);
        launch(Launch::new(4, 128, 0), |t| {
            let b = t.block_idx()[0];
            let origin = [16 * (b / 2), 32 * (b % 2)];
            let (xv, yv) = (x.view([rows, cols]), y.view_mut([rows, cols]));
            let v = xv.load::<Rows>(t, origin, 0.5);
            // SAFETY: host memory checks every access (the simulator reports one outside it).
            let same = unsafe {
                Tile::<Rows, f32, 4>::load_masked(
                    t,
                    &x.global(),
                    origin,
                    [cols, 1],
                    [rows, cols],
                    0.5,
                )
            };
            assert_eq!(v, same);
            // SAFETY: each CTA stores its own tile of the shape.
            unsafe { yv.store(t, origin, &(v * 2.0)) };
            if b % 2 == 0 {
                // Row sums of the first 32 columns, stored once per row however many threads hold it.
                let s = v.sum::<1>(t);
                // SAFETY: each even CTA its own rows.
                unsafe { sums.view_mut([rows]).store(t, [origin[0]], &s) };
            }
        })
        .expect("simulator");
        for i in 0..(rows * cols) as usize {
            assert_eq!(value(&y, i), 2.0 * i as f32, "element {}", i);
            assert_eq!(y.stores(i), 1, "element {}", i);
        }
        for r in 0..rows as usize {
            let want: f32 = (0..32).map(|c| (r * cols as usize + c) as f32).sum();
            assert_eq!(value(&sums, r), want, "row {}", r);
            assert_eq!(sums.stores(r), 1, "row {}", r);
        }
    }

    /// A transposed view (`transpose`) reads the transpose; an aligned view (widths multiples of
    /// the vector) gives the same values.
    #[test]
    fn strided_and_aligned_views() {
        let x = memory(64 * 64, |i| i as f32);
        launch(Launch::new(1, 128, 0), |t| {
            let rows = x.view([64, 64]);
            let cols = rows.transpose();
            assert_eq!(
                (rows.shape(), rows.strides(), cols.strides()),
                ([64, 64], [64, 1], [1, 64])
            );
            let a = rows.load::<Rows>(t, [16, 32], 0.0);
            let b = x
                .view_aligned::<f32, 2>([64, 64])
                .load::<Rows>(t, [16, 32], 0.0);
            assert_eq!(a, b);
            assert_eq!(
                a,
                Tile::from_coords(t, |[i, j]| ((16 + i) * 64 + 32 + j) as f32)
            );
            // Element (i, j) of the column-major view is memory 64 j + i: Cols' fast dim is 0,
            // contiguous there, so it loads in vectors down the columns.
            let c = cols.load::<Cols>(t, [32, 16], 0.0);
            assert_eq!(
                c,
                Tile::from_coords(t, |[i, j]| ((16 + j) * 64 + 32 + i) as f32)
            );
        })
        .expect("simulator");
    }

    /// An `aligned` view whose shape breaks the promise (rows of 34 floats: the vector at
    /// columns 32..35 is cut by the tensor's edge) is reported by the simulator, and never
    /// reads past the tensor: the cut vector is skipped, not read whole.
    #[test]
    fn a_broken_aligned_promise_is_reported() {
        use linear_layouts::sim::IssueKind;
        let x = memory(16 * 34, |i| i as f32);
        let r = launch(Launch::new(1, 128, 0), |t| {
            let _ = x
                .view_aligned::<f32, 2>([16, 34])
                .load::<Rows>(t, [0, 32], 0.0f32);
        });
        let err = r.expect_err("a vector cut by the edge under the aligned promise");
        let first = &err.issues[0];
        assert_eq!(first.kind, IssueKind::Panic, "{}", err);
        assert!(
            first.message.contains(
                "an _aligned masked access: a vector of 4 elements has only 2 of them inside"
            ),
            "{}",
            err
        );
    }
}

/// The launcher's argument checks, which need no GPU: a kernel states what each buffer
/// parameter must hold (`#[kernel(extent(..))]`), and a launch whose buffers are smaller is
/// refused, naming the parameter, both sizes and the sizes it was computed from. `Module::launch`
/// runs `KernelSpec::check_args` on its arguments before anything reaches the driver.
mod launch_extents {
    use linear_layouts::runtime::kernel::{Arg, ExtentError};
    use linear_layouts::{
        kernel, layout, Blocks, BlocksMut, Global, GlobalMut, GroupedMut, PerThreadMut, Thread,
        Tile, Tiled, TiledMut, Tiles, TilesMut, Vectors, VectorsMut, View, ViewMut,
    };

    /// Copies `n_rows` rows of `n_cols` and sums each row into `sums`.
    #[kernel(block = 128, extent(x = n_rows * n_cols, y = n_rows * n_cols, sums = n_rows))]
    fn rows(
        t: &impl Thread,
        x: Global<f32>,
        y: GlobalMut<f32>,
        sums: GlobalMut<f32>,
        n_rows: u32,
        n_cols: u32,
    ) {
        let i = t.index_1d();
        if i < n_rows {
            let mut s = 0.0;
            for j in 0..n_cols {
                // SAFETY: the launcher checked the extents; thread i alone writes row i.
                let v = unsafe { x.load1((i * n_cols + j) as usize) };
                unsafe { y.store1((i * n_cols + j) as usize, v) };
                s += v;
            }
            // SAFETY: as above.
            unsafe { sums.store1(i as usize, s) };
        }
    }

    /// An extent over the grid: one element per thread of the whole launch.
    #[kernel(block = 128, extent(out = grid[0] * 128))]
    fn per_thread(t: &impl Thread, out: GlobalMut<u32>) {
        // SAFETY: the launcher checked one element per thread of the grid.
        unsafe { out.store1(t.index_1d() as usize, 1) };
    }

    /// Twice each element of an `n_rows x n_cols` view.
    #[kernel(block = 128, extent(x = [n_rows, n_cols], y = [n_rows, n_cols]))]
    fn scale(t: &impl Thread, x: View<f32, 2>, y: ViewMut<f32, 2>, n_rows: u32, n_cols: u32) {
        let i = t.index_1d();
        for j in 0..n_cols {
            // SAFETY: thread i alone writes row i.
            unsafe { y.store_one([i, j], 2.0 * x.load_one([i, j], 0.0)) };
        }
    }

    layout! {
        Block = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
        // One element at a time: stored transposed, it has no vectors to keep contiguous.
        Scalar = blocked(sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    }

    /// Twice each element, one 64x64 tile per CTA.
    #[kernel(block = 128)]
    fn tiles(t: &impl Thread, x: Tiles<f32, Block>, y: TilesMut<f32, Block>) {
        y.store(t, &(x.load(t) * 2.0));
    }

    /// `out = xᵀ` of an `n_rows x n_cols` matrix, one 64x64 block per CTA of a 2-D grid.
    #[kernel(block = 128, extent(x = [n_rows, n_cols], out = [n_cols, n_rows]))]
    fn blocks_t(
        t: &impl Thread,
        x: Blocks<f32, Scalar>,
        out: BlocksMut<f32, Scalar, true>,
        n_rows: u32,
        n_cols: u32,
    ) {
        out.store(t, &x.load(t));
    }

    /// A parameter named as the launcher's locals (`len`, `need`) is still the argument.
    #[kernel(block = 128, extent(x = [len]))]
    fn named_len(t: &impl Thread, x: View<f32, 1>, len: u32) {
        let _ = (t, x);
    }

    /// Twice each element of `n` 64x64 tiles, grid-stride.
    #[kernel(block = 128, extent(x = n, y = n))]
    fn tiled(t: &impl Thread, x: Tiled<f32, Block>, y: TiledMut<f32, Block>, n: u32) {
        twice(t, &x, &y)
    }

    /// `tiled`'s body, which a test calls with partitions of different counts: the launcher
    /// (and `#[kernel]` on the simulator) refuses those before any body runs.
    fn twice(t: &impl Thread, x: &Tiled<f32, Block>, y: &TiledMut<f32, Block>) {
        for k in y.each(t) {
            y.store(t, k, &(x.load(t, k) * 2.0));
        }
    }

    /// `y = x` over `n` 16-byte vectors, grid-stride over the grid's threads.
    #[kernel(block = 128, extent(x = n, y = n))]
    fn copy(t: &impl Thread, x: Vectors<u32, 4>, y: VectorsMut<u32, 4>, n: u32) {
        for k in y.each(t) {
            y.store(k, x.load(k));
        }
    }

    /// Each thread's index, twice and three times (12-byte vectors: three stores each).
    #[kernel(block = 128)]
    fn ids(t: &impl Thread, y: PerThreadMut<u32, 3>) {
        let i = t.index_1d();
        y.store(t, [i, 2 * i, 3 * i]);
    }

    /// Each 64x64 block of a `rows x cols` matrix filled with its origin's offset, persistent
    /// CTAs in grouped order.
    #[kernel(block = 128, extent(y = [rows, cols]))]
    fn grouped(t: &impl Thread, y: GroupedMut<f32, Block>, rows: u32, cols: u32) {
        for b in y.each(t) {
            let [i, j] = b.origin();
            y.store(t, b, &Tile::splat((i * cols + j) as f32));
        }
    }

    layout! {
        // Rows split between a cluster's 2 CTAs.
        PairOfCtas = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]) for [64, 64];
        // Fewer elements than threads: blocks of 4.
        Tiny = blocked(sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]) for [1, 4];
    }

    /// A tile of a cluster's loop stored into a partition of one CTA's layout: each CTA of the
    /// cluster would store all of it.
    #[kernel(block = 128, cluster = 2, extent(x = n, y = n))]
    fn cluster_tile_elsewhere(
        t: &impl Thread,
        x: TiledMut<f32, PairOfCtas>,
        y: TiledMut<f32, Block>,
        n: u32,
    ) {
        for k in x.each(t) {
            y.store(t, k, &Tile::splat(1.0));
        }
    }

    #[test]
    fn a_cluster_tile_is_stored_only_in_a_cluster_layout() {
        use linear_layouts::sim::{launch, HostMemory, IssueKind, Launch};
        let (x, y) = (
            HostMemory::new((0..4096).map(|_| 0)),
            HostMemory::new((0..4096).map(|_| 0)),
        );
        let e = launch(Launch::new(2, 128, 0).with_cluster(2), |t| {
            cluster_tile_elsewhere(t, x.tiled_mut(1), y.tiled_mut(1), 1)
        })
        .expect_err("both CTAs would store the tile");
        assert!(e.has(IssueKind::Panic), "{}", e);
        assert!(e.to_string().contains("another number of CTAs"), "{}", e);
    }

    /// Each refusal is read back from the need that stands for it, and no need a shape of
    /// `u32` dims has reads as one.
    #[test]
    fn refusals_round_trip_through_their_needs() {
        use linear_layouts::runtime::kernel::{shape_elements, Refused};
        let all = [
            Refused::Size,
            Refused::NotAligned,
            Refused::GridNot1D,
            Refused::Grid3D,
            Refused::LoopWraps,
            Refused::NotMatrix,
            Refused::CtasPastMatrix,
            Refused::NotWholeBlocks,
            Refused::Blocks,
            Refused::Group,
            Refused::Rank,
            Refused::TooFewCtas,
            Refused::RowShape,
            Refused::BatchGrid,
        ];
        for r in all {
            assert_eq!(Refused::of(r.need()), Some(r));
            let need = r.needing(u64::MAX);
            assert_eq!(
                (Refused::of(need), Refused::number(need)),
                (Some(r), u64::MAX)
            );
        }
        let most = shape_elements(&[u32::MAX as i128; 3]);
        assert_eq!(Refused::of(most), None);
        assert_eq!(Refused::of(0), None);
    }

    #[test]
    fn a_grouped_order_whose_group_passes_a_u32_is_refused() {
        use linear_layouts::runtime::kernel::grouped_elements;
        // Blocks of 4 columns: 2^29 blocks a row make a group of 2^32 blocks.
        let cols = 4 * (1i128 << 29);
        assert_eq!(
            grouped_elements::<Tiny>([10, 1, 1], [1, cols]),
            linear_layouts::runtime::kernel::Refused::Group.need()
        );
        assert_eq!(
            grouped_elements::<Tiny>([10, 1, 1], [1, cols - 4]),
            cols - 4
        );
    }

    /// Each row of 64-wide blocks of a `[64, 64 * grid.x]` matrix: a 1-D grid, said so.
    #[kernel(block = 128, grid_dims = 1, extent(y = [64, n]))]
    fn one_d(t: &impl Thread, y: BlocksMut<f32, Block>, n: u32) {
        y.store(t, &Tile::splat(t.block_idx()[1] as f32));
    }

    fn buffer(len: u64) -> Arg {
        Arg::Buffer { len }
    }

    #[test]
    fn a_simulator_launch_takes_the_kernels_shape() {
        use linear_layouts::sim::Launch;
        let l = Launch::of(&CLUSTER_TILE_ELSEWHERE, [4, 1, 1]);
        assert_eq!(
            (l.blocks, l.threads, l.cluster, l.warp_size),
            (4, 128, 2, 32)
        );
        let l = Launch::of(&ONE_D, [3, 1, 1]);
        assert_eq!(
            (l.grid_dim, l.block_dim, l.shared_bytes),
            ([3, 1, 1], [128, 1, 1], 0)
        );
    }

    /// No extents at all: the grid's dims are still checked.
    #[kernel(block = 128, grid_dims = 1)]
    fn one_d_no_extent(t: &impl Thread, x: u32) {
        let _ = (t, x);
    }

    #[test]
    fn a_grid_of_more_dims_than_declared_is_refused_without_extents() {
        assert!(ONE_D_NO_EXTENT
            .check_args(&[Arg::Int(1)], [4, 1, 1])
            .is_ok());
        let args = [Arg::Int(1)];
        let e = ONE_D_NO_EXTENT.check_args(&args, [1, 2, 1]).unwrap_err();
        assert!(e.to_string().contains("grid_dims = 1"), "{}", e);
    }

    #[test]
    fn a_grid_of_more_dims_than_declared_is_refused() {
        let args = [buffer(64 * 128), Arg::Int(128)];
        assert!(ONE_D.check_args(&args, [2, 1, 1]).is_ok());
        let e = ONE_D.check_args(&args, [1, 2, 1]).unwrap_err();
        assert_eq!(e.error.param, "grid");
        assert!(e.to_string().contains("grid_dims = 1"), "{}", e);
        assert!(ONE_D.check_args(&args, [2, 1, 2]).is_err());
    }

    #[test]
    fn thread_partitions_are_checked_against_their_count_and_the_grid() {
        let ten = [buffer(40), buffer(40), Arg::Int(10)];
        assert!(COPY.check_args(&ten, [3, 1, 1]).is_ok());
        let short = [buffer(40), buffer(39), Arg::Int(10)];
        let e = COPY.check_args(&short, [3, 1, 1]).unwrap_err();
        assert_eq!(e.error.param, "y");
        // A 2-D grid would give two threads one vector; a loop past u32 would wrap.
        assert!(COPY.check_args(&ten, [3, 2, 1]).is_err());
        let wraps = [
            buffer(1 << 40),
            buffer(1 << 40),
            Arg::Int(u32::MAX as i128 - 200),
        ];
        assert!(COPY.check_args(&wraps, [2, 1, 1]).is_err());
        // One 3-element vector per thread of 2 CTAs of 128.
        assert!(IDS.check_args(&[buffer(768)], [2, 1, 1]).is_ok());
        let short = [buffer(767)];
        let e = IDS.check_args(&short, [2, 1, 1]).unwrap_err();
        assert_eq!((e.error.need, e.error.len), (768, 767));
        assert!(IDS.check_args(&[buffer(1 << 20)], [2, 2, 1]).is_err());
    }

    #[test]
    fn thread_partitions_write_each_vector_once() {
        use linear_layouts::sim::{launch, HostMemory, Launch};
        // 2 CTAs of 128 threads over 1000 vectors: every thread takes 3 or 4.
        let x = HostMemory::new((0..4000).map(|i| i * 7 + 1));
        let y = HostMemory::new((0..4000).map(|_| 0));
        launch(Launch::new(2, 128, 0), |t| {
            copy(t, x.vectors(1000), y.vectors_mut(1000), 1000)
        })
        .expect("simulator");
        for i in 0..4000 {
            assert_eq!(
                (y.get(i), y.stores(i)),
                (i as u64 * 7 + 1, 1),
                "element {}",
                i
            );
        }
        let z = HostMemory::new((0..768).map(|_| 0));
        launch(Launch::new(2, 128, 0), |t| ids(t, z.per_thread_mut())).expect("simulator");
        for i in 0..768 {
            let (thread, k) = (i as u64 / 3, i as u64 % 3 + 1);
            assert_eq!((z.get(i), z.stores(i)), (k * thread, 1), "element {}", i);
        }
    }

    #[test]
    fn grouped_partitions_are_checked_against_their_blocks() {
        let args = [buffer(192 * 128), Arg::Int(192), Arg::Int(128)];
        // 6 blocks: up to 6 CTAs, 1-D.
        assert!(GROUPED.check_args(&args, [6, 1, 1]).is_ok());
        assert!(GROUPED.check_args(&args, [7, 1, 1]).is_err());
        assert!(GROUPED.check_args(&args, [3, 2, 1]).is_err());
        // A dim that is not whole blocks would leave elements unwritten.
        let cut = [buffer(1 << 20), Arg::Int(192), Arg::Int(100)];
        let e = GROUPED.check_args(&cut, [1, 1, 1]).unwrap_err();
        assert!(e.to_string().contains("not whole blocks"), "{}", e);
    }

    #[test]
    fn grouped_partitions_write_each_block_once() {
        use linear_layouts::sim::{launch, HostMemory, Launch};
        // 10 x 3 blocks (a short last group) over 4 persistent CTAs.
        let (rows, cols) = (640u32, 192u32);
        let y = HostMemory::new((0..rows * cols).map(|_| 0));
        launch(Launch::new(4, 128, 0), |t| {
            grouped(t, y.grouped_mut([rows, cols]), rows, cols)
        })
        .expect("simulator");
        for i in 0..rows {
            for j in 0..cols {
                let o = (i * cols + j) as usize;
                let origin = (i / 64 * 64) * cols + j / 64 * 64;
                assert_eq!(f32::from_bits(y.get(o) as u32), origin as f32, "({i}, {j})");
                assert_eq!(y.stores(o), 1, "({i}, {j})");
            }
        }
    }

    #[test]
    fn buffers_smaller_than_the_extents_are_refused() {
        // Rows of 1,024 over buffers of 1,024 elements: 4,000 rows reach 4,096,000 of them.
        let args = [
            buffer(1024),
            buffer(1024),
            buffer(4000),
            Arg::Int(4000),
            Arg::Int(1024),
        ];
        let e = ROWS.check_args(&args, [32, 1, 1]).unwrap_err();
        assert_eq!(
            e.error,
            ExtentError {
                index: 0,
                param: "x",
                expr: "n_rows * n_cols",
                need: 4_096_000,
                len: 1024
            }
        );
        assert_eq!(
            e.to_string(),
            "rows: parameter `x` is a buffer of 1024 elements, but the kernel reaches 4096000 of them \
             (its extent `n_rows * n_cols` with n_rows = 4000, n_cols = 1024): pass a buffer of at \
             least 4096000 elements, or smaller sizes"
        );
        // The output checked too, and the row sums against the rows.
        let args = [
            buffer(4_096_000),
            buffer(4_095_999),
            buffer(4000),
            Arg::Int(4000),
            Arg::Int(1024),
        ];
        assert_eq!(
            ROWS.check_args(&args, [32, 1, 1]).unwrap_err().error.param,
            "y"
        );
        let args = [
            buffer(4_096_000),
            buffer(4_096_000),
            buffer(3999),
            Arg::Int(4000),
            Arg::Int(1024),
        ];
        let e = ROWS.check_args(&args, [32, 1, 1]).unwrap_err().error;
        assert_eq!((e.param, e.need, e.len), ("sums", 4000, 3999));
    }

    #[test]
    fn buffers_that_hold_the_extents_pass() {
        let args = [
            buffer(4_096_000),
            buffer(4_096_000),
            buffer(4000),
            Arg::Int(4000),
            Arg::Int(1024),
        ];
        assert!(ROWS.check_args(&args, [32, 1, 1]).is_ok());
        // Larger buffers are fine; a product past u32 is computed without wrapping.
        let args = [
            buffer(1 << 40),
            buffer(1 << 40),
            buffer(1 << 20),
            Arg::Int(1 << 20),
            Arg::Int(1 << 20),
        ];
        assert!(ROWS.check_args(&args, [1, 1, 1]).is_ok());
        let args = [
            buffer(1 << 40),
            buffer(1 << 40),
            buffer(1 << 20),
            Arg::Int(1 << 20),
            Arg::Int(1 << 21),
        ];
        assert_eq!(
            ROWS.check_args(&args, [1, 1, 1]).unwrap_err().error.need,
            1 << 41
        );
        assert_eq!(ROWS.param_names(), ["x", "y", "sums", "n_rows", "n_cols"]);
    }

    #[test]
    fn extents_over_the_grid() {
        let args = [buffer(128 * 40)];
        assert!(PER_THREAD.check_args(&args, [40, 1, 1]).is_ok());
        let e = PER_THREAD.check_args(&args, [41, 1, 1]).unwrap_err();
        assert_eq!((e.error.need, e.error.len), (128 * 41, 128 * 40));
        assert!(
            e.to_string()
                .contains("its extent `grid[0] * 128` with grid = [41, 1, 1])"),
            "{}",
            e
        );
    }

    #[test]
    fn view_shapes_are_checked_against_the_buffers() {
        let args = [
            buffer(1024),
            buffer(1 << 30),
            Arg::Int(4000),
            Arg::Int(1024),
        ];
        let e = SCALE.check_args(&args, [32, 1, 1]).unwrap_err();
        assert_eq!(
            (e.error.param, e.error.need, e.error.len),
            ("x", 4_096_000, 1024)
        );
        assert!(
            e.to_string()
                .contains("its extent `[n_rows, n_cols]` with n_rows = 4000, n_cols = 1024"),
            "{}",
            e
        );
        let fits = [
            buffer(4_096_000),
            buffer(4_096_000),
            Arg::Int(4000),
            Arg::Int(1024),
        ];
        assert!(SCALE.check_args(&fits, [32, 1, 1]).is_ok());
        // A view's indices are u32: a shape of 2^33 elements is refused however large the
        // buffers, and so is a negative dim.
        let huge = [
            buffer(1 << 40),
            buffer(1 << 40),
            Arg::Int(1 << 20),
            Arg::Int(1 << 13),
        ];
        let e = SCALE.check_args(&huge, [1, 1, 1]).unwrap_err();
        let want = "scale: parameter `x`: its extent `[n_rows, n_cols]` with n_rows = 1048576, n_cols = 8192 is 8589934592 elements, past 2^32";
        assert!(e.to_string().contains(want), "{}", e);
        let negative = [buffer(1 << 40), buffer(1 << 40), Arg::Int(-1), Arg::Int(4)];
        let e = SCALE.check_args(&negative, [1, 1, 1]).unwrap_err();
        let want = "scale: parameter `x`: its extent `[n_rows, n_cols]` with grid = [1, 1, 1], n_rows = -1, n_cols = 4 refuses this launch: a size is negative or past a u32";
        assert!(e.to_string().contains(want), "{}", e);
        // Exactly 2^32 elements is the most a view may have.
        let most = [
            buffer(1 << 32),
            buffer(1 << 32),
            Arg::Int(1 << 16),
            Arg::Int(1 << 16),
        ];
        assert!(SCALE.check_args(&most, [1, 1, 1]).is_ok());
    }

    #[test]
    fn partitions_are_checked_against_the_grid() {
        let three = [buffer(3 * 4096), buffer(3 * 4096)];
        assert!(TILES.check_args(&three, [3, 1, 1]).is_ok());
        let e = TILES.check_args(&three, [4, 1, 1]).unwrap_err();
        assert_eq!(
            (e.error.param, e.error.need, e.error.len),
            ("x", 4 * 4096, 3 * 4096)
        );
        assert_eq!(
            e.to_string(),
            "tiles: parameter `x` is cut into one tile per CTA: 4 CTAs reach 16384 elements, but \
             the buffer holds 12288: pass a buffer of at least 16384 elements, or launch fewer CTAs"
        );
        let short_y = [buffer(3 * 4096), buffer(3 * 4096 - 1)];
        assert_eq!(
            TILES
                .check_args(&short_y, [3, 1, 1])
                .unwrap_err()
                .error
                .param,
            "y"
        );
        // CTAs of a 2-D grid would share tiles: refused.
        let e = TILES.check_args(&three, [1, 3, 1]).unwrap_err();
        assert!(e.to_string().contains("1-D grid"), "{}", e);
    }

    #[test]
    fn partitioned_kernels_write_each_element_once() {
        use linear_layouts::sim::{launch, HostMemory, Launch};
        let x = HostMemory::new((0..3 * 4096).map(|i| (i as f32).to_bits() as u64));
        let y = HostMemory::new((0..3 * 4096).map(|_| 0));
        launch(Launch::new(3, 128, 0), |t| {
            tiles(t, x.tiles(), y.tiles_mut())
        })
        .expect("simulator");
        for i in 0..3 * 4096 {
            assert_eq!(
                f32::from_bits(y.get(i) as u32),
                2.0 * i as f32,
                "element {}",
                i
            );
            assert_eq!(y.stores(i), 1, "element {}", i);
        }
    }

    #[test]
    fn grid_stride_partitions_are_checked_against_their_count() {
        let five = [buffer(5 * 4096), buffer(5 * 4096), Arg::Int(5)];
        assert!(TILED.check_args(&five, [2, 1, 1]).is_ok());
        let more = [buffer(5 * 4096), buffer(5 * 4096), Arg::Int(6)];
        let e = TILED.check_args(&more, [2, 1, 1]).unwrap_err();
        assert_eq!(
            (e.error.param, e.error.need, e.error.len),
            ("x", 6 * 4096, 5 * 4096)
        );
        assert!(e.to_string().contains("its extent `n` with n = 6"), "{}", e);
        // A 2-D grid would give a tile to two CTAs; a loop past u32 would wrap.
        assert!(TILED.check_args(&five, [2, 2, 1]).is_err());
        let wraps = [
            buffer(1 << 40),
            buffer(1 << 40),
            Arg::Int(u32::MAX as i128 - 1),
        ];
        assert!(TILED.check_args(&wraps, [2, 1, 1]).is_err());
    }

    /// Each CTA's tiles of `count` tiles of `L` (ordered by CTA): through a `for` loop, then
    /// through `for_each`.
    fn tiles_both_ways<L: linear_layouts::Layout>(
        launch: linear_layouts::sim::Launch,
        count: u32,
    ) -> Vec<(u32, Vec<u32>, Vec<u32>)> {
        use linear_layouts::runtime::tiles::tile_elements;
        use linear_layouts::sim::HostMemory;
        use std::sync::Mutex;
        let y = HostMemory::new((0..count as u64 * tile_elements::<L>()).map(|_| 0));
        let seen = Mutex::new(Vec::new());
        linear_layouts::sim::launch(launch, |t| {
            let y: TiledMut<f32, L> = y.tiled_mut(count);
            let (mut by_for, mut by_for_each) = (Vec::new(), Vec::new());
            for k in y.each(t) {
                by_for.push(k.get());
            }
            y.each(t).for_each(|k| by_for_each.push(k.get()));
            if t.warp() == 0 && t.lane() == 0 {
                seen.lock().unwrap().push((t.block(), by_for, by_for_each));
            }
        })
        .expect("simulator");
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        seen
    }

    /// `for_each` (the loop written with the step after the body) and a `for` loop give each
    /// CTA the same tiles: CTA `b` of 3 over 8 tiles, `b`, `b + 3`, ... below 8; over a
    /// cluster's 2 CTAs, 6 CTAs are 3 clusters, each CTA its cluster's tiles of 4, `b / 2`,
    /// `b / 2 + 3`.
    #[test]
    fn a_grid_stride_loop_gives_the_same_tiles_through_for_each() {
        use linear_layouts::sim::Launch;
        assert_eq!(
            tiles_both_ways::<Block>(Launch::new(3, 128, 0), 8),
            [
                (0, vec![0, 3, 6], vec![0, 3, 6]),
                (1, vec![1, 4, 7], vec![1, 4, 7]),
                (2, vec![2, 5], vec![2, 5]),
            ]
        );
        let each: [&[u32]; 6] = [&[0, 3], &[0, 3], &[1], &[1], &[2], &[2]];
        let want: Vec<_> = (0..6)
            .map(|b| (b as u32, each[b].to_vec(), each[b].to_vec()))
            .collect();
        assert_eq!(
            tiles_both_ways::<PairOfCtas>(Launch::new(6, 128, 0).with_cluster(2), 4),
            want
        );
    }

    #[test]
    fn grid_stride_partitions_give_each_tile_one_cta() {
        use linear_layouts::sim::{launch, HostMemory, IssueKind, Launch};
        let x = HostMemory::new((0..5 * 4096).map(|i| (i as f32).to_bits() as u64));
        let y = HostMemory::new((0..5 * 4096).map(|_| 0));
        // Two CTAs over five tiles: CTA 0 takes tiles 0, 2, 4; CTA 1 tiles 1, 3.
        launch(Launch::new(2, 128, 0), |t| {
            tiled(t, x.tiled(5), y.tiled_mut(5), 5)
        })
        .expect("simulator");
        for i in 0..5 * 4096 {
            assert_eq!(
                f32::from_bits(y.get(i) as u32),
                2.0 * i as f32,
                "element {}",
                i
            );
            assert_eq!(y.stores(i), 1, "element {}", i);
        }
        // A simulated launch is checked as the GPU launcher checks it: a partition of another
        // count than the extent's is refused before the body runs.
        let e = launch(Launch::new(2, 128, 0), |t| {
            tiled(t, x.tiled(4), y.tiled_mut(5), 5)
        })
        .expect_err("x holds 4 tiles, its extent 5");
        assert!(
            e.to_string().contains(
                "`tiled`'s `x` was made with a count of tiles 4, but its `extent(x = n)` gives 5"
            ),
            "{}",
            e
        );
        // Past those checks, a tile the loop reaches but the input does not hold is a trap (a
        // panic here), not a read past it.
        let e = launch(Launch::new(2, 128, 0), |t| {
            twice(t, &x.tiled(4), &y.tiled_mut(5))
        })
        .expect_err("tile 4 is past the input");
        assert!(e.has(IssueKind::Panic), "{}", e);
        assert!(
            e.to_string()
                .contains("past the partitioned tensor's count"),
            "{}",
            e
        );
    }

    /// A launch on the simulator is checked as the GPU launcher checks it, and each view or
    /// partition the test made as the GPU entry would make it from `extent(..)`: a test that
    /// passes runs what the GPU runs.
    #[test]
    fn simulated_launches_are_the_gpu_launchers() {
        use super::{poisoned, tile_transpose, TILE_TRANSPOSE};
        use linear_layouts::sim::{launch, HostMemory, Launch};
        let x = HostMemory::new((0..256).map(|i| (i as f32).to_bits() as u64));
        let y = HostMemory::new((0..256).map(|_| 0));
        // `scale`'s extent is [n_rows, n_cols]: a view of the transposed shape is refused.
        let e = launch(Launch::of(&SCALE, [1, 1, 1]), |t| {
            scale(t, x.view([2, 128]), y.view_mut([128, 2]), 128, 2)
        })
        .unwrap_err();
        let want = "`scale`'s `x` was made with the shape [2, 128], but its `extent(x = [n_rows, n_cols])` gives [128, 2] for this launch's arguments";
        assert!(e.to_string().contains(want), "{}", e);
        // So is a part of the tensor where the GPU's entry hands the body all of it.
        let e = launch(Launch::of(&SCALE, [1, 1, 1]), |t| {
            scale(
                t,
                x.view([16, 16]),
                y.view_mut([16, 16]).transpose(),
                16,
                16,
            )
        })
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("`scale`'s `y` is a part of its tensor"),
            "{}",
            e
        );
        // A block other than the declared one, and shared memory short of the declared bytes.
        let e = launch(Launch::new(1, 64, 0), |t| {
            scale(t, x.view([128, 2]), y.view_mut([128, 2]), 128, 2)
        })
        .unwrap_err();
        let want = "`scale` declares a block of [128, 1, 1] threads (`#[kernel(block = ..)]`), but this launch's block is [64, 1, 1]";
        assert!(e.to_string().contains(want), "{}", e);
        let (inp, out) = (HostMemory::new((0..4096).map(|_| 0)), poisoned(4096));
        let short = TILE_TRANSPOSE.shared_bytes() - 16;
        let e = launch(Launch::new(1, 128, short), |t| {
            tile_transpose(t, inp.tiles(), out.blocks_mut(64))
        })
        .unwrap_err();
        let want = format!(
            "`tile_transpose` declares {} bytes of shared memory (`#[kernel(shared = ..)]`), but this launch has {short}",
            short + 16
        );
        assert!(e.to_string().contains(&want), "{}", e);
        // Warps and clusters of other sizes than the kernel's.
        let narrow = Launch {
            warp_size: 16,
            ..Launch::of(&SCALE, [1, 1, 1])
        };
        let e = launch(narrow, |t| {
            scale(t, x.view([128, 2]), y.view_mut([128, 2]), 128, 2)
        })
        .unwrap_err();
        let want =
            "`scale`'s layouts are written for warps of 32 lanes, but this launch's warps have 16";
        assert!(e.to_string().contains(want), "{}", e);
        let (a, b) = (HostMemory::new((0..4096).map(|_| 0)), poisoned(4096));
        let e = launch(Launch::new(2, 128, 0), |t| {
            cluster_tile_elsewhere(t, a.tiled_mut(1), b.tiled_mut(1), 1)
        })
        .unwrap_err();
        let want = "`cluster_tile_elsewhere` declares clusters of 2 CTAs (`#[kernel(cluster = ..)]`), but this launch's have 1";
        assert!(e.to_string().contains(want), "{}", e);
        // A grid of more CTAs than the buffer has tiles: the launcher's own check and message.
        let one = HostMemory::new((0..4096).map(|_| 0));
        let e = launch(Launch::of(&TILES, [2, 1, 1]), |t| {
            tiles(t, one.tiles(), out.tiles_mut())
        })
        .unwrap_err();
        assert!(e.to_string().contains("tiles: parameter `x` is cut into one tile per CTA: 2 CTAs reach 8192 elements, but the buffer holds 4096"), "{}", e);
        assert!(
            e.to_string()
                .contains("(the simulator checks a launch as the GPU launcher does)"),
            "{}",
            e
        );
        assert_eq!(
            (0..4096).filter(|&i| out.stores(i) > 0).count(),
            0,
            "no body ran"
        );
    }

    #[test]
    fn block_partitions_are_checked_against_the_grid() {
        // 128 x 192: a grid of 3 x 2 blocks reads x; out (192 x 128) is written transposed.
        let args = [
            buffer(128 * 192),
            buffer(192 * 128),
            Arg::Int(128),
            Arg::Int(192),
        ];
        assert!(BLOCKS_T.check_args(&args, [3, 2, 1]).is_ok());
        // One block row too many, or a third grid dim: refused.
        assert!(BLOCKS_T.check_args(&args, [3, 3, 1]).is_err());
        assert!(BLOCKS_T.check_args(&args, [4, 2, 1]).is_err());
        assert!(BLOCKS_T.check_args(&args, [3, 2, 2]).is_err());
        let short = [
            buffer(128 * 192),
            buffer(192 * 128 - 1),
            Arg::Int(128),
            Arg::Int(192),
        ];
        let e = BLOCKS_T.check_args(&short, [3, 2, 1]).unwrap_err();
        assert_eq!((e.error.param, e.error.need), ("out", 192 * 128));
    }

    #[test]
    fn block_partitions_write_each_block_once_transposed() {
        use linear_layouts::sim::{launch, HostMemory, Launch};
        let (rows, cols) = (128u32, 192u32);
        let x = HostMemory::new((0..rows * cols).map(|i| (i as f32).to_bits() as u64));
        let out = HostMemory::new((0..rows * cols).map(|_| 0));
        let l = Launch::dims([cols / 64, rows / 64, 1], [128, 1, 1], 0);
        launch(l, |t| {
            blocks_t(t, x.blocks(cols), out.blocks_mut(rows), rows, cols)
        })
        .expect("simulator");
        for i in 0..rows as usize {
            for j in 0..cols as usize {
                let o = j * rows as usize + i;
                assert_eq!(
                    f32::from_bits(out.get(o) as u32),
                    (i * cols as usize + j) as f32
                );
                assert_eq!(out.stores(o), 1);
            }
        }
    }

    #[test]
    fn a_parameter_named_len_is_the_argument() {
        let args = [buffer(16), Arg::Int(1 << 20)];
        let e = NAMED_LEN.check_args(&args, [1, 1, 1]).unwrap_err();
        assert_eq!((e.error.need, e.error.len), (1 << 20, 16));
    }
}

/// A GEMM's panels along K (`BlockRows::panel`, `BlockCols::panel`): A's steps index B's panel
/// (the blocks of the CTA's block row and column, each once), and a step of a panel with more
/// blocks than another's, or with blocks of another length along K, is refused there (its
/// block would be past that matrix, or another block than the step's).
#[test]
fn k_steps_index_panels_with_as_many_blocks_as_long() {
    // A: 128 x 128 (2 x 2 blocks of 64 x 64); B: 128 x 64 (2 x 1); C's CTA (x = 0, y = 1).
    let a = HostMemory::new((0..128 * 128).map(|i| i as u64));
    let b = HostMemory::new((0..128 * 64).map(|i| 100_000 + i as u64));
    let short = HostMemory::new((0..64 * 64).map(|i| i as u64));
    let l = Launch::dims([1, 2, 1], [128, 1, 1], 0);
    launch(l, |t| {
        let pa = a.block_rows::<u32, Rows>(128).panel(t);
        let pb = b.block_cols::<u32, Rows>([128, 64]).panel(t);
        let steps: Vec<_> = pa.steps().collect();
        assert_eq!(steps.iter().map(|s| s.index()).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(
            steps.iter().map(|s| s.offset()).collect::<Vec<_>>(),
            [0, 64]
        );
        for s in steps {
            let (x, y) = (pa.load_at(t, s), pb.load_at(t, s));
            let row = 64 * t.block_idx()[1];
            for r in 0..32 {
                let [i, j] = Rows::apply(r as u32, t.lane(), t.warp(), 0);
                let k0 = s.offset();
                assert_eq!(x.values[r], (row + i) * 128 + k0 + j);
                assert_eq!(y.values[r], 100_000 + (k0 + i) * 64 + j);
            }
        }
    })
    .expect("every block inside its matrix");
    let r = launch(Launch::new(1, 128, 0), |t| {
        let pa = a.block_rows::<u32, Rows>(128).panel(t);
        let ps = short.block_cols::<u32, Rows>([64, 64]).panel(t);
        for s in pa.steps() {
            let _ = ps.load_at(t, s);
        }
    });
    let err = r.expect_err("a step of a 2-block panel on a 1-block one");
    assert!(
        err.issues[0]
            .message
            .contains("K step of a panel with more blocks"),
        "{:?}",
        err
    );
    // As long along K (128), in blocks of 32 rows: A's second step (at 64) would be B's third
    // block, not its second; and B's last step (at 96) would read A's columns 96..160 of 128.
    let other_length = "a K step of a panel of blocks of another length along K";
    let r = launch(Launch::new(1, 128, 0), |t| {
        let pa = a.block_rows::<u32, Rows>(128).panel(t);
        let pk = b.block_cols::<u32, RowsK32>([128, 64]).panel(t);
        assert_eq!(pk.blocks(), 4);
        for s in pa.steps() {
            let _ = pk.load_at(t, s);
        }
    });
    let err = r.expect_err("a step of 64-long blocks on a panel of 32-long ones");
    assert!(err.issues[0].message.contains(other_length), "{:?}", err);
    let r = launch(Launch::new(1, 128, 0), |t| {
        let pa = a.block_rows::<u32, Rows>(128).panel(t);
        let pk = b.block_cols::<u32, RowsK32>([128, 64]).panel(t);
        for s in pk.steps() {
            let _ = pa.load_at(t, s);
        }
    });
    let err = r.expect_err("a step of 32-long blocks on a panel of 64-long ones");
    assert!(err.issues[0].message.contains(other_length), "{:?}", err);
}

/// An output block's panels of A and B (`Blocked::row_of`, `col_of`): the block row and column
/// of the CTA's block of C, and refused where C has more block rows than A (or its blocks
/// another height).
#[test]
fn output_blocks_take_their_operands_panels() {
    // C: 128 x 128 (2 x 2 blocks of 64 x 64) over 4 CTAs; A: 128 x 64; B: 64 x 128.
    let c = HostMemory::new((0..128 * 128).map(|_| 0));
    let a = HostMemory::new((0..128 * 64).map(|i| i as u64));
    let b = HostMemory::new((0..64 * 128).map(|i| 100_000 + i as u64));
    launch(Launch::new(4, 128, 0), |t| {
        let out = c.grouped_mut::<u32, Rows>([128, 128]);
        let blk = out.block(t);
        let [i, j] = blk.coords();
        let (ma, mb) = (
            a.blocked::<u32, Rows>([128, 64]),
            b.blocked::<u32, Rows>([64, 128]),
        );
        let (x, y) = (
            ma.row_of(blk).block(0).load(t),
            mb.col_of(blk).block(0).load(t),
        );
        for r in 0..32 {
            let [u, v] = Rows::apply(r as u32, t.lane(), t.warp(), 0);
            assert_eq!(x.values[r], (64 * i + u) * 64 + v);
            assert_eq!(y.values[r], 100_000 + u * 128 + 64 * j + v);
        }
        out.store(t, blk, &x);
    })
    .expect("every panel inside its matrix");
    let r = launch(Launch::new(4, 128, 0), |t| {
        let blk = c.grouped_mut::<u32, Rows>([128, 128]).block(t);
        let short = a.blocked::<u32, Rows>([64, 64]);
        let _ = short.row_of(blk).block(0).load(t);
    });
    let err = r.expect_err("C has 2 block rows, A 1");
    assert!(
        err.issues[0]
            .message
            .contains("an output block row past the matrix's block rows"),
        "{:?}",
        err
    );
}
