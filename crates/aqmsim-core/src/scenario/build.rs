//! Scenario → model: checks every value, expands the dumbbell, draws the random delays and
//! start times from the seed, resolves "auto" values, and records the resolved scenario.

use super::queue_spec::{build_queue, LinkInfo};
use super::schema::*;
use super::traffic::{parse_onoff, parse_schedule, parse_web, OnOffModel, WebModel, MAX_TRANSFER_PACKETS};
use super::units::{parse_dist, parse_rate, parse_time, Dist, Quantity, TimeDist, MAX_PACKET_BYTES, MAX_WINDOW};
use crate::aqm::AnyAqm;
use crate::error::{Result, ScenarioError};
use crate::rng::{stream, Rng};
use crate::tcp::{TcpParams, Variant};
use serde_json::{json, Value};
use std::collections::HashMap;

/// One direction of a link.
#[derive(Clone, Debug)]
pub struct LinkModel {
    pub from: u32,
    pub to: u32,
    pub rate_bps: f64,
    pub delay_s: f64,
    pub aqm: AnyAqm,
    pub name: String,
    /// Data sequence numbers lost (first transmission only) on entering this link.
    pub drop_seqs: Vec<i32>,
    /// `rate_schedule`: `(time s, rate b/s)`, the first at 0 (`rate_bps` is its rate);
    /// empty for a constant rate.
    pub rate_schedule: Vec<(f64, f64)>,
}

impl LinkModel {
    /// The highest rate the link ever has.
    pub fn max_rate(&self) -> f64 {
        self.rate_schedule.iter().map(|&(_, r)| r).fold(self.rate_bps, f64::max)
    }
}

#[derive(Clone, Debug)]
pub enum AppModel {
    Ftp(TcpParams),
    /// `burst` packets back to back every `burst · packet_size · 8 / rate_bps` s.
    Cbr { rate_bps: f64, packet_size: u32, burst: u32 },
    /// An on/off UDP source (ns-2's Application/Traffic/Exponential and /Pareto).
    OnOff(OnOffModel),
    /// One web transfer: a new TCP connection that sends `ceil(size_bytes / packet_size)`
    /// full data packets from its start and is done when the last is acknowledged.
    Web { tcp: TcpParams, size_bytes: u64 },
}

impl AppModel {
    /// A TCP agent (bulk or a web transfer)?
    pub fn is_tcp(&self) -> bool {
        matches!(self, AppModel::Ftp(_) | AppModel::Web { .. })
    }
}

/// What a group or `[[flows]]` entry resolves to: one flow per source, or (web) the
/// parameters its sources draw their transfers from.
enum Source {
    One(AppModel),
    Web(TcpParams, WebModel),
}

#[derive(Clone, Debug)]
pub struct FlowModel {
    pub src: u32,
    pub dst: u32,
    pub app: AppModel,
    pub start: f64,
    pub stop: f64,
    pub label: String,
    /// The key of the random streams it draws from as it runs (TCP's boot time, on/off
    /// periods): its source's number for a bulk, CBR or on/off flow, [`transfer_key`] for
    /// a web transfer. Keyed by source, not by position among the flows, so the number of
    /// transfers a web source draws moves no other flow's draws.
    pub key: u64,
}

/// The stream key of transfer `k` of the web source numbered `source`: apart from every
/// source number (< 2^17) by bit 39, and below the 2^40 of a stream namespace.
pub fn transfer_key(source: u64, k: u64) -> u64 {
    debug_assert!(source <= MAX_FLOWS as u64 && k <= super::traffic::DEFAULT_MAX_TRANSFERS);
    1 << 39 | source << 20 | k
}

