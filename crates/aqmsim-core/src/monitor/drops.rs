//! Every drop and mark, at every queue.

use super::spill::{joined, LeColumn, SpillState, Spilling};

/// Every drop and mark, at every queue.
///
/// The one always-on monitor that grows with simulated time. With [`DropLog::spill_to`] it
/// keeps at most [`SPILL_ROWS`] rows in memory (see [`super::spill`]); [`DropLog::spilled`]
/// then gives the files, every row in order once [`DropLog::finish_spill`] wrote the tail.
#[derive(Debug, Default)]
pub struct DropLog {
    pub t: Vec<f64>,
    pub link: Vec<u32>,
    pub flow: Vec<u32>,
    /// `aqm::Reason as u8`.
    pub reason: Vec<u8>,
    /// 0 = drop, 1 = ECN mark.
    pub action: Vec<u8>,
    /// Packets waiting when it happened (the packet itself not counted).
    pub qlen: Vec<u32>,
    spill: SpillState,
}

impl Spilling for DropLog {
    const WHAT: &'static str = "drops";
    fn columns() -> Vec<(&'static str, u64)> {
        vec![("t", 8), ("link", 4), ("flow", 4), ("reason", 1), ("action", 1), ("qlen", 4)]
    }
    fn mem_rows(&self) -> usize {
        self.t.len()
    }
    fn chunk(&self) -> Vec<Vec<u8>> {
        vec![f64::le_bytes(&self.t), u32::le_bytes(&self.link), u32::le_bytes(&self.flow), self.reason.clone(), self.action.clone(), u32::le_bytes(&self.qlen)]
    }
    fn clear_mem(&mut self) {
        self.t.clear();
        self.link.clear();
        self.flow.clear();
        self.reason.clear();
        self.action.clear();
        self.qlen.clear();
    }
    fn prepend(&mut self, c: Vec<Vec<u8>>) {
        self.t = joined(&c[0], &mut self.t);
        self.link = joined(&c[1], &mut self.link);
        self.flow = joined(&c[2], &mut self.flow);
        self.reason = joined(&c[3], &mut self.reason);
        self.action = joined(&c[4], &mut self.action);
        self.qlen = joined(&c[5], &mut self.qlen);
    }
    fn state(&mut self) -> &mut SpillState {
        &mut self.spill
    }
    fn state_ref(&self) -> &SpillState {
        &self.spill
    }
}

impl DropLog {
    /// Log one row.
    #[inline]
    pub fn push(&mut self, t: f64, link: u32, flow: u32, reason: u8, action: u8, qlen: u32) {
        self.t.push(t);
        self.link.push(link);
        self.flow.push(flow);
        self.reason.push(reason);
        self.action.push(action);
        self.qlen.push(qlen);
        self.after_push();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::spill::SPILL_ROWS;

    fn rows(n: usize) -> Vec<(f64, u32, u32, u8, u8, u32)> {
        (0..n).map(|i| (i as f64 * 0.5, i as u32 % 7, i as u32, (i % 3) as u8, (i % 2) as u8, i as u32 * 3)).collect()
    }

    #[test]
    fn drop_log_spills_full_chunks_and_reads_back_every_row() {
        let n = 2 * SPILL_ROWS + 123;
        let mut d = DropLog::default();
        d.spill_to(std::env::temp_dir());
        for &(t, l, f, r, a, q) in &rows(n) {
            d.push(t, l, f, r, a, q);
            assert!(d.t.len() <= SPILL_ROWS, "memory holds at most one chunk");
        }
        assert_eq!(d.len(), n);
        assert_eq!(d.spilled().map(|s| s.rows), Some(2 * SPILL_ROWS));
        d.finish_spill();
        assert_eq!((d.t.len(), d.spilled().unwrap().rows), (0, n));
        d.load().unwrap();
        let back: Vec<_> = (0..n).map(|i| (d.t[i], d.link[i], d.flow[i], d.reason[i], d.action[i], d.qlen[i])).collect();
        assert_eq!(back, rows(n));
    }

    #[test]
    fn drop_log_that_cannot_spill_keeps_its_rows() {
        let mut d = DropLog::default();
        d.spill_to(std::path::PathBuf::from("/nonexistent/aqmsim"));
        for &(t, l, f, r, a, q) in &rows(SPILL_ROWS + 5) {
            d.push(t, l, f, r, a, q);
        }
        d.finish_spill();
        assert!(d.spilled().is_none());
        assert_eq!(d.t.len(), SPILL_ROWS + 5);
    }
}
