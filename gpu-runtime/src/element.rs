//! Element types that conversions move: 8, 16, 32 and 64 bits, as raw bits.

/// A value a layout conversion can move. `to_bits`/`from_bits` are exact round trips.
pub trait Element: Copy + Default + PartialEq + core::fmt::Debug {
    /// Size in bits: 8, 16, 32 or 64.
    const BITS: u32;
    /// The value whose bits are all zero (`from_bits(0)`, as a constant).
    const ZERO: Self;
    /// The raw bits, zero-extended.
    fn to_bits(self) -> u64;
    /// Back from raw bits (the high bits are ignored).
    fn from_bits(b: u64) -> Self;
}

macro_rules! int_element {
    ($($t:ty => $u:ty),*) => {$(
        impl Element for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: Self = 0;
            #[inline(always)]
            fn to_bits(self) -> u64 { self as $u as u64 }
            #[inline(always)]
            fn from_bits(b: u64) -> Self { b as $u as $t }
        }
    )*};
}
int_element!(u8 => u8, i8 => u8, u16 => u16, i16 => u16, u32 => u32, i32 => u32, u64 => u64, i64 => u64);

impl Element for f32 {
    const BITS: u32 = 32;
    const ZERO: Self = 0.0;
    #[inline(always)]
    fn to_bits(self) -> u64 {
        f32::to_bits(self) as u64
    }
    #[inline(always)]
    fn from_bits(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
}

impl Element for f64 {
    const BITS: u32 = 64;
    const ZERO: Self = 0.0;
    #[inline(always)]
    fn to_bits(self) -> u64 {
        f64::to_bits(self)
    }
    #[inline(always)]
    fn from_bits(b: u64) -> Self {
        f64::from_bits(b)
    }
}

/// Two values moved as one (Triton's multi-value `tl.reduce`, e.g. an argmax's value and
/// index): `A` in the low bits, `B` above it; 16, 32 or 64 bits in all.
impl<A: Element, B: Element> Element for (A, B) {
    const BITS: u32 = {
        let b = A::BITS + B::BITS;
        assert!(
            b == 16 || b == 32 || b == 64,
            "a pair of elements must be 16, 32 or 64 bits in all"
        );
        b
    };
    const ZERO: Self = (A::ZERO, B::ZERO);
    #[inline(always)]
    fn to_bits(self) -> u64 {
        self.0.to_bits() | self.1.to_bits() << A::BITS
    }
    #[inline(always)]
    fn from_bits(b: u64) -> Self {
        (A::from_bits(b), B::from_bits(b >> A::BITS))
    }
}

/// Masks (`Tile<L, bool, N>`, Triton's `i1` tensors): one byte.
impl Element for bool {
    const BITS: u32 = 8;
    const ZERO: Self = false;
    #[inline(always)]
    fn to_bits(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn from_bits(b: u64) -> Self {
        b & 1 == 1
    }
}
