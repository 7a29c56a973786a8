//! TCP senders' state over time (`monitor.tcp_flows`) and every RTT sample they take.

use super::spill::{joined, LeColumn, SpillState, Spilling};

/// What a sender is doing (the state column of [`TcpLog`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum TcpState {
    /// cwnd < ssthresh.
    SlowStart = 0,
    /// cwnd ≥ ssthresh.
    CongestionAvoidance = 1,
    /// After a fast retransmit, until the loss is repaired (Reno/NewReno: while the window
    /// is inflated; SACK: ns-2's `fastrecov_`).
    FastRecovery = 2,
    /// After a retransmission timeout, until everything sent before it is acknowledged.
    Timeout = 3,
}

impl TcpState {
    pub const NAMES: [&'static str; 4] = ["slow_start", "congestion_avoidance", "fast_recovery", "timeout"];
}

/// One sender's state at an instant.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TcpRow {
    pub cwnd: f64,
    pub ssthresh: i32,
    /// Smoothed RTT and its variation as ns-2 keeps them (`srtt_`, `rttvar_`), s.
    pub srtt: f64,
    pub rttvar: f64,
    /// The timeout the timer would be armed with now (backoff included), s.
    pub rto: f64,
    /// Packets sent and not yet acknowledged (`t_seqno − highest_ack − 1`).
    pub outstanding: i32,
    pub state: TcpState,
    /// The pacing rate, bit/s (ns-3's `m_pacingRate`, Linux's `sk_pacing_rate`); 0 for a
    /// sender that does not pace (the ns-2 stack; the linux stack with `pacing = false`).
    pub pacing_rate: f64,
    /// BBR's path model (v1: BtlBw and RTprop; v3: `BBR.bw` and `BBR.min_rtt`): its
    /// bandwidth estimate, bit/s, and minimum RTT, s; 0 and 0 for other senders.
    pub bbr_bw: f64,
    pub bbr_min_rtt: f64,
}

/// The state series: one row per change of any column (or per `monitor.tcp_interval`).
#[derive(Debug, Default)]
pub struct TcpLog {
    pub t: Vec<f64>,
    pub flow: Vec<u32>,
    pub cwnd: Vec<f64>,
    pub ssthresh: Vec<i32>,
    pub srtt: Vec<f64>,
    pub rttvar: Vec<f64>,
    pub rto: Vec<f64>,
    pub outstanding: Vec<i32>,
    /// `TcpState as u8`.
    pub state: Vec<u8>,
    pub pacing_rate: Vec<f64>,
    pub bbr_bw: Vec<f64>,
    pub bbr_min_rtt: Vec<f64>,
    /// The last row logged per flow (by flow index), to log changes only.
    last: Vec<Option<TcpRow>>,
    spill: SpillState,
}

impl Spilling for TcpLog {
    const WHAT: &'static str = "tcp";
    fn columns() -> Vec<(&'static str, u64)> {
        vec![("t", 8), ("flow", 4), ("cwnd", 8), ("ssthresh", 4), ("srtt", 8), ("rttvar", 8), ("rto", 8), ("outstanding", 4), ("state", 1), ("pacing_rate", 8), ("bbr_bw", 8), ("bbr_min_rtt", 8)]
    }
    fn mem_rows(&self) -> usize {
        self.t.len()
    }
    fn chunk(&self) -> Vec<Vec<u8>> {
        vec![
            f64::le_bytes(&self.t),
            u32::le_bytes(&self.flow),
            f64::le_bytes(&self.cwnd),
            i32::le_bytes(&self.ssthresh),
            f64::le_bytes(&self.srtt),
            f64::le_bytes(&self.rttvar),
            f64::le_bytes(&self.rto),
            i32::le_bytes(&self.outstanding),
            self.state.clone(),
            f64::le_bytes(&self.pacing_rate),
            f64::le_bytes(&self.bbr_bw),
            f64::le_bytes(&self.bbr_min_rtt),
        ]
    }
    fn clear_mem(&mut self) {
        self.t.clear();
        self.flow.clear();
        self.cwnd.clear();
        self.ssthresh.clear();
        self.srtt.clear();
        self.rttvar.clear();
        self.rto.clear();
        self.outstanding.clear();
        self.state.clear();
        self.pacing_rate.clear();
        self.bbr_bw.clear();
        self.bbr_min_rtt.clear();
    }
    fn prepend(&mut self, c: Vec<Vec<u8>>) {
        self.t = joined(&c[0], &mut self.t);
        self.flow = joined(&c[1], &mut self.flow);
        self.cwnd = joined(&c[2], &mut self.cwnd);
        self.ssthresh = joined(&c[3], &mut self.ssthresh);
        self.srtt = joined(&c[4], &mut self.srtt);
        self.rttvar = joined(&c[5], &mut self.rttvar);
        self.rto = joined(&c[6], &mut self.rto);
        self.outstanding = joined(&c[7], &mut self.outstanding);
        self.state = joined(&c[8], &mut self.state);
        self.pacing_rate = joined(&c[9], &mut self.pacing_rate);
        self.bbr_bw = joined(&c[10], &mut self.bbr_bw);
        self.bbr_min_rtt = joined(&c[11], &mut self.bbr_min_rtt);
    }
    fn state(&mut self) -> &mut SpillState {
        &mut self.spill
    }
    fn state_ref(&self) -> &SpillState {
        &self.spill
    }
}

