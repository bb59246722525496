//! A CuTe layout as a linear layout: its modes' strides as bases, checked to be linear.

use alloc::string::String;
use alloc::vec::Vec;

use super::{Cute, IntTuple, Kind, Swizzle};
use crate::utils::standard_out_dim_names;
use crate::{Encoding, ErrorKind, LayoutError, LinearLayout, Result};

/// One leaf mode: `2^log2` coordinates `stride` apart, the stride written at `at..at + len`.
#[derive(Clone, Copy, Debug)]
struct Leaf {
    log2: u32,
    stride: i64,
    at: usize,
    len: usize,
}

/// A coordinate bit's image (an offset or an index) and the leaf it comes from.
type Image = (i64, Leaf);

impl Cute {
    fn fail(&self, at: usize, len: usize, kind: ErrorKind, msg: String) -> LayoutError {
        super::parse::error_at(&self.text, at, len, kind, msg)
    }

    fn whole(&self, kind: ErrorKind, msg: String) -> LayoutError {
        self.fail(0, self.text.len(), kind, msg)
    }

    /// The top-level modes' leaves (a bare integer shape is one mode), 2^40 elements at most.
    fn modes(&self) -> Result<Vec<Vec<Leaf>>> {
        let modes = self.modes_unchecked()?;
        let bits: u32 = modes.iter().flatten().map(|l| l.log2).sum();
        if bits > 40 {
            return Err(self.whole(
                ErrorKind::Limit,
                alloc::format!(
                    "the layout has 2^{} elements; at most 2^40 are supported",
                    bits
                ),
            ));
        }
        Ok(modes)
    }

    fn modes_unchecked(&self) -> Result<Vec<Vec<Leaf>>> {
        match (&self.shape, &self.stride) {
            (IntTuple::Tuple(sh), IntTuple::Tuple(st)) if sh.len() == st.len() => sh
                .iter()
                .zip(st)
                .map(|(a, b)| {
                    let mut v = Vec::new();
                    self.leaves(a, b, &mut v)?;
                    Ok(v)
                })
                .collect(),
            (a, b) => {
                let mut v = Vec::new();
                self.leaves(a, b, &mut v)?;
                Ok(alloc::vec![v])
            }
        }
    }

    fn leaves(&self, shape: &IntTuple, stride: &IntTuple, out: &mut Vec<Leaf>) -> Result<()> {
        match (shape, stride) {
            (
                IntTuple::Int { value, at, len },
                IntTuple::Int {
                    value: st,
                    at: sa,
                    len: sl,
                },
            ) => {
                if *value <= 0 || value & (value - 1) != 0 || *value > 1 << 30 {
                    return Err(self.fail(*at, *len, ErrorKind::Invalid, alloc::format!(
                        "mode size {} is not a power of two: only power-of-two modes are linear over GF(2)", value)));
                }
                if *st < 0 || (*st as i128) << value.trailing_zeros() > 1 << 40 {
                    return Err(self.fail(*sa, *sl, ErrorKind::Invalid, alloc::format!(
                        "stride {} must be non-negative, and a mode must reach no further than 2^40", st)));
                }
                out.push(Leaf {
                    log2: value.trailing_zeros(),
                    stride: *st,
                    at: *sa,
                    len: *sl,
                });
                Ok(())
            }
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) if a.len() == b.len() => a
                .iter()
                .zip(b)
                .try_for_each(|(x, y)| self.leaves(x, y, out)),
            _ => Err(self.whole(
                ErrorKind::Syntax,
                alloc::format!(
                    "the shape and the stride must have the same nesting (CuTe's congruence): {}",
                    self.text.trim()
                ),
            )),
        }
    }
}

/// Each coordinate bit's image, mode by mode, leaf by leaf.
fn images(leaves: &[Leaf]) -> Vec<Image> {
    leaves
        .iter()
        .flat_map(|l| (0..l.log2).map(move |j| (l.stride << j, *l)))
        .collect()
}

/// CuTe adds the images, a linear layout XORs them: the same only if no two share a bit.
fn check_disjoint(c: &Cute, imgs: &[Image]) -> Result<()> {
    for (i, &(a, la)) in imgs.iter().enumerate() {
        for &(b, lb) in &imgs[..i] {
            if a & b != 0 {
                let bit = (a & b).trailing_zeros();
                return Err(c.fail(la.at, la.len, ErrorKind::Invalid, alloc::format!(
                    "not linear over GF(2): modes {}:{} and {}:{} both reach bit {} ({}), and CuTe adds where a linear layout XORs; give each mode strides that reach bits no other mode does",
                    1i64 << lb.log2, lb.stride, 1i64 << la.log2, la.stride, bit, 1i64 << bit)));
            }
        }
    }
    Ok(())
}

