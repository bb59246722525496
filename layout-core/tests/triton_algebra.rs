//! Triton's unittest/Tools/LinearLayoutTest.cpp, ported by hand with the same test names, inputs
//! and expected bases (the seven SupremumTest cases are prefixed `SupremumTest_`). Nothing is left
//! out; see SupremumTest_ErrorOnInconsistentOrder for the one case whose expectation differs.
#![allow(non_snake_case)]

mod common;
use common::*;
use layout_core::{divide_left as divideLeft, divide_right as divideRight, ColumnAction};

fn names(l: &LinearLayout, ins: bool) -> Vec<String> {
    if ins {
        l.in_dim_names().map(String::from).collect()
    } else {
        l.out_dim_names().map(String::from).collect()
    }
}

fn apply(l: &LinearLayout, ins: &[(&str, i32)]) -> Vec<(String, i32)> {
    l.apply(ins).unwrap()
}

fn pairs(v: &[(&str, i32)]) -> Vec<(String, i32)> {
    v.iter().map(|(n, x)| (n.to_string(), *x)).collect()
}

#[test]
fn Empty() {
    let layout = LinearLayout::empty();
    assert!(layout.bases().is_empty());
    assert!(names(&layout, true).is_empty());
    assert!(names(&layout, false).is_empty());
}

#[test]
fn Identity1D() {
    let layout = identity1D(32, S("testIns"), S("testOuts"));
    assert_eq!(
        layout,
        ll!({{S("testIns"), {{1}, {2}, {4}, {8}, {16}}}}, {S("testOuts")})
    );
    assert_eq!(names(&layout, true), ["testIns"]);
    assert_eq!(names(&layout, false), ["testOuts"]);
    assert_eq!(layout.in_dim_size_log2(S("testIns")), 5);
    assert_eq!(layout.out_dim_size_log2(S("testOuts")), 5);
}

#[test]
fn Identity1DSize1() {
    let layout = identity1D(1, S("testIns"), S("testOuts"));
    assert_eq!(layout, ll!({{S("testIns"), {}}}, {S("testOuts")}));
    assert_eq!(names(&layout, true), ["testIns"]);
    assert_eq!(names(&layout, false), ["testOuts"]);
    assert_eq!(layout.in_dim_size_log2(S("testIns")), 0);
    assert_eq!(layout.out_dim_size_log2(S("testOuts")), 0);
}

#[test]
fn Zeros1D() {
    let layout = zeros1D3(32, S("ins"), S("outs"));
    assert_eq!(
        layout,
        ll!({{S("ins"), {{0}, {0}, {0}, {0}, {0}}}}, {S("outs")})
    );
}

#[test]
fn MultiplyIdentity() {
    let prod = identity1D(16, S("in"), S("out")) * identity1D(32, S("in"), S("out"));
    assert_eq!(
        prod,
        ll!({{S("in"), {{1}, {2}, {4}, {8}, {16}, {32}, {64}, {128}, {256}}}}, {S("out")})
    );
    assert_eq!(names(&prod, true), ["in"]);
    assert_eq!(names(&prod, false), ["out"]);
}

#[test]
fn MultiplyDisjoint() {
    let prod = identity1D(32, S("in1"), S("out1")) * identity1D(16, S("in2"), S("out2"));
    assert_eq!(
        prod,
        ll!({
            {S("in1"), {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}}},
            {S("in2"), {{0, 1}, {0, 2}, {0, 4}, {0, 8}}},
        }, {S("out1"), S("out2")})
    );
    assert_eq!(names(&prod, true), ["in1", "in2"]);
    assert_eq!(names(&prod, false), ["out1", "out2"]);
}

#[test]
fn MultiplyByEmpty() {
    let prod = LinearLayout::empty() * identity1D(32, S("in"), S("out"));
    assert_eq!(prod, identity1D(32, S("in"), S("out")));
}

#[test]
fn MultiplyByZeros() {
    let prod = identity1D(8, S("in"), S("out")) * zeros1D3(16, S("in"), S("out"));
    assert_eq!(
        prod,
        ll!({{S("in"), {{1}, {2}, {4}, {0}, {0}, {0}, {0}}}}, {S("out")})
    );
}

#[test]
fn MultiplyZerosByDegenerate() {
    let prod = zeros1D3(16, S("in"), S("out1")) * ll!({{S("in"), {}}}, {S("out2")});
    assert_eq!(
        prod,
        ll!({{S("in"), {{0, 0}, {0, 0}, {0, 0}, {0, 0}}}}, {S("out1"), S("out2")})
    );
}

#[test]
fn MultiplyEmptyIdentityAndZeros() {
    let prod = identity1D(0, S("in"), S("out")) * zeros1D3(4, S("in"), S("out"));
    assert_eq!(prod, ll!({{S("in"), {{0}, {0}}}}, {S("out")}));
}

#[test]
fn MultiplyOverlapping() {
    let prod = identity1D(4, S("in"), S("out1")) * identity1D(8, S("in"), S("out2"));
    assert_eq!(
        prod,
        ll!({{S("in"), {{1, 0}, {2, 0}, {0, 1}, {0, 2}, {0, 4}}}}, {S("out1"), S("out2")})
    );
}

#[test]
fn TimesEquals() {
    let mut prod = LinearLayout::empty();
    prod *= identity1D(32, S("in"), S("out"));
    assert_eq!(prod, identity1D(32, S("in"), S("out")));
}

#[test]
fn GetOutDimSizeLog2() {
    let layout = ll!({{S("in0"), {{0}, {0}, {0}}}, {S("in1"), {{1}, {2}}}}, {S("dim0")});
    assert_eq!(layout.out_dim_size_log2(S("dim0")), 2);
}