#[derive(Clone, Debug)]
pub struct Model {
    pub name: String,
    pub duration: f64,
    pub seed: u64,
    pub nodes: Vec<String>,
    pub links: Vec<LinkModel>,
    pub flows: Vec<FlowModel>,
    pub monitored: Vec<u32>,
    pub sample_interval: f64,
    pub link_interval: f64,
    /// Flows whose TCP state is recorded (`monitor.tcp_flows`), sorted.
    pub tcp_flows: Vec<u32>,
    /// Record it every this many seconds instead of at every change.
    pub tcp_interval: Option<f64>,
    /// Keep the delay distributions (`monitor.delays`).
    pub delays: bool,
    /// The run stops with an error after this many events (`max_events`).
    pub max_events: u64,
    /// The run stops with an error when more packets are held at once (`max_packets`).
    pub max_packets: u64,
    /// Packet traces (`[trace]`).
    pub trace: Option<TraceModel>,
    /// The scenario with every value explicit and every "auto" resolved.
    pub resolved: Value,
    /// It has web sources (`app = "web"`): the summary reports their transfers.
    pub web: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    Ns2,
    Pcap,
}

/// `[trace]` resolved: the traced links (indexes), the format and where to write.
#[derive(Clone, Debug)]
pub struct TraceModel {
    pub links: Vec<u32>,
    pub format: TraceFormat,
    pub path: std::path::PathBuf,
}

/// Shortest `duration`, seconds.
pub const MIN_DURATION_S: f64 = 1e-6;
/// Shortest monitor interval, seconds.
pub const MIN_MONITOR_INTERVAL_S: f64 = 1e-6;
/// Most rows one monitor (queue samples, link bins) may make in a run.
pub const MAX_MONITOR_ROWS: f64 = 1e7;
/// TCP clock granularity range, seconds.
pub const MIN_TICK_S: f64 = 1e-6;
pub const MAX_TICK_S: f64 = 1e3;
/// Shortest time between two CBR packets, seconds (at most 1e7 packets/s per source, so
/// that rounding the interval to whole nanoseconds changes the rate by at most 0.5 %).
pub const MIN_CBR_INTERVAL_S: f64 = 1e-7;
/// Most hosts in a group, flows in an entry, and flows in a scenario.
pub const MAX_FLOWS: u32 = 100_000;
/// Default `max_packets`: 50 million packets held at once (about 5 GB with the queues'
/// and the scheduler's overhead).
pub const DEFAULT_MAX_PACKETS: u64 = 50_000_000;
/// Default `max_events`.
pub const DEFAULT_MAX_EVENTS: u64 = 10_000_000_000;

/// A size field in bytes: `lo..=MAX_PACKET_BYTES`.
fn size(v: u64, lo: u32, field: String) -> Result<u32> {
    if v < lo as u64 || v > MAX_PACKET_BYTES as u64 {
        return err(field, format!("must be in [{lo}, {MAX_PACKET_BYTES}] bytes, got {v}"));
    }
    Ok(v as u32)
}

fn err<T>(field: impl Into<String>, msg: impl Into<String>) -> Result<T> {
    Err(ScenarioError::new(field, msg))
}

fn rate(q: &Quantity, path: &str) -> Result<f64> {
    parse_rate(q).map_err(|e| ScenarioError::new(path, e))
}
fn time(q: &Quantity, path: &str) -> Result<f64> {
    parse_time(q).map_err(|e| ScenarioError::new(path, e))
}
/// A `rate_schedule`, parsed (empty when there is none): its first rate replaces `rate`.
fn schedule(s: &Option<RateSchedule>, path: &str) -> Result<Vec<(f64, f64)>> {
    s.as_ref().map_or(Ok(Vec::new()), |s| parse_schedule(s, path))
}
fn dist(d: &Dist, path: &str) -> Result<TimeDist> {
    parse_dist(d).map_err(|e| ScenarioError::new(path, e))
}

