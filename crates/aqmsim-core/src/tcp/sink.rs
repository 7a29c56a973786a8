//! The TCP sink: ns-2's `Agent/TCPSink` (an ACK per packet) and `Agent/TCPSink/DelAck`.
//!
//! ACKs carry the cumulative ack (highest in-order sequence number), up to three SACK
//! blocks (most recent first, as ns-2's Sack1 sink), and ECN-Echo: once a CE-marked
//! ECN-capable packet arrives, every ACK echoes ECE until a packet with CWR arrives.
//!
//! A DCTCP sink (`dctcp`) echoes CE exactly instead (RFC 8257 §3.2, ns-3.37 `TcpDctcp`'s
//! `CeState0to1` / `CeState1to0`): ECE on an ACK iff the last data packet had CE, CWR is
//! ignored; when CE changes while a delayed ACK is waiting, that ACK is sent at once with
//! the old state and the cumulative ACK from before the new packet ([`TcpSink::flushed`]),
//! and the new packet starts its own delayed ACK. Without delayed ACKs every ACK carries
//! ECE iff the packet it answers had CE.
//!
//! With `ns3_echo` (the linux stack's DCTCP) the echo is ns-3.37's exactly, quirks included
//! (`TcpDctcp::CeState0to1`/`1to0`, `TcpSocketBase::ReceivedData`, [`TcpSink::ns3_flush`]).

use crate::packet::{ecn, ts_ms, Kind, Packet, MAX_SACK, TS_OPTION_BYTES};
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct SinkStats {
    /// Data packets received (duplicates included).
    pub received: u64,
    pub received_bytes: u64,
    /// New in-order packets delivered to the application.
    pub delivered: u64,
    /// Payload bytes of those (goodput).
    pub delivered_payload: u64,
    /// Σ end-to-end delay of received packets, ns.
    pub delay_sum_ns: f64,
    pub acks_sent: u64,
}

#[derive(Clone, Debug)]
pub struct TcpSink {
    pub flow: u32,
    /// The sender's node (where ACKs go).
    pub dst: u32,
    pub ack_size: u32,
    /// Send SACK blocks (ns-2 `Agent/TCPSink/Sack1`); each block adds 8 bytes to the ACK.
    pub sack: bool,
    /// First sequence number carrying data (1 when packet 0 is a SYN).
    first_data: i32,
    /// Payload bytes of a data packet of this flow (the sender's packet_size).
    payload: u64,
    /// Next in-order sequence number expected.
    next: i32,
    maxseen: i32,
    /// Out-of-order packets held, as sorted disjoint inclusive ranges.
    ooo: Vec<(i32, i32)>,
    /// Most recently changed block first (for SACK).
    recent: Vec<i32>,
    /// ns-2: echo ECE (a CE seen and no CWR since). DCTCP: the CE state (`m_ceState`).
    ecn_unacked: bool,
    /// Exact CE echo (DCTCP).
    pub dctcp: bool,
    /// A delayed ACK sent early by a DCTCP CE change, to go out before the ACK `recv`
    /// returns (the caller takes it).
    pub flushed: Option<Packet>,
    pub delayed: bool,
    pub delack_interval: f64,
    /// A packet waiting for its delayed ACK (its seq, flags, send time).
    pending: Option<Packet>,
    pub delack_gen: u32,
    /// Delay the ACK of segment 0 too (ns-3: the first data segment after the handshake
    /// counts like any other; ns-2's sink never delays packet 0). Set for `stack = "linux"`.
    pub delay_first: bool,
    /// RFC 7323 timestamps (`stack = "linux"`, `timestamps = true`): see [`TsEcho`].
    pub ts: Option<TsEcho>,
    /// DCTCP's echo as ns-3.37 runs it ([`TcpSink::ns3_flush`]); only with `dctcp`.
    pub ns3_echo: bool,
    /// ns-3 `m_delayedAckReserved`: a segment was held for a delayed ACK, or the delayed-ACK
    /// timer fired, and no ACK was sent at once for a segment since.
    ack_reserved: bool,
    /// ns-3 `m_priorRcvNxt`: `next` when the previous ECN-capable segment arrived.
    prior_next: Option<i32>,
    /// ns-3 `m_ecnCESeq`: the highest segment taken as CE (a CE mark on a segment at or below
    /// it counts as no CE).
    ce_seq: i32,
    /// ns-3.37's SACK list (`TcpRxBuffer::m_sackList`) instead of ns-2's blocks of the 16
    /// most recent arrivals: set for `stack = "linux"`, see [`TcpSink::ns3_sack_update`].
    pub ns3_sack: bool,
    sack_list: Vec<(i32, i32)>,
    /// AccECN feedback (RFC 9768, `tcp/accecn.rs`): the ACE field on every ACK instead
    /// of the ECE echo. Set for a linux-stack flow whose handshake negotiated it.
    pub accecn: Option<crate::tcp::accecn::AccEcnRx>,
    pub stats: SinkStats,
}

