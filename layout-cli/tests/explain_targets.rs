//! `layout explain` on whole Triton 3.9 dumps for Blackwell, Hopper and AMD
//! (fixtures/ttgir/targets, made by scripts/triton_target_ttgir.py): each is planned for its own
//! target, every layout-moving and tensor-memory op the script found with its own regular
//! expression is named (by its SSA result, or its line), none fails, the tcgen05.ld/st
//! instructions explain gives Blackwell's tensor-memory ops are those of Triton's own PTX, and
//! the LDS accesses it plans for AMD dumps add up to those of Triton's own AMDGCN.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/ttgir/targets");

fn explain(name: &str) -> (Value, Option<i32>) {
    let o = Command::new(env!("CARGO_BIN_EXE_layout"))
        .args(["explain", &format!("{}/{}.ttgir", DIR, name), "--json"])
        .output()
        .unwrap();
    let v = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{}: {} ({})", name, e, String::from_utf8_lossy(&o.stderr)));
    (v, o.status.code())
}

/// `tcgen05.ld.sync.aligned.32x32b.x64.b32` from an op's messages.
fn instruction(op: &Value) -> Option<String> {
    let m = op.get("tensor_memory")?;
    let verb = if op["op"] == "ttng.tmem_load" {
        "ld"
    } else {
        "st"
    };
    let (shape, n) = (m["message"].as_str()?, m["messages"].as_u64()?);
    let per = n.min(if shape == "16x256b" {
        32
    } else if shape == "16x128b" {
        64
    } else {
        128
    });
    Some(format!(
        "tcgen05.{}.sync.aligned.{}.x{}.b32",
        verb, shape, per
    ))
}

#[test]
fn every_op_of_todays_dumps_is_explained_for_its_own_target() {
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{}/expected.json", DIR)).unwrap())
            .unwrap();
    let dumps = expected.as_object().unwrap();
    assert!(dumps.len() >= 8, "{} dumps", dumps.len());
    let mut tmem_ops = 0;
    for (name, want) in dumps {
        let (got, status) = explain(name);
        let target = want["target"].as_str().unwrap();
        let ours = got["target"].as_str().unwrap();
        let same = match target.split_once(':').unwrap() {
            ("cuda", cc) => ours == format!("sm_{}", cc),
            (_, arch) => ours == arch,
        };
        assert!(
            same,
            "{}: planned for {}, the module targets {}",
            name, ours, target
        );
        assert_eq!(
            (status, &got["failed"]),
            (Some(0), &Value::from(0)),
            "{}: {}",
            name,
            got
        );
        let ops = got["ops"].as_array().unwrap();
        for w in want["ops"].as_array().unwrap() {
            let found = ops.iter().any(|o| {
                o["op"] == w["op"]
                    && match w["result"].as_str() {
                        Some(r) => o["result"] == r,
                        None => o["line"] == w["line"],
                    }
            });
            assert!(found, "{}: explain does not name {}", name, w);
        }
        assert_eq!(ops.len(), want["ops"].as_array().unwrap().len(), "{}", name);
        let ours: BTreeSet<String> = ops.iter().filter_map(instruction).collect();
        tmem_ops += ops
            .iter()
            .filter(|o| o.get("tensor_memory").is_some())
            .count();
        let triton: BTreeSet<String> = want["tcgen05"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            ours, triton,
            "{}: tcgen05 instructions, ours vs Triton's PTX",
            name
        );
    }
    assert!(tmem_ops >= 8, "{} tensor-memory moves", tmem_ops);
}

/// Per instruction, the LDS loads and stores explain plans for a dump (every op's shared-memory
/// sides, per thread).
fn lds_accesses(got: &Value) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for op in got["ops"].as_array().unwrap() {
        for side in ["store", "load"] {
            if let Some(s) = op["plan"].get(side) {
                let name = s["instruction"].as_str().unwrap().to_string();
                *out.entry(name).or_default() += s["count"].as_u64().unwrap();
            }
        }
    }
    out
}

/// AMD dumps: the LDS accesses per thread, instruction by instruction, are Triton's (its AMDGCN
/// for the same kernel, LLVM's paired accesses counted as two): gfx950's and gfx1250's dot
/// operands read with transposed reads (`ds_read_b64_tr_b16`, `ds_load_tr16_b128`) where their
/// shared layout runs along M or N.
#[test]
fn amd_lds_accesses_are_those_of_tritons_amdgcn() {
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{}/expected.json", DIR)).unwrap())
            .unwrap();
    let mut amd = 0;
    let mut transposed = 0;
    for (name, want) in expected.as_object().unwrap() {
        let Some(lds) = want.get("lds") else {
            continue;
        };
        let triton: BTreeMap<String, u64> = lds
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
            .collect();
        let ours = lds_accesses(&explain(name).0);
        assert_eq!(
            ours, triton,
            "{}: LDS accesses, ours vs Triton's AMDGCN",
            name
        );
        amd += 1;
        transposed += ours.keys().filter(|k| k.contains("tr")).count();
    }
    assert!(
        amd >= 5 && transposed >= 3,
        "{} AMD dumps, {} transposed reads",
        amd,
        transposed
    );
}

/// A module for a GPU the planner does not model is an error naming it, not a plan for sm_90.
#[test]
fn an_unknown_target_is_an_error() {
    let path = std::env::temp_dir().join("explain_unknown_target.ttgir");
    let text = std::fs::read_to_string(format!("{}/gfx942_matmul.ttgir", DIR))
        .unwrap()
        .replace("hip:gfx942", "hip:gfx90a");
    std::fs::write(&path, text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_layout"))
        .args(["explain", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("hip:gfx90a") && err.contains("--target"),
        "{}",
        err
    );
}