/// Merge TCP tables: `over` wins over `base`, unset fields fall to ns-2 defaults.
fn tcp_params(base: &TcpSpec, over: &TcpSpec, path: &str) -> Result<TcpParams> {
    let d = TcpParams::default();
    macro_rules! pick {
        ($f:ident) => {
            over.$f.clone().or(base.$f.clone())
        };
    }
    // A bad value is blamed on the table it was written in: this flow's own `tcp`, or the
    // top-level `[tcp]` it inherits.
    macro_rules! at {
        ($f:ident) => {
            if over.$f.is_some() { format!("{path}.{}", stringify!($f)) } else { format!("tcp.{}", stringify!($f)) }
        };
    }
    let variant = match pick!(variant) {
        None => d.variant,
        Some(v) => match Variant::parse(&v) {
            Some(v) => v,
            None => {
                return err(at!(variant), format!("unknown TCP variant {v:?} (expected one of: {})", Variant::NAMES));
            }
        },
    };
    macro_rules! t {
        ($f:ident) => {
            match pick!($f) {
                None => d.$f,
                Some(q) => time(&q, &at!($f))?,
            }
        };
    }
    macro_rules! size {
        ($f:ident, $lo:expr) => {
            match pick!($f) {
                None => d.$f,
                Some(v) => size(v, $lo, at!($f))?,
            }
        };
    }
    // Fields of one congestion control are refused where they cannot apply (a typo or a
    // forgotten variant would otherwise be silently ignored): in this flow's own table when
    // its variant does not use them, in the top-level table when the top-level variant does
    // not. A top-level field for another variant than this flow's is just not inherited, so
    // `[tcp] variant = "cubic"`, `hystart = false` can sit beside a group of Reno flows.
    let top_variant = base.variant.as_deref().and_then(Variant::parse).unwrap_or(d.variant);
    macro_rules! only_for {
        ($want:expr, $name:literal, $($f:ident),+) => {
            $(
                let (table_variant, set) = if over.$f.is_some() { (variant, true) } else { (top_variant, base.$f.is_some()) };
                if set && table_variant != $want {
                    return err(
                        at!($f),
                        format!("only used with variant = \"{}\" (the variant here is \"{}\")", $name, table_variant.name()),
                    );
                }
            )+
        };
    }
    only_for!(Variant::Cubic, "cubic", cubic_beta, cubic_c, fast_convergence, tcp_friendliness, hystart);
    only_for!(Variant::Dctcp, "dctcp", dctcp_g, dctcp_alpha_init);
    // DCTCP needs ECN (RFC 8257 §3): on by default, refused off in a table whose variant is
    // dctcp; an `ecn = false` inherited from a top level of another variant does not apply.
    let ecn = match (variant, over.ecn, base.ecn) {
        (Variant::Dctcp, Some(false), _) => {
            return err(at!(ecn), "DCTCP needs ECN: leave tcp.ecn unset or true with variant = \"dctcp\"");
        }
        (Variant::Dctcp, None, Some(false)) if top_variant == Variant::Dctcp => {
            return err(at!(ecn), "DCTCP needs ECN: leave tcp.ecn unset or true with variant = \"dctcp\"");
        }
        (Variant::Dctcp, _, _) => true,
        _ => pick!(ecn).unwrap_or(d.ecn),
    };
    let p = TcpParams {
        variant,
        packet_size: size!(packet_size, 1),
        header: size!(header, 0),
        use_headers: pick!(use_headers).unwrap_or(d.use_headers),
        window: pick!(window).unwrap_or(d.window),
        window_init: pick!(window_init).unwrap_or(d.window_init),
        syn: pick!(syn).unwrap_or(d.syn),
        delay_growth: pick!(delay_growth).unwrap_or(d.delay_growth),
        tick: t!(tick),
        min_rto: t!(min_rto),
        max_rto: t!(max_rto),
        rto_init: t!(rto_init),
        dupacks: pick!(dupacks).unwrap_or(d.dupacks),
        max_burst: pick!(max_burst).unwrap_or(d.max_burst),
        ecn,
        limited_transmit: pick!(limited_transmit).unwrap_or(d.limited_transmit),
        ack_size: size!(ack_size, 1),
        delayed_ack: pick!(delayed_ack).unwrap_or(d.delayed_ack),
        delack_interval: t!(delack_interval),
        cubic_beta: pick!(cubic_beta).unwrap_or(d.cubic_beta),
        cubic_c: pick!(cubic_c).unwrap_or(d.cubic_c),
        fast_convergence: pick!(fast_convergence).unwrap_or(d.fast_convergence),
        tcp_friendliness: pick!(tcp_friendliness).unwrap_or(d.tcp_friendliness),
        hystart: pick!(hystart).unwrap_or(d.hystart),
        dctcp_g: pick!(dctcp_g).unwrap_or(d.dctcp_g),
        dctcp_alpha_init: pick!(dctcp_alpha_init).unwrap_or(d.dctcp_alpha_init),
    };
    if !(p.cubic_beta > 0.0 && p.cubic_beta < 1.0) {
        return err(at!(cubic_beta), format!("must be in (0, 1), got {}", p.cubic_beta));
    }
    if !(p.cubic_c > 0.0 && p.cubic_c <= 1e6) {
        return err(at!(cubic_c), format!("must be in (0, 1e6], got {}", p.cubic_c));
    }
    if !(p.dctcp_g > 0.0 && p.dctcp_g <= 1.0) {
        return err(at!(dctcp_g), format!("must be in (0, 1], got {}", p.dctcp_g));
    }
    if !(0.0..=1.0).contains(&p.dctcp_alpha_init) {
        return err(at!(dctcp_alpha_init), format!("must be in [0, 1], got {}", p.dctcp_alpha_init));
    }
    if !(1.0..=MAX_WINDOW).contains(&p.window) {
        return err(at!(window), format!("must be in [1, 16777216] packets (2^24), got {}", p.window));
    }
    if !(1.0..=MAX_WINDOW).contains(&p.window_init) {
        return err(at!(window_init), format!("must be in [1, 16777216] packets (2^24), got {}", p.window_init));
    }
    if !(MIN_TICK_S..=MAX_TICK_S).contains(&p.tick) {
        return err(at!(tick), format!("must be in [1e-6, 1000] s, got {}", p.tick));
    }
    if p.min_rto > p.max_rto {
        return err(at!(min_rto), format!("must be ≤ max_rto ({}), got {}", p.max_rto, p.min_rto));
    }
    if p.dupacks == 0 {
        return err(at!(dupacks), "must be ≥ 1, got 0");
    }
    Ok(p)
}

