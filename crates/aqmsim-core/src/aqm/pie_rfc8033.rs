//! The golden reference of `pie_tests.rs`: RFC 8033's pseudo-code, in a file of its own
//! (the tests that drive it against `pie.rs` are in `pie_tests.rs`).

use super::*;

/// The golden reference: RFC 8033's pseudo-code (Appendix A, with Appendix B's dequeue-rate
/// estimation), holding its own queue and driven by an explicit timer, written in the RFC's
/// shape and names. Where ns-3.37 departs from the RFC the reference follows ns-3.37, marked
/// "ns-3:" with what the RFC says. Times are integer ns as in ns-3's `Time`.
pub(super) struct RefPie {
    pub(super) c: PieParams,
    pub(super) queue: VecDeque<(u64, u32)>, // (timestamp, size)
    pub(super) bytes: u64,
    pub(super) drop_prob_: f64,
    pub(super) current_qdelay: u64,
    pub(super) qdelay_old_: u64,
    pub(super) burst_allowance_: u64,
    // ns-3: ns-2's burst state machine (0 NO_BURST, 1 IN_BURST, 2 IN_BURST_PROTECTING);
    // RFC: burst_allowance_ = MAX_BURST at any arrival with p = 0 and both delays < ref/2.
    pub(super) burst_state: u8,
    pub(super) burst_reset: u32,
    pub(super) accu_prob_: f64,
    pub(super) active_: bool,
    pub(super) in_measurement_: bool,
    pub(super) dq_count_: u64,
    pub(super) dq_tstamp_: u64,
    // ns-3: an average rate, halved weights; RFC Appendix B: avg_dq_time with ε weights.
    pub(super) avg_dq_rate_: f64,
}

impl RefPie {
    pub(super) fn new(c: PieParams) -> RefPie {
        RefPie { c, queue: VecDeque::new(), bytes: 0, drop_prob_: 0.0, current_qdelay: 0, qdelay_old_: 0, burst_allowance_: 0, burst_state: 0, burst_reset: 0, accu_prob_: 0.0, active_: false, in_measurement_: false, dq_count_: u64::MAX, dq_tstamp_: 0, avg_dq_rate_: 0.0 }
    }
    pub(super) fn s(t: u64) -> f64 {
        t as f64 / 1e9
    }
    pub(super) fn byte_mode(&self) -> bool {
        self.c.limit_bytes.is_some()
    }

    pub(super) fn enqueue(&mut self, now: u64, size: u32, ect: bool, draw: &mut Draws) -> Verdict {
        // ns-3: the full check does not depend on PIE being active
        let full = match self.c.limit_bytes {
            Some(l) => self.bytes + size as u64 > l,
            None => self.queue.len() as u64 + 1 > self.c.limit as u64,
        };
        if full {
            self.accu_prob_ = 0.0;
            return Verdict::Drop(Reason::Overflow);
        }
        let mut v = Verdict::Enqueue;
        if (self.c.active_threshold.is_none() || self.active_) && self.drop_early(size, draw) {
            // ns-3: mark while p < threshold (RFC: p <= 0.1)
            if self.c.ecn && self.drop_prob_ < self.c.mark_ecn_threshold && ect {
                v = Verdict::Mark(Reason::Early);
            } else {
                self.accu_prob_ = 0.0;
                return Verdict::Drop(Reason::Early);
            }
        }
        self.queue.push_back((now, size));
        self.bytes += size as u64;
        if let Some(th) = self.c.active_threshold {
            // ns-3: on at a delay threshold (RFC: at half the buffer), off below 1 ms
            if !self.active_ && self.current_qdelay >= ns(th) {
                self.active_ = true;
                self.qdelay_old_ = 0;
                self.drop_prob_ = 0.0;
                self.in_measurement_ = true;
                self.dq_count_ = 0;
                self.avg_dq_rate_ = 0.0;
                self.burst_allowance_ = ns(self.c.max_burst);
                self.accu_prob_ = 0.0;
                self.dq_tstamp_ = now;
            }
            if self.drop_prob_ == 0.0 && self.qdelay_old_ / 1_000_000 == 0 && self.current_qdelay / 1_000_000 == 0 {
                self.active_ = false;
                self.in_measurement_ = false;
            }
        }
        v
    }

