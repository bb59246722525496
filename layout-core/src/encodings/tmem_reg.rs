//! The register layouts of Blackwell's tensor-memory loads and stores (`tcgen05.ld` /
//! `tcgen05.st`): which thread's which register holds which element of a tensor in tensor memory,
//! for each message shape, as Triton 3.9's `getDistributedLayoutForTmemLdSt` chooses them (what
//! Gluon's `get_tmem_reg_layout` returns).
//!
//! One warp's message covers 32 rows (`32x32b`) or 16 rows (`16x64b`, `16x128b`, `16x256b`) of
//! 32-bit cells; warp `w` may only reach tensor-memory rows `32 (w % 4)` to `32 (w % 4) + 31`, so
//! warps 0-3 cover the 128 rows and further warps split the columns. Elements narrower than 32
//! bits are packed into a cell's registers first.

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::bail;
use crate::{divide_left, LinearLayout, Result};

/// A tensor-memory message shape (rows x bits per warp).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmemAtom {
    /// 32 rows x 32 bits: one cell per lane.
    I32x32b,
    /// 16 rows x 64 bits.
    I16x64b,
    /// 16 rows x 128 bits.
    I16x128b,
    /// 16 rows x 256 bits.
    I16x256b,
}

impl TmemAtom {
    /// Every atom, by its PTX name.
    pub const ALL: [(TmemAtom, &'static str); 4] = [
        (TmemAtom::I32x32b, "32x32b"),
        (TmemAtom::I16x64b, "16x64b"),
        (TmemAtom::I16x128b, "16x128b"),
        (TmemAtom::I16x256b, "16x256b"),
    ];

    /// The atom of a PTX name (`32x32b`, ...).
    pub fn from_name(name: &str) -> Result<TmemAtom> {
        if name == "16x32bx2" {
            bail!("16x32bx2 is not requested directly: Triton lowers a 32x32b layout to it where lane 16 would read rows the layout repeats (64-row blocks); use 32x32b");
        }
        match Self::ALL.iter().find(|(_, n)| *n == name) {
            Some((a, _)) => Ok(*a),
            None => bail!(
                "unknown tcgen05 message shape '{}': use 32x32b, 16x64b, 16x128b or 16x256b",
                name
            ),
        }
    }

    /// Its PTX name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(a, _)| *a == self)
            .map_or("", |(_, n)| n)
    }
}

fn id(size: i32, i: &str, o: &str) -> Result<LinearLayout> {
    LinearLayout::identity_1d(size, i, o)
}

/// `getTileLayout`: one warp's message, `register, lane -> row, col` in 32-bit cells.
fn tile_layout(atom: TmemAtom) -> Result<LinearLayout> {
    let empty = alloc::vec![
        (String::from("register"), Vec::new()),
        (String::from("lane"), Vec::new())
    ];
    let tile = LinearLayout::from_parts(
        empty,
        alloc::vec![("row".into(), 1), ("col".into(), 1)],
        true,
    )?;
    let part = match atom {
        TmemAtom::I32x32b => id(32, "lane", "row")?,
        TmemAtom::I16x64b => LinearLayout::from_bases(
            alloc::vec![(
                "lane".into(),
                alloc::vec![
                    alloc::vec![8, 0],
                    alloc::vec![0, 1],
                    alloc::vec![1, 0],
                    alloc::vec![2, 0],
                    alloc::vec![4, 0]
                ]
            )],
            &["row", "col"],
        )?,
        TmemAtom::I16x128b => id(4, "lane", "col")?
            .checked_mul(&id(8, "lane", "row")?)?
            .checked_mul(&id(2, "register", "row")?)?,
        TmemAtom::I16x256b => id(2, "register", "col")?
            .checked_mul(&id(4, "lane", "col")?)?
            .checked_mul(&id(8, "lane", "row")?)?
            .checked_mul(&id(2, "register", "row")?)?,
    };
    tile.checked_mul(&part)
}