/// The resolved `tcp` table; a congestion control's own fields only for its variant.
fn tcp_json(p: &TcpParams) -> Value {
    let mut j = tcp_json_common(p);
    match p.variant {
        Variant::Cubic => {
            j["cubic_beta"] = json!(p.cubic_beta);
            j["cubic_c"] = json!(p.cubic_c);
            j["fast_convergence"] = json!(p.fast_convergence);
            j["tcp_friendliness"] = json!(p.tcp_friendliness);
            j["hystart"] = json!(p.hystart);
        }
        Variant::Dctcp => {
            j["dctcp_g"] = json!(p.dctcp_g);
            j["dctcp_alpha_init"] = json!(p.dctcp_alpha_init);
        }
        _ => {}
    }
    j
}

fn tcp_json_common(p: &TcpParams) -> Value {
    json!({
        "variant": p.variant.name(), "packet_size": p.packet_size, "header": p.header,
        "use_headers": p.use_headers,        "window": p.window, "window_init": p.window_init, "syn": p.syn,
        "delay_growth": p.delay_growth, "tick": p.tick, "min_rto": p.min_rto,
        "max_rto": p.max_rto, "rto_init": p.rto_init, "dupacks": p.dupacks,
        "max_burst": p.max_burst, "ecn": p.ecn, "limited_transmit": p.limited_transmit,
        "ack_size": p.ack_size, "delayed_ack": p.delayed_ack, "delack_interval": p.delack_interval,
    })
}

