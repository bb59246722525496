//! The vocabulary both layers of the parser share: key spellings (snake_case to Triton's
//! camelCase), did-you-mean suggestions, and the rank limit. Neither the syntax (`attr`) nor the
//! encodings (`params` and each encoding's `parse_<name>`) own it, so neither imports the other
//! for it.

use alloc::string::String;
use alloc::vec::Vec;

/// Layouts of more dims than this are refused (Triton's are 1 to 5 in practice; a layout holds at
/// most 64 bits per side anyway).
pub const MAX_RANK: usize = 16;

/// `size_per_thread` -> `sizePerThread`; `cta_split_num` -> `CTASplitNum` and friends.
pub fn canonical_key(k: &str) -> String {
    match k {
        "ctas_per_cga" => return "CTAsPerCGA".into(),
        "cta_split_num" => return "CTASplitNum".into(),
        "cta_order" => return "CTAOrder".into(),
        "cga_layout" => return "CGALayout".into(),
        "warps_per_cta" => return "warpsPerCTA".into(),
        "m_dim" => return "MDim".into(),
        "n_dim" => return "NDim".into(),
        _ => {}
    }
    if !k.contains('_') {
        return k.into();
    }
    let mut out = String::new();
    let mut up = false;
    for c in k.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = alloc::vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let c = if a[i - 1] == b[j - 1] { 0 } else { 1 };
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + c);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The closest of `candidates` to `word`, if close enough to be a likely typo.
pub fn did_you_mean<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let best = candidates
        .iter()
        .map(|c| (edit_distance(word, c), *c))
        .min_by_key(|x| x.0)?;
    (best.0 <= 3.max(word.len() / 3)).then_some(best.1)
}
