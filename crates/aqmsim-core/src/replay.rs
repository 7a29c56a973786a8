//! Queue-level replay: feed one discipline a scripted sequence of enqueues and dequeues
//! and write what it did, line for line in the format of ns-3's `queue_replay` program
//! (`benchmarks/ns3/queue_replay.cc`), so the two can be compared packet for packet.
//!
//! Input, one op per line (`#` starts a comment; times in integer ns, non-decreasing):
//!     e <t_ns> <flow> <bytes> <ect>    enqueue (ids count e-lines from 0; ect 0 Not-ECT,
//!                                      1 ECT(0), 2 ECT(1))
//!     d <t_ns>                         one dequeue call
//! Output, one line per event:
//!     enq <t> <id> <flow> q|m|d        the arrival: queued, queued with CE, dropped
//!     drop <t> <id> <flow>             a queued packet dropped (at dequeue, or to make room)
//!     mark <t> <id> <flow>             a queued packet marked CE as it leaves
//!     deq <t> <id> <flow> <ce>         a packet left (ce 0|1); `deq <t> - - -` if none

use crate::aqm::queue::{Enqueued, QueueDisc};
use crate::error::{Result, ScenarioError};
use crate::packet::{ecn, Kind, Packet};
use crate::rng::Rng;
use crate::scenario::queue_spec::{build_queue, LinkInfo};
use crate::time::SimTime;
use std::fmt::Write;

/// Replay `ops` through the discipline the queue table `queue` describes (random draws
/// from `seed`). The link rate/delay only matter to RED's automatic parameters.
pub fn replay(queue: &serde_json::Map<String, serde_json::Value>, ops: &str, seed: u64) -> Result<String> {
    let link = LinkInfo { rate_bps: 10e6, delay_s: 0.01 };
    let (aqm, _) = build_queue(Some(queue), "queue", link)?;
    let mut q = QueueDisc::new(aqm);
    let mut rng = Rng::new(seed, 1);
    let mut out = String::new();
    let mut next_id = 0i32;
    let mut last_t = 0u64;
    for (n, line) in ops.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = |why: &str| ScenarioError::new(format!("ops line {}", n + 1), format!("{why}: {line:?}"));
        let f: Vec<&str> = line.split_whitespace().collect();
        let num = |i: usize| -> Result<u64> { f.get(i).and_then(|s| s.parse().ok()).ok_or_else(|| bad("expected a non-negative integer field")) };
        let t = num(1)?;
        if t < last_t {
            return Err(bad("times must not decrease"));
        }
        last_t = t;
        let now = SimTime(t);
        match f[0] {
            "e" if f.len() == 5 => {
                let (flow, bytes, ect) = (num(2)? as u32, num(3)? as u32, num(4)?);
                let id = next_id;
                next_id += 1;
                let mut p = Packet::new(Kind::Data, flow, id, bytes.max(1), 1, now);
                // ect: 0 Not-ECT, 1 ECT(0), 2 ECT(1)
                p.ecn = match ect {
                    1 => ecn::ECT,
                    2 => ecn::ECT | ecn::ECT1,
                    0 => 0,
                    _ => return Err(bad("ect must be 0 (Not-ECT), 1 (ECT(0)) or 2 (ECT(1))")),
                };
                let what = match q.enqueue(p, now, &mut rng) {
                    Enqueued::Queued { marked: Some(_) } => "m",
                    Enqueued::Queued { marked: None } => "q",
                    Enqueued::Dropped(_) => "d",
                    Enqueued::DroppedHead(head, _) => {
                        let _ = writeln!(out, "drop {t} {} {}", head.seq, head.flow);
                        "q"
                    }
                };
                write_events(&mut out, &mut q, t);
                let _ = writeln!(out, "enq {t} {id} {flow} {what}");
            }
            "d" if f.len() == 2 => {
                let p = q.dequeue(now, &mut rng);
                write_events(&mut out, &mut q, t);
                match p {
                    Some(p) => {
                        let _ = writeln!(out, "deq {t} {} {} {}", p.seq, p.flow, (p.ecn & ecn::CE != 0) as u8);
                    }
                    None => {
                        let _ = writeln!(out, "deq {t} - - -");
                    }
                }
            }
            _ => return Err(bad("expected `e <t_ns> <flow> <bytes> <ect>` or `d <t_ns>`")),
        }
    }
    Ok(out)
}

/// The first `n` uniform draws [`replay`] makes available to a discipline with `seed`
/// (PIE and RED draw one per random test): given to ns-3's replay in the same order, both
/// simulators decide with the same numbers.
pub fn uniforms(seed: u64, n: usize) -> Vec<f64> {
    let mut rng = Rng::new(seed, 1);
    (0..n).map(|_| rng.uniform()).collect()
}

fn write_events(out: &mut String, q: &mut QueueDisc, t: u64) {
    for e in q.front_events.drain(..) {
        let what = if e.marked { "mark" } else { "drop" };
        let _ = writeln!(out, "{what} {t} {} {}", e.pkt.seq, e.flow);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(j: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        j.as_object().unwrap().clone()
    }

    #[test]
    fn droptail_by_hand() {
        let ops = "e 0 1 1000 0\ne 0 2 1000 0\ne 1 1 1000 0 # third: full\nd 5\nd 6\nd 7\n";
        let out = replay(&table(serde_json::json!({"kind": "droptail", "limit": 3})), ops, 1).unwrap();
        assert_eq!(out, "enq 0 0 1 q\nenq 0 1 2 q\nenq 1 2 1 d\ndeq 5 0 1 0\ndeq 6 1 2 0\ndeq 7 - - -\n");
    }

    #[test]
    fn bad_lines_are_named() {
        let t = table(serde_json::json!({"kind": "codel"}));
        let e = replay(&t, "e 0 1 1000\n", 1).unwrap_err().to_string();
        assert!(e.contains("ops line 1"), "{e}");
        let e = replay(&t, "d 5\nd 4\n", 1).unwrap_err().to_string();
        assert!(e.contains("ops line 2") && e.contains("decrease"), "{e}");
    }
}