struct Builder {
    nodes: Vec<String>,
    index: HashMap<String, u32>,
    links: Vec<LinkModel>,
    links_json: Vec<Value>,
    /// The scenario path of each duplex link (`links[link / 2]`), for messages.
    link_paths: Vec<String>,
}

impl Builder {
    fn node(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.nodes.len() as u32;
        self.nodes.push(name.to_string());
        self.index.insert(name.to_string(), i);
        i
    }

    fn set_drops(&mut self, link: usize, seqs: &[i32], path: &str) -> Result<()> {
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
    fn set_schedule(&mut self, link: usize, v: Vec<(f64, f64)>) {
        self.links_json[link / 2]["rate_schedule"] = json!(v.iter().map(|&(t, r)| json!([t, r])).collect::<Vec<_>>());
        self.links[link].rate_schedule = v.clone();
        self.links[link + 1].rate_schedule = v;
    }

    #[allow(clippy::too_many_arguments)]
    fn duplex(&mut self, a: u32, b: u32, rate_bps: f64, delay_s: f64, q: Option<&QueueSpec>, rq: Option<&QueueSpec>, path: &str) -> Result<()> {
        let info = LinkInfo { rate_bps, delay_s };
        let (aqm_f, jf) = build_queue(q, &format!("{path}.queue"), info)?;
        let (aqm_r, jr) = match rq {
            Some(_) => build_queue(rq, &format!("{path}.reverse_queue"), info)?,
            None => match q {
                // Explicit links: the reverse direction gets the same kind of queue.
                Some(_) if path.starts_with("links") => build_queue(q, &format!("{path}.queue"), info)?,
                _ => build_queue(None, &format!("{path}.reverse_queue"), info)?,
            },
        };
        self.link_paths.push(path.to_string());
        self.links_json.push(json!({
            "from": self.nodes[a as usize], "to": self.nodes[b as usize],
            "rate": rate_bps, "delay": delay_s, "queue": jf, "reverse_queue": jr,
        }));
        for (from, to, aqm) in [(a, b, aqm_f), (b, a, aqm_r)] {
            let name = format!("{}->{}", self.nodes[from as usize], self.nodes[to as usize]);
            self.links.push(LinkModel { from, to, rate_bps, delay_s, aqm, name, drop_seqs: Vec::new(), rate_schedule: Vec::new() });
        }
        Ok(())
    }
}

struct Traffic<'a> {
    app: &'a str,
    start: &'a Option<Dist>,
    stop: &'a Option<Quantity>,
    tcp: &'a TcpSpec,
    cbr: &'a Option<CbrSpec>,
    web: &'a Option<WebSpec>,
    onoff: &'a Option<OnOffSpec>,
}

