//! Conversions through the renamed dependency, run on the simulator.

use ll::sim::{Launch, launch};
use ll::{Layout, Thread, convert};
use renamed::{Acc, Rows};

#[test]
fn renamed_dependency_converts_on_the_simulator() {
    let cvt = convert!(Rows => Acc, u16);
    assert_eq!(
        cvt.cost,
        ll::convert!(renamed::Rows => renamed::Acc, u16).cost
    );
    launch(Launch::new(1, 128, cvt.shared_bytes()), |t| {
        let (lane, warp) = (t.lane(), t.warp());
        let mine: [u16; 32] = std::array::from_fn(|r| {
            let [i, j] = Rows::apply(r as u32, lane, warp, 0);
            (64 * i + j) as u16
        });
        for (r, v) in cvt.run(t, &mine).iter().enumerate() {
            let [i, j] = Acc::apply(r as u32, lane, warp, 0);
            assert_eq!(*v, (64 * i + j) as u16);
        }
    })
    .unwrap();
}

#[test]
fn linear_layout_comes_from_the_const_tables() {
    let l = Rows::linear_layout();
    assert_eq!(l.in_dim_size("lane"), 32);
    assert_eq!(<Rows as Layout>::SHAPE, &[64, 64]);
}
