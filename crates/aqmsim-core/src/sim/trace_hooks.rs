//! Packet traces (`[trace]`): the simulation's side. A traced link reports every packet
//! handed to it (`+`), leaving its queue (`-`), dropped there (`d`) and reaching its far end
//! (`r`); the writers (`crate::trace`) stream them to disk. A traced link is never cut
//! through (its events are all real), so the lines come in the order the events happen.
//!
//! A write that fails (a full disk) stops the tracing, not the run: the run finishes, and
//! the results say why the trace is short (`RunResults::trace_error`).
//!
//! ns-2 numbers packets (`uid`) in the order the agents create them; the trace needs that
//! number and the link a packet last left (for `r`). Packets carry neither (they stay 48
//! bytes, and a run without a trace pays nothing): while tracing, a table keyed by what
//! tells a packet apart (flow, kind, sequence number, send stamp) holds them from the
//! packet's creation to its delivery or drop; an ACK's key includes its sink's ACK count
//! (mod 256), so duplicate ACKs echoing data sent at one instant are told apart. Packets
//! that are still alike (256 ACKs apart and in flight together) are matched first in, first
//! out.
use std::collections::HashMap;

use super::{Agent, Simulation};
use crate::packet::Packet;
use crate::scenario::build::{TraceFormat, TraceModel};
use crate::trace::ns2::{ports, Ns2Writer};
use crate::trace::pcap::PcapWriter;
use crate::trace::{FlowInfo, TraceEvent, Where};

/// The open trace files of a run.
pub(crate) struct Tracer {
    /// Per link: traced?
    pub traced: Vec<bool>,
    flows: Vec<FlowInfo>,
    ports: Vec<(u32, u32)>,
    ns2: Option<Ns2Writer>,
    /// pcap: one file per traced link, both directions (a tap on the cable): the writer
    /// of each link (by link index), if any.
    pcap_of: Vec<Option<usize>>,
    pcap: Vec<PcapWriter>,
    /// Why the trace stopped early, if it did.
    pub error: Option<String>,
    /// ns-2's uid counter: packets created by the agents so far.
    next_uid: u32,
    /// Packets alive: key -> (uid, the link it last left or u32::MAX, ns-2's time of its
    /// next arrival), first in first out.
    alive: HashMap<Key, Vec<(u32, u32, f64)>>,
    /// ns-2's clock: the current event's time as ns-2 computes it (floating-point sums),
    /// and what it is computed from: each link's end of transmission, each flow's timers
    /// and next CBR packet; links' rates and delays as ns-2 takes them.
    pub now_d: f64,
    pub link_end_d: Vec<f64>,
    link_rate: Vec<f64>,
    link_delay: Vec<f64>,
    pub rtx_d: Vec<f64>,
    pub rtx_at: Vec<Option<crate::time::SimTime>>,
    pub delack_d: Vec<f64>,
    pub cbr_d: Vec<f64>,
}

/// What tells packets apart: flow, kind, sequence number, send stamp, tag (an ACK's count
/// at its sink, a data packet's retransmission flag).
type Key = (u32, u8, i32, u64, u8);

fn key(p: &Packet) -> Key {
    (p.flow, p.kind as u8, p.seq, p.t_sent.0, p.tag)
}

impl Tracer {
    /// Open the files `spec` names; the error names the file.
    pub fn open(spec: &TraceModel, links: &[(u32, u32, String, f64, f64)], flows: Vec<FlowInfo>) -> Result<Tracer, String> {
        let mut traced = vec![false; links.len()];
        for &l in &spec.links {
            traced[l as usize] = true;
        }
        let nf = flows.len();
        let mut t = Tracer {
            traced,
            ports: ports(&flows),
            flows,
            ns2: None,
            pcap_of: Vec::new(),
            pcap: Vec::new(),
            error: None,
            next_uid: 0,
            alive: HashMap::new(),
            now_d: 0.0,
            link_end_d: vec![0.0; links.len()],
            link_rate: links.iter().map(|l| l.3).collect(),
            link_delay: links.iter().map(|l| l.4).collect(),
            rtx_d: vec![0.0; nf],
            rtx_at: vec![None; nf],
            delack_d: vec![0.0; nf],
            cbr_d: vec![0.0; nf],
        };
        match spec.format {
            TraceFormat::Ns2 => {
                t.ns2 = Some(Ns2Writer::create(&spec.path).map_err(|e| format!("cannot write {}: {e}", spec.path.display()))?);
            }
            TraceFormat::Pcap => {
                std::fs::create_dir_all(&spec.path).map_err(|e| format!("cannot create the directory {}: {e}", spec.path.display()))?;
                t.pcap_of = vec![None; links.len()];
                for &l in &spec.links {
                    let (a, b, name, ..) = &links[l as usize];
                    if t.pcap_of[l as usize].is_some() {
                        continue; // its reverse direction was named first
                    }
                    let file = spec.path.join(format!("{}.pcap", name.replace("->", "-")));
                    let w = PcapWriter::create(&file).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
                    t.pcap.push(w);
                    let k = t.pcap.len() - 1;
                    t.pcap_of[l as usize] = Some(k);
                    // the reverse direction (also in spec.links) goes into the same file
                    if let Some(r) = links.iter().position(|(x, y, ..)| (x, y) == (b, a)) {
                        t.pcap_of[r] = Some(k);
                    }
                }
            }
        }
        Ok(t)
    }

