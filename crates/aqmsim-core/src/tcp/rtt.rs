//! ns-2's RTT estimator and retransmission timeout (`rtt_update`, `rtt_timeout`,
//! `rtt_backoff` of tcp.cc), in integer ticks: srtt scaled by 8 (`T_SRTT_BITS` 3),
//! rttvar by 4 (`T_RTTVAR_BITS` 2), RTO = (srtt + 4·rttvar) ticks (RFC 2988 with
//! `rttvar_exp_` 2), clamped to [min_rto, max_rto] and at least two ticks.

const SRTT_BITS: u32 = 3;
const RTTVAR_BITS: u32 = 2;
const RTTVAR_EXP: u32 = 2;
/// Longest RTT sample, ticks (see [`RttEstimator::update`]).
const MAX_RTT_TICKS: f64 = (1u32 << 24) as f64;
/// Largest backoff multiplier (doubling it further would overflow an i32).
const MAX_BACKOFF: i32 = 1 << 30;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub tick: f64,
    pub min_rto: f64,
    pub max_rto: f64,
    /// Last sample, ticks.
    pub t_rtt: i32,
    /// Smoothed RTT, ticks × 8.
    pub t_srtt: i32,
    /// RTT variation, ticks × 4.
    pub t_rttvar: i32,
    /// Current RTO before backoff, seconds.
    pub t_rtxcur: f64,
    /// Exponential backoff multiplier (change it with [`RttEstimator::backoff`] and
    /// [`RttEstimator::reset_backoff`], which keep the cached timeout right).
    t_backoff: i32,
    /// Random phase of this agent's clock within a tick (ns-2 `boot_time_`).
    pub boot_time: f64,
    /// [`RttEstimator::timeout`] in ns, once computed: the timer is re-armed on every ACK,
    /// and the timeout changes only with a sample or a backoff.
    timeout_ns: Option<crate::time::Dur>,
}

impl RttEstimator {
    pub fn new(tick: f64, min_rto: f64, max_rto: f64, rto_init: f64, boot_time: f64) -> Self {
        // ns-2 rtt_init: srtt_init_ 0, rttvar_init_ 12 (seconds/ticks, scaled).
        RttEstimator {
            tick,
            min_rto,
            max_rto,
            t_rtt: 0,
            t_srtt: 0,
            t_rttvar: ((12.0 / tick) as i32) << RTTVAR_BITS,
            t_rtxcur: rto_init,
            t_backoff: 1,
            boot_time,
            timeout_ns: None,
        }
    }

    /// A new RTT sample `tao` seconds, measured at time `now` (seconds).
    pub fn update(&mut self, tao: f64, now: f64) {
        let sendtime = now - tao + self.boot_time;
        let tickoff = sendtime % self.tick;
        // At most 2^24 ticks, so the scaled sums below stay under i32::MAX (a longer
        // sample would wrap them); with the scenario's tick ≥ 1 µs that is ≥ 16.7 s.
        self.t_rtt = ((tao + tickoff) / self.tick).min(MAX_RTT_TICKS) as i32;
        if self.t_rtt < 1 {
            self.t_rtt = 1;
        }
        if self.t_srtt != 0 {
            // ns-2 keeps delta in a `short`.
            let mut delta = (self.t_rtt - (self.t_srtt >> SRTT_BITS)) as i16 as i32;
            self.t_srtt += delta;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            if delta < 0 {
                delta = -delta;
            }
            delta -= self.t_rttvar >> RTTVAR_BITS;
            self.t_rttvar += delta;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = self.t_rtt << SRTT_BITS;
            self.t_rttvar = self.t_rtt << (RTTVAR_BITS - 1);
        }
        self.timeout_ns = None;
        self.t_rtxcur = (((self.t_rttvar << (RTTVAR_EXP + (SRTT_BITS - RTTVAR_BITS))) + self.t_srtt)
            >> SRTT_BITS) as f64
            * self.tick;
    }

    /// The timeout to arm now, seconds.
    pub fn timeout(&self) -> f64 {
        let b = self.t_backoff as f64;
        let mut t = if self.t_rtxcur < self.min_rto { self.min_rto * b } else { self.t_rtxcur * b };
        if t > self.max_rto {
            t = self.max_rto;
        }
        if t < 2.0 * self.tick {
            t = 2.0 * self.tick;
        }
        t
    }

