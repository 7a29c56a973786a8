//! The RFC 6675 SACK scoreboard of the Linux/ns-3 sender, one entry per segment sent and
//! not yet cumulatively acknowledged.
//!
//! Every segment is one full MSS (a bulk sender), so the board counts segments and the
//! sender multiplies by the MSS for bytes. Its counters follow ns-3.37's `TcpTxBuffer` (and
//! Linux's `sacked_out`, `lost_out`, `retrans_out`): bytes in flight (RFC 6675's pipe) are
//! `sent − sacked − lost + retransmitted`. As in ns-3, a retransmitted segment that is later
//! SACKed stays counted as retransmitted (so in flight) until the cumulative ACK passes it.

use std::collections::VecDeque;

const SACKED: u8 = 1;
const LOST: u8 = 2;
const RETRANS: u8 = 4;

#[derive(Clone, Debug)]
pub struct Scoreboard {
    /// First unacknowledged segment (HighACK + 1, in segments).
    pub una: i32,
    /// Next segment never sent (HighData + 1).
    pub high: i32,
    /// Flags of segments `una..high`.
    flags: VecDeque<u8>,
    pub sacked: u32,
    pub lost: u32,
    pub retrans: u32,
    /// Segments ever marked lost (a mark counts once; Linux's `tp->lost`, in segments).
    pub lost_marks: u64,
    /// The highest SACKed segment, if any is above `una`.
    highest_sack: Option<i32>,
    /// DupThresh (3).
    pub dupthresh: u32,
    /// The SACKed segments as runs `(start, end)` (inclusive), sorted, disjoint and not
    /// touching (merged), so that a block reported again costs a look-up, not a walk over
    /// it. A vector searched by bisection: a window holds a few runs, and a B-tree's
    /// node allocations cost more than shifting them.
    runs: Vec<(i32, i32)>,
    /// Every segment in `una..rtx_hint` is retransmitted or SACKed (where NextSeg starts).
    rtx_hint: i32,
    /// Every unSACKed segment below it is marked lost (it only rises: SACKs only add).
    lost_floor: i32,
    /// `tcp.ns3_quirks`: rule (3) as ns-3.37's `NextSeg`, without (1.b) — any segment
    /// neither retransmitted nor SACKed, above the highest SACK too (docs/tcp/bbr.md).
    pub rule3_any: bool,
}

impl Scoreboard {
    pub fn new(dupthresh: u32) -> Self {
        Scoreboard {
            una: 0,
            high: 0,
            flags: VecDeque::new(),
            sacked: 0,
            lost: 0,
            retrans: 0,
            lost_marks: 0,
            highest_sack: None,
            dupthresh,
            runs: Vec::new(),
            rtx_hint: 0,
            lost_floor: 0,
            rule3_any: false,
        }
    }

    /// `new` with ns-3's rule (3) when `ns3` (`rule3_any`).
    pub fn with_rule3_any(dupthresh: u32, ns3: bool) -> Self {
        Scoreboard { rule3_any: ns3, ..Scoreboard::new(dupthresh) }
    }

    #[inline]
    fn f(&self, seg: i32) -> u8 {
        self.flags[(seg - self.una) as usize]
    }
    #[inline]
    fn f_mut(&mut self, seg: i32) -> &mut u8 {
        &mut self.flags[(seg - self.una) as usize]
    }

    /// Segments sent and not cumulatively acknowledged.
    pub fn outstanding(&self) -> u32 {
        (self.high - self.una) as u32
    }

    /// RFC 6675's pipe in segments: sent − SACKed − lost + retransmitted.
    pub fn in_flight(&self) -> u32 {
        debug_assert!(self.sacked + self.lost <= self.outstanding() && self.retrans <= self.outstanding(), "{self:?}");
        (self.outstanding() + self.retrans).saturating_sub(self.sacked + self.lost)
    }

    pub fn is_sacked(&self, seg: i32) -> bool {
        seg >= self.una && seg < self.high && self.f(seg) & SACKED != 0
    }
    pub fn is_marked_lost(&self, seg: i32) -> bool {
        seg >= self.una && seg < self.high && self.f(seg) & LOST != 0
    }
    pub fn is_retransmitted(&self, seg: i32) -> bool {
        seg >= self.una && seg < self.high && self.f(seg) & RETRANS != 0
    }

    /// A new segment went out.
    pub fn sent_new(&mut self) -> i32 {
        self.flags.push_back(0);
        self.high += 1;
        self.high - 1
    }

    /// Segment `seg` was retransmitted.
    pub fn mark_retrans(&mut self, seg: i32) {
        if self.f(seg) & RETRANS == 0 {
            *self.f_mut(seg) |= RETRANS;
            self.retrans += 1;
        }
    }

    /// Record SACK blocks (inclusive segment ranges); returns the segments newly SACKed.
    /// Then marks lost every unSACKed segment with DupThresh SACKed segments above it
    /// (ns-3's `UpdateLostCount`; RFC 6675 IsLost by count, the segments all being full).
    pub fn update_sack(&mut self, blocks: impl Iterator<Item = (i32, i32)>) -> u32 {
        self.update_sack_each(blocks, |_| {})
    }

