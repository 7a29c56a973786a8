//! Monitors: columnar buffers that grow by `push`, no per-event allocation beyond amortised
//! vector growth. Cheap enough to leave on.

/// Samples of the monitored queues, every `sample_interval`.
#[derive(Clone, Debug, Default)]
pub struct QueueSamples {
    pub t: Vec<f64>,
    pub link: Vec<u32>,
    pub len_pkts: Vec<u32>,
    pub len_bytes: Vec<u64>,
    pub avg: Vec<f64>,
    pub p: Vec<f64>,
    pub max_p: Vec<f64>,
    pub min_th: Vec<f64>,
    pub max_th: Vec<f64>,
}

/// Every drop and mark, at every queue.
///
/// The one monitor that grows with simulated time. With [`DropLog::spill_to`] it keeps at
/// most [`SPILL_ROWS`] rows in memory: each full chunk is appended to one file per column
/// (created and unlinked at once in a directory, so nothing is left behind even if the
/// process dies), and memory stays flat however long the run. [`DropLog::spilled`] then
/// gives the files, every row in order (the in-memory tail is written out by
/// [`DropLog::finish_spill`]), for the caller to map or read.
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
    /// Where to write full chunks ([`DropLog::spill_to`]).
    spill_dir: Option<std::path::PathBuf>,
    /// The rows written out so far: the first `rows` rows, before the in-memory ones.
    pub spilled: Option<Spill>,
}

/// Rows kept in memory before a chunk is written out (about 1.4 MB).
pub const SPILL_ROWS: usize = 1 << 16;

/// The drop log's column files, in the order `t` (f64), `link` (u32), `flow` (u32),
/// `reason` (u8), `action` (u8), `qlen` (u32): little-endian values one after another.
/// The files have no name left (unlinked when created); they live while open.
#[derive(Debug)]
pub struct Spill {
    pub files: Vec<std::fs::File>,
    /// Rows in the files.
    pub rows: usize,
}

impl Spill {
    fn create(dir: &std::path::Path) -> std::io::Result<Spill> {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut files = Vec::with_capacity(6);
        for col in ["t", "link", "flow", "reason", "action", "qlen"] {
            let path = dir.join(format!("aqmsim-drops-{}-{n}-{col}.bin", std::process::id()));
            let f = std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&path)?;
            let _ = std::fs::remove_file(&path);
            files.push(f);
        }
        Ok(Spill { files, rows: 0 })
    }

    fn append(&mut self, d: &DropLog) -> std::io::Result<()> {
        use std::io::Write;
        fn le<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
            v.iter().flat_map(|&x| f(x)).collect()
        }
        let cols = [le(&d.t, f64::to_le_bytes), le(&d.link, u32::to_le_bytes), le(&d.flow, u32::to_le_bytes), d.reason.clone(), d.action.clone(), le(&d.qlen, u32::to_le_bytes)];
        let width = [8u64, 4, 4, 1, 1, 4];
        let result = self.files.iter_mut().zip(&cols).try_for_each(|(f, c)| f.write_all(c));
        if result.is_err() {
            // leave every file holding exactly `rows` rows
            for (f, w) in self.files.iter().zip(width) {
                let _ = f.set_len(self.rows as u64 * w);
            }
            let _ = self.files.iter_mut().try_for_each(|f| std::io::Seek::seek(f, std::io::SeekFrom::End(0)).map(|_| ()));
            return result;
        }
        self.rows += d.t.len();
        Ok(())
    }
}

impl DropLog {
    /// Keep at most [`SPILL_ROWS`] rows in memory; write full chunks to files created in
    /// `dir`. If the files cannot be written, the rows simply stay in memory.
    pub fn spill_to(&mut self, dir: std::path::PathBuf) {
        self.spill_dir = Some(dir);
    }

