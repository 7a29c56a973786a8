//! UDP sources: CBR (`app = "cbr"`, evenly spaced packets or bursts of them) and on/off
//! (`app = "onoff"`, [`super::onoff`]), one agent with the pacing of either.

use super::onoff::OnOff;
use crate::time::Dur;

/// When a UDP source sends.
pub enum Pacing {
    /// `burst` packets back to back every `interval`.
    Even {
        interval: Dur,
        /// The interval in seconds as ns-2 computes it (packet traces' clock).
        interval_s: f64,
        burst: u32,
    },
    /// One packet at a time, gaps from the on/off source's draws.
    OnOff(Box<OnOff>),
}

/// A UDP source and what its receiver counted.
pub struct Cbr {
    pub size: u32,
    pub pacing: Pacing,
    pub running: bool,
    pub sent: u64,
    pub received: u64,
    pub received_bytes: u64,
    pub delay_sum_ns: f64,
}

impl Cbr {
    pub fn new(size: u32, pacing: Pacing) -> Cbr {
        Cbr { size, pacing, running: false, sent: 0, received: 0, received_bytes: 0, delay_sum_ns: 0.0 }
    }

    /// CBR: `burst` packets of `size` bytes every `burst · size · 8 / rate_bps` s.
    pub fn even(rate_bps: f64, size: u32, burst: u32) -> Cbr {
        let interval_s = burst as f64 * size as f64 * 8.0 / rate_bps;
        Cbr::new(size, Pacing::Even { interval: Dur::from_secs(interval_s), interval_s, burst })
    }

    /// An on/off source.
    pub fn onoff(o: OnOff) -> Cbr {
        Cbr::new(o.model.packet_size, Pacing::OnOff(Box::new(o)))
    }

    pub fn is_onoff(&self) -> bool {
        matches!(self.pacing, Pacing::OnOff(_))
    }

    /// Packets sent at each sending instant.
    pub fn burst(&self) -> u32 {
        match &self.pacing {
            Pacing::Even { burst, .. } => *burst,
            Pacing::OnOff(_) => 1,
        }
    }

    /// The time to the next sending instant, as a `Dur` and in seconds (ns-2's clock).
    pub fn next_gap(&mut self) -> (Dur, f64) {
        match &mut self.pacing {
            Pacing::Even { interval, interval_s, .. } => (*interval, *interval_s),
            Pacing::OnOff(o) => {
                let g = o.next_gap();
                (Dur::from_secs(g), g)
            }
        }
    }
}
