//! Golden per-ACK sequences of TCP Prague, hand-computed from the reference's arithmetic
//! (`tcp_prague.c` v0.7: `prague_update_cwnd`, `prague_update_alpha`, `prague_enter_cwr`,
//! `prague_rate_scaled_ai_ack_increase`). F = 2^20 (one segment of `frac`), A = 2^24 (α = 1).

use super::*;

const F: u64 = 1 << 20;

/// The first CE ever halves frac: an all-CE ACK in slow start leaves it halved, and cwnd
/// steps down one segment per ACK, setting ssthresh (slow start ends). Window init 10, MTU
/// 1500 (the additive increase's MTU factor 1500/1500 = 1):
/// * ACK 2 delivered, 2 CE: frac = (10F + 1) >> 1 = 5 242 880 = 5F; ⌈5⌉ < 10: cwnd 9 = ssthresh.
/// * then 2 delivered, no CE, per ACK: increase = round(2 · F · F / frac):
///   (2F²+frac/2)/frac with frac 5F → 419 430 (0.4 F), frac 5 662 310, ⌈5.4⌉ = 6 < 9: cwnd 8;
///   frac 5 662 310 → +388 362 = 6 050 672, cwnd 7; → +363 435 = 6 414 107, ⌈6.1⌉ = 7 = cwnd;
///   → +342 842 = 6 756 949, cwnd stays 7.
#[test]
fn first_mark_halves_and_cwnd_steps_down_one_per_ack() {
    let mut p = Prague::new(10, 0.025, 1500, 0);
    p.update_cwnd(2, 2);
    assert_eq!((p.frac, p.cwnd, p.ssthresh, p.saw_ce), (5 * F, 9, 9, true));
    let mut got = vec![];
    for _ in 0..4 {
        p.update_cwnd(2, 0);
        got.push((p.frac, p.cwnd, p.ssthresh));
    }
    assert_eq!(got, vec![(5_662_310, 8, 8), (6_050_672, 7, 7), (6_414_107, 7, 7), (6_756_949, 7, 7)]);
}

/// The additive increase is in bytes of MTU_SYS (1500) per round: with the linux stack's
/// default segments (1000 + 40 header + 12 timestamp option = 1052 bytes on the wire) the
/// increase of 419 430 at MTU 1500 becomes ⌊419 430 · 1500 / 1052⌋ = 598 046.
#[test]
fn additive_increase_counts_mtu_sys_bytes() {
    let mut p = Prague::new(10, 0.025, 1052, 0);
    p.update_cwnd(2, 2);
    p.update_cwnd(2, 0);
    assert_eq!(p.frac, 5 * F + 598_046);
}

/// Slow start without marks: cwnd += acked, frac follows cwnd exactly.
#[test]
fn slow_start_grows_cwnd_by_the_segments_acked() {
    let mut p = Prague::new(10, 0.025, 1500, 0);
    for _ in 0..3 {
        p.update_cwnd(2, 0);
    }
    assert_eq!((p.cwnd, p.frac), (16, 16 * F));
    // a mixed ACK in slow start: the halving of the first mark is undone by the slow-start
    // step (frac = cwnd << 20), as the reference
    p.update_cwnd(2, 1);
    assert_eq!((p.cwnd, p.frac, p.saw_ce), (17, 17 * F, true));
}

/// α's EWMA, upscaled by 16 (g = 1/16), once per round, from the CE fraction of the round's
/// delivered segments: 4 of 10: 0 − 0 + ⌊4A/10⌋ = 6 710 886 (α = 419 430 ≈ 0.025 A);
/// 0 of 10: 6 710 886 − 419 430 = 6 291 456 (α 393 216); 20 of 20: 6 291 456 − 393 216 + A
/// = 22 675 456 (α 1 417 216 ≈ 0.0845). Then CWR with frac = 20F: reduction
/// = (α · 20F + A) >> 25 = 885 760 (α/2 · frac exactly here), frac 20 085 760.
#[test]
fn alpha_ewma_per_round_and_the_cwr_reduction() {
    let mut p = Prague::new(10, 0.025, 1500, 0);
    p.saw_ce = true;
    let mut una = 0;
    let mut rounds = vec![];
    for (d, ce) in [(10u64, 4u64), (10, 0), (20, 20)] {
        p.delivered += d;
        p.delivered_ce += ce;
        una += d as i32;
        assert!(p.should_update_ewma(una, 0));
        p.update_alpha(0, una + 10);
        rounds.push((p.upscaled_alpha, p.alpha()));
    }
    assert_eq!(rounds, vec![(6_710_886, 419_430), (6_291_456, 393_216), (22_675_456, 1_417_216)]);
    p.frac = 20 * F;
    p.cwr(1_000_000);
    assert_eq!(p.frac, 20_085_760);
    // not while recovering from a loss (Linux enters CWR only from Open/Disorder)
    p.loss(100);
    let f = p.frac;
    p.cwr(2_000_000_000);
    assert_eq!((f, p.frac), (10_042_880, 10_042_880));
}

