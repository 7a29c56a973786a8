//! BBR's bottleneck-bandwidth filter as ns-3.37's `WindowedFilter<DataRate, MaxFilter, …>`
//! (`windowed-filter.h`, Kathleen Nichols' algorithm as QUIC wrote it): the best three
//! samples of a window of rounds. Where it is not Linux's `minmax`:
//!
//! * the value it is built with is its "zero value": `TcpBbr::InitPacingRate` builds it with
//!   the nominal bandwidth IW / RTT, so that is the best estimate until the first update —
//!   which then *replaces* it whatever the sample (a lower delivery rate included), as does
//!   any later update while the best estimate still equals it;
//! * `Compare` is ≥, but false when either side is 0;
//! * the sub-window steps test the samples' *values* for equality and count the time from
//!   the second (third) sample, with window / 4 and window / 2 as integer shifts.

#[derive(Clone, Debug, Default)]
pub struct MaxFilter {
    /// (round, bit/s), best first.
    s: [(u64, f64); 3],
    zero: f64,
}

fn better(a: f64, b: f64) -> bool {
    a != 0.0 && b != 0.0 && a >= b
}

impl MaxFilter {
    /// ns-3's constructor: every sample is `zero` at round `t`.
    pub fn new(t: u64, zero: f64) -> MaxFilter {
        MaxFilter { s: [(t, zero); 3], zero }
    }

    pub fn best(&self) -> f64 {
        self.s[0].1
    }

    fn reset(&mut self, t: u64, v: f64) {
        self.s = [(t, v); 3];
    }

    pub fn update(&mut self, t: u64, v: f64, win: u64) {
        if self.s[0].1 == self.zero || better(v, self.s[0].1) || t.wrapping_sub(self.s[2].0) > win {
            return self.reset(t, v);
        }
        if better(v, self.s[1].1) {
            self.s[1] = (t, v);
            self.s[2] = self.s[1];
        } else if better(v, self.s[2].1) {
            self.s[2] = (t, v);
        }
        if t.wrapping_sub(self.s[0].0) > win {
            self.s = [self.s[1], self.s[2], (t, v)];
            if t.wrapping_sub(self.s[0].0) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
            }
            return;
        }
        if self.s[1].1 == self.s[0].1 && t.wrapping_sub(self.s[1].0) > win >> 2 {
            self.s[1] = (t, v);
            self.s[2] = (t, v);
            return;
        }
        if self.s[2].1 == self.s[1].1 && t.wrapping_sub(self.s[2].0) > win >> 1 {
            self.s[2] = (t, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nominal_value_is_replaced_by_the_first_sample_even_a_lower_one() {
        let mut f = MaxFilter::new(0, 1.8e6);
        assert_eq!(f.best(), 1.8e6);
        f.update(0, 0.9e6, 10);
        assert_eq!(f.best(), 0.9e6, "ns-3: the zero value never survives an update");
        f.update(1, 0.5e6, 10);
        assert_eq!(f.best(), 0.9e6, "then the max of the window");
        f.update(2, 2.0e6, 10);
        assert_eq!(f.best(), 2.0e6);
    }

    #[test]
    fn the_best_expires_after_the_window() {
        let mut f = MaxFilter::new(0, 0.0);
        f.update(0, 10.0, 10);
        for r in 1..=10 {
            f.update(r, 5.0, 10);
            assert_eq!(f.best(), 10.0, "round {r}");
        }
        f.update(11, 4.0, 10);
        assert_eq!(f.best(), 5.0, "the second best, from a later sub-window");
    }
}
