//! Hopper's units on the simulator: a TMA box lands in an `nvmma_shared` tile when its mbarrier
//! phase completes, a typed [`Wgmma`] multiplies two such tiles into a v3 accumulator, and what
//! the hardware requires is reported when a kernel breaks it: reading TMA data without waiting
//! for its phase, a destination off its swizzle pattern, more bytes than `expect_tx`
//! announced, a descriptor whose swizzle is not the one the bytes were written with, and
//! overwriting a tile a wgmma may still read. Orders between threads: an mbarrier's arrivals
//! before its waiters, a named barrier among its threads, the end of a wgmma's reads (its
//! wait, then an arrival) before a refill.
//!
//! The tiles are [`SharedTile`]s, checked inside the kernel's shared memory and aligned when
//! made; raw shared-memory offsets are `unsafe` (the contract of `Thread` and `Hopper`): the
//! kernels that use them break it on purpose, to see the simulator report it.

use linear_layouts::runtime::hopper::{Descriptor, WgmmaOp};
use linear_layouts::runtime::kernel::KernelThread;
use linear_layouts::runtime::mma::MmaKind;
use linear_layouts::sim::{launch, HostMemory, IssueKind, Launch, SimError, SimThread};
use linear_layouts::{
    layout, Hopper, Layout, MBarriers, SharedTile, SharedTiles, TensorMap, Thread, Tile, TmaTile,
    Wgmma, F16,
};

layout! {
    Acc = nvidia_mma(versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]) for [64, 64];
    TileA = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [64, 64];
    TileB = nvmma_shared(swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16) for [64, 64];
    /// A in registers: each warp's 16 rows as wgmma's register fragment.
    RegA = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [64, 64];
}

const LOAD: TmaTile<TileA, F16> = TmaTile::new();
const LOAD_B: TmaTile<TileB, F16> = TmaTile::new();
const MMA: Wgmma<TileA, TileB, Acc, F16> = Wgmma::new();
/// The tiles' offsets: the first 1024-aligned addresses past the mbarrier (at byte 0).
fn tiles(t: &SimThread) -> [u32; 2] {
    let a = SharedTiles::<TileA, F16, 1>::after(t, 8).offset();
    [a, a + 8192]
}
const SMEM: u32 = 3 * 8192;

/// Small integers as f16 bits: products and sums are exact.
fn operand(seed: u64) -> HostMemory {
    HostMemory::new((0..64 * 64u64).map(|i| F16::round(((i * seed) % 7) as f32 - 3.0).0 as u64))
}

/// A's tile and B's.
type Tiles = (SharedTile<TileA, F16>, SharedTile<TileB, F16>);

/// One warpgroup: thread 0 sets up the mbarrier and loads A and B (B's bytes `expect` of the
/// `2 * BYTES` announced), `wait` says which threads wait for the phase; then `body`.
fn run(
    wait: fn(&SimThread) -> bool,
    expect: u32,
    body: impl Fn(&SimThread, Tiles) + Sync,
) -> Result<(), SimError> {
    let (a, b) = (operand(3), operand(5));
    launch(Launch::new(1, 128, SMEM), |t| {
        let (ma, mb) = (
            TensorMap::<F16>::host(
                &a,
                [64, 64],
                TmaTile::<TileA, u16>::BOX,
                TmaTile::<TileA, u16>::SWIZZLE,
            ),
            TensorMap::<F16>::host(
                &b,
                [64, 64],
                TmaTile::<TileA, u16>::BOX,
                TmaTile::<TileA, u16>::SWIZZLE,
            ),
        );
        let [ta, tb] = tiles(t);
        let (sa, sb) = (SharedTile::new(t, ta), SharedTile::new(t, tb));
        let bar = MBarriers::<1>::init(t, 0, 1).index(0);
        if t.warp() == 0 && t.lane() == 0 {
            bar.arrive_expect_tx(t, TmaTile::<TileA, u16>::BYTES + expect);
            LOAD.load(t, &ma, [0, 0], &sa, bar);
            LOAD_B.load(t, &mb, [0, 0], &sb, bar);
        }
        if wait(t) {
            bar.wait(t, 0);
        }
        body(t, (sa, sb));
    })
}

fn all(_: &SimThread) -> bool {
    true
}

