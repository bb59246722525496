// Only the crate's operands issue wgmma groups: an `OperandA` that issues none would hand
// `Pending::then` an `Older` whose group is the newest in flight, so the trait is sealed.
use linear_layouts::{Accumulate, Holds, Hopper, Layout, OperandA, Pending, SharedTile, F16};

struct NoGroup;

impl OperandA<F16> for NoGroup {
    fn issue<B: Layout, C: Holds<f32, NC>, T: Hopper, const NC: usize>(
        self,
        _: &T,
        _: &SharedTile<B, F16>,
        acc: impl Accumulate<C>,
    ) -> Pending<C> {
        acc.into_pending()
    }
}

fn main() {}
