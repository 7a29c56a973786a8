//! CAKE's ACK filter (Linux `sch_cake.c`, `cake_ack_filter`): when a pure ACK joins a
//! flow queue, an older pure ACK of the same connection that it makes redundant is
//! dropped. Conservative mode drops only when two such ACKs are queued (the one nearer the
//! head goes); aggressive mode also drops a lone one right before the new ACK.
//!
//! On aqmsim's packets: every `Kind::Ack` is a pure ACK (no payload, no SYN/FIN/RST);
//! "the same connection" is the same flow number; the cumulative ACK and SACK blocks are
//! in packets, not bytes; an ACK carrying AccECN's AE flag is never dropped (Linux's flag
//! test refuses any flag beyond ACK, ECE and CWR); timestamps are not compared (aqmsim's
//! ACKs of one flow never carry an older TSval or TSecr than an ACK queued before them).

use super::cake::Cake;
use crate::packet::{ecn, Kind, Packet};

/// Linux `before(a, b)` on sequence numbers.
#[inline]
fn before(a: i32, b: i32) -> bool {
    a.wrapping_sub(b) < 0
}

#[inline]
fn after(a: i32, b: i32) -> bool {
    before(b, a)
}

/// Linux `cake_tcph_sack_compare(a, b)`: −1 if `a` SACKs something `b` does not (or has a
/// D-SACK), 1 if `b` SACKs strictly more than `a`, 0 if they SACK the same.
pub fn sack_compare(a: &Packet, b: &Packet) -> i32 {
    match (a.nsack > 0, b.nsack > 0) {
        (true, false) => return -1,
        (false, true) => return 1,
        (false, false) => return 0,
        _ => {}
    }
    let (mut bytes_a, mut bytes_b) = (0u32, 0u32);
    let mut first = true;
    for i in 0..a.nsack as usize {
        let (start_a, last_a) = a.sack_block(i);
        let end_a = last_a.wrapping_add(1);
        if before(start_a, a.seq) {
            return -1; // D-SACK: always kept
        }
        bytes_a = bytes_a.wrapping_add(end_a.wrapping_sub(start_a) as u32);
        let mut found = false;
        for j in 0..b.nsack as usize {
            let (start_b, last_b) = b.sack_block(j);
            let end_b = last_b.wrapping_add(1);
            if first {
                bytes_b = bytes_b.wrapping_add(end_b.wrapping_sub(start_b) as u32);
            }
            if !after(start_b, start_a) && !before(end_b, end_a) {
                found = true;
                if !first {
                    break;
                }
            }
        }
        if !found {
            return -1;
        }
        first = false;
    }
    if bytes_b > bytes_a {
        1
    } else {
        0
    }
}

/// The TCP flags the filter keeps apart (ECE, CWR).
#[inline]
fn ece_cwr(p: &Packet) -> u8 {
    p.ecn & (ecn::ECE | ecn::CWR)
}

impl Cake {
    /// Linux `cake_ack_filter` on queue `fi`, whose tail is the ACK just queued: the
    /// position of the queued ACK to drop, if any.
    pub fn ack_filter(&self, fi: usize, aggressive: bool) -> Option<usize> {
        let q = &self.flows[fi].buf;
        if q.len() < 2 {
            return None;
        }
        let trig = q.back()?;
        if trig.kind != Kind::Ack {
            return None;
        }
        let mut elig: Option<usize> = None;
        let mut elig_flags = 0u8;
        let mut num_found = 0i32;
        for (i, c) in q.iter().enumerate().take(q.len() - 1) {
            if c.kind != Kind::Ack || c.flow != trig.flow {
                continue;
            }
            if elig.is_some() && ece_cwr(c) != elig_flags {
                elig = None;
                num_found -= 1;
            }
            // may_drop: no flag beyond ACK/ECE/CWR; not a higher cumulative ACK
            if c.ecn & ecn::AE != 0 || after(c.seq, trig.seq) {
                continue;
            }
            let cmp = sack_compare(c, trig);
            if cmp < 0 || (c.seq == trig.seq && cmp == 0) {
                continue;
            }
            if elig.is_none() {
                elig = Some(i);
                elig_flags = ece_cwr(c);
            }
            num_found += 1;
            if num_found > 1 {
                return elig;
            }
        }
        match elig {
            Some(i) if aggressive && i + 2 == q.len() && elig_flags == ece_cwr(trig) => Some(i),
            _ => None,
        }
    }
}
