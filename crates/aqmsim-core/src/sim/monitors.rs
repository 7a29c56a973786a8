//! The periodic monitors of the monitored links: queue samples (`monitor.sample_interval`)
//! and utilisation bins (`monitor.link_interval`).

use super::Simulation;
use crate::aqm::Aqm;
use crate::sched::Event;

impl Simulation {
    // ------------------------------------------------------------------ monitors

    pub(super) fn sample(&mut self) {
        let now = self.now;
        for &l in &self.monitored {
            let link = &mut self.links[l as usize];
            link.queue.aqm.advance(now);
            let st = link.queue.aqm.state();
            let s = &mut self.samples;
            s.t.push(self.now.secs());
            s.link.push(l);
            s.len_pkts.push(link.queue.len());
            s.len_bytes.push(link.queue.bytes());
            s.avg.push(st.avg);
            s.p.push(st.p);
            s.max_p.push(st.max_p);
            s.min_th.push(st.min_th);
            s.max_th.push(st.max_th);
            s.delay.push(st.delay);
            s.count.push(st.count);
            if !s.extra.is_empty() || matches!(link.queue.aqm, crate::aqm::AnyAqm::Plugin(_)) {
                let mut values = Vec::new();
                let names: &[String] = match &link.queue.aqm {
                    crate::aqm::AnyAqm::Plugin(p) => {
                        p.extra_values(&mut values);
                        p.extra_names()
                    }
                    _ => &[],
                };
                s.push_extra(names, &values);
            }
        }
        let next = self.now + self.sample_dt;
        if next <= self.end {
            self.sched.schedule(next, Event::Sample);
        }
    }

    pub(super) fn link_bin(&mut self) {
        let now = self.now;
        for &l in &self.monitored {
            let link = &mut self.links[l as usize];
            let span = now.saturating_since(link.bin_start).0;
            let (busy, beyond) = link.bin_busy(now);
            if span > 0 {
                self.bins.t.push(link.bin_start.secs());
                self.bins.link.push(l);
                self.bins.utilisation.push(busy as f64 / span as f64);
            }
            link.bin_busy_ns = beyond;
            link.bin_start = now;
        }
        let next = now + self.link_dt;
        if next <= self.end {
            self.sched.schedule(next, Event::LinkBin);
        }
    }
}
