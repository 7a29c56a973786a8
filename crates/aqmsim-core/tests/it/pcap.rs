//! pcap traces read back by tshark: no malformed packet, every header as aqmsim meant it,
//! and tshark's count of TCP retransmissions equal to the senders' counters.
//!
//! The packets come from real `TcpSender`/`TcpSink` pairs driven through a small lossy link
//! model of this file (deterministic drops and CE marks), captured at the sender: data when
//! sent, ACKs when they arrive back, as `tcpdump` on the sending host would.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};
use std::process::Command;

use aqmsim_core::packet::{ecn, Kind, Packet};
use aqmsim_core::tcp::{TcpParams, TcpSender, TcpSink, Variant};
use aqmsim_core::time::SimTime;
use aqmsim_core::trace::pcap::{self, PcapWriter};
use aqmsim_core::trace::{FlowInfo, TraceEvent, Where};

/// Run tshark; a missing tshark is a failure, never a skip.
fn tshark(args: &[&str]) -> String {
    let out = Command::new("tshark").args(args).output().unwrap_or_else(|e| {
        panic!("cannot run tshark ({e}): `make tshark` installs it (`make test` does)")
    });
    assert!(out.status.success(), "tshark {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// tshark on `file` with the preferences the checks rely on set explicitly (a user's
/// preference file cannot change them).
fn read(file: &Path, extra: &[&str]) -> String {
    let f = file.to_str().unwrap();
    let mut args = vec![
        "-r", f, "-n",
        "-o", "tcp.analyze_sequence_numbers:TRUE",
        "-o", "tcp.relative_sequence_numbers:TRUE",
        "-o", "tcp.check_checksum:FALSE",
    ];
    args.extend_from_slice(extra);
    tshark(&args)
}

/// Remove a checked file, unless `AQMSIM_KEEP_PCAP` is set (to open it in Wireshark).
fn done(file: &Path) {
    if std::env::var_os("AQMSIM_KEEP_PCAP").is_some() {
        eprintln!("kept {}", file.display());
    } else {
        std::fs::remove_file(file).unwrap();
    }
}

fn tmp(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}.pcap", std::process::id()))
}

/// One connection over its own link: data at `rate` with one-way `delay`, ACKs back with
/// `delay`; transmission `i` of the data (1, 2, ...) is dropped when `i % drop_every == 0`,
/// a retransmission also when it is the `lose_rtx_every`-th one (forcing timeouts), and an
/// ECT packet is CE-marked when `i % ce_every == 0`.
struct Conn {
    snd: TcpSender,
    sink: TcpSink,
    info: FlowInfo,
    busy: u64,
    tx: u64,
    rtx: u64,
    drop_every: u64,
    lose_rtx_every: u64,
    ce_every: u64,
    bit_ns: u64,
    delay_ns: u64,
}

/// Packets each connection sends (the SYN included).
const PACKETS: i32 = 1500;

enum Ev {
    Data(usize, Packet),
    Ack(usize, Packet),
    Rto(usize),
    DelAck(usize, u32),
}

struct Net {
    conns: Vec<Conn>,
    heap: BinaryHeap<Reverse<(u64, u64, usize)>>,
    evs: Vec<Option<Ev>>,
    pcap: PcapWriter,
    /// What was written, in order (frame k + 1 is `written[k]`).
    written: Vec<Packet>,
}

impl Net {
    fn push(&mut self, t: u64, ev: Ev) {
        let k = self.evs.len();
        self.evs.push(Some(ev));
        self.heap.push(Reverse((t, k as u64, k)));
    }

    fn capture(&mut self, c: usize, now: u64, p: &Packet) {
        let info = &self.conns[c].info;
        let (from, to) = if p.kind == Kind::Ack { (info.dst, info.src) } else { (info.src, info.dst) };
        let at = Where { t: SimTime(now), secs: now as f64 * 1e-9, ev: TraceEvent::Dequeue, from, to };
        self.pcap.write(&at, p, info).unwrap();
        self.written.push(*p);
    }

    /// The sender emitted `out`: capture, then lose, mark or deliver each.
    fn send(&mut self, c: usize, now: u64, out: &mut Vec<Packet>) {
        for mut p in out.drain(..) {
            let k = &mut self.conns[c];
            k.tx += 1;
            let mut lost = k.tx % k.drop_every == 0;
            if p.rtx() {
                k.rtx += 1;
                lost |= k.rtx % k.lose_rtx_every == 0;
            }
            if !lost && p.has(ecn::ECT) && k.tx % k.ce_every == 0 {
                p.ecn |= ecn::CE; // marked before the capture point: shows in the pcap
            }
            let start = now.max(k.busy);
            k.busy = start + p.size as u64 * k.bit_ns;
            let arrive = k.busy + k.delay_ns;
            self.capture(c, now, &p);
            if !lost {
                self.push(arrive, Ev::Data(c, p));
            }
        }
        if let Some(d) = self.conns[c].snd.rtx_deadline() {
            self.push(d.0, Ev::Rto(c));
        }
    }

    fn run(&mut self) {
        let mut out = Vec::new();
        for c in 0..self.conns.len() {
            self.conns[c].snd.advance(PACKETS, SimTime::ZERO, &mut out);
            self.send(c, 0, &mut out);
        }
        while let Some(Reverse((t, _, k))) = self.heap.pop() {
            assert!(t < 600_000_000_000, "the transfers end within 600 s");
            let now = SimTime(t);
            match self.evs[k].take().unwrap() {
                Ev::Data(c, p) => {
                    let k = &mut self.conns[c];
                    let delay = k.delay_ns;
                    if let Some(a) = k.sink.recv(&p, now) {
                        self.push(t + delay, Ev::Ack(c, a));
                    } else if k.sink.wants_timer() {
                        let (g, d) = (k.sink.delack_gen, (k.sink.delack_interval * 1e9) as u64);
                        self.push(t + d, Ev::DelAck(c, g));
                    }
                }
                Ev::DelAck(c, g) => {
                    let k = &mut self.conns[c];
                    let delay = k.delay_ns;
                    if let Some(a) = k.sink.on_delack_timer(g, now) {
                        self.push(t + delay, Ev::Ack(c, a));
                    }
                }
                Ev::Ack(c, a) => {
                    self.capture(c, t, &a);
                    self.conns[c].snd.recv_ack(&a, now, &mut out);
                    self.send(c, t, &mut out);
                }
                Ev::Rto(c) => {
                    // (once everything is acked the idle timer would fire forever)
                    let snd = &self.conns[c].snd;
                    if snd.rtx_deadline() == Some(now) && snd.highest_ack < PACKETS - 1 {
                        self.conns[c].snd.on_timeout(now, &mut out);
                        self.send(c, t, &mut out);
                    }
                }
            }
        }
    }
}

struct Setup {
    flow: u32,
    src: u32,
    dst: u32,
    variant: Variant,
    syn: bool,
    ecn: bool,
    delayed_ack: bool,
    drop_every: u64,
    lose_rtx_every: u64,
    ce_every: u64,
}

fn conn(s: &Setup) -> Conn {
    let p = TcpParams {
        variant: s.variant,
        syn: s.syn,
        ecn: s.ecn,
        delayed_ack: s.delayed_ack,
        window: 30.0,
        ..TcpParams::default()
    };
    let info = FlowInfo { src: s.src, dst: s.dst, tcp: true, payload: p.packet_size, header: p.header, syn: s.syn };
    let sink = TcpSink::new(s.flow, s.src, p.ack_size, p.payload(), s.delayed_ack, p.delack_interval, s.syn, s.variant == Variant::Sack);
    Conn {
        snd: TcpSender::new(p, s.flow, s.dst, 0.003),
        sink,
        info,
        busy: 0,
        tx: 0,
        rtx: 0,
        drop_every: s.drop_every,
        lose_rtx_every: s.lose_rtx_every,
        ce_every: s.ce_every,
        bit_ns: 8 * 1_000_000_000 / 10_000_000, // 10 Mb/s
        delay_ns: 20_000_000,
    }
}

/// Five connections, each lossy its own way. Flow 0's sender port (10000) is NDMP's and
/// flow 10000's (20000) DNP3's to Wireshark: neither may be dissected into an error.
fn setups() -> Vec<Setup> {
    let s = |flow, src, dst, variant, syn, ecn, delayed_ack, drop_every, lose_rtx_every, ce_every| Setup {
        flow, src, dst, variant, syn, ecn, delayed_ack, drop_every, lose_rtx_every, ce_every,
    };
    vec![
        s(0, 1, 2, Variant::Reno, true, false, false, 29, 4, u64::MAX),
        s(1, 3, 4, Variant::NewReno, true, false, false, 37, 3, u64::MAX),
        s(2, 5, 6, Variant::Sack, true, false, false, 23, 5, u64::MAX),
        s(3, 0x01_0203, 0x02_0304, Variant::Tahoe, true, true, false, 41, 3, 17),
        s(10_000, 7, 8, Variant::Reno, false, true, true, 31, 2, 13),
    ]
}

#[test]
fn tshark_reads_the_trace_and_counts_the_retransmissions() {
    let file = tmp("lossy");
    let mut net = Net {
        conns: setups().iter().map(conn).collect(),
        heap: BinaryHeap::new(),
        evs: Vec::new(),
        pcap: PcapWriter::create(&file).unwrap(),
        written: Vec::new(),
    };
    net.run();
    let Net { conns, pcap, written, .. } = net;
    pcap.finish().unwrap();
    for k in &conns {
        assert_eq!(k.sink.cum_ack(), PACKETS - 1, "flow {} completed its 1500 packets", k.snd.flow);
    }
    let rtx: u64 = conns.iter().map(|k| k.snd.stats.retransmitted).sum();
    let timeouts: u64 = conns.iter().map(|k| k.snd.stats.timeouts).sum();
    let fast: u64 = conns.iter().map(|k| k.snd.stats.fast_retransmits).sum();
    assert!(timeouts >= 5 && fast >= 20, "the scenario exercises both repairs: {timeouts} {fast}");

    // Nothing malformed, no expert error; "packet size limited" is the only exception.
    let bad = read(&file, &["-Y", "_ws.malformed || _ws.expert.severity >= error || !tcp"]);
    assert_eq!(bad, "", "malformed or non-TCP frames");
    // tshark's retransmissions are exactly the frames aqmsim sent as retransmissions.
    let frames = |filter: &str| -> Vec<usize> {
        read(&file, &["-Y", filter, "-T", "fields", "-e", "frame.number"])
            .lines()
            .map(|l| l.parse().unwrap())
            .collect()
    };
    let ours: Vec<usize> =
        (0..written.len()).filter(|&i| written[i].kind == Kind::Data && written[i].rtx()).map(|i| i + 1).collect();
    let theirs = frames("tcp.analysis.retransmission");
    eprintln!(
        "pcap: {} frames, sender retransmissions {rtx} (timeouts {timeouts}, fast {fast}), \
         tshark retransmissions {} (fast {}), out-of-order {}",
        written.len(),
        theirs.len(),
        frames("tcp.analysis.fast_retransmission").len(),
        frames("tcp.analysis.out_of_order").len()
    );
    assert_eq!(ours.len() as u64, rtx);
    assert_eq!(theirs, ours, "tshark's retransmissions are the sender's");

    check_fields(&file, &written, &conns);
    done(&file);
}

/// Every frame decodes to the addresses, ports, sequence numbers, flags and SACK blocks
/// the packet stands for.
fn check_fields(file: &Path, written: &[Packet], conns: &[Conn]) {
    let fields = [
        "frame.len", "frame.cap_len", "ip.src", "ip.dst", "ip.id", "ip.dsfield.ecn", "tcp.srcport",
        "tcp.dstport", "tcp.seq_raw", "tcp.ack_raw", "tcp.flags", "tcp.len", "tcp.options.sack_le",
        "tcp.options.sack_re", "tcp.seq",
    ];
    let mut args = vec!["-T", "fields", "-E", "separator=;", "-E", "aggregator=,"];
    for f in &fields {
        args.extend(["-e", f]);
    }
    let text = read(file, &args);
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(';').collect()).collect();
    assert_eq!(rows.len(), written.len());
    let mut sack_seen = 0;
    for (i, (row, p)) in rows.iter().zip(written).enumerate() {
        let k = conns.iter().find(|k| k.snd.flow == p.flow).unwrap();
        let f = &k.info;
        let first = f.syn as i64;
        let byte = |s: i64| (pcap::isn(p.flow) as i64 + 1 + (s - first) * f.payload as i64) as u32;
        let ip = |n: u32| format!("10.{}.{}.{}", n >> 16 & 255, n >> 8 & 255, n & 255);
        let syn = p.kind == Kind::Data && f.syn && p.seq == 0;
        let (src, dst, sport, dport) = match p.kind {
            Kind::Ack => (f.dst, f.src, pcap::receiver_port(p.flow), pcap::sender_port(p.flow)),
            _ => (f.src, f.dst, pcap::sender_port(p.flow), pcap::receiver_port(p.flow)),
        };
        let (seq, ack, len, mut flags) = match (p.kind, syn) {
            (Kind::Ack, _) => (pcap::sink_isn(p.flow) + 1, byte(p.seq as i64 + 1), 0, 0x010),
            (_, true) => (pcap::isn(p.flow), 0, 0, 0x002),
            _ => (byte(p.seq as i64), pcap::sink_isn(p.flow) + 1, f.payload, 0x010),
        };
        if p.has(ecn::ECE) {
            flags |= 0x040;
        }
        if p.has(ecn::CWR) {
            flags |= 0x080;
        }
        let tos = if p.has(ecn::CE) { 3 } else if p.has(ecn::ECT) { 2 } else { 0 };
        let opts = match (p.kind, syn) {
            (Kind::Ack, _) if p.nsack > 0 => 4 + 8 * p.nsack as u32,
            (_, true) => 8,
            _ => 0,
        };
        let frame_len = 40 + opts + len;
        if p.kind == Kind::Data && p.seq > 0 {
            // (ns-2 adds no header to packet 0: without a SYN it is 40 bytes shorter)
            assert_eq!(frame_len, p.size, "data frames are as long as aqmsim's packets");
        }
        // tshark's relative sequence number: data packet k starts at 1 + (k - first) * payload
        // (with a SYN; without one tshark counts from the first byte it sees).
        let rel = match (p.kind, f.syn) {
            (Kind::Data, true) if !syn => (1 + (p.seq as i64 - 1) * f.payload as i64).to_string(),
            (Kind::Data, true) => "0".into(),
            _ => row[14].to_string(),
        };
        let (mut le, mut re) = (vec![], vec![]);
        for b in 0..p.nsack as usize {
            let (lo, hi) = p.sack_block(b);
            // relative to the data direction's ISN, as tshark shows them (SYN flows)
            let r = |s: i64| ((s - first) * f.payload as i64 + 1).to_string();
            le.push(if f.syn { r(lo as i64) } else { row[12].split(',').nth(b).unwrap().to_string() });
            re.push(if f.syn { r(hi as i64 + 1) } else { row[13].split(',').nth(b).unwrap().to_string() });
            sack_seen += 1;
        }
        let want = [
            frame_len.to_string(),
            (40 + opts).to_string(),
            ip(src),
            ip(dst),
            format!("0x{:04x}", p.seq as u16),
            tos.to_string(),
            sport.to_string(),
            dport.to_string(),
            seq.to_string(),
            ack.to_string(),
            format!("0x{flags:04x}"),
            len.to_string(),
            le.join(","),
            re.join(","),
            rel,
        ];
        let got: Vec<String> = row.iter().map(|s| s.to_string()).collect();
        assert_eq!(got, want, "frame {} ({p:?}): fields {fields:?}", i + 1);
    }
    assert!(sack_seen > 50, "SACK blocks were checked ({sack_seen})");
}