#[test]
fn TransposeOuts() {
    let layout = (identity1D(32, S("in1"), S("out1")) * identity1D(16, S("in2"), S("out2")))
        .transpose_outs(&[S("out2"), S("out1")])
        .unwrap();
    assert_eq!(names(&layout, false), ["out2", "out1"]);
    assert_eq!(
        layout,
        ll!({
            {S("in1"), {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}}},
            {S("in2"), {{1, 0}, {2, 0}, {4, 0}, {8, 0}}},
        }, {S("out2"), S("out1")})
    );
}

#[test]
fn TransposeOutsDegenerate() {
    let layout = (identity1D(32, S("in1"), S("out1")) * identity1D(1, S("in2"), S("out2")))
        .transpose_outs(&[S("out2"), S("out1")])
        .unwrap();
    assert_eq!(names(&layout, false), ["out2", "out1"]);
    assert_eq!(
        layout,
        ll!({
            {S("in1"), {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}}},
            {S("in2"), {}},
        }, {S("out2"), S("out1")})
    );
}

#[test]
fn TransposeIns() {
    let layout = (identity1D(32, S("in1"), S("out1")) * identity1D(16, S("in2"), S("out2")))
        .transpose_ins(&[S("in2"), S("in1")])
        .unwrap();
    assert_eq!(names(&layout, true), ["in2", "in1"]);
    assert_eq!(
        layout,
        ll!({
            {S("in2"), {{0, 1}, {0, 2}, {0, 4}, {0, 8}}},
            {S("in1"), {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}}},
        }, {S("out1"), S("out2")})
    );
}

#[test]
fn EmptyToString() {
    assert_eq!(LinearLayout::empty().to_string(), "\n(empty layout)");
}

#[test]
fn Apply() {
    let layout = ll!({
        {S("in1"), {{4, 2}, {2, 1}, {1, 0}}},
        {S("in2"), {{1, 2}, {2, 1}}},
    }, {{S("out1"), 8}, {S("out2"), 4}}, false);
    assert_eq!(
        apply(&layout, &[(S("in1"), 0), (S("in2"), 0)]),
        pairs(&[("out1", 0), ("out2", 0)])
    );
    assert_eq!(
        apply(&layout, &[(S("in2"), 0), (S("in1"), 1)]),
        pairs(&[("out1", 4), ("out2", 2)])
    );
    assert_eq!(
        apply(&layout, &[(S("in2"), 1), (S("in1"), 0)]),
        pairs(&[("out1", 1), ("out2", 2)])
    );
}

#[test]
fn ConstructLargeLayout() {
    let pows2: Vec<Vec<i32>> = (0..25).map(|i| vec![1 << i]).collect();
    let layout = LinearLayout::from_bases(vec![("in".to_string(), pows2)], &["out"]).unwrap();
    assert_eq!(layout.total_in_dim_size_log2(), 25);
}

#[test]
fn Compose() {
    let l1 =
        ll!({{S("in1"), {{1, 1}, {0, 1}}}, {S("in2"), {{1, 0}, {1, 2}}}}, {S("out1"), S("out2")});
    let l2 =
        ll!({{S("out1"), {{2, 2}, {1, 0}}}, {S("out2"), {{1, 1}, {2, 1}}}}, {S("out3"), S("out4")});
    let composition = l1.compose(&l2).unwrap();
    assert_eq!(
        composition,
        ll!({{S("in1"), {{3, 3}, {1, 1}}}, {S("in2"), {{2, 2}, {0, 3}}}}, {{S("out3"), 4}, {S("out4"), 4}}, false)
    );
    assert!(!composition.is_surjective());
}

