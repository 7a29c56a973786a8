//! A plug-in congestion control ([`PluginCc`], e.g. a Python class) on the ns-2 stack: it
//! runs inside ns-2's NewReno agent (`recv_newreno`, fast retransmit, partial ACKs, the
//! window inflation `dupwnd`, timeouts), and replaces only ns-2's window arithmetic:
//! - `opencwnd` (every new ACK that ns-2 lets open the window) calls `on_ack(tcp, acked)`;
//! - `slowdown` with `CLOSE_SSTHRESH_HALF` (fast retransmit, ECN echo, timeout) calls
//!   `ssthresh(tcp)` with `tcp.in_flight` = ns-2's window in use, min(cwnd + dupwnd,
//!   window): the threshold is the integer part of what it returns (at least 2, as ns-2),
//!   and where ns-2 halves cwnd (`CLOSE_CWND_HALF`) cwnd becomes the value returned,
//!   unrounded, as ns-2's `halfwin`; a timeout still sets cwnd to 1;
//! - a timeout calls `on_rto(tcp)` after the threshold is set.
//!
//! and the optional methods at the agent's events ([`Hook`]): `pkts_acked` on every ACK
//! `recv_newreno` takes (new data: the packets it advances the cumulative ACK by; a
//! duplicate: 1), before `on_ack`; `on_ecn` after an ECN echo's `slowdown`; `on_event`
//! "recovery" where the agent enters fast recovery (before `ssthresh`), "complete_cwr"
//! where it leaves it (ns-2's `CWND_ACTION_EXITED`), "loss" at every timeout (before
//! `ssthresh`, then `on_rto`). What they write to cwnd/ssthresh is taken back.
//!
//! Windows count packets (float cwnd, integer ssthresh), and `tcp.mss` is 1 (one segment in
//! the windows' unit).

use super::{Cc, TcpSender};
use crate::tcp::plugin::{failure, CcStateEvent, CcView, PluginCc};
use crate::time::SimTime;

#[derive(Debug)]
pub struct Ns2Plugin {
    cc: Box<dyn PluginCc>,
    path: String,
    view: CcView,
    /// The cumulative ACK at the last `on_ack` (to count what an ACK acknowledges).
    prev_ack: i32,
    /// The time of the ACK or timeout being processed (ns-2's `slowdown` has no clock).
    pub(super) now: SimTime,
}

impl Clone for Ns2Plugin {
    fn clone(&self) -> Self {
        Ns2Plugin { cc: self.cc.clone_box(), path: self.path.clone(), view: self.view.clone(), prev_ack: self.prev_ack, now: self.now }
    }
}

impl PartialEq for Ns2Plugin {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Ns2Plugin {
    fn bad(&self, method: &str, what: String, expected: &str) -> ! {
        crate::plugin::fail(failure(&self.path, self.cc.name(), method, &what, self.view.now, &format!(" (expected {expected})")))
    }
}

/// An optional method of the plug-in at an event of ns-2's agent.
#[derive(Copy, Clone, Debug)]
pub(super) enum Hook {
    /// `pkts_acked(tcp, acked)`; the ACK's ECN-Echo.
    PktsAcked(u32, bool),
    Ecn,
    Event(CcStateEvent),
}

impl TcpSender {
    /// Run `cc` (built for the `tcp` table at `path`) in place of ns-2's window arithmetic.
    pub fn set_plugin_cc(&mut self, cc: Box<dyn PluginCc>, path: &str) {
        self.cc = Cc::Plugin(Box::new(Ns2Plugin { cc, path: path.to_string(), view: CcView::default(), prev_ack: -1, now: SimTime::ZERO }));
    }

    /// The view of this sender, in packets (`in_flight` given).
    fn plugin_view(&self, now: SimTime, in_flight: f64) -> CcView {
        CcView {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh as f64,
            mss: 1,
            now: now.secs(),
            srtt: self.rtt.srtt_secs(),
            in_flight,
            last_acked: self.highest_ack as i64,
            high_tx: self.maxseq as i64,
            ece: false,
            delivered: 0,
            delivered_ce: 0,
            pacing_rate: None,
            stack: "ns2",
        }
    }