/// The coordinates (one per out-dim of `sizes`, dim0 in the low bits) of a colexicographic index.
fn unravel(mut index: i64, sizes: &[i64]) -> Vec<i32> {
    sizes
        .iter()
        .map(|&d| {
            let c = index & (d - 1);
            index >>= d.trailing_zeros();
            c as i32
        })
        .collect()
}

fn out_dims(sizes: &[i64]) -> Vec<(String, i32)> {
    standard_out_dim_names(sizes.len())
        .into_iter()
        .zip(sizes)
        .map(|(n, &d)| (n, d as i32))
        .collect()
}

impl Cute {
    /// The tensor shape a shared layout describes: each top-level mode's size.
    pub fn shape_sizes(&self) -> Result<Vec<i64>> {
        Ok(self
            .modes()?
            .iter()
            .map(|m| 1i64 << m.iter().map(|l| l.log2).sum::<u32>())
            .collect())
    }

    /// The linear layout: `offset, block -> dims` for a shared layout (whose shape must be
    /// `shape`), `register, lane, warp, block -> dims` for a thread-value one over a tile of
    /// `shape` (thread bits below `warp_size` are lanes).
    pub fn to_linear_layout(&self, shape: &[i64], warp_size: u32) -> Result<LinearLayout> {
        match self.kind {
            Kind::Shared => self.shared(shape),
            Kind::ThreadValue => self.thread_value(shape, warp_size),
        }
    }

    /// A `smem_ptr[16b]` form's element width must be the tensor's (`element_bits`, if known).
    pub fn check_element(&self, element_bits: Option<u32>) -> Result<()> {
        match (self.smem_ptr_bits, element_bits) {
            (Some(p), Some(e)) if p != e => Err(self.whole(ErrorKind::Element, alloc::format!(
                "smem_ptr[{}b] swizzles byte addresses of {}-bit elements, but the tensor's are {}-bit: write smem_ptr[{}b] (CuTe's swizzle keeps its bytes, so M changes with the element)",
                p, p, e, e))),
            _ => Ok(()),
        }
    }

    /// As an encoding: `#ttg.shared_linear` (16-byte aligned) or `#ttg.linear`.
    pub fn encoding(&self, shape: &[i64], warp_size: u32) -> Result<Encoding> {
        let layout = self.to_linear_layout(shape, warp_size)?;
        Ok(match self.kind {
            Kind::Shared => Encoding::SharedLinear {
                layout,
                alignment: 16,
            },
            Kind::ThreadValue => Encoding::Linear(layout),
        })
    }

    fn shared(&self, shape: &[i64]) -> Result<LinearLayout> {
        let sizes = self.shape_sizes()?;
        if sizes.iter().any(|&d| d > 1 << 30) {
            return Err(self.whole(
                ErrorKind::Limit,
                alloc::format!("a mode of shape {:?} has more than 2^30 elements", sizes),
            ));
        }
        if sizes != shape {
            return Err(self.whole(ErrorKind::Shape, alloc::format!(
                "the CuTe layout's shape is {:?} but the tensor's is {:?}; give the tensor its shape", sizes, shape)));
        }
        let modes = self.modes()?;
        let imgs: Vec<Image> = modes.iter().flat_map(|m| images(m)).collect();
        if let Some(&(_, l)) = imgs.iter().find(|i| i.0 == 0) {
            return Err(self.fail(l.at, l.len, ErrorKind::Invalid, "stride 0 puts several elements at one offset: a shared-memory layout needs one offset per element (broadcasts belong to thread-value layouts, tv(...))".into()));
        }
        check_disjoint(self, &imgs)?;
        let n = imgs.len() as u32;
        if let Some(&(v, l)) = imgs.iter().find(|i| i.0 >= 1 << n || i.0 & (i.0 - 1) != 0) {
            return Err(self.fail(l.at, l.len, ErrorKind::Invalid, alloc::format!(
                "stride {} leaves holes: the layout's {} elements reach offset {}; a shared-memory layout fills offsets 0 to {} (make the strides a permutation of the powers of two below {})",
                l.stride, 1u64 << n, v, (1u64 << n) - 1, 1u64 << n)));
        }
        let sw = self.swizzle.unwrap_or(Swizzle { b: 0, m: 0, s: 0 });
        self.check_swizzle(&sw, n)?;
        // The coordinate bit each offset bit lands on, dim by dim.
        let mut bit_of = alloc::vec![(0usize, 0u32); n as usize];
        let mut k = 0;
        for (d, m) in modes.iter().enumerate() {
            for (j, &(v, _)) in images(m).iter().enumerate() {
                bit_of[v.trailing_zeros() as usize] = (d, j as u32);
                k += 1;
            }
        }
        debug_assert_eq!(k, n as usize);
        let offset = (0..n)
            .map(|o| {
                let mut c = alloc::vec![0i32; sizes.len()];
                let z = sw.apply(1 << o);
                for p in (0..n).filter(|p| z >> p & 1 == 1) {
                    let (d, j) = bit_of[p as usize];
                    c[d] ^= 1 << j;
                }
                c
            })
            .collect();
        LinearLayout::from_parts(
            alloc::vec![("offset".into(), offset), ("block".into(), Vec::new())],
            out_dims(&sizes),
            true,
        )
    }