/// The register layout (`register, lane, warp, block -> dims`) a `tcgen05.ld`/`st` of `atom`
/// gives `num_warps` warps over the tensor-memory layout `tmem` (`row, col, block -> dims`) of
/// `bitwidth`-bit elements; an error saying why where Triton has none.
pub fn tmem_reg_layout(
    tmem: &LinearLayout,
    atom: TmemAtom,
    num_warps: u32,
    bitwidth: u32,
) -> Result<LinearLayout> {
    if num_warps < 4 || !num_warps.is_power_of_two() {
        bail!("tcgen05 register layouts need a power-of-two number of warps, at least 4 (one per 32 tensor-memory rows), got {}", num_warps);
    }
    if bitwidth == 0 || bitwidth > 32 || !bitwidth.is_power_of_two() {
        bail!(
            "tensor memory holds elements of 1 to 32 bits (a power of two), got {}",
            bitwidth
        );
    }
    if bitwidth != 32 {
        return packed(tmem, atom, num_warps, bitwidth);
    }
    cells(tmem, atom, num_warps)
}

/// Elements narrower than 32 bits: the ones packed into a cell become the lowest registers.
fn packed(
    ll: &LinearLayout,
    atom: TmemAtom,
    num_warps: u32,
    bitwidth: u32,
) -> Result<LinearLayout> {
    let dim1 = ll
        .out_dims()
        .get(1)
        .map(|d| d.0.clone())
        .unwrap_or_default();
    let (mut quot, mut contig) = (ll.clone(), 1);
    while bitwidth * contig * 2 <= 32 {
        match divide_left(ll, &id((contig * 2) as i32, "col", &dim1)?) {
            Some(q) => (quot, contig) = (q, contig * 2),
            None => break,
        }
    }
    if contig > 1 {
        let inner = tmem_reg_layout(&quot, atom, num_warps, bitwidth * contig)?;
        return id(contig as i32, "register", &dim1)?.checked_mul(&inner);
    }
    let zeros = LinearLayout::zeros_1d((32 / bitwidth) as i32, "col", &dim1, 1)?;
    if bitwidth == 16 {
        if let Some(q) = divide_left(ll, &zeros.checked_mul(&id(2, "col", &dim1)?)?) {
            // Unpacked halves: one per cell, every other column.
            return id(2, "register", &dim1)?.checked_mul(&cells(&q, atom, num_warps)?);
        }
    }
    if let Some(q) = divide_left(ll, &zeros) {
        return cells(&q, atom, num_warps);
    }
    if ll.in_dim_size("col") == 1 {
        return cells(ll, atom, num_warps);
    }
    bail!("{}-bit elements laid out this way in tensor memory (neither packed, unpacked nor padded per 32-bit column) have no {} register layout", bitwidth, atom.name())
}

/// 32-bit cells: the atom's tile, widened by registers along the columns and by warps (rows
/// 32 and 64, then row 16 or columns), composed with the tensor-memory layout.
fn cells(ll: &LinearLayout, atom: TmemAtom, num_warps: u32) -> Result<LinearLayout> {
    let mut tile = tile_layout(atom)?;
    let n_cols_ll = ll.in_dim_size("col");
    let mut missing = n_cols_ll / tile.out_dim_size("col");
    if missing == 0 {
        bail!(
            "a {} message spans {} 32-bit columns, more than the {} this tensor has in tensor memory: use a narrower message (32x32b reads one column)",
            atom.name(), tile.out_dim_size("col"), n_cols_ll
        );
    }
    let instr32_rows = atom == TmemAtom::I32x32b;
    let layout16_rows = ll
        .in_dim_bases("row")
        .and_then(|b| b.get(4))
        .is_some_and(|b| b.iter().all(|&x| x == 0));
    // No two lanes or registers of one message may land on one element (lane 16 of a 32x32b
    // message is lowered as the second half of 16x32bx2).
    let trivial_block = id(1, "block", "block")?;
    let mut comp = tile.checked_mul(&trivial_block)?.compose(ll)?;
    let outs: Vec<String> = ll.out_dim_names().map(String::from).collect();
    comp = comp.sublayout(&["register", "lane"], &outs)?;
    if instr32_rows {
        comp = comp.resize_in_dim("lane", comp.in_dim_size("lane") / 2)?;
    }
    if !comp.is_injective() {
        bail!(
            "the lanes or registers of one {} message would reach the same element (or none): this tensor-memory layout has no {} register layout",
            atom.name(), atom.name()
        );
    }
    // Row 16 is a warp's (more than 4 warps) or a register's when the message covers 16 rows of
    // a layout with 32 per warp.
    let row16 = (!instr32_rows && !layout16_rows).then_some(if num_warps > 4 {
        "warp"
    } else {
        "register"
    });
    let mut warps_to_tile = num_warps as i32 / if row16 == Some("warp") { 8 } else { 4 };
    let warp_broadcast = warps_to_tile / missing.min(warps_to_tile);
    warps_to_tile /= warp_broadcast;
    missing /= warps_to_tile;
    if missing > 1 {
        if instr32_rows && layout16_rows {
            tile = divide_left(&tile, &id(2, "lane", "row")?).ok_or_else(|| {
                crate::LayoutError::new("tcgen05: the 32x32b tile does not start with a row lane")
            })?;
            tile = tile.checked_mul(
                &id(missing / 2, "register", "col")?.checked_mul(&id(2, "lane", "col")?)?,
            )?;
        } else {
            tile = tile.checked_mul(&id(missing, "register", "col")?)?;
        }
    }
    let mut bases = tile.bases().clone();
    bases.push((
        "warp".into(),
        alloc::vec![alloc::vec![32, 0], alloc::vec![64, 0]],
    ));
    if let Some(d) = row16 {
        if let Some(b) = bases.iter_mut().find(|b| b.0 == d) {
            b.1.push(alloc::vec![16, 0]);
        }
    }
    let n_cols = tile.out_dim_size("col");
    let mut tile = LinearLayout::from_parts(
        bases,
        alloc::vec![("row".into(), 128), ("col".into(), n_cols)],
        false,
    )?;
    tile = tile.checked_mul(&id(warps_to_tile, "warp", "col")?)?;
    tile = tile.checked_mul(&LinearLayout::zeros_1d(warp_broadcast, "warp", "col", 1)?)?;
    tile = tile.checked_mul(&id(ll.in_dim_size("block"), "block", "block")?)?;
    tile.compose(ll)
}

