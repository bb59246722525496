//! The simulator's own contract: a kernel body that panics comes back as an error naming the
//! thread, and the threads waiting for it at a barrier are released, so a launch returns (a
//! launch that hung would hang the test: no clock is read).
//!
//! Raw shared-memory accesses are `unsafe` (the contract of `Thread`): in these kernels the
//! simulator is what checks it, and some break it on purpose to see it reported.

use linear_layouts::sim::SimThread;
use linear_layouts::sim::{launch, IssueKind, Launch};
use linear_layouts::{MBarriers, Thread};

/// A way for a thread to wait for others.
type Wait = fn(&SimThread);

fn panics_before(barrier: Wait) -> linear_layouts::sim::SimError {
    let r = launch(Launch::new(2, 64, 0).with_cluster(2), |t| {
        assert!(
            !(t.cta_rank() == 1 && t.warp() == 1 && t.lane() == 5),
            "the kernel's own check failed"
        );
        barrier(t);
    });
    r.expect_err("a panicking thread must fail the launch")
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
        let err = panics_before(b);
        assert_eq!(err.issues.len(), 1, "{}: {}", name, err);
        let issue = &err.issues[0];
        assert_eq!(issue.kind, IssueKind::Panic, "{}", name);
        assert_eq!(
            issue.place,
            Some(linear_layouts::sim::Place {
                block: 1,
                thread: 37
            })
        );
        assert_eq!(
            issue.message,
            "thread 37 (block 1, warp 1, lane 5) panicked: the kernel's own check failed",
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
    let messages: Vec<_> = r
        .unwrap_err()
        .issues
        .into_iter()
        .map(|i| i.message)
        .collect();
    assert_eq!(
        messages,
        vec!["thread 0 (block 1, warp 0, lane 0) panicked: block 1 fails".to_string()]
    );
    assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 64);
}

/// A backend with only the core of `Thread` (no matrix instructions, no clusters): the trait's
/// default methods stand in, here over the simulator's core operations.
struct CoreOnly<'a, 'b>(&'a SimThread<'b>);

// SAFETY: every promise of the trait is the wrapped thread's, forwarded unchanged.
unsafe impl Thread for CoreOnly<'_, '_> {
    fn scratch_reads(&self) -> bool {
        self.0.scratch_reads()
    }
    fn set_scratch_reads(&self, pending: bool) {
        self.0.set_scratch_reads(pending)
    }
    fn lane(&self) -> u32 {
        self.0.lane()
    }
    fn warp(&self) -> u32 {
        self.0.warp()
    }
    fn block(&self) -> u32 {
        self.0.block()
    }
    fn thread_idx(&self) -> [u32; 3] {
        self.0.thread_idx()
    }
    fn block_dim(&self) -> [u32; 3] {
        self.0.block_dim()
    }
    fn block_idx(&self) -> [u32; 3] {
        self.0.block_idx()
    }
    fn grid_dim(&self) -> [u32; 3] {
        self.0.grid_dim()
    }
    fn shfl_idx(&self, v: u32, src_lane: u32) -> u32 {
        self.0.shfl_idx(v, src_lane)
    }
    fn shfl_xor(&self, v: u32, mask: u32) -> u32 {
        self.0.shfl_xor(v, mask)
    }
    fn sync_warp(&self) {
        self.0.sync_warp()
    }
    fn sync_block(&self) {
        self.0.sync_block()
    }
    unsafe fn st_shared(&self, byte_offset: u32, bytes: u32, words: [u32; 4]) {
        unsafe { self.0.st_shared(byte_offset, bytes, words) }
    }
    unsafe fn ld_shared(&self, byte_offset: u32, bytes: u32) -> [u32; 4] {
        unsafe { self.0.ld_shared(byte_offset, bytes) }
    }
}

linear_layouts::layout! {
    Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]) for [64, 64];
    Nv128 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}> : tensor<64x64xf16>;
}

#[test]
fn a_core_only_backend_runs_matrix_plans_through_the_defaults() {
    use linear_layouts::runtime::convert::Instr;
    let st = linear_layouts::convert!(Acc => Nv128, u16);
    let ld = linear_layouts::convert!(Nv128 => Acc, u16);
    assert!(
        matches!(st.access().instr, Instr::Matrix { .. }),
        "{:?}",
        st.access()
    );
    assert!(
        matches!(ld.access().instr, Instr::Matrix { .. }),
        "{:?}",
        ld.access()
    );
    launch(Launch::new(1, 128, 64 * 64 * 2), |t| {
        let core = CoreOnly(t);
        let mine: [u16; 32] = std::array::from_fn(|r| {
            let [i, j] = Acc::apply(r as u32, t.lane(), t.warp(), 0);
            (64 * i + j) as u16
        });
        st.store(&core, &mine);
        core.sync_block();
        assert_eq!(ld.load(&core), mine);
        // The same stores as the hardware instructions, element for element.
        for (r, &v) in mine.iter().enumerate() {
            let [i, j] = Acc::apply(r as u32, t.lane(), t.warp(), 0);
            let o = Nv128::locate([i, j]).offset;
            assert_eq!(unsafe { core.ld_shared(2 * o, 2) }[0] as u16, v);
        }
    })
    .unwrap();
}

