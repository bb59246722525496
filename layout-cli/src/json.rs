//! JSON forms of a linear layout (`--json`) and the `--jsonl` request/response loop.

use layout_core::parse::{parse_encoding, parse_tensor_type, Aliases};
use layout_core::LinearLayout;
use serde_json::{json, Map, Value};

/// `{"bases": {"register": [[0,1]], ...}, "out_dims": [["dim0", 64], ...]}`, and for a padded
/// shared layout `"padding": [[512, 8]]` (`(interval, pad)` in elements: after every `interval`
/// offsets come `pad` unused ones).
pub fn layout_json(ll: &LinearLayout, padding: &[(u32, u32)]) -> Value {
    let mut bases = Map::new();
    for (name, vs) in ll.bases() {
        bases.insert(name.clone(), json!(vs));
    }
    let outs: Vec<Value> = ll.out_dims().iter().map(|(n, s)| json!([n, s])).collect();
    let mut v = json!({ "bases": bases, "out_dims": outs });
    if !padding.is_empty() {
        v["padding"] = json!(padding.iter().map(|&(i, p)| [i, p]).collect::<Vec<_>>());
    }
    v
}

/// Answer one `{"layout": "...", "tensor": "...", "aliases": "..."?}` line: the layout's JSON, or
/// the message its `{"error": ...}` line carries.
pub fn jsonl_line(line: &str) -> Result<Value, String> {
    let req: Value = serde_json::from_str(line).map_err(|e| format!("invalid JSON: {}", e))?;
    let tensor = req
        .get("tensor")
        .and_then(Value::as_str)
        .ok_or("missing string field \"tensor\"")?;
    let aliases = match req.get("aliases").and_then(Value::as_str) {
        Some(a) => {
            layout_core::parse::parse_aliases(a).map_err(|e| format!("in \"aliases\": {}", e))?
        }
        None => Aliases::new(),
    };
    let ty = parse_tensor_type(tensor, &aliases).map_err(|e| format!("in \"tensor\": {}", e))?;
    let enc = match req.get("layout").and_then(Value::as_str) {
        Some(l) => parse_encoding(l, &aliases).map_err(|e| format!("in \"layout\": {}", e))?,
        None => ty
            .encoding
            .clone()
            .ok_or("missing string field \"layout\" (or an encoding in \"tensor\")")?,
    };
    let ll = enc.to_linear_layout(&ty.shape).map_err(|e| e.to_string())?;
    Ok(layout_json(&ll, &enc.padding()))
}
