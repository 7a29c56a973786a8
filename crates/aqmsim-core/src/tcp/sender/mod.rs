//! The TCP sender: ns-2 2.35's `TcpAgent` (Tahoe), `RenoTcpAgent` and `NewRenoTcpAgent`.
//!
//! The code follows ns-2's structure on purpose (`send_much`, `output`, `newack`,
//! `opencwnd`, `slowdown`, `dupack_action`, `timeout`), so each step can be checked against
//! ns-2's tcp.cc / tcp-reno.cc / tcp-newreno.cc. Sequence numbers count packets; with `syn`
//! packet 0 is a 40-byte SYN.
//!
//! I/O is sans-IO: methods take `now` and push packets to `out`; the retransmission timer
//! is a deadline the simulation arms through [`TcpSender::rtx_deadline`].
//!
//! Its parts: this file holds the state and what every variant shares (sending, new ACKs,
//! the window, the timer, timeouts); `ns2.rs` the Tahoe/Reno/NewReno ACK processing,
//! `sack1.rs` Sack1's, `cc_glue.rs` the glue to the congestion controls of `tcp/cubic.rs` and
//! `tcp/dctcp.rs` (behind [`crate::tcp::cc::CongestionOps`]), `state.rs` what the state
//! monitor reads. It depends on `tcp::{params, stats, cc, cubic, dctcp, rtt, scoreboard}`; none of
//! them depends on it.

mod cc_glue;
mod ns2;
mod plugin_glue;
#[cfg(test)]
mod plugin_glue_tests;
mod sack1;
mod state;

pub(crate) use cc_glue::Cc;
pub use sack1::SackState;

use super::cc::CongestionOps;
use super::params::{TcpParams, Variant};
use super::rtt::RttEstimator;
pub use super::stats::SenderStats;
use crate::packet::{ecn, Kind, Packet};
use crate::time::SimTime;

/// Why the congestion window last changed (ns-2 `last_cwnd_action_`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CwndAction {
    None,
    Ecn,
    Timeout,
    DupAck,
    Exited,
}


#[derive(Clone, Debug)]
pub struct TcpSender {
    pub p: TcpParams,
    pub flow: u32,
    pub dst: u32,
    // window state (ns-2 names)
    pub cwnd: f64,
    pub ssthresh: i32,
    wnd_init: f64,
    pub t_seqno: i32,
    pub highest_ack: i32,
    pub last_ack: i32,
    pub maxseq: i32,
    /// One past the last packet the application has given us.
    pub curseq: i32,
    pub recover: i32,
    pub dupacks: u32,
    /// Reno window inflation during fast recovery.
    pub dupwnd: u32,
    pub last_cwnd_action: CwndAction,
    first_decrease: bool,
    pub(crate) cong_action: bool,
    pub(crate) ect: bool,
    ecn_backoff: bool,
    ecn_burst: bool,
    pub(crate) firstpartial: bool,
    pub(crate) sack: SackState,
    /// Congestion control beside ns-2's arithmetic (CUBIC, DCTCP; `Ns2` for the rest).
    pub(crate) cc: Cc,
    /// Packets newly ACKed by the ACK being processed and its arrival (CUBIC/DCTCP only).
    pub(crate) cc_acked: u32,
    // RTT
    pub rtt: RttEstimator,
    rtt_active: bool,
    rtt_seq: i32,
    rtt_ts: SimTime,
    /// The last RTT sample not yet read by the state monitor, s (NaN: none).
    pub(crate) rtt_sample: f64,
    // timer
    rtx_deadline: Option<SimTime>,
    pub stats: SenderStats,
}

/// The last sequence number a flow sends (ns-2's FTP sends "forever"); far enough below
/// i32::MAX that `highest_ack + window` (window ≤ MAX_WINDOW) cannot overflow.
const MAXSEQ: i32 = i32::MAX - 2 * super::params::MAX_WINDOW as i32;