    pub(super) fn drop_early(&mut self, size: u32, draw: &mut Draws) -> bool {
        if self.burst_allowance_ > 0 {
            return false;
        }
        if self.burst_state == 0 {
            self.burst_state = 2;
            self.burst_allowance_ = ns(self.c.max_burst);
        }
        let mut p = self.drop_prob_;
        if self.byte_mode() {
            p = p * size as f64 / self.c.mean_pktsize as f64;
        }
        if Self::s(self.qdelay_old_) < Self::s(ns(self.c.target)) / 2.0 && self.drop_prob_ < 0.2 {
            return false;
        }
        // ns-3: in packet mode, 2 packets (RFC: 2 mean packets' bytes)
        let few = if self.byte_mode() { self.bytes <= 2 * self.c.mean_pktsize as u64 } else { self.queue.len() <= 2 };
        if few {
            return false;
        }
        if self.c.use_derandomization {
            if self.drop_prob_ == 0.0 {
                self.accu_prob_ = 0.0;
            }
            self.accu_prob_ += self.drop_prob_;
            if self.accu_prob_ < 0.85 {
                return false;
            }
            if self.accu_prob_ >= 8.5 {
                return true;
            }
        }
        // ns-3: drop when u <= p (RFC: u < p)
        draw.next() <= p
    }

    pub(super) fn dequeue(&mut self, now: u64) -> bool {
        let Some((ts, size)) = self.queue.pop_front() else { return false };
        self.bytes -= size as u64;
        if self.c.use_dq_rate_estimator {
            let th = self.c.dq_threshold as u64;
            if self.bytes >= th && !self.in_measurement_ {
                self.dq_tstamp_ = now;
                self.dq_count_ = 0;
                self.in_measurement_ = true;
            }
            if self.in_measurement_ {
                self.dq_count_ = self.dq_count_.wrapping_add(size as u64);
                if self.dq_count_ >= th {
                    let dq_int = now - self.dq_tstamp_;
                    if dq_int > 0 {
                        let r = self.dq_count_ as f64 / Self::s(dq_int);
                        self.avg_dq_rate_ = if self.avg_dq_rate_ == 0.0 { r } else { 0.5 * self.avg_dq_rate_ + 0.5 * r };
                    }
                    self.dq_count_ = 0;
                    self.in_measurement_ = self.bytes > th;
                    if self.in_measurement_ {
                        self.dq_tstamp_ = now;
                    }
                }
            }
        } else {
            // ns-3: 0 when the queue is left empty
            self.current_qdelay = if self.bytes == 0 { 0 } else { now - ts };
        }
        true
    }

    #[allow(clippy::manual_clamp)] // the RFC's two bounds, as written
    pub(super) fn calculate_drop_prob(&mut self) {
        let mut missing = false;
        if self.c.use_dq_rate_estimator {
            if self.avg_dq_rate_ > 0.0 {
                self.current_qdelay = ns(self.bytes as f64 / self.avg_dq_rate_);
            } else {
                self.current_qdelay = 0;
                missing = true;
            }
        }
        let (qd, old, r) = (Self::s(self.current_qdelay), Self::s(self.qdelay_old_), Self::s(ns(self.c.target)));
        let mut p;
        if self.burst_allowance_ > 0 {
            self.drop_prob_ = 0.0;
            p = 0.0;
        } else {
            p = self.c.alpha * (qd - r) + self.c.beta * (qd - old);
            let tiers = [(0.000001, 2048.0), (0.00001, 512.0), (0.0001, 128.0), (0.001, 32.0), (0.01, 8.0), (0.1, 2.0)];
            if let Some(&(_, k)) = tiers.iter().find(|(lim, _)| self.drop_prob_ < *lim) {
                p /= k;
            }
            if self.c.use_cap_drop_adjustment && self.drop_prob_ >= 0.1 && p > 0.02 {
                p = 0.02;
            }
        }
        self.drop_prob_ += p;
        if self.current_qdelay == 0 && self.qdelay_old_ == 0 {
            self.drop_prob_ *= 0.98;
        }
        // bound drop probability
        if self.drop_prob_ < 0.0 {
            self.drop_prob_ = 0.0;
        }
        if self.drop_prob_ > 1.0 {
            self.drop_prob_ = 1.0;
        }
        let t_update = ns(self.c.t_update);
        self.burst_allowance_ = self.burst_allowance_.saturating_sub(t_update);
        let quiet = qd < 0.5 * r && old < 0.5 * r && self.drop_prob_ == 0.0;
        if quiet && !missing {
            self.dq_count_ = u64::MAX;
            self.avg_dq_rate_ = 0.0;
        }
        if quiet && self.burst_allowance_ == 0 {
            if self.burst_state == 2 {
                self.burst_state = 1;
                self.burst_reset = 0;
            } else if self.burst_state == 1 {
                self.burst_reset += 1;
                if self.burst_reset > (1.5 / Self::s(t_update)) as u32 {
                    self.burst_reset = 0;
                    self.burst_state = 0;
                }
            }
        } else if self.burst_state == 1 {
            self.burst_reset = 0;
        }
        self.qdelay_old_ = self.current_qdelay;
    }
}
