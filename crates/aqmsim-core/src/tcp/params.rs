//! What a TCP flow is configured with: its variant and its parameters (ns-2 2.35's
//! `Agent/TCP` defaults). Shared by every part of `tcp/` and by the scenario builder; it
//! depends on nothing else in `tcp/`.

/// Largest advertised or initial window, packets (2^24: sequence arithmetic stays in i32).
pub const MAX_WINDOW: f64 = 16_777_216.0;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Variant {
    Tahoe,
    Reno,
    NewReno,
    Sack,
    /// CUBIC (ns-3.37 `TcpCubic`) over the Sack1 loss recovery.
    Cubic,
    /// DCTCP (ns-3.37 `TcpDctcp`, RFC 8257) over the Sack1 loss recovery.
    Dctcp,
    /// BBR v1 (ns-3.37 `TcpBbr`), `stack = "linux"` only (`tcp/linux/bbr.rs`).
    Bbr,
    /// BBR v3 (draft-ietf-ccwg-bbr), `stack = "linux"` only (`tcp/linux/bbr3.rs`).
    Bbr3,
    /// LEDBAT (ns-3.37 `TcpLedbat`, RFC 6817), `stack = "linux"` only (`tcp/linux/ledbat.rs`).
    Ledbat,
    /// TCP Prague (the L4S team's `tcp_prague.c`, RFC 9331 §4), `stack = "linux"` only
    /// (`tcp/linux/prague.rs`).
    Prague,
    /// A congestion control written in Python (`cc_class`, `cc`): on the linux stack through
    /// `tcp/linux/plugin_ops.rs`, on the ns-2 stack inside ns-2's NewReno agent
    /// (`tcp/sender/plugin_glue.rs`).
    Python,
}

impl Variant {
    pub fn parse(s: &str) -> Option<Variant> {
        match s.to_ascii_lowercase().as_str() {
            "tahoe" => Some(Variant::Tahoe),
            "reno" => Some(Variant::Reno),
            "newreno" => Some(Variant::NewReno),
            "sack" | "sack1" => Some(Variant::Sack),
            "cubic" => Some(Variant::Cubic),
            "dctcp" => Some(Variant::Dctcp),
            "bbr" => Some(Variant::Bbr),
            "bbr3" => Some(Variant::Bbr3),
            "ledbat" => Some(Variant::Ledbat),
            "prague" => Some(Variant::Prague),
            "python" => Some(Variant::Python),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Variant::Tahoe => "tahoe",
            Variant::Reno => "reno",
            Variant::NewReno => "newreno",
            Variant::Sack => "sack",
            Variant::Cubic => "cubic",
            Variant::Dctcp => "dctcp",
            Variant::Bbr => "bbr",
            Variant::Bbr3 => "bbr3",
            Variant::Ledbat => "ledbat",
            Variant::Prague => "prague",
            Variant::Python => "python",
        }
    }
    pub const NAMES: &'static str = "tahoe, reno, newreno, sack, cubic, dctcp, bbr, bbr3, ledbat, prague, python";

    /// Loss recovery with SACK (the sink sends SACK blocks): Sack1, and CUBIC and DCTCP
    /// (ns-3 and Linux run them with SACK).
    #[inline]
    pub fn uses_sack(self) -> bool {
        matches!(self, Variant::Sack | Variant::Cubic | Variant::Dctcp)
    }
}

