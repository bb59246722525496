//! Layout changes that move no data (Triton's `tt.trans`, `tt.expand_dims`, `tt.reshape`,
//! `tt.join`, `tt.split`): each thread keeps its registers and the tile takes the layout type the
//! operation gives, which the caller names and which is checked against the source layout's
//! tables at compile time (with no instructions in the code).
//!
//! * `trans::<T>()`: `T` is `L` with its dims permuted (the order is found from the tables).
//! * `expand_dims::<AXIS, T>()`: `T` is `L` with a new dim of size 1 at `AXIS` (Triton's
//!   `tt.expand_dims`, the step between a reduction's slice and its broadcast).
//! * `reshape::<T>()`: `T` maps every thread and register to the same row-major position of a
//!   tensor of another shape with as many elements (power-of-two shapes make that a relabelling
//!   of bits).
//! * `join::<J>(&b)`: two tiles of `L` as one of `J`, `L` with a new minor dim of size 2 held
//!   in a new lowest register bit (`J`'s register 2r is `self`'s r, 2r + 1 is `b`'s r), as
//!   Triton's `tt.join` lays it out; `split::<S>()` is the inverse. `join_into`/`split_into`
//!   name the count, for a layout `layout!` did not declare.

use crate::element::Element;
use crate::layout::{Registers, Tables};
use crate::slices::{Build, Distributed, TileOf};
use crate::tile::Tile;
use layout_plan::msg::Msg;

/// Coordinate `k` of basis `bit` of in-dim `i` of `t`.
const fn basis(t: &Tables, i: usize, bit: usize, k: usize) -> u32 {
    t.in_dims[i].basis(bit, t.rank)[k]
}

const fn bits(t: &Tables, i: usize) -> usize {
    t.in_dims[i].size.trailing_zeros() as usize
}

/// Whether `t` is `l` with dims permuted by `order` (`t`'s dim `k` is `l`'s `order[k]`).
const fn permuted(l: &Tables, t: &Tables, order: &[usize; 8]) -> bool {
    if l.rank != t.rank || l.in_dims.len() != t.in_dims.len() {
        return false;
    }
    let mut k = 0;
    while k < l.rank {
        if t.shape[k] != l.shape[order[k]] {
            return false;
        }
        k += 1;
    }
    let mut i = 0;
    while i < l.in_dims.len() {
        if bits(l, i) != bits(t, i) {
            return false;
        }
        let mut bit = 0;
        while bit < bits(l, i) {
            let mut k = 0;
            while k < l.rank {
                if basis(t, i, bit, k) != basis(l, i, bit, order[k]) {
                    return false;
                }
                k += 1;
            }
            bit += 1;
        }
        i += 1;
    }
    true
}

/// The next permutation of `p[..n]` in lexicographic order, or false after the last.
const fn next_permutation(p: &mut [usize; 8], n: usize) -> bool {
    if n < 2 {
        return false;
    }
    let mut i = n - 1;
    while i > 0 && p[i - 1] >= p[i] {
        i -= 1;
    }
    if i == 0 {
        return false;
    }
    let mut j = n - 1;
    while p[j] <= p[i - 1] {
        j -= 1;
    }
    let tmp = p[i - 1];
    p[i - 1] = p[j];
    p[j] = tmp;
    let mut k = n - 1;
    while i < k {
        let tmp = p[i];
        p[i] = p[k];
        p[k] = tmp;
        i += 1;
        k -= 1;
    }
    true
}

/// `t` is a transpose of `l`, or a compile error naming both.
const fn check_trans(l: Tables, t: Tables) {
    let mut order = [0, 1, 2, 3, 4, 5, 6, 7];
    if l.rank <= 8 {
        loop {
            if permuted(&l, &t, &order) {
                return;
            }
            if !next_permutation(&mut order, l.rank) {
                break;
            }
        }
    }
    let mut m = Msg::new();
    m.push("trans: `")
        .push(t.name)
        .push("` is not `")
        .push(l.name);
    m.push("` with its dims permuted (the same bases, shape and in-dims, coordinates reordered)");
    panic!("{}", m.as_str())
}

/// The row-major position in `shape` of coordinates `c`, for power-of-two extents: a relabelling
/// of bits, so positions of XOR-combined bases XOR.
const fn flat(t: &Tables, i: usize, bit: usize) -> u32 {
    let (mut pos, mut k) = (0u32, 0);
    while k < t.rank {
        pos = pos * t.shape[k] + basis(t, i, bit, k);
        k += 1;
    }
    pos
}

