//! Properties of every discipline over random arrival/departure traces: probabilities in
//! [0, 1], max_p within its stated range, thresholds ordered, packets conserved, queue
//! bounded.
use aqmsim_core::aqm::{Aqm, QueueDisc};
use aqmsim_core::packet::{ecn, Kind, Packet};
use aqmsim_core::rng::Rng;
use aqmsim_core::scenario::queue_spec::{build_queue, LinkInfo, DISCIPLINES};
use aqmsim_core::time::SimTime;
use proptest::prelude::*;

fn table(kind: &str) -> serde_json::Map<String, serde_json::Value> {
    let v = match kind {
        "rtred" => serde_json::json!({"kind": "rtred", "min_th": 5, "max_th": 15, "risk_th": 20, "limit": 25}),
        "ecn_threshold" => serde_json::json!({"kind": "ecn_threshold", "threshold": 8, "limit": 25}),
        "qrtred" => serde_json::json!({"kind": "qrtred", "limit": 25}),
        "droptail" => serde_json::json!({"kind": "droptail", "limit": 25}),
        "codel" => serde_json::json!({"kind": "codel", "limit": 25, "ecn": true, "ce_threshold": "20ms"}),
        "fq_codel" => serde_json::json!({"kind": "fq_codel", "limit": 25, "flows": 4}),
        "pie" => serde_json::json!({"kind": "pie", "limit": 25, "ecn": true, "derandomize": true}),
        "dualpi2" => serde_json::json!({"kind": "dualpi2", "limit": 25, "ecn_mask": "any_ect", "t_update": "1ms"}),
        "fq_pie" => serde_json::json!({"kind": "fq_pie", "limit": 25, "flows": 4, "target": "2ms"}),
        "cobalt" => serde_json::json!({"kind": "cobalt", "limit": 25, "ecn": true, "p_drop": 0.1, "blue_threshold": "10ms"}),
        "fq_cobalt" => serde_json::json!({"kind": "fq_cobalt", "limit": 25, "flows": 4, "p_drop": 0.1, "blue_threshold": "10ms", "ce_threshold": "20ms"}),
        // 25 packets of at least 40 bytes
        "cake" => serde_json::json!({"kind": "cake", "memlimit": 1000, "bandwidth": "5Mb", "ack_filter": "aggressive"}),
        k => serde_json::json!({"kind": k, "limit": 25, "min_th": 5, "max_th": 15, "ecn": true}),
    };
    v.as_object().unwrap().clone()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn every_discipline_keeps_its_invariants(
        ops in proptest::collection::vec((any::<bool>(), 40u32..1500, any::<bool>(), 0u64..3_000_000), 1..600),
        seed in 0u64..1000,
    ) {
        for (kind, ..) in DISCIPLINES {
            if *kind == "python" {
                continue; // built only through a plug-in factory (plugin_seam.rs)
            }
            let link = LinkInfo { rate_bps: 10e6, delay_s: 0.01 };
            let (aqm, _) = build_queue(Some(&table(kind)), "q", link).unwrap();
            let mut q = QueueDisc::new(aqm);
            let mut rng = Rng::new(seed, 7);
            let mut t = 0u64;
            let mut seq = 0;
            for &(arrive, size, ect, gap) in &ops {
                t += gap;
                let now = SimTime(t);
                if arrive {
                    let mut p = Packet::new(Kind::Data, 0, seq, size, 1, now);
                    if ect { p.ecn = ecn::ECT; }
                    seq += 1;
                    q.enqueue(p, now, &mut rng);
                } else {
                    q.dequeue(now, &mut rng);
                }
                let st = q.aqm.state();
                prop_assert!((0.0..=1.0).contains(&st.p), "{kind}: p = {}", st.p);
                prop_assert!(st.max_p >= 0.0 && st.max_p <= 1.0, "{kind}: max_p = {}", st.max_p);
                prop_assert!(st.min_th <= st.max_th, "{kind}: thresholds {} > {}", st.min_th, st.max_th);
                prop_assert!(q.conserved(), "{kind}: conservation");
                prop_assert!(q.len() <= 25, "{kind}: {} packets waiting", q.len());
            }
        }
    }
}