#[test]
fn Compose4D() {
    let l1 = ll!({
        {S("in0"), {{1, 0, 0, 0}, {2, 0, 0, 0}}},
        {S("in1"), {{4, 0, 0, 0}, {8, 0, 0, 0}, {16, 0, 0, 0}, {32, 0, 0, 0}}},
        {S("in2"), {{0, 0, 1, 0}, {0, 0, 0, 1}, {0, 0, 0, 2}}},
        {S("in3"), {}}
    }, {S("out3"), S("out0"), S("out1"), S("out2")});
    let l2 = ll!({
        {S("out3"), {{1, 0, 0, 0}, {2, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}},
        {S("out0"), {{0, 1, 0, 0}}},
        {S("out1"), {{0, 0, 1, 0}}},
        {S("out2"), {{0, 0, 0, 1}, {0, 0, 0, 2}}},
    }, {S("out3"), S("out2"), S("out1"), S("out0")});
    assert_eq!(
        l1.compose(&l2).unwrap(),
        ll!({
            {S("in0"), {{1, 0, 0, 0}, {2, 0, 0, 0}}},
            {S("in1"), {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}},
            {S("in2"), {{0, 0, 1, 0}, {0, 0, 0, 1}, {0, 0, 0, 2}}},
            {S("in3"), {}},
        }, {{S("out3"), 4}, {S("out2"), 2}, {S("out1"), 2}, {S("out0"), 4}}, false)
    );
}

#[test]
fn ReshapeIns() {
    let l = ll!({{S("in1"), {{1}, {4}, {8}}}, {S("in2"), {{2}}}}, {S("out")});
    assert_eq!(
        l.reshape_ins(&[(S("in3"), 2), (S("in4"), 8)]).unwrap(),
        ll!({{S("in3"), {{1}}}, {S("in4"), {{4}, {8}, {2}}}}, {S("out")})
    );
}

#[test]
fn ReshapeInsDegenerateIn() {
    let l = ll!({{S("in1"), {{1}, {4}, {2}}}, {S("in2"), {}}}, {S("out")});
    assert_eq!(
        l.reshape_ins(&[(S("in3"), 4), (S("in4"), 2)]).unwrap(),
        ll!({{S("in3"), {{1}, {4}}}, {S("in4"), {{2}}}}, {S("out")})
    );
}

#[test]
fn ReshapeInsDegenerateOut() {
    let l = ll!({{S("in1"), {{1}, {4}}}, {S("in2"), {{2}}}}, {S("out")});
    assert_eq!(
        l.reshape_ins(&[(S("in3"), 8), (S("in4"), 1)]).unwrap(),
        ll!({{S("in3"), {{1}, {4}, {2}}}, {S("in4"), {}}}, {S("out")})
    );
}

#[test]
fn ReshapeInsDegenerateFirstOut() {
    let l = ll!({{S("in1"), {{1}, {4}}}, {S("in2"), {{2}}}}, {S("out")});
    assert_eq!(
        l.reshape_ins(&[(S("in3"), 1), (S("in4"), 8)]).unwrap(),
        ll!({{S("in3"), {}}, {S("in4"), {{1}, {4}, {2}}}}, {S("out")})
    );
}

#[test]
fn FlattenIns() {
    let l = ll!({{S("in1"), {{1}, {4}, {8}}}, {S("in2"), {{2}}}}, {S("out")});
    assert_eq!(
        l.flatten_ins(),
        ll!({{S("in1"), {{1}, {4}, {8}, {2}}}}, {S("out")})
    );
}

#[test]
fn FlattenInsEdgeCases() {
    assert_eq!(
        ll!({{S("in1"), {}}}, {S("out")}).flatten_ins(),
        ll!({{S("in1"), {}}}, {S("out")})
    );
    assert_eq!(
        ll!({{S("in1"), {}}}, {}).flatten_ins(),
        ll!({{S("in1"), {}}}, {})
    );
    let no_bases = |outs: &[&str]| LinearLayout::from_bases(vec![], outs).unwrap();
    assert_eq!(no_bases(&["out"]).flatten_ins(), no_bases(&["out"]));
    assert_eq!(no_bases(&[]).flatten_ins(), no_bases(&[]));
}

#[test]
fn ReshapeOuts() {
    let l = ll!({{S("in1"), {{1}, {4}, {8}}}, {S("in2"), {{3}}}}, {S("out")});
    assert_eq!(l.total_out_dim_size(), 16);
    assert_eq!(
        l.reshape_outs(&[(S("out2"), 2), (S("out3"), 8)]).unwrap(),
        ll!({{S("in1"), {{1, 0}, {0, 2}, {0, 4}}}, {S("in2"), {{1, 1}}}}, {S("out2"), S("out3")})
    );
}

#[test]
fn ReshapeOutsDegenerateIn() {
    let l = ll!({{S("in1"), {{1}, {4}, {2}}}, {S("in2"), {}}}, {S("out")});
    assert_eq!(
        l.reshape_outs(&[(S("out1"), 4), (S("out2"), 2)]).unwrap(),
        ll!({{S("in1"), {{1, 0}, {0, 1}, {2, 0}}}, {S("in2"), {}}}, {S("out1"), S("out2")})
    );
}

#[test]
fn ReshapeOutsDegenerateOut() {
    let l = ll!({{S("in1"), {{1}, {4}}}, {S("in2"), {{2}}}}, {S("out")});
    assert_eq!(
        l.reshape_outs(&[(S("out1"), 8), (S("out2"), 1)]).unwrap(),
        ll!({{S("in1"), {{1, 0}, {4, 0}}}, {S("in2"), {{2, 0}}}}, {S("out1"), S("out2")})
    );
}

#[test]
fn FlattenOuts() {
    let l = ll!({{S("in1"), {{1, 0}, {4, 1}, {8, 4}}}, {S("in2"), {{3, 2}}}}, {{S("out1"), 16}, {S("out2"), 8}}, false);
    assert_eq!(
        l.flatten_outs(),
        ll!({{S("in1"), {{1}, {4 + 16}, {8 + 4 * 16}}}, {S("in2"), {{3 + 2 * 16}}}}, {{S("out1"), 16 * 8}}, false)
    );
}

#[test]
fn FlattenOutsEdgeCases() {
    assert_eq!(
        ll!({{S("in1"), {}}}, {S("out")}).flatten_outs(),
        ll!({{S("in1"), {}}}, {S("out")})
    );
    assert_eq!(
        ll!({{S("in1"), {}}}, {}).flatten_outs(),
        ll!({{S("in1"), {}}}, {})
    );
    let no_bases = |outs: &[&str]| LinearLayout::from_bases(vec![], outs).unwrap();
    assert_eq!(no_bases(&["out"]).flatten_outs(), no_bases(&["out"]));
    assert_eq!(no_bases(&[]).flatten_outs(), no_bases(&[]));
}

#[test]
fn InvertAndCompose_Simple() {
    let l1 = ll!({{S("in1"), {{2}, {1}, {4}}}}, {S("out")});
    let l2 = ll!({{S("in2"), {{4}, {1}, {2}}}}, {S("out")});
    let composition = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(composition, ll!({{S("in1"), {{4}, {2}, {1}}}}, {S("in2")}));
    assert_eq!(composition.compose(&l2).unwrap(), l1);
}

#[test]
fn InvertAndComposeLargerA() {
    let reg_layout = ll!({
        {S("register"), {{0, 1}, {0, 2}, {0, 4}, {0, 32}, {32, 0}}},
        {S("lane"), {{0, 8}, {0, 16}, {1, 0}, {2, 0}, {4, 0}}},
        {S("warp"), {{8, 0}, {16, 0}}},
        {S("block"), {}}
    }, {S("dim0"), S("dim1")});
    let shared_layout = ll!({
        {S("offset"), {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {0, 32}, {0, 64}, {1, 8}, {2, 16}, {4, 32}, {8, 0}, {16, 0}, {32, 0}, {64, 0}, {128, 0}}},
        {S("block"), {}}
    }, {S("dim0"), S("dim1")});
    let expected = ll!({
        {S("register"), {{1, 0}, {2, 0}, {4, 0}, {32, 0}, {4096, 0}}},
        {S("lane"), {{8, 0}, {16, 0}, {136, 0}, {272, 0}, {544, 0}}},
        {S("warp"), {{1024, 0}, {2048, 0}}},
        {S("block"), {}}
    }, {{S("offset"), 32768}, {S("block"), 1}}, false);
    assert_eq!(
        reg_layout.invert_and_compose(&shared_layout).unwrap(),
        expected
    );
    assert_eq!(
        reg_layout
            .compose(&shared_layout.invert().unwrap())
            .unwrap(),
        expected
    );
}

#[test]
fn InvertAndCompose_NonInjective() {
    let l1 = ll!({{S("in1"), {{2}, {1}, {4}}}}, {S("out")});
    let l2 = ll!({{S("in2"), {{0}, {2}, {1}, {4}}}}, {S("out")});
    let composition = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        composition,
        ll!({{S("in1"), {{2}, {4}, {8}}}}, {{S("in2"), 16}}, false)
    );
    assert!(!composition.is_surjective());
    assert_eq!(composition.compose(&l2).unwrap(), l1);
}

