//! The scenario file schema (serde). One schema for TOML files and the Python API (which
//! hands us the same structure as JSON). Unknown fields are errors.

pub use super::traffic::{OnOffSpec, RateSchedule, WebSpec};
use super::units::{Dist, Quantity};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub notes: BTreeMap<String, String>,
    pub duration: Quantity,
    #[serde(default = "one")]
    pub seed: u64,
    #[serde(default)]
    pub tcp: TcpSpec,
    pub dumbbell: Option<DumbbellSpec>,
    #[serde(default)]
    pub nodes: Vec<String>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    #[serde(default)]
    pub monitor: MonitorSpec,
    /// Stop with an error after this many events (default `build::DEFAULT_MAX_EVENTS`).
    pub max_events: Option<u64>,
    /// Stop with an error when more packets than this wait in queues or travel on links at
    /// once (default `build::DEFAULT_MAX_PACKETS`): a memory guard.
    pub max_packets: Option<u64>,
    /// Wall-clock time a run with Python plug-ins may take (default
    /// `plugin::DEFAULT_TIME_LIMIT_S`); past it the run fails naming the plug-in.
    pub plugin_time_limit: Option<Quantity>,
    /// Packet traces of some links.
    pub trace: Option<TraceSpec>,
}

/// `[trace]`: which links, in which format, to which file or directory.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// "all", or link names `"a->b"` (default: the monitored queues).
    pub links: Option<serde_json::Value>,
    /// "ns2" (default) or "pcap".
    pub format: Option<String>,
    /// ns2: the trace file; pcap: a directory, one `<from>-<to>.pcap` per link.
    pub path: Option<String>,
}

fn one() -> u64 {
    1
}

/// TCP parameters; every field optional (unset = inherit, finally ns-2's default).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Sender model: "ns2" (default) or "linux" (`scenario/tcp_stack.rs`).
    pub stack: Option<String>,
    pub variant: Option<String>,
    pub packet_size: Option<u64>,
    pub header: Option<u64>,
    pub use_headers: Option<bool>,
    pub window: Option<f64>,
    pub window_init: Option<f64>,
    pub syn: Option<bool>,
    pub delay_growth: Option<bool>,
    pub tick: Option<Quantity>,
    pub min_rto: Option<Quantity>,
    pub max_rto: Option<Quantity>,
    pub rto_init: Option<Quantity>,
    pub dupacks: Option<u32>,
    pub max_burst: Option<u32>,
    pub ecn: Option<bool>,
    pub limited_transmit: Option<bool>,
    pub ack_size: Option<u64>,
    pub delayed_ack: Option<bool>,
    pub delack_interval: Option<Quantity>,
    // CUBIC (variant = "cubic")
    pub cubic_beta: Option<f64>,
    pub cubic_c: Option<f64>,
    pub fast_convergence: Option<bool>,
    pub tcp_friendliness: Option<bool>,
    pub hystart: Option<bool>,
    // DCTCP (variant = "dctcp")
    pub dctcp_g: Option<f64>,
    pub dctcp_alpha_init: Option<f64>,
    // stack = "linux"
    pub delack_count: Option<u32>,
    pub sack: Option<bool>,
    pub ns3_quirks: Option<bool>,
    pub syn_rtt: Option<Quantity>,
    pub pacing: Option<bool>,
    /// "rfc6675" (default) or "rack" (RACK-TLP, RFC 8985).
    pub loss_detection: Option<String>,
    pub timestamps: Option<bool>,
    /// "ect0" (default with ecn) or "ect1": the IP ECN codepoint of data (stack = "linux").
    pub ect: Option<String>,
    /// AccECN feedback (RFC 9768), asked for by the sender / supported by the receiver.
    pub accecn: Option<bool>,
    pub sink_accecn: Option<bool>,
    /// TCP Prague's virtual RTT (variant = "prague").
    pub prague_rtt_target: Option<Quantity>,
    /// TCP Prague's Classic ECN AQM detection: 0 none, 1 detection and fall-back, 2 detection.
    pub prague_ecn_fallback: Option<i64>,
    // LEDBAT (variant = "ledbat", stack = "linux"): ns-3.37 TcpLedbat's attributes
    pub ledbat_target: Option<Quantity>,
    pub ledbat_gain: Option<f64>,
    pub ledbat_base_history: Option<u32>,
    pub ledbat_noise_filter: Option<u32>,
    pub ledbat_slow_start: Option<bool>,
    pub ledbat_min_cwnd: Option<u32>,
    // A Python congestion control (variant = "python", stack = "linux")
    pub cc_class: Option<String>,
    pub cc: Option<serde_json::Map<String, serde_json::Value>>,
}

