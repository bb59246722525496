//! Shared by the conversion tests: running a `convert!` converter on the simulator and checking
//! every destination value, and the property tests' case count and seeding. Each test uses part.
#![allow(dead_code)]

use linear_layouts::convert::{bank_conflicts_of_warp, Target};
use linear_layouts::planned::Planned;
use linear_layouts::runtime::convert::{Execute, Plan, SmemAccess, Storage};
use linear_layouts::sim::profile::Profile;
use linear_layouts::sim::{launch_profiled, Launch};
use linear_layouts::{Converter, Element, LinearLayout, Registers, Thread};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// CI runs the same cases every time (a fixed seed); `CONVERT_RANDOM=1` draws fresh ones.
pub fn runner(config: Config) -> TestRunner {
    if std::env::var("CONVERT_RANDOM").is_ok() {
        TestRunner::new(config)
    } else {
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
    }
}

/// The number of cases: environment variable `var`, else `default`.
pub fn cases(var: &str, default: u32) -> u32 {
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Row-major index of coordinates in a tensor of `shape`.
pub fn flat(c: &[u32], shape: &[u32]) -> u64 {
    c.iter()
        .zip(shape)
        .fold(0u64, |a, (&x, &d)| a * d as u64 + x as u64)
}

/// A plan's strategy, with the barrier kind of a shared-memory plan: what the random tests count.
pub fn strategy_key(plan: &linear_layouts::convert::ConversionPlan) -> String {
    match &plan.body {
        linear_layouts::convert::PlanBody::Shared(p) => {
            format!("{:?} ({:?} barrier)", plan.cost.strategy, p.barrier)
        }
        _ => format!("{:?}", plan.cost.strategy),
    }
}

/// A value per element, spread over all bits of the type.
pub fn value<E: Element>(id: u64) -> E {
    E::from_bits(id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - E::BITS))
}

/// Run `c` on the simulator (as many warps as the layouts have, and one cluster of as many CTAs):
/// every thread converts the values it holds in `src`, and every destination register must hold
/// the element `dst` names.
pub fn check<E: Element, const NS: usize, const ND: usize>(
    c: &(impl Converts<E, NS, ND> + Sync),
    src: &LinearLayout,
    dst: &LinearLayout,
) {
    let shape: Vec<u32> = src.out_dims().iter().map(|(_, s)| *s as u32).collect();
    let warps = src.in_dim_size("warp") as u32;
    let ctas = src.in_dim_size("block").max(1) as u32;
    let bad = std::sync::Mutex::new(Vec::new());
    let l = Launch::new(ctas, 32 * warps, c.scratch().max(4)).with_cluster(ctas);
    let r = launch_profiled(l, |t| {
        let (lane, warp, cta) = (t.lane(), t.warp(), t.cta_rank());
        let vals: [E; NS] = std::array::from_fn(|r| {
            value(flat(&src.apply_flat(&[r as u32, lane, warp, cta]), &shape))
        });
        for (r, v) in c.convert(t, &vals).iter().enumerate() {
            let want: E = value(flat(&dst.apply_flat(&[r as u32, lane, warp, cta]), &shape));
            if v.to_bits() != want.to_bits() {
                if let Ok(mut b) = bad.lock() {
                    b.push((cta, lane, warp, r));
                }
            }
        }
    });
    let profile = r.unwrap_or_else(|e| panic!("simulator: {}", e));
    let bad = bad.into_inner().unwrap_or_default();
    assert!(
        bad.is_empty(),
        "{} wrong values, first {:?}; plan {:?}",
        bad.len(),
        &bad[..bad.len().min(4)],
        c.describe()
    );
    if let Err(e) = c.wavefronts(&profile, E::BITS / 8) {
        panic!("{}", e);
    }
}