/// Sender parameters, with ns-2 2.35's `Agent/TCP` defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpParams {
    pub variant: Variant,
    /// Payload bytes per packet (`packetSize_`, 1000).
    pub packet_size: u32,
    /// TCP/IP header bytes (`tcpip_base_hdr_size_`, 40): the size of a SYN, and added to
    /// every data packet but sequence 0 when `use_headers`.
    pub header: u32,
    /// Add `header` to data packets (`useHeaders_`, true; ns-2 before 2.1b8 had no headers:
    /// a data packet was `packetSize_` bytes on the wire).
    pub use_headers: bool,
    /// Advertised-window cap in packets (`window_`, 20).
    pub window: f64,
    /// Initial congestion window (`windowInit_`, 2).
    pub window_init: f64,
    /// Open with a 40-byte SYN as packet 0 (`syn_`, true) and hold the window at 1 until it
    /// is acknowledged (`delay_growth_`, true).
    pub syn: bool,
    pub delay_growth: bool,
    /// Clock granularity of the RTT estimator, s (`tcpTick_`, 0.01).
    pub tick: f64,
    pub min_rto: f64,
    pub max_rto: f64,
    /// RTO before the first measurement (`rtxcur_init_`, 3 s).
    pub rto_init: f64,
    /// Duplicate ACKs that trigger fast retransmit (`numdupacks_`, 3).
    pub dupacks: u32,
    /// Packets sent per ACK at most, 0 = unlimited (`maxburst_`).
    pub max_burst: u32,
    /// ECN capable (`ecn_`).
    pub ecn: bool,
    /// Limited transmit on the first two duplicate ACKs (`singledup_`, 1).
    pub limited_transmit: bool,
    /// ACK size in bytes (sink `packetSize_`, 40).
    pub ack_size: u32,
    /// Sink delays ACKs (`Agent/TCPSink/DelAck`), with this interval (`interval_`, 0.1 s).
    pub delayed_ack: bool,
    pub delack_interval: f64,
    /// CUBIC (variant `cubic`, see `cubic.rs`): β of the multiplicative decrease (0.7),
    /// C (0.4), fast convergence (true), the TCP-friendly region (true, RFC 9438
    /// and Linux; ns-3.37 has none: false agrees with it), HyStart (true, as ns-3 and Linux).
    pub cubic_beta: f64,
    pub cubic_c: f64,
    pub fast_convergence: bool,
    pub tcp_friendliness: bool,
    pub hystart: bool,
    /// DCTCP (variant `dctcp`, see `dctcp.rs`): gain g (1/16) and initial α (1).
    pub dctcp_g: f64,
    pub dctcp_alpha_init: f64,
    /// Sender model (`stack`, "ns2" default). The fields below are the `linux` stack's.
    pub stack: Stack,
    /// Linux stack: in-order segments per delayed ACK (ns-3 `DelAckCount`, 2).
    pub delack_count: u32,
    /// Linux stack: SACK (ns-3 `Sack`, true).
    pub sack: bool,
    /// Linux stack: reproduce ns-3.37's arithmetic slips too (false: PRR in 64 bits).
    pub ns3_quirks: bool,
    /// Linux stack: an RTT sample (s) taken before the first data, as ns-3's handshake
    /// gives its estimator (0: none, the first sample comes from data).
    pub syn_rtt: f64,
    /// Linux stack: pacing (ns-3 `EnablePacing`, false; see `tcp/linux/pacing.rs`).
    pub pacing: bool,
    /// Linux stack: RACK-TLP loss detection (`loss_detection = "rack"`, RFC 8985;
    /// false: RFC 6675's DupThresh, as ns-3.37).
    pub rack: bool,
    /// Linux stack: RFC 7323 timestamps (ns-3 `Timestamp`; see `docs/tcp/stack-linux.md`).
    pub timestamps: bool,
    /// Linux stack, variant `ledbat`: ns-3.37 `TcpLedbat`'s attributes.
    pub ledbat: LedbatParams,
    /// Linux stack: data is sent ECT(1) instead of ECT(0) (`ect = "ect1"`, with `ecn`).
    pub ect1: bool,
    /// Linux stack: the sender asks for AccECN feedback (RFC 9768, `accecn`).
    pub accecn: bool,
    /// Linux stack: the receiver supports AccECN (`sink_accecn`, true); with `accecn` the
    /// handshake's outcome is AccECN, else RFC 3168 feedback (`tcp/accecn.rs`).
    pub sink_accecn: bool,
    /// Variant `prague`: the virtual RTT below which additive increase is scaled up, s
    /// (`prague_rtt_target`, 25 ms as the reference's `rtt_target`).
    pub prague_rtt_target: f64,
    /// Variant `prague`: the Classic ECN AQM detection (`prague_ecn_fallback`, as the
    /// reference's module parameter: 0 none, 1 detection and fall-back, 2 detection only).
    pub prague_ecn_fallback: u8,
    /// Variant `python`: the plug-in's class and keyword arguments (`cc_class`, `cc`).
    pub cc_plugin: Option<std::sync::Arc<CcPluginSpec>>,
}

/// A Python congestion control as the scenario names it (variant `python`).
#[derive(Clone, Debug, PartialEq)]
pub struct CcPluginSpec {
    /// The table handed to the plug-in factory: `cc_class` and `cc`.
    pub table: serde_json::Map<String, serde_json::Value>,
    /// The scenario path of the `tcp` table (for messages).
    pub path: String,
}

