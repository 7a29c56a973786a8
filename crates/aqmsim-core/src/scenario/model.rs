//! The resolved model a scenario builds into (what [`crate::sim::Simulation`] runs): links,
//! flows and their applications, monitors, traces; and the scenario-wide limits.

use super::traffic::OnOffModel;
use crate::aqm::AnyAqm;
use crate::tcp::TcpParams;
use serde_json::Value;

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
    /// `queue.device_queue`: packets the device holds under the discipline (0: none).
    pub device_queue: u32,
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