#[test]
fn InvertAndCompose_BroadcastedInDim() {
    let l1 = ll!({{S("in1"), {{2}, {1}, {4}}}, {S("in2"), {{0}}}}, {S("out")});
    let l2 = ll!({{S("in"), {{4}, {1}, {2}}}}, {S("out")});
    let composition = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        composition,
        ll!({{S("in1"), {{4}, {2}, {1}}}, {S("in2"), {{0}}}}, {S("in")})
    );
    assert_eq!(composition.compose(&l2).unwrap(), l1);
}

#[test]
fn InvertAndCompose_BroadcastAtBeginningOfSecond() {
    let l1 = ll!({{S("in"), {{1}, {2}, {4}}}}, {S("out")});
    let l2 = ll!({{S("in"), {{0}, {4}, {1}, {2}}}}, {S("out")});
    let composition = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        composition,
        ll!({{S("in"), {{4}, {8}, {2}}}}, {{S("in"), 16}}, false)
    );
    assert_eq!(composition.compose(&l2).unwrap(), l1);
}

#[test]
fn InvertAndCompose_BroadcastAtEndOfSecond() {
    let l1 = ll!({{S("in1"), {{1}, {2}, {4}}}}, {S("out")});
    let l2 = ll!({{S("in2"), {{4}, {1}, {2}, {0}}}}, {S("out")});
    let composition = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        composition,
        ll!({{S("in1"), {{2}, {4}, {1}}}}, {{S("in2"), 16}}, false)
    );
    assert!(composition
        .compose(&l2)
        .unwrap()
        .equal_ignoring_out_dim_sizes(&l1));
}

#[test]
fn InvertAndCompose_BroadcastBeginningAndEndOfSecond() {
    let l1 = ll!({{S("in"), {{1}, {2}, {4}}}}, {S("out")});
    let l2 = ll!({{S("in"), {{0}, {4}, {1}, {2}, {0}}}}, {S("out")});
    let composition = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        composition,
        ll!({{S("in"), {{4}, {8}, {2}}}}, {{S("in"), 32}}, false)
    );
    assert_eq!(composition.compose(&l2).unwrap(), l1);
}

#[test]
fn InvertAndCompose_Multidim() {
    let l1 = ll!({{S("in1"), {{1, 0}, {0, 1}, {2, 0}, {3, 2}}}, {S("in2"), {{2, 2}}}}, {S("out1"), S("out2")});
    let l2 = ll!({{S("in3"), {{0, 1}, {1, 0}, {0, 0}, {0, 2}, {2, 1}}}}, {S("out2"), S("out1")});
    let c1 = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        c1.compose(&l2).unwrap(),
        l1.transpose_outs(&names(&l2, false)).unwrap()
    );
    let c2 = l2.invert_and_compose(&l1).unwrap();
    assert_eq!(
        c2.compose(&l1).unwrap(),
        l2.transpose_outs(&names(&l1, false)).unwrap()
    );
}

#[test]
fn InvertAndCompose_BroadcastedDims() {
    let l1 = ll!({{S("in1"), {{1}, {2}, {4}}}, {S("in2"), {{0}}}}, {S("out")});
    let l2 = ll!({{S("in3"), {{1}, {2}, {4}}}, {S("in4"), {{0}}}}, {S("out")});
    let c = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        c,
        ll!({{S("in1"), {{1, 0}, {2, 0}, {4, 0}}}, {S("in2"), {{0, 0}}}}, {{S("in3"), 8}, {S("in4"), 2}}, false)
    );
    assert_eq!(
        c.compose(&l2).unwrap(),
        l1.transpose_outs(&names(&l2, false)).unwrap()
    );
}

#[test]
fn InvertAndCompose_BroadcastedDims2() {
    let a = ll!({{S("in1"), {{1}, {2}}}, {S("in2"), {{0}}}}, {S("out")});
    let b = ll!({{S("in3"), {{2}, {1}}}, {S("in4"), {{0}}}}, {S("out")});
    let c = a.invert_and_compose(&b).unwrap();
    assert_eq!(
        c,
        ll!({{S("in1"), {{2, 0}, {1, 0}}}, {S("in2"), {{0, 0}}}}, {{S("in3"), 4}, {S("in4"), 2}}, false)
    );
    assert_eq!(
        c.compose(&b).unwrap(),
        a.transpose_outs(&names(&b, false)).unwrap()
    );
}

