//! `cp.async` on the simulator: a copy reads its source at issue and lands when its group is
//! waited for; until then its bytes are in flight, and touching them is reported.

use std::format;
use std::string::String;

use crate::issue::IssueKind;
use crate::state::{PendingCopy, SimThread, MANY};

impl SimThread<'_> {
    /// Mark the bytes an async copy will write, refusing bytes another copy is writing or
    /// that other threads touched since the last barrier. Whether the copy may go ahead.
    pub(crate) fn start_copy(&self, byte_offset: u32, bytes: u32) -> bool {
        if !self.check_range(self.state, byte_offset, bytes, "async copy") {
            return false;
        }
        let me = self.access();
        let Ok(mut mem) = self.state.shared.lock() else {
            return false;
        };
        for i in byte_offset..byte_offset + bytes {
            let b = &mut mem[i as usize];
            let other = b
                .copying
                .or(b.write.filter(|w| self.unordered(*w, me)).map(|w| w.tid));
            let other = other.or(b.read.filter(|r| self.unordered(*r, me)).map(|r| r.tid));
            if let Some(o) = other {
                drop(mem);
                self.report(IssueKind::Race, format!(
                    "race: thread {} (block {}) starts an async copy into shared byte {} that thread {} is copying into or touched without a barrier between",
                    me.tid, self.block, i, if o == MANY { String::from("(several)") } else { format!("{}", o) }
                ));
                return false;
            }
            b.copying = Some(me.tid);
        }
        true
    }

    /// An async copy lands: its bytes are written as by this thread now.
    pub(crate) fn land_copy(&self, c: PendingCopy) {
        if let Ok(mut mem) = self.state.shared.lock() {
            for i in c.byte_offset..c.byte_offset + c.bytes {
                mem[i as usize].copying = None;
            }
        }
        self.store_bytes(self.rank, c.byte_offset, c.bytes, c.words);
    }
}
