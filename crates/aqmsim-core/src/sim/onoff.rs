//! On/off UDP sources (`app = "onoff"`) with ns-2's `Application/Traffic/Exponential` and
//! `/Pareto` semantics (`tools/expoo.cc`, `tools/pareto.cc`): within a burst, packets
//! `interval = packet_size·8/rate` apart; a burst's length in packets is drawn from the
//! on distribution's kind with mean `on / interval`, rounded to the nearest integer, at
//! least 1; after its last packet the source waits `interval` plus an off time. The first
//! draw happens at the start, so the first packet comes an interval plus an off time after
//! it (ns-2's `TrafficGenerator::start`). A fixed on time gives bursts of exactly
//! `round(on / interval)` packets. The draws come from the flow's own stream
//! (`rng::stream::ONOFF`), so a run is the same for the same seed.

use crate::rng::Rng;
use crate::scenario::traffic::OnOffModel;

/// An on/off source's state.
#[derive(Clone, Debug)]
pub struct OnOff {
    pub model: OnOffModel,
    /// Packets left in the current burst (ns-2 `rem_`).
    rem: u64,
    rng: Rng,
}

impl OnOff {
    pub fn new(model: OnOffModel, rng: Rng) -> OnOff {
        OnOff { model, rem: 0, rng }
    }

    /// Seconds from the packet just sent (or the start) to the next one (ns-2
    /// `next_interval`).
    pub fn next_gap(&mut self) -> f64 {
        let interval = self.model.interval();
        let mut t = interval;
        if self.rem == 0 {
            let burst = self.model.on.draw_scaled(self.model.on.mean() / interval, &mut self.rng);
            self.rem = ((burst + 0.5) as u64).max(1);
            t += self.model.off.draw(&mut self.rng);
        }
        self.rem -= 1;
        // a heavy-tailed draw may exceed any time the engine can hold; past the longest
        // scenario time it makes no difference (the run has ended)
        t.min(crate::scenario::units::MAX_TIME_S)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::traffic::PeriodDist;

    fn source(on: PeriodDist, off: PeriodDist) -> OnOff {
        let m = OnOffModel { rate_bps: 1e6, packet_size: 1000, on, off };
        OnOff::new(m, Rng::new(1, crate::rng::stream::ONOFF))
    }

    #[test]
    fn fixed_periods_give_ns2_bursts() {
        // interval 8 ms; on 100 ms: int(12.5 + 0.5) = 13 packets; off 400 ms
        let mut s = source(PeriodDist::Fixed(0.1), PeriodDist::Fixed(0.4));
        let gaps: Vec<f64> = (0..27).map(|_| s.next_gap()).collect();
        for (i, g) in gaps.iter().enumerate() {
            let want = if i % 13 == 0 { 0.408 } else { 0.008 };
            assert!((g - want).abs() < 1e-12, "gap {i}: {g}");
        }
    }

    #[test]
    fn heavy_tails_stay_representable() {
        let mut s = source(PeriodDist::Pareto { mean: 1e5, shape: 1.0001 }, PeriodDist::Pareto { mean: 1e6, shape: 1.0001 });
        for _ in 0..100_000 {
            let g = s.next_gap();
            assert!(g > 0.0 && g <= crate::scenario::units::MAX_TIME_S);
        }
    }
}
