//! `Tile::reduce` and `Tile::scan`'s plans against Triton 3.9's PTX for the same layout, axis
//! and operation (fixtures/triton-3.9.0-reduce-costs.jsonl, made by
//! scripts/triton_reduce_costs.py: Gluon kernels compiled for sm_90 on the CPU). Per thread,
//! ours may use no more shuffles, no more shared-memory instructions (stores and loads
//! together; Triton's stmatrix/ldmatrix count as one each) and no more barriers than Triton's
//! kernel, where the operation is the kernel's only use of shared memory, and no more
//! `redux.sync` (the `i32` cases: Triton lowers `gl.sum` and `gl.max` of int32 to one per group
//! of lanes where that takes fewer instructions than the butterflies). The scratch is no more
//! than Triton's either, but where Triton 3.9 cycles a smaller buffer with a barrier per round
//! and ours stages every warp's partials at once behind fewer barriers (reported in total).
//! An argmax reduces (value, index) pairs: 64-bit elements on our side, two
//! 32-bit values on Triton's.

use std::process::Command;

#[derive(Debug, Default, PartialEq)]
struct Cost {
    shuffles: u64,
    smem: u64,
    barriers: u64,
    redux: u64,
    /// Scratch bytes per CTA.
    scratch: u64,
}

fn ours(layout: &str, tensor: &str, op: &str, axis: u64) -> Result<Cost, String> {
    let tensor = match op {
        "argmax" => tensor.replace("xf32>", "xi64>"),
        _ => tensor.to_string(),
    };
    let flag = if op == "cumsum" { "--scan" } else { "--reduce" };
    let combine: &[&str] = match op {
        "max" => &["--combine", "max"],
        "argmax" => &["--combine", "custom"],
        _ => &[],
    };
    let o = Command::new(env!("CARGO_BIN_EXE_layout"))
        .args([
            "-l",
            layout,
            "-t",
            &tensor,
            flag,
            &axis.to_string(),
            "--json",
        ])
        .args(combine)
        .output()
        .unwrap();
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let n = |k: &str| v[k].as_u64().unwrap();
    Ok(Cost {
        shuffles: n("shuffles"),
        smem: n("stores") + n("loads"),
        barriers: n("barriers"),
        redux: v["redux"].as_u64().unwrap_or(0),
        scratch: n("shared_bytes"),
    })
}

#[test]
fn reductions_and_scans_cost_no_more_than_tritons() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/triton-3.9.0-reduce-costs.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("the fixture");
    let (mut cases, mut worse, mut totals) = (0, Vec::new(), [[0u64; 4]; 2]);
    // Scratch bytes of reductions and of scans, ours and Triton's.
    let mut scratch = [[0u64; 2]; 2];
    for line in text.lines() {
        let f: serde_json::Value = serde_json::from_str(line).unwrap();
        let (layout, tensor, op) = (
            f["layout"].as_str().unwrap(),
            f["tensor"].as_str().unwrap(),
            f["op"].as_str().unwrap(),
        );
        let axis = f["axis"].as_u64().unwrap();
        let t = &f["triton"];
        let theirs = Cost {
            shuffles: t["shuffles"].as_u64().unwrap(),
            smem: t["stores"].as_u64().unwrap() + t["loads"].as_u64().unwrap(),
            barriers: t["barriers"].as_u64().unwrap(),
            redux: t["redux"].as_u64().unwrap(),
            scratch: t["shared_bytes"].as_u64().unwrap(),
        };
        let mine = ours(layout, tensor, op, axis)
            .unwrap_or_else(|e| panic!("{} {} {} {}: {}", layout, tensor, op, axis, e));
        for (k, (a, b)) in [
            (mine.shuffles, theirs.shuffles),
            (mine.smem, theirs.smem),
            (mine.barriers, theirs.barriers),
            (mine.redux, theirs.redux),
        ]
        .into_iter()
        .enumerate()
        {
            totals[0][k] += a;
            totals[1][k] += b;
        }
        let scan = op == "cumsum";
        scratch[scan as usize][0] += mine.scratch;
        scratch[scan as usize][1] += theirs.scratch;
        // Where Triton cycles a smaller buffer with more barriers, ours may take more bytes.
        let rounds = !scan && theirs.barriers > mine.barriers;
        if mine.shuffles > theirs.shuffles
            || (!rounds && mine.scratch > theirs.scratch)
            || mine.smem > theirs.smem
            || mine.barriers > theirs.barriers
            || mine.redux > theirs.redux
        {
            worse.push(format!(
                "{} {} {} axis {}: ours {:?}, Triton's {:?}",
                layout, tensor, op, axis, mine, theirs
            ));
        }
        cases += 1;
    }
    eprintln!(
        "{} cases; shuffles, shared accesses, barriers, redux.sync: ours {:?}, Triton's {:?}",
        cases, totals[0], totals[1]
    );
    eprintln!(
        "scratch bytes: reductions ours {}, Triton's {}; scans ours {}, Triton's {}",
        scratch[0][0], scratch[0][1], scratch[1][0], scratch[1][1]
    );
    assert!(cases >= 30, "the fixture has {} cases", cases);
    assert!(
        scratch[1][1] > 0,
        "the fixture has no scan across warps (`--layouts scans`)"
    );
    assert!(
        totals[0][3] > 0 && totals[0][3] == totals[1][3],
        "redux.sync: ours {}, Triton's {}",
        totals[0][3],
        totals[1][3]
    );
    assert!(
        worse.is_empty(),
        "{} of {} cases cost more than Triton's:\n{}",
        worse.len(),
        cases,
        worse.join("\n")
    );
}
