//! What a view or partition was made of besides its buffer ([`Made`]), for the checks a
//! `#[kernel]` body makes off the GPU (`host_entry`): a leaf the view and partition modules
//! implement it from.

/// A view or partition as made from its buffer: the sizes its `new_unchecked` (and `host`)
/// took after the buffer, what `#[kernel]`'s entry computes from `extent(..)`.
pub trait Made {
    /// The sizes: a shape, a count, a number of columns.
    type Sizes: Copy + PartialEq + core::fmt::Debug;
    /// The sizes it was made with.
    fn sizes(&self) -> Self::Sizes;
    /// The elements of its buffer, where known (host memory that says).
    fn elements(&self) -> Option<u64>;
    /// Whether it is as made, not narrowed or transposed since (a view's `rows`, `transpose`):
    /// the GPU entry hands the body the whole tensor.
    fn whole(&self) -> bool {
        true
    }
}

/// [`Made`] for view and partition types: `impl[generics] Type, buffer_field, Sizes, |self| sizes;`
/// (invoked off the GPU only, where this module is).
macro_rules! made {
    ($(impl[$($g:tt)*] $ty:ty, $buf:ident, $sizes:ty, |$s:ident| $e:expr;)*) => {$(
        impl<$($g)*> $crate::made::Made for $ty {
            type Sizes = $sizes;
            fn sizes(&$s) -> $sizes {
                $e
            }
            fn elements(&self) -> Option<u64> {
                self.$buf.elements()
            }
        }
    )*};
}
pub(crate) use made;
