//! Traffic: a dumbbell group's or `[[flows]]` entry's application resolved (ftp, web,
//! cbr, onoff, with its TCP parameters), and its sources expanded into flows (a web source
//! into one flow per transfer), with their start times drawn from the seed.

use super::fields::{dist, err, rate, size, time};
use super::model::{transfer_key, AppModel, FlowModel, MAX_FLOWS, MIN_CBR_INTERVAL_S};
use super::schema::{CbrSpec, OnOffSpec, TcpSpec, WebSpec};
use super::tcp_spec::{tcp_json, tcp_params};
use super::traffic::{parse_onoff, parse_web, WebModel, MAX_TRANSFER_PACKETS};
use super::units::{Dist, Quantity, TimeDist};
use crate::error::Result;
use crate::rng::{stream, Rng};
use crate::tcp::TcpParams;
use serde_json::{json, Value};

/// What a group or `[[flows]]` entry resolves to: one flow per source, or (web) the
/// parameters its sources draw their transfers from.
pub(super) enum Source {
    One(AppModel),
    Web(TcpParams, WebModel),
}

pub(super) struct Traffic<'a> {
    pub(super) app: &'a str,
    pub(super) start: &'a Option<Dist>,
    pub(super) stop: &'a Option<Quantity>,
    pub(super) tcp: &'a TcpSpec,
    pub(super) cbr: &'a Option<CbrSpec>,
    pub(super) web: &'a Option<WebSpec>,
    pub(super) onoff: &'a Option<OnOffSpec>,
}

pub(super) fn flow_app(tr: &Traffic, top_tcp: &TcpSpec, duration: f64, path: &str) -> Result<(Source, TimeDist, f64, Value)> {
    let start = match tr.start {
        Some(d) => dist(d, &format!("{path}.start"))?,
        None => TimeDist::Fixed(0.0),
    };
    let stop = match tr.stop {
        Some(q) => time(q, &format!("{path}.stop"))?,
        None => duration,
    };
    let max_start = match start {
        TimeDist::Fixed(v) => v,
        TimeDist::Uniform(_, hi) => hi,
    };
    if stop < max_start {
        return err(format!("{path}.stop"), format!("must be ≥ start ({max_start} s), got {stop} s"));
    }
    let app = tr.app.to_ascii_lowercase();
    for (name, set) in [("cbr", tr.cbr.is_some()), ("web", tr.web.is_some()), ("onoff", tr.onoff.is_some())] {
        if set && app != name {
            return err(format!("{path}.{name}"), format!("only allowed with app = \"{name}\" (the app here is {app:?})"));
        }
    }
    match app.as_str() {
        "ftp" => {
            let p = tcp_params(top_tcp, tr.tcp, &format!("{path}.tcp"))?;
            let j = json!({"app": "ftp", "tcp": tcp_json(&p)});
            Ok((Source::One(AppModel::Ftp(p)), start, stop, j))
        }
        "web" => {
            let Some(w) = tr.web else {
                return err(format!("{path}.web"), "app = \"web\" needs a web table { arrival_rate, size, max_transfers }");
            };
            let p = tcp_params(top_tcp, tr.tcp, &format!("{path}.tcp"))?;
            if p.stack == crate::tcp::linux::Stack::Linux {
                return err(format!("{path}.tcp.stack"), "stack = \"linux\" runs app = \"ftp\" only in this version (web transfers use stack = \"ns2\")");
            }
            let wm = parse_web(w, &format!("{path}.web"))?;
            check_transfer_packets(&wm, &p, &format!("{path}.web.size"))?;
            let j = json!({"app": "web", "tcp": tcp_json(&p), "web": wm.to_json()});
            Ok((Source::Web(p, wm), start, stop, j))
        }
        "onoff" => {
            let Some(o) = tr.onoff else {
                return err(format!("{path}.onoff"), "app = \"onoff\" needs an onoff table { rate, packet_size, on, off }");
            };
            let m = parse_onoff(o, &format!("{path}.onoff"), MIN_CBR_INTERVAL_S)?;
            let j = json!({"app": "onoff", "onoff": m.to_json()});
            Ok((Source::One(AppModel::OnOff(m)), start, stop, j))
        }
        "cbr" => {
            let Some(c) = tr.cbr else {
                return err(format!("{path}.cbr"), "app = \"cbr\" needs a cbr table { rate, packet_size }");
            };
            let r = rate(&c.rate, &format!("{path}.cbr.rate"))?;
            let packet_size = size(c.packet_size, 1, format!("{path}.cbr.packet_size"))?;
            let interval = packet_size as f64 * 8.0 / r;
            if interval < MIN_CBR_INTERVAL_S {
                let max = packet_size as f64 * 8.0 / MIN_CBR_INTERVAL_S;
                return err(
                    format!("{path}.cbr.rate"),
                    format!(
                        "sends a packet every {interval:e} s; at most 1e7 packets/s are allowed (≥ 1e-7 s apart), so with packet_size {} the rate must be ≤ {max} b/s, got {r} b/s",
                        packet_size
                    ),
                );
            }
            let burst = c.burst.unwrap_or(1);
            if !(1..=1_000_000).contains(&burst) {
                return err(format!("{path}.cbr.burst"), format!("must be in [1, 1000000] packets, got {burst}"));
            }
            let burst = burst as u32;
            let j = json!({"app": "cbr", "cbr": {"rate": r, "packet_size": packet_size, "burst": burst}});
            Ok((Source::One(AppModel::Cbr { rate_bps: r, packet_size, burst }), start, stop, j))
        }
        other => err(format!("{path}.app"), format!("unknown application {other:?} (expected one of: ftp, cbr, web, onoff)")),
    }
}

