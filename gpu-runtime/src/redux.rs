//! Named reduction operators ([`Sum`], [`Max`], [`Min`], [`BitAnd`], [`BitOr`], [`BitXor`]):
//! what `Tile::sum`/`max`/`min`/`reduce_op` combine with, and which of them a warp reduces in
//! one `redux.sync` ([`Redux`]). Triton lowers a reduction over all 32 lanes of a warp to
//! `redux.sync` where the combiner is one integer operation on at most 32 bits (sm_80 and
//! later: add, and, or, xor, signed and unsigned min and max); a closure cannot be recognised,
//! so these operators name it.

/// One `redux.sync` operation on 32-bit words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Redux {
    /// `redux.sync.add.u32` (wrapping).
    Add,
    /// `redux.sync.and.b32`.
    And,
    /// `redux.sync.or.b32`.
    Or,
    /// `redux.sync.xor.b32`.
    Xor,
    /// `redux.sync.min.s32`.
    Min,
    /// `redux.sync.max.s32`.
    Max,
    /// `redux.sync.min.u32`.
    UMin,
    /// `redux.sync.max.u32`.
    UMax,
}

impl Redux {
    /// The operation on two words, as the instruction computes it.
    #[inline(always)]
    pub const fn apply(self, a: u32, b: u32) -> u32 {
        match self {
            Redux::Add => a.wrapping_add(b),
            Redux::And => a & b,
            Redux::Or => a | b,
            Redux::Xor => a ^ b,
            Redux::Min => {
                if (a as i32) < (b as i32) {
                    a
                } else {
                    b
                }
            }
            Redux::Max => {
                if (a as i32) > (b as i32) {
                    a
                } else {
                    b
                }
            }
            Redux::UMin => {
                if a < b {
                    a
                } else {
                    b
                }
            }
            Redux::UMax => {
                if a > b {
                    a
                } else {
                    b
                }
            }
        }
    }

    /// The word that leaves any other unchanged: what lanes that take no part contribute.
    pub const fn identity(self) -> u32 {
        match self {
            Redux::Add | Redux::Or | Redux::Xor | Redux::UMax => 0,
            Redux::And | Redux::UMin => u32::MAX,
            Redux::Min => i32::MAX as u32,
            Redux::Max => i32::MIN as u32,
        }
    }

    /// Whether an element narrower than 32 bits is sign-extended into the word (signed min and
    /// max), not zero-extended.
    pub const fn signed(self) -> bool {
        matches!(self, Redux::Min | Redux::Max)
    }

    /// The instruction's mnemonic.
    pub const fn mnemonic(self) -> &'static str {
        match self {
            Redux::Add => "redux.sync.add.u32",
            Redux::And => "redux.sync.and.b32",
            Redux::Or => "redux.sync.or.b32",
            Redux::Xor => "redux.sync.xor.b32",
            Redux::Min => "redux.sync.min.s32",
            Redux::Max => "redux.sync.max.s32",
            Redux::UMin => "redux.sync.min.u32",
            Redux::UMax => "redux.sync.max.u32",
        }
    }
}

/// A named reduction operator over elements `E`: associative and commutative, with the
/// `redux.sync` operation that computes it for a whole warp, where one does.
pub trait Op<E>: Copy {
    /// The instruction for a warp, if any (integers of at most 32 bits).
    const REDUX: Option<Redux>;
    /// Combine two elements.
    fn combine(self, a: E, b: E) -> E;
}

/// `+` (wrapping for integers): `tl.sum`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sum;
/// The larger: `tl.max` (for floats, a NaN operand gives the other, as `f32::max`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Max;
/// The smaller: `tl.min`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Min;
/// Bitwise and.
#[derive(Clone, Copy, Debug, Default)]
pub struct BitAnd;
/// Bitwise or.
#[derive(Clone, Copy, Debug, Default)]
pub struct BitOr;
/// Bitwise xor.
#[derive(Clone, Copy, Debug, Default)]
pub struct BitXor;

/// `op` where the type has `redux` (a word of at most 32 bits) at all.
const fn also(redux: Option<Redux>, op: Redux) -> Option<Redux> {
    match redux {
        Some(_) => Some(op),
        None => None,
    }
}