impl TcpSender {
    /// `boot_time` is this agent's random clock phase in [0, tick) (ns-2 `boot_time_`).
    pub fn new(p: TcpParams, flow: u32, dst: u32, boot_time: f64) -> TcpSender {
        let rtt = RttEstimator::new(p.tick, p.min_rto, p.max_rto, p.rto_init, boot_time);
        let cwnd = if p.syn && p.delay_growth { 1.0 } else { p.window_init };
        TcpSender {
            flow,
            dst,
            cwnd,
            ssthresh: p.window as i32,
            wnd_init: p.window_init,
            t_seqno: 0,
            highest_ack: -1,
            last_ack: -1,
            maxseq: -1,
            curseq: 0,
            recover: 0,
            dupacks: 0,
            dupwnd: 0,
            last_cwnd_action: CwndAction::None,
            first_decrease: true,
            cong_action: false,
            // DCTCP's ECN is not negotiated (its SYN is ECT, so the sink's echo of it is
            // the SYN's CE, not the negotiation): ECN-capable from the start.
            ect: p.variant == Variant::Dctcp,
            ecn_backoff: false,
            ecn_burst: false,
            firstpartial: false,
            sack: SackState::default(),
            cc: Cc::new(&p),
            cc_acked: 0,
            rtt,
            rtt_active: false,
            rtt_seq: -1,
            rtt_ts: SimTime::ZERO,
            rtt_sample: f64::NAN,
            rtx_deadline: None,
            stats: SenderStats::default(),
            p,
        }
    }

    /// Deadline of the retransmission timer, if armed.
    pub fn rtx_deadline(&self) -> Option<SimTime> {
        self.rtx_deadline
    }

    // ---------------------------------------------------------------- application

    /// FTP: an unlimited backlog from now on.
    pub fn start_bulk(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.curseq = MAXSEQ;
        self.send_much(false, now, out);
    }

    /// Stop handing new data to TCP: what has been sent is still delivered reliably.
    /// (ns-2: FTP `stop` → `advance 0` → `curseq_ = maxseq_`.)
    pub fn stop(&mut self) {
        self.curseq = self.maxseq;
    }

    /// Send exactly `n` more packets (a finite transfer).
    pub fn advance(&mut self, n: i32, now: SimTime, out: &mut Vec<Packet>) {
        self.curseq = self.curseq.saturating_add(n).min(MAXSEQ);
        self.send_much(false, now, out);
    }

    // ---------------------------------------------------------------- window

    #[inline]
    pub(crate) fn window(&self) -> i32 {
        match self.p.variant {
            Variant::Reno | Variant::NewReno | Variant::Python => {
                (self.cwnd as i32 + self.dupwnd as i32).min(self.p.window as i32)
            }
            _ => self.cwnd.min(self.p.window) as i32, // Tahoe and the SACK variants
        }
    }
    #[inline]
    fn windowd(&self) -> f64 {
        match self.p.variant {
            Variant::Reno | Variant::NewReno | Variant::Python => (self.cwnd + self.dupwnd as f64).min(self.p.window),
            _ => self.cwnd.min(self.p.window), // Tahoe and the SACK variants
        }
    }

    pub(crate) fn initial_window(&self) -> f64 {
        self.wnd_init
    }

