//! CAKE's deficit-mode shaper (Linux `sch_cake.c`: `cake_set_rate`'s fixed point,
//! `cake_calc_overhead`, `cake_advance_shaper`, the dequeue's watchdog test), one tin.

use super::cake::Cake;
use crate::time::SimTime;

impl Cake {
    /// Linux `cake_calc_overhead` without ATM/PTM framing: the size the shaper charges.
    #[inline]
    pub fn adjusted_len(&self, size: u32) -> u32 {
        match self.params.overhead {
            Some(o) => ((size as i64 + o as i64).max(0) as u32).max(self.params.mpu),
            None => size.max(self.params.mpu),
        }
    }

    /// Linux `cake_advance_shaper` (one tin, egress): charge `len` bytes.
    pub(crate) fn advance_shaper(&mut self, len: u32) {
        if self.rate_ns != 0 {
            let dur = ((len as u64 * self.rate_ns) >> self.rate_shft) as i64;
            self.time_next_packet += dur;
            self.failsafe_next_packet += dur + (dur >> 1);
        }
    }

    /// When the shaper next lets a packet go, if it holds packets back at `now`.
    pub fn wake_at(&self, now: SimTime) -> Option<SimTime> {
        let now_i = now.0 as i64;
        if self.len > 0 && self.rate_ns != 0 && self.time_next_packet > now_i && self.failsafe_next_packet > now_i {
            Some(SimTime(self.time_next_packet.min(self.failsafe_next_packet) as u64))
        } else {
            None
        }
    }
}
