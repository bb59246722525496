//! Property tests of the algebra's laws: apply is linear; compose and invertAndCompose round-trip;
//! `*` is associative; reshape and flatten preserve apply; pseudoinvert is a right inverse.

use layout_core::LinearLayout;
use proptest::prelude::*;

const IN_NAMES: [&str; 4] = ["register", "lane", "warp", "block"];
const OUT_NAMES: [&str; 3] = ["dim0", "dim1", "dim2"];

/// A random layout: 1-4 in-dims with 0-4 bits each, 1-3 out-dims with 0-4 bits each, arbitrary
/// (possibly non-surjective, non-injective) bases.
fn layout() -> impl Strategy<Value = LinearLayout> {
    (1usize..=4, 1usize..=3)
        .prop_flat_map(|(ni, no)| {
            (
                prop::collection::vec(0u32..=4, ni),
                prop::collection::vec(0u32..=4, no),
            )
        })
        .prop_flat_map(|(ins, outs)| {
            let outs2 = outs.clone();
            let nbases: usize = ins.iter().map(|&b| b as usize).sum();
            let basis = outs.iter().map(|&b| 0i32..(1i32 << b)).collect::<Vec<_>>();
            (Just(ins), Just(outs2), prop::collection::vec(basis, nbases))
        })
        .prop_map(|(ins, outs, flat)| {
            let mut it = flat.into_iter();
            let bases = ins
                .iter()
                .enumerate()
                .map(|(i, &n)| {
                    (
                        IN_NAMES[i].to_string(),
                        (0..n).map(|_| it.next().unwrap()).collect(),
                    )
                })
                .collect();
            let out_dims = outs
                .iter()
                .enumerate()
                .map(|(i, &b)| (OUT_NAMES[i].to_string(), 1i32 << b))
                .collect();
            LinearLayout::from_parts(bases, out_dims, false).unwrap()
        })
}

/// Apply to a flat input index (in-dims in order, first dim in the low bits).
fn apply_index(l: &LinearLayout, mut idx: u64) -> Vec<u32> {
    let ins: Vec<u32> = l
        .in_dims()
        .iter()
        .map(|(_, s)| {
            let v = (idx % *s as u64) as u32;
            idx /= *s as u64;
            v
        })
        .collect();
    l.apply_flat(&ins)
}

