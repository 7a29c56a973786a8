//! TCP Prague's detection of a Classic ECN AQM, and its fall-back
//! (`tcp.prague_ecn_fallback`): RFC 9331 §4.3 asks an L4S sender to detect a bottleneck
//! that marks ECT(1) as a Classic (RFC 3168) AQM would, and to respond there as a Classic
//! sender. v0.7 of the L4S team's `tcp_prague.c` (the control this stack follows) has no
//! such detector; v0.6 had one, added here as it was there (`prague_classic_ecn_detection`,
//! `prague_rtt_estimator`, `prague_update_rtt_scaling` and `prague_classic_ecn_fallback`;
//! module parameter `prague_ecn_fallback`: 0 none, 1 detection and fall-back, 2 detection
//! only), in its integer arithmetic:
//!
//! * A slow RTT average and mean deviation (`srtt_pace`, `mdev_pace`) of every ACK's RTT
//!   sample (the newest segment it delivers, µs), with gains 1/2^g and 1/2^(g+1):
//!   g = min(⌊lg ssthresh⌋ · 3/2 + 1, 18), set each time the sender asks the control for
//!   ssthresh (entering CWR or loss recovery); the averages are rescaled when g changes.
//! * Once per round, after a first CE: a score (24 fractional bits, as α) gains
//!   ½·lg(mdev / 750 µs) + ½·lg(max(depth / 2 ms, 1)), depth = the average RTT less the
//!   minimum RTT; each logarithm is an integer one of the value times a geometric carry from
//!   the round before (a dither that makes the average exact). The score stays in [0, 17]:
//!   below 8 the path is L4S, above 9 Classic, between a transition.
//! * Fall-back (mode 1), on entering CWR: α is at least 0.625 · (min(score, 9) − 8), so a
//!   Classic AQM's marks cut the window by up to ~31 % (0.625 / 2) a round, where α alone
//!   would cut it a few percent.
//!
//! v0.6 was written for α with 20 fractional bits; its constants (reference queue
//! deviation 750 µs, depth 2 ms, the sticky bounds) are scaled here to v0.7's 24. The
//! minimum RTT is the smallest sample of the run (Linux's is a 300 s window).

/// The fixed point of Prague's α (24 fractional bits; `prague.rs` uses these), which the
/// score shares so that the fall-back compares them directly.
pub const ALPHA_BITS: u32 = 24;
pub const MAX_ALPHA: u64 = 1 << ALPHA_BITS;

const MAX_SRTT_BITS: u32 = 18;
const MAX_MDEV_BITS: u32 = MAX_SRTT_BITS + 1;
/// 2^(MAX_MDEV_BITS + 0.5), the geometric carry's start.
const INIT_MDEV_CARRY: u64 = 741_455;
/// 2^(MAX_MDEV_BITS − 1), the unbiasing adjustment of the integer logarithm.
const INIT_ADJ_US: u64 = 262_144;
/// Weights ½ (1/2^V, 1/2^D).
const V: u32 = 1;
const D: u32 = 1;
/// Pure L4S below, transition up to `CLASSIC_ECN`, pure Classic at `C_STICKY`.
pub const L_STICKY: u64 = 16 << (ALPHA_BITS - V);
pub const CLASSIC_ECN: u64 = L_STICKY + MAX_ALPHA;
pub const C_STICKY: u64 = CLASSIC_ECN + L_STICKY;
/// lg(750 µs) and lg(2000 µs) with v0.6's 20 fractional bits (10 014 683 and 11 498 458),
/// scaled to 24, times the weights.
const V0_LG: u64 = (10_014_683 << (ALPHA_BITS - 20)) >> V;
const D0_LG: u64 = (11_498_458 << (ALPHA_BITS - 20)) >> D;

#[derive(Clone, Debug)]
pub struct ClassicDetector {
    /// `prague_ecn_fallback`: 1 detection and fall-back, 2 detection only (0 is no detector).
    pub mode: u8,
    srtt_pace: u64,
    mdev_pace: u64,
    g_srtt: u32,
    g_mdev: u32,
    rest_mdev: u64,
    rest_depth: u64,
    min_rtt_us: u64,
    /// The score (`tp->classic_ecn`), 24 fractional bits.
    pub score: u64,
    /// Rounds scored, and those that ended past the L4S region (the fall-back's).
    pub rounds: u64,
    pub classic_rounds: u64,
}

