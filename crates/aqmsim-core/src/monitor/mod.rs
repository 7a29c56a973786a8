//! Monitors: columnar buffers that grow by `push`, no per-event allocation beyond amortised
//! vector growth. Cheap enough to leave on. The logs that grow with simulated time (drops,
//! TCP state, RTT samples) write full chunks to files ([`spill`]).

pub mod delays;
pub mod drops;
pub mod phases;
pub mod spill;
pub mod tcp;

pub use drops::DropLog;
pub use phases::PhaseLog;
pub use spill::{Spill, Spilling, SPILL_ROWS};
pub use tcp::{RttLog, TcpLog, TcpState};

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
    /// The delay the discipline acts on, s (CoDel, PIE; 0 for the RED family).
    pub delay: Vec<f64>,
    /// CoDel's drop count (0 for other disciplines).
    pub count: Vec<f64>,
    /// A plug-in discipline's own monitored variables, by name: one value per row (NaN on
    /// rows of links that have no such variable).
    pub extra: Vec<(String, Vec<f64>)>,
}

impl QueueSamples {
    /// Put `values` (named `names`) in the extra columns of the row just pushed; every
    /// other extra column gets NaN there. A new column is NaN on the rows before.
    pub fn push_extra(&mut self, names: &[String], values: &[f64]) {
        let rows = self.t.len();
        for (name, &v) in names.iter().zip(values) {
            let i = match self.extra.iter().position(|(n, _)| n == name) {
                Some(i) => i,
                None => {
                    self.extra.push((name.clone(), vec![f64::NAN; rows - 1]));
                    self.extra.len() - 1
                }
            };
            let col = &mut self.extra[i].1;
            if col.len() < rows {
                col.push(v);
            }
        }
        for (_, col) in &mut self.extra {
            if col.len() < rows {
                col.push(f64::NAN);
            }
        }
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
    /// End-to-end delay of the flow's packets reaching its receiver (`monitor.delays`;
    /// NaN otherwise): quantiles within 1 %, exact maximum, mean |IPDV|.
    pub delay_p50_s: Vec<f64>,
    pub delay_p90_s: Vec<f64>,
    pub delay_p99_s: Vec<f64>,
    pub delay_max_s: Vec<f64>,
    pub jitter_s: Vec<f64>,
    /// A web transfer's size (0 for other flows) and completion time, s (NaN when it did
    /// not finish in the run, and for other flows).
    pub size_bytes: Vec<u64>,
    pub fct_s: Vec<f64>,
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
    #[test]
    fn extra_columns_are_nan_where_a_row_has_no_such_variable() {
        let mut s = super::QueueSamples::default();
        let row = |s: &mut super::QueueSamples, names: &[&str], values: &[f64]| {
            s.t.push(0.0);
            let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
            s.push_extra(&names, values);
        };
        row(&mut s, &[], &[]); // a row before any plug-in variable
        row(&mut s, &["a"], &[1.0]);
        row(&mut s, &["b", "a"], &[2.0, 3.0]);
        row(&mut s, &[], &[]);
        let col = |n: &str| s.extra.iter().find(|(m, _)| m == n).unwrap().1.clone();
        let a = col("a");
        let b = col("b");
        assert!(a[0].is_nan() && a[1] == 1.0 && a[2] == 3.0 && a[3].is_nan());
        assert!(b[0].is_nan() && b[1].is_nan() && b[2] == 2.0 && b[3].is_nan());
    }

    #[test]
    fn jain_by_hand() {
        assert_eq!(super::jain(&[1.0, 1.0, 1.0]), 1.0);
        assert!((super::jain(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
        assert!((super::jain(&[3.0, 1.0]) - 16.0 / 20.0).abs() < 1e-12);
    }
}