/// Lanes of one store instruction that write the same value to a byte are not a race (an
/// `stmatrix` whose address rows hold copies does this); different values, or the same value
/// from another warp without a barrier, are.
#[test]
fn same_value_writes_of_one_instruction_are_not_a_race() {
    let store = |value: fn(&SimThread) -> u32| {
        launch(Launch::new(1, 64, 16), move |t| {
            if t.warp() == 0 {
                unsafe { t.st_shared(0, 4, [value(t), 0, 0, 0]) };
            }
            t.sync_block();
            let _ = unsafe { t.ld_shared(0, 4) };
        })
    };
    store(|_| 7).expect("one instruction, one value");
    let e = store(|t| t.lane()).expect_err("one instruction, values differ");
    assert!(e.has(IssueKind::Race), "{}", e);
    let e = launch(Launch::new(1, 64, 16), |t| {
        unsafe { t.st_shared(0, 4, [7, 0, 0, 0]) };
    })
    .expect_err("two warps, no barrier");
    assert!(e.has(IssueKind::Race), "{}", e);
}

/// A wait no thread can end is a deadlock, reported the moment the last thread that could end
/// it waits too or returns (no timeout): a barrier some threads never reach, an mbarrier phase
/// short of arrivals, a named barrier with fewer threads than its count.
#[test]
fn waits_no_thread_can_end_are_deadlocks() {
    use linear_layouts::Hopper;
    let cases: [(&str, Wait); 3] = [
        ("a barrier warp 1 never reaches", |t| {
            if t.warp() == 0 {
                t.sync_block();
            }
        }),
        ("an mbarrier phase short of arrivals", |t| {
            let bar = MBarriers::<1>::init(t, 0, 65).index(0);
            bar.arrive(t);
            bar.wait(t, 0);
        }),
        ("a named barrier of more threads than reach it", |t| {
            if t.warp() == 0 {
                t.bar_sync(1, 64);
            }
        }),
    ];
    for (what, body) in cases {
        let e = launch(Launch::new(1, 64, 64), body).expect_err(what);
        assert!(e.has(IssueKind::Deadlock), "{}: {}", what, e);
        assert!(!e.has(IssueKind::Panic), "{}: {}", what, e);
    }
    // Waits that do end are not deadlocks, however the threads are scheduled.
    for _ in 0..20 {
        launch(Launch::new(1, 64, 64), |t| {
            let bar = MBarriers::<1>::init(t, 0, 64).index(0);
            bar.arrive(t);
            bar.wait(t, 0);
            t.bar_sync(1, 64);
            t.sync_block();
        })
        .expect("every wait ends");
    }
}

/// A global access past its tensor is an `OutOfBounds` issue naming the thread, the element and
/// the tensor's length, and ends the launch; the threads in range are not reported.
/// `bar.sync` is aligned: a warp whose lanes reach a CTA or named barrier at two calls (the
/// arms of a branch on the lane) is reported, though every thread arrives and the simulator's
/// barrier completes; one call after the branch, or a branch on the warp, is not.
#[test]
#[allow(clippy::if_same_then_else)] // the same call in both arms is the point
fn a_barrier_reached_by_a_warp_at_two_calls_is_divergent() {
    use linear_layouts::{Hopper, Partition};
    let split: [(&str, Wait); 5] = [
        ("mbarriers initialised in both arms", |t| {
            if t.lane() == 0 {
                MBarriers::<1>::init(t, 0, 1);
            } else {
                MBarriers::<1>::init(t, 8, 1);
            }
        }),
        ("sync_cluster in both arms", |t| {
            if t.lane() == 31 {
                t.sync_cluster();
            } else {
                t.sync_cluster();
            }
        }),
        ("sync_block in both arms", |t| {
            if t.lane() == 0 {
                t.sync_block();
            } else {
                t.sync_block();
            }
        }),
        ("a named barrier in both arms", |t| {
            if t.lane() < 16 {
                t.bar_sync(1, 64);
            } else {
                t.bar_sync(1, 64);
            }
        }),
        ("a partition's barrier in both arms", |t| {
            if let Some(p) = Partition::of(t, 0, 2, 1) {
                if p.lane() % 2 == 0 {
                    p.sync_block();
                } else {
                    p.sync_block();
                }
            }
        }),
    ];
    for (what, body) in split {
        let e = launch(Launch::new(1, 64, 64), body).expect_err(what);
        assert!(e.has(IssueKind::DivergentBarrier), "{}: {}", what, e);
        assert!(
            e.to_string().contains("simulator.rs"),
            "{}: the calls are named: {}",
            what,
            e
        );
    }
    let joined: [(&str, Wait); 3] = [
        ("one call after the branch", |t| {
            if t.lane() == 0 {
                core::hint::black_box(1);
            }
            t.sync_block();
            t.sync_block();
        }),
        ("a branch on the warp", |t| {
            if t.warp() == 0 {
                t.sync_block();
            } else {
                t.sync_block();
            }
        }),
        ("the same call in a loop", |t| {
            for _ in 0..3 {
                t.bar_sync(2, 64);
            }
        }),
    ];
    for (what, body) in joined {
        launch(Launch::new(1, 64, 64), body).unwrap_or_else(|e| panic!("{}: {}", what, e));
    }
}

