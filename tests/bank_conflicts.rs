//! `layout conflicts`' bank model (`convert::bank_conflicts`, also the planner's conflict costs)
//! against the simulator, on random shared layouts: a random distributed layout of a 32x32
//! tensor stores into a random shared layout (a permutation of the tensor's bits with random XOR
//! swizzles, so conflicts of every degree occur) and loads back; every warp instruction's
//! wavefronts, counted from the addresses the simulator saw, must equal the model's, and every
//! value must come back. The same with padding (Triton's `#ttg.padded_shared`): each element
//! must also sit at its padded address. `BANK_CASES=n` runs more cases, `CONVERT_RANDOM=1` fresh
//! ones.

mod support;

use std::sync::atomic::{AtomicU32, Ordering};

use linear_layouts::convert::{bank_conflicts, pad_address, plan_padded_access, Target};
use linear_layouts::runtime::convert::{load_access, store_access};
use linear_layouts::sim::{launch, launch_profiled, Launch};
use linear_layouts::{Element, LinearLayout, Thread};
use proptest::prelude::*;
use proptest::test_runner::Config;
use support::{cases, check_access_wavefronts, runner};

/// The 10 bits of a 32x32 tensor as unit vectors: (dim0, dim1).
fn unit(bit: usize) -> Vec<i32> {
    if bit < 5 {
        vec![1 << bit, 0]
    } else {
        vec![0, 1 << (bit - 5)]
    }
}

/// A distributed layout: the tensor's bits in the order `perm`, 3 to registers, 5 to lanes, 2 to
/// warps.
fn distributed(perm: &[usize]) -> LinearLayout {
    let b = |r: std::ops::Range<usize>| perm[r].iter().map(|&i| unit(i)).collect::<Vec<_>>();
    LinearLayout::from_bases(
        vec![
            ("register".into(), b(0..3)),
            ("lane".into(), b(3..8)),
            ("warp".into(), b(8..10)),
            ("block".into(), vec![]),
        ],
        &["dim0", "dim1"],
    )
    .unwrap()
}

/// A shared layout: offset bit i moves tensor bit `perm[i]`, XORed with the bits of earlier
/// offset bits that `xor[i]` selects (a triangular change of basis: always invertible).
fn shared(perm: &[usize], xor: &[u16]) -> LinearLayout {
    let mut bases: Vec<Vec<i32>> = Vec::new();
    for i in 0..10 {
        let mut v = unit(perm[i]);
        for (j, &pj) in perm.iter().enumerate().take(i) {
            if (xor[i] >> j) & 1 == 1 {
                let u = unit(pj);
                v = vec![v[0] ^ u[0], v[1] ^ u[1]];
            }
        }
        bases.push(v);
    }
    LinearLayout::from_bases(
        vec![("offset".into(), bases), ("block".into(), vec![])],
        &["dim0", "dim1"],
    )
    .unwrap()
}

fn case() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, Vec<u16>, u32)> {
    let perm = || Just((0..10).collect::<Vec<usize>>()).prop_shuffle();
    // Sparse swizzles: each offset bit XORs in an earlier one now and then.
    let xor = proptest::collection::vec(prop_oneof![3 => Just(0u16), 1 => any::<u16>()], 10);
    (
        perm(),
        perm(),
        xor,
        prop_oneof![Just(8u32), Just(16), Just(32)],
    )
}

