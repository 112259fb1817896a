//! A small, bounded, direct-mapped memo of results keyed by short byte strings.
//!
//! Real archives repeat start positions a lot (the Chess960 start arrays, the
//! standard position, an opening book's FENs), and the FEN work is a pure
//! function of the string (and a few settings, folded into a salt), so a hit
//! returns a clone of exactly what the work would compute. Each worker thread
//! keeps its own memo: no locking.

/// Keys longer than this are never memoised (a FEN is rarely over 90 bytes).
pub const MAX_KEY: usize = 96;

struct Entry<V> {
    salt: u64,
    key: Vec<u8>,
    value: V,
}

/// At most `slots` entries of at most [`MAX_KEY`] key bytes each.
pub struct Memo<V> {
    slots: Vec<Option<Box<Entry<V>>>>,
}

impl<V: Clone> Memo<V> {
    pub const fn new() -> Memo<V> {
        Memo { slots: Vec::new() }
    }

    /// The value for (`key`, `salt`), computed by `work` on a miss.
    pub fn get_or_compute(
        &mut self,
        slots: usize,
        key: &[u8],
        salt: u64,
        work: impl FnOnce() -> V,
    ) -> V {
        if key.len() > MAX_KEY || slots == 0 {
            return work();
        }
        // FNV-1a over the salt and the key picks the slot.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ salt;
        for &b in key {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3);
        }
        if self.slots.len() != slots {
            self.slots.clear();
            self.slots.resize_with(slots, || None);
        }
        let slot = (h ^ (h >> 32)) as usize % slots;
        if let Some(e) = &self.slots[slot]
            && e.salt == salt
            && e.key == key
        {
            return e.value.clone();
        }
        let value = work();
        match &mut self.slots[slot] {
            // A miss in a used slot reuses its entry and key buffer: archives of
            // distinct FENs miss nearly always, and must not pay two
            // allocations (and frees) per FEN for it.
            Some(e) => {
                e.salt = salt;
                e.key.clear();
                e.key.extend_from_slice(key);
                e.value = value.clone();
            }
            empty => {
                *empty = Some(Box::new(Entry {
                    salt,
                    key: key.to_vec(),
                    value: value.clone(),
                }))
            }
        }
        value
    }
}

impl<V: Clone> Default for Memo<V> {
    fn default() -> Self {
        Memo::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_return_what_the_work_computes() {
        let mut m = Memo::new();
        let mut calls = 0;
        for _ in 0..3 {
            let v = m.get_or_compute(16, b"abc", 1, || {
                calls += 1;
                42
            });
            assert_eq!(v, 42);
        }
        assert_eq!(calls, 1);
        // Another salt is another entry; a long key is never stored.
        assert_eq!(m.get_or_compute(16, b"abc", 2, || 7), 7);
        let long = vec![b'x'; MAX_KEY + 1];
        assert_eq!(m.get_or_compute(16, &long, 1, || 1), 1);
        assert_eq!(m.get_or_compute(16, &long, 1, || 2), 2);
    }

    #[test]
    fn collisions_replace_not_confuse() {
        let mut m = Memo::new();
        for i in 0..100u32 {
            let key = i.to_string();
            assert_eq!(m.get_or_compute(2, key.as_bytes(), 0, || i), i);
        }
        for i in 0..100u32 {
            let key = i.to_string();
            assert_eq!(m.get_or_compute(2, key.as_bytes(), 0, || i), i);
        }
    }
}