/// Sender ports land on ports Wireshark has dissectors for (`tshark -G decodes`); with the
/// payload not captured none of them may call the packet malformed. UDP datagrams too.
#[test]
fn registered_ports_and_udp_decode_cleanly() {
    let decodes = tshark(&["-G", "decodes"]);
    let mut flows: Vec<(u32, bool)> = decodes
        .lines()
        .filter_map(|l| {
            let mut c = l.split('\t');
            let tcp = match c.next()? {
                "tcp.port" => true,
                "udp.port" => false,
                _ => return None,
            };
            let port: u32 = c.next()?.parse().ok()?;
            (10_000..60_000).contains(&port).then_some((port - 10_000, tcp))
        })
        .collect();
    flows.sort();
    flows.dedup();
    assert!(flows.len() > 100, "tshark knows many ports: {}", flows.len());
    // (and one flow beyond 50 000: another receiver port)
    flows.push((123_456, true));
    flows.push((123_456, false));
    let file = tmp("ports");
    let mut w = PcapWriter::create(&file).unwrap();
    let mut n = 0;
    for (i, &(f, tcp)) in flows.iter().enumerate() {
        let info = FlowInfo { src: 2 * f, dst: 2 * f + 1, tcp, payload: 1000, header: 40, syn: true };
        let at = Where { t: SimTime(i as u64 * 1000), secs: i as f64 * 1e-6, ev: TraceEvent::Dequeue, from: info.src, to: info.dst };
        let mut pkts = vec![];
        if tcp {
            let mut ack = Packet::new(Kind::Ack, f, 1, 56, info.src, SimTime::ZERO);
            ack.set_sack(&[(3, 4), (6, 6)]);
            for s in [0, 1, 3, 4, 2] {
                pkts.push(Packet::new(Kind::Data, f, s, 1040, info.dst, SimTime::ZERO));
            }
            pkts.push(ack);
        } else {
            for s in [0, 1, 5] {
                pkts.push(Packet::new(Kind::Udp, f, s, 200 + 500 * s as u32, info.dst, SimTime::ZERO));
            }
        }
        for p in &pkts {
            w.write(&at, p, &info).unwrap();
            n += 1;
        }
    }
    w.finish().unwrap();
    let bad = read(&file, &["-Y", "_ws.malformed || _ws.expert.severity >= error || !(tcp || udp)"]);
    assert_eq!(bad, "", "malformed frames");
    let count = |filter: &str| read(&file, &["-Y", filter, "-T", "fields", "-e", "frame.number"]).lines().count();
    let udp = flows.iter().filter(|f| !f.1).count();
    assert_eq!((count("tcp"), count("udp.length == 180 || udp.length == 680 || udp.length == 2680")), (n - 3 * udp, 3 * udp));
    done(&file);
}
