//! The device queue under a link's discipline (`queue.device_queue = N`), as ns-3's
//! `NetDeviceQueue` and `TrafficControlLayer` arrange it: the transmitter takes packets from
//! an N-packet FIFO of its own, and the discipline is asked for a packet whenever that FIFO
//! has room (ns-3: a transmission start dequeues the device's queue, which wakes the queue
//! disc, `QueueDisc::Run`). So a packet's sojourn in the discipline ends when it enters the
//! device queue, up to N transmission times before it goes on the wire.
//!
//! Invariants (links with a device queue): the device queue holds packets only while the
//! link transmits; while the discipline holds packets the device queue is full; a `TxDone`
//! is pending whenever the device queue holds packets. A link without a device queue never
//! comes here (one flag test in `links.rs`).
//!
//! What the monitors count: a link's queue length is the discipline's (as ns-3's
//! `QueueDisc::GetNPackets`); the packets in the device queue are not in it. The queueing
//! delay (`monitor.delays` and the summary's `mean_queueing_delay_s`) is measured to the
//! start of the packet's transmission, so it includes the wait in the device queue (ns-3's `dumbbell.cc`: `txdelay_*`, entering the
//! disc to `PhyTxBegin`); the discipline's own sojourn (what CoDel's target and CE threshold
//! are compared with) ends one device-queue wait earlier.

use super::Simulation;
use crate::sched::Event;

impl Simulation {
    /// Move packets from link `l`'s discipline into its device queue while it has room, and
    /// make sure the end of the current transmission is an event when any wait there.
    /// Called while the link transmits (after a transmission starts, after an enqueue).
    #[cold]
    #[inline(never)]
    pub(super) fn dev_fill(&mut self, l: u32) {
        let now = self.now;
        loop {
            let link = &mut self.links[l as usize];
            if link.dev.len() >= link.dev_cap as usize || link.queue.is_empty() {
                break;
            }
            let p = link.queue.dequeue(now, &mut self.qrng[l as usize]);
            self.log_queue_events(l);
            match p {
                Some(p) => self.links[l as usize].dev.push_back((p, now)),
                // (front drops emptied the discipline, or its shaper holds packets back)
                None => {
                    self.shaper_wake(l);
                    break;
                }
            }
        }
        let link = &mut self.links[l as usize];
        if !link.dev.is_empty() && !link.txdone_pending {
            link.txdone_pending = true;
            let (at, seq) = (link.busy_until, link.txdone_seq);
            self.sched.schedule_reserved(at, seq, Event::TxDone { link: l });
        }
    }

    /// The transmission on link `l` (which has a device queue) ends now: the device
    /// queue's head goes on the wire (and the discipline refills the device queue,
    /// `start_tx`). The packet's departure is noted here, at the start of its
    /// transmission.
    #[cold]
    #[inline(never)]
    pub(super) fn dev_tx_done(&mut self, l: u32) {
        let link = &mut self.links[l as usize];
        link.txdone_pending = false;
        match link.dev.pop_front() {
            Some((p, since)) => {
                // the summary's mean queueing delay runs to the transmission start, too
                link.queue.stats.qdelay_sum_ns += self.now.saturating_since(since).0 as u128;
                if link.note {
                    self.note_departure(l, Some(&p), true);
                }
                self.start_tx(l, p, true);
            }
            // Not reached while the invariants hold; the plain path keeps the link right.
            None => match self.dequeue(l) {
                Some(p) => self.start_tx(l, p, true),
                None => self.links[l as usize].idle_notified = true,
            },
        }
    }

}

#[cfg(test)]
mod tests {
    use crate::packet::{ecn, Kind, Packet};
    use crate::scenario::{build::build, from_toml};
    use crate::sim::Simulation;
    use crate::time::SimTime;

