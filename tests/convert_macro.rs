//! `convert!` end to end: classic layout pairs, their plan costs, and every one run on the
//! simulator (each destination register must hold the element the destination layout names).

mod support;
use linear_layouts::convert;
use linear_layouts::runtime::Strategy;
use support::check;

mod l {
    use linear_layouts::layout;
    layout! {
        // 64x64 f32 tiles, 4 warps.
        pub RowMajor = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
        pub ColMajor = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
        pub RowMajor8 = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
        // MMA accumulator and its operands (Ampere, 4 warps).
        pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [64, 64];
        pub OpA2 = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [64, 64];
        pub OpA4 = dot_op(opIdx = 0, parent = Acc, kWidth = 4) for [64, 64];
        pub OpB2 = dot_op(opIdx = 1, parent = Acc, kWidth = 2) for [64, 64];
        pub AccBlocked = blocked(sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]) for [64, 64];
        // Slices.
        pub Row = slice(dim = 0, parent = RowMajor) for [64];
        pub Col = slice(dim = 1, parent = RowMajor) for [64];
        pub Vec1d = blocked(sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]) for [64];
        // Register-only reshuffles.
        pub RegsA = linear(register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []) for [32, 16];
        pub RegsB = linear(register = [[0, 2], [0, 1]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []) for [32, 16];
        // One register bit swapped with one lane bit: shuffles.
        pub SwapA = linear(register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [], block = []) for [8, 16];
        pub SwapB = linear(register = [[0, 1], [1, 0]], lane = [[0, 4], [0, 8], [0, 2], [2, 0], [4, 0]], warp = [], block = []) for [8, 16];
        // Lanes permuted: shuffles.
        pub LaneA = linear(register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [2, 0]], warp = [], block = []) for [4, 16];
        pub LaneB = linear(register = [[1, 0]], lane = [[0, 8], [0, 4], [0, 2], [0, 1], [2, 0]], warp = [], block = []) for [4, 16];
    }
}

macro_rules! pair {
    ($a:ident => $b:ident, $e:ty, $warps:expr $(, $force:ident)?) => {{
        let c = convert!(l::$a => l::$b, $e $(, $force)?);
        let _ = $warps;
        check(&c, &l::$a::linear_layout(), &l::$b::linear_layout());
        c.cost
    }};
}

#[test]
fn register_permutations() {
    let c = pair!(RegsA => RegsB, f32, 4);
    assert_eq!(c.strategy, Strategy::Registers);
    assert_eq!((c.shuffles, c.selects, c.shared_bytes), (0, 0, 0));
    let c = pair!(RowMajor => RowMajor, u16, 4);
    assert_eq!(c.strategy, Strategy::Nothing);
}

#[test]
fn shuffles() {
    // One transposition, no lane permutation: the ship form, 1.5 selects and 0.5 shuffles per
    // 32-bit word.
    let c = pair!(SwapA => SwapB, f32, 1);
    assert_eq!(c.strategy, Strategy::Shuffles);
    assert_eq!((c.shuffles, c.selects), (2, 6));
    // 16-bit elements pack two to a word when the low register bit stays put.
    let c = pair!(SwapA => SwapB, u16, 1);
    assert_eq!(c.strategy, Strategy::Shuffles);
    let c = pair!(SwapA => SwapB, u8, 1);
    assert_eq!(c.strategy, Strategy::Shuffles);
    let c = pair!(SwapA => SwapB, u64, 1);
    assert_eq!(c.strategy, Strategy::Shuffles);
    // A pure lane permutation: one shfl.idx per word, no selects.
    let c = pair!(LaneA => LaneB, f32, 1);
    assert_eq!(c.strategy, Strategy::Shuffles);
    assert_eq!((c.shuffles, c.selects), (2, 0));
}

#[test]
fn shared_memory() {
    let c = pair!(RowMajor => ColMajor, f32, 4);
    assert_eq!(c.strategy, Strategy::SharedMemory);
    assert_eq!(c.shared_bytes, 64 * 64 * 4);
    let c = pair!(Acc => OpA2, u16, 4);
    assert_eq!(c.strategy, Strategy::SharedMemory);
    let c = pair!(Acc => AccBlocked, f32, 4);
    assert_eq!(c.strategy, Strategy::SharedMemory);
    let c = pair!(RowMajor8 => RowMajor, u8, 4);
    pair!(Acc => OpB2, u16, 4);
    pair!(Acc => OpA4, u8, 4);
    pair!(Row => Vec1d, f32, 4);
    pair!(Col => Vec1d, u64, 4);
    pair!(SwapA => SwapB, f32, 1, shared);
    let _ = c;
}

/// Layouts written inline in `convert!` (TTGIR text or the Rust form, with their shapes) give
/// the same plan as the same layouts defined with `layout!`, in any mix with named ones.
#[test]
fn inline_layouts() {
    let named = pair!(RowMajor => ColMajor, f32, 4);
    let c = convert!(
        #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}> : tensor<64x64xf32>
            => blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64],
        f32
    );
    check(
        &c,
        &l::RowMajor::linear_layout(),
        &l::ColMajor::linear_layout(),
    );
    assert_eq!(c.cost, named);
    let c = convert!(l::RowMajor => blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64], f32);
    check(
        &c,
        &l::RowMajor::linear_layout(),
        &l::ColMajor::linear_layout(),
    );
    assert_eq!(c.cost, named);
    let c = convert!(#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}> : tensor<64x64xf32> => l::ColMajor, f32);
    check(
        &c,
        &l::RowMajor::linear_layout(),
        &l::ColMajor::linear_layout(),
    );
    assert_eq!(c.cost, named);
    // A 64-lane layout inline, with its warp size.
    let c = convert!(
        #[warp_size = 64] linear(register = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], warp = [], block = []) for [16, 8]
            => #[warp_size = 64] linear(register = [[1, 0]], lane = [[0, 2], [0, 4], [0, 1], [2, 0], [4, 0], [8, 0]], warp = [], block = []) for [16, 8],
        u16
    );
    assert_eq!(c.cost.strategy, Strategy::Shuffles);
}
