//! Slices in a `const fn`: taking a part of one and comparing two, which `[a..b]` and `==`
//! would do outside a const. A const evaluation interprets every call, so these take the
//! fewest: the planner's compile time is mostly its slices and loops.

/// The first `len` items of `items`. What `items.split_at(len).0` gives, without its five
/// nested calls, each of which a const evaluation interprets: the fixed-size lists' slices are
/// the planner's most frequent call, so its compile time. `len` past the slice is a planner bug:
/// a panic (a compile error in a const), never a shorter slice.
#[allow(unsafe_code)]
pub const fn prefix<T>(items: &[T], len: usize) -> &[T] {
    if len > items.len() {
        panic!("layout_plan::slices::prefix: the length is past the slice's end");
    }
    // SAFETY: `len` is at most `items.len()`, so the slice is `items`' first `len` items.
    unsafe { core::slice::from_raw_parts(items.as_ptr(), len) }
}

/// `&items[a..b]`, as cheaply as [`prefix`]; a range past the slice's end, or `a > b`, is a
/// panic (a compile error in a const), as `&items[a..b]` is.
#[allow(unsafe_code)]
pub const fn range<T>(items: &[T], a: usize, b: usize) -> &[T] {
    if a > b || b > items.len() {
        panic!("layout_plan::slices::range: the range is not within the slice");
    }
    // SAFETY: `a <= b <= items.len()`, so the slice is `items`' items `a..b`.
    unsafe { core::slice::from_raw_parts(items.as_ptr().add(a), b - a) }
}

/// `fn $name(a: &[$t], b: &[$t]) -> bool`: the `==` of slices, which a `const fn` cannot call.
macro_rules! same_items {
    ($($name:ident: $t:ty),*) => {
        $(
            #[doc = concat!("Whether `a` and `b` hold the same `", stringify!($t), "`s (`a == b` in a const).")]
            pub const fn $name(a: &[$t], b: &[$t]) -> bool {
                if a.len() != b.len() {
                    return false;
                }
                let mut i = 0;
                while i < a.len() {
                    if a[i] != b[i] {
                        return false;
                    }
                    i += 1;
                }
                true
            }
        )*
    };
}

same_items!(same_u8: u8, same_u16: u16, same_u32: u32);
