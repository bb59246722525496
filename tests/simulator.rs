//! The simulator's own contract: a kernel body that panics comes back as an error naming the
//! thread, and the threads waiting for it at a barrier are released, so a launch never hangs.

use std::time::{Duration, Instant};

use linear_layouts::sim::SimThread;
use linear_layouts::sim::{launch, Launch};
use linear_layouts::Thread;

/// A way for a thread to wait for others.
type Wait = fn(&SimThread);

fn panics_before(barrier: Wait) -> (String, Duration) {
    let start = Instant::now();
    let r = launch(Launch::new(2, 64, 0).with_cluster(2), |t| {
        assert!(
            !(t.cta_rank() == 1 && t.warp() == 1 && t.lane() == 5),
            "the kernel's own check failed"
        );
        barrier(t);
    });
    let err = r.expect_err("a panicking thread must fail the launch");
    (err.to_string(), start.elapsed())
}

#[test]
fn a_panic_before_a_barrier_is_an_error_naming_the_thread() {
    let barriers: [(&str, Wait); 4] = [
        ("warp", |t| t.sync_warp()),
        ("block", |t| t.sync_block()),
        ("cluster", |t| t.sync_cluster()),
        ("shuffle", |t| {
            t.shfl_xor(t.lane(), 1);
        }),
    ];
    for (name, b) in barriers {
        let (msg, took) = panics_before(b);
        assert!(took < Duration::from_secs(1), "{}: took {:?}", name, took);
        assert_eq!(
            msg, "thread 37 (block 1, warp 1, lane 5) panicked: the kernel's own check failed",
            "{}",
            name
        );
    }
}

#[test]
fn a_panic_stops_the_launch_after_its_cluster() {
    let ran = std::sync::atomic::AtomicU32::new(0);
    let r = launch(Launch::new(4, 32, 0), |t| {
        ran.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        assert!(t.block() != 1 || t.lane() != 0, "block 1 fails");
        t.sync_block();
    });
    assert_eq!(
        r.unwrap_err().0,
        vec!["thread 0 (block 1, warp 0, lane 0) panicked: block 1 fails".to_string()]
    );
    assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 64);
}