/// No α update before the round ends (snd_una past the round's snd_nxt), nor before a first
/// CE (no AQM seen on the path).
#[test]
fn alpha_waits_for_the_round_and_a_first_mark() {
    let mut p = Prague::new(10, 0.025, 1500, 0);
    p.new_round(10);
    assert!(!p.should_update_ewma(9, 0) && p.should_update_ewma(10, 0));
    p.delivered = 10;
    p.update_alpha(0, 20);
    assert_eq!(p.upscaled_alpha, 0);
}

/// The virtual-RTT rule (`RTT_CONTROL_RATE`, rtt_target 25 ms): after 4 rounds out of slow
/// start the per-ACK increase is F · (srtt/25 ms)², srtt in µs·8: 10 ms → round(80 000² F /
/// 200 000²) = 167 772 (0.16 F), 5 ms → 41 943; at or above 25 ms (and above 100 ms) F.
/// cwnd then grows 0.16 segment per 10 ms round: the rate grows 0.16/0.01² = 1600
/// segments/s², as a 25 ms flow's 1/0.025² = 1600.
#[test]
fn virtual_rtt_scales_the_additive_increase() {
    let mut p = Prague::new(10, 0.025, 1500, 0);
    p.ssthresh = 10; // out of slow start
    let ai = |p: &mut Prague, srtt_ms: u64| {
        p.srtt8 = srtt_ms * 8000;
        p.update_ai();
        p.ai
    };
    p.round = 3;
    assert_eq!(ai(&mut p, 10), F, "no scaling before 4 rounds");
    p.round = 4;
    assert_eq!([ai(&mut p, 10), ai(&mut p, 5), ai(&mut p, 25), ai(&mut p, 40), ai(&mut p, 150)], [167_772, 41_943, F, F, F]);
    let mut off = Prague::new(10, 0.0, 1500, 0);
    off.round = 9;
    assert_eq!(ai(&mut off, 10), F, "prague_rtt_target = 0: no RTT independence");
}

/// Loss: frac halves, no growth until the loss is repaired, cwnd steps down to it.
#[test]
fn loss_halves_frac_and_holds_growth() {
    let mut p = Prague::new(10, 0.025, 1500, 0);
    p.ssthresh = 10;
    p.loss(30);
    assert_eq!((p.frac, p.in_loss), (5 * F, true));
    p.update_cwnd(2, 0);
    assert_eq!((p.frac, p.cwnd), (5 * F, 9));
}

/// Pacing (`prague_update_pacing_rate`, fractional mode): MSS · max(⌊frac⌋, in flight) / srtt,
/// doubled while cwnd < ssthresh / 2. frac 20.5F, 12 segments in flight, srtt 10 ms, MSS
/// 1000: 20 · 8000 bit / 0.01 s = 16 Mb/s; 30 in flight: 24 Mb/s; in slow start (ssthresh
/// unset, cwnd 10 < ∞/2): doubled. No rate before an RTT sample.
#[test]
fn pacing_rate_from_the_fractional_window() {
    let mut p = Prague::new(10, 0.025, 1500, 0);
    p.frac = 20 * F + F / 2;
    assert_eq!(p.pacing_rate(1000, 12_000, 10_000_000), Some(32e6));
    p.ssthresh = 20;
    assert_eq!(p.pacing_rate(1000, 12_000, 10_000_000), Some(16e6));
    assert_eq!(p.pacing_rate(1000, 30_000, 10_000_000), Some(24e6));
    assert_eq!(p.pacing_rate(1000, 30_000, 0), None);
}

/// The Classic ECN AQM detector's score shares α's scale (the fall-back compares them).
#[test]
fn the_classic_detector_scores_on_alphas_scale() {
    assert_eq!(super::super::prague_classic::ALPHA_BITS, super::ALPHA_BITS);
    assert_eq!(super::super::prague_classic::MAX_ALPHA, super::MAX_ALPHA);
}
