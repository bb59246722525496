//! Shared-memory accesses on the simulator: each checks its range and alignment, then every
//! byte it touches against the byte's record (its last write and reads, an async copy landing
//! in it, an mbarrier in it) and records itself. Two accesses of different threads to a byte,
//! one a write, must be ordered (`order`: [`SimThread::unordered`]).

use std::format;
use std::string::String;

use crate::issue::IssueKind;
use crate::order::merge_reads;
use crate::state::{Access, BlockState, Byte, SimThread, MANY};

impl SimThread<'_> {
    /// The shared memory of CTA `cta` of this cluster, if there is one.
    pub(crate) fn target(&self, cta: u32, what: &str) -> Option<&BlockState> {
        let t = self.cluster.blocks.get(cta as usize);
        if t.is_none() {
            self.report(
                IssueKind::OutOfBounds,
                format!(
                    "thread {} (block {}): shared {} in CTA {} of a cluster of {}",
                    self.tid(),
                    self.block,
                    what,
                    cta,
                    self.cluster.blocks.len()
                ),
            );
        }
        t
    }

    pub(crate) fn check_range(
        &self,
        mem: &BlockState,
        byte_offset: u32,
        bytes: u32,
        what: &str,
    ) -> bool {
        let len = mem.shared.lock().map(|s| s.len()).unwrap_or(0) as u64;
        if !matches!(bytes, 1 | 2 | 4 | 8 | 16) || !byte_offset.is_multiple_of(bytes) {
            self.report(
                IssueKind::Misaligned,
                format!(
                    "thread {} (block {}): misaligned {}-byte shared {} at byte {}",
                    self.tid(),
                    self.block,
                    bytes,
                    what,
                    byte_offset
                ),
            );
            return false;
        }
        if byte_offset as u64 + bytes as u64 > len {
            self.report(IssueKind::OutOfBounds, format!(
                "thread {} (block {}): shared {} of {} bytes at byte {} is out of bounds ({} bytes)",
                self.tid(),
                self.block,
                what,
                bytes,
                byte_offset,
                len
            ));
            return false;
        }
        true
    }

    pub(crate) fn store_bytes(&self, cta: u32, byte_offset: u32, bytes: u32, words: [u32; 4]) {
        let Some(target) = self.target(cta, "store") else {
            return;
        };
        if !self.wgmma_free(target, byte_offset, bytes, "writes") {
            return;
        }
        if !self.check_range(target, byte_offset, bytes, "store") {
            return;
        }
        let me = self.access();
        let Ok(mut mem) = target.shared.lock() else {
            return;
        };
        for i in 0..bytes {
            let b = &mut mem[(byte_offset + i) as usize];
            let value = (words[(i / 4) as usize] >> (8 * (i % 4))) as u8;
            // Lanes of one instruction writing the same value to a byte (an `stmatrix` whose
            // address rows hold copies) leave one value, as the hardware does.
            let same_instr = |w: &Access| {
                w.cta == me.cta && w.warp == me.warp && w.store == me.store && b.value == value
            };
            if let Some(o) = b.copying {
                drop(mem);
                return self.report(IssueKind::CopyInFlight, format!(
                    "thread {} (block {}) writes shared byte {} of CTA {} while an async copy of thread {} into it is in flight: wait for it (cp_async_wait, or the mbarrier phase its TMA completes) and synchronise first",
                    me.tid, self.block, byte_offset + i, cta, o
                ));
            }
            if b.mbarrier {
                drop(mem);
                return self.report(IssueKind::Mbarrier, format!(
                    "thread {} (block {}) writes shared byte {} of CTA {}, which holds an mbarrier: keep barriers out of data tiles",
                    me.tid, self.block, byte_offset + i, cta
                ));
            }
            let conflict = b
                .write
                .filter(|w| self.unordered(*w, me) && !same_instr(w))
                .map(|w| ("write", w.tid))
                .or(b
                    .read
                    .filter(|r| self.unordered(*r, me))
                    .map(|r| ("read", r.tid)));
            if let Some((kind, other)) = conflict {
                drop(mem);
                self.report(IssueKind::Race, format!(
                    "race: thread {} (block {}) writes shared byte {} of CTA {} that thread {} {} without a barrier between",
                    me.tid,
                    self.block,
                    byte_offset + i,
                    cta,
                    if other == MANY { String::from("several threads") } else { format!("{}", other) },
                    if kind == "write" { "wrote" } else { "read" }
                ));
                return;
            }
            b.value = value;
            b.write = Some(me);
            b.swizzle = None;
            b.generic = true;
        }
    }

    pub(crate) fn load_bytes(&self, cta: u32, byte_offset: u32, bytes: u32) -> [u32; 4] {
        let mut out = [0u32; 4];
        let Some(target) = self.target(cta, "load") else {
            return out;
        };
        if !self.check_range(target, byte_offset, bytes, "load") {
            return out;
        }
        let me = self.access();
        let Ok(mut mem) = target.shared.lock() else {
            return out;
        };
        let mut problem = None;
        for i in 0..bytes {
            let at = byte_offset + i;
            let (v, p) = self.read_byte(&mut mem[at as usize], me, at, cta);
            out[(i / 4) as usize] |= (v as u32) << (8 * (i % 4));
            problem = problem.or(p);
        }
        drop(mem);
        if let Some((kind, p)) = problem {
            self.report(kind, p);
        }
        out
    }

    /// Read byte `at` of CTA `cta` as access `me`: its value, and what is wrong with reading
    /// it now, if anything. The read is recorded for later writers' race checks.
    pub(crate) fn read_byte(
        &self,
        b: &mut Byte,
        me: Access,
        at: u32,
        cta: u32,
    ) -> (u8, Option<(IssueKind, String)>) {
        let r = self.check_read(b, me, at, cta, "");
        b.read = Some(merge_reads(b.read, me));
        r
    }

    /// [`SimThread::read_byte`] without recording the read (a wgmma's reads are recorded by
    /// operation: `hopper`). `via` names what reads for the thread ("" for the thread itself,
    /// "a wgmma of "), so a report says which instruction raced.
    pub(crate) fn check_read(
        &self,
        b: &Byte,
        me: Access,
        at: u32,
        cta: u32,
        via: &str,
    ) -> (u8, Option<(IssueKind, String)>) {
        let who = |w: Access| match w.tma {
            Some((bar, phase)) => format!(
                "a TMA load completing phase {} of the mbarrier at byte {}",
                phase, bar
            ),
            None => format!("thread {}", w.tid),
        };
        let mut problem = match b.write {
            None => Some((IssueKind::UninitialisedRead, format!("thread {} (block {}) reads shared byte {} of CTA {} that nobody wrote", me.tid, self.block, at, cta))),
            Some(w) if self.unordered(w, me) => Some((IssueKind::Race, format!(
                "race: {}thread {} (block {}) reads shared byte {} of CTA {} that {} wrote without a barrier between (a CTA or named barrier, an mbarrier the writer arrived on and the reader waited for, or for a TMA a wait for its phase)",
                via, me.tid, self.block, at, cta, who(w)
            ))),
            _ => None,
        };
        if let Some(o) = b.copying {
            problem = Some((IssueKind::CopyInFlight, format!("thread {} (block {}) reads shared byte {} of CTA {} while an async copy of thread {} into it is in flight: wait for it (cp_async_wait, or the mbarrier phase its TMA completes) and synchronise first", me.tid, self.block, at, cta, o)));
        }
        if b.mbarrier {
            problem = Some((IssueKind::Mbarrier, format!("thread {} (block {}) reads shared byte {} of CTA {}, which holds an mbarrier: keep barriers out of data tiles", me.tid, self.block, at, cta)));
        }
        (b.value, problem)
    }
}
