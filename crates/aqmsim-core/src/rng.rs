//! Random numbers: one master seed, an independent stream per component.
//!
//! Each component (a flow's start time, a RED queue's drop coin, a link's delay draw) gets
//! its own generator seeded from `(master seed, stream id)` through SplitMix64, so adding a
//! flow never shifts the draws of another component. The generator is xoshiro256++
//! (Blackman & Vigna), small, fast and of good statistical quality.

/// Stream identifiers are namespaced so two kinds of component never share a stream.
pub mod stream {
    pub const TOPOLOGY: u64 = 1 << 40;
    pub const FLOW_START: u64 = 2 << 40;
    pub const QUEUE: u64 = 3 << 40;
    pub const TCP: u64 = 4 << 40;
    pub const APP: u64 = 5 << 40;
    /// A web source's start, transfer arrivals and sizes (drawn when the scenario is built).
    pub const WEB: u64 = 6 << 40;
    /// An on/off source's bursts and idle times (drawn as it runs).
    pub const ONOFF: u64 = 7 << 40;
}

#[inline]
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// xoshiro256++ generator.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// The generator for stream `stream` of master seed `seed`.
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut a = seed;
        let mut b = stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mut st = splitmix64(&mut a) ^ splitmix64(&mut b).rotate_left(17);
        let mut s = [0u64; 4];
        for w in &mut s {
            *w = splitmix64(&mut st);
        }
        if s == [0; 4] {
            s[0] = 1;
        }
        Rng { s }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    #[inline]
    pub fn uniform_range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_same_draws() {
        let mut a = Rng::new(7, stream::QUEUE | 3);
        let mut b = Rng::new(7, stream::QUEUE | 3);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn streams_and_seeds_differ() {
        let mut a = Rng::new(7, stream::QUEUE | 3);
        let mut b = Rng::new(7, stream::QUEUE | 4);
        let mut c = Rng::new(8, stream::QUEUE | 3);
        let xa: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        assert_ne!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn uniform_is_in_unit_interval_with_mean_half() {
        let mut r = Rng::new(1, 0);
        let n = 100_000;
        let mut sum = 0.0;
        for _ in 0..n {
            let u = r.uniform();
            assert!((0.0..1.0).contains(&u));
            sum += u;
        }
        assert!((sum / n as f64 - 0.5).abs() < 0.01);
    }
}