#[test]
fn InvertAndCompose_IdentityInDim() {
    let out_dims = [
        "dim0", "dim1", "dim2", "dim3", "dim4", "dim5", "dim6", "dim7", "dim8",
    ];
    let src = LinearLayout::from_bases(
        vec![
            (
                "register".into(),
                vec![
                    vec![0, 0, 0, 0, 0, 0, 0, 0, 1],
                    vec![0, 0, 0, 0, 0, 0, 0, 1, 0],
                ],
            ),
            (
                "lane".into(),
                vec![
                    vec![0, 0, 0, 0, 0, 0, 1, 0, 0],
                    vec![0, 0, 0, 0, 0, 1, 0, 0, 0],
                    vec![0, 0, 0, 0, 1, 0, 0, 0, 0],
                    vec![0, 0, 0, 1, 0, 0, 0, 0, 0],
                    vec![0, 0, 1, 0, 0, 0, 0, 0, 0],
                ],
            ),
            (
                "warp".into(),
                vec![
                    vec![0, 1, 0, 0, 0, 0, 0, 0, 0],
                    vec![1, 0, 0, 0, 0, 0, 0, 0, 0],
                ],
            ),
            ("block".into(), vec![]),
        ],
        &out_dims,
    )
    .unwrap();
    let dst = LinearLayout::from_bases(
        vec![
            (
                "register".into(),
                vec![
                    vec![0, 0, 0, 0, 0, 0, 0, 0, 1],
                    vec![0, 0, 0, 0, 0, 0, 0, 1, 0],
                ],
            ),
            (
                "lane".into(),
                vec![
                    vec![1, 0, 0, 0, 0, 0, 0, 0, 0],
                    vec![0, 1, 0, 0, 0, 0, 0, 0, 0],
                    vec![0, 0, 1, 0, 0, 0, 0, 0, 0],
                    vec![0, 0, 0, 1, 0, 0, 0, 0, 0],
                    vec![0, 0, 0, 0, 1, 0, 0, 0, 0],
                ],
            ),
            (
                "warp".into(),
                vec![
                    vec![0, 0, 0, 0, 0, 1, 0, 0, 0],
                    vec![0, 0, 0, 0, 0, 0, 1, 0, 0],
                ],
            ),
            ("block".into(), vec![]),
        ],
        &out_dims,
    )
    .unwrap();
    let cvt = dst.invert_and_compose(&src).unwrap();
    let k = [("register", 3), ("lane", 0), ("warp", 2), ("block", 0)];
    let via: Vec<(String, i32)> = apply(&cvt, &k);
    let via: Vec<(&str, i32)> = via.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    assert_eq!(apply(&dst, &k), apply(&src, &via));
}

#[test]
fn NumConsecutiveInOut() {
    assert_eq!(1, identity1D(1, S("in"), S("out")).num_consecutive_in_out());
    assert_eq!(4, identity1D(4, S("in"), S("out")).num_consecutive_in_out());
    assert_eq!(
        4,
        (identity1D(4, S("in1"), S("out")) * identity1D(8, S("in2"), S("out")))
            .num_consecutive_in_out()
    );
    assert_eq!(
        4,
        (identity1D(4, S("in"), S("out1")) * identity1D(8, S("in"), S("out2")))
            .num_consecutive_in_out()
    );
    assert_eq!(
        1,
        (zeros1D3(4, S("in"), S("out1")) * identity1D(4, S("in"), S("out2")))
            .num_consecutive_in_out()
    );
    assert_eq!(
        1,
        ll!({{S("in"), {{1}, {2}, {4}, {9}}}}, {S("out")}).num_consecutive_in_out()
    );
    assert_eq!(
        2,
        ll!({{S("in"), {{1}, {2}, {4}, {10}}}}, {S("out")}).num_consecutive_in_out()
    );
    assert_eq!(
        2,
        ll!({{S("in"), {{1}, {4}, {2}}}}, {S("out")}).num_consecutive_in_out()
    );
    assert_eq!(
        2,
        ll!({{S("in"), {{1}, {2}, {4}}}, {S("in2"), {{8}, {18}}}}, {S("out")})
            .num_consecutive_in_out()
    );
}

#[test]
fn EqualsChecksOutDimSizes() {
    let other = ll!({{S("in"), {{1}, {2}}}}, {{S("out"), 8}}, false);
    assert!(identity1D(4, S("in"), S("out")) != other);
    assert!(identity1D(4, S("in"), S("out")).equal_ignoring_out_dim_sizes(&other));
}

#[test]
fn Sublayout() {
    let l1 =
        ll!({{S("in1"), {{1, 0}, {0, 1}, {2, 0}}}, {S("in2"), {{0, 1}}}}, {S("out1"), S("out2")});
    assert_eq!(
        l1.sublayout(&[S("in1"), S("in2")], &[S("out1")]).unwrap(),
        ll!({{S("in1"), {{1}, {0}, {2}}}, {S("in2"), {{0}}}}, {S("out1")})
    );
    assert_eq!(
        l1.sublayout(&[S("in2"), S("in1")], &[S("out1")]).unwrap(),
        ll!({{S("in1"), {{1}, {0}, {2}}}, {S("in2"), {{0}}}}, {S("out1")})
    );
    assert_eq!(
        l1.sublayout(&[S("in2"), S("in1")], &[S("out2"), S("out1")])
            .unwrap(),
        l1
    );
    assert_eq!(
        l1.sublayout(&[S("in1")], &[S("out1")]).unwrap(),
        ll!({{S("in1"), {{1}, {0}, {2}}}}, {S("out1")})
    );
    let none: [&str; 0] = [];
    assert_eq!(l1.sublayout(&none, &none).unwrap(), LinearLayout::empty());
    assert_eq!(
        l1.sublayout(&[S("in1")], &none).unwrap(),
        ll!({{S("in1"), {{}, {}, {}}}}, {})
    );
    assert_eq!(
        l1.sublayout(&none, &[S("out1")]).unwrap(),
        LinearLayout::from_parts(vec![], vec![("out1".into(), 4)], false).unwrap()
    );
}

