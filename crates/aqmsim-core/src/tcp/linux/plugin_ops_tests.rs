//! The plug-in adapter (`plugin_ops.rs`) with a Rust [`PluginCc`]: NewReno written against
//! the plug-in contract only (`CcView`) gives, through the adapter and a `PluginFactory`,
//! the built-in NewReno's run packet for packet; nonsense windows end the run with a
//! `PluginFailure` naming the plug-in.

use super::cc::{CongestionOps, NewReno, Tcb};
use super::plugin_ops::PluginOps;
use crate::error::Result;
use crate::plugin::{with_factory, PluginFactory, PluginFailure};
use crate::scenario::queue_fields::LinkInfo;
use crate::tcp::plugin::{CcView, PluginCc};
use serde_json::{json, Map, Value};
use std::rc::Rc;

/// NewReno against the plug-in contract (the Python tutorial model, in Rust).
#[derive(Clone, Debug, Default)]
struct ViewReno {
    /// Set cwnd to this instead (the failure test).
    poison: Option<f64>,
}

impl PluginCc for ViewReno {
    fn name(&self) -> &str {
        "rust:ViewReno"
    }
    fn on_ack(&mut self, t: &mut CcView, mut acked: u32) {
        let mss = t.mss as f64;
        if t.cwnd < t.ssthresh && acked >= 1 {
            t.cwnd += mss;
            acked -= 1;
        }
        if t.cwnd >= t.ssthresh && acked > 0 {
            t.cwnd += (mss * mss / t.cwnd).floor().max(1.0);
        }
        if let Some(p) = self.poison {
            if t.now > 0.5 {
                t.cwnd = p;
            }
        }
    }
    fn ssthresh(&mut self, t: &mut CcView) -> f64 {
        (2.0 * t.mss as f64).max((t.in_flight / 2.0).floor())
    }
    fn clone_box(&self) -> Box<dyn PluginCc> {
        Box::new(self.clone())
    }
}

struct Factory {
    poison: Option<f64>,
}

impl PluginFactory for Factory {
    fn make_aqm(&self, _t: &Map<String, Value>, path: &str, _l: LinkInfo) -> Result<(Box<dyn crate::aqm::plugin::PluginAqm>, Value)> {
        Err(crate::error::ScenarioError::new(path, "no AQMs here"))
    }
    fn make_cc(&self, table: &Map<String, Value>, _path: &str) -> Result<Box<dyn PluginCc>> {
        assert_eq!(table["cc_class"], json!("rust:ViewReno"));
        Ok(Box::new(ViewReno { poison: self.poison }))
    }
}

fn scenario(variant: &str, ecn: bool) -> String {
    let mut tcp = json!({"stack": "linux", "variant": variant, "ecn": ecn});
    if variant == "python" {
        tcp["cc_class"] = json!("rust:ViewReno");
    }
    let queue = if ecn { json!({"kind": "codel", "limit": 100, "ecn": true}) } else { json!({"kind": "red", "limit": 30, "min_th": 5, "max_th": 15}) };
    json!({
        "name": "plugin-ops", "duration": 20.0, "seed": 3, "tcp": tcp,
        "dumbbell": {"bottleneck": {"rate": "10Mb", "delay": "20ms", "queue": queue},
                     "groups": [{"name": "g", "count": 5, "app": "ftp", "start": {"uniform": [0.0, 1.0]}, "stop": 20.0,
                                 "access": {"rate": "100Mb", "delay": "1ms"}}]},
        "monitor": {"queues": ["R1->R2"], "tcp_flows": "all"}
    })
    .to_string()
}

fn run(variant: &str, ecn: bool, poison: Option<f64>) -> crate::sim::RunResults {
    with_factory(Rc::new(Factory { poison }), || crate::sim::run_json(&scenario(variant, ecn), None, None)).expect("runs")
}

#[test]
fn a_rust_newreno_through_the_adapter_is_the_builtin_packet_for_packet() {
    for ecn in [false, true] {
        let (a, b) = (run("newreno", ecn, None), run("python", ecn, None));
        let drops = a.summary.get("bottleneck_drops").unwrap();
        assert!(drops > 0.0, "the scenario must drop");
        if !ecn {
            assert!(a.summary.get("timeouts").unwrap() >= 1.0, "and time out");
        } else {
            assert!(a.summary.get("marks").unwrap() > 50.0, "and mark");
        }
        let skip = |k: &str| k == "wall_seconds";
        let sa: Vec<_> = a.summary.items.iter().filter(|(k, _)| !skip(k)).collect();
        let sb: Vec<_> = b.summary.items.iter().filter(|(k, _)| !skip(k)).collect();
        assert_eq!(sa, sb, "ecn = {ecn}");
        assert_eq!((&a.drops.t, &a.drops.flow, &a.drops.action), (&b.drops.t, &b.drops.flow, &b.drops.action));
        assert_eq!((&a.tcp.t, &a.tcp.cwnd, &a.tcp.ssthresh), (&b.tcp.t, &b.tcp.cwnd, &b.tcp.ssthresh));
        assert!(a.tcp.t.len() > 1000);
        assert_eq!(a.flows.variant[0], "newreno");
        assert_eq!(b.flows.variant[0], "python");
    }
}

#[test]
fn the_adapter_calls_match_newreno_call_for_call() {
    let mut ops = PluginOps::new(Box::new(ViewReno::default()), "tcp");
    let mut reno = NewReno;
    let (mut a, mut b) = (Tcb::new(10_000, u32::MAX, 1000), Tcb::new(10_000, u32::MAX, 1000));
    for k in 0..400u32 {
        let acked = 1 + k % 3;
        if k % 97 == 96 {
            let fl = a.cwnd;
            a.ssthresh = CongestionOps::ssthresh(&mut ops, &a, fl);
            b.ssthresh = reno.ssthresh(&b, fl);
            a.cwnd = a.ssthresh;
            b.cwnd = b.ssthresh;
        }
        CongestionOps::increase_window(&mut ops, &mut a, acked);
        reno.increase_window(&mut b, acked);
        assert_eq!((a.cwnd, a.ssthresh), (b.cwnd, b.ssthresh), "call {k}");
    }
    assert!(a.ssthresh < u32::MAX && a.cwnd > a.ssthresh, "both phases ran");
}

#[test]
fn a_nonsense_window_ends_the_run_naming_the_plugin() {
    for (bad, shown) in [(0.0, "0"), (f64::NAN, "NaN"), (-3.0, "-3")] {
        let r = std::panic::catch_unwind(|| run("python", false, Some(bad)));
        let Err(p) = r else { panic!("must fail") };
        let f = p.downcast_ref::<PluginFailure>().expect("a PluginFailure");
        assert!(
            f.message.starts_with(&format!("tcp: plug-in rust:ViewReno.on_ack set tcp.cwnd to {shown} at t = 0.5")),
            "{}",
            f.message
        );
        assert!(f.message.ends_with("(expected a window > 0 bytes)"), "{}", f.message);
    }
}

#[test]
fn without_a_factory_the_python_variant_is_a_field_error() {
    let e = crate::sim::run_json(&scenario("python", false), None, None).err().expect("refused");
    assert_eq!(e.field, "tcp");
    assert!(e.message.contains("runs only from Python"), "{e}");
}