/// The largest transfer the size distribution can give must fit a sender's sequence numbers
/// ([`MAX_TRANSFER_PACKETS`] packets). Checked on the distribution, not on the sizes drawn,
/// so that whether a scenario builds does not depend on the seed.
pub(super) fn check_transfer_packets(w: &WebModel, p: &TcpParams, at: &str) -> Result<()> {
    let most = w.size.largest();
    let payload = p.payload().max(1) as u64;
    let packets = most.div_ceil(payload);
    if packets > MAX_TRANSFER_PACKETS {
        let bound = MAX_TRANSFER_PACKETS * payload;
        return err(
            at,
            format!(
                "can give a transfer of {most} bytes, {packets} packets of {payload} bytes (tcp.packet_size), more than the {MAX_TRANSFER_PACKETS} a transfer may have: give a max ≤ {bound} bytes or larger packets"
            ),
        );
    }
    Ok(())
}

/// The flows made so far and their resolved entries.
pub(super) struct Flows {
    pub(super) seed: u64,
    pub(super) duration: f64,
    pub(super) flows: Vec<FlowModel>,
    pub(super) json: Vec<Value>,
    /// Sources so far: every bulk, CBR or on/off flow is one, and every web source. A
    /// source's number keys its random streams (start, web arrivals, run-time draws); in a
    /// scenario without web sources it is the flow's index.
    pub(super) sources: u64,
    /// Web sources so far.
    pub(super) web_sources: u64,
}

impl Flows {
    /// One source from `src` to `dst`: a flow, or (web) one flow per transfer it draws. Its
    /// resolved entry is one either way: a web source's holds its parameters, not the
    /// transfers (they follow from the seed and the resolved start).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn add(&mut self, src: u32, dst: u32, app: &Source, start: TimeDist, stop: f64, j: &Value, label: String, nodes: &[String], path: &str) -> Result<()> {
        let mut jj = j.clone();
        jj["src"] = json!(nodes[src as usize]);
        jj["dst"] = json!(nodes[dst as usize]);
        jj["stop"] = json!(stop);
        jj["label"] = json!(label);
        let k = self.sources;
        self.sources += 1;
        // The start from a stream of its own, so that the resolved (fixed) start of the
        // resolved scenario gives the same web arrivals as the drawn one.
        let st = start.draw(&mut Rng::new(self.seed, stream::FLOW_START | k));
        jj["start"] = json!(st);
        match app {
            Source::One(app) => {
                self.flows.push(FlowModel { src, dst, app: app.clone(), start: st, stop, label, key: k });
            }
            Source::Web(tcp, w) => {
                self.web_sources += 1;
                let transfers = w.transfers(st, stop.min(self.duration), &mut Rng::new(self.seed, stream::WEB | k));
                if self.flows.len() + transfers.len() > MAX_FLOWS as usize {
                    return err(
                        format!("{path}.web"),
                        format!(
                            "makes more than {MAX_FLOWS} flows in the scenario ({} transfers from this source, one flow each): lower arrival_rate, max_transfers or stop",
                            transfers.len()
                        ),
                    );
                }
                for (n, (t, size)) in transfers.into_iter().enumerate() {
                    // A transfer runs until it is done (or the run ends), whatever the
                    // source's stop: that only ends the arrivals.
                    let app = AppModel::Web { tcp: tcp.clone(), size_bytes: size };
                    let key = transfer_key(k, n as u64);
                    self.flows.push(FlowModel { src, dst, app, start: t, stop: self.duration, label: label.clone(), key });
                }
            }
        }
        self.json.push(jj);
        Ok(())
    }
}
