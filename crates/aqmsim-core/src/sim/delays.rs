//! The delay distributions (`monitor.delays`): queueing delay of every packet leaving a
//! monitored queue (0 for one that found the link idle and the queue empty), end-to-end
//! delay of every packet reaching its receiving agent (recorded in `Simulation::deliver`).

use super::Simulation;
use crate::monitor::delays::{DelayCdf, DelayStats};
use crate::monitor::{FlowTable, Summary};
use crate::packet::Packet;

/// Per-run delay monitors: empty vectors when `monitor.delays` is off.
#[derive(Debug, Default)]
pub(super) struct Delays {
    pub on: bool,
    /// Per link: its queueing-delay stream, for monitored links.
    pub queue: Vec<Option<DelayStats>>,
    /// Per flow: its end-to-end delay stream.
    pub e2e: Vec<DelayStats>,
}

impl Delays {
    /// Flow `fi`'s packet reached its receiver `d` s after it was sent.
    #[cold]
    #[inline(never)]
    pub fn add_e2e(&mut self, fi: usize, d: f64) {
        self.e2e[fi].add(d);
    }

    pub fn new(on: bool, links: usize, monitored: &[u32], flows: usize) -> Delays {
        if !on {
            return Delays::default();
        }
        let mut queue = vec![None; links];
        for &l in monitored {
            queue[l as usize] = Some(DelayStats::default());
        }
        Delays { on, queue, e2e: vec![DelayStats::default(); flows] }
    }
}

impl Simulation {
    /// `p` left link `l`'s queue now; `waited`: it came out of the buffer (else it passed
    /// straight through, waiting 0).
    #[cold]
    #[inline(never)]
    pub(super) fn note_queue_delay(&mut self, l: u32, p: &Packet, waited: bool) {
        if let Some(Some(d)) = self.delays.queue.get_mut(l as usize) {
            let w = if waited { self.now.saturating_since(p.t_enq).secs() } else { 0.0 };
            d.add(w);
        }
    }

    /// The flows' delay columns (NaN when off or without packets), the summary's quantiles
    /// (the primary queue's; every flow's together), and the distribution tables.
    pub(super) fn delay_results(&self, ft: &mut FlowTable, s: &mut Summary) -> DelayCdf {
        let mut cdf = DelayCdf::default();
        let n = self.flows.len();
        if !self.delays.on {
            for col in [&mut ft.delay_p50_s, &mut ft.delay_p90_s, &mut ft.delay_p99_s, &mut ft.delay_max_s, &mut ft.jitter_s] {
                col.extend(std::iter::repeat(f64::NAN).take(n));
            }
            return cdf;
        }
        let mut all = DelayStats::default();
        let (mut jsum, mut jn) = (0.0, 0);
        for d in &self.delays.e2e {
            ft.delay_p50_s.push(d.quantile(0.5));
            ft.delay_p90_s.push(d.quantile(0.9));
            ft.delay_p99_s.push(d.quantile(0.99));
            ft.delay_max_s.push(d.max());
            ft.jitter_s.push(d.jitter());
            all.merge_from(d);
            if !d.jitter().is_nan() {
                jsum += d.jitter();
                jn += 1;
            }
        }
        for &l in &self.monitored {
            if let Some(d) = &self.delays.queue[l as usize] {
                cdf.push(&format!("queue {}", self.links[l as usize].name), d);
                if l == self.primary {
                    s.put("qdelay_p50_s", or_zero(d.quantile(0.5)));
                    s.put("qdelay_p90_s", or_zero(d.quantile(0.9)));
                    s.put("qdelay_p99_s", or_zero(d.quantile(0.99)));
                    s.put("qdelay_max_s", or_zero(d.max()));
                }
            }
        }
        cdf.push("end-to-end", &all);
        s.put("delay_p50_s", or_zero(all.quantile(0.5)));
        s.put("delay_p90_s", or_zero(all.quantile(0.9)));
        s.put("delay_p99_s", or_zero(all.quantile(0.99)));
        s.put("delay_max_s", or_zero(all.max()));
        s.put("jitter_s", if jn > 0 { jsum / jn as f64 } else { 0.0 });
        cdf
    }
}

/// The summary holds finite numbers: a delay statistic without a sample (no packet arrived;
/// for jitter, no flow had two) is 0 there, as `mean_e2e_delay_s` is; the per-flow columns
/// keep NaN.
fn or_zero(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x
    }
}