/// The receiver's side of the timestamp option, as ns-3.37's `TcpSocketBase`
/// (`ProcessOptionTimestamp`, `AddOptionTimestamp`): a data segment's TSval (its send time
/// in whole ms) becomes the value to echo only when the segment starts at the next
/// expected sequence number and at or below the highest ACK sent (`m_highTxAck`) — so a
/// delayed ACK of two segments echoes the first one's, an ACK of out-of-order data echoes
/// the last in-order segment's, and the retransmission that fills a hole is echoed. A TSval
/// below the largest seen is ignored. Every ACK carries TSval = its own send time (ms).
#[derive(Clone, Debug, Default)]
pub struct TsEcho {
    /// `m_timestampToEcho` (ms).
    pub echo: u32,
    /// `m_rcvTimestampValue`: the largest TSval seen (ms).
    recent: u32,
    /// `m_highTxAck`: one past the highest cumulative ACK sent (segment number).
    high_tx_ack: i32,
}


impl TcpSink {
    pub fn new(flow: u32, dst: u32, ack_size: u32, payload: u32, delayed: bool, delack_interval: f64, syn: bool, sack: bool) -> Self {
        TcpSink {
            sack,
            first_data: if syn { 1 } else { 0 },
            payload: payload as u64,
            flow,
            dst,
            ack_size,
            next: 0,
            maxseen: -1,
            ooo: Vec::new(),
            recent: Vec::new(),
            ecn_unacked: false,
            dctcp: false,
            flushed: None,
            delayed,
            delack_interval,
            pending: None,
            delack_gen: 0,
            delay_first: false,
            ts: None,
            ns3_echo: false,
            ack_reserved: false,
            prior_next: None,
            ce_seq: i32::MIN,
            ns3_sack: false,
            sack_list: Vec::new(),
            accecn: None,
            stats: SinkStats::default(),
        }
    }

    /// Cumulative ack: highest in-order sequence number received.
    pub fn cum_ack(&self) -> i32 {
        self.next - 1
    }

    /// Record `seq`; returns the number of new in-order packets it released.
    fn update(&mut self, seq: i32) -> u32 {
        if seq > self.maxseen {
            self.maxseen = seq;
        }
        if seq < self.next {
            return 0;
        }
        if seq == self.next {
            let mut n = 1;
            self.next += 1;
            // absorb ranges that are now contiguous
            while let Some(&(lo, hi)) = self.ooo.first() {
                if lo <= self.next {
                    if hi >= self.next {
                        n += (hi - self.next + 1) as u32;
                        self.next = hi + 1;
                    }
                    self.ooo.remove(0);
                } else {
                    break;
                }
            }
            if self.ns3_sack {
                let next = self.next;
                self.sack_list.retain(|b| b.1 >= next); // ClearSackList
            }
            return n;
        }
        // out of order: insert into ranges
        let idx = self.ooo.partition_point(|&(lo, _)| lo <= seq);
        if idx > 0 && self.ooo[idx - 1].1 >= seq {
            return 0; // duplicate
        }
        crate::seqruns::insert(&mut self.ooo, seq, seq);
        if self.ns3_sack {
            self.ns3_sack_update(seq);
            return 0; // (its blocks come from sack_list alone: `recent` is not read)
        }
        self.recent.retain(|&s| s != seq);
        self.recent.insert(0, seq);
        self.recent.truncate(16);
        0
    }

