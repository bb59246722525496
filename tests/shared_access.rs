//! `convert!` into and out of shared-memory layouts (Triton's local_store / local_load): every
//! element must land at the offset the shared layout names, and load back into the destination
//! layout, on the simulator; both as emitted code and as interpreted tables.
//!
//! Raw shared-memory accesses are `unsafe` (the contract of `Thread`): in these kernels the
//! simulator is what checks it, and some break it on purpose to see it reported.

use linear_layouts::convert::pad_address;
use linear_layouts::planned::Planned;
use linear_layouts::runtime::convert::{ExecuteAccess, SharedLoad, SharedStore};
use linear_layouts::runtime::Strategy;
use linear_layouts::sim::{launch, launch_profiled, Launch};

mod support;
use linear_layouts::{convert, Element, Layout, LinearLayout, Registers, Thread, Tile};

mod l {
    use linear_layouts::layout;
    layout! {
        pub Rows = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
        pub Swz = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [64, 64];
        pub Nv128 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}> : tensor<64x64xf16>;
        pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [64, 64];
        pub OpA = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [64, 64];
        pub OpB = dot_op(opIdx = 1, parent = Acc, kWidth = 2) for [64, 64];
        pub Cute = Swizzle<3, 3, 3> for [64, 64];
        pub Rows32 = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
        pub Swz32 = swizzled_shared(vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]) for [64, 64];
        // A 128x64 tensor over a cluster of 2 CTAs: rows split, or every CTA holding all of it.
        pub RowsC = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]) for [128, 64];
        pub RowsR = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]) for [128, 64];
        pub AccC = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]) for [128, 64];
        pub OpAC = dot_op(opIdx = 0, parent = AccC, kWidth = 2) for [128, 64];
        pub NvC = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}> : tensor<128x64xf16>;
        pub SwzR = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]}> : tensor<128x64xf16>;
        /// AMD's padded layouts: 8 halves of padding after every 512, 2 after every 64.
        pub Pad = #ttg.padded_shared<[512:+8] {order = [1, 0], shape = [64, 64]}> : tensor<64x64xf16>;
        pub Pad2 = #ttg.padded_shared<[64:+2, 1024:+16] {order = [1, 0], shape = [64, 64]}> : tensor<64x64xf16>;
    }
}

fn flat(c: &[u32]) -> u64 {
    c[0] as u64 * 64 + c[1] as u64
}

fn value<E: Element>(id: u64) -> E {
    E::from_bits(id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - E::BITS))
}

/// Store `src`'s registers into `smem`, check every offset's element, load into `dst`.
fn round_trip<
    E: Element,
    const NS: usize,
    const ND: usize,
    X: ExecuteAccess<E, NS>,
    Y: ExecuteAccess<E, ND>,
