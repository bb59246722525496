//! A shuffle or gather plan run on a whole warp of tensor-element ids: the executor of
//! `layout_plan::exec` (the code the runtime interprets and `convert!` emits) with every
//! operation evaluated for all lanes at once. The planner keeps a const plan only if every
//! destination register of every lane ends up holding its element. (What a plan costs is the
//! planner's count of the operations the executor records, `layout_plan::tape::Tape`'s: no
//! second count here.)

use alloc::vec;
use alloc::vec::Vec;

use super::bits::{combine, FlatLayout};
use super::exec::{self, Machine};
use super::{GatherPlan, ShufflePlan};
use crate::error::bail;
use crate::Result;
use layout_plan::linear::Map;

/// One lane's word: up to four fields, each `id << 2 | part` (part 0: a whole element, 1 and 2:
/// the low and high half of a 64-bit element); [`EMPTY`] marks an unused field.
type Cell = [u64; 4];

const EMPTY: u64 = u64::MAX;

/// What running a plan symbolically found.
pub struct Outcome {
    /// Every destination register of every lane holds its element.
    pub correct: bool,
}

impl Outcome {
    /// Fails unless every destination register of every lane holds its element (the `what`
    /// plan is the const planner's, so a wrong one is a planner bug).
    pub fn confirms(&self, what: &str) -> Result<()> {
        if !self.correct {
            bail!("internal: the {} plan is wrong", what);
        }
        Ok(())
    }
}

/// Run `p` converting `s` to `t` (elements of `elem_bits`) on every lane.
pub fn run(p: &ShufflePlan, s: &FlatLayout, t: &FlatLayout, elem_bits: u32) -> Outcome {
    run_warp(s, t, elem_bits, 0, |m| exec::shuffles(m, p))
}

/// Run `p` on every lane of every warp: correct only if it is in each; the counts are one
/// thread's (every thread issues the same).
pub fn run_gather(p: &GatherPlan, s: &FlatLayout, t: &FlatLayout, elem_bits: u32) -> Outcome {
    let mut out = Outcome { correct: true };
    for warp in 0..1u32 << s.warp.len() {
        let o = run_warp(s, t, elem_bits, warp, |m| exec::gather(m, p));
        out = Outcome {
            correct: out.correct && o.correct,
        };
    }
    out
}

/// Run `exec` on the lanes of warp `warp` and check each destination register.
fn run_warp(
    s: &FlatLayout,
    t: &FlatLayout,
    elem_bits: u32,
    warp: u32,
    exec: impl FnOnce(&mut Warp),
) -> Outcome {
    let lanes = 1usize << s.lane.len();
    let nd = 1usize << t.reg.len();
    let mut m = Warp {
        s,
        lanes,
        warp,
        bits: elem_bits,
        words: vec![vec![[EMPTY; 4]; lanes]],
        ints: Vec::new(),
        dst: vec![vec![None; nd]; lanes],
    };
    exec(&mut m);
    let on_warp = combine(&t.warp, warp as u64);
    let correct = (0..lanes).all(|lane| {
        (0..nd).all(|i| {
            let want = combine(&t.reg, i as u64) ^ combine(&t.lane, lane as u64) ^ on_warp;
            m.dst[lane][i] == Some(want)
        })
    });
    Outcome { correct }
}

/// The warp: word and integer handles index arenas of per-lane values; a condition is a mask of
/// lanes (64 at most).
struct Warp<'a> {
    s: &'a FlatLayout,
    lanes: usize,
    warp: u32,
    bits: u32,
    words: Vec<Vec<Cell>>,
    ints: Vec<Vec<u32>>,
    dst: Vec<Vec<Option<u64>>>,
}

impl Warp<'_> {
    fn word(&mut self, f: impl Fn(usize) -> Cell) -> usize {
        self.words.push((0..self.lanes).map(f).collect());
        self.words.len() - 1
    }
    fn int(&mut self, f: impl Fn(usize) -> u32) -> usize {
        self.ints.push((0..self.lanes).map(f).collect());
        self.ints.len() - 1
    }
    /// The tensor element source register `r` of `lane` holds.
    fn element(&self, r: u16, lane: usize) -> u64 {
        combine(&self.s.reg, r as u64)
            ^ combine(&self.s.lane, lane as u64)
            ^ combine(&self.s.warp, self.warp as u64)
    }
}

