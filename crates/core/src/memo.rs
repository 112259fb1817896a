//! A small, bounded, direct-mapped memo of results keyed by short byte strings.
//!
//! Real archives repeat start positions a lot (the Chess960 start arrays, the
//! standard position, an opening book's FENs), and the FEN work is a pure
//! function of the string (and a few settings, folded into a salt), so a hit
//! gives exactly what the work would compute: lent where the memo keeps it
//! ([`Memo::with_or_compute`]) or cloned out ([`Memo::get_or_compute`]).
//! Each worker thread keeps its own memo: no locking.
//!
//! Storing a result costs a copy of it, which on an archive of distinct FENs
//! (an engine match whose games all start from different book positions) is
//! pure loss: measured with callgrind on 50 MB of FEN-only games with distinct
//! FENs, `stats -j1` ran 7 % more instructions with the memo than without it,
//! while on the repeated benchmark archive the memo saves 11 %. So the memo
//! watches its own hit rate: over each window of [`WINDOW`] look-ups, when
//! fewer than one in [`SPARSE`] hit, it looks up (and stores) only every
//! [`SPARSE`]th key, computing the others directly, until a window of these
//! samples hits often enough again (the sampled keys are what lets repeats be
//! noticed). Even a missed look-up costs a hash and a cache miss in the slot
//! array, about 4 % of `stats` on the FEN-heavy benchmark archive. Results
//! never depend on any of this.

use std::hash::BuildHasher;

use crate::prefetch::prefetch_line;

/// Look-ups per hit-rate window.
pub const WINDOW: u32 = 1024;
/// Below one hit in this many look-ups, only one key in this many is looked up.
pub const SPARSE: u32 = 16;

/// Keys longer than this are never memoised (a FEN is rarely over 90 bytes).
pub const MAX_KEY: usize = 96;

struct Entry<V> {
    salt: u64,
    key: Vec<u8>,
    value: V,
}

/// One slot: the hash of its entry's key and salt beside the entry, so that a
/// miss (nearly every look-up on an archive of distinct FENs) reads only this
/// array (256 KiB for 16,384 slots) and not the entry (about 300 bytes
/// elsewhere in memory): two cache misses per look-up were 8 % of `stats` on
/// the FEN-heavy benchmark archive.
struct Slot<V> {
    hash: u64,
    entry: Option<Box<Entry<V>>>,
}

/// At most `slots` entries of at most [`MAX_KEY`] key bytes each.
pub struct Memo<V> {
    slots: Vec<Slot<V>>,
    /// Look-ups and hits in the current window.
    lookups: u32,
    hits: u32,
    /// The last window hit rarely: store one miss in [`SPARSE`].
    sparse: bool,
    /// Misses since the last store (while sparse).
    skipped: u32,
}

impl<V> std::fmt::Debug for Memo<V> {
    /// Its size and the current window's counts, not its entries.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memo")
            .field("slots", &self.slots.len())
            .field("lookups", &self.lookups)
            .field("hits", &self.hits)
            .finish_non_exhaustive()
    }
}

impl<V: Clone> Memo<V> {
    pub const fn new() -> Memo<V> {
        Memo {
            slots: Vec::new(),
            lookups: 0,
            hits: 0,
            sparse: false,
            skipped: 0,
        }
    }

    /// Counts a look-up; at the end of a window, decides how the next one stores.
    fn count(&mut self, hit: bool) {
        self.lookups += 1;
        self.hits += u32::from(hit);
        if self.lookups == WINDOW {
            self.sparse = self.hits * SPARSE < WINDOW;
            self.lookups = 0;
            self.hits = 0;
        }
    }

    /// The value for (`key`, `salt`), computed by `work` on a miss.
    pub fn get_or_compute(
        &mut self,
        slots: usize,
        key: &[u8],
        salt: u64,
        work: impl FnOnce() -> V,
    ) -> V {
        self.with_or_compute(slots, key, salt, work, V::clone)
    }