    /// An agent created `pkt`: it takes the next uid.
    #[cold]
    #[inline(never)]
    pub fn created(&mut self, pkt: &Packet) {
        if self.ns2.is_none() {
            return; // uids are ns-2's: a pcap trace (or a stopped one) needs none
        }
        self.alive.entry(key(pkt)).or_default().push((self.next_uid, u32::MAX, self.now_d));
        self.next_uid = self.next_uid.wrapping_add(1);
    }

    /// `pkt`'s (uid, last link, ns-2's time of its next arrival), if it is known.
    fn lookup(&mut self, pkt: &Packet) -> Option<&mut (u32, u32, f64)> {
        self.alive.get_mut(&key(pkt)).and_then(|v| v.first_mut())
    }

    /// `pkt` was delivered or dropped: forget it.
    #[cold]
    #[inline(never)]
    pub fn gone(&mut self, pkt: &Packet) {
        if self.ns2.is_none() {
            return;
        }
        let k = key(pkt);
        if let Some(v) = self.alive.get_mut(&k) {
            v.remove(0);
            if v.is_empty() {
                self.alive.remove(&k);
            }
        }
    }

    /// An event of `pkt` at `link` (any link: a packet's last link and ns-2's time of its
    /// arrival are followed everywhere), written when `link` is traced.
    #[cold]
    #[inline(never)]
    pub fn record(&mut self, at: Where, link: u32, pkt: &Packet) {
        if self.ns2.is_none() {
            // pcap: the packet as it starts to leave a traced link; no uid, no ns-2 clock
            if at.ev == TraceEvent::Dequeue {
                self.write(at, link, pkt, -1);
            }
            return;
        }
        if at.ev != TraceEvent::Dequeue && !self.traced[link as usize] {
            return; // only a departure moves what is followed on every link
        }
        let uid = if at.ev == TraceEvent::Dequeue {
            // ns-2: the end of transmission at now + txt, the arrival at now + (txt + delay)
            let txt = 8.0 * pkt.size as f64 / self.link_rate[link as usize];
            let (now, delay) = (self.now_d, self.link_delay[link as usize]);
            self.link_end_d[link as usize] = now + txt;
            self.lookup(pkt).map(|e| {
                e.1 = link;
                e.2 = now + (txt + delay);
                e.0
            })
        } else {
            self.lookup(pkt).map(|e| e.0)
        };
        self.write(at, link, pkt, uid.map_or(-1, |u| u as i32));
    }

    /// Write one event of a traced link; on failure stop tracing and remember why.
    fn write(&mut self, at: Where, link: u32, pkt: &Packet, uid: i32) {
        if !self.traced[link as usize] || self.error.is_some() {
            return;
        }
        let flow = &self.flows[pkt.flow as usize];
        let r = if let Some(w) = &mut self.ns2 {
            w.write(&at, pkt, uid, flow, self.ports[pkt.flow as usize])
        } else if let Some(&Some(k)) = self.pcap_of.get(link as usize) {
            // pcap: what is on the wire, once per packet: when it starts to leave
            if at.ev == TraceEvent::Dequeue {
                self.pcap[k].write(&at, pkt, flow)
            } else {
                Ok(())
            }
        } else {
            Ok(())
        };
        if let Err(e) = r {
            self.error = Some(format!("the trace stopped at t = {} s: {e}", at.t.secs()));
            self.ns2 = None;
            self.pcap.clear();
            self.pcap_of.clear();
        }
    }