impl Machine for Warp<'_> {
    type Word = usize;
    type Int = usize;
    type Bool = u64;

    fn elem_bits(&self) -> u32 {
        self.bits
    }
    fn mov(&mut self, dst: u16, src: u16) {
        for lane in 0..self.lanes {
            self.dst[lane][dst as usize] = Some(self.element(src, lane));
        }
    }
    fn copy(&mut self, dst: u16, from: u16) {
        for lane in 0..self.lanes {
            self.dst[lane][dst as usize] = self.dst[lane][from as usize];
        }
    }
    fn pack(&mut self, regs: &[u16], part: u32) -> usize {
        let cells: Vec<Cell> = (0..self.lanes)
            .map(|lane| {
                let mut c = [EMPTY; 4];
                for (k, &r) in regs.iter().enumerate().take(4) {
                    let tag = if self.bits == 64 { part as u64 + 1 } else { 0 };
                    c[k] = self.element(r, lane) << 2 | tag;
                }
                c
            })
            .collect();
        self.word(|lane| cells[lane])
    }
    fn unpack(&mut self, dst: u16, w: usize, k: u32) {
        for lane in 0..self.lanes {
            let f = self.words[w][lane][k as usize];
            self.dst[lane][dst as usize] = (f != EMPTY && f & 3 == 0).then_some(f >> 2);
        }
    }
    fn shift_down(&mut self, w: usize, k: u32) -> usize {
        let v = self.words[w].clone();
        self.word(|lane| {
            let mut c = [EMPTY; 4];
            c[..4 - k as usize].copy_from_slice(&v[lane][k as usize..]);
            c
        })
    }
    fn unpack_pair(&mut self, dst: u16, lo: usize, hi: usize) {
        for lane in 0..self.lanes {
            let (l, h) = (self.words[lo][lane][0], self.words[hi][lane][0]);
            let ok = l != EMPTY && l & 3 == 1 && h == (l & !3 | 2);
            self.dst[lane][dst as usize] = ok.then_some(l >> 2);
        }
    }
    fn lane(&mut self) -> usize {
        self.int(|lane| lane as u32)
    }
    fn warp(&mut self) -> usize {
        let w = self.warp;
        self.int(|_| w)
    }
    fn bit(&mut self, x: usize, bit: u32) -> u64 {
        (0..self.lanes)
            .filter(|&lane| (self.ints[x][lane] >> bit) & 1 == 1)
            .fold(0, |m, lane| m | 1 << lane)
    }
    fn xor(&mut self, x: usize, mask: u32) -> usize {
        let v: Vec<u32> = self.ints[x].iter().map(|&i| i ^ mask).collect();
        self.int(|lane| v[lane])
    }
    fn linear(&mut self, maps: &[(Map<'_>, usize)]) -> usize {
        let v: Vec<u32> = (0..self.lanes)
            .map(|lane| {
                maps.iter()
                    .fold(0, |acc, (map, x)| map.xor_into(acc, self.ints[*x][lane]))
            })
            .collect();
        self.int(|lane| v[lane])
    }
    fn select(&mut self, c: u64, a: usize, b: usize) -> usize {
        let (wa, wb) = (self.words[a].clone(), self.words[b].clone());
        self.word(|lane| {
            if (c >> lane) & 1 == 1 {
                wa[lane]
            } else {
                wb[lane]
            }
        })
    }
    fn shfl_xor(&mut self, w: usize, mask: u32) -> usize {
        let (v, n) = (self.words[w].clone(), self.lanes);
        self.word(|lane| v[(lane ^ mask as usize) % n])
    }
    fn shfl_idx(&mut self, w: usize, src: usize) -> usize {
        let (v, from, n) = (self.words[w].clone(), self.ints[src].clone(), self.lanes);
        self.word(|lane| v[from[lane] as usize % n])
    }
}