    /// [`Memo::get_or_compute`], the value handed to `use_value` where the
    /// memo keeps it rather than cloned out (a value computed and not
    /// stored is handed over from where it was computed).
    pub fn with_or_compute<R>(
        &mut self,
        slots: usize,
        key: &[u8],
        salt: u64,
        work: impl FnOnce() -> V,
        use_value: impl FnOnce(&V) -> R,
    ) -> R {
        if key.len() > MAX_KEY || slots == 0 {
            return use_value(&work());
        }
        if self.sparse {
            self.skipped += 1;
            if self.skipped < SPARSE {
                return use_value(&work());
            }
            self.skipped = 0;
        }
        let (hash, index) = locate(key, salt, slots);
        if self.slots.len() != slots {
            self.slots.clear();
            self.slots.resize_with(slots, || Slot {
                hash: 0,
                entry: None,
            });
        }
        let slot = &mut self.slots[index];
        if slot.hash == hash
            && let Some(e) = &slot.entry
            && e.salt == salt
            && e.key == key
        {
            let value = use_value(&e.value);
            self.count(true);
            return value;
        }
        self.count(false);
        let value = work();
        let slot = &mut self.slots[index];
        slot.hash = hash;
        let entry = match &mut slot.entry {
            // A miss in a used slot reuses its entry and key buffer: archives of
            // distinct FENs miss nearly always, and must not pay two
            // allocations (and frees) per FEN for it.
            Some(e) => {
                e.salt = salt;
                e.key.clear();
                e.key.extend_from_slice(key);
                e.value = value;
                e
            }
            empty => empty.insert(Box::new(Entry {
                salt,
                key: key.to_vec(),
                value,
            })),
        };
        use_value(&entry.value)
    }
}

impl<V> Memo<V> {
    /// Whether [`Memo::prefetch`] with `slots` would ask for anything: the
    /// memo has slots of that number and hits often enough to look up every key.
    pub fn prefetches(&self, slots: usize) -> bool {
        !self.sparse && self.slots.len() == slots
    }

    /// Asks the memory, ahead of time, for what the look-ups of `keys` (each
    /// with its salt) will read: their slots, then the entries of those that
    /// hold the key's hash (its salt and key, and the start of its value). A
    /// look-up that hits reads the slot and then the entry it points to, two
    /// waits for memory one after the other (about 90 % of a hit's time on
    /// the benchmark archive, whose 1 GiB of text passing through the caches
    /// leaves little of the memo in them); a caller that knows the keys of
    /// the next games issues these reads together, so that they overlap.
    /// Changes nothing the look-ups return, or which keys they store; does
    /// nothing unless [`Memo::prefetches`]: while the memo rarely hits it
    /// would mostly fetch slots of keys it will not look up.
    pub fn prefetch<'k>(&self, slots: usize, keys: impl IntoIterator<Item = (&'k [u8], u64)>) {
        if !self.prefetches(slots) {
            return;
        }
        // Each key hashed once, in batches held on the stack: every slot of
        // a batch first (while these loads are on their way, the loop goes
        // on to the next key), then the entries of the slots that hold the
        // key's hash.
        const BATCH: usize = 64;
        let mut keys = keys
            .into_iter()
            .filter(|(key, _)| key.len() <= MAX_KEY)
            .map(|(key, salt)| locate(key, salt, slots));
        loop {
            let mut located = [(0u64, 0usize); BATCH];
            let mut n = 0;
            for (slot, (hash, index)) in located.iter_mut().zip(keys.by_ref()) {
                prefetch_line((&raw const self.slots[index]).cast());
                *slot = (hash, index);
                n += 1;
            }
            for &(hash, index) in &located[..n] {
                let slot = &self.slots[index];
                if slot.hash == hash
                    && let Some(e) = &slot.entry
                {
                    prefetch_line((&raw const e.salt).cast());
                    prefetch_line(e.key.as_ptr());
                    prefetch_line((&raw const e.value).cast());
                }
            }
            if n < BATCH {
                return;
            }
        }
    }
}