    /// The exponential backoff multiplier.
    pub fn backoff_factor(&self) -> i32 {
        self.t_backoff
    }

    /// Back to no backoff (a new ACK; ns-2 `t_backoff_ = 1`).
    #[inline]
    pub fn reset_backoff(&mut self) {
        if self.t_backoff != 1 {
            self.t_backoff = 1;
            self.timeout_ns = None;
        }
    }

    /// [`RttEstimator::timeout`] as a duration (cached).
    #[inline]
    pub fn timeout_dur(&mut self) -> crate::time::Dur {
        match self.timeout_ns {
            Some(d) => d,
            None => {
                let d = crate::time::Dur::from_secs(self.timeout());
                self.timeout_ns = Some(d);
                d
            }
        }
    }

    /// Double the backoff (ns-2 `rtt_backoff`).
    pub fn backoff(&mut self) {
        self.timeout_ns = None;
        if self.t_backoff < MAX_BACKOFF && (self.t_backoff < 64 || self.timeout() < self.max_rto) {
            self.t_backoff <<= 1;
        }
        if self.t_backoff > 8 {
            self.t_rttvar += self.t_srtt >> SRTT_BITS;
            self.t_srtt = 0;
        }
    }

    /// The RTT variation in seconds as ns-2 shows `rttvar_` (`t_rttvar · tick / 4`).
    pub fn rttvar_secs(&self) -> f64 {
        self.t_rttvar as f64 * self.tick / (1 << RTTVAR_BITS) as f64
    }

    /// Smoothed RTT in seconds (0 before the first sample).
    pub fn srtt_secs(&self) -> f64 {
        (self.t_srtt >> SRTT_BITS) as f64 * self.tick
    }
}

#[cfg(test)]
mod tests {
    use crate::time::Dur;

    #[test]
    fn cached_timeout_follows_samples_and_backoff() {
        let mut r = super::RttEstimator::new(0.01, 0.2, 60.0, 3.0, 0.0);
        let check = |r: &mut super::RttEstimator| assert_eq!(r.timeout_dur(), Dur::from_secs(r.timeout()));
        check(&mut r);
        r.update(0.05, 1.0);
        check(&mut r);
        r.backoff();
        check(&mut r);
        r.backoff();
        check(&mut r);
        r.reset_backoff();
        check(&mut r);
        assert_eq!(r.backoff_factor(), 1);
    }

    use super::*;

    #[test]
    fn first_sample_by_hand() {
        // 100 ms RTT, tick 10 ms, no phase: t_rtt = 10 ticks; srtt = 80, rttvar = 20;
        // RTO = ((20 << 3) + 80) >> 3 = 30 ticks = 0.3 s.
        let mut r = RttEstimator::new(0.01, 0.2, 60.0, 3.0, 0.0);
        assert_eq!(r.timeout(), 3.0);
        r.update(0.1, 0.1);
        assert_eq!(r.t_rtt, 10);
        assert_eq!(r.t_srtt, 80);
        assert_eq!(r.t_rttvar, 20);
        assert!((r.t_rtxcur - 0.3).abs() < 1e-12);
        assert!((r.timeout() - 0.3).abs() < 1e-12);
    }

    #[test]
    fn min_rto_and_backoff() {
        let mut r = RttEstimator::new(0.01, 0.2, 60.0, 3.0, 0.0);
        r.update(0.02, 0.02); // 2 ticks: srtt 16, rttvar 4 → RTO ((4<<3)+16)>>3 = 6 ticks
        assert_eq!((r.t_rtt, r.t_srtt, r.t_rttvar), (2, 16, 4));
        assert!((r.t_rtxcur - 0.06).abs() < 1e-12);
        assert!((r.timeout() - 0.2).abs() < 1e-12, "clamped to min_rto");
        r.backoff();
        assert_eq!(r.t_backoff, 2);
        assert!((r.timeout() - 0.4).abs() < 1e-12);
        for _ in 0..20 {
            r.backoff();
        }
        assert!(r.timeout() <= 60.0);
    }
}
