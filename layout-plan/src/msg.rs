//! A message built while the compiler evaluates a const ([`Msg`]): what a plan that cannot be
//! made says, with its numbers, where no `alloc` or `format!` exists. A const panics with it
//! (the runtime's generic plans); the host planner copies it into its error.

/// A message of at most 2048 bytes (longer text is cut).
#[derive(Clone, Copy)]
pub struct Msg {
    buf: [u8; 2048],
    len: usize,
}

impl Msg {
    /// An empty message.
    pub const fn new() -> Msg {
        Msg {
            buf: [0; 2048],
            len: 0,
        }
    }

    /// `s` appended (as much of it as fits, cut between characters).
    pub const fn push(&mut self, s: &str) -> &mut Msg {
        let b = s.as_bytes();
        let room = self.buf.len() - self.len;
        let mut n = if b.len() < room { b.len() } else { room };
        // A UTF-8 continuation byte starts no character: cut before its character.
        while n > 0 && n < b.len() && b[n] & 0xC0 == 0x80 {
            n -= 1;
        }
        let mut i = 0;
        while i < n {
            self.buf[self.len] = b[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// `x` appended in decimal.
    pub const fn num(&mut self, x: u32) -> &mut Msg {
        self.num64(x as u64)
    }

    /// `x` appended in decimal.
    pub const fn num64(&mut self, mut x: u64) -> &mut Msg {
        let mut digits = [0u8; 20];
        let mut n = 0;
        loop {
            digits[n] = b'0' + (x % 10) as u8;
            n += 1;
            x /= 10;
            if x == 0 {
                break;
            }
        }
        while n > 0 && self.len < self.buf.len() {
            n -= 1;
            self.buf[self.len] = digits[n];
            self.len += 1;
        }
        self
    }

    /// The text.
    pub const fn as_str(&self) -> &str {
        match core::str::from_utf8(self.buf.split_at(self.len).0) {
            Ok(s) => s,
            Err(_) => "(a message that is not UTF-8)",
        }
    }
}

impl Default for Msg {
    fn default() -> Self {
        Msg::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_text_join() {
        let mut m = Msg::new();
        m.push("a ").num(0).push(" b ").num64(u64::MAX);
        assert_eq!(m.as_str(), "a 0 b 18446744073709551615");
    }

    #[test]
    fn a_full_message_is_cut_between_characters() {
        let mut m = Msg::new();
        for _ in 0..2047 {
            m.push("a");
        }
        m.push("é");
        assert_eq!(
            m.as_str().len(),
            2047,
            "the two-byte character does not fit whole"
        );
        assert!(m.as_str().chars().all(|c| c == 'a'));
    }
}
