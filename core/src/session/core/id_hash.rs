//! The hasher of the session's maps keyed by request id: keyed per process and much cheaper than
//! SipHash on these short keys. Apart from `core.rs` because it is a self-contained piece of
//! hashing, not session state.

use std::sync::OnceLock;

/// The hasher of the maps keyed by request id (requests in flight, requests awaiting their
/// answer): a folded multiply over the id's words, keyed per process. Far cheaper than SipHash on
/// these short keys, and still keyed, so a peer cannot aim its ids at one bucket (the in-flight
/// limit bounds those maps anyway).
#[derive(Clone, Copy)]
pub(crate) struct IdHash {
    seed: u64,
}

impl IdHash {
    /// The process's hasher.
    pub(crate) fn get() -> IdHash {
        static SEED: OnceLock<u64> = OnceLock::new();
        let seed = *SEED.get_or_init(|| {
            use std::hash::BuildHasher;
            std::collections::hash_map::RandomState::new().hash_one(0x6d63_705f_6964_735fu64)
        });
        IdHash { seed }
    }
}

impl Default for IdHash {
    fn default() -> IdHash {
        IdHash::get()
    }
}

impl std::hash::BuildHasher for IdHash {
    type Hasher = IdHasher;
    fn build_hasher(&self) -> IdHasher {
        IdHasher(self.seed)
    }
}

/// See [`IdHash`].
pub(crate) struct IdHasher(u64);

impl IdHasher {
    #[inline]
    fn mix(&mut self, word: u64) {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let m = u128::from(self.0 ^ word) * u128::from(K ^ self.0.rotate_left(29));
        self.0 = (m as u64) ^ ((m >> 64) as u64);
    }
}

impl std::hash::Hasher for IdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.mix(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        // The length keeps "a" and "a\0" apart.
        self.mix(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 59));
    }
    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.mix(u64::from(n));
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.mix(n);
    }
    #[inline]
    fn write_i64(&mut self, n: i64) {
        self.mix(n as u64);
    }
    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }
    #[inline]
    fn write_isize(&mut self, n: isize) {
        self.mix(n as u64);
    }
}