    /// `update_sack`, calling `each` with every newly SACKed segment (RACK, `rack.rs`).
    pub fn update_sack_each(&mut self, blocks: impl Iterator<Item = (i32, i32)>, mut each: impl FnMut(i32)) -> u32 {
        let mut n = 0;
        for (lo, hi) in blocks {
            let (mut s, hi) = (lo.max(self.una), hi.min(self.high - 1));
            while s <= hi {
                // runs[..i] start at or below s, runs[i..] above it
                let i = self.runs.partition_point(|&(a, _)| a <= s);
                if i > 0 && self.runs[i - 1].1 >= s {
                    s = self.runs[i - 1].1 + 1; // already SACKed up to there
                    continue;
                }
                let next = self.runs.get(i).map_or(i32::MAX, |&(a, _)| a);
                let e = hi.min(next - 1);
                for q in s..=e {
                    let f = self.f(q);
                    if f & LOST != 0 {
                        self.lost -= 1;
                    }
                    *self.f_mut(q) = (f & !LOST) | SACKED;
                    each(q);
                }
                n += (e - s + 1) as u32;
                self.sacked += (e - s + 1) as u32;
                self.add_run(s, e);
                s = e + 1;
            }
        }
        if n > 0 {
            self.highest_sack = self.runs.last().map(|&(_, b)| b);
            self.update_lost();
        }
        n
    }

    /// Insert the SACKed run `s..=e` (disjoint from the others), merging with neighbours.
    fn add_run(&mut self, s: i32, e: i32) {
        crate::seqruns::insert(&mut self.runs, s, e);
    }

    /// Mark lost every unSACKed segment below the DupThresh-th SACKed one from the top.
    fn update_lost(&mut self) {
        let mut need = self.dupthresh as i64;
        let mut q = None;
        for &(a, b) in self.runs.iter().rev() {
            let len = (b - a + 1) as i64;
            if len >= need {
                q = Some(b - (need - 1) as i32);
                break;
            }
            need -= len;
        }
        let Some(q) = q else { return };
        for s in self.lost_floor.max(self.una)..q {
            let f = self.f(s);
            if f & (SACKED | LOST) == 0 {
                *self.f_mut(s) |= LOST;
                self.lost += 1;
                self.lost_marks += 1;
            }
        }
        self.lost_floor = self.lost_floor.max(q);
    }

    /// The cumulative ACK moved to `ack` (the next segment expected): forget the segments
    /// below it. Returns how many of them were not SACKed before (newly delivered).
    pub fn discard_upto(&mut self, ack: i32) -> u32 {
        let mut delivered = 0;
        while self.una < ack && self.una < self.high {
            let f = self.flags.pop_front().unwrap_or(0);
            if f & SACKED != 0 {
                self.sacked -= 1;
            } else {
                delivered += 1;
            }
            if f & LOST != 0 {
                self.lost -= 1;
            }
            if f & RETRANS != 0 {
                self.retrans -= 1;
            }
            self.una += 1;
        }
        if self.highest_sack.is_some_and(|h| h < self.una) {
            self.highest_sack = None;
        }
        // forget the SACKed runs below the cumulative ACK
        let gone = self.runs.partition_point(|&(_, b)| b < self.una);
        self.runs.drain(..gone);
        if let Some(r) = self.runs.first_mut() {
            r.0 = r.0.max(self.una);
        }
        delivered
    }

    /// ns-3's `IsLost(seq)`: walking up from `seg`, a segment marked lost comes before any
    /// SACKed one (false at or above the highest SACKed segment).
    pub fn is_lost(&self, seg: i32) -> bool {
        let Some(hs) = self.highest_sack else { return false };
        if seg >= hs {
            return false;
        }
        for s in seg.max(self.una)..hs {
            let f = self.f(s);
            if f & LOST != 0 {
                return true;
            }
            if f & SACKED != 0 {
                return false;
            }
        }
        false
    }

    /// RFC 6675 NextSeg rules (1) and (3) over sent data, as ns-3's `NextSeg`: the first
    /// segment marked lost, not retransmitted and not SACKed; else, with `rule3`, the first
    /// one not retransmitted and not SACKed below the highest SACK (RFC 6675's (1.b), which
    /// ns-3 omits: it would resend data merely in flight when the receive window stops new
    /// data; with `rule3_any`, as ns-3). The unSACKed segments marked lost always come before the
    /// others (they are marked below a point that only rises, or all at a timeout), so both
    /// rules answer with the first segment neither retransmitted nor SACKed. (Rule (2), new
    /// data, is the sender's; rule (4), the rescue retransmission, is not done, as in ns-3.)
    /// Returns (rule 1, rule 3).
    pub fn next_seg(&mut self, rule3: bool) -> (Option<i32>, Option<i32>) {
        let mut h = self.rtx_hint.max(self.una);
        while h < self.high && self.f(h) & (RETRANS | SACKED) != 0 {
            h += 1;
        }
        self.rtx_hint = h;
        if h >= self.high {
            return (None, None);
        }
        if self.f(h) & LOST != 0 {
            (Some(h), None)
        } else {
            (None, (rule3 && (self.rule3_any || self.highest_sack.is_some_and(|hs| h < hs))).then_some(h))
        }
    }

