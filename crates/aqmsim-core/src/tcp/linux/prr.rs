//! Proportional Rate Reduction (RFC 6937) with the slow-start reduction bound, as ns-3.37's
//! `TcpPrrRecovery` (its default `ReductionBound` SSRB): on entering recovery and on every
//! ACK in it, cwnd = pipe + sndcnt.

#[derive(Clone, Debug, Default)]
pub struct Prr {
    /// Bytes delivered to the receiver since recovery began (prr_delivered).
    pub delivered: u64,
    /// Bytes sent since recovery began (prr_out).
    pub out: u64,
    /// Outstanding bytes when recovery began (RecoverFS).
    pub recover_fs: u64,
    /// ns-3.37's arithmetic: it multiplies prr_delivered by ssthresh in 32 bits, which
    /// wraps once the product reaches 2³² (windows of about 64 kB and more), and takes the
    /// slow-start reduction bound's prr_delivered − prr_out unsigned; Linux uses signed 64.
    pub wrap32: bool,
}

impl Prr {
    pub fn enter(&mut self, unacked_bytes: u64) {
        self.out = 0;
        self.delivered = 0;
        self.recover_fs = unacked_bytes.max(1);
    }

    /// An ACK in recovery delivered `delivered` bytes; `in_flight` is pipe now and
    /// `rtx_acked` says it acknowledged retransmitted data. Returns the new cwnd.
    pub fn on_ack(&mut self, delivered: u32, in_flight: u32, ssthresh: u32, mss: u32, rtx_acked: bool) -> u32 {
        self.delivered += delivered as u64;
        let (fl, ss) = (in_flight as i64, ssthresh as i64);
        let (pd, po) = (self.delivered as i64, self.out as i64);
        let sndcnt = if fl > ss {
            // proportional part: ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out
            let product = if self.wrap32 { (pd as u32).wrapping_mul(ss as u32) as f64 } else { pd as f64 * ss as f64 };
            (product / self.recover_fs as f64).ceil() as i64 - po
        } else {
            // slow-start reduction bound
            let limit = if !rtx_acked {
                delivered as i64
            } else if self.wrap32 {
                // ns-3.37 adds in 32-bit unsigned and stores an int: once prr_out exceeds
                // prr_delivered the difference wraps, and the limit is pd − po + MSS (≤ 0)
                (pd as u32).wrapping_sub(po as u32).max(delivered).wrapping_add(mss) as i32 as i64
            } else {
                (pd - po).max(delivered as i64) + mss as i64
            };
            limit.min(ss - fl)
        };
        // never below pipe; and force the fast retransmit on entering recovery
        let sndcnt = sndcnt.max(if po > 0 { 0 } else { mss as i64 });
        (fl + sndcnt).clamp(0, u32::MAX as i64) as u32
    }

    pub fn sent(&mut self, bytes: u32) {
        self.out += bytes as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::Prr;

    /// Below ssthresh, an ACK of retransmitted data when prr_out is one MSS ahead of
    /// prr_delivered (ns-3.37 with 72 segments lost, tests/test_stack_linux_ns3_recovery.py):
    /// Linux's signed bound sends delivered + MSS; ns-3's unsigned sum wraps to 0, so cwnd
    /// stays at pipe.
    #[test]
    fn ssrb_bound_wraps_in_ns3_arithmetic_when_prr_out_leads() {
        for (wrap32, cwnd) in [(false, 5_000), (true, 3_000)] {
            let mut p = Prr { wrap32, ..Prr::default() };
            p.enter(74_000);
            p.delivered = 4_000;
            p.out = 6_000;
            assert_eq!(p.on_ack(1_000, 3_000, 51_000, 1_000, true), cwnd, "wrap32 {wrap32}");
        }
        // two MSS ahead: ns-3's limit is −MSS, sndcnt 0
        let mut p = Prr { wrap32: true, ..Prr::default() };
        p.enter(74_000);
        p.out = 3_000;
        assert_eq!(p.on_ack(1_000, 2_000, 51_000, 1_000, true), 2_000);
        // prr_delivered ahead: the same in both
        let mut p = Prr { wrap32: true, ..Prr::default() };
        p.enter(74_000);
        p.delivered = 3_000;
        p.out = 2_000;
        assert_eq!(p.on_ack(1_000, 1_000, 51_000, 1_000, true), 4_000);
    }
}
