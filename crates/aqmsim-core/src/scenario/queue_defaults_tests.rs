//! The RED family's resolved defaults: each kind is its paper's algorithm unless the table
//! says `defaults = "ns2"`; fields written always win.

use super::queue_spec::{build_queue, discipline_note, params_of, LinkInfo, DISCIPLINES};
use serde_json::{json, Value};

const LINK: LinkInfo = LinkInfo { rate_bps: 10e6, delay_s: 0.02 };

fn resolve(q: Value) -> Value {
    let m = q.as_object().unwrap().clone();
    build_queue(Some(&m), "queue", LINK).unwrap().1
}

fn flags(r: &Value) -> [Option<bool>; 4] {
    ["gentle", "wait", "bytes", "queue_in_bytes"].map(|k| r.get(k).and_then(Value::as_bool))
}

#[test]
fn red_is_floyd_jacobson_without_a_profile() {
    let r = resolve(json!({"kind": "red"}));
    assert_eq!(flags(&r), [Some(false); 4]);
}

#[test]
fn gentle_and_ared_have_the_gentle_region_by_their_papers() {
    assert_eq!(flags(&resolve(json!({"kind": "ared"}))), [Some(true), Some(false), Some(false), Some(false)]);
    // kind = "gentle" resolves without a gentle field (it is the kind), the rest as red
    assert_eq!(flags(&resolve(json!({"kind": "gentle"}))), [None, Some(false), Some(false), Some(false)]);
    for k in ["ared_feng", "qrtred"] {
        assert_eq!(flags(&resolve(json!({"kind": k})))[0], Some(false), "{k}");
    }
    assert_eq!(flags(&resolve(json!({"kind": "rtred", "risk_th": 50})))[0], Some(false));
}

#[test]
fn the_ns2_profile_restores_ns2_defaults() {
    let r = resolve(json!({"kind": "red", "defaults": "ns2"}));
    assert_eq!(flags(&r), [Some(true); 4]);
    let r = resolve(json!({"kind": "qrtred", "defaults": "ns2"}));
    assert_eq!(flags(&r), [Some(true); 4]);
    // red1..red5 take no bytes (the kind sets the size law)
    let r = resolve(json!({"kind": "red1", "defaults": "ns2"}));
    assert_eq!(flags(&r), [Some(true), Some(true), None, Some(true)]);
}

#[test]
fn explicit_fields_win_over_either_profile() {
    let r = resolve(json!({"kind": "red", "defaults": "ns2", "gentle": false, "bytes": false}));
    assert_eq!(flags(&r), [Some(false), Some(true), Some(false), Some(true)]);
    let r = resolve(json!({"kind": "red", "gentle": true, "queue_in_bytes": true}));
    assert_eq!(flags(&r), [Some(true), Some(false), Some(false), Some(true)]);
    let r = resolve(json!({"kind": "ared", "gentle": false}));
    assert_eq!(flags(&r)[0], Some(false));
}

#[test]
fn an_unknown_profile_names_the_field_and_the_choices() {
    let m = json!({"kind": "red", "defaults": "ns3"}).as_object().unwrap().clone();
    let e = build_queue(Some(&m), "queue", LINK).unwrap_err().to_string();
    assert!(e.contains("queue.defaults") && e.contains("paper, ns2"), "{e}");
    let m = json!({"kind": "pie", "defaults": "ns2"}).as_object().unwrap().clone();
    assert!(build_queue(Some(&m), "queue", LINK).is_err(), "the profile is the RED family's");
}

#[test]
fn the_table_shows_each_kinds_resolved_defaults() {
    let gentle_default = |k: &str| params_of(k).unwrap().iter().find(|p| p.0 == "gentle").map(|p| p.1);
    assert_eq!(gentle_default("red"), Some("false"));
    assert_eq!(gentle_default("ared"), Some("true"));
    assert_eq!(gentle_default("gentle"), Some("true"));
    for (k, ..) in DISCIPLINES.iter().filter(|d| d.3) {
        assert!(params_of(k).unwrap().iter().any(|p| p.0 == "defaults"), "{k}");
        assert!(discipline_note(k).unwrap().contains("defaults = \"ns2\""), "{k}");
    }
    assert!(discipline_note("ared").unwrap().contains("Gentle RED at that max_p"));
}
