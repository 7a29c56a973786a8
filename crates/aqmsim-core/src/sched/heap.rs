//! A 4-ary min-heap of [`Entry`]s: the calendar's overflow for events beyond its horizon
//! (retransmission timers, long links), and the reference order in the tests.

use super::Entry;

const D: usize = 4;

#[derive(Default)]
pub(crate) struct Heap {
    v: Vec<Entry>,
}

impl Heap {
    #[inline]
    pub fn len(&self) -> usize {
        self.v.len()
    }

    #[inline]
    pub fn min_key(&self) -> Option<u128> {
        self.v.first().map(|e| e.key)
    }

    #[inline]
    pub fn push(&mut self, e: Entry) {
        let mut i = self.v.len();
        self.v.push(e);
        while i > 0 {
            let parent = (i - 1) / D;
            if self.v[parent].key <= e.key {
                break;
            }
            self.v[i] = self.v[parent];
            i = parent;
        }
        self.v[i] = e;
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Entry> {
        let top = *self.v.first()?;
        let last = self.v.pop().expect("non-empty");
        let n = self.v.len();
        if n > 0 {
            // sift `last` down from the root
            let mut i = 0;
            loop {
                let first = D * i + 1;
                if first >= n {
                    break;
                }
                let end = (first + D).min(n);
                let mut best = first;
                let mut bk = self.v[first].key;
                for c in first + 1..end {
                    let k = self.v[c].key;
                    if k < bk {
                        bk = k;
                        best = c;
                    }
                }
                if bk >= last.key {
                    break;
                }
                self.v[i] = self.v[best];
                i = best;
            }
            self.v[i] = last;
        }
        Some(top)
    }

    /// Remove everything (in no particular order).
    pub fn drain(&mut self) -> std::vec::Drain<'_, Entry> {
        self.v.drain(..)
    }
}