#[test]
fn a_global_access_past_the_tensor_is_out_of_bounds() {
    use linear_layouts::sim::HostMemory;
    let x = HostMemory::new((0..64).map(|i| i as u64));
    let y = HostMemory::new((0..64).map(|_| 0));
    let e = launch(Launch::new(1, 64, 0), |t| {
        let i = (t.warp() * 32 + t.lane()) as usize;
        // SAFETY: host memory checks every access; these kernels break the rules on purpose.
        let v: u32 = unsafe { x.global::<u32>().load1(i + 1) };
        // SAFETY: host memory checks every access; these kernels break the rules on purpose.
        unsafe { y.global_mut::<u32>().store1(i, v) };
    })
    .unwrap_err();
    assert!(e.has(IssueKind::OutOfBounds), "{}", e);
    assert!(!e.has(IssueKind::Panic), "{}", e);
    let text = e.to_string();
    assert!(
        text.contains("thread 63") && text.contains("load of element 64 of a tensor of 64"),
        "{}",
        text
    );
    assert!(!text.contains("thread 62 "), "{}", text);
}

/// Global memory is checked as strictly as shared memory: each wrong kernel below is reported
/// with its issue kind and the place (block and thread) of the access that found it, and its
/// right twin is not.
mod global_memory {
    use linear_layouts::sim::{launch, HostMemory, IssueKind, Launch, Place, SimError};
    use linear_layouts::Thread;

    /// The first issue of `kind` in `e`, checked to be at thread `thread` of block `block`; its
    /// message.
    fn only(e: &SimError, kind: IssueKind, block: u32, thread: u32) -> String {
        let found: Vec<_> = e.issues.iter().filter(|i| i.kind == kind).collect();
        assert!(!found.is_empty(), "no {:?} in {}", kind, e);
        assert_eq!(found[0].place, Some(Place { block, thread }), "{}", e);
        found[0].message.clone()
    }

    #[test]
    fn two_ctas_writing_one_element_race() {
        let y = HostMemory::new((0..64).map(|_| 0)).named("y");
        let e = launch(Launch::new(2, 32, 0), |t| {
            let i = t.lane() as usize;
            // SAFETY: host memory checks every access; these kernels break the rules on purpose.
            unsafe { y.global_mut::<u32>().store1(i, t.block_idx()[0]) };
        })
        .unwrap_err();
        let m = only(&e, IssueKind::Race, 1, 0);
        assert!(
            m.contains("writes element 0 of tensor `y` that thread 0 (block 0) wrote"),
            "{}",
            m
        );
        assert!(
            m.contains("CTAs of different clusters are never ordered"),
            "{}",
            m
        );
        // Each CTA writing its own half is right.
        launch(Launch::new(2, 32, 0), |t| {
            let i = (32 * t.block_idx()[0] + t.lane()) as usize;
            // SAFETY: host memory checks every access; these kernels break the rules on purpose.
            unsafe { y.global_mut::<u32>().store1(i, t.block_idx()[0]) };
        })
        .unwrap();
        assert_eq!(y.get(40), 1);
    }