/// What [`check`] runs: `convert!`'s value (a [`Planned`] for named layouts, a [`Converter`]
/// for inline ones or with an option), or an interpreted plan.
pub trait Converts<E, const NS: usize, const ND: usize> {
    /// Scratch shared memory per CTA.
    fn scratch(&self) -> u32;
    /// Convert this thread's values.
    fn convert<T: Thread>(&self, t: &T, src: &[E; NS]) -> [E; ND];
    /// The plan, for messages.
    fn describe(&self) -> String;
    /// [`check_wavefronts`] of the plan.
    fn wavefronts(&self, p: &Profile, ebytes: u32) -> Result<(), String>;
}

impl<E: Element, const NS: usize, const ND: usize, X: Execute<E, NS, ND>> Converts<E, NS, ND>
    for Converter<E, NS, ND, X>
{
    fn scratch(&self) -> u32 {
        self.shared_bytes()
    }
    fn convert<T: Thread>(&self, t: &T, src: &[E; NS]) -> [E; ND] {
        self.run(t, src)
    }
    fn describe(&self) -> String {
        format!("{:?}", self.plan())
    }
    fn wavefronts(&self, p: &Profile, ebytes: u32) -> Result<(), String> {
        check_wavefronts(&self.plan(), p, ebytes)
    }
}

impl<A, B, E, S, const NS: usize, const ND: usize> Converts<E, NS, ND> for Planned<A, B, E, S>
where
    A: linear_layouts::runtime::Declared + Registers<NS>,
    B: linear_layouts::runtime::Declared + Registers<ND>,
    E: Element,
{
    fn scratch(&self) -> u32 {
        self.shared_bytes()
    }
    fn convert<T: Thread>(&self, t: &T, src: &[E; NS]) -> [E; ND] {
        self.run(t, src)
    }
    fn describe(&self) -> String {
        format!("{:?}", self.plan())
    }
    fn wavefronts(&self, p: &Profile, ebytes: u32) -> Result<(), String> {
        check_wavefronts(self.plan(), p, ebytes)
    }
}

/// The bank model (`layout conflicts`, the planner's conflict costs) against the simulator: for
/// each shared side of `plan`, every warp that issued it took, instruction by instruction, the
/// wavefronts the model derives from the plan's tables.
pub fn check_wavefronts<S: Storage>(
    plan: &Plan<S>,
    p: &Profile,
    ebytes: u32,
) -> Result<(), String> {
    if let Plan::Shared(sp) = plan {
        check_access_wavefronts(&sp.store, true, p, ebytes)?;
        check_access_wavefronts(&sp.load, false, p, ebytes)?;
    }
    Ok(())
}

/// [`check_wavefronts`] for one side: a store (`store`) or a load through `a`.
pub fn check_access_wavefronts<S: Storage>(
    a: &SmemAccess<S>,
    store: bool,
    p: &Profile,
    ebytes: u32,
) -> Result<(), String> {
    let t = Target::SM_90;
    let model = |warp: u32| -> Vec<u32> {
        bank_conflicts_of_warp(a, ebytes.max(1), 32, !store, &t, warp)
            .iter()
            .map(|i| i.wavefronts())
            .collect()
    };
    let mut warps: std::collections::BTreeMap<(u32, u32), Vec<u32>> = Default::default();
    for i in p
        .instructions(&t, 32)
        .into_iter()
        .filter(|i| i.store == store)
    {
        warps
            .entry((i.block, i.warp))
            .or_default()
            .push(i.wavefronts());
    }
    for ((block, warp), sim) in warps {
        let model = model(warp);
        if sim != model {
            return Err(format!(
                "{} wavefronts of block {} warp {}: simulator {:?}, bank model {:?}",
                if store { "store" } else { "load" },
                block,
                warp,
                sim,
                model
            ));
        }
    }
    Ok(())
}

/// Whether a const plan has the tables `convert!` wrote (any storage: compared as printed).
pub fn same_tables<P: core::fmt::Debug, Q: core::fmt::Debug>(a: &P, b: &Q) -> bool {
    format!("{:?}", a) == format!("{:?}", b)
}