fn flow_app(tr: &Traffic, top_tcp: &TcpSpec, duration: f64, path: &str) -> Result<(Source, TimeDist, f64, Value)> {
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
fn check_transfer_packets(w: &WebModel, p: &TcpParams, at: &str) -> Result<()> {
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
struct Flows {
    seed: u64,
    duration: f64,
    flows: Vec<FlowModel>,
    json: Vec<Value>,
    /// Sources so far: every bulk, CBR or on/off flow is one, and every web source. A
    /// source's number keys its random streams (start, web arrivals, run-time draws); in a
    /// scenario without web sources it is the flow's index.
    sources: u64,
    /// Web sources so far.
    web_sources: u64,
}

impl Flows {
    /// One source from `src` to `dst`: a flow, or (web) one flow per transfer it draws. Its
    /// resolved entry is one either way: a web source's holds its parameters, not the
    /// transfers (they follow from the seed and the resolved start).
    #[allow(clippy::too_many_arguments)]
    fn add(&mut self, src: u32, dst: u32, app: &Source, start: TimeDist, stop: f64, j: &Value, label: String, nodes: &[String], path: &str) -> Result<()> {
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

/// Check and resolve a scenario for master seed `seed`.
pub fn build(spec: &ScenarioSpec, seed: u64) -> Result<Model> {
    let duration = time(&spec.duration, "duration")?;
    if !(duration >= MIN_DURATION_S) {
        return err("duration", format!("must be in [1e-6, 1e6] s, got {duration}"));
    }
    let max_events = spec.max_events.unwrap_or(DEFAULT_MAX_EVENTS);
    if max_events == 0 {
        return err("max_events", "must be an integer in [1, 2^64), got 0");
    }
    let max_packets = spec.max_packets.unwrap_or(DEFAULT_MAX_PACKETS);
    if max_packets == 0 {
        return err("max_packets", "must be an integer in [1, 2^64), got 0");
    }
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

/// A monitor interval: at least 1 µs, and few enough rows for the run.
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

fn check_interval(dt: f64, duration: f64, queues: usize, what: &str, field: &str) -> Result<()> {
    if dt < MIN_MONITOR_INTERVAL_S {
        return err(field, format!("must be in [1e-6, 1e6] s, got {dt}"));
    }
    if queues == 0 {
        return Ok(());
    }
    let rows = (duration / dt).floor() * queues as f64;
    if rows > MAX_MONITOR_ROWS {
        let least = duration * queues as f64 / MAX_MONITOR_ROWS;
        return err(
            field,
            format!(
                "{dt} s over duration {duration} s for {queues} {what} makes {rows} rows, more than the {MAX_MONITOR_ROWS:e} allowed: use an interval ≥ {least} s (range [1e-6, 1e6] s)"
            ),
        );
    }
    Ok(())
}

/// Every packet must take at least the engine's 1 ns tick to serialise on every link (a
/// shorter time rounds to 0 and the link would send without limit). The check takes the
/// smallest packet of the scenario on the fastest link.
fn check_serialisation(b: &Builder, flows: &[FlowModel]) -> Result<()> {
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

/// `[trace]`: the links ("all", names, default the monitored queues), the format and the
/// path (required: nothing is written unless asked).
fn trace_model(t: Option<&crate::scenario::schema::TraceSpec>, links: &[LinkModel], monitored: &[u32]) -> Result<Option<TraceModel>> {
    let Some(t) = t else { return Ok(None) };
    let format = match t.format.as_deref() {
        None | Some("ns2") => TraceFormat::Ns2,
        Some("pcap") => TraceFormat::Pcap,
        Some(other) => return err("trace.format", format!("unknown format {other:?} (expected one of: ns2, pcap)")),
    };
    let path = match t.path.as_deref() {
        Some(p) if !p.trim().is_empty() => std::path::PathBuf::from(p),
        _ => return err("trace.path", "required: the file (ns2) or directory (pcap) to write the trace to"),
    };
    super::trace_path::check_trace_path(&path, format)?;
    let named = |s: &str| links.iter().position(|l| l.name == s);
    let mut out: Vec<u32> = match &t.links {
        None => monitored.to_vec(),
        Some(Value::String(s)) if s == "all" => (0..links.len() as u32).collect(),
        Some(Value::Array(items)) => {
            let mut v = Vec::new();
            for (k, item) in items.iter().enumerate() {
                match item.as_str().and_then(named) {
                    Some(i) => v.push(i as u32),
                    None => {
                        let some: Vec<&str> = links.iter().take(6).map(|l| l.name.as_str()).collect();
                        return err(format!("trace.links[{k}]"), format!("no link {item} (links are named \"from->to\", e.g. {})", some.join(", ")));
                    }
                }
            }
            v
        }
        Some(other) => return err("trace.links", format!("expected \"all\" or a list of link names (\"from->to\"), got {other}")),
    };
    if out.is_empty() {
        return err("trace.links", "no link to trace: name them (e.g. [\"R1->R2\"]) or use \"all\"");
    }
    if format == TraceFormat::Pcap {
        // a capture is a tap on the cable: both directions of each link
        let reverse: Vec<u32> = out
            .iter()
            .filter_map(|&l| links.iter().position(|r| r.from == links[l as usize].to && r.to == links[l as usize].from))
            .map(|r| r as u32)
            .collect();
        out.extend(reverse);
    }
    out.sort_unstable();
    out.dedup();
    Ok(Some(TraceModel { links: out, format, path }))
}

/// `monitor.tcp_flows`: flow indexes (as in the flows table), flow labels (every flow with
/// that label), or "all" (every TCP flow). Sorted, without repeats; CBR flows refused.
fn traced_flows(v: Option<&Value>, flows: &[FlowModel]) -> Result<Vec<u32>> {
    const F: &str = "monitor.tcp_flows";
    let is_tcp = |i: usize| flows[i].app.is_tcp();
    let items: Vec<Value> = match v {
        None => return Ok(Vec::new()),
        Some(Value::String(s)) if s == "all" => return Ok((0..flows.len()).filter(|&i| is_tcp(i)).map(|i| i as u32).collect()),
        Some(Value::Array(a)) => a.clone(),
        Some(other) => return err(F, format!("expected {}, got {other}", tcp_flow_choices(flows))),
    };
    let mut out = Vec::new();
    for (k, item) in items.iter().enumerate() {
        let at = format!("{F}[{k}]");
        match item {
            Value::Number(n) => match n.as_u64() {
                Some(i) if (i as usize) < flows.len() => {
                    if !is_tcp(i as usize) {
                        return err(at, format!("flow {i} is not a TCP flow (its app is UDP: cbr or onoff)"));
                    }
                    out.push(i as u32);
                }
                _ => return err(at, format!("no flow {n}: expected {}", tcp_flow_choices(flows))),
            },
            Value::String(s) => {
                let before = out.len();
                out.extend((0..flows.len()).filter(|&i| flows[i].label == *s && is_tcp(i)).map(|i| i as u32));
                if out.len() == before {
                    return err(at, format!("no TCP flow labelled {s:?}: expected {}", tcp_flow_choices(flows)));
                }
            }
            other => return err(at, format!("expected {}, got {other}", tcp_flow_choices(flows))),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// What `monitor.tcp_flows` may hold in this scenario: "all", the TCP flows' indexes (as
/// ranges) and their labels (the first few).
fn tcp_flow_choices(flows: &[FlowModel]) -> String {
    let tcp: Vec<usize> = (0..flows.len()).filter(|&i| flows[i].app.is_tcp()).collect();
    if tcp.is_empty() {
        return "nothing: the scenario has no TCP flow to record".into();
    }
    let mut ranges: Vec<String> = Vec::new();
    let mut k = 0;
    while k < tcp.len() {
        let mut j = k;
        while j + 1 < tcp.len() && tcp[j + 1] == tcp[j] + 1 {
            j += 1;
        }
        ranges.push(if j == k { tcp[k].to_string() } else { format!("{}-{}", tcp[k], tcp[j]) });
        k = j + 1;
    }
    let mut labels: Vec<&str> = tcp.iter().map(|&i| flows[i].label.as_str()).collect();
    labels.dedup();
    let more = if labels.len() > 8 { ", ..." } else { "" };
    labels.truncate(8);
    let ranges = if ranges.len() > 8 { format!("{}, ...", ranges[..8].join(", ")) } else { ranges.join(", ") };
    format!("\"all\" or a list of TCP flow indexes ({ranges}) or labels ({}{more})", labels.join(", "))
}

/// The connected part of each node (an id per part), with links taken both ways.
fn components(n: usize, links: impl Iterator<Item = (u32, u32)>) -> Vec<u32> {
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