/// How a tensor moves between tensor memory and registers: the message shape whose register
/// layout it is, and how many messages and instructions each thread issues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TmemMessages {
    /// The message shape.
    pub atom: TmemAtom,
    /// 32-bit registers per thread.
    pub registers: u32,
    /// Messages per thread (each `atom`'s registers).
    pub messages: u32,
    /// `tcgen05.ld`/`st` instructions per thread, each repeating the message up to
    /// [`TmemAtom::max_repeat`] times (`.x128`).
    pub instructions: u32,
}

impl TmemAtom {
    /// 32-bit registers one message fills per thread.
    pub fn registers(self) -> u32 {
        match self {
            TmemAtom::I32x32b | TmemAtom::I16x64b => 1,
            TmemAtom::I16x128b => 2,
            TmemAtom::I16x256b => 4,
        }
    }

    /// The largest `.num` (repetitions in one instruction) the PTX ISA allows.
    pub fn max_repeat(self) -> u32 {
        match self {
            TmemAtom::I32x32b | TmemAtom::I16x64b => 128,
            TmemAtom::I16x128b => 64,
            TmemAtom::I16x256b => 32,
        }
    }
}

/// The message shape that puts `tmem`'s `bitwidth`-bit tensor in `registers` with `num_warps`
/// warps, tried in the order Triton's lowering tries them (32x32b, 16x256b, 16x64b, 16x128b);
/// an error where none does (Triton would convert the registers first).
pub fn tmem_messages(
    tmem: &LinearLayout,
    registers: &LinearLayout,
    num_warps: u32,
    bitwidth: u32,
) -> Result<TmemMessages> {
    let order = [
        TmemAtom::I32x32b,
        TmemAtom::I16x256b,
        TmemAtom::I16x64b,
        TmemAtom::I16x128b,
    ];
    for atom in order {
        let Ok(l) = tmem_reg_layout(tmem, atom, num_warps, bitwidth) else {
            continue;
        };
        if l.bases() == registers.bases() {
            let words = ((registers.in_dim_size("register") as u32 * bitwidth).div_ceil(32)).max(1);
            let messages = words.div_ceil(atom.registers());
            return Ok(TmemMessages {
                atom,
                registers: words,
                messages,
                instructions: messages.div_ceil(atom.max_repeat()),
            });
        }
    }
    bail!("no tcgen05 message shape (32x32b, 16x256b, 16x64b, 16x128b) with {} warps gives this register layout", num_warps)
}