/// The launch's issues, which must include one of kind `kind`, as text.
fn errors(kind: IssueKind, r: Result<(), SimError>) -> String {
    let e = r.expect_err("the simulator reports it");
    assert!(e.has(kind), "no {:?} issue: {}", kind, e);
    format!("{:?}", e)
}

/// Every accumulator of this thread is `A · B`'s element (small integers: exact).
fn check_product(t: &SimThread, acc: &[f32; 32], a: &HostMemory, b: &HostMemory) {
    for (r, x) in acc.iter().enumerate() {
        let idx = [r as u32, t.lane(), t.warp(), 0];
        let (i, j) = (Acc::coord(idx, 0) as usize, Acc::coord(idx, 1) as usize);
        let want: f32 = (0..64)
            .map(|k| {
                F16(a.get(i * 64 + k) as u16).to_f32() * F16(b.get(k * 64 + j) as u16).to_f32()
            })
            .sum();
        assert_eq!(*x, want, "C[{}][{}]", i, j);
    }
}

#[test]
fn tma_and_wgmma_multiply_two_tiles() {
    let (a, b) = (operand(3), operand(5));
    run(all, TmaTile::<TileB, u16>::BYTES, |t, (sa, sb)| {
        let acc = sa
            .dot_async(t, &sb, Tile::<Acc, f32, 32>::splat(0.0))
            .wait(t);
        check_product(t, &acc.values, &a, &b);
    })
    .expect("loads waited for, then multiplied");
}

#[test]
fn dot_of_two_shared_tiles_adds_to_the_accumulator_and_waits() {
    let (a, b) = (operand(3), operand(5));
    run(all, TmaTile::<TileB, u16>::BYTES, |t, (sa, sb)| {
        let c = sa.dot(t, &sb, Tile::<Acc, f32, 32>::splat(1.0));
        let minus_one = c.map(|x| x - 1.0);
        check_product(t, &minus_one.values, &a, &b);
    })
    .expect("tl.dot on shared operands");
}

#[test]
fn wgmma_with_a_from_registers_multiplies() {
    let (a, b) = (operand(3), operand(5));
    run(all, TmaTile::<TileB, u16>::BYTES, |t, (_, sb)| {
        let regs = Tile::<RegA, F16, _>::from_coords(t, |[i, k]| {
            F16(a.get(i as usize * 64 + k as usize) as u16)
        });
        let acc = regs
            .dot_async(t, &sb, Tile::<Acc, f32, 32>::splat(0.0))
            .wait(t);
        check_product(t, &acc.values, &a, &b);
    })
    .expect("A from registers, B from the loaded tile");
}

#[test]
fn reading_tma_data_without_waiting_for_its_phase_is_an_error() {
    let e = errors(
        IssueKind::Race,
        run(
            |_| false,
            TmaTile::<TileB, u16>::BYTES,
            |t, (sa, sb)| {
                // The loads were issued before this barrier, so their data has landed: what is
                // missing is a wait for the phase, not time.
                t.sync_block();
                sa.dot_async(t, &sb, Tile::<Acc, f32, 32>::splat(0.0))
                    .wait(t);
            },
        ),
    );
    assert!(
        e.contains("TMA load completing phase 0 of the mbarrier at byte 0 wrote without"),
        "{}",
        e
    );
}

#[test]
fn one_thread_waiting_then_a_cta_barrier_orders_the_data_for_all() {
    run(
        |t| t.warp() == 0 && t.lane() == 0,
        TmaTile::<TileB, u16>::BYTES,
        |t, (sa, sb)| {
            t.sync_block();
            sa.dot_async(t, &sb, Tile::<Acc, f32, 32>::splat(0.0))
                .wait(t);
        },
    )
    .expect("the waiter's acquire reaches every thread through the barrier");
}

#[test]
fn more_bytes_than_expect_tx_announced_is_an_error() {
    let e = errors(
        IssueKind::Mbarrier,
        run(all, TmaTile::<TileB, u16>::BYTES / 2, |_, _| {}),
    );
    assert!(e.contains("more than expect_tx announced"), "{}", e);
}