/// `t` is a reshape of `l`, or a compile error naming both.
const fn check_reshape(l: Tables, t: Tables) {
    let mut same = l.in_dims.len() == t.in_dims.len();
    let (mut el, mut et, mut k) = (1u64, 1u64, 0);
    while k < l.rank {
        el *= l.shape[k] as u64;
        k += 1;
    }
    k = 0;
    while k < t.rank {
        et *= t.shape[k] as u64;
        k += 1;
    }
    same = same && el == et;
    let mut i = 0;
    while same && i < l.in_dims.len() {
        same = bits(&l, i) == bits(&t, i);
        let mut bit = 0;
        while same && bit < bits(&l, i) {
            same = flat(&l, i, bit) == flat(&t, i, bit);
            bit += 1;
        }
        i += 1;
    }
    if !same {
        let mut m = Msg::new();
        m.push("reshape: `")
            .push(t.name)
            .push("` does not hold each element where `")
            .push(l.name);
        m.push("` does, counted row-major (Triton's reshape of a linear layout)");
        panic!("{}", m.as_str())
    }
}

/// `j` is `l` joined (a new minor dim of 2 in a new lowest register bit), or a compile error.
const fn check_join(l: Tables, j: Tables) {
    let r = l.rank;
    let mut same = j.rank == r + 1 && j.in_dims.len() == l.in_dims.len() && j.shape[r] == 2;
    let mut k = 0;
    while same && k < r {
        same = j.shape[k] == l.shape[k];
        k += 1;
    }
    let mut i = 0;
    while same && i < l.in_dims.len() {
        // Registers gain bit 0 along the new dim; every other basis keeps its coordinates.
        let shift = (i == 0) as usize;
        same = bits(&j, i) == bits(&l, i) + shift;
        if same && shift == 1 {
            let mut k = 0;
            while k <= r {
                same = same && basis(&j, 0, 0, k) == (k == r) as u32;
                k += 1;
            }
        }
        let mut bit = 0;
        while same && bit < bits(&l, i) {
            let mut k = 0;
            while k < r {
                same = same && basis(&j, i, bit + shift, k) == basis(&l, i, bit, k);
                k += 1;
            }
            same = same && basis(&j, i, bit + shift, r) == 0;
            bit += 1;
        }
        i += 1;
    }
    if !same {
        let mut m = Msg::new();
        m.push("join: `")
            .push(j.name)
            .push("` is not `")
            .push(l.name);
        m.push("` with a new minor dim of size 2 in a new lowest register bit (Triton's tt.join)");
        panic!("{}", m.as_str())
    }
}

/// `t` is `l` with a new dim of size 1 at `axis` (each basis 0 along it), or a compile error.
const fn check_expand(l: Tables, t: Tables, axis: usize) {
    let r = l.rank;
    let mut same = axis <= r && t.rank == r + 1 && t.in_dims.len() == l.in_dims.len();
    let mut k = 0;
    while same && k <= r {
        same = t.shape[k]
            == if k == axis {
                1
            } else {
                l.shape[k - (k > axis) as usize]
            };
        k += 1;
    }
    let mut i = 0;
    while same && i < l.in_dims.len() {
        same = bits(&t, i) == bits(&l, i);
        let mut bit = 0;
        while same && bit < bits(&l, i) {
            let mut k = 0;
            while same && k <= r {
                same = basis(&t, i, bit, k)
                    == if k == axis {
                        0
                    } else {
                        basis(&l, i, bit, k - (k > axis) as usize)
                    };
                k += 1;
            }
            bit += 1;
        }
        i += 1;
    }
    if !same {
        let mut m = Msg::new();
        m.push("expand_dims: `")
            .push(t.name)
            .push("` is not `")
            .push(l.name);
        m.push("` with a new dim of size 1 at the axis (the same bases, 0 along it): write the parent layout for a shape of 1 along that dim");
        panic!("{}", m.as_str())
    }
}

impl<L: Registers<N>, E: Element, const N: usize> Tile<L, E, N> {
    /// The same registers as a tile of `T`, this tensor with a new dim of size 1 at `AXIS`
    /// (Triton's `tt.expand_dims`): no instructions. `T` is typically the slice's parent layout
    /// written for a shape of 1 along the sliced dim; [`Tile::broadcast`] goes on to the whole
    /// parent tile. Any other `T` is a compile error.
    ///
    /// ```
    /// use linear_layouts::sim::{launch, Launch};
    /// use linear_layouts::{layout, Tile};
    ///
    /// layout! {
    ///     Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
    ///     RowSums = slice(dim = 1, parent = Rows) for [16];
    ///     Column = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 1];
    /// }
    ///
    /// launch(Launch::new(1, 128, 0), |t| {
    ///     let s = Tile::<RowSums, u32, 1>::from_coords(t, |[i]| i);
    ///     let c = s.expand_dims::<1, Column>();
    ///     assert_eq!(c.values, Tile::<Column, u32, 1>::from_coords(t, |[i, _]| i).values);
    /// })
    /// .unwrap();
    /// ```
    ///
    /// The new dim at another axis than `T` has it is an error:
    ///
    /// ```compile_fail
    /// # use linear_layouts::{layout, Tile};
    /// # layout! {
    /// #     Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
    /// #     RowSums = slice(dim = 1, parent = Rows) for [16];
    /// #     Column = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 1];
    /// # }
    /// let _ = Tile::<RowSums, u32, 1>::splat(0).expand_dims::<0, Column>();
    /// ```
    #[inline(always)]
    pub fn expand_dims<const AXIS: usize, T: Registers<N>>(&self) -> Tile<T, E, N> {
        const { check_expand(L::TABLES, T::TABLES, AXIS) };
        Tile::new(self.values)
    }

