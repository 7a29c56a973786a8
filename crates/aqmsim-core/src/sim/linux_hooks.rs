//! Building a `stack = "linux"` flow's agent (the rest of its hooks are the `Agent::Linux`
//! arms beside the ns-2 agent's in `mod.rs`, `tcp_watch.rs` and `trace_hooks.rs`).

use super::Agent;
use crate::tcp::linux::LinuxSender;
use crate::tcp::{TcpParams, TcpSink};

/// The sender and its sink: SACK blocks when `sack`, delayed ACKs every `delack_count`
/// (2) segments or `delack_interval`; the first data segment is ACKed at once (ns-3.37
/// sets its delayed-ACK count full when the handshake completes, `ProcessSynRcvd`).
pub(super) fn linux_agent(p: TcpParams, flow: u32, src: u32, dst: u32, rng: crate::rng::Rng) -> Agent {
    let delayed = p.delayed_ack && p.delack_count >= 2;
    let mut sink = TcpSink::new(flow, src, p.ack_size, p.payload(), delayed, p.delack_interval, false, p.sack);
    sink.delay_first = false;
    sink.ns3_sack = true; // ns-3's SACK list (sink.rs)
    // DCTCP's receiver echoes CE exactly and ACKs at once when the CE state changes
    sink.dctcp = p.variant == crate::tcp::Variant::Dctcp;
    if p.timestamps {
        sink.ts = Some(crate::tcp::sink::TsEcho::default());
    }
    sink.ns3_echo = true; // its CE echo as ns-3.37's, quirks included (sink.rs)
    if p.ecn && p.accecn && p.sink_accecn {
        // the handshake negotiated AccECN (tcp/accecn.rs)
        sink.accecn = Some(Default::default());
    }
    let mut snd = Box::new(LinuxSender::new(p, flow, dst));
    if snd.p.variant == crate::tcp::Variant::Bbr {
        // the flow's seeded stream draws PROBE_BW's random start phase
        let mut bbr = crate::tcp::linux::bbr::Bbr::new(rng);
        bbr.ns3_quirks = snd.p.ns3_quirks;
        snd.set_cc(Box::new(bbr));
    } else if snd.p.variant == crate::tcp::Variant::Prague {
        // sets cwnd and the pacing rate after every ACK (tcp/linux/prague.rs)
        let cc = snd.cc.clone();
        snd.set_cc(cc);
    } else if snd.p.variant == crate::tcp::Variant::Bbr3 {
        // the flow's seeded stream draws ProbeBW's probe waits
        snd.set_cc(Box::new(crate::tcp::linux::bbr3::Bbr3::new(rng)));
    }
    if let Some(spec) = snd.p.cc_plugin.clone() {
        snd.set_cc(Box::new(plugin_cc(&spec)));
    }
    Agent::Linux { snd, sink }
}

/// A flow's own instance of its Python congestion control (checked when the scenario was
/// resolved: a failure here is the plug-in's, e.g. a constructor that raises the second time).
fn plugin_cc(spec: &crate::tcp::params::CcPluginSpec) -> crate::tcp::linux::plugin_ops::PluginOps {
    crate::tcp::linux::plugin_ops::PluginOps::new(plugin_instance(spec), spec.path.clone())
}

/// A flow's own instance of its Python congestion control, either stack.
pub(super) fn plugin_instance(spec: &crate::tcp::params::CcPluginSpec) -> Box<dyn crate::tcp::plugin::PluginCc> {
    let built = crate::plugin::factory(&spec.path).and_then(|f| f.make_cc(&spec.table, &spec.path));
    built.unwrap_or_else(|e| crate::plugin::fail(e.to_string()))
}

impl super::Simulation {
    /// Every BBR flow's phase changes (the `phases` table, `monitor/phases.rs`), and their
    /// counts in the summary (only when a BBR flow runs): `bbr_mode_changes` (BBR v1's
    /// mode changes, all its flows together) and `bbr3_state_changes` (BBR v3's).
    pub(super) fn bbr_results(&self, s: &mut crate::monitor::Summary) -> crate::monitor::PhaseLog {
        let mut log = crate::monitor::PhaseLog::default();
        let (mut v1, mut v3) = (false, false);
        for (fi, f) in self.flows.iter().enumerate() {
            let Agent::Linux { snd, .. } = &f.agent else { continue };
            let (cc, names): (u32, &[&str]) = match snd.cc.name() {
                "bbr" => (0, &crate::tcp::linux::bbr::Mode::NAMES),
                "bbr3" => (1, &crate::tcp::linux::bbr3::State::NAMES),
                _ => continue,
            };
            (v1, v3) = (v1 || cc == 0, v3 || cc == 1);
            log.add_flow(fi as u32, cc, names, snd.cc.mode_changes());
        }
        log.sort();
        if v1 {
            s.put("bbr_mode_changes", log.count(0) as f64);
        }
        if v3 {
            s.put("bbr3_state_changes", log.count(1) as f64);
        }
        log
    }

    /// AccECN (only when a flow negotiated it): `accecn_ce_packets`, the segments the
    /// senders' ACE counters reported CE-marked, all flows (tcp/accecn.rs).
    pub(super) fn accecn_results(&self, s: &mut crate::monitor::Summary) {
        let mut any = false;
        let mut ce = 0u64;
        for f in &self.flows {
            if let Agent::Linux { snd, .. } = &f.agent {
                if snd.ecn_accecn() {
                    any = true;
                    ce += snd.stats.ce_delivered;
                }
            }
        }
        if any {
            s.put("accecn_ce_packets", ce as f64);
        }
    }

    /// TCP Prague's Classic ECN AQM detection (only when a flow runs it,
    /// `prague_ecn_fallback` 1 or 2): `prague_classic_flows`, the flows whose detector
    /// ever ended a round past the L4S region (where the fall-back applies), and
    /// `prague_classic_share`, the share of all their scored rounds that did.
    pub(super) fn prague_results(&self, s: &mut crate::monitor::Summary) {
        let (mut any, mut flows, mut rounds, mut classic) = (false, 0u64, 0u64, 0u64);
        for f in &self.flows {
            if let Agent::Linux { snd, .. } = &f.agent {
                if let Some((r, c)) = snd.cc.classic_ecn_rounds() {
                    any = true;
                    flows += (c > 0) as u64;
                    (rounds, classic) = (rounds + r, classic + c);
                }
            }
        }
        if any {
            s.put("prague_classic_flows", flows as f64);
            s.put("prague_classic_share", if rounds > 0 { classic as f64 / rounds as f64 } else { 0.0 });
        }
    }

    /// RACK-TLP's counters over the flows that run it (only when one does):
    /// `rack_tlp_probes` (loss probes sent), `rack_tlp_recoveries` (losses a probe
    /// repaired) and `rack_marked_lost` (segments RACK deemed lost).
    pub(super) fn rack_results(&self, s: &mut crate::monitor::Summary) {
        let mut any = false;
        let (mut probes, mut rec, mut lost) = (0u64, 0u64, 0u64);
        for f in &self.flows {
            if let Agent::Linux { snd, .. } = &f.agent {
                if let Some(r) = snd.rack.as_deref() {
                    any = true;
                    (probes, rec, lost) = (probes + r.probes, rec + r.tlp_recoveries, lost + r.marked_lost);
                }
            }
        }
        if any {
            s.put("rack_tlp_probes", probes as f64);
            s.put("rack_tlp_recoveries", rec as f64);
            s.put("rack_marked_lost", lost as f64);
        }
    }
}