    /// ns-3's `UpdateSackList` for a new out-of-order segment: its block goes first, then
    /// merges with every block it touches (the list rescanned after each merge); at most 4
    /// blocks are kept (what fits in the options without timestamps), the oldest dropped and
    /// never reported again. The ACK carries the first [`MAX_SACK`] (3; ns-3 fits a 4th,
    /// which repeats what earlier ACKs said). In-order data clears the blocks below it.
    fn ns3_sack_update(&mut self, seq: i32) {
        let l = &mut self.sack_list;
        l.insert(0, (seq, seq));
        let mut i = 1;
        while i < l.len() {
            let (b, c) = (l[0], l[i]);
            let merged = if b.0 == c.1 + 1 {
                Some((c.0, b.1))
            } else if b.1 + 1 == c.0 {
                Some((b.0, c.1))
            } else {
                None
            };
            if let Some(m) = merged {
                l.remove(i);
                l[0] = m;
                i = 1;
            } else {
                i += 1;
            }
        }
        l.truncate(4);
    }

    /// The SACK blocks to report, most recent first, and how many there are.
    fn sack_blocks(&self) -> ([(i32, i32); MAX_SACK], u8) {
        let mut blocks = [(0, 0); MAX_SACK];
        let mut n = 0usize;
        if self.ns3_sack {
            for &b in self.sack_list.iter().take(MAX_SACK) {
                blocks[n] = b;
                n += 1;
            }
            return (blocks, n as u8);
        }
        for &s in &self.recent {
            if n == MAX_SACK {
                break;
            }
            if s < self.next {
                continue;
            }
            if let Some(&(lo, hi)) = self.ooo.iter().find(|&&(lo, hi)| lo <= s && s <= hi) {
                if blocks[..n].iter().any(|&b| b == (lo, hi)) {
                    continue;
                }
                blocks[n] = (lo, hi);
                n += 1;
            }
        }
        (blocks, n as u8)
    }

    #[inline(always)]
    fn make_ack(&mut self, data: &Packet, now: SimTime) -> Packet {
        let cum = self.cum_ack();
        self.make_ack_cum(data, cum, now)
    }

    #[inline(always)]
    fn make_ack_cum(&mut self, data: &Packet, cum: i32, now: SimTime) -> Packet {
        // Every field is worked out first and the packet written once: patching single
        // bytes of a packet just built and then copying it whole stalls the CPU (a load
        // that spans several smaller stores cannot be forwarded from them).
        let echo = if data.has(ecn::ECT) {
            self.ecn_unacked
        } else {
            // SYN negotiating ECN: echo it.
            data.has(ecn::ECE)
        };
        self.stats.acks_sent += 1;
        let mut ack = Packet::new(Kind::Ack, self.flow, cum, self.ack_size, self.dst, now);
        ack.ecn = match &self.accecn {
            Some(a) => a.ack_bits(),
            None if echo => ecn::ECE,
            None => 0,
        };
        ack.t_sent = data.t_sent;
        ack.tag = self.stats.acks_sent as u8;
        if self.sack {
            let (blocks, n) = self.sack_blocks();
            ack.set_sack(&blocks[..n as usize]);
            ack.size += 8 * ack.nsack as u32;
        }
        if let Some(ts) = self.ts.as_mut() {
            ts.high_tx_ack = ts.high_tx_ack.max(self.next);
            ack.set_ts(ts_ms(now), ts.echo);
            ack.size += TS_OPTION_BYTES;
        }
        ack
    }

