//! The end of a run: the summary metrics, the per-flow table and the logs, assembled into
//! [`RunResults`].

use super::{Agent, RunResults, Simulation};
use crate::monitor::{jain, FlowTable, Spilling, Summary};

impl Simulation {
    // ------------------------------------------------------------------ results

    /// Collect the results (call after `run_until` reached the end).
    pub fn finish(mut self) -> RunResults {
        let now = self.end;
        self.now = now;
        self.drops.finish_spill();
        if let Some(t) = &mut self.tracer {
            t.finish();
        }
        self.tcp_log.finish_spill();
        self.rtt_log.finish_spill();
        // Close the last utilisation bin and the time integrals.
        if !self.monitored.is_empty() {
            let last = self.links[self.monitored[0] as usize].bin_start;
            if now > last {
                self.link_bin();
            }
        }
        for l in &mut self.links {
            l.settle_counts();
            l.queue.settle(now);
            // The part of a transmission beyond the end of the run is not busy time of the run.
            l.busy_ns -= l.busy_until.saturating_since(now).0;
        }
        let dur_ns = now.0.max(1) as f64;
        let dur = self.duration;
        let mut s = Summary::default();
        s.put("duration", dur);
        s.put("seed", self.seed as f64);
        s.put("events", self.events() as f64);
        if let Some(&b) = self.monitored.first() {
            let link = &self.links[b as usize];
            let st = &link.queue.stats;
            s.put("bottleneck_arrivals", st.arrivals as f64);
            s.put("bottleneck_departures", st.departures as f64);
            s.put("bottleneck_drops", st.dropped() as f64);
            s.put("drops_early", st.drops[0] as f64);
            s.put("drops_forced", st.drops[1] as f64);
            s.put("drops_overflow", st.drops[2] as f64);
            s.put("marks", st.marks as f64);
            s.put("marks_departed", st.marked_departures as f64);
            s.put("bottleneck_queued_end", link.queue.len() as f64);
            s.put("time_avg_queue_pkts", st.area_pkt_ns as f64 / dur_ns);
            s.put("time_avg_queue_bytes", st.area_byte_ns as f64 / dur_ns);
            s.put("max_queue_pkts", st.max_len as f64);
            s.put("mean_queueing_delay_s", if st.departures > 0 { st.qdelay_sum_ns as f64 / st.departures as f64 * 1e-9 } else { 0.0 });
            if link.schedule.is_empty() {
                // busy time inside the run (a transmission running past the end counts only
                // up to it): at most 1
                s.put("utilisation", link.busy_ns as f64 / dur_ns);
                // ns-2's QueueMonitor definition: every packet whose transmission started in
                // the run counts whole (bdepartures_ · 8 / (rate · duration))
                s.put("utilisation_started", st.departure_bytes as f64 * 8.0 / (link.rate_bps * dur));
                s.put("bottleneck_rate_bps", link.rate_bps);
            } else {
                self.varying_utilisation(b as usize, &mut s);
            }
            s.put("loss_ratio", if st.arrivals > 0 { st.dropped() as f64 / st.arrivals as f64 } else { 0.0 });
        }
        let mut ft = FlowTable::default();
        let mut tputs = Vec::new();
        let (mut tot_thr, mut tot_good, mut dsum, mut dn) = (0.0, 0.0, 0.0, 0u64);
        let (mut tot_sent, mut tot_rtx, mut tot_to) = (0u64, 0u64, 0u64);
        for (i, f) in self.flows.iter().enumerate() {
            ft.flow.push(i as u32);
            ft.label.push(f.label.clone());
            ft.src.push(self.nodes[f.src as usize].clone());
            ft.dst.push(self.nodes[f.dst as usize].clone());
            ft.start.push(f.start.secs());
            ft.stop.push(f.stop.secs());
            let q = self.per_flow[i];
            ft.queue_arrivals.push(q.arrivals);
            ft.queue_drops.push(q.drops);
            ft.queue_marks.push(q.marks);
            ft.queue_marks_departed.push(q.marked_departures);
            let linux_tcp = match &f.agent {
                Agent::Linux { snd, sink } => Some((&snd.stats, sink, snd.cc.name())),
                _ => None,
            };
            let tcp = match &f.agent {
                Agent::Tcp { snd, sink } => Some((&snd.stats, sink, snd.p.variant.name())),
                _ => linux_tcp,
            };
            match (&f.agent, tcp) {
                (_, Some((stats, sink, variant))) => {
                    let thr = sink.stats.received_bytes as f64 * 8.0 / dur;
                    let good = sink.stats.delivered_payload as f64 * 8.0 / dur;
                    ft.app.push(if f.transfer.is_some() { "web" } else { "ftp" }.into());
                    ft.variant.push(variant.into());
                    ft.sent.push(stats.sent);
                    ft.retransmitted.push(stats.retransmitted);
                    ft.timeouts.push(stats.timeouts);
                    ft.received.push(sink.stats.received);
                    ft.delivered.push(sink.stats.delivered);
                    ft.throughput_bps.push(thr);
                    ft.goodput_bps.push(good);
                    let md = if sink.stats.received > 0 { sink.stats.delay_sum_ns / sink.stats.received as f64 * 1e-9 } else { 0.0 };
                    ft.mean_delay_s.push(md);
                    tot_thr += thr;
                    tot_good += good;
                    dsum += sink.stats.delay_sum_ns;
                    dn += sink.stats.received;
                    tot_sent += stats.sent;
                    tot_rtx += stats.retransmitted;
                    tot_to += stats.timeouts;
                    // Jain's index is over the long-lived flows: not web transfers
                    if f.transfer.is_none() {
                        tputs.push(thr);
                    }
                }
                (Agent::Cbr(c), _) => {
                    let thr = c.received_bytes as f64 * 8.0 / dur;
                    ft.app.push(if c.is_onoff() { "onoff" } else { "cbr" }.into());
                    ft.variant.push("udp".into());
                    ft.sent.push(c.sent);
                    ft.retransmitted.push(0);
                    ft.timeouts.push(0);
                    ft.received.push(c.received);
                    ft.delivered.push(c.received);
                    ft.throughput_bps.push(thr);
                    ft.goodput_bps.push(thr);
                    ft.mean_delay_s.push(if c.received > 0 { c.delay_sum_ns / c.received as f64 * 1e-9 } else { 0.0 });
                    tot_thr += thr;
                    tot_good += thr;
                    // mean_e2e_delay_s is over every flow's packets, UDP ones too
                    dsum += c.delay_sum_ns;
                    dn += c.received;
                }
                _ => unreachable!("every TCP agent has a sender and a sink"),
            }
        }
        s.put("throughput_bps", tot_thr);
        s.put("goodput_bps", tot_good);
        s.put("packets_sent", tot_sent as f64);
        s.put("packets_retransmitted", tot_rtx as f64);
        s.put("timeouts", tot_to as f64);
        s.put("mean_e2e_delay_s", if dn > 0 { dsum / dn as f64 * 1e-9 } else { 0.0 });
        s.put("jain_fairness", jain(&tputs));
        if !self.monitored.is_empty() {
            // the first monitored queue's ECN-capable arrivals and marked departures by the
            // codepoint sent (RFC 9331's L4S identifier ECT(1) vs classic ECT(0))
            let sum = |f: fn(&super::FlowAtQueue) -> u64| self.per_flow.iter().map(f).sum::<u64>() as f64;
            s.put("arrivals_ect0", sum(|q| q.ect_arrivals[0]));
            s.put("arrivals_ect1", sum(|q| q.ect_arrivals[1]));
            s.put("marks_departed_ect0", sum(|q| q.ect_marked_departures[0]));
            s.put("marks_departed_ect1", sum(|q| q.ect_marked_departures[1]));
        }
        let phases = self.bbr_results(&mut s);
        self.accecn_results(&mut s);
        self.rack_results(&mut s);
        self.prague_results(&mut s);
        self.transfer_results(&mut ft, &mut s);
        let delay_cdf = self.delay_results(&mut ft, &mut s);
        RunResults {
            summary: s,
            queue: self.samples,
            drops: self.drops,
            tcp: self.tcp_log,
            rtt: self.rtt_log,
            delay_cdf,
            phases,
            trace_error: self.tracer.as_ref().and_then(|t| t.error.clone()),
            flows: ft,
            links: self.bins,
            link_names: self.links.iter().map(|l| l.name.clone()).collect(),
            resolved: self.resolved,
        }
    }
}
