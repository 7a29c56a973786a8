//! Rates, times and distributions as they are written in scenario files.

use serde::{Deserialize, Serialize};

// The ranges every scenario value must lie in, so that every time the engine derives
// from them fits its integer nanoseconds (u64, 1.8e19 ns) with a wide margin: a time
// (≤ 1e15 ns) plus a delay (≤ 1e15 ns) plus a transmission (≤ 1.05e15 ns) stays far below
// the limit, and below 2^53 ns, where f64 seconds still convert to exact nanoseconds.

/// Longest time any field may give, seconds (about 11.6 days).
pub const MAX_TIME_S: f64 = 1e6;
/// Slowest rate, bits/s: the largest packet on the wire (2 × 65 535 bytes) then takes
/// about 1.05e6 s, still a representable time.
pub const MIN_RATE_BPS: f64 = 1.0;
/// Fastest rate, bits/s (1 Tb/s).
pub const MAX_RATE_BPS: f64 = 1e12;
/// Largest packet, header or ACK size, bytes (the largest IP datagram).
pub const MAX_PACKET_BYTES: u32 = 65_535;
/// Largest advertised or initial window, packets (defined with the TCP parameters).
pub use crate::tcp::params::MAX_WINDOW;

/// A number (SI base unit) or a string with a unit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Quantity {
    Num(f64),
    Text(String),
}

fn split_unit(s: &str) -> (f64, String) {
    let s = s.trim();
    let idx = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
        .unwrap_or(s.len());
    // 'e' may start a unit only if no digit follows; the units we accept never start with e.
    let (num, unit) = s.split_at(idx);
    (num.parse::<f64>().unwrap_or(f64::NAN), unit.trim().to_string())
}

/// Bits per second from `"10Mb"`, `"1.5Mbps"`, `"100Kb"`, `"1Gb"`, `"1Tb"` or a number.
pub fn parse_rate(q: &Quantity) -> Result<f64, String> {
    let v = match q {
        Quantity::Num(v) => *v,
        Quantity::Text(s) => {
            let (n, u) = split_unit(s);
            let mult = match u.as_str() {
                "" | "b" | "bps" | "bit" => 1.0,
                "k" | "K" | "kb" | "Kb" | "kbps" | "Kbps" => 1e3,
                "M" | "m" | "Mb" | "mb" | "Mbps" | "mbps" => 1e6,
                "G" | "g" | "Gb" | "gb" | "Gbps" | "gbps" => 1e9,
                "T" | "t" | "Tb" | "tb" | "Tbps" | "tbps" => 1e12,
                _ => return Err(format!("unknown rate unit in {s:?} (use b, Kb, Mb, Gb, Tb, e.g. \"10Mb\")")),
            };
            n * mult
        }
    };
    if !(v.is_finite() && (MIN_RATE_BPS..=MAX_RATE_BPS).contains(&v)) {
        return Err(format!("must be a rate in [1 b/s, 1 Tb/s] (1 to 1e12 b/s), got {}", show(q)));
    }
    Ok(v)
}

/// Seconds from `"20ms"`, `"1.5s"`, `"500us"` or a number.
pub fn parse_time(q: &Quantity) -> Result<f64, String> {
    let v = match q {
        Quantity::Num(v) => *v,
        Quantity::Text(s) => {
            let (n, u) = split_unit(s);
            let mult = match u.as_str() {
                "" | "s" | "sec" => 1.0,
                "ms" => 1e-3,
                "us" | "µs" => 1e-6,
                "ns" => 1e-9,
                _ => return Err(format!("unknown time unit in {s:?} (use s, ms, us, ns, e.g. \"20ms\")")),
            };
            n * mult
        }
    };
    if !(v.is_finite() && (0.0..=MAX_TIME_S).contains(&v)) {
        return Err(format!("must be a time in [0, 1e6] s (at most about 11.6 days), got {}", show(q)));
    }
    Ok(v)
}

pub fn show(q: &Quantity) -> String {
    match q {
        Quantity::Num(v) if *v != 0.0 && !(1e-4..1e7).contains(&v.abs()) => format!("{v:e}"),
        Quantity::Num(v) => format!("{v}"),
        Quantity::Text(s) => format!("{s:?}"),
    }
}

/// A fixed time or `{ uniform = [lo, hi] }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Dist {
    Fixed(Quantity),
    Uniform(UniformSpec),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UniformSpec {
    pub uniform: [Quantity; 2],
}

/// A resolved distribution, seconds.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TimeDist {
    Fixed(f64),
    Uniform(f64, f64),
}

impl TimeDist {
    pub fn draw(self, rng: &mut crate::rng::Rng) -> f64 {
        match self {
            TimeDist::Fixed(v) => v,
            TimeDist::Uniform(lo, hi) => rng.uniform_range(lo, hi),
        }
    }
}

pub fn parse_dist(d: &Dist) -> Result<TimeDist, String> {
    match d {
        Dist::Fixed(q) => Ok(TimeDist::Fixed(parse_time(q)?)),
        Dist::Uniform(u) => {
            let lo = parse_time(&u.uniform[0])?;
            let hi = parse_time(&u.uniform[1])?;
            if lo > hi {
                return Err(format!("uniform range needs lo ≤ hi, got [{lo}, {hi}]"));
            }
            Ok(TimeDist::Uniform(lo, hi))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_times() {
        assert_eq!(parse_rate(&Quantity::Text("10Mb".into())).unwrap(), 10e6);
        assert_eq!(parse_rate(&Quantity::Text("1.5Mbps".into())).unwrap(), 1.5e6);
        assert_eq!(parse_rate(&Quantity::Text("0.7Mb".into())).unwrap(), 0.7e6);
        assert_eq!(parse_rate(&Quantity::Num(64000.0)).unwrap(), 64000.0);
        assert!(parse_rate(&Quantity::Num(-1.0)).is_err());
        assert!(parse_rate(&Quantity::Text("10Mq".into())).is_err());
        assert_eq!(parse_time(&Quantity::Text("20ms".into())).unwrap(), 0.02);
        assert_eq!(parse_time(&Quantity::Text("1.5s".into())).unwrap(), 1.5);
        assert!(parse_time(&Quantity::Num(-0.1)).is_err());
        assert!(parse_time(&Quantity::Num(1e12)).is_err());
        assert!(parse_time(&Quantity::Num(1e6)).is_ok());
        assert!(parse_rate(&Quantity::Num(1e-9)).is_err());
        assert!(parse_rate(&Quantity::Num(1e15)).is_err());
        assert!(parse_rate(&Quantity::Text("1000Gb".into())).is_ok());
    }
}
