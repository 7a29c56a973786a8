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
    /// The highest SACKed segment, if any is above `una`.
    highest_sack: Option<i32>,
    /// DupThresh (3).
    pub dupthresh: u32,
}

impl Scoreboard {
    pub fn new(dupthresh: u32) -> Self {
        Scoreboard { una: 0, high: 0, flags: VecDeque::new(), sacked: 0, lost: 0, retrans: 0, highest_sack: None, dupthresh }
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
        let mut n = 0;
        for (lo, hi) in blocks {
            let (lo, hi) = (lo.max(self.una), hi.min(self.high - 1));
            for s in lo..=hi {
                let f = self.f(s);
                if f & SACKED == 0 {
                    if f & LOST != 0 {
                        self.lost -= 1;
                    }
                    *self.f_mut(s) = (f & !LOST) | SACKED;
                    self.sacked += 1;
                    n += 1;
                    if self.highest_sack.map_or(true, |h| s > h) {
                        self.highest_sack = Some(s);
                    }
                }
            }
        }
        if n > 0 {
            self.update_lost();
        }
        n
    }

    fn update_lost(&mut self) {
        let Some(hs) = self.highest_sack else { return };
        let mut count = 0;
        for s in (self.una..=hs).rev() {
            let f = self.f(s);
            if f & SACKED != 0 {
                count += 1;
            } else if count >= self.dupthresh && f & LOST == 0 {
                *self.f_mut(s) |= LOST;
                self.lost += 1;
            }
        }
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

    /// RFC 6675 NextSeg rules (1) and (3) over sent data: the first segment marked lost,
    /// not retransmitted and not SACKed; else, with `rule3`, the first one not
    /// retransmitted and not SACKed below the highest SACK. (Rule (2), new data, is the
    /// sender's; rule (4), the rescue retransmission, is not done, as in ns-3.)
    pub fn next_seg(&self, rule3: bool) -> (Option<i32>, Option<i32>) {
        let mut r3 = None;
        for (i, &f) in self.flags.iter().enumerate() {
            if f & (RETRANS | SACKED) == 0 {
                if f & LOST != 0 {
                    return (Some(self.una + i as i32), None);
                }
                if rule3 && r3.is_none() && self.highest_sack.is_some_and(|h| self.una + (i as i32) < h) {
                    r3 = Some(self.una + i as i32);
                }
            }
        }
        (None, r3)
    }

    /// Mark the first unacknowledged segment lost (ns-3 `MarkHeadAsLost`).
    pub fn mark_head_lost(&mut self) {
        if let Some(f) = self.flags.front_mut() {
            if *f & (LOST | SACKED) == 0 {
                *f |= LOST;
                self.lost += 1;
            }
        }
    }

    /// Retransmission timeout (ns-3 `SetSentListLost(false)`): SACK information is kept,
    /// every other segment is lost, no segment counts as retransmitted.
    pub fn rto_all_lost(&mut self) {
        self.retrans = 0;
        self.lost = 0;
        for f in self.flags.iter_mut() {
            *f &= !RETRANS;
            if *f & SACKED == 0 {
                *f |= LOST;
                self.lost += 1;
            }
        }
    }

    /// The head was retransmitted (and not acknowledged since).
    pub fn head_retransmitted(&self) -> bool {
        self.flags.front().is_some_and(|f| f & RETRANS != 0)
    }
}
