//! ns-3.37's `RttMeanDeviation` (Jacobson/Karels, RFC 6298 with α = 1/8, β = 1/4 in
//! integer nanoseconds) and the RTO rule of its `TcpSocketBase`:
//! RTO = max(SRTT + max(G, 4·RTTVAR), min RTO), doubled per timeout up to 60 s.

#[derive(Clone, Debug)]
pub struct RttMeanDev {
    /// Smoothed RTT and variation, ns (0 before the first sample).
    pub srtt: i64,
    pub rttvar: i64,
    pub samples: u64,
}

impl RttMeanDev {
    pub fn new() -> Self {
        RttMeanDev { srtt: 0, rttvar: 0, samples: 0 }
    }

    /// One measurement, ns.
    pub fn sample(&mut self, m: i64) {
        if self.samples == 0 {
            self.srtt = m;
            self.rttvar = m / 2;
        } else {
            // α = 1/8 (shift 3), β = 1/4 (shift 2), arithmetic shifts as ns-3's int64
            let mut delta = m - self.srtt;
            self.srtt = ((self.srtt << 3) + delta) >> 3;
            delta = delta.abs() - self.rttvar;
            self.rttvar = ((self.rttvar << 2) + delta) >> 2;
        }
        self.samples += 1;
    }

    /// max(SRTT + max(G, 4·RTTVAR), min_rto), ns.
    pub fn rto(&self, granularity: i64, min_rto: i64) -> i64 {
        (self.srtt + granularity.max(4 * self.rttvar)).max(min_rto)
    }
}

impl Default for RttMeanDev {
    fn default() -> Self {
        Self::new()
    }
}