/// Store and load `E`s between the two layouts on the simulator; the wavefronts against the
/// model; the conflicts the model counts.
fn run<E: Element>(
    d: &LinearLayout,
    s: &LinearLayout,
    padding: &[(u32, u32)],
) -> Result<u32, String> {
    let (t, bits) = (Target::SM_90, E::BITS);
    let plan = |store| plan_padded_access(d, s, padding, bits, store, &t);
    let (st, cost) = plan(true).map_err(|e| e.to_string())?;
    let (ld, _) = plan(false).map_err(|e| e.to_string())?;
    let eb = bits / 8;
    let bad = AtomicU32::new(0);
    let value = |c: &[u32]| E::from_bits((c[0] * 32 + c[1]) as u64 & ((1u64 << bits) - 1));
    let profile = launch_profiled(Launch::new(1, 128, cost.shared_bytes), |th| {
        let (lane, warp) = (th.lane(), th.warp());
        let id = |r: u32| value(&d.apply_flat(&[r, lane, warp, 0]));
        let vals: Vec<E> = (0..8).map(id).collect();
        store_access(&st, th, &vals);
        th.sync_block();
        let mut out = vec![E::default(); 8];
        load_access(&ld, th, &mut out);
        for r in 0..8 {
            if out[r as usize] != id(r) {
                bad.fetch_add(1, Ordering::Relaxed);
            }
        }
    })
    .map_err(|e| format!("simulator: {}", e))?;
    // Each element where the (padded) layout keeps it: read back apart from the profile.
    launch(Launch::new(1, 128, cost.shared_bytes), |th| {
        let (lane, warp) = (th.lane(), th.warp());
        let vals: Vec<E> = (0..8)
            .map(|r| value(&d.apply_flat(&[r, lane, warp, 0])))
            .collect();
        store_access(&st, th, &vals);
        th.sync_block();
        for o in (lane + 32 * warp..1024).step_by(128) {
            let addr = pad_address(o * eb, &st.padding);
            // SAFETY: inside the launch's shared bytes, after the barrier (the simulator checks).
            let w = unsafe { linear_layouts::runtime::convert::ld_at(th, false, addr, eb) }[0];
            if E::from_bits(w as u64 & ((1u64 << bits) - 1)) != value(&s.apply_flat(&[o, 0])) {
                bad.fetch_add(1, Ordering::Relaxed);
            }
        }
    })
    .map_err(|e| format!("simulator: {}", e))?;
    if bad.into_inner() > 0 {
        return Err("values did not come back, or not at their (padded) addresses".into());
    }
    check_access_wavefronts(&st, true, &profile, eb)?;
    check_access_wavefronts(&ld, false, &profile, eb)?;
    let conflicts = |a, load| -> u32 {
        bank_conflicts(a, eb, 32, load, &t)
            .iter()
            .map(|i| i.conflicts())
            .sum()
    };
    Ok(conflicts(&st, false) + conflicts(&ld, true))
}

#[test]
fn bank_model_agrees_with_the_simulator_on_random_shared_layouts() {
    let mut runner = runner(Config {
        cases: cases("BANK_CASES", 48),
        failure_persistence: None,
        ..Config::default()
    });
    let conflicted = AtomicU32::new(0);
    let r = runner.run(&case(), |(dp, sp, xor, bits)| {
        let (d, s) = (distributed(&dp), shared(&sp, &xor));
        let c = match bits {
            8 => run::<u8>(&d, &s, &[]),
            16 => run::<u16>(&d, &s, &[]),
            _ => run::<u32>(&d, &s, &[]),
        }
        .map_err(|e| TestCaseError::fail(format!("{}\ndistributed {:?}\nshared {:?}", e, d, s)))?;
        if c > 0 {
            conflicted.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    });
    if let Err(e) = r {
        panic!("{}", e);
    }
    // The cases must exercise conflicts, not only conflict-free accesses.
    assert!(conflicted.into_inner() > 0, "no case had a bank conflict");
}

/// Padded layouts (AMD's `#ttg.padded_shared`, e.g. `[512:+8]`): the accesses go to the padded
/// addresses, no wider than an interval or a pad keeps whole and aligned, and the bank model
/// counts the padded addresses as the simulator sees them.
#[test]
fn padded_layouts_store_at_padded_addresses_and_count_their_banks() {
    let mut runner = runner(Config {
        cases: cases("BANK_CASES", 32),
        failure_persistence: None,
        ..Config::default()
    });
    let padding = proptest::collection::vec(
        (
            prop_oneof![Just(8u32), Just(32), Just(64), Just(256)],
            prop_oneof![Just(1u32), Just(2), Just(4), Just(8)],
        ),
        1..3,
    );
    let (fewer, conflicted) = (AtomicU32::new(0), AtomicU32::new(0));
    let r = runner.run(&(case(), padding), |((dp, sp, xor, bits), pads)| {
        let (d, s) = (distributed(&dp), shared(&sp, &xor));
        let plain = match bits {
            8 => run::<u8>(&d, &s, &[]),
            16 => run::<u16>(&d, &s, &[]),
            _ => run::<u32>(&d, &s, &[]),
        };
        let padded = match bits {
            8 => run::<u8>(&d, &s, &pads),
            16 => run::<u16>(&d, &s, &pads),
            _ => run::<u32>(&d, &s, &pads),
        }
        .map_err(|e| {
            TestCaseError::fail(format!(
                "{}\npadding {:?}\ndistributed {:?}\nshared {:?}",
                e, pads, d, s
            ))
        })?;
        if let Ok(p) = plain {
            fewer.fetch_add((padded < p) as u32, Ordering::Relaxed);
        }
        conflicted.fetch_add((padded > 0) as u32, Ordering::Relaxed);
        Ok(())
    });
    if let Err(e) = r {
        panic!("{}", e);
    }
    // Padding is there to remove conflicts: some cases must show it, some keep a few.
    assert!(fewer.into_inner() > 0, "padding never removed a conflict");
    assert!(conflicted.into_inner() > 0, "no padded case had a conflict");
}
