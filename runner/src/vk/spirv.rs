//! Reading a SPIR-V module's words and entry-point names (the two things the runner needs of
//! it; a 20-line reader rather than a SPIR-V crate).

/// The module's 32-bit words (little-endian, checked magic number).
pub fn words(bytes: &[u8]) -> Result<Vec<u32>, String> {
    if !bytes.len().is_multiple_of(4) || bytes.len() < 20 {
        return Err("not a SPIR-V module (size)".into());
    }
    let w: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if w[0] != 0x0723_0203 {
        return Err("not a SPIR-V module (magic number)".into());
    }
    Ok(w)
}

/// The names of the module's `OpEntryPoint`s.
pub fn entry_points(words: &[u32]) -> Vec<String> {
    const OP_ENTRY_POINT: u32 = 15;
    let mut names = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let (count, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
        if count == 0 {
            break;
        }
        if op == OP_ENTRY_POINT && i + 3 < words.len() {
            let bytes: Vec<u8> = words[i + 3..(i + count).min(words.len())]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take_while(|&b| b != 0)
                .collect();
            names.push(String::from_utf8_lossy(&bytes).into_owned());
        }
        i += count;
    }
    names
}