impl TcpParams {
    /// Bytes on the wire of data packet `seqno`, as ns-2.35's `TcpAgent::output`: sequence 0
    /// never gets the header added. With a SYN it is the SYN (`header` bytes); without one it
    /// is the first data packet, `packet_size` bytes. Every other packet is `packet_size`,
    /// plus `header` when `use_headers`.
    pub fn wire_size(&self, seqno: i32) -> u32 {
        match (seqno, self.syn) {
            (0, true) => self.header,
            (0, false) => self.packet_size,
            _ if self.use_headers => self.packet_size + self.header,
            _ => self.packet_size,
        }
    }

    /// Payload bytes of a data packet (goodput counts these).
    pub fn payload(&self) -> u32 {
        self.packet_size
    }
}

impl Default for TcpParams {
    fn default() -> Self {
        TcpParams {
            variant: Variant::Reno,
            packet_size: 1000,
            header: 40,
            use_headers: true,
            window: 20.0,
            window_init: 2.0,
            syn: true,
            delay_growth: true,
            tick: 0.01,
            min_rto: 0.2,
            max_rto: 60.0,
            rto_init: 3.0,
            dupacks: 3,
            max_burst: 0,
            ecn: false,
            limited_transmit: true,
            ack_size: 40,
            delayed_ack: false,
            delack_interval: 0.1,
            cubic_beta: 0.7,
            cubic_c: 0.4,
            fast_convergence: true,
            tcp_friendliness: true,
            hystart: true,
            dctcp_g: 0.0625,
            dctcp_alpha_init: 1.0,
            stack: Stack::Ns2,
            delack_count: 2,
            sack: true,
            ns3_quirks: false,
            syn_rtt: 0.0,
            pacing: false,
            rack: false,
            timestamps: false,
            ledbat: LedbatParams::default(),
            ect1: false,
            accecn: false,
            sink_accecn: true,
            prague_rtt_target: 0.025,
            prague_ecn_fallback: 0,
            cc_plugin: None,
        }
    }
}

impl TcpParams {
    /// The `linux` stack's defaults, as ns-3.37 sets them (see `docs/tcp/stack-linux.md`):
    /// NewReno, initial window 10 segments, delayed ACKs (2 segments, 200 ms), min RTO 1 s,
    /// initial RTO 1 s, SACK, RFC 7323 timestamps (`TcpSocketBase::Timestamp`, true), no SYN,
    /// receive window 131 072 bytes (`RcvBufSize`).
    pub fn linux() -> Self {
        let d = TcpParams::default();
        TcpParams {
            variant: Variant::NewReno,
            window: 131_072.0 / d.packet_size as f64,
            window_init: 10.0,
            syn: false,
            delay_growth: false,
            min_rto: 1.0,
            rto_init: 1.0,
            delayed_ack: true,
            delack_interval: 0.2,
            stack: Stack::Linux,
            // ns-3.37's TcpCubic has no TCP-friendly region
            tcp_friendliness: false,
            // ns-3.37's TcpSocketBase::Timestamp and Linux's tcp_timestamps are on
            timestamps: true,
            ..d
        }
    }
}

/// Which sender model a TCP flow runs (`tcp.stack`; re-exported as `tcp::linux::Stack`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Stack {
    /// ns-2 2.35's agents, packet-counted (the default: the papers' model).
    #[default]
    Ns2,
    /// Linux / ns-3.37: bytes, RFC 6675 SACK recovery, PRR (`tcp/linux/`).
    Linux,
}

impl Stack {
    pub fn parse(s: &str) -> Option<Stack> {
        match s.to_ascii_lowercase().as_str() {
            "ns2" => Some(Stack::Ns2),
            "linux" => Some(Stack::Linux),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Stack::Ns2 => "ns2",
            Stack::Linux => "linux",
        }
    }
    pub const NAMES: &'static str = "ns2, linux";
}

/// ns-3.37 `TcpLedbat`'s attributes (variant `ledbat`, `tcp/linux/ledbat.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct LedbatParams {
    /// `TargetDelay`, s (0.1).
    pub target: f64,
    /// `Gain` (1).
    pub gain: f64,
    /// `BaseHistoryLen`: minute buckets of base delay (10; ns-3 keeps one fewer).
    pub base_history: u32,
    /// `NoiseFilterLen`: current-delay samples (4; ns-3 keeps one fewer).
    pub noise_filter: u32,
    /// `SSParam`: slow start allowed (`DO_SLOWSTART`, true).
    pub slow_start: bool,
    /// `MinCwnd`, segments (2).
    pub min_cwnd: u32,
}

impl Default for LedbatParams {
    fn default() -> Self {
        LedbatParams { target: 0.1, gain: 1.0, base_history: 10, noise_filter: 4, slow_start: true, min_cwnd: 2 }
    }
}
