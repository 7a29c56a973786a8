//! A plug-in congestion control ([`PluginCc`], e.g. a Python class) on the linux stack:
//! the sender's `CongestionOps` calls turned into the plug-in's, through one reused
//! [`CcView`]. The view is filled from the `Tcb` before each call; `cwnd` and `ssthresh`
//! are checked and written back after it (a window that is not a number > 0 ends the run
//! with one message naming the plug-in, the method and the time).
//!
//! Rules where the reference (ns-3's `TcpCongestionOps`) leaves the mapping open:
//! - windows are bytes; what the plug-in writes is floored to whole bytes (cwnd at least
//!   one byte); an ssthresh of infinity is Linux's/ns-3's "no threshold yet" (u32::MAX);
//! - `in_flight` is the bytes in flight ns-3 hands `GetSsThresh` (0 in other calls);
//! - a pacing rate the plug-in sets replaces the socket's cwnd/srtt rule after each ACK
//!   (it matters only when the flow paces, `pacing = true`).

use super::cc::{CcEvent, CongestionOps, Tcb};
use crate::tcp::plugin::{failure, CcStateEvent, CcView, PluginCc};

#[derive(Debug)]
pub struct PluginOps {
    cc: Box<dyn PluginCc>,
    /// The scenario path of the flow's `tcp` table, for messages.
    path: String,
    view: CcView,
}

impl Clone for PluginOps {
    fn clone(&self) -> Self {
        PluginOps { cc: self.cc.clone_box(), path: self.path.clone(), view: self.view.clone() }
    }
}

fn window_in(w: u32) -> f64 {
    if w == u32::MAX {
        f64::INFINITY
    } else {
        w as f64
    }
}

impl PluginOps {
    pub fn new(cc: Box<dyn PluginCc>, path: impl Into<String>) -> PluginOps {
        PluginOps { cc, path: path.into(), view: CcView::default() }
    }

    /// The plug-in (for tests and the sender's monitors).
    pub fn plugin(&self) -> &dyn PluginCc {
        self.cc.as_ref()
    }

    fn load(&mut self, t: &Tcb, in_flight: u32) {
        let v = &mut self.view;
        v.cwnd = t.cwnd as f64;
        v.ssthresh = window_in(t.ssthresh);
        v.mss = t.mss;
        v.now = t.now_ns as f64 * 1e-9;
        v.srtt = t.last_rtt_ns as f64 * 1e-9;
        v.in_flight = in_flight as f64;
        v.last_acked = t.last_acked as i64;
        v.high_tx = t.high_tx as i64;
        v.ece = t.ece_rcvd;
        v.delivered = t.delivered;
        v.delivered_ce = t.delivered_ce;
        v.stack = "linux";
    }

    fn bad(&self, method: &str, field: &str, got: f64, expected: &str) -> ! {
        let what = format!("set tcp.{field} to {got}");
        crate::plugin::fail(failure(&self.path, self.cc.name(), method, &what, self.view.now, &format!(" (expected {expected})")))
    }

    /// Take cwnd and ssthresh back from the view after `method`.
    fn store(&mut self, t: &mut Tcb, method: &str) {
        let (c, s) = (self.view.cwnd, self.view.ssthresh);
        if !(c > 0.0 && c.is_finite()) {
            self.bad(method, "cwnd", c, "a window > 0 bytes");
        }
        if !(s > 0.0) || s.is_nan() {
            self.bad(method, "ssthresh", s, "a window > 0 bytes, or infinity");
        }
        if let Some(r) = self.view.pacing_rate {
            if !(r > 0.0 && r.is_finite()) {
                self.bad(method, "pacing_rate", r, "a rate > 0 bit/s, or None");
            }
        }
        t.cwnd = (c.floor() as u32).max(1);
        t.ssthresh = if s.is_infinite() { u32::MAX } else { s.floor() as u32 };
    }
}

impl CongestionOps for PluginOps {
    fn name(&self) -> &'static str {
        "python"
    }
    fn ssthresh(&mut self, t: &Tcb, bytes_in_flight: u32) -> u32 {
        self.load(t, bytes_in_flight);
        let s = self.cc.ssthresh(&mut self.view);
        if !(s > 0.0 && s.is_finite()) {
            let what = format!("returned {s}");
            crate::plugin::fail(failure(&self.path, self.cc.name(), "ssthresh", &what, self.view.now, " (expected a window > 0 bytes)"));
        }
        (s.floor() as u32).max(1)
    }
    fn increase_window(&mut self, t: &mut Tcb, segs_acked: u32) {
        self.load(t, 0);
        self.cc.on_ack(&mut self.view, segs_acked);
        self.store(t, "on_ack");
    }
    fn pkts_acked(&mut self, t: &mut Tcb, segs_acked: u32) {
        self.load(t, 0);
        self.cc.pkts_acked(&mut self.view, segs_acked);
        self.store(t, "pkts_acked");
    }
    fn on_loss_state(&mut self, t: &Tcb) {
        // ns-3 sets cwnd to one segment after this call: only the plug-in's state changes
        let mut scratch = t.clone();
        self.load(t, 0);
        self.cc.on_rto(&mut self.view);
        self.store(&mut scratch, "on_rto");
    }
    fn enter_cwr(&mut self, t: &mut Tcb) {
        self.load(t, 0);
        self.cc.on_ecn(&mut self.view);
        self.store(t, "on_ecn");
    }
    fn on_event(&mut self, t: &mut Tcb, ev: CcEvent) {
        let e = match ev {
            CcEvent::Recovery => CcStateEvent::Recovery,
            CcEvent::Loss => CcStateEvent::Loss,
            CcEvent::CompleteCwr => CcStateEvent::CompleteCwr,
        };
        self.load(t, 0);
        self.cc.on_event(&mut self.view, e);
        self.store(t, "on_event");
    }
    fn pacing_rate(&self) -> Option<f64> {
        self.view.pacing_rate
    }
    fn clone_box(&self) -> Box<dyn CongestionOps> {
        Box::new(self.clone())
    }
}