impl ClassicDetector {
    /// `prague_init`'s part: the slow averages start from the smoothed RTT (µs, 0: none).
    pub fn new(mode: u8, srtt_us: u64) -> ClassicDetector {
        ClassicDetector {
            mode,
            srtt_pace: srtt_us << MAX_SRTT_BITS,
            mdev_pace: 1 << MAX_MDEV_BITS,
            g_srtt: MAX_SRTT_BITS,
            g_mdev: MAX_MDEV_BITS,
            rest_mdev: INIT_MDEV_CARRY,
            rest_depth: INIT_MDEV_CARRY >> 1,
            min_rtt_us: u64::MAX,
            score: 0,
            rounds: 0,
            classic_rounds: 0,
        }
    }

    /// `prague_rtt_estimator`: an ACK's RTT sample, µs.
    pub fn rtt_sample(&mut self, m_us: u64) {
        self.min_rtt_us = self.min_rtt_us.min(m_us);
        let m = m_us as i64;
        if self.srtt_pace != 0 {
            let err = m - (self.srtt_pace >> self.g_srtt) as i64;
            self.srtt_pace = (self.srtt_pace as i64 + err) as u64;
            let dev = err.abs() - (self.mdev_pace >> self.g_mdev) as i64;
            self.mdev_pace = (self.mdev_pace as i64 + dev) as u64;
        } else {
            self.srtt_pace = m_us << self.g_srtt;
            self.mdev_pace = 1 << self.g_mdev;
        }
        self.srtt_pace = self.srtt_pace.max(1);
    }

    /// `prague_update_rtt_scaling`: the gains follow ssthresh (segments).
    pub fn rtt_scaling(&mut self, ssthresh: u32) {
        let lg = ssthresh.max(1).ilog2();
        let g = (lg + (lg >> 1) + 1).min(MAX_SRTT_BITS);
        let old = self.g_srtt;
        self.g_srtt = g;
        self.g_mdev = g + 1;
        // the averages and carries keep their values in the new scale
        let rescale = |v: u64| if g >= old { v << (g - old) } else { v >> (old - g) };
        for v in [&mut self.srtt_pace, &mut self.mdev_pace, &mut self.rest_depth, &mut self.rest_mdev] {
            *v = rescale(*v);
        }
    }

    /// `prague_classic_ecn_detection`, once per round after a first CE.
    pub fn round(&mut self) {
        let srtt = self.srtt_pace >> self.g_srtt;
        if srtt == 0 || self.min_rtt_us == u64::MAX {
            return;
        }
        let adj = INIT_ADJ_US >> (MAX_MDEV_BITS - self.g_mdev);
        let mut score = self.score as i64;
        let mdev = (self.mdev_pace >> self.g_mdev) * self.rest_mdev + adj;
        let mdev_lg = mdev.max(1).ilog2().max(self.g_mdev) - self.g_mdev;
        self.rest_mdev = mdev >> mdev_lg;
        score += ((mdev_lg as i64) << (ALPHA_BITS - V)) - V0_LG as i64;
        if srtt > self.min_rtt_us {
            let depth = (srtt - self.min_rtt_us) * self.rest_depth + (adj >> 1);
            let depth_lg = depth.max(1).ilog2().max(self.g_srtt) - self.g_srtt;
            self.rest_depth = depth >> depth_lg;
            let weighted = (depth_lg as u64) << (ALPHA_BITS - D);
            if weighted > D0_LG {
                score += (weighted - D0_LG) as i64;
            }
        }
        self.score = score.clamp(0, C_STICKY as i64) as u64;
        self.rounds += 1;
        self.classic_rounds += self.classic() as u64;
    }