impl TcpLog {
    /// Room for `flows` flows' last rows.
    pub fn new(flows: usize) -> TcpLog {
        TcpLog { last: vec![None; flows], ..Default::default() }
    }

    /// Log `row` for `flow` at `t` if it differs from the flow's last row (or always, with
    /// `every`: the periodic mode).
    #[inline]
    pub fn record(&mut self, t: f64, flow: u32, row: TcpRow, every: bool) {
        let last = &mut self.last[flow as usize];
        if !every && *last == Some(row) {
            return;
        }
        *last = Some(row);
        self.t.push(t);
        self.flow.push(flow);
        self.cwnd.push(row.cwnd);
        self.ssthresh.push(row.ssthresh);
        self.srtt.push(row.srtt);
        self.rttvar.push(row.rttvar);
        self.rto.push(row.rto);
        self.outstanding.push(row.outstanding);
        self.state.push(row.state as u8);
        self.pacing_rate.push(row.pacing_rate);
        self.bbr_bw.push(row.bbr_bw);
        self.bbr_min_rtt.push(row.bbr_min_rtt);
        self.after_push();
    }
}

/// Every RTT sample a traced sender took: the measured time from sending the timed packet
/// to its acknowledgement, s (before ns-2's estimator rounds it to ticks).
#[derive(Debug, Default)]
pub struct RttLog {
    pub t: Vec<f64>,
    pub flow: Vec<u32>,
    pub rtt: Vec<f64>,
    spill: SpillState,
}

impl Spilling for RttLog {
    const WHAT: &'static str = "rtt";
    fn columns() -> Vec<(&'static str, u64)> {
        vec![("t", 8), ("flow", 4), ("rtt", 8)]
    }
    fn mem_rows(&self) -> usize {
        self.t.len()
    }
    fn chunk(&self) -> Vec<Vec<u8>> {
        vec![f64::le_bytes(&self.t), u32::le_bytes(&self.flow), f64::le_bytes(&self.rtt)]
    }
    fn clear_mem(&mut self) {
        self.t.clear();
        self.flow.clear();
        self.rtt.clear();
    }
    fn prepend(&mut self, c: Vec<Vec<u8>>) {
        self.t = joined(&c[0], &mut self.t);
        self.flow = joined(&c[1], &mut self.flow);
        self.rtt = joined(&c[2], &mut self.rtt);
    }
    fn state(&mut self) -> &mut SpillState {
        &mut self.spill
    }
    fn state_ref(&self) -> &SpillState {
        &self.spill
    }
}

impl RttLog {
    #[inline]
    pub fn push(&mut self, t: f64, flow: u32, rtt: f64) {
        self.t.push(t);
        self.flow.push(flow);
        self.rtt.push(rtt);
        self.after_push();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::spill::SPILL_ROWS;

    fn row(cwnd: f64, state: TcpState) -> TcpRow {
        TcpRow { cwnd, ssthresh: 20, srtt: 0.1, rttvar: 0.05, rto: 1.0, outstanding: 3, state, pacing_rate: 0.0, bbr_bw: 0.0, bbr_min_rtt: 0.0 }
    }

    #[test]
    fn only_changes_are_logged_unless_every() {
        let mut l = TcpLog::new(2);
        l.record(0.0, 0, row(1.0, TcpState::SlowStart), false);
        l.record(0.1, 0, row(1.0, TcpState::SlowStart), false); // same: not logged
        l.record(0.1, 1, row(1.0, TcpState::SlowStart), false); // other flow: logged
        l.record(0.2, 0, row(2.0, TcpState::SlowStart), false);
        l.record(0.3, 0, row(2.0, TcpState::SlowStart), true); // periodic: logged
        assert_eq!(l.t, vec![0.0, 0.1, 0.2, 0.3]);
        assert_eq!(l.flow, vec![0, 1, 0, 0]);
    }

    #[test]
    fn tcp_log_spills_and_reads_back() {
        let mut l = TcpLog::new(1);
        l.spill_to(std::env::temp_dir());
        let n = SPILL_ROWS + 17;
        for i in 0..n {
            l.record(i as f64, 0, row(i as f64, if i % 2 == 0 { TcpState::SlowStart } else { TcpState::Timeout }), false);
            assert!(l.t.len() <= SPILL_ROWS);
        }
        l.finish_spill();
        assert_eq!(l.spilled().unwrap().rows, n);
        l.load().unwrap();
        assert_eq!(l.cwnd.len(), n);
        assert!(l.cwnd.iter().enumerate().all(|(i, &c)| c == i as f64));
        assert_eq!(l.state[3], TcpState::Timeout as u8);
    }
}
