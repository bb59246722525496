//! The two replays of a recorded plan agree: the written-out one (every operand a constant at
//! its use: what nvptx kernels run) and the looped one (what the host runs), register for
//! register, with each other and with the destination layout, for every kind of operation a
//! tape holds (moves, packs, shuffles and gathers, selects, shared-memory stores and loads with
//! swizzles and padding, `stmatrix`/`ldmatrix`, distributed shared memory, barriers).

use std::collections::BTreeSet;

use linear_layouts::planned::{LoadTape, Planned, StoreTape};
use linear_layouts::runtime::replay::{kind, looped, written_out, Recorded};
use linear_layouts::runtime::Element;
use linear_layouts::sim::{launch, Launch};
use linear_layouts::{layout, Bf16, Layout, Registers, Thread, F16};

mod support;

layout! {
    Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]) for [64, 64];
    AccPerm = linear(register = [[0, 1], [0, 8], [0, 16], [0, 32], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]], block = []) for [64, 64];
    OpA16 = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [64, 64];
    OpA8 = dot_op(opIdx = 0, parent = Acc, kWidth = 4) for [64, 64];
    AccRows = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 32];
    Swapped = linear(register = [[0, 1], [1, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 4], [0, 16], [0, 2], [2, 0]], warp = [[4, 0], [8, 0]], block = []) for [64, 32];
    // One transposition, no lane permutation (exchanged with a butterfly), and Rows with every
    // element in two registers.
    Pairs = linear(register = [[0, 1], [1, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 2], [2, 0]], warp = [[4, 0], [8, 0]], block = []) for [64, 32];
    Twice = linear(register = [[0, 1], [0, 2], [0, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]], block = []) for [64, 32];
    Cols = blocked(sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 32];
    Bcast = blocked(sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]) for [8, 16];
    BcastT = blocked(sizePerThread = [4, 1], threadsPerWarp = [2, 16], warpsPerCTA = [2, 2], order = [0, 1]) for [8, 16];
    SplitRows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]) for [64, 64];
    SplitCols = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [0, 1]) for [64, 64];
    Tile64 = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    Row = slice(dim = 0, parent = Tile64) for [64];
    Vec1d = blocked(sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]) for [64];
    Swz = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [64, 32];
    Swz64 = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [64, 64];
    Padded = padded_shared([32:+4], order = [1, 0], shape = [64, 32]) for [64, 32];
}

/// A distinct value per element (its coordinates, 16 bits each, hashed into `E`'s bits).
fn value<E: Element>(c: &[u32]) -> E {
    support::value(c.iter().fold(0u64, |a, &x| a << 16 | x as u64))
}

/// This thread's registers of `L`, each its element's [`value`].
fn tile<L: Registers<N>, E: Element, const N: usize>(t: &impl Thread) -> [E; N] {
    core::array::from_fn(|r| {
        let at = [r as u32, t.lane(), t.warp(), t.cta_rank()];
        let c: Vec<u32> = (0..L::RANK).map(|d| L::coord(at, d)).collect();
        value::<E>(&c)
    })
}