fn flat_out(l: &LinearLayout, v: &[u32]) -> u64 {
    let mut acc = 0u64;
    let mut shift = 0;
    for ((_, s), &x) in l.out_dims().iter().zip(v) {
        acc |= (x as u64) << shift;
        shift += s.trailing_zeros();
    }
    acc
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn apply_is_linear(l in layout(), x in any::<u64>(), y in any::<u64>()) {
        let n = l.total_in_dim_size();
        let (x, y) = (x % n, y % n);
        let a = apply_index(&l, x);
        let b = apply_index(&l, y);
        let c = apply_index(&l, x ^ y);
        let xor: Vec<u32> = a.iter().zip(&b).map(|(p, q)| p ^ q).collect();
        prop_assert_eq!(c, xor);
    }

    #[test]
    fn product_is_associative(a in layout(), b in layout(), c in layout()) {
        // Triton's operator* needs consistent dim orders; ours come from one pool in one order.
        let ab_c = a.checked_mul(&b).and_then(|ab| ab.checked_mul(&c));
        let a_bc = b.checked_mul(&c).and_then(|bc| a.checked_mul(&bc));
        if let (Ok(x), Ok(y)) = (ab_c, a_bc) {
            prop_assert_eq!(x, y);
        }
    }

    #[test]
    fn invert_and_compose_round_trips(a in layout(), c in layout()) {
        // B = C composed into A's inputs: B's image lies in A's, so B.invertAndCompose(A) exists
        // and composing it with A gives B back.
        let a_ins = a.in_dims();
        // Build a B over `c`'s in-dims whose images are images of A.
        let bases = c.bases().iter().map(|(n, vs)| {
            (n.clone(), vs.iter().map(|v| {
                let idx = v.iter().fold(0u64, |acc, &x| acc.wrapping_mul(31).wrapping_add(x as u64));
                apply_index(&a, idx % a.total_in_dim_size()).into_iter().map(|x| x as i32).collect()
            }).collect())
        }).collect();
        let b = LinearLayout::from_parts(bases, a.out_dims().to_vec(), false).unwrap();
        let sol = b.invert_and_compose(&a).unwrap();
        prop_assert_eq!(sol.in_dims(), b.in_dims());
        prop_assert_eq!(sol.out_dims().iter().map(|(n, s)| (n.clone(), *s)).collect::<Vec<_>>(), a_ins);
        let back = sol.compose(&a).unwrap();
        prop_assert!(back.equal_ignoring_out_dim_sizes(&b), "{} vs {}", back, b);
    }

    #[test]
    fn compose_applies_in_sequence(a in layout(), x in any::<u64>()) {
        // compose with an identity over A's out-dims changes nothing.
        let mut id = LinearLayout::empty();
        for (d, s) in a.out_dims() {
            id = id.checked_mul(&LinearLayout::identity_1d(*s, d, d).unwrap()).unwrap();
        }
        let c = a.compose(&id).unwrap();
        let x = x % a.total_in_dim_size();
        prop_assert_eq!(apply_index(&c, x), apply_index(&a, x));
    }

    #[test]
    fn pseudoinvert_is_a_right_inverse(a in layout(), x in any::<u64>()) {
        // Make A surjective by adding an in-dim that reaches every out coordinate.
        let mut extra = LinearLayout::empty();
        for (d, s) in a.out_dims() {
            extra = extra.checked_mul(&LinearLayout::identity_1d(*s, "extra", d).unwrap()).unwrap();
        }
        let a = a.concat_ins(&extra.transpose_outs(&a.out_dim_names().collect::<Vec<_>>()).unwrap()).unwrap();
        prop_assert!(a.is_surjective());
        let p = a.pseudoinvert().unwrap();
        let y: Vec<u32> = apply_index(&a, x % a.total_in_dim_size());
        let pre = p.apply_flat(&y);
        prop_assert_eq!(a.apply_flat(&pre), y);
    }

    #[test]
    fn reshape_and_flatten_preserve_apply(a in layout(), x in any::<u64>(), split in 0u32..=8) {
        let x = x % a.total_in_dim_size();
        let want = flat_out(&a, &apply_index(&a, x));
        let f = a.flatten_ins().flatten_outs();
        prop_assert_eq!(flat_out(&f, &apply_index(&f, x)), want);
        let tin = a.total_in_dim_size_log2() as u32;
        let k = split.min(tin);
        let r = a.reshape_ins(&[("p", 1i32 << k), ("q", 1i32 << (tin - k))]).unwrap();
        prop_assert_eq!(flat_out(&r, &apply_index(&r, x)), want);
        let tout = a.total_out_dim_size_log2() as u32;
        let k = split.min(tout);
        let r = a.reshape_outs(&[("u", 1i32 << k), ("v", 1i32 << (tout - k))]).unwrap();
        prop_assert_eq!(flat_out(&r, &apply_index(&r, x)), want);
    }

    #[test]
    fn free_variables_are_the_dependent_bases(a in layout()) {
        // A basis is free exactly when it lies in the span of the bases before it.
        let masks = a.free_variable_masks();
        let flat: Vec<Vec<i32>> = a.bases().iter().flat_map(|(_, v)| v.iter().cloned()).collect();
        let free: Vec<bool> = masks.iter().zip(a.in_dims()).flat_map(|((_, m), (_, s))| {
            let m = *m;
            (0..s.trailing_zeros()).map(move |i| (m >> i) & 1 == 1)
        }).collect();
        let rank_of = |k: usize| LinearLayout::from_parts(vec![("in".to_string(), flat[..k].to_vec())], a.out_dims().to_vec(), false).unwrap().rank();
        for (c, &f) in free.iter().enumerate() {
            prop_assert_eq!(f, rank_of(c + 1) == rank_of(c), "basis {}", c);
        }
        prop_assert_eq!(free.iter().filter(|&&f| !f).count() as u32, a.rank());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The shift-and-mask plan the macros emit computes `apply` exactly.
    #[test]
    fn apply_plan_equals_apply(a in layout(), x in any::<u64>()) {
        let plan = a.apply_plan();
        let mut idx = x % a.total_in_dim_size();
        let ins: Vec<u32> = a.in_dims().iter().map(|(_, s)| { let v = (idx % *s as u64) as u32; idx /= *s as u64; v }).collect();
        prop_assert_eq!(plan.eval(&ins), a.apply_flat(&ins));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// `print_layout` draws one cell per tensor element, `-` exactly where no input maps, and
    /// `print_latex` one coloured node per mapped element; neither panics on any layout.
    #[test]
    fn pictures_show_every_element_once(a in layout()) {
        let grid = layout_view::print_layout(&a).unwrap();
        let total = a.total_out_dim_size() as usize;
        let mut image = std::collections::HashSet::new();
        for idx in 0..a.total_in_dim_size() {
            image.insert(flat_out(&a, &apply_index(&a, idx)));
        }
        let cells: Vec<&str> = grid
            .lines()
            .filter(|l| l.contains('|'))
            .flat_map(|l| l.split('|').skip(1).map(str::trim).filter(|c| !c.is_empty()))
            .collect();
        prop_assert_eq!(cells.len(), total);
        prop_assert_eq!(cells.iter().filter(|c| **c == "-").count(), total - image.len());
        let tex = layout_view::print_latex(&a, 16).unwrap();
        prop_assert_eq!(tex.matches("\\node[fill=").count(), image.len());
    }
}