#[test]
fn SublayoutIsZero() {
    let none: [&str; 0] = [];
    assert!(!identity1D(4, S("in"), S("out"))
        .sublayout_is_zero(&[S("in")], &[S("out")])
        .unwrap());
    assert!(identity1D(4, S("in"), S("out"))
        .sublayout_is_zero(&none, &[S("out")])
        .unwrap());
    assert!(identity1D(4, S("in"), S("out"))
        .sublayout_is_zero(&[S("in")], &none)
        .unwrap());
    assert!(identity1D(4, S("in"), S("out"))
        .sublayout_is_zero(&none, &none)
        .unwrap());
    let l1 = ll!({{S("in1"), {{0, 1}, {0, 2}}}, {S("in2"), {{1, 1}}}}, {S("out1"), S("out2")});
    assert!(l1.sublayout_is_zero(&[S("in1")], &[S("out1")]).unwrap());
    assert!(!l1.sublayout_is_zero(&[S("in1")], &[S("out2")]).unwrap());
    assert!(!l1.sublayout_is_zero(&[S("in2")], &[S("out1")]).unwrap());
    assert!(!l1.sublayout_is_zero(&[S("in2")], &[S("out2")]).unwrap());
}

#[test]
fn FreeVariableMasks() {
    assert_eq!(
        identity1D(4, S("in"), S("out")).free_variable_masks(),
        pairs(&[("in", 0)])
    );
    assert_eq!(
        zeros1D3(16, S("in"), S("out")).free_variable_masks(),
        pairs(&[("in", 0b1111)])
    );
    let l = identity1D(2, S("in"), S("out"))
        * zeros1D3(4, S("in"), S("out"))
        * identity1D(4, S("in"), S("out"))
        * zeros1D3(2, S("in"), S("out"));
    assert_eq!(l.free_variable_masks(), pairs(&[("in", 0b100110)]));
    let l = ll!({{S("in1"), {{1, 1}, {2, 2}, {0, 0}}}, {S("in2"), {{1, 0}, {0, 1}, {2, 0}}}}, {S("out1"), S("out2")});
    assert_eq!(
        l.free_variable_masks(),
        pairs(&[("in1", 0b100), ("in2", 0b10)])
    );
}

#[test]
fn QuotientOneDimension() {
    let layout = ll!({{S("dim1"), {{1, 0}}}, {S("dim2"), {{0, 0}}}}, {{S("dim1"), 2}, {S("dim2"), 1}}, false);
    let q = layout.quotient(&[S("dim1")]).expect("dim1 is trivial");
    assert_eq!(q, zeros1D3(2, S("dim2"), S("dim2")));
    assert!(q.quotient(&[S("dim2")]).is_none());
}

#[test]
fn QuotientSeveralDimensions() {
    let layout = ll!({{S("dim1"), {{1, 0}, {2, 0}, {4, 0}}}, {S("dim2"), {{0, 1}, {0, 2}}}}, {S("dim1"), S("dim2")});
    assert!(layout.quotient(&[S("dim1"), S("dim2")]).is_some());
}

#[test]
fn QuotientMultipleTrivialDimensions() {
    let layout = ll!({
        {S("dim1"), {{1, 0, 2}, {2, 0, 1}}},
        {S("dim2"), {{0, 1, 0}, {0, 2, 0}, {0, 4, 0}}},
        {S("dim3"), {{0, 0, 1}, {0, 0, 2}}},
    }, {S("dim1"), S("dim2"), S("dim3")});
    assert!(layout.quotient(&[S("dim2")]).is_some());
    let layout = ll!({
        {S("dim1"), {{1, 0, 2}, {2, 0, 1}}},
        {S("dim2"), {{0, 1, 0}, {0, 2, 0}, {0, 4, 0}}},
        {S("dim3"), {{0, 1, 1}, {0, 0, 2}}},
    }, {S("dim1"), S("dim2"), S("dim3")});
    assert!(layout.quotient(&[S("dim2")]).is_none());
}

#[test]
fn QuotientEmptyLayout() {
    assert!(LinearLayout::empty().quotient(&[S("dim1")]).is_none());
}

#[test]
fn QuotientIdentityMultipleDimensions() {
    let layout = identity1D(8, S("dim1"), S("dim1"))
        * identity1D(2, S("dim2"), S("dim2"))
        * identity1D(4, S("dim3"), S("dim3"));
    let q = layout.quotient(&[S("dim1"), S("dim3")]).expect("trivial");
    assert!(q.quotient(&[S("dim2")]).is_some());
}

fn get_packed_coord_to_padded_offset(m: i32, k_packed_8b: i32) -> LinearLayout {
    let off = |row: i32, col: i32| {
        let linear = row * k_packed_8b + col;
        (linear / 8) * 16 + (linear % 8)
    };
    let rows: Vec<Vec<i32>> = std::iter::successors(Some(1), |r| Some(r * 2))
        .take_while(|&r| r < m)
        .map(|r| vec![off(r, 0)])
        .collect();
    let cols: Vec<Vec<i32>> = std::iter::successors(Some(1), |c| Some(c * 2))
        .take_while(|&c| c < k_packed_8b)
        .map(|c| vec![off(0, c)])
        .collect();
    LinearLayout::from_parts(
        vec![("row".into(), rows), ("col".into(), cols)],
        vec![("offset".into(), m * k_packed_8b * 2)],
        false,
    )
    .unwrap()
}