#[test]
fn a_descriptor_with_another_swizzle_is_an_error() {
    let e = errors(
        IssueKind::Wgmma,
        run(all, TmaTile::<TileB, u16>::BYTES, |t, (sa, sb)| {
            let (ta, tb) = (sa.offset(), sb.offset());
            let d = |start: u32, lbo: u32| {
                let swizzle = linear_layouts::Swizzle::B64;
                Descriptor {
                    start: t.shared_base() + start,
                    lbo,
                    sbo: 512,
                    swizzle,
                }
                .encode()
            };
            let op = WgmmaOp {
                kind: MmaKind::F16,
                a_mn_major: false,
                b_mn_major: true,
            };
            let mut acc = [0f32; 32];
            t.wgmma_fence();
            // SAFETY: the tiles are inside shared memory; the descriptors' swizzle is wrong on
            // purpose, for the simulator to report.
            unsafe { t.wgmma(op, d(ta, 16), d(tb, 4096), &mut acc, false) };
            t.wgmma_commit();
            t.wgmma_wait::<0>();
        }),
    );
    assert!(
        e.contains("with B64 swizzle reads shared byte") && e.contains("B128"),
        "{}",
        e
    );
}

#[test]
fn a_tma_destination_off_its_swizzle_pattern_is_an_error() {
    let e = errors(
        IssueKind::Misaligned,
        launch(Launch::new(1, 128, SMEM), |t| {
            let a = operand(3);
            let m = TensorMap::<F16>::host(
                &a,
                [64, 64],
                TmaTile::<TileA, u16>::BOX,
                TmaTile::<TileA, u16>::SWIZZLE,
            );
            let bar = MBarriers::<1>::init(t, 0, 1).index(0);
            if t.warp() == 0 && t.lane() == 0 {
                bar.arrive_expect_tx(t, TmaTile::<TileA, u16>::BYTES);
                // Breaks `SharedTile::at`'s contract on purpose (`SharedTile::new` refuses the
                // offset: the next test), for the simulator to report.
                LOAD.load(t, &m, [0, 0], &unsafe { SharedTile::at(128) }, bar);
            }
        }),
    );
    assert!(e.contains("is not aligned to 1024 bytes"), "{}", e);
}

/// `SharedTile::new` refuses what the engines must not be aimed at: a tile past the bytes the
/// kernel declares (its thread knows them, as a `#[kernel]`'s does), and one off its swizzle
/// pattern. Either is a trap on the GPU, a panic here.
#[test]
fn a_shared_tile_past_the_kernel_s_bytes_or_off_its_pattern_is_refused() {
    let past = launch(Launch::new(1, 128, SMEM), |t| {
        // SAFETY: the launch gives the kernel SMEM bytes.
        let k = unsafe { KernelThread::<_, SMEM>::new(t) };
        let [_, tb] = tiles(t);
        let inside = SharedTile::<TileB, F16>::new(&k, tb);
        // B's tile ends at tb + 8192 (at most 2048 + 16384 + 8192 of the 24576 bytes); the
        // next one would end past them.
        let _ = (inside, SharedTile::<TileB, F16>::new(&k, tb + 8192));
    })
    .expect_err("past the declared bytes");
    assert!(past.has(IssueKind::Panic), "{}", past);
    assert!(
        past.to_string()
            .contains("not inside the kernel's shared memory"),
        "{}",
        past
    );
    let off = launch(Launch::new(1, 128, SMEM), |t| {
        let [ta, _] = tiles(t);
        let _ = SharedTile::<TileA, F16>::new(t, ta + 128);
    })
    .expect_err("off the 1024-byte pattern");
    assert!(off.has(IssueKind::Panic), "{}", off);
    launch(Launch::new(1, 128, SMEM), |t| {
        // SAFETY: as above.
        let k = unsafe { KernelThread::<_, SMEM>::new(t) };
        let [ta, tb] = tiles(t);
        let _ = (
            SharedTile::<TileA, F16>::new(&k, ta),
            SharedTile::<TileB, F16>::new(&k, tb),
        );
    })
    .expect("both tiles inside and aligned");
}