    /// Rows logged (in memory and written out).
    pub fn len(&self) -> usize {
        self.t.len() + self.spilled.as_ref().map_or(0, |s| s.rows)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Log one row.
    #[inline]
    pub fn push(&mut self, t: f64, link: u32, flow: u32, reason: u8, action: u8, qlen: u32) {
        self.t.push(t);
        self.link.push(link);
        self.flow.push(flow);
        self.reason.push(reason);
        self.action.push(action);
        self.qlen.push(qlen);
        if self.t.len() >= SPILL_ROWS && self.spill_dir.is_some() {
            self.write_out();
        }
    }

    /// Write the in-memory rows to the files (creating them on first use) and forget
    /// them; on failure keep them in memory and stop spilling.
    #[cold]
    #[inline(never)]
    fn write_out(&mut self) {
        let Some(dir) = &self.spill_dir else { return };
        if self.spilled.is_none() {
            match Spill::create(dir) {
                Ok(s) => self.spilled = Some(s),
                Err(_) => {
                    self.spill_dir = None;
                    return;
                }
            }
        }
        let mut spill = self.spilled.take().expect("created above");
        match spill.append(self) {
            Ok(()) => {
                self.t.clear();
                self.link.clear();
                self.flow.clear();
                self.reason.clear();
                self.action.clear();
                self.qlen.clear();
            }
            Err(_) => self.spill_dir = None,
        }
        self.spilled = Some(spill);
    }

    /// At the end of the run: if rows were written out, write the rest too, so that the
    /// files hold every row (if that fails, the last rows stay in memory, after them).
    pub fn finish_spill(&mut self) {
        if self.spilled.is_some() && !self.t.is_empty() {
            self.write_out();
        }
        self.spill_dir = None;
    }

    /// Every row in memory: reads back what was written out (for callers that want the
    /// columns as vectors, such as tests).
    pub fn load(&mut self) -> std::io::Result<()> {
        use std::io::{Read, Seek, SeekFrom};
        let Some(sp) = self.spilled.take() else { return Ok(()) };
        let mut bytes: Vec<Vec<u8>> = Vec::new();
        for mut f in sp.files {
            let mut b = Vec::new();
            f.seek(SeekFrom::Start(0))?;
            f.read_to_end(&mut b)?;
            bytes.push(b);
        }
        fn de<T, const N: usize>(b: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
            b.chunks_exact(N).map(|c| f(c.try_into().expect("chunk of N bytes"))).collect()
        }
        let mut head = DropLog {
            t: de(&bytes[0], f64::from_le_bytes),
            link: de(&bytes[1], u32::from_le_bytes),
            flow: de(&bytes[2], u32::from_le_bytes),
            reason: bytes[3].clone(),
            action: bytes[4].clone(),
            qlen: de(&bytes[5], u32::from_le_bytes),
            ..Default::default()
        };
        head.t.append(&mut self.t);
        head.link.append(&mut self.link);
        head.flow.append(&mut self.flow);
        head.reason.append(&mut self.reason);
        head.action.append(&mut self.action);
        head.qlen.append(&mut self.qlen);
        *self = head;
        Ok(())
    }
}

/// Utilisation of the monitored links per `link_interval` bin.
#[derive(Clone, Debug, Default)]
pub struct LinkBins {
    pub t: Vec<f64>,
    pub link: Vec<u32>,
    pub utilisation: Vec<f64>,
}

/// Per-flow results.
#[derive(Clone, Debug, Default)]
pub struct FlowTable {
    pub flow: Vec<u32>,
    pub label: Vec<String>,
    pub src: Vec<String>,
    pub dst: Vec<String>,
    pub app: Vec<String>,
    pub variant: Vec<String>,
    pub start: Vec<f64>,
    pub stop: Vec<f64>,
    pub sent: Vec<u64>,
    pub retransmitted: Vec<u64>,
    pub timeouts: Vec<u64>,
    pub received: Vec<u64>,
    pub delivered: Vec<u64>,
    pub throughput_bps: Vec<f64>,
    pub goodput_bps: Vec<f64>,
    pub mean_delay_s: Vec<f64>,
    /// The flow's packets (data and ACKs) that arrived at, were dropped at, and were marked
    /// at the first monitored queue.
    pub queue_arrivals: Vec<u64>,
    pub queue_drops: Vec<u64>,
    pub queue_marks: Vec<u64>,
    pub queue_marks_departed: Vec<u64>,
}

/// Scalar results, in a stable order.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub items: Vec<(String, f64)>,
}

impl Summary {
    pub fn put(&mut self, k: &str, v: f64) {
        self.items.push((k.to_string(), v));
    }
    pub fn get(&self, k: &str) -> Option<f64> {
        self.items.iter().find(|(n, _)| n == k).map(|(_, v)| *v)
    }
}

/// Jain's fairness index (Σx)² / (n·Σx²); 1 for an empty or all-zero set.
pub fn jain(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if n == 0.0 || s2 == 0.0 {
        1.0
    } else {
        s * s / (n * s2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(d.spilled.as_ref().map(|s| s.rows), Some(2 * SPILL_ROWS));
        d.finish_spill();
        assert_eq!((d.t.len(), d.spilled.as_ref().unwrap().rows), (0, n));
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
        assert!(d.spilled.is_none());
        assert_eq!(d.t.len(), SPILL_ROWS + 5);
    }

    #[test]
    fn jain_by_hand() {
        assert_eq!(super::jain(&[1.0, 1.0, 1.0]), 1.0);
        assert!((super::jain(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
        assert!((super::jain(&[3.0, 1.0]) - 16.0 / 20.0).abs() < 1e-12);
    }
}
