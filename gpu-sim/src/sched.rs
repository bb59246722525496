//! Where simulated threads run: each a coroutine on the launching OS thread, resumed in turn
//! until it waits ([`pause`]) or returns. A wait is a loop of `pause` until its condition holds,
//! so switching threads costs a function call, not a kernel's futex and scheduler: a CTA of 128
//! threads meeting at a shuffle or a barrier is 128 resumes. The threads still interleave at
//! every wait as the hardware's warps may, which is all the simulator's ordering checks need
//! (they follow barriers, epochs and clocks, never the host's timing).

use core::cell::{Cell, RefCell};
use core::ptr;
use std::boxed::Box;
use std::vec::Vec;

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

/// A simulated thread's stack: what an OS thread of the simulator had (kernel bodies in debug
/// builds keep their register arrays on it).
const STACK_BYTES: usize = 256 * 1024;

type Thread = Coroutine<(), (), (), DefaultStack>;

/// Stacks kept for reuse per OS thread: a cluster of 4 CTAs of 256 threads.
const POOL: usize = 1024;

std::thread_local! {
    /// The yielder of the coroutine running now on this OS thread (null outside one).
    static CURRENT: Cell<*const Yielder<(), ()>> = const { Cell::new(ptr::null()) };
    /// What the coroutine running now has made current (`global::Current`: its simulated
    /// thread), kept across its waits.
    static CONTEXT: Cell<*const ()> = const { Cell::new(ptr::null()) };
    /// Stacks of finished threads, reused by the next launch on this OS thread (an `mmap` each
    /// otherwise).
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
}

/// Let the other simulated threads run; returns when the scheduler resumes this one. Outside a
/// simulated thread it yields the OS thread instead.
pub(crate) fn pause() {
    let y = CURRENT.with(Cell::get);
    if y.is_null() {
        std::thread::yield_now();
        return;
    }
    let context = context();
    // SAFETY: `y` is the yielder of the coroutine running now (set when its body started and
    // after each of its suspends), which lives on that coroutine's stack until its body returns.
    unsafe { (*y).suspend(()) };
    CURRENT.with(|c| c.set(y));
    set_context(context);
}

/// The running coroutine's context (null when it set none).
pub(crate) fn context() -> *const () {
    CONTEXT.with(Cell::get)
}

/// Set the running coroutine's context: it is restored after each of its [`pause`]s.
pub(crate) fn set_context(p: *const ()) {
    CONTEXT.with(|c| c.set(p));
}

/// Run `bodies` to completion, interleaved at their [`pause`]s, on this OS thread. A body whose
/// stack cannot be allocated is not run: `failed` gets the reason.
pub(crate) fn run_all<'a>(
    bodies: impl Iterator<Item = Box<dyn FnOnce() + 'a>>,
    mut failed: impl FnMut(std::io::Error),
) {
    let mut threads: Vec<Option<Thread>> = Vec::new();
    for body in bodies {
        match take_stack() {
            Ok(stack) => threads.push(Some(start(stack, body))),
            Err(e) => failed(e),
        }
    }
    let _reset = ResetCurrent;
    while !threads.is_empty() {
        for slot in threads.iter_mut() {
            let Some(t) = slot else { continue };
            let result = t.resume(());
            // Between threads no yielder or context is current: a `pause` here yields the OS
            // thread.
            CURRENT.with(|c| c.set(ptr::null()));
            set_context(ptr::null());
            if let CoroutineResult::Return(()) = result {
                if let Some(t) = slot.take() {
                    STACKS.with(|s| {
                        let mut pool = s.borrow_mut();
                        if pool.len() < POOL {
                            pool.push(t.into_stack());
                        }
                    });
                }
            }
        }
        threads.retain(Option::is_some);
    }
}

/// Clears the current yielder when the scheduler ends, also by a panic out of a thread.
struct ResetCurrent;

impl Drop for ResetCurrent {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(ptr::null()));
        set_context(ptr::null());
    }
}

/// A coroutine running `body` on `stack`.
fn start<'a>(stack: DefaultStack, body: Box<dyn FnOnce() + 'a>) -> Thread {
    let run = move |y: &Yielder<(), ()>, ()| {
        CURRENT.with(|c| c.set(y));
        body();
    };
    // SAFETY: what `body` borrows lives for `'a`, and `run_all`, which holds every coroutine it
    // makes, drives each to completion (or drops it, unwinding its stack) before it returns.
    unsafe { Coroutine::with_stack_unchecked(stack, run) }
}

fn take_stack() -> std::io::Result<DefaultStack> {
    match STACKS.with(|s| s.borrow_mut().pop()) {
        Some(s) => Ok(s),
        None => DefaultStack::new(STACK_BYTES),
    }
}