#[test]
fn BlackwellMixedPrecisionDotScaledSMEM() {
    let (num_fp4, m) = (128, 16);
    let k_packed = num_fp4 / m / 2;
    let k_padded = num_fp4 / m;
    let mut bases = Vec::new();
    let mut offset = 1;
    while offset < m * k_padded {
        let lin = offset / 16 * 8 + offset % 8;
        bases.push(vec![lin / k_packed, lin % k_packed]);
        offset *= 2;
    }
    let layout = LinearLayout::from_bases(vec![("offset".into(), bases)], &["row", "col"]).unwrap();
    let computed = layout.pseudoinvert().unwrap();
    let manual = get_packed_coord_to_padded_offset(m, k_packed);
    for i in 0..m {
        for j in 0..k_packed {
            let a = apply(&manual, &[("row", i), ("col", j)]);
            let b = apply(&computed, &[("row", i), ("col", j)]);
            assert_eq!(a[0].1, b[0].1);
        }
    }
}

#[test]
fn BlackwellMixedPrecisionDotScaledSMEMSwizzled() {
    let (m, k_padded) = (16, 128);
    let k_packed = k_padded / 2;
    let (elem_bits, tile_width_bytes, tile_rows, vec) = (8, 128, 8, 16);
    let tile_cols = 8 * tile_width_bytes / elem_bits;
    let mut bases = Vec::new();
    let mut c = 1;
    while c < tile_cols {
        bases.push(vec![0, c / 16 * 8 + c % 8]);
        c *= 2;
    }
    let mut row = 1;
    while row < tile_rows {
        let col_padded = vec * (row % 8);
        bases.push(vec![row, col_padded / 16 * 8 + col_padded % 8]);
        row *= 2;
    }
    let layout = LinearLayout::from_bases(vec![("offset".into(), bases)], &["row", "col"]).unwrap();
    let layout = utils::ensure_layout_not_smaller_than(
        &layout,
        &[("row".into(), m), ("col".into(), k_packed)],
    )
    .unwrap();
    let inv = layout.pseudoinvert().unwrap();
    let plain = get_packed_coord_to_padded_offset(m, k_packed);
    for i in 0..m {
        for j in 0..k_packed {
            let non_swizzled = apply(&plain, &[("row", i), ("col", j)])[0].1;
            let swizzled = apply(&inv, &[("row", i), ("col", j)])[0].1;
            let (r, c) = (non_swizzled / k_padded, non_swizzled % k_padded);
            let c_sw = ((c / 16) ^ (r % 8)) * 16 + c % 16;
            assert_eq!(r * k_padded + c_sw, swizzled);
        }
    }
}

