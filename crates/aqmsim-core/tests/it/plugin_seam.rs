//! The plug-in seam without Python: a Rust `PluginAqm` that drops every other arrival,
//! built by a test factory installed with `with_factory`; its monitored variable becomes
//! an extra queue column; `fail()` ends the run with a `PluginFailure`; the time limit.

use crate::common::{dumbbell, run};
use aqmsim_core::aqm::plugin::PluginAqm;
use aqmsim_core::aqm::{Aqm, AqmState, QueueView, Reason, Verdict};
use aqmsim_core::error::{Result, ScenarioError};
use aqmsim_core::packet::Packet;
use aqmsim_core::plugin::{fail, with_factory, PluginFactory, PluginFailure};
use aqmsim_core::rng::Rng;
use aqmsim_core::scenario::queue_spec::LinkInfo;
use aqmsim_core::time::SimTime;
use serde_json::{json, Map, Value};
use std::rc::Rc;

#[derive(Clone, Debug)]
struct EveryOther {
    arrivals: u64,
    names: Vec<String>,
    fail_at: Option<u64>,
}

impl Aqm for EveryOther {
    fn on_enqueue(&mut self, _pkt: &Packet, _q: &QueueView, now: SimTime, _rng: &mut Rng) -> Verdict {
        self.arrivals += 1;
        if Some(self.arrivals) == self.fail_at {
            fail(format!("every_other failed at t = {} s", now.secs()));
        }
        if self.arrivals % 2 == 0 {
            Verdict::Drop(Reason::Early)
        } else {
            Verdict::Enqueue
        }
    }
    fn state(&self) -> AqmState {
        AqmState { p: 0.5, ..AqmState::default() }
    }
}

impl PluginAqm for EveryOther {
    fn clone_box(&self) -> Box<dyn PluginAqm> {
        Box::new(self.clone())
    }
    fn extra_names(&self) -> &[String] {
        &self.names
    }
    fn extra_values(&self, out: &mut Vec<f64>) {
        out.push(self.arrivals as f64);
    }
}

struct Factory;

impl PluginFactory for Factory {
    fn make_aqm(&self, table: &Map<String, Value>, _path: &str, _link: LinkInfo) -> Result<(Box<dyn PluginAqm>, Value)> {
        let fail_at = table.get("fail_at").and_then(|v| v.as_u64().or_else(|| v.as_f64().map(|x| x as u64)));
        Ok((Box::new(EveryOther { arrivals: 0, names: vec!["arrivals".into()], fail_at }), json!({"kind": "python", "class": "every_other"})))
    }
    fn make_cc(&self, _table: &Map<String, Value>, path: &str) -> Result<Box<dyn aqmsim_core::tcp::plugin::PluginCc>> {
        Err(ScenarioError::new(path, "no congestion controls here"))
    }
}

const QUEUE: &str = r#"{ kind = "python", class = "every_other" }"#;

#[test]
fn a_rust_plugin_drops_every_other_arrival() {
    let r = with_factory(Rc::new(Factory), || run(&dumbbell(10, QUEUE, 5.0, ""), 1));
    let arrivals = r.summary.get("bottleneck_arrivals").expect("arrivals");
    let drops = r.summary.get("drops_early").expect("drops_early");
    assert!(arrivals > 100.0, "{arrivals}");
    assert_eq!(drops, (arrivals / 2.0).floor(), "every second arrival dropped");
    // its own variable is an extra column of the queue samples, one value per row
    let (name, col) = &r.queue.extra[0];
    assert_eq!(name, "arrivals");
    assert_eq!(col.len(), r.queue.t.len());
    assert!(col.windows(2).all(|w| w[0] <= w[1]) && *col.last().unwrap() > 0.0);
    assert!(r.queue.p.iter().all(|&p| p == 0.5));
}

#[test]
fn without_a_factory_python_queues_are_a_scenario_error() {
    let spec = aqmsim_core::scenario::from_toml(&dumbbell(2, QUEUE, 1.0, "")).unwrap();
    let e = aqmsim_core::scenario::build::build(&spec, 1).unwrap_err();
    assert_eq!(e.field, "dumbbell.bottleneck.queue");
    assert!(e.message.contains("plug-in factory"), "{e}");
}

#[test]
fn fail_ends_the_run_with_a_plugin_failure() {
    let q = r#"{ kind = "python", class = "every_other", fail_at = 40 }"#;
    let r = std::panic::catch_unwind(|| with_factory(Rc::new(Factory), || run(&dumbbell(10, q, 5.0, ""), 1)));
    let Err(p) = r else { panic!("the run fails") };
    let f = p.downcast_ref::<PluginFailure>().expect("a PluginFailure payload");
    assert!(f.message.starts_with("every_other failed at t = "), "{}", f.message);
    // the factory is uninstalled after the panic
    assert!(!aqmsim_core::plugin::installed());
}

#[test]
fn plugin_time_limit_is_checked_and_resolved() {
    let toml = dumbbell(2, QUEUE, 1.0, "").replace("seed = 1", "seed = 1\nplugin_time_limit = \"0.5s\"");
    let spec = aqmsim_core::scenario::from_toml(&toml).unwrap();
    let m = with_factory(Rc::new(Factory), || {
        let m = aqmsim_core::scenario::build::build(&spec, 1).unwrap();
        assert_eq!(aqmsim_core::plugin::time_limit(), 0.5);
        std::thread::sleep(std::time::Duration::from_millis(600));
        assert!(aqmsim_core::plugin::past_time_limit());
        m
    });
    assert_eq!(m.resolved["plugin_time_limit"], json!(0.5));
    assert!(!aqmsim_core::plugin::past_time_limit(), "no limit outside a run with plug-ins");
    for bad in ["0s", "-1s", "2d"] {
        let toml = dumbbell(2, QUEUE, 1.0, "").replace("seed = 1", &format!("seed = 1\nplugin_time_limit = \"{bad}\""));
        let spec = aqmsim_core::scenario::from_toml(&toml).unwrap();
        let e = with_factory(Rc::new(Factory), || aqmsim_core::scenario::build::build(&spec, 1).unwrap_err());
        assert_eq!(e.field, "plugin_time_limit", "{bad}: {e}");
    }
    // a run without plug-ins keeps its resolved scenario as it was
    let spec = aqmsim_core::scenario::from_toml(&dumbbell(2, r#"{ kind = "droptail" }"#, 1.0, "")).unwrap();
    let m = aqmsim_core::scenario::build::build(&spec, 1).unwrap();
    assert!(m.resolved.get("plugin_time_limit").is_none());
}