/// A queue table: `kind` plus that discipline's parameters (checked per kind).
pub type QueueSpec = serde_json::Map<String, serde_json::Value>;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BottleneckSpec {
    pub rate: Quantity,
    pub delay: Quantity,
    /// Deterministic loss (like ns-2's `ErrorModel/List`): the first transmission of data
    /// packets with these sequence numbers is lost on entering the link (forward direction).
    pub drop_seqs: Option<Vec<i32>>,
    pub queue: Option<QueueSpec>,
    pub reverse_queue: Option<QueueSpec>,
    /// The link's rate from each time on: `[[time, rate], ...]` (RFC 7928 §8.2.6).
    pub rate_schedule: Option<RateSchedule>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccessSpec {
    pub rate: Quantity,
    pub delay: Dist,
    pub queue: Option<QueueSpec>,
    pub reverse_queue: Option<QueueSpec>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CbrSpec {
    pub rate: Quantity,
    #[serde(default = "cbr_size")]
    pub packet_size: u64,
    /// Packets sent back to back per period (default 1: evenly spaced).
    pub burst: Option<u64>,
}

fn cbr_size() -> u64 {
    210
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupSpec {
    #[serde(default)]
    pub name: String,
    #[serde(default = "one")]
    pub count: u64,
    pub access: AccessSpec,
    pub egress: Option<AccessSpec>,
    #[serde(default = "ftp")]
    pub app: String,
    pub start: Option<Dist>,
    pub stop: Option<Quantity>,
    #[serde(default)]
    pub tcp: TcpSpec,
    pub cbr: Option<CbrSpec>,
    /// `app = "web"`: short TCP transfers (`scenario::traffic`).
    pub web: Option<WebSpec>,
    /// `app = "onoff"`: an on/off UDP source (`scenario::traffic`).
    pub onoff: Option<OnOffSpec>,
}

fn ftp() -> String {
    "ftp".into()
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    pub bottleneck: BottleneckSpec,
    pub groups: Vec<GroupSpec>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub from: String,
    pub to: String,
    pub rate: Quantity,
    pub delay: Quantity,
    /// As `BottleneckSpec::drop_seqs`, for the from->to direction.
    pub drop_seqs: Option<Vec<i32>>,
    pub queue: Option<QueueSpec>,
    pub reverse_queue: Option<QueueSpec>,
    /// As `BottleneckSpec::rate_schedule`.
    pub rate_schedule: Option<RateSchedule>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// A name for reports (default `flows[i]`).
    pub label: Option<String>,
    pub src: String,
    pub dst: String,
    #[serde(default = "one")]
    pub count: u64,
    #[serde(default = "ftp")]
    pub app: String,
    pub start: Option<Dist>,
    pub stop: Option<Quantity>,
    #[serde(default)]
    pub tcp: TcpSpec,
    pub cbr: Option<CbrSpec>,
    /// `app = "web"`: short TCP transfers (`scenario::traffic`).
    pub web: Option<WebSpec>,
    /// `app = "onoff"`: an on/off UDP source (`scenario::traffic`).
    pub onoff: Option<OnOffSpec>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MonitorSpec {
    pub queues: Option<Vec<String>>,
    pub sample_interval: Option<Quantity>,
    pub link_interval: Option<Quantity>,
    /// TCP senders whose state is recorded: flow indexes, flow labels, or "all".
    pub tcp_flows: Option<serde_json::Value>,
    /// Record their state every this long instead of at every change.
    pub tcp_interval: Option<Quantity>,
    /// Keep the delay distributions (queueing and end-to-end).
    pub delays: Option<bool>,
}
