//! Scenario → model: checks every value, expands the dumbbell, draws the random delays and
//! start times from the seed, resolves "auto" values, and records the resolved scenario.
//!
//! This file holds the order of the build and the resolved scenario's JSON; the parts are
//! `model.rs` (what it builds), `fields.rs`, `topology.rs`, `flows.rs`, `tcp_spec.rs`,
//! `queue_spec.rs` and `monitor_spec.rs`.

pub use super::model::*;

use super::fields::{dist, err, rate, schedule, time};
use super::flows::{flow_app, Flows, Traffic};
use super::monitor_spec::{check_interval, trace_model, traced_flows};
use super::schema::*;
use super::topology::{check_serialisation, components, Builder};
use crate::error::{Result, ScenarioError};
use crate::rng::{stream, Rng};
use serde_json::{json, Value};
use std::collections::HashMap;

/// Check and resolve a scenario for master seed `seed`.
pub fn build(spec: &ScenarioSpec, seed: u64) -> Result<Model> {
    let duration = time(&spec.duration, "duration")?;
    if !(duration >= MIN_DURATION_S) {
        return err("duration", format!("must be in [1e-6, 1e6] s, got {duration}"));
    }
    super::tcp_spec::check_top_names(&spec.tcp)?;
    let max_events = spec.max_events.unwrap_or(DEFAULT_MAX_EVENTS);
    if max_events == 0 {
        return err("max_events", "must be an integer in [1, 2^64), got 0");
    }
    let max_packets = spec.max_packets.unwrap_or(DEFAULT_MAX_PACKETS);
    if max_packets == 0 {
        return err("max_packets", "must be an integer in [1, 2^64), got 0");
    }
    let plugin_time_limit = match &spec.plugin_time_limit {
        None => crate::plugin::DEFAULT_TIME_LIMIT_S,
        Some(q) => time(q, "plugin_time_limit")?,
    };
    if !(plugin_time_limit > 0.0 && plugin_time_limit <= crate::plugin::MAX_TIME_LIMIT_S) {
        return err("plugin_time_limit", format!("must be in (0, {}] s, got {plugin_time_limit}", crate::plugin::MAX_TIME_LIMIT_S));
    }
    crate::plugin::set_time_limit(plugin_time_limit);
    let mut b = Builder { nodes: Vec::new(), index: HashMap::new(), links: Vec::new(), links_json: Vec::new(), link_paths: Vec::new() };
    let mut monitored_default: Vec<String> = Vec::new();
    let topo_rng = |k: u64| Rng::new(seed, stream::TOPOLOGY | k);
    let mut host_k = 0u64;

    let mut out = Flows { seed, duration, flows: Vec::new(), json: Vec::new(), sources: 0, web_sources: 0 };

    if spec.dumbbell.is_some() && (!spec.nodes.is_empty() || !spec.links.is_empty()) {
        return err("dumbbell", "give either a dumbbell or nodes/links, not both");
    }
    if let Some(db) = &spec.dumbbell {
        let r1 = b.node("R1");
        let r2 = b.node("R2");
        let brate = rate(&db.bottleneck.rate, "dumbbell.bottleneck.rate")?;
        let bsched = schedule(&db.bottleneck.rate_schedule, "dumbbell.bottleneck.rate_schedule")?;
        let brate = bsched.first().map_or(brate, |&(_, r)| r);
        let bdelay = time(&db.bottleneck.delay, "dumbbell.bottleneck.delay")?;
        b.duplex(r1, r2, brate, bdelay, db.bottleneck.queue.as_ref(), db.bottleneck.reverse_queue.as_ref(), "dumbbell.bottleneck")?;
        if !bsched.is_empty() {
            b.set_schedule(b.links.len() - 2, bsched);
        }
        if let Some(d) = &db.bottleneck.drop_seqs {
            b.set_drops(b.links.len() - 2, d, "dumbbell.bottleneck.drop_seqs")?;
        }
        monitored_default.push("R1->R2".into());
        if db.groups.is_empty() {
            return err("dumbbell.groups", "needs at least one group of sources");
        }
        for (gi, g) in db.groups.iter().enumerate() {
            let gp = format!("dumbbell.groups[{gi}]");
            if g.count == 0 || g.count > MAX_FLOWS as u64 {
                return err(format!("{gp}.count"), format!("must be in [1, {MAX_FLOWS}], got {}", g.count));
            }
            let arate = rate(&g.access.rate, &format!("{gp}.access.rate"))?;
            let adelay = dist(&g.access.delay, &format!("{gp}.access.delay"))?;
            let egress = match &g.egress {
                Some(e) => Some((rate(&e.rate, &format!("{gp}.egress.rate"))?, dist(&e.delay, &format!("{gp}.egress.delay"))?, e)),
                None => None,
            };
            if host_k + g.count > MAX_FLOWS as u64 {
                return err(format!("{gp}.count"), format!("makes more than {MAX_FLOWS} hosts in the dumbbell"));
            }
            let tr = Traffic { app: &g.app, start: &g.start, stop: &g.stop, tcp: &g.tcp, cbr: &g.cbr, web: &g.web, onoff: &g.onoff };
            let (app, start, stop, j) = flow_app(&tr, &spec.tcp, duration, &gp)?;
            for _ in 0..g.count {
                let k = host_k;
                host_k += 1;
                let s = b.node(&format!("S{k}"));
                let mut r = topo_rng(2 * k);
                let d = adelay.draw(&mut r);
                b.duplex(s, r1, arate, d, g.access.queue.as_ref(), g.access.reverse_queue.as_ref(), &format!("{gp}.access"))?;
                let dst = match &egress {
                    Some((er, ed, e)) => {
                        let dn = b.node(&format!("D{k}"));
                        let mut r = topo_rng(2 * k + 1);
                        let dd = ed.draw(&mut r);
                        b.duplex(r2, dn, *er, dd, e.queue.as_ref(), e.reverse_queue.as_ref(), &format!("{gp}.egress"))?;
                        dn
                    }
                    None => r2,
                };
                let label = if g.name.is_empty() { format!("group{gi}") } else { g.name.clone() };
                out.add(s, dst, &app, start, stop, &j, label, &b.nodes, &gp)?;
            }
        }
    } else {
        for (i, n) in spec.nodes.iter().enumerate() {
            if b.index.contains_key(n) {
                return err(format!("nodes[{i}]"), format!("duplicate node name {n:?}"));
            }
            b.node(n);
        }
        // each pair of nodes once: a duplex link carries both directions, and a second one
        // would give two queues the same name
        let mut pairs: HashMap<(u32, u32), usize> = HashMap::new();
        for (i, l) in spec.links.iter().enumerate() {
            let p = format!("links[{i}]");
            let a = *b.index.get(&l.from).ok_or_else(|| ScenarioError::new(format!("{p}.from"), format!("unknown node {:?} (nodes: {})", l.from, spec.nodes.join(", "))))?;
            let c = *b.index.get(&l.to).ok_or_else(|| ScenarioError::new(format!("{p}.to"), format!("unknown node {:?} (nodes: {})", l.to, spec.nodes.join(", "))))?;
            if a == c {
                return err(format!("{p}.to"), "a link needs two different nodes");
            }
            if let Some(j) = pairs.insert((a.min(c), a.max(c)), i) {
                let l0 = &spec.links[j];
                let dir = if (l0.from.as_str(), l0.to.as_str()) == (l.from.as_str(), l.to.as_str()) {
                    String::new()
                } else {
                    format!(" (as {} -> {}: a link is duplex and carries both directions)", l0.from, l0.to)
                };
                return err(p, format!("the link {} -> {} is already listed as links[{j}]{dir}; list each pair of nodes once", l.from, l.to));
            }
            let r = rate(&l.rate, &format!("{p}.rate"))?;
            let sched = schedule(&l.rate_schedule, &format!("{p}.rate_schedule"))?;
            let r = sched.first().map_or(r, |&(_, r0)| r0);
            let d = time(&l.delay, &format!("{p}.delay"))?;
            b.duplex(a, c, r, d, l.queue.as_ref(), l.reverse_queue.as_ref(), &p)?;
            if !sched.is_empty() {
                b.set_schedule(b.links.len() - 2, sched);
            }
            if let Some(ds) = &l.drop_seqs {
                b.set_drops(b.links.len() - 2, ds, &format!("{p}.drop_seqs"))?;
            }
        }
    }
    for (i, f) in spec.flows.iter().enumerate() {
        let p = format!("flows[{i}]");
        let names = || b.nodes.join(", ");
        let s = *b.index.get(&f.src).ok_or_else(|| ScenarioError::new(format!("{p}.src"), format!("unknown node {:?} (nodes: {})", f.src, names())))?;
        let d = *b.index.get(&f.dst).ok_or_else(|| ScenarioError::new(format!("{p}.dst"), format!("unknown node {:?} (nodes: {})", f.dst, names())))?;
        if s == d {
            return err(format!("{p}.dst"), "must differ from src");
        }
        if f.count == 0 || f.count > MAX_FLOWS as u64 {
            return err(format!("{p}.count"), format!("must be in [1, {MAX_FLOWS}], got {}", f.count));
        }
        if out.flows.len() as u64 + f.count > MAX_FLOWS as u64 {
            return err(format!("{p}.count"), format!("makes more than {MAX_FLOWS} flows in the scenario"));
        }
        let tr = Traffic { app: &f.app, start: &f.start, stop: &f.stop, tcp: &f.tcp, cbr: &f.cbr, web: &f.web, onoff: &f.onoff };
        let (app, start, stop, j) = flow_app(&tr, &spec.tcp, duration, &p)?;
        for _ in 0..f.count {
            let label = f.label.clone().unwrap_or_else(|| format!("flows[{i}]"));
            out.add(s, d, &app, start, stop, &j, label, &b.nodes, &p)?;
        }
    }
    let Flows { flows, json: flows_json, web_sources, .. } = out;
    if b.links.is_empty() {
        return err("", "the scenario has no links: give a [dumbbell] or nodes and [[links]]");
    }
    // Web sources may draw no transfer (a low arrival rate, a short run): the scenario is
    // still valid, whatever the seed, and the run has no flows.
    if flows.is_empty() && web_sources == 0 {
        return err("flows", "the scenario has no traffic: add a dumbbell group or a [[flows]] entry");
    }

    check_serialisation(&b, &flows)?;

    // Monitors
    let queues = spec.monitor.queues.clone().unwrap_or(monitored_default);
    let mut monitored = Vec::new();
    for (i, q) in queues.iter().enumerate() {
        match b.links.iter().position(|l| &l.name == q) {
            Some(li) => monitored.push(li as u32),
            None => {
                let some: Vec<&str> = b.links.iter().take(6).map(|l| l.name.as_str()).collect();
                return err(format!("monitor.queues[{i}]"), format!("no link {q:?} (links are named \"from->to\", e.g. {})", some.join(", ")));
            }
        }
    }
    let sample_interval = match &spec.monitor.sample_interval {
        Some(q) => time(q, "monitor.sample_interval")?,
        None => 0.01,
    };
    check_interval(sample_interval, duration, monitored.len(), "monitored queue(s)", "monitor.sample_interval")?;
    let link_interval = match &spec.monitor.link_interval {
        Some(q) => time(q, "monitor.link_interval")?,
        None => 0.1,
    };
    check_interval(link_interval, duration, monitored.len(), "monitored queue(s)", "monitor.link_interval")?;
    let tcp_flows = traced_flows(spec.monitor.tcp_flows.as_ref(), &flows)?;
    let tcp_interval = match &spec.monitor.tcp_interval {
        Some(q) => {
            let dt = time(q, "monitor.tcp_interval")?;
            check_interval(dt, duration, tcp_flows.len(), "traced TCP flow(s)", "monitor.tcp_interval")?;
            Some(dt)
        }
        None => None,
    };

    // Every flow must have a route both ways. Every link is duplex, so that is: both ends in
    // one connected part of the network (linear in nodes + links + flows).
    let part = components(b.nodes.len(), b.links.iter().map(|l| (l.from, l.to)));
    for (i, f) in flows.iter().enumerate() {
        if part[f.src as usize] != part[f.dst as usize] {
            return err(format!("flows[{i}]"), format!("no route between {} and {}", b.nodes[f.src as usize], b.nodes[f.dst as usize]));
        }
    }

    let delays = spec.monitor.delays.unwrap_or(false);
    let trace = trace_model(spec.trace.as_ref(), &b.links, &monitored)?;
    let mut monitor = json!({"queues": queues, "sample_interval": sample_interval, "link_interval": link_interval, "tcp_flows": tcp_flows, "delays": delays});
    if let Some(dt) = tcp_interval {
        monitor["tcp_interval"] = json!(dt);
    }
    let resolved = json!({
        "name": spec.name, "description": spec.description, "notes": spec.notes,
        "duration": duration, "seed": seed, "nodes": b.nodes, "links": b.links_json,
        "flows": flows_json,
        "monitor": monitor,
        "max_events": max_events, "max_packets": max_packets,
    });
    let mut resolved = resolved;
    if crate::plugin::installed() || spec.plugin_time_limit.is_some() {
        resolved["plugin_time_limit"] = json!(plugin_time_limit);
    }
    if let Some(t) = &trace {
        resolved["trace"] = json!({
            "links": t.links.iter().map(|&l| b.links[l as usize].name.clone()).collect::<Vec<_>>(),
            "format": if t.format == TraceFormat::Ns2 { "ns2" } else { "pcap" },
            "path": t.path.display().to_string(),
        });
    }
    drop_nulls(&mut resolved);
    Ok(Model {
        name: spec.name.clone(),
        duration,
        seed,
        nodes: b.nodes,
        links: b.links,
        flows,
        monitored,
        sample_interval,
        link_interval,
        tcp_flows,
        tcp_interval,
        delays,
        max_events,
        max_packets,
        trace,
        resolved,
        web: web_sources > 0,
    })
}

/// Remove every `null` member of the resolved scenario's tables: an optional value that is
/// unset (a CoDel `ce_threshold`, a PIE `active_threshold`) is absent, as in the file the user
/// writes, so the resolved scenario is always valid TOML (which has no null) and reads back
/// as itself. Nulls inside arrays are kept (none are written).
fn drop_nulls(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.retain(|_, x| !x.is_null());
            map.values_mut().for_each(drop_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}
