//! `convert!` reached through a re-export, with sides named by every kind of path, run on the
//! simulator.

use reexporter::sim::{launch, Launch};
use reexporter::{convert, Thread};
use through_reexport::Cols;

// `use` brings a layout's macro along with its type, so a renamed import works as a side.
use reexporter::tiles::Rows as R;

fn check<const NS: usize, const ND: usize>(
    run: impl Fn(&reexporter::sim::SimThread, &[f32; NS]) -> [f32; ND] + Sync,
    bytes: u32,
) {
    launch(Launch::new(1, 128, bytes), |t| {
        let (lane, warp) = (t.lane(), t.warp());
        let mine: [f32; NS] = std::array::from_fn(|r| {
            let [i, j] = R::apply(r as u32, lane, warp, 0);
            (64 * i + j) as f32
        });
        for (r, v) in run(t, &mine).iter().enumerate() {
            let [i, j] = Cols::apply(r as u32, lane, warp, 0);
            assert_eq!(*v, (64 * i + j) as f32);
        }
    })
    .unwrap();
}

#[test]
fn every_path_form_converts_on_the_simulator() {
    let a = convert!(reexporter::tiles::Rows => Cols, f32);
    let b = convert!(::reexporter::tiles::Rows => crate::Cols, f32);
    let c = convert!(R => self::Cols, f32);
    let d = convert!(R => through_reexport::Cols, f32);
    assert_eq!(a.cost, b.cost);
    assert_eq!(a.cost, c.cost);
    assert_eq!(a.cost, d.cost);
    check(|t, v| a.run(t, v), a.shared_bytes());
    check(|t, v| c.run(t, v), c.shared_bytes());
}

mod nested {
    #[test]
    fn super_paths() {
        let cvt = reexporter::convert!(super::R => super::Cols, f32);
        super::check(|t, v| cvt.run(t, v), cvt.shared_bytes());
    }
}

#[test]
fn layouts_of_every_visibility_inside_the_library() {
    assert_eq!(reexporter::INNER_SCRATCH, 64 * 64 * 4);
    assert_eq!(
        reexporter::PRIVATE_STRATEGY,
        reexporter::Strategy::SharedMemory
    );
}
