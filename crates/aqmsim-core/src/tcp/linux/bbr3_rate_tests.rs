//! What BBR v3 reads from the rate sampler (`rate.rs`): `P.tx_in_flight`, `C.lost − P.lost`,
//! `RS.rtt` and the draft's per-ACK sample; and the extra_acked round filter.

use super::rate::RateSampler;
use crate::time::{Dur, SimTime};

const MS: u64 = 1_000_000;
const MSS: u32 = 1000;

/// The rate sampler's BBR v3 fields: P.tx_in_flight, C.lost − P.lost, the RTT of the
/// newest segment delivered that was not retransmitted.
#[test]
fn rate_sampler_records_tx_in_flight_lost_and_rtt() {
    let t = |ms: u64| SimTime(ms * MS);
    let mut r = RateSampler::new();
    for s in 0..4 {
        r.on_sent_in_flight(s, t(s as u64), s == 0, (s as u32 + 1) * MSS);
    }
    r.lost_total = 1000; // segment 0 marked lost
    r.on_sent_in_flight(0, t(10), false, 4 * MSS); // its retransmission
    r.on_delivered(2, MSS, t(50));
    r.on_delivered(3, MSS, t(51));
    let rs = r.generate_sample(2000, 1000, 4000, Dur(0)).clone();
    // the newest delivered (3) left with 4 000 in flight and C.lost 0
    assert_eq!((rs.tx_in_flight, rs.lost, rs.newly_lost), (4000, 1000, 1000));
    assert_eq!(rs.rtt_ns, 48 * MS, "51 − 3 ms: the newest segment's");
    // the retransmitted segment gives no RTT sample
    r.on_cum_ack(1, MSS, t(70));
    let rs = r.generate_sample(1000, 0, 3000, Dur(0)).clone();
    assert_eq!((rs.rtt_ns, rs.newly_lost), (0, 0));
}

/// Paced segments sent between two ACKs carry the same `delivered`. ns-3's sampler (BBR
/// v1) keeps the first one's start when the second is ACKed, so the interval stays while
/// the delivered count grows (an over-estimate); the draft's per-ACK sample (BBR v3)
/// restarts from the segment this ACK delivered.
#[test]
fn per_ack_rate_sample_restarts_on_every_ack() {
    let t = |us: u64| SimTime(us * 1000);
    for per_ack in [false, true] {
        let mut r = RateSampler::new();
        r.per_ack = per_ack;
        r.on_sent(0, t(0), true);
        r.on_cum_ack(1, MSS, t(1000)); // delivered 1000 at 1 ms
        r.generate_sample(1000, 0, 0, Dur(0));
        r.on_sent(1, t(1200), true);
        r.on_sent(2, t(1400), false); // both carry delivered 1000, delivered_time 1.2 ms
        r.on_sent(3, t(1600), false);
        r.on_cum_ack(2, MSS, t(2200));
        let a = r.generate_sample(1000, 0, 2000, Dur(0)).clone();
        r.on_cum_ack(3, MSS, t(2400));
        let b = r.generate_sample(1000, 0, 1000, Dur(0)).clone();
        assert_eq!((a.delivered, a.interval_ns), (1000, 1_000_000));
        if per_ack {
            // segment 2: sent 0.2 ms after segment 1 (send phase), ACKed 1.2 ms after
            // the delivery it saw: 2 000 bytes over 1.2 ms
            assert_eq!((b.delivered, b.interval_ns), (2000, 1_200_000));
        } else {
            // the start stays segment 1's: 2 000 bytes over its stale 1.0 ms
            assert_eq!((b.delivered, b.interval_ns), (2000, 1_000_000));
        }
        // an ACK that delivers nothing gives no per-ACK sample
        let c = r.generate_sample(0, 0, 1000, Dur(0)).clone();
        assert_eq!(c.interval_ns == 0, per_ack);
    }
}

#[test]
fn round_max_filter_window() {
    let mut f = super::bbr3::RoundMax::default();
    assert_eq!(f.update(0, 5.0, 10), 5.0);
    assert_eq!(f.update(3, 2.0, 10), 5.0);
    assert_eq!(f.update(10, 1.0, 10), 2.0, "round 0 left the 10-round window");
    assert_eq!(f.update(11, 0.5, 1), 0.5, "a 1-round window keeps only this round");
}
