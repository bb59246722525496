//! The hand-written f16/bf16 conversions against the `half` crate: every half and bfloat16
//! widened, and f32 values around every rounding boundary narrowed.

use gpu_runtime::{Bf16, F16};

#[test]
fn every_half_widens_as_half_does() {
    for h in 0..=u16::MAX {
        let (ours, theirs) = (F16(h).to_f32(), half::f16::from_bits(h).to_f32());
        assert!(
            ours.to_bits() == theirs.to_bits() || (ours.is_nan() && theirs.is_nan()),
            "f16 {:#06x}: {} vs {}",
            h,
            ours,
            theirs
        );
        let (ours, theirs) = (Bf16(h).to_f32(), half::bf16::from_bits(h).to_f32());
        assert!(ours.to_bits() == theirs.to_bits() || (ours.is_nan() && theirs.is_nan()));
    }
}

/// f32 bit patterns that probe rounding: each half's value and its neighbours, halfway points
/// (exact ties) and a pseudo-random sweep.
fn probes() -> impl Iterator<Item = u32> {
    let around = (0..=u16::MAX).flat_map(|h| {
        let x = half::f16::from_bits(h).to_f32().to_bits();
        let y = (h as u32) << 16;
        [
            x,
            x.wrapping_add(1),
            x.wrapping_sub(1),
            x + (1 << 12),
            y,
            y + 0x8000,
            y + 0x7fff,
            y + 0x8001,
        ]
    });
    let mut s = 0x9E37_79B9u32;
    let random = (0..200_000).map(move |_| {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s
    });
    around.chain(random)
}

#[test]
fn f32_narrows_as_half_does() {
    for b in probes() {
        let x = f32::from_bits(b);
        let (ours, theirs) = (F16::from_f32(x), half::f16::from_f32(x));
        let nan = x.is_nan() && half::f16::from_bits(ours.0).is_nan();
        assert!(
            nan || ours.0 == theirs.to_bits(),
            "{:e} ({:#010x}): f16 {:#06x} vs {:#06x}",
            x,
            b,
            ours.0,
            theirs.to_bits()
        );
        let (ours, theirs) = (Bf16::from_f32(x), half::bf16::from_f32(x));
        let nan = x.is_nan() && half::bf16::from_bits(ours.0).is_nan();
        assert!(
            nan || ours.0 == theirs.to_bits(),
            "{:e}: bf16 {:#06x} vs {:#06x}",
            x,
            ours.0,
            theirs.to_bits()
        );
    }
}

#[test]
fn named_constants_are_the_values_they_name() {
    let f16 = [
        F16::ZERO,
        F16::ONE,
        F16::MAX,
        F16::INFINITY,
        F16::NEG_INFINITY,
    ]
    .map(F16::to_f32);
    assert_eq!(f16, [0.0, 1.0, 65504.0, f32::INFINITY, f32::NEG_INFINITY]);
    assert!(F16::ZERO.to_f32().is_sign_positive());
    let bf16 = [
        Bf16::ZERO,
        Bf16::ONE,
        Bf16::MAX,
        Bf16::INFINITY,
        Bf16::NEG_INFINITY,
    ]
    .map(Bf16::to_f32);
    assert_eq!(
        bf16,
        [
            0.0,
            1.0,
            f32::from_bits(0x7f7f_0000),
            f32::INFINITY,
            f32::NEG_INFINITY
        ]
    );
    // The largest finite values: one step further is infinity.
    assert_eq!(F16(F16::MAX.0 + 1), F16::INFINITY);
    assert_eq!(Bf16(Bf16::MAX.0 + 1), Bf16::INFINITY);
}
