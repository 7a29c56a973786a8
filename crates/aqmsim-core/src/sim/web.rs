//! Web transfers (`app = "web"`): each is a flow of its own, a TCP connection that sends a
//! fixed number of packets from its start. Its flow completion time (RFC 7928 §2.1) runs
//! from its start (the SYN, with `tcp.syn`) to the ACK of its last packet. The summary's
//! FCT statistics take every transfer, one not done by the end at the time it ran (a lower
//! bound): leaving those out would let a discipline that delays the large transfers past
//! the end show a lower p99.

use super::{Agent, Simulation};
use crate::monitor::{FlowTable, Summary};
use crate::scenario::traffic::MAX_TRANSFER_PACKETS;
use crate::time::SimTime;

/// A transfer's size and progress.
#[derive(Clone, Debug)]
pub struct Transfer {
    pub size_bytes: u64,
    /// Data packets: `ceil(size_bytes / packet_size)`.
    pub packets: u32,
    /// The sequence number of its last packet (after the SYN, with one).
    pub last_seq: i32,
    /// When the ACK of the last packet arrived.
    pub done: Option<SimTime>,
}

impl Transfer {
    pub fn new(size_bytes: u64, payload: u32, syn: bool) -> Transfer {
        let packets = size_bytes.div_ceil(payload.max(1) as u64).max(1);
        // the build refuses a size distribution that could give more
        debug_assert!(packets <= MAX_TRANSFER_PACKETS, "{packets} packets in a transfer");
        let packets = packets.min(MAX_TRANSFER_PACKETS) as u32;
        let last_seq = if syn { packets as i32 } else { packets as i32 - 1 };
        Transfer { size_bytes, packets, last_seq, done: None }
    }

    /// Packets handed to TCP at the start (the SYN counts as one).
    pub fn to_send(&self) -> i32 {
        self.last_seq + 1
    }
}

/// The `q` quantile of sorted `xs` (non-empty), interpolating linearly between order
/// statistics (numpy's default).
fn quantile(xs: &[f64], q: f64) -> f64 {
    let h = (xs.len() - 1) as f64 * q;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    xs[lo] + (xs[hi] - xs[lo]) * (h - lo as f64)
}

impl Simulation {
    /// Flow `fi`'s sender just took an ACK: is its transfer done? (Out of line: bulk
    /// flows never call it, and the per-ACK path stays small.)
    #[inline(never)]
    pub(super) fn check_transfer(&mut self, fi: usize) {
        let now = self.now;
        let flow = &mut self.flows[fi];
        if let (Some(t), Agent::Tcp { snd, .. }) = (&mut flow.transfer, &flow.agent) {
            if t.done.is_none() && snd.highest_ack >= t.last_seq {
                t.done = Some(now);
            }
        }
    }

    /// The flows' `size_bytes` and `fct_s` columns (NaN for a transfer not done) and, when
    /// the scenario has web sources, the transfers' summary: the FCT keys over every
    /// transfer, one not done at the time it ran (end − start); NaN when there was none.
    pub(super) fn transfer_results(&self, ft: &mut FlowTable, s: &mut Summary) {
        let mut fcts = Vec::new();
        let mut done = 0u64;
        for f in &self.flows {
            match &f.transfer {
                Some(t) => {
                    ft.size_bytes.push(t.size_bytes);
                    let fct = t.done.map(|d| d.saturating_since(f.start).secs());
                    ft.fct_s.push(fct.unwrap_or(f64::NAN));
                    done += fct.is_some() as u64;
                    // every transfer starts before the end (its arrival is drawn below it)
                    fcts.push(fct.unwrap_or_else(|| self.end.saturating_since(f.start).secs()));
                }
                None => {
                    ft.size_bytes.push(0);
                    ft.fct_s.push(f64::NAN);
                }
            }
        }
        if !self.web {
            return;
        }
        fcts.sort_by(f64::total_cmp);
        s.put("transfers", fcts.len() as f64);
        s.put("transfers_done", done as f64);
        let (mean, p50, p99) = if fcts.is_empty() {
            (f64::NAN, f64::NAN, f64::NAN)
        } else {
            (fcts.iter().sum::<f64>() / fcts.len() as f64, quantile(&fcts, 0.5), quantile(&fcts, 0.99))
        };
        s.put("fct_mean_s", mean);
        s.put("fct_p50_s", p50);
        s.put("fct_p99_s", p99);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn quantiles_interpolate() {
        let xs = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(super::quantile(&xs, 0.5), 2.5);
        assert_eq!(super::quantile(&xs, 0.0), 1.0);
        assert_eq!(super::quantile(&xs, 1.0), 4.0);
        assert!((super::quantile(&xs, 0.99) - 3.97).abs() < 1e-12);
    }

    #[test]
    fn packets_and_last_sequence() {
        let t = super::Transfer::new(15000, 1000, true);
        assert_eq!((t.packets, t.last_seq, t.to_send()), (15, 15, 16));
        let t = super::Transfer::new(15001, 1000, false);
        assert_eq!((t.packets, t.last_seq, t.to_send()), (16, 15, 16));
        let t = super::Transfer::new(1, 1000, false);
        assert_eq!((t.packets, t.last_seq), (1, 0));
    }
}