fn bits<E: Element, const N: usize>(v: &[E; N]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The kinds of operation on tape `P`.
fn kinds<P: Recorded>() -> BTreeSet<u8> {
    P::OPS.iter().map(|o| o.0).collect()
}

/// `A => B` replayed both ways on `shape`, each to `B`'s values (the conversion's tape ends with
/// its scratch released, so the second replay needs no barrier before it); the tape's kinds.
fn convert_both<A: Registers<N>, B: Registers<M>, E: Element, const N: usize, const M: usize>(
    shape: Launch,
) -> BTreeSet<u8>
where
    Planned<A, B, E>: Recorded,
{
    launch(shape, |t| {
        let x = tile::<A, E, N>(t);
        let want = bits(&tile::<B, E, M>(t));
        let w: [E; M] = written_out::<Planned<A, B, E>, E, _, N, M>(t, &x);
        let l: [E; M] = looped::<Planned<A, B, E>, E, _, N, M>(t, &x);
        assert_eq!(bits(&w), want, "written out");
        assert_eq!(bits(&l), want, "looped");
    })
    .expect("no simulator issue");
    kinds::<Planned<A, B, E>>()
}

/// Registers of `A` stored as shared layout `S` by one replay and loaded back by the other, both
/// ways round; the tapes' kinds.
fn store_load_both<A: Registers<N>, S: Layout, E: Element, const N: usize>() -> BTreeSet<u8>
where
    StoreTape<A, S, E>: Recorded,
    LoadTape<S, A, E>: Recorded,
{
    launch(Launch::new(1, 128, 64 * 1024), |t| {
        let x = tile::<A, E, N>(t);
        let _: [E; 0] = written_out::<StoreTape<A, S, E>, E, _, N, 0>(t, &x);
        t.sync_block();
        let y: [E; N] = looped::<LoadTape<S, A, E>, E, _, 0, N>(t, &[]);
        t.sync_block();
        let _: [E; 0] = looped::<StoreTape<A, S, E>, E, _, N, 0>(t, &y);
        t.sync_block();
        let z: [E; N] = written_out::<LoadTape<S, A, E>, E, _, 0, N>(t, &[]);
        assert_eq!(bits(&y), bits(&x), "written-out store, looped load");
        assert_eq!(bits(&z), bits(&x), "looped store, written-out load");
    })
    .expect("no simulator issue");
    let mut k = kinds::<StoreTape<A, S, E>>();
    k.extend(kinds::<LoadTape<S, A, E>>());
    k
}

fn cta() -> Launch {
    Launch::new(1, 128, 64 * 1024)
}

#[test]
fn both_replays_agree_on_every_kind_of_operation() {
    let cluster = Launch::new(2, 128, 64 * 1024).with_cluster(2);
    let seen: BTreeSet<u8> = [
        // In registers and between lanes.
        convert_both::<Acc, AccPerm, f32, 32, 32>(cta()),
        convert_both::<Acc, OpA16, F16, 32, 32>(cta()),
        convert_both::<OpA16, OpA8, u8, 32, 32>(cta()),
        convert_both::<Rows, Swapped, u32, 16, 16>(cta()),
        convert_both::<Rows, Swapped, u64, 16, 16>(cta()),
        convert_both::<Swapped, Rows, i8, 16, 16>(cta()),
        convert_both::<Rows, Pairs, u16, 16, 16>(cta()),
        convert_both::<Rows, Pairs, u8, 16, 16>(cta()),
        convert_both::<Pairs, Rows, f32, 16, 16>(cta()),
        convert_both::<Rows, Twice, f32, 16, 32>(cta()),
        convert_both::<Row, Vec1d, f32, 4, 1>(cta()),
        convert_both::<Row, Vec1d, u8, 4, 1>(cta()),
        convert_both::<Vec1d, Row, u16, 1, 4>(cta()),
        // Through shared memory, and across a cluster.
        convert_both::<Rows, Cols, f32, 16, 16>(cta()),
        convert_both::<Cols, Rows, u8, 16, 16>(cta()),
        convert_both::<Cols, Twice, u16, 16, 32>(cta()),
        convert_both::<Acc, AccRows, F16, 32, 32>(cta()),
        convert_both::<AccRows, Acc, Bf16, 32, 32>(cta()),
        convert_both::<Acc, AccRows, u64, 32, 32>(cta()),
        convert_both::<Bcast, BcastT, f32, 4, 4>(cta()),
        convert_both::<SplitRows, SplitCols, f32, 16, 16>(cluster),
        // Stores into shared layouts and loads from them.
        store_load_both::<Rows, Swz, u16, 16>(),
        store_load_both::<Cols, Swz, f32, 16>(),
        store_load_both::<Rows, Padded, f32, 16>(),
        store_load_both::<AccRows, Swz64, F16, 32>(),
        store_load_both::<Acc, Swz64, F16, 32>(),
    ]
    .into_iter()
    .flatten()
    .collect();
    let every = [
        kind::MOV,
        kind::COPY,
        kind::PACK,
        kind::SHIFT_DOWN,
        kind::UNPACK,
        kind::UNPACK_PAIR,
        kind::LANE,
        kind::WARP,
        kind::RANK,
        kind::BIT,
        kind::XOR,
        kind::SELECT,
        kind::SHFL_XOR,
        kind::SHFL_IDX,
        kind::OWNER,
        kind::PAD,
        kind::ST,
        kind::LD,
        kind::STMATRIX,
        kind::LDMATRIX,
        kind::BARRIER,
        kind::SCRATCH_WRITE_BEGIN,
        kind::SCRATCH_READS_PENDING,
        kind::TERM,
    ];
    let missed: Vec<u8> = every.into_iter().filter(|k| !seen.contains(k)).collect();
    assert!(missed.is_empty(), "kinds no tape here holds: {:?}", missed);
}