    #[test]
    fn reading_what_another_cta_writes_races() {
        let x = HostMemory::new((0..64).map(|i| i as u64)).named("x");
        let e = launch(Launch::new(2, 32, 0), |t| {
            let i = t.lane() as usize;
            if t.block_idx()[0] == 0 {
                // SAFETY: host memory checks every access; these kernels break the rules on purpose.
                unsafe { x.global_mut::<u32>().store1(i, 7) };
            } else {
                // SAFETY: host memory checks every access; these kernels break the rules on purpose.
                let _ = unsafe { x.global::<u32>().load1(i) };
            }
        })
        .unwrap_err();
        let m = only(&e, IssueKind::Race, 1, 0);
        assert!(
            m.contains("reads element 0 of tensor `x` that thread 0 (block 0) wrote"),
            "{}",
            m
        );
        // Reading in one launch what the previous launch wrote is ordered by the launches.
        launch(Launch::new(2, 32, 0), |t| {
            // SAFETY: host memory checks every access; these kernels break the rules on purpose.
            let _ = unsafe { x.global::<u32>().load1(t.lane() as usize) };
        })
        .unwrap();
    }

    #[test]
    fn threads_of_a_cta_are_ordered_by_its_barriers_only() {
        let x = HostMemory::new((0..64).map(|_| 0)).named("x");
        // Thread i writes element i, then reads its neighbour's: a race without the barrier.
        let body = |t: &linear_layouts::sim::SimThread, sync: bool| {
            let i = (t.warp() * 32 + t.lane()) as usize;
            // SAFETY: host memory checks every access; these kernels break the rules on purpose.
            unsafe { x.global_mut::<u32>().store1(i, i as u32) };
            if sync {
                t.sync_block();
            }
            // SAFETY: host memory checks every access; these kernels break the rules on purpose.
            let _ = unsafe { x.global::<u32>().load1((i + 1) % 64) };
        };
        launch(Launch::new(1, 64, 0), |t| body(t, true)).unwrap();
        let e = launch(Launch::new(1, 64, 0), |t| body(t, false)).unwrap_err();
        assert!(e.has(IssueKind::Race), "{}", e);
        assert!(!e.has(IssueKind::Misaligned), "{}", e);
    }

    #[test]
    fn a_misaligned_vector_is_reported_by_address() {
        let x = HostMemory::new((0..132).map(|i| i as u64)).named("x");
        let e = launch(Launch::new(1, 32, 0), |t| {
            let i = 4 * t.lane() as usize + usize::from(t.lane() == 3);
            // SAFETY: host memory checks every access; these kernels break the rules on purpose.
            let _: [f32; 4] = unsafe { x.global::<f32>().load_n::<4>(i) };
        })
        .unwrap_err();
        let m = only(&e, IssueKind::Misaligned, 0, 3);
        assert!(
            m.contains("misaligned global load of 16 bytes at byte 52 (element 13) of tensor `x`"),
            "{}",
            m
        );
        assert_eq!(e.issues.len(), 1, "{}", e);
    }

    #[test]
    fn an_out_of_range_read_names_the_tensor() {
        let x = HostMemory::new((0..32).map(|i| i as u64)).named("x");
        let e = launch(Launch::new(1, 32, 0), |t| {
            // SAFETY: host memory checks every access; these kernels break the rules on purpose.
            let _ = unsafe { x.global::<u32>().load1(t.lane() as usize + 2) };
        })
        .unwrap_err();
        let m = only(&e, IssueKind::OutOfBounds, 0, 30);
        assert!(
            m.contains("load of element 32 of tensor `x` of 32 elements"),
            "{}",
            m
        );
    }
}

/// A shared window is checked inside the kernel's declared bytes and on 16 bytes where it is
/// made (a trap on the GPU, a panic here), and is the shared memory of what runs through it.
#[test]
fn a_shared_window_past_the_kernel_s_bytes_or_off_16_bytes_is_refused() {
    use linear_layouts::runtime::kernel::KernelThread;
    use linear_layouts::SharedWindow;
    for (base, inside) in [(0, true), (4096 - 64, true), (4096 - 48, false), (8, false)] {
        let r = launch(Launch::new(1, 32, 4096), move |t| {
            // SAFETY: the launch gives the kernel 4096 bytes.
            let k = unsafe { KernelThread::<_, 4096>::new(t) };
            let w = SharedWindow::<_, 64>::new(&k, base);
            assert_eq!(
                <SharedWindow<'_, KernelThread<'_, SimThread<'_>, 4096>, 64> as Thread>::SHARED_BYTES,
                Some(64)
            );
            // The window's 64 bytes: one word from each of 16 lanes.
            if t.lane() < 16 {
                unsafe { w.st_shared(4 * t.lane(), 4, [t.lane(), 0, 0, 0]) };
            }
        });
        match inside {
            true => r.expect("a window inside the kernel's bytes"),
            false => {
                let e = r.expect_err("a window past the kernel's bytes or off 16 bytes");
                assert!(
                    e.has(IssueKind::Panic) && e.to_string().contains("SharedWindow: not inside"),
                    "{}",
                    e
                );
            }
        }
    }
}