    fn check_swizzle(&self, sw: &Swizzle, n: u32) -> Result<()> {
        if sw.b < 0 || sw.m < 0 || sw.s.abs() < sw.b {
            return Err(self.whole(ErrorKind::Invalid, alloc::format!(
                "{}: B and M must be non-negative and |S| at least B (CuTe's static_assert(abs(SShift) >= BBits))", sw)));
        }
        if sw.b > 0 && sw.top_bit() > n {
            return Err(self.whole(ErrorKind::Invalid, alloc::format!(
                "{} (over element offsets) moves offset bits up to {}, but the layout has {} elements ({} offset bits); use a larger layout or a smaller swizzle",
                sw, sw.top_bit(), 1u64 << n, n)));
        }
        Ok(())
    }

    fn thread_value(&self, shape: &[i64], warp_size: u32) -> Result<LinearLayout> {
        let bits: u32 = shape.iter().map(|&d| d.max(1).trailing_zeros()).sum();
        if shape.is_empty()
            || bits > 40
            || shape
                .iter()
                .any(|&d| d <= 0 || d & (d - 1) != 0 || d > 1 << 30)
        {
            return Err(self.whole(
                ErrorKind::Shape,
                alloc::format!(
                    "a thread-value layout needs a tile of power-of-two sizes, got {:?}",
                    shape
                ),
            ));
        }
        let modes = self.modes()?;
        let [thread, value] = &modes[..] else {
            return Err(self.whole(
                ErrorKind::Syntax,
                alloc::format!(
                    "a thread-value layout has two modes, (thread, value); this one has {}",
                    modes.len()
                ),
            ));
        };
        let (t, v) = (images(thread), images(value));
        let all: Vec<Image> = t.iter().chain(&v).copied().filter(|i| i.0 != 0).collect();
        check_disjoint(self, &all)?;
        let total: i64 = shape.iter().product();
        if let Some(&(x, l)) = all.iter().find(|i| i.0 >= total) {
            return Err(self.fail(
                l.at,
                l.len,
                ErrorKind::Shape,
                alloc::format!(
                    "stride {} reaches index {}, beyond the tile's {} elements {:?}",
                    l.stride,
                    x,
                    total,
                    shape
                ),
            ));
        }
        // Disjoint images are independent: they reach 2^(how many) elements.
        if 1i64 << all.len() != total {
            return Err(self.whole(ErrorKind::Shape, alloc::format!(
                "the thread-value layout reaches {} of the tile's {} elements {:?}: a distributed layout covers its tensor; give the tile it covers or modes for the rest",
                1i64 << all.len(), total, shape)));
        }
        let lanes = warp_size.trailing_zeros() as usize;
        if t.len() < lanes {
            return Err(self.whole(
                ErrorKind::Shape,
                alloc::format!(
                    "the thread mode has {} threads, fewer than a warp of {}",
                    1u64 << t.len(),
                    warp_size
                ),
            ));
        }
        let coords = |imgs: &[Image]| -> Vec<Vec<i32>> {
            imgs.iter().map(|i| unravel(i.0, shape)).collect()
        };
        LinearLayout::from_parts(
            alloc::vec![
                ("register".into(), coords(&v)),
                ("lane".into(), coords(&t[..lanes])),
                ("warp".into(), coords(&t[lanes..])),
                ("block".into(), Vec::new()),
            ],
            out_dims(shape),
            false,
        )
    }
}