    /// Take cwnd and ssthresh back from the view after `method`.
    fn plugin_store(&mut self, method: &str) {
        let Cc::Plugin(pl) = &self.cc else { return };
        let (c, s) = (pl.view.cwnd, pl.view.ssthresh);
        if !(c > 0.0 && c.is_finite()) {
            pl.bad(method, format!("set tcp.cwnd to {c}"), "a window > 0 packets");
        }
        if !(s > 0.0 && s.is_finite()) {
            pl.bad(method, format!("set tcp.ssthresh to {s}"), "a window > 0 packets");
        }
        self.cwnd = c;
        self.ssthresh = s.min(i32::MAX as f64) as i32;
    }

    /// ns-2's `opencwnd`: the plug-in's `on_ack`.
    pub(super) fn opencwnd_plugin(&mut self, now: SimTime) {
        let mut v = self.plugin_view(now, 0.0);
        let Cc::Plugin(pl) = &mut self.cc else { return };
        let acked = (self.highest_ack - pl.prev_ack).max(1) as u32;
        pl.prev_ack = self.highest_ack;
        v.pacing_rate = pl.view.pacing_rate;
        pl.view = v;
        pl.cc.on_ack(&mut pl.view, acked);
        self.plugin_store("on_ack");
    }

    /// Call the plug-in's `hook` (a no-op for the built-in controls and for a method the
    /// plug-in does not define); cwnd and ssthresh are taken back after it.
    #[cold]
    #[inline(never)]
    pub(super) fn plugin_hook(&mut self, now: SimTime, hook: Hook) {
        let mut v = self.plugin_view(now, 0.0);
        let Cc::Plugin(pl) = &mut self.cc else { return };
        v.pacing_rate = pl.view.pacing_rate;
        pl.view = v;
        let method = match hook {
            Hook::PktsAcked(acked, ece) => {
                pl.view.ece = ece;
                pl.view.delivered = acked;
                pl.cc.pkts_acked(&mut pl.view, acked);
                "pkts_acked"
            }
            Hook::Ecn => {
                pl.cc.on_ecn(&mut pl.view);
                "on_ecn"
            }
            Hook::Event(ev) => {
                pl.cc.on_event(&mut pl.view, ev);
                "on_event"
            }
        };
        self.plugin_store(method);
    }

    /// ns-2's `slowdown` with the plug-in's threshold.
    pub(super) fn slowdown_plugin(&mut self, how: u32) {
        let win = self.windowd();
        let mut half = win / 2.0;
        if how & Self::CLOSE_SSTHRESH_HALF != 0 {
            let Cc::Plugin(pl) = &self.cc else { return };
            let v = self.plugin_view(pl.now, win);
            let Cc::Plugin(pl) = &mut self.cc else { return };
            pl.view = v;
            let s = pl.cc.ssthresh(&mut pl.view);
            if !(s > 0.0 && s.is_finite()) {
                pl.bad("ssthresh", format!("returned {s}"), "a window > 0 packets");
            }
            half = s;
            self.ssthresh = s.min(i32::MAX as f64) as i32;
        }
        self.close_cwnd(how, half);
    }

    /// A retransmission timeout (after `slowdown`): the plug-in's `on_rto`; cwnd stays 1.
    pub(super) fn rto_plugin(&mut self, now: SimTime) {
        let v = self.plugin_view(now, 0.0);
        let Cc::Plugin(pl) = &mut self.cc else { return };
        pl.view = v;
        pl.cc.on_rto(&mut pl.view);
        let cwnd = self.cwnd;
        self.plugin_store("on_rto");
        self.cwnd = cwnd; // ns-2 keeps cwnd = 1 after a timeout
    }
}