    #[inline]
    fn opencwnd(&mut self, now: SimTime) {
        if !self.cc.is_ns2() {
            return self.opencwnd_cc(now);
        }
        if self.cwnd < self.ssthresh as f64 {
            self.cwnd += 1.0;
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
    }

    pub(crate) const CLOSE_SSTHRESH_HALF: u32 = 1;
    pub(crate) const CLOSE_CWND_HALF: u32 = 2;
    pub(crate) const CLOSE_CWND_RESTART: u32 = 4;
    pub(crate) const CLOSE_CWND_ONE: u32 = 8;

    pub(crate) fn slowdown(&mut self, how: u32) {
        if !self.cc.is_ns2() {
            return self.slowdown_cc(how);
        }
        let halfwin = self.windowd() / 2.0;
        if how & Self::CLOSE_SSTHRESH_HALF != 0 {
            // decrease_num_ 0.5: halfwin and decreasewin are the same value.
            self.ssthresh = halfwin as i32;
        }
        self.close_cwnd(how, halfwin);
    }

    /// The rest of ns-2's `slowdown` once ssthresh is set: cwnd to `half` or to 1 as `how`
    /// asks, ssthresh at least 2, and the congestion action noted.
    pub(super) fn close_cwnd(&mut self, how: u32, half: f64) {
        if how & Self::CLOSE_CWND_HALF != 0 {
            self.cwnd = half;
        } else if how & (Self::CLOSE_CWND_RESTART | Self::CLOSE_CWND_ONE) != 0 {
            self.cwnd = 1.0;
        }
        if self.ssthresh < 2 {
            self.ssthresh = 2;
        }
        // ns-2.35 has no `cwnd ≥ 1` clamp here: an ECN halving of cwnd 1.5 gives 0.75,
        // window() = 0, and the retransmission timer brings cwnd back to 1.
        if how & (Self::CLOSE_CWND_HALF | Self::CLOSE_CWND_RESTART | Self::CLOSE_CWND_ONE) != 0 {
            self.cong_action = true;
        }
        self.first_decrease = false;
    }

    // ---------------------------------------------------------------- timer

    fn set_rtx_timer(&mut self, now: SimTime) {
        self.rtx_deadline = Some(now + self.rtt.timeout_dur());
    }
    fn cancel_rtx_timer(&mut self) {
        self.rtx_deadline = None;
    }
    pub(crate) fn reset_rtx_timer(&mut self, mild: bool, backoff: bool, now: SimTime) {
        if backoff {
            self.rtt.backoff();
        }
        self.set_rtx_timer(now);
        if !mild {
            self.t_seqno = self.highest_ack + 1;
        }
        self.rtt_active = false;
    }
    pub(crate) fn newtimer(&mut self, ackno: i32, now: SimTime) {
        if self.t_seqno > ackno || ackno < self.maxseq || self.cwnd < 1.0 {
            self.set_rtx_timer(now);
        } else {
            self.cancel_rtx_timer();
        }
    }

    // ---------------------------------------------------------------- sending

    pub(crate) fn output(&mut self, seqno: i32, now: SimTime, out: &mut Vec<Packet>) {
        let is_rtx = seqno <= self.maxseq;
        let size = self.p.wire_size(seqno);
        // (the flags are worked out before the packet is written, in one go: see make_ack)
        let mut flags = 0;
        if self.p.ecn {
            flags |= ecn::ECT;
        }
        if self.cong_action {
            // SetCWRonRetransmit_ true: CWR goes on the next packet, retransmission or not.
            flags |= ecn::CWR;
            self.cong_action = false;
        }
        if seqno == 0 && self.p.ecn {
            // ns-2: the connection's first packet is not ECT and carries ECE (negotiation).
            // DCTCP (ns-3 `DctcpEcn` mode) sends its SYN ECT too: a non-ECT SYN is dropped
            // by a step-marking queue held above its threshold.
            flags = if self.p.variant == Variant::Dctcp { flags | ecn::ECE } else { (flags & !ecn::ECT) | ecn::ECE };
        }
        let mut pkt = Packet::new(Kind::Data, self.flow, seqno, size, self.dst, now);
        pkt.tag = is_rtx as u8;
        pkt.ecn = flags;
        let force_timer = self.highest_ack == self.maxseq;
        out.push(pkt);
        self.stats.sent += 1;
        self.stats.sent_bytes += size as u64;
        if seqno > self.maxseq {
            self.maxseq = seqno;
            if !self.rtt_active {
                self.rtt_active = true;
                if seqno > self.rtt_seq {
                    self.rtt_seq = seqno;
                    self.rtt_ts = now;
                }
            }
        } else {
            self.stats.retransmitted += 1;
        }
        if self.rtx_deadline.is_none() || force_timer {
            self.set_rtx_timer(now);
        }
    }

    fn send_much(&mut self, _force: bool, now: SimTime, out: &mut Vec<Packet>) {
        if self.p.variant.uses_sack() {
            return self.send_much_sack(now, out);
        }
        let mut win = self.window();
        let mut npackets = 0u32;
        while self.t_seqno <= self.highest_ack + win && self.t_seqno < self.curseq {
            let s = self.t_seqno;
            self.output(s, now, out);
            npackets += 1;
            self.t_seqno += 1;
            win = self.window();
            if self.p.max_burst != 0 && npackets == self.p.max_burst {
                break;
            }
        }
    }

    fn send_much_burst(&mut self, now: SimTime, out: &mut Vec<Packet>, maxburst: u32) {
        let saved = self.p.max_burst;
        self.p.max_burst = maxburst;
        self.send_much(false, now, out);
        self.p.max_burst = saved;
    }

    /// Limited transmit (ns-2 `send_one`, `singledup_`).
    pub(crate) fn send_one(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.t_seqno <= self.highest_ack + self.p.window as i32
            && self.t_seqno < self.curseq
            && (self.t_seqno as f64) <= self.highest_ack as f64 + self.cwnd + self.dupacks as f64
        {
            let s = self.t_seqno;
            self.output(s, now, out);
            self.t_seqno += 1;
        }
    }

    // ---------------------------------------------------------------- receiving

    pub(crate) fn newack(&mut self, ackno: i32, ece: bool, now: SimTime) {
        self.dupacks = 0;
        self.last_ack = ackno;
        self.highest_ack = ackno;
        if self.t_seqno < ackno + 1 {
            self.t_seqno = ackno + 1;
        }
        if self.rtt_active && ackno >= self.rtt_seq {
            if !self.ect || !self.ecn_backoff || !ece {
                self.rtt.reset_backoff();
                self.ecn_backoff = false;
            }
            self.rtt_active = false;
            let tao = now.saturating_since(self.rtt_ts).secs();
            self.rtt_sample = tao;
            self.rtt.update(tao, now.secs());
        }
        self.newtimer(ackno, now);
    }

    pub(crate) fn recv_newack_helper(&mut self, ack: &Packet, now: SimTime) {
        let ece = ack.has(ecn::ECE);
        self.newack(ack.seq, ece, now);
        if !self.ect || !ece {
            self.opencwnd(now);
        }
        if self.ect {
            if !ece {
                self.ecn_backoff = false;
            }
            self.ecn_burst = ece;
        }
        if !self.ect && ece && !ack.has(ecn::CWR) {
            self.ect = true;
        }
    }

    fn ecn_response(&mut self, seqno: i32, now: SimTime) {
        if seqno > self.recover || self.last_cwnd_action == CwndAction::Timeout {
            self.recover = self.maxseq;
            self.last_cwnd_action = CwndAction::Ecn;
            if self.cwnd <= 1.0 {
                if self.ecn_backoff {
                    self.rtt.backoff();
                } else {
                    self.ecn_backoff = true;
                }
            } else {
                self.ecn_backoff = false;
            }
            self.slowdown(Self::CLOSE_CWND_HALF | Self::CLOSE_SSTHRESH_HALF);
            self.stats.ecn_responses += 1;
            if self.cc.is_plugin() {
                self.plugin_hook(now, plugin_glue::Hook::Ecn);
            }
        }
    }

    /// An ACK arrived.
    pub fn recv_ack(&mut self, ack: &Packet, now: SimTime, out: &mut Vec<Packet>) {
        self.stats.acks += 1;
        if !self.cc.is_ns2() {
            match &mut self.cc {
                Cc::Plugin(pl) => pl.now = now, // runs in ns-2's NewReno agent (plugin_glue.rs)
                _ => return self.recv_ack_cc(ack, now, out),
            }
        }
        if ack.has(ecn::ECE) && self.p.ecn {
            self.ecn_response(ack.seq, now);
        }
        match self.p.variant {
            Variant::Tahoe => self.recv_tahoe(ack, now, out),
            Variant::Reno => self.recv_reno(ack, now, out),
            Variant::NewReno | Variant::Python => self.recv_newreno(ack, now, out),
            // (CUBIC and DCTCP returned through recv_ack_cc above)
            _ => self.recv_sack(ack, now, out),
        }
    }


    /// The retransmission timer fired at `now` (the caller checked the deadline).
    pub fn on_timeout(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.rtx_deadline = None;
        if let Cc::Plugin(pl) = &mut self.cc {
            pl.now = now;
            self.plugin_hook(now, plugin_glue::Hook::Event(crate::tcp::plugin::CcStateEvent::Loss));
        }
        match self.p.variant {
            Variant::Reno | Variant::NewReno | Variant::Python => {
                self.dupwnd = 0;
                self.dupacks = 0;
                self.recover = self.maxseq;
            }
            Variant::Tahoe => {}
            _ => self.timeout_sack_prologue(), // the SACK variants
        }
        if self.cwnd < 1.0 {
            self.cwnd = 1.0;
        }
        self.recover = self.maxseq;
        if self.highest_ack == -1 && self.wnd_init > 1.0 {
            self.wnd_init = 1.0;
        }
        let idle = self.highest_ack == self.maxseq;
        if idle {
            self.slowdown(Self::CLOSE_CWND_ONE);
        } else if self.highest_ack < self.recover && self.last_cwnd_action == CwndAction::Ecn {
            self.slowdown(Self::CLOSE_CWND_ONE);
        } else {
            self.stats.timeouts += 1;
            self.last_cwnd_action = CwndAction::Timeout;
            self.slowdown(Self::CLOSE_SSTHRESH_HALF | Self::CLOSE_CWND_RESTART);
        }
        // ns-3: CongestionStateSet(CA_LOSS) after GetSsThresh, on every RTO.
        match &mut self.cc {
            Cc::Cubic(c) => CongestionOps::on_rto(c, now, self.maxseq),
            Cc::Dctcp(d) => CongestionOps::on_rto(d, now, self.maxseq),
            Cc::Plugin(_) => self.rto_plugin(now),
            Cc::Ns2 => {}
        }
        self.reset_rtx_timer(false, !idle, now);
        self.last_cwnd_action = CwndAction::Timeout;
        self.send_much(false, now, out);
    }
}
