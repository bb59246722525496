//! [`Tile`]'s operators, as Triton's and Gluon's tensors have them: `+ - * / %`, the bitwise
//! `& | ^` and unary `-`/`!` element by element between two tiles of one layout, a tile and a
//! tile of a slice of its layout (the slice broadcast along its dim, as Triton broadcasts
//! `x - m[:, None]`), or a tile and a scalar on either side; the compound assignments;
//! comparisons (`lt`, `le`, `gt`, `ge`, `equal`, `not_equal`) giving a `Tile<L, bool, N>` mask;
//! [`Tile::select`] (`tl.where`) and [`Tile::fma`] (`tl.fma`) with the same operands. Each is
//! one instruction per register, written out as `map`/`zip_with` would write it.
//!
//! ```
//! use linear_layouts::{layout, Tile};
//!
//! layout! {
//!     Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
//!     RowStats = slice(dim = 1, parent = Rows) for [16];
//! }
//!
//! let x = Tile::<Rows, f32, 4>::splat(3.0);
//! let y = (x * 2.0 - 1.0) / x + 0.5;
//! assert_eq!(y.values, [5.0 / 3.0 + 0.5; 4]);
//! let big = y.gt(1.0);
//! assert_eq!(x.select(&big, -x).values, [3.0; 4]);
//! assert_eq!(x.select(&big.not_equal(true), 0.0).values, [0.0; 4]);
//! // A row statistic (what `x.max::<1>(t)` gives) broadcast along the rows.
//! let m = Tile::<RowStats, f32, 1>::splat(1.0);
//! assert_eq!((x - m).values, [2.0; 4]);
//! assert_eq!(x.gt(m).values, [true; 4]);
//! assert_eq!(x.fma(m, 0.5).values, [3.5; 4]);
//! ```

use core::ops::{
    Add, AddAssign, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Div, DivAssign,
    Mul, MulAssign, Neg, Not, Rem, RemAssign, Sub, SubAssign,
};

use crate::element::Element;
use crate::layout::Registers;
use crate::slices::BroadcastTo;
use crate::tile::Tile;

/// What a tile is combined with element by element: another tile of its layout (each register
/// with its own), a tile of a slice of its layout (each register with its row's or column's
/// value: [`BroadcastTo`]) or a scalar (every register with it).
pub trait Operand<L: Registers<N>, E, const N: usize>: Copy {
    /// The value combined with register `r`.
    fn at(&self, r: usize) -> E;
}

impl<
        L: Registers<N>,
        S: Registers<M> + BroadcastTo<L>,
        E: Element,
        const N: usize,
        const M: usize,
    > Operand<L, E, N> for Tile<S, E, M>
{
    #[inline(always)]
    fn at(&self, r: usize) -> E {
        self.values[S::source(r)]
    }
}

impl<
        L: Registers<N>,
        S: Registers<M> + BroadcastTo<L>,
        E: Element,
        const N: usize,
        const M: usize,
    > Operand<L, E, N> for &Tile<S, E, M>
{
    #[inline(always)]
    fn at(&self, r: usize) -> E {
        Operand::<L, E, N>::at(*self, r)
    }
}

impl<L: Registers<N>, E: Element, const N: usize> Tile<L, E, N> {
    /// `f(element, rhs's)` for every register: the binary operators' one loop.
    #[inline(always)]
    fn combine<F: Element>(
        &self,
        rhs: impl Operand<L, E, N>,
        f: impl Fn(E, E) -> F,
    ) -> Tile<L, F, N> {
        let mut out = [F::default(); N];
        crate::unroll!(N, |r| out[r] = f(self.values[r], rhs.at(r)));
        Tile::new(out)
    }
}

/// Tile op tile, tile op scalar, scalar op tile, and the compound assignments, for `$Op`.
macro_rules! binary {
    ($Op:ident, $op:ident, $OpAssign:ident, $op_assign:ident; $($scalar:ty),*) => {
        impl<
                L: Registers<N>,
                S: Registers<M> + BroadcastTo<L>,
                E: Element + $Op<Output = E>,
                const N: usize,
                const M: usize,
            > $Op<Tile<S, E, M>> for Tile<L, E, N>
        {
            type Output = Self;
            #[inline(always)]
            fn $op(self, rhs: Tile<S, E, M>) -> Self {
                self.combine(rhs, |a, b| a.$op(b))
            }
        }

        impl<
                L: Registers<N>,
                S: Registers<M> + BroadcastTo<L>,
                E: Element + $Op<Output = E>,
                const N: usize,
                const M: usize,
            > $OpAssign<Tile<S, E, M>> for Tile<L, E, N>
        {
            #[inline(always)]
            fn $op_assign(&mut self, rhs: Tile<S, E, M>) {
                *self = (*self).$op(rhs);
            }
        }

        $(
            impl<L: Registers<N>, const N: usize> $Op<$scalar> for Tile<L, $scalar, N> {
                type Output = Self;
                #[inline(always)]
                fn $op(self, rhs: $scalar) -> Self {
                    self.map(|a| a.$op(rhs))
                }
            }

            impl<L: Registers<N>, const N: usize> $Op<Tile<L, $scalar, N>> for $scalar {
                type Output = Tile<L, $scalar, N>;
                #[inline(always)]
                fn $op(self, rhs: Tile<L, $scalar, N>) -> Tile<L, $scalar, N> {
                    rhs.map(|b| self.$op(b))
                }
            }

            impl<L: Registers<N>, const N: usize> $OpAssign<$scalar> for Tile<L, $scalar, N> {
                #[inline(always)]
                fn $op_assign(&mut self, rhs: $scalar) {
                    *self = self.map(|a| a.$op(rhs));
                }
            }
        )*
    };
}

