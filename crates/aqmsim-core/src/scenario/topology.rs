//! The network: nodes by name, duplex links with their queues (and their resolved entries),
//! deterministic losses and rate schedules; the checks on the whole topology (connected
//! parts, the shortest serialisation time).

use super::fields::err;
use super::model::{AppModel, FlowModel, LinkModel};
use super::queue_spec::{build_queue, LinkInfo};
use super::schema::QueueSpec;
use crate::error::Result;
use serde_json::{json, Value};
use std::collections::HashMap;

pub(super) struct Builder {
    pub(super) nodes: Vec<String>,
    pub(super) index: HashMap<String, u32>,
    pub(super) links: Vec<LinkModel>,
    pub(super) links_json: Vec<Value>,
    /// The scenario path of each duplex link (`links[link / 2]`), for messages.
    pub(super) link_paths: Vec<String>,
}

impl Builder {
    pub(super) fn node(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.nodes.len() as u32;
        self.nodes.push(name.to_string());
        self.index.insert(name.to_string(), i);
        i
    }

    pub(super) fn set_drops(&mut self, link: usize, seqs: &[i32], path: &str) -> Result<()> {
        if let Some(&bad) = seqs.iter().find(|&&s| s < 0) {
            return err(path, format!("sequence numbers must be ≥ 0, got {bad}"));
        }
        let mut v = seqs.to_vec();
        v.sort_unstable();
        v.dedup();
        // links_json holds one entry per duplex link, forward direction first.
        self.links_json[link / 2]["drop_seqs"] = json!(v);
        self.links[link].drop_seqs = v;
        Ok(())
    }

    /// A duplex link's rate schedule (both directions: one cable), already parsed; the
    /// link was made with its first rate, which the queue discipline keeps (RED's
    /// idle-time correction, "auto" parameters).
    pub(super) fn set_schedule(&mut self, link: usize, v: Vec<(f64, f64)>) {
        self.links_json[link / 2]["rate_schedule"] = json!(v.iter().map(|&(t, r)| json!([t, r])).collect::<Vec<_>>());
        self.links[link].rate_schedule = v.clone();
        self.links[link + 1].rate_schedule = v;
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn duplex(&mut self, a: u32, b: u32, rate_bps: f64, delay_s: f64, q: Option<&QueueSpec>, rq: Option<&QueueSpec>, path: &str) -> Result<()> {
        let info = LinkInfo { rate_bps, delay_s };
        let (q, dev_f) = split_device_queue(q, &format!("{path}.queue"))?;
        let (rq, dev_r) = split_device_queue(rq, &format!("{path}.reverse_queue"))?;
        let (q, rq) = (q.as_ref(), rq.as_ref());
        // Explicit links without a reverse_queue: the reverse direction gets the same queue.
        let dev_r = if rq.is_none() && q.is_some() && path.starts_with("links") { dev_f } else { dev_r };
        let (aqm_f, mut jf) = build_queue(q, &format!("{path}.queue"), info)?;
        let (aqm_r, mut jr) = match rq {
            Some(_) => build_queue(rq, &format!("{path}.reverse_queue"), info)?,
            None => match q {
                // Explicit links: the reverse direction gets the same kind of queue.
                Some(_) if path.starts_with("links") => build_queue(q, &format!("{path}.queue"), info)?,
                _ => build_queue(None, &format!("{path}.reverse_queue"), info)?,
            },
        };
        for (j, n) in [(&mut jf, dev_f), (&mut jr, dev_r)] {
            if n > 0 {
                j["device_queue"] = json!(n);
            }
        }
        self.link_paths.push(path.to_string());
        self.links_json.push(json!({
            "from": self.nodes[a as usize], "to": self.nodes[b as usize],
            "rate": rate_bps, "delay": delay_s, "queue": jf, "reverse_queue": jr,
        }));
        for (from, to, aqm, device_queue) in [(a, b, aqm_f, dev_f), (b, a, aqm_r, dev_r)] {
            let name = format!("{}->{}", self.nodes[from as usize], self.nodes[to as usize]);
            self.links.push(LinkModel { from, to, rate_bps, delay_s, aqm, name, drop_seqs: Vec::new(), rate_schedule: Vec::new(), device_queue });
        }
        Ok(())
    }
}

/// The most packets `queue.device_queue` may hold (ns-3's default `TxQueue` holds 100).
pub const MAX_DEVICE_QUEUE: u64 = 1000;

/// A queue table's `device_queue` (packets the device holds under the discipline, ns-3's
/// `TxQueue`; 0, the default: none), taken out of the table the discipline reads.
fn split_device_queue(q: Option<&QueueSpec>, path: &str) -> Result<(Option<QueueSpec>, u32)> {
    let Some(m) = q else { return Ok((None, 0)) };
    let mut m = m.clone();
    let n = match m.remove("device_queue") {
        None => 0,
        Some(v) => match v.as_u64() {
            Some(n) if n <= MAX_DEVICE_QUEUE => n as u32,
            _ => return err(format!("{path}.device_queue"), format!("must be a whole number of packets from 0 to {MAX_DEVICE_QUEUE}, got {v}")),
        },
    };
    Ok((Some(m), n))
}

/// Every packet must take at least the engine's 1 ns tick to serialise on every link (a
/// shorter time rounds to 0 and the link would send without limit). The check takes the
/// smallest packet of the scenario on the fastest link.
pub(super) fn check_serialisation(b: &Builder, flows: &[FlowModel]) -> Result<()> {
    let smallest = flows
        .iter()
        .map(|f| match &f.app {
            AppModel::Ftp(p) | AppModel::Web { tcp: p, .. } => {
                let first = if p.syn { p.header } else { p.packet_size };
                first.min(p.ack_size).min(p.wire_size(1))
            }
            AppModel::Cbr { packet_size, .. } => *packet_size,
            AppModel::OnOff(m) => m.packet_size,
        })
        .min()
        .unwrap_or(u32::MAX)
        .max(1);
    let fastest = (0..b.links.len()).step_by(2).max_by(|&i, &j| b.links[i].max_rate().total_cmp(&b.links[j].max_rate()));
    if let Some(i) = fastest {
        let rate = b.links[i].max_rate();
        let ns = smallest as f64 * 8e9 / rate;
        if ns < 0.5 {
            let top = smallest as f64 * 8e9 / 0.5;
            return err(
                format!("{}.rate", b.link_paths[i / 2]),
                format!(
                    "a {smallest}-byte packet (the scenario's smallest) would take {ns:.3} ns at {rate:e} b/s, under the engine's 1 ns clock: at most {top:e} b/s for {smallest}-byte packets"
                ),
            );
        }
    }
    Ok(())
}

/// The connected part of each node (an id per part), with links taken both ways.
pub(super) fn components(n: usize, links: impl Iterator<Item = (u32, u32)>) -> Vec<u32> {
    let mut adj = vec![Vec::new(); n];
    for (a, c) in links {
        adj[a as usize].push(c);
        adj[c as usize].push(a);
    }
    let mut part = vec![u32::MAX; n];
    let mut stack = Vec::new();
    for s in 0..n {
        if part[s] != u32::MAX {
            continue;
        }
        part[s] = s as u32;
        stack.push(s as u32);
        while let Some(x) = stack.pop() {
            for &m in &adj[x as usize] {
                if part[m as usize] == u32::MAX {
                    part[m as usize] = s as u32;
                    stack.push(m);
                }
            }
        }
    }
    part
}