/// An mbarrier ring past the kernel's declared bytes, one off 8 bytes, one expecting no
/// arrivals or more than the hardware counts, or an index past the ring is refused where it is
/// made: a trap on the GPU, a panic here (before any access, which the simulator would also
/// report).
#[test]
fn an_mbarrier_past_the_kernel_s_bytes_off_8_bytes_or_past_its_ring_is_refused() {
    fn refused(what: &str, message: &str, f: fn(&KernelThread<'_, SimThread<'_>, SMEM>)) {
        let e = launch(Launch::new(1, 32, SMEM), |t| {
            // SAFETY: the launch gives the kernel SMEM bytes.
            f(&unsafe { KernelThread::<_, SMEM>::new(t) })
        })
        .expect_err(what);
        assert!(
            e.has(IssueKind::Panic) && e.to_string().contains(message),
            "{}: {}",
            what,
            e
        );
    }
    let outside = "not inside the kernel's shared memory, or not on 8 bytes";
    refused("past the declared bytes", outside, |k| {
        let _ = MBarriers::<2>::init(k, SMEM - 8, 1);
    });
    refused("off 8 bytes", outside, |k| {
        let _ = MBarriers::<1>::init(k, 12, 1);
    });
    let arrivals = "a phase expects 1 to 2^20 - 1 arrivals";
    refused("no arrivals", arrivals, |k| {
        let _ = MBarriers::<1>::init(k, 0, 0);
    });
    refused("2^20 arrivals", arrivals, |k| {
        let _ = MBarriers::<1>::init(k, 0, 1 << 20);
    });
    refused("two rings past the declared bytes", outside, |k| {
        let _ = MBarriers::<1>::init_pair(k, SMEM - 8, [1, 1]);
    });
    refused("no arrivals on one barrier", arrivals, |k| {
        let _ = MBarriers::<1>::init_pair(k, 0, [1, 0]);
    });
    refused("past the ring", "past the ring", |k| {
        let _ = MBarriers::<2>::init(k, 0, 1).index(2);
    });
    launch(Launch::new(1, 32, SMEM), |t| {
        // SAFETY: as above.
        let k = unsafe { KernelThread::<_, SMEM>::new(t) };
        let (one, two) = MBarriers::<3>::init(&k, SMEM - 24, 32).split::<1, 2>();
        assert_eq!((one.index(0).offset(), one.end()), (SMEM - 24, SMEM - 16));
        assert_eq!((two.index(1).offset(), two.end()), (SMEM - 8, SMEM));
        // Initialised and published: every thread's arrival completes phase 0.
        two.index(1).arrive(&k);
        two.index(1).wait(&k, 0);
    })
    .expect("the last 24 bytes hold three barriers");
    launch(Launch::new(1, 32, SMEM), |t| {
        // SAFETY: as above.
        let k = unsafe { KernelThread::<_, SMEM>::new(t) };
        let (one, all) = MBarriers::<2>::init_pair(&k, 8, [1, 32]);
        assert_eq!((one.offset(), all.offset(), all.end()), (8, 24, 40));
        // Each ring its own count: thread 0's arrival alone completes a phase of the first's
        // barriers, which a count of 32 would leave open; the second's take every thread's.
        for i in 0..2 {
            if k.lane() == 0 {
                one.index(i).arrive(&k);
            }
            one.index(i).wait(&k, 0);
            all.index(i).arrive(&k);
            all.index(i).wait(&k, 0);
        }
    })
    .expect("rings of their own counts");
}

#[test]
fn overwriting_a_tile_a_wgmma_may_still_read_is_an_error() {
    let e = errors(
        IssueKind::Wgmma,
        run(all, TmaTile::<TileB, u16>::BYTES, |t, (sa, sb)| {
            let acc = sa.dot_async(t, &sb, Tile::<Acc, f32, 32>::splat(0.0));
            if t.warp() == 0 && t.lane() == 0 {
                // SAFETY: broken on purpose (B's tile written while the group may read it),
                // for the simulator to report.
                unsafe { t.st_shared(sb.offset(), 4, [0; 4]) };
            }
            acc.wait(t);
        }),
    );
    assert!(e.contains("that a wgmma of thread"), "{}", e);
}

