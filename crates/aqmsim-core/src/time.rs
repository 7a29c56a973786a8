//! Simulated time: integer nanoseconds.
//!
//! `f64` clocks drift (0.1 + 0.2 != 0.3) and make tie-breaking depend on rounding; integer
//! nanoseconds are exact for every rate and delay the papers use and order events the same
//! way on every machine. A `u64` of nanoseconds covers 584 years of simulated time.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in simulated time, in nanoseconds since the start of the run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dur(pub u64);

pub const NS_PER_SEC: u64 = 1_000_000_000;

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    /// Seconds as `f64` (for reporting and for the float arithmetic of AQMs).
    #[inline]
    pub fn secs(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Nearest nanosecond to `s` seconds (negative values clamp to zero).
    #[inline]
    pub fn from_secs(s: f64) -> SimTime {
        SimTime(secs_to_ns(s))
    }
    /// Time elapsed since `earlier`; panics if `earlier` is later (a logic error).
    #[inline]
    pub fn since(self, earlier: SimTime) -> Dur {
        assert!(self >= earlier, "SimTime::since: {earlier} is after {self}");
        Dur(self.0 - earlier.0)
    }
    #[inline]
    pub fn saturating_since(self, earlier: SimTime) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    pub const ZERO: Dur = Dur(0);
    pub const fn from_nanos(n: u64) -> Dur {
        Dur(n)
    }
    pub const fn from_micros(n: u64) -> Dur {
        Dur(n * 1_000)
    }
    pub const fn from_millis(n: u64) -> Dur {
        Dur(n * 1_000_000)
    }
    pub fn from_secs(s: f64) -> Dur {
        Dur(secs_to_ns(s))
    }
    #[inline]
    pub fn secs(self) -> f64 {
        self.0 as f64 * 1e-9
    }
}

#[inline]
fn secs_to_ns(s: f64) -> u64 {
    if s <= 0.0 || s.is_nan() {
        0
    } else {
        round_positive(s * NS_PER_SEC as f64)
    }
}

/// `x.round() as u64` for `x >= 0` (halves away from zero), without the call into libm
/// that `f64::round` costs on baseline x86-64; exact below 2^53 (and saturating above, as
/// the cast is).
#[inline]
pub fn round_positive(x: f64) -> u64 {
    let t = x as u64;
    if x - t as f64 >= 0.5 {
        t + 1
    } else {
        t
    }
}

impl Add<Dur> for SimTime {
    type Output = SimTime;
    #[inline]
    fn add(self, d: Dur) -> SimTime {
        SimTime(self.0.checked_add(d.0).expect("SimTime overflow"))
    }
}
impl AddAssign<Dur> for SimTime {
    #[inline]
    fn add_assign(&mut self, d: Dur) {
        *self = *self + d;
    }
}
impl Sub<SimTime> for SimTime {
    type Output = Dur;
    #[inline]
    fn sub(self, o: SimTime) -> Dur {
        self.since(o)
    }
}
impl Add for Dur {
    type Output = Dur;
    #[inline]
    fn add(self, o: Dur) -> Dur {
        Dur(self.0 + o.0)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.secs())
    }
}
impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.secs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_positive_matches_round() {
        for x in [0.0, 0.4999999999999999, 0.5, 1.5, 2.5, 83199.5, 83200.49999, 1e15 + 0.5, 6.0e10 + 0.25, 12345.678] {
            assert_eq!(round_positive(x), x.round() as u64, "{x}");
        }
    }

    #[test]
    fn constructors_and_display() {
        assert_eq!(Dur::from_millis(20), Dur(20_000_000));
        assert_eq!(Dur::from_secs(0.002), Dur::from_millis(2));
        assert_eq!(SimTime::from_secs(1.5).0, 1_500_000_000);
        assert_eq!(format!("{}", SimTime(1_500_000_000)), "1.500000000s");
        assert_eq!(Dur::from_secs(-1.0), Dur::ZERO);
    }

    #[test]
    fn arithmetic_is_exact() {
        let t = SimTime::ZERO + Dur::from_millis(100) + Dur::from_millis(200);
        assert_eq!(t, SimTime::from_secs(0.3));
        assert_eq!(t - SimTime::from_secs(0.1), Dur::from_millis(200));
    }

    #[test]
    #[should_panic(expected = "is after")]
    fn underflow_panics_with_message() {
        let _ = SimTime(1) - SimTime(2);
    }
}