    /// Mark the first unacknowledged segment lost (ns-3 `MarkHeadAsLost`).
    pub fn mark_head_lost(&mut self) {
        if let Some(f) = self.flags.front_mut() {
            if *f & (LOST | SACKED) == 0 {
                *f |= LOST;
                self.lost += 1;
                self.lost_marks += 1;
            }
        }
    }

    /// Retransmission timeout (ns-3 `SetSentListLost(false)`): SACK information is kept,
    /// every other segment is lost, no segment counts as retransmitted.
    pub fn rto_all_lost(&mut self) {
        self.retrans = 0;
        self.lost = 0;
        self.rtx_hint = self.una;
        self.lost_floor = self.high;
        for f in self.flags.iter_mut() {
            *f &= !RETRANS;
            if *f & SACKED == 0 {
                self.lost_marks += (*f & LOST == 0) as u64;
                *f |= LOST;
                self.lost += 1;
            }
        }
    }

    /// RACK marks `seg` lost (Linux `tcp_mark_skb_lost`): a retransmission in flight is
    /// lost too (no longer counted as retransmitted, so NextSeg sends it again). Returns
    /// whether the segment was newly taken out of flight.
    pub fn rack_mark_lost(&mut self, seg: i32) -> bool {
        let f = self.f(seg);
        if f & SACKED != 0 || (f & LOST != 0 && f & RETRANS == 0) {
            return false;
        }
        if f & RETRANS != 0 {
            self.retrans -= 1;
            self.rtx_hint = self.rtx_hint.min(seg);
        }
        if f & LOST == 0 {
            self.lost += 1;
        }
        *self.f_mut(seg) = (f & !RETRANS) | LOST;
        true
    }

    /// The head was retransmitted (and not acknowledged since).
    pub fn head_retransmitted(&self) -> bool {
        self.flags.front().is_some_and(|f| f & RETRANS != 0)
    }
}

#[cfg(test)]
mod runs_tests {
    use super::*;

    /// The SACKed runs are always the maximal stretches of SACKed segments above `una`
    /// (sorted, disjoint, merged), and the counters, the highest SACK and the lost marks
    /// agree with a segment-by-segment count, over a seeded random mix of sends, SACK
    /// blocks (overlapping, repeated, below `una` or past `high`) and cumulative ACKs.
    #[test]
    fn runs_are_the_sacked_stretches() {
        let mut sb = Scoreboard::new(3);
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |m: u64| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (x >> 33) % m
        };
        let mut most_runs = 0;
        for _ in 0..20_000 {
            match next(5) {
                0 | 1 => {
                    for _ in 0..1 + next(6) {
                        sb.sent_new();
                    }
                }
                2 | 3 => {
                    let n = 1 + next(4) as usize;
                    let blocks: Vec<(i32, i32)> = (0..n)
                        .map(|_| {
                            let lo = sb.una - 2 + next((sb.high - sb.una + 4) as u64) as i32;
                            (lo, lo + next(6) as i32)
                        })
                        .collect();
                    let before = (sb.una..sb.high).filter(|&s| sb.is_sacked(s)).count() as u32;
                    let n = sb.update_sack(blocks.iter().copied());
                    let after = (sb.una..sb.high).filter(|&s| sb.is_sacked(s)).count() as u32;
                    assert_eq!(n, after - before, "newly SACKed");
                }
                _ => {
                    let ack = sb.una + next((sb.high - sb.una + 1) as u64 / 2 + 1) as i32;
                    sb.discard_upto(ack.min(sb.high));
                }
            }
            let mut want: Vec<(i32, i32)> = Vec::new();
            for s in sb.una..sb.high {
                if sb.is_sacked(s) {
                    match want.last_mut() {
                        Some(r) if r.1 + 1 == s => r.1 = s,
                        _ => want.push((s, s)),
                    }
                }
            }
            assert_eq!(sb.runs, want);
            most_runs = most_runs.max(want.len());
            let count = |m: u8| (sb.una..sb.high).filter(|&s| sb.f(s) & m != 0).count() as u32;
            assert_eq!((sb.sacked, sb.lost), (count(SACKED), count(LOST)));
            assert_eq!(sb.highest_sack.filter(|&h| h >= sb.una), want.last().map(|r| r.1));
            // every unSACKed segment below the 3rd SACKed one from the top is marked lost
            if let Some(&q) = (sb.una..sb.high).rev().filter(|&s| sb.is_sacked(s)).collect::<Vec<_>>().get(2) {
                assert!((sb.una..q).all(|s| sb.is_sacked(s) || sb.is_marked_lost(s)));
            }
        }
        assert!(most_runs >= 5, "the mix made holes ({most_runs} runs at most)");
    }
}