/// After the wgmma: every thread waits for its group and arrives on the mbarrier at byte 8;
/// thread 0 then overwrites B's tile, having waited for that phase (`wait`) or not.
fn refill(wait: bool) -> Result<(), SimError> {
    run(all, TmaTile::<TileB, u16>::BYTES, move |t, (sa, sb)| {
        let bar = MBarriers::<1>::init(t, 8, 128).index(0);
        sa.dot_async(t, &sb, Tile::<Acc, f32, 32>::splat(0.0))
            .wait(t);
        bar.arrive(t);
        if t.warp() == 0 && t.lane() == 0 {
            if wait {
                bar.wait(t, 0);
            }
            // SAFETY: broken on purpose without `wait` (the refill unordered with the
            // readers), for the simulator to report.
            unsafe { t.st_shared(sb.offset(), 4, [0; 4]) };
        }
    })
}

#[test]
fn an_mbarrier_orders_the_end_of_wgmma_reads_before_a_refill() {
    refill(true).expect("every reader arrived after its wait; the writer waited for the phase");
    // Unordered, what is reported depends on how far the other warps got when the writer
    // stored: a wgmma still reading ("may still read"), one done but not ordered ("nothing
    // ordering the end of that read"), or one not yet started, whose read then races.
    let e = refill(false).expect_err("the simulator reports the refill");
    let wgmma = e.has(IssueKind::Wgmma) && format!("{:?}", e).contains("that a wgmma of thread");
    let race = e.has(IssueKind::Race) && format!("{:?}", e).contains("race: a wgmma of thread");
    assert!(wgmma || race, "{}", e);
}

/// Warp 0 stores, warp 1 loads the same bytes: ordered by an mbarrier warp 0 arrives on after
/// its stores and warp 1 waits for, or by a named barrier of the two warps; a third warp,
/// ordered by neither, races.
#[test]
fn mbarriers_and_named_barriers_order_ordinary_accesses() {
    let go = |third_reads: bool, named: bool| {
        launch(Launch::new(1, 96, 2048), move |t| {
            let bar = MBarriers::<1>::init(t, 0, 32).index(0);
            let at = 1024 + 4 * t.lane();
            if t.warp() == 0 {
                unsafe { t.st_shared(at, 4, [t.lane(), 0, 0, 0]) };
                bar.arrive(t);
            }
            if named && t.warp() < 2 {
                t.bar_sync(1, 64);
            }
            if t.warp() == 1 {
                if !named {
                    bar.wait(t, 0);
                }
                assert_eq!(unsafe { t.ld_shared(at, 4) }[0], t.lane());
            }
            if t.warp() == 2 && third_reads {
                unsafe { t.ld_shared(at, 4) };
            }
        })
    };
    go(false, false).expect("the mbarrier orders warp 0's stores before warp 1's loads");
    go(false, true).expect("the named barrier orders them");
    for named in [false, true] {
        let e = go(true, named).expect_err("warp 2 is ordered by neither");
        assert!(
            e.has(IssueKind::Race) || e.has(IssueKind::UninitialisedRead),
            "{}",
            e
        );
    }
}

#[test]
fn a_named_barrier_with_another_thread_count_is_an_error() {
    let e = launch(Launch::new(1, 64, 64), |t| {
        t.bar_sync(1, 32 + 32 * t.warp());
    })
    .expect_err("one id, two counts");
    assert!(e.has(IssueKind::NamedBarrier), "{}", e);
    let e = e.to_string();
    assert!(e.contains("give each set of threads its own id"), "{}", e);
}

#[test]
fn a_wgmma_whose_descriptors_differ_within_the_warpgroup_is_an_error() {
    let e = errors(
        IssueKind::Wgmma,
        run(all, TmaTile::<TileB, u16>::BYTES, |t, (sa, sb)| {
            let mut acc = [0f32; 32];
            let (ta, tb) = (sa.offset(), sb.offset());
            // Warp 1 points its B operand at another tile: not one instruction any more.
            // SAFETY: both offsets are tiles inside the kernel's shared memory.
            unsafe { MMA.run(t, ta, if t.warp() == 1 { ta } else { tb }, &mut acc) };
            t.wgmma_wait::<0>();
        }),
    );
    assert!(
        e.contains("a wgmma is one instruction of the warpgroup"),
        "{}",
        e
    );
}