binary!(Add, add, AddAssign, add_assign; f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);
binary!(Sub, sub, SubAssign, sub_assign; f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);
binary!(Mul, mul, MulAssign, mul_assign; f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);
binary!(Div, div, DivAssign, div_assign; f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);
binary!(Rem, rem, RemAssign, rem_assign; f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);
binary!(BitAnd, bitand, BitAndAssign, bitand_assign; bool, i8, i16, i32, i64, u8, u16, u32, u64);
binary!(BitOr, bitor, BitOrAssign, bitor_assign; bool, i8, i16, i32, i64, u8, u16, u32, u64);
binary!(BitXor, bitxor, BitXorAssign, bitxor_assign; bool, i8, i16, i32, i64, u8, u16, u32, u64);

impl<L: Registers<N>, E: Element + Neg<Output = E>, const N: usize> Neg for Tile<L, E, N> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        self.map(|a| -a)
    }
}

impl<L: Registers<N>, E: Element + Not<Output = E>, const N: usize> Not for Tile<L, E, N> {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        self.map(|a| !a)
    }
}

/// Scalars a tile compares with: each is an [`Operand`] of tiles of its type.
macro_rules! scalar_operand {
    ($($scalar:ty),*) => {$(
        impl<L: Registers<N>, const N: usize> Operand<L, $scalar, N> for $scalar {
            #[inline(always)]
            fn at(&self, _: usize) -> $scalar {
                *self
            }
        }
    )*};
}

scalar_operand!(bool, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);

impl<L: Registers<N>, E: Element, const N: usize> Tile<L, E, N> {
    /// `self`'s element where `mask` is true, `other`'s elsewhere (Triton's `tl.where`):
    /// `other` a tile of this layout, of a slice of it, or a scalar (`x.select(&inside, 0.0)`).
    #[inline(always)]
    pub fn select(&self, mask: &Tile<L, bool, N>, other: impl Operand<L, E, N>) -> Self {
        let mut out = [E::default(); N];
        crate::unroll!(N, |r| out[r] = if mask.values[r] {
            self.values[r]
        } else {
            other.at(r)
        });
        Self::new(out)
    }

    /// `self * mul + add`, rounded once per element (Triton's `tl.fma`: one `fma.rn.f32`
    /// each), `mul` and `add` each a tile of this layout, of a slice of it, or a scalar.
    #[inline(always)]
    pub fn fma(&self, mul: impl Operand<L, E, N>, add: impl Operand<L, E, N>) -> Self
    where
        E: crate::math::Real,
    {
        let mut out = [E::default(); N];
        crate::unroll!(N, |r| out[r] =
            crate::math::fma(self.values[r], mul.at(r), add.at(r)));
        Tile::new(out)
    }

    /// `f(element, rhs's)` for every register, a mask.
    #[inline(always)]
    fn compare(&self, rhs: impl Operand<L, E, N>, f: impl Fn(E, E) -> bool) -> Tile<L, bool, N> {
        self.combine(rhs, f)
    }

    /// Where `self < rhs` (a tile of this layout or a scalar): Triton's `x < y`.
    #[inline(always)]
    pub fn lt(&self, rhs: impl Operand<L, E, N>) -> Tile<L, bool, N>
    where
        E: PartialOrd,
    {
        self.compare(rhs, |a, b| a < b)
    }

    /// Where `self <= rhs`.
    #[inline(always)]
    pub fn le(&self, rhs: impl Operand<L, E, N>) -> Tile<L, bool, N>
    where
        E: PartialOrd,
    {
        self.compare(rhs, |a, b| a <= b)
    }

    /// Where `self > rhs`.
    #[inline(always)]
    pub fn gt(&self, rhs: impl Operand<L, E, N>) -> Tile<L, bool, N>
    where
        E: PartialOrd,
    {
        self.compare(rhs, |a, b| a > b)
    }

    /// Where `self >= rhs`.
    #[inline(always)]
    pub fn ge(&self, rhs: impl Operand<L, E, N>) -> Tile<L, bool, N>
    where
        E: PartialOrd,
    {
        self.compare(rhs, |a, b| a >= b)
    }

    /// Where `self == rhs`, element by element (`==` on tiles compares them whole).
    #[inline(always)]
    pub fn equal(&self, rhs: impl Operand<L, E, N>) -> Tile<L, bool, N> {
        self.compare(rhs, |a, b| a == b)
    }

    /// Where `self != rhs`, element by element.
    #[inline(always)]
    pub fn not_equal(&self, rhs: impl Operand<L, E, N>) -> Tile<L, bool, N> {
        self.compare(rhs, |a, b| a != b)
    }
}