    /// A data packet arrived. Returns an ACK to send now, if any; when the sink delays the
    /// ACK it returns `None` and sets [`TcpSink::wants_timer`].
    pub fn recv(&mut self, data: &Packet, now: SimTime) -> Option<Packet> {
        self.stats.received += 1;
        self.stats.received_bytes += data.size as u64;
        self.stats.delay_sum_ns += now.saturating_since(data.t_sent).0 as f64;
        let mut ack_now = false;
        if let Some(a) = self.accecn.as_mut() {
            ack_now = a.on_data(data.ecn, self.payload);
        } else if self.dctcp && self.ns3_echo {
            if data.has(ecn::ECT) {
                self.ns3_flush(data, now);
            }
        } else if self.dctcp {
            let ce = data.has(ecn::ECT) && data.has(ecn::CE);
            if ce != self.ecn_unacked {
                if let Some(p) = self.pending.take() {
                    // Before `update`: the early ACK carries the cumulative ACK of the
                    // packets before this one (ns-3 rewinds RcvNxt to m_priorRcvNxt).
                    self.delack_gen = self.delack_gen.wrapping_add(1);
                    self.flushed = Some(self.make_ack(&p, now));
                }
                self.ecn_unacked = ce;
            }
        } else {
            if data.has(ecn::CWR) {
                self.ecn_unacked = false;
            }
            if data.has(ecn::ECT) && data.has(ecn::CE) {
                self.ecn_unacked = true;
            }
        }
        if let Some(ts) = self.ts.as_mut() {
            let v = ts_ms(data.t_sent);
            if v >= ts.recent {
                ts.recent = v;
                if data.seq == self.next && data.seq <= ts.high_tx_ack {
                    ts.echo = v;
                }
            }
        }
        let before = self.next;
        let delivered = self.update(data.seq);
        if delivered > 0 {
            self.stats.delivered += delivered as u64;
            // Payload of the data packets released (the SYN carries none); all data
            // packets of a flow have the same size.
            let data_pkts = (self.next - before.max(self.first_data)).max(0) as u64;
            self.stats.delivered_payload += data_pkts * self.payload;
        }
        if self.delayed {
            let in_order = data.seq == self.cum_ack();
            if !ack_now && self.pending.is_none() && in_order && data.seq >= self.maxseen && (data.seq != 0 || self.delay_first) {
                self.pending = Some(*data);
                self.delack_gen = self.delack_gen.wrapping_add(1);
                self.ack_reserved = true; // CA_EVENT_DELAYED_ACK
                return None;
            }
            if data.seq >= before {
                // CA_EVENT_NON_DELAYED_ACK (ns-3 sends a duplicate segment's ACK without it)
                self.ack_reserved = false;
            }
            self.pending = None;
            self.delack_gen = self.delack_gen.wrapping_add(1);
        }
        Some(self.make_ack(data, now))
    }

    /// Whether a delayed ACK is waiting (the caller arms the timer with `delack_gen`).
    pub fn wants_timer(&self) -> bool {
        self.pending.is_some()
    }

    /// The delayed-ACK timer of generation `gen` fired.
    pub fn on_delack_timer(&mut self, gen: u32, now: SimTime) -> Option<Packet> {
        if gen != self.delack_gen {
            return None;
        }
        let p = self.pending.take()?;
        self.ack_reserved = true; // ns-3's DelAckTimeout raises CA_EVENT_DELAYED_ACK
        Some(self.make_ack(&p, now))
    }

    /// ns-3.37's DCTCP receiver on an ECN-capable segment, before it is taken in (ns-3 raises
    /// CA_EVENT_ECN_IS_CE / _NO_CE in `ForwardUp`, before `ReceivedData`). CE counts only on a
    /// segment beyond the last CE one (`m_ecnCESeq`). When the CE state changes while a
    /// delayed ACK is "reserved", an ACK with the old state goes out at once — and it
    /// acknowledges `m_priorRcvNxt`, the next expected segment as of the *previous*
    /// ECN-capable segment's arrival, so in order it is a duplicate of the last ACK: the held
    /// segment is not acknowledged (ns-3's quirk; Linux's `dctcp_ece_ack_update` acks it).
    /// Sending an ACK cancels the delayed one (`SendEmptyPacket`), so the new segment starts
    /// a delayed ACK of its own, and "reserved" stays as it was: it is also set when the
    /// delayed-ACK timer fires with nothing held afterwards, and then the next CE change sends
    /// a duplicate ACK with nothing waiting at all.
    fn ns3_flush(&mut self, data: &Packet, now: SimTime) {
        let ce = data.has(ecn::CE) && data.seq > self.ce_seq;
        if ce {
            self.ce_seq = data.seq;
        }
        if ce != self.ecn_unacked && self.ack_reserved {
            if let Some(prior) = self.prior_next {
                let held = self.pending.take().unwrap_or(*data);
                self.delack_gen = self.delack_gen.wrapping_add(1);
                self.flushed = Some(self.make_ack_cum(&held, prior - 1, now));
            }
        }
        self.prior_next = Some(self.next);
        self.ecn_unacked = ce;
    }
}

#[cfg(test)]
#[path = "sink_tests.rs"]
mod tests;