fn list(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn SupremumTest_IdenticalLists() {
    let x = list(&["a", "b", "c"]);
    assert_eq!(layout_core::utils::supremum(&x, &x).unwrap(), x);
}

#[test]
fn SupremumTest_NonUniqueSupremumFirstListPriority() {
    assert_eq!(
        layout_core::utils::supremum(&list(&["a", "b"]), &list(&["a", "c"])).unwrap(),
        list(&["a", "b", "c"])
    );
}

#[test]
fn SupremumTest_NonUniqueSupremumAlternate() {
    assert_eq!(
        layout_core::utils::supremum(&list(&["a", "b"]), &list(&["b", "c"])).unwrap(),
        list(&["a", "b", "c"])
    );
}

#[test]
fn SupremumTest_DifferentLengths() {
    assert_eq!(
        layout_core::utils::supremum(&list(&["a", "b", "c"]), &list(&["a", "d"])).unwrap(),
        list(&["a", "b", "c", "d"])
    );
}

#[test]
fn SupremumTest_SupremumEmptyLists() {
    assert!(layout_core::utils::supremum(&[], &[]).unwrap().is_empty());
}

#[test]
fn SupremumTest_OneEmptyList() {
    assert_eq!(
        layout_core::utils::supremum(&list(&["a", "b"]), &[]).unwrap(),
        list(&["a", "b"])
    );
}

#[test]
fn SupremumTest_ErrorOnInconsistentOrder() {
    // Triton's death test sits behind `#ifdef LLVM_ENABLE_ASSERTIONS`, which is a CMake option,
    // not a preprocessor macro, so it never compiles; and Triton's algorithm does not reach its
    // llvm_unreachable on this input: it returns [a, b]. We keep Triton's answer, which
    // operator* depends on.
    assert_eq!(
        layout_core::utils::supremum(&list(&["a", "b"]), &list(&["b", "a"])).unwrap(),
        list(&["a", "b"])
    );
}

#[test]
fn Divide_Basic() {
    let b = identity1D(8, S("in"), S("out"));
    let c = zeros1D3(16, S("in"), S("out"));
    assert_eq!(divideLeft(&(&b * &c), &b), Some(c.clone()));
    assert_eq!(divideRight(&(&b * &c), &c), Some(b.clone()));
    assert_eq!(divideLeft(&(&c * &b), &c), Some(b.clone()));
    assert_eq!(divideRight(&(&c * &b), &b), Some(c.clone()));
}

#[test]
fn Divide_NonMatchingDims() {
    let a = identity1D(32, S("in"), S("out"));
    let b = ll!({{S("in"), {{1}, {2}, {4}, {8}}}, {S("extra"), {{0}}}}, {S("out")});
    assert!(divideLeft(&a, &b).is_none());
    assert!(divideRight(&a, &b).is_none());
}

#[test]
fn Divide_Simple() {
    let a = identity1D(8, S("in"), S("out"));
    let b = identity1D(4, S("in"), S("out"));
    let c = identity1D(2, S("in"), S("out"));
    assert_eq!(divideLeft(&a, &b), Some(c.clone()));
    assert_eq!(divideRight(&a, &b), Some(c));
    let c = identity1D(1, S("in"), S("out"));
    assert_eq!(divideLeft(&a, &a), Some(c.clone()));
    assert_eq!(divideRight(&a, &a), Some(c));
}

#[test]
fn Divide_2D() {
    let l1 = ll!({{S("in1"), {{1, 1}, {2, 2}, {0, 8}, {0, 4}}}, {S("in2"), {{0, 2}, {0, 1}}}}, {S("out1"), S("out2")});
    let l2 =
        ll!({{S("in1"), {{1, 1}, {2, 2}}}, {S("in2"), {{0, 2}, {0, 1}}}}, {S("out1"), S("out2")});
    let l3 = ll!({{S("in1"), {{0, 2}, {0, 1}}}, {S("in2"), {}}}, {S("out1"), S("out2")});
    assert_eq!(&l2 * &l3, l1);
    assert_eq!(divideLeft(&l1, &l2).unwrap(), l3);
    assert_eq!(divideRight(&l1, &l3).unwrap(), l2);
}

#[test]
fn Divide_EliminateInDim() {
    let l1 =
        ll!({{S("in2"), {{0, 1}, {1, 0}}}, {S("in1"), {{2, 0}, {0, 2}}}}, {S("out1"), S("out2")});
    let l2 = ll!({{S("in2"), {{0, 1}, {1, 0}}}}, {S("out1"), S("out2")});
    let l3 = ll!({{S("in2"), {}}, {S("in1"), {{1, 0}, {0, 1}}}}, {S("out1"), S("out2")});
    assert_eq!(&l2 * &l3, l1);
    assert_eq!(divideLeft(&l1, &l2).unwrap(), l3);

    let l2 = ll!({{S("in2"), {{0, 1}, {1, 0}}}, {S("in1"), {}}}, {S("out1"), S("out2")});
    let l3 = ll!({{S("in1"), {{1, 0}, {0, 1}}}}, {S("out1"), S("out2")});
    assert_eq!(&l2 * &l3, l1);
    assert_eq!(divideRight(&l1, &l3).unwrap(), l2);

    let l4 = ll!({{S("in1"), {{0, 1}, {0, 2}}}, {S("in2"), {}}}, {S("out1"), S("out2")});
    let l5 = ll!({{S("in1"), {{0, 1}, {0, 2}}}}, {S("out1"), S("out2")});
    let l6 = ll!({{S("in1"), {}}, {S("in2"), {}}}, {S("out1"), S("out2")});
    assert_eq!(&l5 * &l6, l4);
    assert_eq!(divideLeft(&l4, &l5).unwrap(), l6);
    assert_eq!(divideRight(&l4, &l5).unwrap(), l6);

    let l7 = ll!({{S("in1"), {}}, {S("in2"), {{0, 1}}}, {S("in3"), {}}}, {S("out1"), S("out2")});
    let l8 = ll!({{S("in2"), {{0, 1}}}}, {S("out1"), S("out2")});
    let l9 = ll!({{S("in1"), {}}, {S("in2"), {}}, {S("in3"), {}}}, {S("out1"), S("out2")});
    assert_eq!(&l8 * &l9, l7);
    assert_eq!(divideLeft(&l7, &l8).unwrap(), l9);
    assert_eq!(divideRight(&l7, &l8).unwrap(), l9);
}

#[test]
fn Divide_EliminateOutDim() {
    let l1 =
        ll!({{S("in2"), {{1, 0}, {1, 0}}}, {S("in1"), {{2, 0}, {0, 1}}}}, {S("out1"), S("out2")});
    let l2 = ll!({{S("in2"), {{1}, {1}}}}, {S("out1")});
    let l3 = ll!({{S("in2"), {}}, {S("in1"), {{1, 0}, {0, 1}}}}, {S("out1"), S("out2")});
    assert_eq!(&l2 * &l3, l1);
    assert_eq!(divideLeft(&l1, &l2).unwrap(), l3);

    let l1 =
        ll!({{S("in2"), {{1, 0}, {0, 2}}}, {S("in1"), {{0, 1}, {0, 2}}}}, {S("out1"), S("out2")});
    let l2 = ll!({{S("in2"), {{1}}}, {S("in1"), {{1}}}}, {S("out2")});
    let l3 = ll!({{S("in2"), {{1, 0}}}, {S("in1"), {{0, 1}}}}, {S("out1"), S("out2")});
    assert_eq!(&l3 * &l2, l1);
    assert_eq!(divideRight(&l1, &l2).unwrap(), l3);

    let l4 = ll!({{S("in1"), {{0, 1}, {0, 2}}}}, {S("out1"), S("out2")});
    let l5 = LinearLayout::from_bases(vec![], &["out1"]).unwrap();
    let l6 = ll!({{S("in1"), {{0, 1}, {0, 2}}}}, {S("out1"), S("out2")});
    assert_eq!(&l5 * &l6, l4);
    assert_eq!(divideLeft(&l4, &l5).unwrap(), l6);
    assert_eq!(divideRight(&l4, &l5).unwrap(), l6);
}

#[test]
fn ColumnActionApplyLayout() {
    let layout = ll!({{S("in"), {{1}, {2}, {4}}}}, {S("out")});
    // Triton builds this first expectation but never checks it; we do.
    let transformed = ColumnAction::new(vec![2, 0, 1], "in", 3)
        .unwrap()
        .apply(&layout)
        .unwrap();
    assert_eq!(transformed, ll!({{S("in"), {{4}, {1}, {2}}}}, {S("out")}));
    let transformed = ColumnAction::new(vec![1, 0], "in", 3)
        .unwrap()
        .apply(&layout)
        .unwrap();
    assert_eq!(
        transformed,
        ll!({{S("in"), {{2}, {1}}}}, {{S("out"), 8}}, false)
    );
}

#[test]
fn ColumnActionApplyValues() {
    let values: Vec<i32> = (1..=8).collect();
    let permuted = ColumnAction::new(vec![2, 0, 1], "register", 3)
        .unwrap()
        .apply_values(&values)
        .unwrap();
    assert_eq!(permuted, vec![1, 5, 2, 6, 3, 7, 4, 8]);
    let permuted = ColumnAction::new(vec![2, 1], "register", 3)
        .unwrap()
        .apply_values(&values)
        .unwrap();
    assert_eq!(permuted, vec![1, 5, 3, 7]);
}
