//! ns-2's trace format (`$ns trace-all`, `trace-queue`): one line per event,
//!
//! ```text
//! + 0.046387 0 1 tcp 1040 ------- 0 2.0 3.0 1 2
//! ```
//!
//! event (`+ - r d`), time, the link's two nodes, packet type (`tcp` for data and the SYN,
//! `ack`, `cbr`), size in bytes, seven flags (`C` ECN-Echo, `P`, `-`, `A` congestion action
//! = CWR, `E` congestion experienced = CE, `F` fast start, `N` ECN-capable = ECT), flow id,
//! source and destination as node.port, sequence number (an ACK's: the cumulative ACK) and
//! the packet's uid. The time is rounded to the microsecond and printed with C's `%.15g`,
//! as ns-2.35's `Trace::format` does; node ids are aqmsim's node indexes, which are the ids
//! of the script `aqmsim.ns2.export` writes, and ports are numbered per node in the order
//! that script attaches the agents (each flow's sender, then its receiver, flow by flow).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::{FlowInfo, TraceEvent, Where};
use crate::packet::{ecn, Kind, Packet};

/// Streams ns-2 trace lines to a file.
pub struct Ns2Writer {
    out: BufWriter<File>,
    line: String,
}

/// The port each flow's two agents get (ns-2 numbers an agent's port on its node from 0 in
/// attach order): `(sender port, receiver port)` per flow.
pub fn ports(flows: &[FlowInfo]) -> Vec<(u32, u32)> {
    let mut next: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    let mut take = |node: u32| {
        let p = next.entry(node).or_insert(0);
        *p += 1;
        *p - 1
    };
    flows.iter().map(|f| (take(f.src), take(f.dst))).collect()
}

/// C's `%.15g` of `t` rounded to the microsecond (ns-2's `BaseTrace::round`).
pub fn time_text(t: f64) -> String {
    let mut s = String::new();
    write_time(&mut s, (t * 1e6 + 0.5).floor() as u64);
    s
}

/// `%.15g` of `us` microseconds in seconds: fixed notation with the fraction's trailing
/// zeros dropped (every time here has at most 13 significant digits), or C's exponent form
/// below 1e-4 s.
fn write_time(out: &mut String, us: u64) {
    use std::fmt::Write as _;
    if us == 0 {
        out.push('0');
    } else if us < 100 {
        // 1e-06 .. 9.9e-05
        let (m, e) = if us < 10 { (us as f64, 6) } else { (us as f64 / 10.0, 5) };
        let _ = write!(out, "{m}e-{e:02}");
    } else {
        let (int, frac) = (us / 1_000_000, us % 1_000_000);
        let _ = write!(out, "{int}");
        if frac != 0 {
            let mut d = [b'0'; 6];
            let mut f = frac;
            for i in (0..6).rev() {
                d[i] = b'0' + (f % 10) as u8;
                f /= 10;
            }
            let n = 6 - d.iter().rev().take_while(|&&c| c == b'0').count();
            out.push('.');
            out.push_str(std::str::from_utf8(&d[..n]).expect("digits"));
        }
    }
}

fn flags(pkt: &Packet) -> [u8; 7] {
    let mut f = *b"-------";
    if pkt.has(ecn::ECE) {
        f[0] = b'C';
    }
    if pkt.has(ecn::CWR) {
        f[3] = b'A';
    }
    if pkt.has(ecn::CE) {
        f[4] = b'E';
    }
    if pkt.has(ecn::ECT) {
        f[6] = b'N';
    }
    f
}

impl Ns2Writer {
    pub fn create(path: &Path) -> io::Result<Ns2Writer> {
        Ok(Ns2Writer { out: BufWriter::with_capacity(1 << 16, File::create(path)?), line: String::with_capacity(96) })
    }

    /// One line: `pkt` (ns-2's `uid`) of `flow` (whose agents have `ports`) at `at`.
    pub fn write(&mut self, at: &Where, pkt: &Packet, uid: i32, flow: &FlowInfo, ports: (u32, u32)) -> io::Result<()> {
        use std::fmt::Write as _;
        let ev = match at.ev {
            TraceEvent::Enqueue => '+',
            TraceEvent::Dequeue => '-',
            TraceEvent::Receive => 'r',
            TraceEvent::Drop => 'd',
        };
        let (name, src, sport, dst, dport) = match pkt.kind {
            Kind::Data => ("tcp", flow.src, ports.0, flow.dst, ports.1),
            Kind::Ack => ("ack", flow.dst, ports.1, flow.src, ports.0),
            Kind::Udp => ("cbr", flow.src, ports.0, flow.dst, ports.1),
        };
        let f = flags(pkt);
        self.line.clear();
        self.line.push(ev);
        self.line.push(' ');
        write_time(&mut self.line, (at.secs * 1e6 + 0.5).floor() as u64);
        let _ = writeln!(
            self.line,
            " {} {} {name} {} {} {} {src}.{sport} {dst}.{dport} {} {}",
            at.from,
            at.to,
            pkt.size,
            std::str::from_utf8(&f).expect("ascii"),
            pkt.flow,
            pkt.seq,
            uid,
        );
        self.out.write_all(self.line.as_bytes())
    }

    pub fn finish(mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    #[test]
    fn times_as_ns2_prints_them() {
        for (t, s) in [(0.0, "0"), (0.001032, "0.001032"), (0.0774796666, "0.07748"), (0.1, "0.1"), (12.3456789, "12.345679"), (3.0, "3"), (0.0000499, "5e-05"), (100.0, "100")] {
            assert_eq!(time_text(t), s, "{t}");
        }
    }

    #[test]
    fn a_data_line_and_an_ack_line() {
        let dir = std::env::temp_dir().join(format!("aqmsim-ns2trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.tr");
        let flow = FlowInfo { src: 2, dst: 3, tcp: true, payload: 1000, header: 40, syn: true };
        let mut w = Ns2Writer::create(&path).unwrap();
        let mut p = Packet::new(Kind::Data, 0, 1, 1040, 3, SimTime::ZERO);
        p.ecn = ecn::ECT | ecn::CE;
        w.write(&Where { t: SimTime::from_secs(0.046387), secs: 0.046387, ev: TraceEvent::Enqueue, from: 0, to: 1 }, &p, 2, &flow, (0, 0)).unwrap();
        let mut a = Packet::new(Kind::Ack, 0, 1, 40, 2, SimTime::ZERO);
        a.ecn = ecn::ECE;
        w.write(&Where { t: SimTime::from_secs(0.0774796666), secs: 0.0774796666, ev: TraceEvent::Receive, from: 1, to: 0 }, &a, 4, &flow, (0, 0)).unwrap();
        w.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "+ 0.046387 0 1 tcp 1040 ----E-N 0 2.0 3.0 1 2\nr 0.07748 1 0 ack 40 C------ 0 3.0 2.0 1 4\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn ports_in_attach_order() {
        let f = |src, dst| FlowInfo { src, dst, tcp: true, payload: 1000, header: 40, syn: true };
        assert_eq!(ports(&[f(2, 3), f(2, 4), f(5, 3)]), vec![(0, 0), (1, 0), (0, 1)]);
    }
}