    /// One 10 Mb/s link A->B under CoDel with ECN and a 1 ms CE threshold; a CBR flow that
    /// starts only at 5 s, so the packets the test injects at 0 are alone on the link.
    fn link(device_queue: &str) -> Simulation {
        let toml = format!(
            r#"
duration = 6
nodes = ["A", "B"]
[[links]]
from = "A"
to = "B"
rate = "10Mb"
delay = "10ms"
queue = {{ kind = "codel", ecn = true, ce_threshold = "1ms" {device_queue} }}
[[flows]]
src = "A"
dst = "B"
app = "cbr"
start = 5
cbr = {{ rate = "0.1Mb", packet_size = 1000 }}
"#
        );
        Simulation::new(build(&from_toml(&toml).expect("parses"), 1).expect("builds"))
    }

    const T: u64 = 800_000; // ns: 1000 bytes at 10 Mb/s

    /// (packets in the discipline, packets in the device queue, CE marks so far) at `t_ns`
    /// after three 1000-byte ECN-capable packets reached A->B at 0, back to back.
    fn three_back_to_back(device_queue: &str, t_ns: &[u64]) -> Vec<(u32, usize, u64)> {
        let mut sim = link(device_queue);
        sim.run_until(SimTime::ZERO);
        let b = sim.links[0].to;
        for seq in 0..3 {
            let mut p = Packet::new(Kind::Data, 0, seq, 1000, b, SimTime::ZERO);
            p.ecn |= ecn::ECT;
            sim.link_recv(0, p);
        }
        let mut out = Vec::new();
        for &t in t_ns {
            sim.run_until(SimTime(t));
            let l = &sim.links[0];
            out.push((l.queue.len(), l.dev.len(), l.queue.stats.marks));
        }
        // the wire does not change: the third transmission ends at 3T either way, and the
        // queueing delays (to each transmission start: 0, T, 2T) sum to 3T
        sim.run_until(SimTime(3 * T + 1));
        let l = &sim.links[0];
        assert_eq!((l.busy_until, l.queue.stats.qdelay_sum_ns), (SimTime(3 * T), 3 * T as u128));
        out
    }

    #[test]
    fn the_disc_sojourn_ends_when_the_device_queue_takes_the_packet() {
        // Packet 0 finds the link idle and goes on the wire at 0 (0 < T). Without a device
        // queue packets 1 and 2 wait in CoDel until their transmissions start, at T and 2T:
        // sojourns T and 2T = 1.6 ms > 1 ms, so packet 2 is marked.
        let at = [0, T / 2, T + T / 2, 2 * T + T / 2];
        assert_eq!(three_back_to_back("", &at), vec![(2, 0, 0), (2, 0, 0), (1, 0, 0), (0, 0, 1)]);
        // With a 1-packet device queue packet 1 leaves CoDel at 0 (sojourn 0: T earlier),
        // packet 2 at T, when packet 1's transmission starts (sojourn T = 0.8 ms < 1 ms: not
        // marked); each then waits T in the device queue.
        let dq = ", device_queue = 1";
        assert_eq!(three_back_to_back(dq, &at), vec![(1, 1, 0), (1, 1, 0), (0, 1, 0), (0, 0, 0)]);
        // Two packets of device queue take both at 0.
        assert_eq!(three_back_to_back(", device_queue = 2", &at[..1]), vec![(0, 2, 0)]);
    }

    #[test]
    fn device_queue_is_checked() {
        let toml = |v: &str| format!("duration = 1\nnodes = [\"A\", \"B\"]\n[[links]]\nfrom = \"A\"\nto = \"B\"\nrate = \"10Mb\"\ndelay = \"1ms\"\nqueue = {{ kind = \"codel\", device_queue = {v} }}\n");
        for bad in ["-1", "1001", "1.5", "\"1p\""] {
            let e = build(&from_toml(&toml(bad)).unwrap(), 1).err().expect(bad).to_string();
            assert!(e.contains("links[0].queue.device_queue") && e.contains("from 0 to 1000"), "{bad}: {e}");
        }
        let ok = build(&from_toml(&toml("1000")).unwrap(), 1).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(!ok.contains("device_queue"), "{ok}");
    }
}