    /// The same registers as a tile of `T`, `L` with its dims permuted (Triton's `tt.trans`):
    /// no instructions; a `T` that is not a transpose of `L` is a compile error:
    ///
    /// ```compile_fail
    /// use linear_layouts::{layout, Tile};
    ///
    /// layout! {
    ///     Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
    ///     // 32 x 16, but lanes split 8 x 4 the other way round: not Rows transposed.
    ///     Other = blocked(sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]) for [32, 16];
    /// }
    ///
    /// let _ = Tile::<Rows, f32, 4>::splat(0.0).trans::<Other>();
    /// ```
    #[inline(always)]
    pub fn trans<T: Registers<N>>(&self) -> Tile<T, E, N> {
        const { check_trans(L::TABLES, T::TABLES) };
        Tile::new(self.values)
    }

    /// The same registers as a tile of `T`, a tensor of another shape holding every element at
    /// the same row-major position (Triton's `tt.reshape` without reordering): no instructions;
    /// anything else is a compile error.
    #[inline(always)]
    pub fn reshape<T: Registers<N>>(&self) -> Tile<T, E, N> {
        const { check_reshape(L::TABLES, T::TABLES) };
        Tile::new(self.values)
    }

    /// `self` and `other` as one tile of `J` with a new minor dim of size 2 (`self` at index 0):
    /// Triton's `tt.join`. No data moves between threads.
    #[inline(always)]
    pub fn join<J: Distributed>(&self, other: &Self) -> TileOf<J, E> {
        J::build(Joining(self, other))
    }

    /// The two halves along the minor dim of size 2 (Triton's `tt.split`): `L` must be `S`
    /// joined.
    #[inline(always)]
    pub fn split<S: Distributed>(&self) -> (TileOf<S, E>, TileOf<S, E>) {
        (
            S::build(Half::<_, _, N, 0>(self)),
            S::build(Half::<_, _, N, 1>(self)),
        )
    }

    /// [`Tile::join`] into `J` of `M` registers named (for a `J` that is not [`Distributed`]).
    #[inline(always)]
    pub fn join_into<J: Registers<M>, const M: usize>(&self, other: &Self) -> Tile<J, E, M> {
        const {
            assert!(
                M == 2 * N,
                "join: the joined tile holds twice the registers"
            );
            check_join(L::TABLES, J::TABLES)
        };
        let mut out = [E::default(); M];
        crate::unroll!(N, |r| {
            out[2 * r] = self.values[r];
            out[2 * r + 1] = other.values[r];
        });
        Tile::new(out)
    }

    /// [`Tile::split`] into `S` of `M` registers named (for an `S` that is not
    /// [`Distributed`]).
    #[inline(always)]
    pub fn split_into<S: Registers<M>, const M: usize>(&self) -> (Tile<S, E, M>, Tile<S, E, M>) {
        (self.half::<S, M, 0>(), self.half::<S, M, 1>())
    }

    /// Half `H` (0 or 1) along the minor dim of size 2.
    #[inline(always)]
    fn half<S: Registers<M>, const M: usize, const H: usize>(&self) -> Tile<S, E, M> {
        const {
            assert!(N == 2 * M, "split: each half holds half the registers");
            assert!(H < 2, "split: a tile has two halves");
            check_join(S::TABLES, L::TABLES)
        };
        let mut out = [E::default(); M];
        crate::unroll!(M, |r| out[r] = self.values[2 * r + H]);
        Tile::new(out)
    }
}

/// Two tiles joined, built at the joined layout's count.
struct Joining<'a, L: Registers<N>, E, const N: usize>(&'a Tile<L, E, N>, &'a Tile<L, E, N>);

impl<L: Registers<N>, J, E: Element, const N: usize> Build<J, E> for Joining<'_, L, E, N> {
    #[inline(always)]
    fn build<const M: usize>(self) -> Tile<J, E, M>
    where
        J: Registers<M>,
    {
        self.0.join_into::<J, M>(self.1)
    }
}

/// Half `H` of a tile split, built at the half's count.
struct Half<'a, L: Registers<N>, E, const N: usize, const H: usize>(&'a Tile<L, E, N>);

impl<L: Registers<N>, S, E: Element, const N: usize, const H: usize> Build<S, E>
    for Half<'_, L, E, N, H>
{
    #[inline(always)]
    fn build<const M: usize>(self) -> Tile<S, E, M>
    where
        S: Registers<M>,
    {
        self.0.half::<S, M, H>()
    }
}
