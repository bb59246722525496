//! Async copies (`cp.async`) on the simulator: a copy lands when its group is waited for, not
//! before; reading or overwriting its bytes while it is in flight, or reading another thread's
//! copy without a barrier after the wait, is reported; `wait_group N` leaves the newest `N`
//! groups in flight. And a typed [`AsyncCopy`] lands a tile where the shared layout's store
//! would, for a swizzled layout.
//!
//! Raw shared-memory accesses are `unsafe` (the contract of `Thread`): in these kernels the
//! simulator is what checks it, and some break it on purpose to see it reported.

use linear_layouts::sim::{launch, HostMemory, Launch, SimThread};
use linear_layouts::{convert, layout, AsyncCopy, Layout, Registers, SharedLoad, Thread};

/// 64 threads, each copying 16 bytes (4 u32) of `0..256` to shared memory, reversed by warp.
fn memory() -> HostMemory {
    HostMemory::new(0..256u64)
}

fn slot(t: &impl Thread) -> u32 {
    t.warp() * 32 + t.lane()
}

#[test]
fn copies_land_at_the_wait_and_are_seen_after_a_barrier() {
    let mem = memory();
    launch(Launch::new(1, 64, 1024), |t| {
        let g = mem.global::<u32>();
        let me = slot(t);
        unsafe { g.copy_to_shared(t, 4 * me as usize, 16, 16 * (63 - me)) };
        t.cp_async_commit();
        t.cp_async_wait::<0>();
        t.sync_block();
        // Thread `me` reads what thread `63 - me` copied: its own 4 words.
        let w = unsafe { t.ld_shared(16 * me, 16) };
        assert_eq!(w, std::array::from_fn(|i| 4 * (63 - me) + i as u32));
    })
    .expect("a waited-for copy, then a barrier, is race-free");
}

#[test]
fn reading_a_copy_before_its_wait_is_an_error() {
    let mem = memory();
    let err = launch(Launch::new(1, 64, 1024), |t| {
        let g = mem.global::<u32>();
        unsafe { g.copy_to_shared(t, 4 * slot(t) as usize, 16, 16 * slot(t)) };
        t.cp_async_commit();
        unsafe { t.ld_shared(16 * slot(t), 4) };
    })
    .expect_err("the copy is still in flight");
    assert!(
        err.to_string().contains("while an async copy of thread"),
        "{}",
        err
    );
}

#[test]
fn reading_another_threads_copy_without_a_barrier_is_a_race() {
    let mem = memory();
    let err = launch(Launch::new(1, 64, 1024), |t| {
        let g = mem.global::<u32>();
        unsafe { g.copy_to_shared(t, 4 * slot(t) as usize, 16, 16 * slot(t)) };
        t.cp_async_commit();
        t.cp_async_wait::<0>();
        unsafe { t.ld_shared(16 * ((slot(t) + 1) % 64), 4) };
    })
    .expect_err("the wait orders this thread's copies only");
    // Which report comes depends on how far the neighbour got: its copy not yet issued
    // (nobody wrote), issued but not waited for (in flight), or landed (a race).
    let e = err.to_string();
    assert!(
        e.contains("race") || e.contains("nobody wrote") || e.contains("in flight"),
        "{}",
        e
    );
}

#[test]
fn wait_group_leaves_the_newest_groups_in_flight() {
    let mem = memory();
    // Two groups; waiting with one pending lands the first only.
    let first = launch(Launch::new(1, 32, 1024), |t| {
        let g = mem.global::<u32>();
        unsafe { g.copy_to_shared(t, 4 * t.lane() as usize, 16, 16 * t.lane()) };
        t.cp_async_commit();
        unsafe { g.copy_to_shared(t, 128 + 4 * t.lane() as usize, 16, 512 + 16 * t.lane()) };
        t.cp_async_commit();
        t.cp_async_wait::<1>();
        assert_eq!(unsafe { t.ld_shared(16 * t.lane(), 4) }[0], 4 * t.lane());
    });
    assert_eq!(first, Ok(()));
    let second = launch(Launch::new(1, 32, 1024), |t| {
        let g = mem.global::<u32>();
        unsafe { g.copy_to_shared(t, 4 * t.lane() as usize, 16, 16 * t.lane()) };
        t.cp_async_commit();
        unsafe { g.copy_to_shared(t, 128 + 4 * t.lane() as usize, 16, 512 + 16 * t.lane()) };
        t.cp_async_commit();
        t.cp_async_wait::<1>();
        unsafe { t.ld_shared(512 + 16 * t.lane(), 4) };
    });
    assert!(second.is_err(), "the second group is still in flight");
}

#[test]
fn a_copy_into_bytes_another_copy_is_writing_is_an_error() {
    let mem = memory();
    let err = launch(Launch::new(1, 32, 1024), |t| {
        let g = mem.global::<u32>();
        unsafe { g.copy_to_shared(t, 4 * t.lane() as usize, 16, 0) };
    })
    .expect_err("32 copies into one 16-byte slot");
    assert!(err.to_string().contains("starts an async copy"), "{}", err);
}

layout! {
    Rows = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]) for [16, 64];
    Swizzled = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [16, 64];
}

/// The typed copy puts every element where `convert!(Rows => Swizzled)`'s store would: a load
/// through the shared layout gives back the tile.
#[test]
fn an_async_copy_lands_the_tile_in_the_shared_layout() {
    const COPY: AsyncCopy<Rows, u16> = AsyncCopy::new(convert!(Rows => Swizzled, u16));
    assert_eq!(COPY.shared_bytes(), 16 * 64 * 2);
    lands_the_tile(&COPY, [16, 64], |t| convert!(Swizzled => Rows, u16).load(t));
}

/// `copy` of the tile at `origin` of a 32 x 128 tensor of u16, waited for and synchronised:
/// `load` from the shared layout gives back the tile.
fn lands_the_tile(
    copy: &AsyncCopy<Rows, u16>,
    origin: [u32; 2],
    load: impl Fn(&SimThread) -> [u16; 16] + Sync,
) {
    let mem = HostMemory::new(0..32 * 128u64);
    launch(Launch::new(1, 64, copy.shared_bytes()), |t| {
        // SAFETY: host memory checks every access (the simulator reports one outside it).
        unsafe { copy.start(t, &mem.global::<u16>(), origin, [128, 1]) };
        t.cp_async_commit();
        t.cp_async_wait::<0>();
        t.sync_block();
        let want = mem.view::<u16, 2>([32, 128]).load::<Rows>(t, origin, 0);
        assert_eq!(load(t), want.values);
    })
    .expect("copied, waited, synchronised");
}

/// A copy made in code whose layouts are type parameters: `convert!` of generic sides.
fn generic_copy<L: Registers<N>, S: Layout, const N: usize>() -> AsyncCopy<L, u16> {
    AsyncCopy::new(convert!(L => S, u16))
}

/// A copy made in generic code lands the tile where the store's tables put it.
#[test]
fn a_generic_async_copy_lands_where_convert_stores() {
    let load: SharedLoad<u16, 16> = convert!(Swizzled => Rows, u16).shared_load();
    let copy = generic_copy::<Rows, Swizzled, _>();
    assert_eq!(copy.shared_bytes(), 16 * 64 * 2);
    lands_the_tile(&copy, [0, 64], |t| load.load(t));
}