    /// `prague_classic_ecn_fallback` (mode 1, past the L4S region): the α a CWR uses.
    pub fn alpha(&self, alpha: u64) -> u64 {
        if self.mode != 1 || !self.classic() {
            return alpha;
        }
        let c = self.score.min(CLASSIC_ECN) - L_STICKY;
        alpha.max((c >> 1) + (c >> 3))
    }

    /// The path looks Classic (the score past the L4S region).
    pub fn classic(&self) -> bool {
        self.score > L_STICKY
    }

    #[cfg(test)]
    pub fn set_averages(&mut self, srtt_us: u64, mdev_us: u64, min_rtt_us: u64) {
        self.srtt_pace = srtt_us << self.g_srtt;
        self.mdev_pace = mdev_us << self.g_mdev;
        self.min_rtt_us = min_rtt_us;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path without queue: RTT samples all 10 ms. mdev decays from its 1 µs start and
    /// depth is 0: the score never leaves 0.
    #[test]
    fn a_steady_rtt_keeps_the_score_at_zero() {
        let mut d = ClassicDetector::new(1, 10_000);
        for _ in 0..20 {
            for _ in 0..50 {
                d.rtt_sample(10_000);
            }
            d.round();
            assert_eq!(d.score, 0);
        }
        assert_eq!(d.alpha(1000), 1000);
    }

    /// Two rounds by hand: ssthresh 50 segments (⌊lg 50⌋ = 5: g = 5 + 2 + 1 = 8, mdev's 9;
    /// the carries 741 455 and 370 727 shifted down by 10 to 724 and 362), average RTT
    /// 20 ms, deviation 3 ms, minimum 10 ms (adj = 262 144 >> 10 = 256).
    /// Round 1: mdev 3000 · 724 + 256 = 2 172 256, ⌊lg⌋ 21 − 9 = 12, carry 530;
    /// + 12·2^23 − V0 (80 117 464) = 20 545 832. depth 10 000 · 362 + 128 = 3 620 128,
    /// ⌊lg⌋ 21 − 8 = 13, carry 441; + 13·2^23 − D0 (91 987 664) = 17 064 240. Score
    /// 37 610 072. Round 2: 3000 · 530 + 256 = 1 590 256 → 11, + 12 157 224;
    /// 10 000 · 441 + 128 = 4 410 128 → 14, + 25 452 848. Score 75 220 144.
    #[test]
    fn two_rounds_by_hand() {
        let mut d = ClassicDetector::new(1, 20_000);
        d.rtt_scaling(50);
        assert_eq!((d.g_srtt, d.g_mdev, d.rest_mdev, d.rest_depth), (8, 9, 724, 362));
        d.set_averages(20_000, 3000, 10_000);
        d.round();
        assert_eq!((d.score, d.rest_mdev, d.rest_depth), (37_610_072, 530, 441));
        d.round();
        assert_eq!(d.score, 75_220_144);
    }

    /// Past L_STICKY (8.0) the fall-back floors α at 0.625 · (score − 8), capped at score 9;
    /// detection only (mode 2) leaves α alone.
    #[test]
    fn fallback_floors_alpha_past_the_l4s_region() {
        let mut d = ClassicDetector::new(1, 10_000);
        d.score = L_STICKY;
        assert_eq!(d.alpha(5), 5);
        d.score = L_STICKY + MAX_ALPHA / 2;
        assert_eq!(d.alpha(5), (MAX_ALPHA / 4) + (MAX_ALPHA / 16));
        d.score = C_STICKY;
        assert_eq!(d.alpha(5), (MAX_ALPHA >> 1) + (MAX_ALPHA >> 3));
        d.mode = 2;
        assert_eq!(d.alpha(5), 5);
        assert!(d.classic());
    }

    /// The gains follow ssthresh: 2^24 segments (or unset) caps g at 18; 1 gives 1.
    #[test]
    fn gains_follow_ssthresh() {
        let mut d = ClassicDetector::new(1, 10_000);
        d.rtt_scaling(u32::MAX);
        assert_eq!((d.g_srtt, d.g_mdev), (18, 19));
        d.rtt_scaling(1);
        assert_eq!((d.g_srtt, d.g_mdev, d.srtt_pace >> d.g_srtt), (1, 2, 10_000));
    }
}