>(
    st: &SharedStore<E, NS, X>,
    ld: &SharedLoad<E, ND, Y>,
    src: &LinearLayout,
    smem: &LinearLayout,
    dst: &LinearLayout,
) {
    let eb = E::BITS / 8;
    // Offsets per CTA, and CTAs (a cluster of them).
    let elems = smem.in_dim_size("offset") as u32;
    let ctas = src.in_dim_size("block").max(1) as u32;
    let bad = std::sync::atomic::AtomicU32::new(0);
    let l = Launch::new(ctas, 128, st.cost.shared_bytes.max(elems * eb)).with_cluster(ctas);
    let r = launch_profiled(l, |t| {
        let (lane, warp, cta) = (t.lane(), t.warp(), t.cta_rank());
        let vals: [E; NS] =
            std::array::from_fn(|r| value(flat(&src.apply_flat(&[r as u32, lane, warp, cta]))));
        st.store(t, &vals);
        t.sync_block();
        // Every offset of this CTA's buffer holds the element the shared layout names.
        let tid = warp * 32 + lane;
        let mut o = tid;
        while o < elems {
            let w = unsafe { t.ld_shared(pad_address(o * eb, &st.access.padding), eb) };
            let got: E = if E::BITS == 64 {
                linear_layouts::runtime::convert::join(w[0], w[1])
            } else {
                linear_layouts::runtime::convert::field(w[0], 0)
            };
            let want: E = value(flat(&smem.apply_flat(&[o, cta])));
            if got.to_bits() != want.to_bits() {
                bad.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            o += 128;
        }
        let out = ld.load(t);
        for (r, v) in out.iter().enumerate() {
            let want: E = value(flat(&dst.apply_flat(&[r as u32, lane, warp, cta])));
            if v.to_bits() != want.to_bits() {
                bad.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
    });
    let profile = r.unwrap_or_else(|e| panic!("simulator: {}", e));
    if let Err(e) = support::check_access_wavefronts(&st.access, true, &profile, eb) {
        panic!("{}", e);
    }
    // The load's wavefronts, in a launch without the check's own loads.
    let profile = launch_profiled(l, |t| {
        let (lane, warp, cta) = (t.lane(), t.warp(), t.cta_rank());
        let vals: [E; NS] =
            std::array::from_fn(|r| value(flat(&src.apply_flat(&[r as u32, lane, warp, cta]))));
        st.store(t, &vals);
        t.sync_block();
        ld.load(t);
    })
    .unwrap_or_else(|e| panic!("simulator: {}", e));
    if let Err(e) = support::check_access_wavefronts(&ld.access, false, &profile, eb) {
        panic!("{}", e);
    }
    assert_eq!(
        bad.into_inner(),
        0,
        "store {:?} / load {:?}",
        st.access,
        ld.access
    );
}

/// The round trip `src => smem => dst` in generic code (`Planned`, planned from the layouts'
/// tables at compile time), on the simulator: every destination register holds its element.
fn generic_trip<A, S, B, E, const NS: usize, const ND: usize>(ctas: u32, bytes: u32)
where
    A: Registers<NS>,
    S: Layout,
    B: Registers<ND>,
    E: Element,
{
    let l = Launch::new(ctas, 128, bytes).with_cluster(ctas);
    launch(l, |t| {
        let x = Tile::<A, E, NS>::from_coords(t, |c: [u32; 2]| value::<E>(flat(&c)));
        Planned::<A, S, E>::NEW.store(t, &x.values);
        t.sync_block();
        let y: [E; ND] = Planned::<S, B, E>::NEW.load(t);
        let want = Tile::<B, E, ND>::from_coords(t, |c: [u32; 2]| value::<E>(flat(&c)));
        let same = y.iter().zip(&want.values);
        assert!(same.clone().all(|(a, b)| a.to_bits() == b.to_bits()));
    })
    .expect("no simulator issue");
}

macro_rules! trip {
    ($a:ident => $s:ident => $b:ident, $e:ty) => {{
        let st = convert!(l::$a => l::$s, $e);
        let ld = convert!(l::$s => l::$b, $e);
        let (a, s, b) = (l::$a::linear_layout(), l::$s::linear_layout(), l::$b::linear_layout());
        // The accesses interpreted from their tables; `generic_trip` below replays their tapes.
        round_trip(&st.shared_store::<NS>(), &ld.shared_load::<ND>(), &a, &s, &b);
        let ctas = a.in_dim_size("block").max(1) as u32;
        let bytes = st.cost.shared_bytes.max(ld.cost.shared_bytes);
        const NS: usize = <l::$a as Layout>::ELEMENTS_PER_THREAD as usize;
        const ND: usize = <l::$b as Layout>::ELEMENTS_PER_THREAD as usize;
        generic_trip::<l::$a, l::$s, l::$b, $e, NS, ND>(ctas, bytes);
        (st.cost, ld.cost)
    }};
}

#[test]
fn stores_and_loads_follow_the_shared_layout() {
    // The classic pairs' two round trips first.
    let (st, ld) = trip!(Rows => Swz => OpA, u16);
    assert_eq!(st.strategy, Strategy::SharedMemory);
    assert_eq!((st.stores, st.vector), (4, 8), "16-byte stores of 8 halves");
    assert!(ld.loads <= 8, "{:?}", ld);
    let (st, _) = trip!(Acc => Nv128 => OpB, u16);
    assert_eq!(st.shared_bytes, 64 * 64 * 2);
    trip!(Rows => Nv128 => OpA, u16);
    trip!(Rows => Cute => Rows, u16);
    trip!(Rows32 => Swz32 => Rows32, f32);
    trip!(Acc => Swz32 => Rows32, f32);
}

/// Padded layouts: every element at its padded address, accesses no wider than a pad keeps
/// aligned, the padding counted in the buffer's size; the type carries its padding.
#[test]
fn padded_layouts_keep_their_padding() {
    assert_eq!(l::Pad::PADDING, &[(512, 8)]);
    assert_eq!(
        <l::Pad2 as linear_layouts::Layout>::PADDING,
        &[(64, 2), (1024, 16)]
    );
    let (st, ld) = trip!(Rows => Pad => OpA, u16);
    assert_eq!(
        (st.vector, st.shared_bytes),
        (8, (4096 + 7 * 8) * 2),
        "no pad after the last interval, as Triton sizes it"
    );
    assert!(ld.loads > 0);
    let (st, _) = trip!(Rows => Pad2 => Rows, u16);
    assert_eq!(st.vector, 2, "4-byte pads keep 4-byte accesses aligned");
    assert_eq!(st.shared_bytes, (4096 + 63 * 2 + 3 * 16) * 2);
}

/// Layouts over a cluster of 2 CTAs: each CTA stores into and loads from its own shared memory
/// (a shared layout split like the registers, or one every CTA keeps whole).
#[test]
fn multi_cta_stores_and_loads_stay_in_each_cta() {
    let (st, ld) = trip!(RowsC => NvC => OpAC, u16);
    // Each CTA's buffer holds its 64 rows.
    assert_eq!(
        (st.shared_bytes, ld.shared_bytes),
        (64 * 64 * 2, 64 * 64 * 2)
    );
    assert_eq!((st.stores, st.vector), (4, 8));
    let (st, _) = trip!(RowsR => SwzR => RowsC, u16);
    assert_eq!(st.shared_bytes, 128 * 64 * 2);
}