macro_rules! int_ops {
    ($($t:ty: $redux:expr, $min:expr, $max:expr;)*) => {$(
        impl Op<$t> for Sum {
            const REDUX: Option<Redux> = $redux;
            #[inline(always)]
            fn combine(self, a: $t, b: $t) -> $t { a.wrapping_add(b) }
        }
        impl Op<$t> for Max {
            const REDUX: Option<Redux> = $max;
            #[inline(always)]
            fn combine(self, a: $t, b: $t) -> $t { if a > b { a } else { b } }
        }
        impl Op<$t> for Min {
            const REDUX: Option<Redux> = $min;
            #[inline(always)]
            fn combine(self, a: $t, b: $t) -> $t { if a < b { a } else { b } }
        }
        impl Op<$t> for BitAnd {
            const REDUX: Option<Redux> = also($redux, Redux::And);
            #[inline(always)]
            fn combine(self, a: $t, b: $t) -> $t { a & b }
        }
        impl Op<$t> for BitOr {
            const REDUX: Option<Redux> = also($redux, Redux::Or);
            #[inline(always)]
            fn combine(self, a: $t, b: $t) -> $t { a | b }
        }
        impl Op<$t> for BitXor {
            const REDUX: Option<Redux> = also($redux, Redux::Xor);
            #[inline(always)]
            fn combine(self, a: $t, b: $t) -> $t { a ^ b }
        }
    )*};
}

int_ops! {
    u8: Some(Redux::Add), Some(Redux::UMin), Some(Redux::UMax);
    u16: Some(Redux::Add), Some(Redux::UMin), Some(Redux::UMax);
    u32: Some(Redux::Add), Some(Redux::UMin), Some(Redux::UMax);
    i8: Some(Redux::Add), Some(Redux::Min), Some(Redux::Max);
    i16: Some(Redux::Add), Some(Redux::Min), Some(Redux::Max);
    i32: Some(Redux::Add), Some(Redux::Min), Some(Redux::Max);
    u64: None, None, None;
    i64: None, None, None;
}

macro_rules! float_ops {
    ($($t:ty),*) => {$(
        impl Op<$t> for Sum {
            const REDUX: Option<Redux> = None;
            #[inline(always)]
            fn combine(self, a: $t, b: $t) -> $t { a + b }
        }
        impl Op<$t> for Max {
            const REDUX: Option<Redux> = None;
            #[inline(always)]
            fn combine(self, a: $t, b: $t) -> $t { a.max(b) }
        }
        impl Op<$t> for Min {
            const REDUX: Option<Redux> = None;
            #[inline(always)]
            fn combine(self, a: $t, b: $t) -> $t { a.min(b) }
        }
    )*};
}

float_ops!(f32, f64);

macro_rules! half_ops {
    ($($t:ty),*) => {$(
        /// In f32, rounded back to the element once per combination.
        impl Op<$t> for Sum {
            const REDUX: Option<Redux> = None;
            #[inline(always)]
            fn combine(self, a: $t, b: $t) -> $t { <$t>::round(a.widen() + b.widen()) }
        }
        impl Op<$t> for Max {
            const REDUX: Option<Redux> = None;
            #[inline(always)]
            fn combine(self, a: $t, b: $t) -> $t { <$t>::round(a.widen().max(b.widen())) }
        }
        impl Op<$t> for Min {
            const REDUX: Option<Redux> = None;
            #[inline(always)]
            fn combine(self, a: $t, b: $t) -> $t { <$t>::round(a.widen().min(b.widen())) }
        }
    )*};
}

half_ops!(crate::float16::F16, crate::float16::Bf16);

/// Element `bits` (of `elem_bits`) as `op`'s word: sign-extended for signed min and max.
#[inline(always)]
pub const fn widen(op: Redux, bits: u64, elem_bits: u32) -> u32 {
    if elem_bits >= 32 || !op.signed() {
        return bits as u32;
    }
    let shift = 32 - elem_bits;
    (((bits as u32) << shift) as i32 >> shift) as u32
}

/// The reduction of `words` (one per lane of a warp) by `op`, lane 0 first: what every lane
/// receives from `redux.sync`.
pub const fn fold(op: Redux, words: &[u32]) -> u32 {
    let mut acc = words[0];
    let mut i = 1;
    while i < words.len() {
        acc = op.apply(acc, words[i]);
        i += 1;
    }
    acc
}
