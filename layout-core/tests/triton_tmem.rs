//! Blackwell's tensor-memory encodings against Triton 3.9 bit for bit: every case of
//! fixtures/triton-3.9.0-tmem-layouts.jsonl (made by scripts/triton_tmem_layouts.py from random
//! blockM, blockN, colStride, CGALayout, twoCTAs and fp4Padded values, and scales layouts) is
//! parsed from Triton's own attribute text and its `row` and `col` bases compared (Gluon's
//! Python view of the layout has no `block` bases). fixtures/triton-3.9.0-tmem-reg-layouts.jsonl
//! (the same script, `--reg`) holds the register layouts of tcgen05.ld/st that Gluon's
//! `get_tmem_reg_layout` gives for random message shapes and warp counts, or none.

use layout_core::parse::{parse_encoding, parse_tensor_type, Aliases};
use serde_json::Value;

mod common;
use common::bases_of;

const FIXTURE: &str = include_str!("../../fixtures/triton-3.9.0-tmem-layouts.jsonl");
const REG: &str = include_str!("../../fixtures/triton-3.9.0-tmem-reg-layouts.jsonl");

#[test]
fn tensor_memory_layouts_match_triton_bit_for_bit() {
    let (mut count, mut kinds, mut failures) = (0, [0; 2], Vec::new());
    for line in FIXTURE.lines() {
        let case: Value = serde_json::from_str(line).unwrap();
        let (attr, tensor) = (
            case["attr"].as_str().unwrap(),
            case["tensor"].as_str().unwrap(),
        );
        kinds[attr.contains("scales") as usize] += 1;
        count += 1;
        let aliases = Aliases::new();
        let result = (|| -> Result<(), String> {
            let enc = parse_encoding(attr, &aliases).map_err(|e| e.to_string())?;
            let ty = parse_tensor_type(tensor, &aliases).map_err(|e| e.to_string())?;
            let ll = enc.to_linear_layout(&ty.shape).map_err(|e| e.to_string())?;
            let names: Vec<&str> = ll.in_dim_names().collect();
            if names != ["row", "col", "block"] {
                return Err(format!("in-dims {:?}", names));
            }
            for dim in ["row", "col"] {
                let (got, want) = (ll.in_dim_bases(dim).unwrap(), bases_of(&case[dim]));
                if got != want.as_slice() {
                    return Err(format!("{}: got {:?}, Triton {:?}", dim, got, want));
                }
            }
            Ok(())
        })();
        if let Err(e) = result {
            failures.push(format!("{} on {}: {}", attr, tensor, e));
        }
    }
    assert!(
        count >= 100 && kinds[0] > 0 && kinds[1] > 0,
        "{} cases ({:?})",
        count,
        kinds
    );
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        count,
        failures.join("\n")
    );
}

/// The example, and what the parser says of a name it does not know (the dialect as
/// written).
#[test]
fn the_first_example_and_a_misspelt_name() {
    let aliases = Aliases::new();
    let enc = parse_encoding(
        "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>",
        &aliases,
    )
    .unwrap();
    let ll = enc.to_linear_layout(&[128, 8]).unwrap();
    assert_eq!(
        ll.in_dim_bases("row").unwrap(),
        [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0]]
    );
    assert_eq!(ll.in_dim_bases("col").unwrap(), [[0, 1], [0, 2], [0, 4]]);
    // A column is 32 bits: a stride past that (or one that would wrap when fp4Padded doubles
    // it) is an error, not a layout.
    let wide = parse_encoding("#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 2147483648, fp4Padded = true>", &aliases).unwrap();
    let e = wide.to_linear_layout(&[128, 8]).unwrap_err();
    assert!(e.to_string().contains("more than 32 columns"), "{}", e);
    let e = parse_encoding("#ttng.tensor_memory_encodin<blockM = 128>", &aliases).unwrap_err();
    assert!(
        e.to_string().contains("'#ttng.tensor_memory_encodin'")
            && e.to_string().contains("tensor_memory_encoding"),
        "{}",
        e
    );
}

#[test]
fn tcgen05_register_layouts_match_triton_bit_for_bit() {
    use layout_core::encodings::{tmem_reg_layout, TmemAtom};
    let (mut some, mut none, mut failures) = (0, 0, Vec::new());
    let aliases = Aliases::new();
    for line in REG.lines() {
        let case: Value = serde_json::from_str(line).unwrap();
        let (attr, tensor) = (
            case["attr"].as_str().unwrap(),
            case["tensor"].as_str().unwrap(),
        );
        let (atom, warps) = (
            case["atom"].as_str().unwrap(),
            case["warps"].as_u64().unwrap() as u32,
        );
        let enc = parse_encoding(attr, &aliases).unwrap();
        let ty = parse_tensor_type(tensor, &aliases).unwrap();
        let tmem = enc.to_linear_layout(&ty.shape).unwrap();
        let bits = ty.element_bits().unwrap();
        let got = tmem_reg_layout(&tmem, TmemAtom::from_name(atom).unwrap(), warps, bits);
        let verdict = match (&got, case["reg"].as_object()) {
            (Err(_), None) => {
                none += 1;
                Ok(())
            }
            (Ok(ll), Some(want)) => {
                some += 1;
                ["register", "lane", "warp", "block"]
                    .iter()
                    .try_for_each(|d| {
                        let w = bases_of(&want[*d]);
                        match ll.in_dim_bases(d) {
                            Some(g) if g == w.as_slice() => Ok(()),
                            g => Err(format!("{}: got {:?}, Triton {:?}", d, g, w)),
                        }
                    })
            }
            (Ok(ll), None) => Err(format!("Triton has no layout, we gave {:?}", ll.bases())),
            (Err(e), Some(_)) => Err(format!("Triton has a layout, we said: {}", e)),
        };
        if let Err(e) = verdict {
            failures.push(format!(
                "{} {} on {} with {} warps: {}",
                atom, attr, tensor, warps, e
            ));
        }
    }
    assert!(
        some >= 200 && none >= 10,
        "{} layouts, {} refused",
        some,
        none
    );
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