    /// Flush the files; the first failure is remembered.
    pub fn finish(&mut self) {
        let mut errs = Vec::new();
        if let Some(w) = self.ns2.take() {
            if let Err(e) = w.finish() {
                errs.push(e.to_string());
            }
        }
        self.pcap_of.clear();
        for w in self.pcap.drain(..) {
            if let Err(e) = w.finish() {
                errs.push(e.to_string());
            }
        }
        if self.error.is_none() && !errs.is_empty() {
            self.error = Some(format!("writing the trace out failed: {}", errs.join("; ")));
        }
    }
}

/// What the writers need of a flow.
pub(super) fn flow_info(f: &super::Flow) -> FlowInfo {
    match &f.agent {
        Agent::Tcp { snd, .. } => FlowInfo { src: f.src, dst: f.dst, tcp: true, payload: snd.p.packet_size, header: snd.p.header, syn: snd.p.syn },
        Agent::Linux { snd, .. } => FlowInfo { src: f.src, dst: f.dst, tcp: true, payload: snd.p.packet_size, header: snd.p.header, syn: false },
        Agent::Cbr(c) => FlowInfo { src: f.src, dst: f.dst, tcp: false, payload: c.size, header: 0, syn: false },
    }
}

impl Tracer {
    /// A link's rate changed (`rate_schedule`): the floating-point clock follows it.
    pub(super) fn set_link_rate(&mut self, link: u32, rate_bps: f64) {
        self.link_rate[link as usize] = rate_bps;
    }
}

impl Simulation {
    /// ns-2's time of the event about to run (the packet arrivals set theirs in
    /// [`Simulation::trace_receive`]).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_clock(&mut self, ev: &crate::sched::Event) {
        use crate::sched::Event as E;
        let now = self.now.secs();
        if let Some(t) = &mut self.tracer {
            t.now_d = match *ev {
                E::TxDone { link } => t.link_end_d[link as usize],
                E::RtxTimer { flow, .. } => t.rtx_d[flow as usize],
                E::DelAck { flow, .. } => t.delack_d[flow as usize],
                E::CbrSend { flow } => t.cbr_d[flow as usize],
                E::Deliver { .. } | E::Forward { .. } => t.now_d,
                _ => now,
            };
        }
    }

    /// After a TCP sender ran: ns-2's time of its retransmission timer, when it was armed
    /// now (now + the timeout, in floating point).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_timer(&mut self, fi: usize) {
        if let (Some(t), Agent::Tcp { snd, .. }) = (&mut self.tracer, &self.flows[fi].agent) {
            let d = snd.rtx_deadline();
            if d != t.rtx_at[fi] {
                t.rtx_at[fi] = d;
                t.rtx_d[fi] = t.now_d + snd.rtt.timeout();
            }
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn trace_created(&mut self, pkt: &Packet) {
        if let Some(t) = &mut self.tracer {
            t.created(pkt);
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn trace_gone(&mut self, pkt: &Packet) {
        if let Some(t) = &mut self.tracer {
            t.gone(pkt);
        }
    }

    /// Trace event `ev` of `pkt` at link `l` now (a drop also forgets the packet).
    #[cold]
    #[inline(never)]
    pub(super) fn trace(&mut self, ev: TraceEvent, l: u32, pkt: &Packet) {
        if let Some(t) = &mut self.tracer {
            let link = &self.links[l as usize];
            let at = Where { t: self.now, secs: t.now_d, ev, from: link.from, to: link.to };
            t.record(at, l, pkt);
            if ev == TraceEvent::Drop {
                t.gone(pkt);
            }
        }
    }

    /// `pkt` reached the far end of the link it last left (`delivered`: its destination,
    /// where it leaves the network).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_receive(&mut self, pkt: &Packet, delivered: bool) {
        if let Some(t) = &mut self.tracer {
            if let Some(&mut (uid, l, at_d)) = t.lookup(pkt) {
                t.now_d = at_d;
                if l != u32::MAX {
                    let link = &self.links[l as usize];
                    let at = Where { t: self.now, secs: at_d, ev: TraceEvent::Receive, from: link.from, to: link.to };
                    t.write(at, l, pkt, uid as i32);
                }
            }
            if delivered {
                t.gone(pkt);
            }
        }
    }
}
