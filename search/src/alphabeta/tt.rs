//! The alpha-beta engine's transposition table: a fixed number of two-slot buckets (one slot
//! kept by depth, one always replaced), sized in MB, indexed by the position's Zobrist hash.

use engine::Move;

/// What a stored score means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The exact value.
    Exact,
    /// The value is at least this (fail high).
    Lower,
    /// The value is at most this (fail low).
    Upper,
}

/// One stored search result.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    key: u64,
    pub mv: Option<Move>,
    pub score: i32,
    pub depth: i8,
    pub bound: Bound,
    generation: u8,
}

impl Entry {
    const EMPTY: Entry = Entry { key: 0, mv: None, score: 0, depth: -128, bound: Bound::Upper, generation: 0 };
}

#[derive(Clone, Copy)]
struct Bucket {
    /// Slot 0 is replaced only by a deeper (or as deep) result or one from a newer search;
    /// slot 1 always.
    slots: [Entry; 2],
}

/// The largest table an engine may ask for, in MiB (64 GiB).
pub const MAX_TT_MB: usize = 1 << 16;

/// The table. A size of 0 MB gives a table that stores nothing.
pub struct Tt {
    buckets: Vec<Bucket>,
    mask: usize,
    generation: u8,
}

impl Tt {
    /// A table of at most `mb` MiB (rounded down to a power of two of buckets; sizes above
    /// [`MAX_TT_MB`] count as that).
    pub fn new(mb: usize) -> Tt {
        let bytes = mb.min(MAX_TT_MB) << 20;
        let per = std::mem::size_of::<Bucket>();
        let n = match bytes / per {
            0 => 0,
            fit => 1usize << fit.ilog2(),
        };
        Tt { buckets: vec![Bucket { slots: [Entry::EMPTY; 2] }; n], mask: n.saturating_sub(1), generation: 0 }
    }

    /// Number of entries.
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.buckets.len() * 2
    }

    pub fn clear(&mut self) {
        for b in self.buckets.iter_mut() {
            *b = Bucket { slots: [Entry::EMPTY; 2] };
        }
        self.generation = 0;
    }

    /// Start a new search (older entries become preferred victims).
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        if self.buckets.is_empty() {
            return None;
        }
        let b = &self.buckets[key as usize & self.mask];
        b.slots.iter().find(|e| e.key == key && e.depth != -128).copied()
    }

    #[inline]
    pub fn store(&mut self, key: u64, mv: Option<Move>, score: i32, depth: i32, bound: Bound) {
        if self.buckets.is_empty() {
            return;
        }
        let generation = self.generation;
        let b = &mut self.buckets[key as usize & self.mask];
        let depth = depth.clamp(-127, 127) as i8;
        let i = if b.slots[1].key == key {
            1
        } else if b.slots[0].key == key || b.slots[0].depth <= depth || b.slots[0].generation != generation {
            0
        } else {
            1
        };
        let old = b.slots[i];
        // Keep the old move when the new result has none for the same position.
        let mv = if mv.is_none() && old.key == key { old.mv } else { mv };
        b.slots[i] = Entry { key, mv, score, depth, bound, generation };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe() {
        let mut t = Tt::new(1);
        assert!(t.capacity() > 1000);
        assert!(t.probe(42).is_none());
        t.store(42, Some(Move::NULL_PASS), 17, 3, Bound::Exact);
        let e = t.probe(42).unwrap();
        assert_eq!((e.score, e.depth, e.bound, e.mv), (17, 3, Bound::Exact, Some(Move::NULL_PASS)));
        let mut off = Tt::new(0);
        off.store(42, None, 1, 1, Bound::Lower);
        assert!(off.probe(42).is_none());
    }
}