/// Every thread of a warpgroup stores its part of A and B with ordinary stores, then the
/// warpgroup multiplies them: `fence` says where each thread calls `fence_proxy_async`.
fn stored_then_multiplied(fence: Option<bool>) -> Result<(), SimError> {
    launch(Launch::new(1, 128, SMEM), move |t| {
        let [ta, tb] = tiles(t);
        let me = 64 * (t.warp() * 32 + t.lane());
        for i in (0..64).step_by(16) {
            unsafe { t.st_shared(ta + me + i, 16, [0x3c00_3c00; 4]) };
            unsafe { t.st_shared(tb + me + i, 16, [0x3c00_3c00; 4]) };
        }
        if fence == Some(true) {
            t.fence_proxy_async();
        }
        t.sync_block();
        if fence == Some(false) {
            t.fence_proxy_async();
        }
        let (sa, sb) = (
            SharedTile::<TileA, F16>::new(t, ta),
            SharedTile::<TileB, F16>::new(t, tb),
        );
        let acc = sa
            .dot_async(t, &sb, Tile::<Acc, f32, 32>::splat(0.0))
            .wait(t);
        assert!(acc.values.iter().all(|&x| x == 64.0));
    })
}

/// Ordinary stores are not visible to wgmma (the async proxy) without `fence_proxy_async`
/// between them and the barrier that orders them before it: missing, or after the barrier,
/// it is reported whatever the timing.
#[test]
fn ordinary_stores_read_by_wgmma_need_a_proxy_fence_before_the_barrier() {
    stored_then_multiplied(Some(true)).expect("fenced, then synchronised");
    for fence in [None, Some(false)] {
        let e = stored_then_multiplied(fence).expect_err("not fenced in time");
        assert!(e.has(IssueKind::MissingFence), "{:?}: {}", fence, e);
    }
}

/// An mbarrier initialised without `fence_mbarrier_init` is reported when another thread uses
/// it, and a wgmma without `wgmma_fence` when it is issued.
#[test]
fn an_unfenced_mbarrier_init_and_an_unfenced_wgmma_are_reported() {
    let e = launch(Launch::new(1, 64, 64), |t| {
        // Breaks `mbarrier_init`'s contract on purpose (`MBarriers::init` fences), for the
        // simulator to report.
        if t.warp() == 0 && t.lane() == 0 {
            unsafe { t.mbarrier_init(0, 64) };
        }
        t.sync_block();
        unsafe { t.mbarrier_arrive(0) };
    })
    .expect_err("no fence_mbarrier_init");
    assert!(e.has(IssueKind::MissingFence), "{}", e);
    let e = errors(
        IssueKind::MissingFence,
        run(all, TmaTile::<TileB, u16>::BYTES, |t, (sa, sb)| {
            let mut acc = [0f32; 32];
            let _ = (sa, sb);
            // SAFETY: descriptors of shared byte 0 on, inside the kernel's shared memory (the
            // simulator reports the missing fence before it reads them).
            unsafe {
                t.wgmma(
                    WgmmaOp {
                        kind: MmaKind::F16,
                        a_mn_major: false,
                        b_mn_major: true,
                    },
                    0,
                    0,
                    &mut acc,
                    false,
                )
            };
        }),
    );
    assert!(e.contains("without wgmma_fence"), "{}", e);
}

/// Accumulator registers a wgmma still writes are the tensor cores' until the wait for its
/// group: a thread that changes them before is reported.
#[test]
fn changing_accumulators_before_the_wait_is_an_error() {
    let go = |early: bool| {
        run(all, TmaTile::<TileB, u16>::BYTES, move |t, (sa, sb)| {
            // Raw offsets: a `Pending` would not let safe code touch the registers early.
            let (a, b, mut acc) = (sa.offset(), sb.offset(), [0.0f32; 32]);
            // SAFETY: broken on purpose (`acc` changed before the wait when `early`), for the
            // simulator to report; the tiles lie inside the kernel's shared memory, aligned.
            unsafe { MMA.run(t, a, b, &mut acc) };
            if !early {
                t.wgmma_wait::<0>();
            }
            acc[0] += 1.0;
            // SAFETY: as above.
            unsafe { MMA.run(t, a, b, &mut acc) };
            t.wgmma_wait::<0>();
        })
    };
    go(false).expect("changed after the wait");
    let e = errors(IssueKind::Wgmma, go(true));
    assert!(e.contains("still writes"), "{}", e);
}