/// The hash of (`key`, `salt`) and the slot it goes to among `slots`.
fn locate(key: &[u8], salt: u64, slots: usize) -> (u64, usize) {
    // foldhash reads the key 16 bytes at a time (FNV-1a, a byte at a
    // time, was a chain of multiplies as long as the FEN).
    let hash = foldhash::fast::FixedState::with_seed(salt).hash_one(key);
    // The slot from the hash's high bits (a multiply, not a division).
    let index = ((u128::from(hash) * slots as u128) >> 64) as usize;
    (hash, index)
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
    fn stores_sparsely_while_it_rarely_hits() {
        let mut m = Memo::new();
        let mut calls = 0;
        // A window of distinct keys: no hits, so the memo turns sparse.
        for i in 0..WINDOW {
            let key = format!("distinct {i}");
            assert_eq!(m.get_or_compute(4096, key.as_bytes(), 0, || i), i);
        }
        assert!(m.sparse);
        // Sparse: one key in SPARSE is looked up (and stored on a miss), the
        // others are computed. Of 2 × SPARSE calls with one key, two are looked
        // up: the first misses and stores, the second hits.
        for _ in 0..2 * SPARSE {
            assert_eq!(
                m.get_or_compute(4096, b"repeated", 0, || {
                    calls += 1;
                    7
                }),
                7
            );
        }
        assert_eq!(calls, 2 * SPARSE - 1);
        // A window of sampled look-ups that hit makes it look up every key again.
        for _ in 0..WINDOW * SPARSE {
            assert_eq!(m.get_or_compute(4096, b"repeated", 0, || 7), 7);
        }
        assert!(!m.sparse);
        let mut calls = 0;
        for _ in 0..3 {
            m.get_or_compute(4096, b"new", 0, || {
                calls += 1;
                1
            });
        }
        assert_eq!(calls, 1);
    }

    proptest::proptest! {
        /// Whatever the look-ups (keys from a small alphabet so that they
        /// repeat, salts, slot counts that force collisions, windows that turn
        /// the memo sparse and back), each returns what the work computes.
        #[test]
        fn every_lookup_returns_the_work(
            lookups in proptest::collection::vec(
                (proptest::collection::vec(0u8..4, 0..6), 0u64..3),
                1..3000,
            ),
            slots in 1usize..40,
        ) {
            let work = |key: &[u8], salt: u64| -> Vec<u8> {
                let mut v = key.to_vec();
                v.push(salt as u8);
                v
            };
            let mut m = Memo::new();
            for (i, (key, salt)) in lookups.iter().enumerate() {
                // The next few keys asked for ahead, as a batch of games does.
                if i % 4 == 0 {
                    m.prefetch(slots, lookups[i..].iter().take(8).map(|(k, s)| (&k[..], *s)));
                }
                let got = m.get_or_compute(slots, key, *salt, || work(key, *salt));
                proptest::prop_assert_eq!(got, work(key, *salt));
            }
        }
    }

    #[test]
    fn prefetches_only_while_every_key_is_looked_up() {
        let mut m = Memo::new();
        // No slots before the first look-up.
        assert!(!m.prefetches(64));
        assert_eq!(m.get_or_compute(64, b"k", 0, || 1), 1);
        assert!(m.prefetches(64));
        assert!(!m.prefetches(128));
        let long = [b'x'; MAX_KEY + 1];
        m.prefetch(64, [(&b"k"[..], 0), (b"other", 1), (&long, 0)]);
        // More keys than one batch of prefetches holds.
        let many: Vec<String> = (0..200).map(|i| format!("key {i}")).collect();
        m.prefetch(64, many.iter().map(|k| (k.as_bytes(), 0)));
        assert_eq!(m.get_or_compute(64, b"k", 0, || 2), 1);
        // A window of misses: sparse, no prefetching until it hits again.
        for i in 0..WINDOW {
            let key = format!("distinct {i}");
            m.get_or_compute(64, key.as_bytes(), 0, || 0);
        }
        assert!(!m.prefetches(64));
        for _ in 0..WINDOW * SPARSE {
            assert_eq!(m.get_or_compute(64, b"k", 0, || 1), 1);
        }
        assert!(m.prefetches(64));
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
