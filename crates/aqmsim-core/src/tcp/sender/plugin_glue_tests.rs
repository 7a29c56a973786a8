//! The ns-2 stack's plug-in glue (`plugin_glue.rs`) with a Rust [`PluginCc`]: ns-2's
//! NewReno arithmetic written against the plug-in contract gives, inside ns-2's NewReno
//! agent, the built-in `variant = "newreno"` run packet for packet.

use crate::error::Result;
use crate::plugin::{with_factory, PluginFactory, PluginFailure};
use crate::scenario::queue_fields::LinkInfo;
use crate::tcp::plugin::{CcView, PluginCc};
use serde_json::{json, Map, Value};
use std::rc::Rc;

#[derive(Clone, Debug, Default)]
struct Ns2Reno {
    rtos: u32,
    /// Return this from ssthresh instead (the failure test).
    poison: Option<f64>,
}

impl PluginCc for Ns2Reno {
    fn name(&self) -> &str {
        "rust:Ns2Reno"
    }
    fn on_ack(&mut self, t: &mut CcView, _acked: u32) {
        assert_eq!((t.stack, t.mss), ("ns2", 1));
        if t.cwnd < t.ssthresh {
            t.cwnd += 1.0;
        } else {
            t.cwnd += 1.0 / t.cwnd;
        }
    }
    fn ssthresh(&mut self, t: &mut CcView) -> f64 {
        self.poison.unwrap_or(t.in_flight / 2.0)
    }
    fn on_rto(&mut self, _t: &mut CcView) {
        self.rtos += 1;
    }
    fn clone_box(&self) -> Box<dyn PluginCc> {
        Box::new(self.clone())
    }
}

struct Factory(Option<f64>);

impl PluginFactory for Factory {
    fn make_aqm(&self, _t: &Map<String, Value>, path: &str, _l: LinkInfo) -> Result<(Box<dyn crate::aqm::plugin::PluginAqm>, Value)> {
        Err(crate::error::ScenarioError::new(path, "no AQMs here"))
    }
    fn make_cc(&self, _table: &Map<String, Value>, _path: &str) -> Result<Box<dyn PluginCc>> {
        Ok(Box::new(Ns2Reno { rtos: 0, poison: self.0 }))
    }
}

fn scenario(variant: &str, ecn: bool) -> String {
    let mut tcp = json!({"variant": variant, "ecn": ecn, "window": 64});
    if variant == "python" {
        tcp["cc_class"] = json!("rust:Ns2Reno");
    }
    json!({
        "name": "plugin-glue", "duration": 20.0, "seed": 3, "tcp": tcp,
        "dumbbell": {"bottleneck": {"rate": "10Mb", "delay": "20ms", "queue": {"kind": "red", "limit": 30, "min_th": 5, "max_th": 15, "ecn": ecn}},
                     "groups": [{"name": "g", "count": 5, "app": "ftp", "start": {"uniform": [0.0, 1.0]}, "stop": 20.0,
                                 "access": {"rate": "100Mb", "delay": "1ms"}}]},
        "monitor": {"queues": ["R1->R2"], "tcp_flows": "all"}
    })
    .to_string()
}

fn run(variant: &str, ecn: bool, poison: Option<f64>) -> crate::sim::RunResults {
    with_factory(Rc::new(Factory(poison)), || crate::sim::run_json(&scenario(variant, ecn), None, None)).expect("runs")
}

#[test]
fn ns2_newreno_through_the_glue_is_the_builtin_packet_for_packet() {
    for ecn in [false, true] {
        let (a, b) = (run("newreno", ecn, None), run("python", ecn, None));
        let busy = a.summary.get("bottleneck_drops").unwrap() + a.summary.get("marks").unwrap();
        assert!(busy > 100.0, "the scenario must drop or mark");
        if !ecn {
            assert!(a.summary.get("timeouts").unwrap() >= 1.0, "and time out");
        }
        let skip = |k: &str| k == "wall_seconds";
        let sa: Vec<_> = a.summary.items.iter().filter(|(k, _)| !skip(k)).collect();
        let sb: Vec<_> = b.summary.items.iter().filter(|(k, _)| !skip(k)).collect();
        assert_eq!(sa, sb, "ecn = {ecn}");
        assert_eq!((&a.drops.t, &a.drops.flow, &a.drops.action), (&b.drops.t, &b.drops.flow, &b.drops.action));
        assert_eq!((&a.tcp.t, &a.tcp.cwnd, &a.tcp.ssthresh), (&b.tcp.t, &b.tcp.cwnd, &b.tcp.ssthresh));
        assert!(a.tcp.t.len() > 1000);
    }
}

#[test]
fn a_nonsense_threshold_ends_the_run_naming_the_plugin() {
    let r = std::panic::catch_unwind(|| run("python", false, Some(f64::NAN)));
    let Err(p) = r else { panic!("must fail") };
    let f = p.downcast_ref::<PluginFailure>().expect("a PluginFailure");
    assert!(f.message.starts_with("tcp: plug-in rust:Ns2Reno.ssthresh returned NaN at t = "), "{}", f.message);
    assert!(f.message.ends_with("(expected a window > 0 packets)"), "{}", f.message);
}
