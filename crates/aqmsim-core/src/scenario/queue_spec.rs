//! Queue tables: `kind` selects the discipline; each discipline has its own parameter set,
//! checked with its own allowed fields and ranges.

use super::queue_fields::parse_as;
use super::queue_modern::{build_codel, build_fq_codel, build_pie, CODEL_PARAMS, FQ_CODEL_PARAMS, PIE_PARAMS};
use crate::aqm::ecn_threshold::Where;
use crate::aqm::{AnyAqm, DropTail, EcnThreshold};
use crate::error::{Result, ScenarioError};
use serde::Deserialize;
use serde_json::{json, Value};

pub use super::queue_fields::{LinkInfo, Param};
pub use super::queue_red::AutoNum;

const RED_COMMON: &[Param] = &[
    ("limit", "50", "packets ≥ 1 waiting (ns-2 limit_; byte mode: limit·mean_pktsize bytes)"),
    ("min_th", "auto", "packets > 0, or \"auto\" = max(5, target_delay·ptc/2) (ns-2 thresh_ 0)"),
    ("max_th", "auto", "packets > min_th, or \"auto\" = 3·min_th (ns-2 maxthresh_ 0)"),
    ("max_p", "0.1", "(0, 1] (ns-2 1/linterm_)"),
    ("w_q", "auto", "(0, 1], or \"auto\" (ns-2 q_weight_ -1)"),
    ("gentle", "false", "bool: p rises from max_p to 1 between max_th and 2·max_th (ns-2 gentle_; ns2: true)"),
    ("wait", "false", "bool: uniform inter-drop gap in [1/p_b, 2/p_b], not [1, 1/p_b] (ns-2 wait_; ns2: true)"),
    ("ecn", "false", "bool: mark ECN-capable packets instead of dropping (ns-2 setbit_)"),
    ("ecn_mode", "mark_tail", "mark_tail | mark_front: which packet carries the mark (paper 004)"),
    ("mark_p", "0.1", "> 0: with ECN, mark only while p < mark_p, so > 1 (e.g. 2) marks always (ns-2 mark_p_)"),
    ("bytes", "false", "bool: p scaled by size/mean_pktsize after the count correction (ns-2 bytes_; ns2: true)"),
    ("queue_in_bytes", "false", "bool: average and thresholds in bytes, in units of mean_pktsize (ns-2 queue_in_bytes_; ns2: true)"),
    ("mean_pktsize", "500", "bytes in [1, 65535] (ns-2 mean_pktsize_)"),
    ("target_delay", "0.005", "s > 0, for the automatic thresholds (ns-2 targetdelay_)"),
    ("defaults", "paper", "paper | ns2: ns2 = ns-2 2.35's Queue/RED defaults (gentle, wait, bytes, queue_in_bytes all true); fields written win"),
];

/// Every discipline: (name, what it is, its own parameters, whether the RED parameters apply).
pub const DISCIPLINES: &[(&str, &str, &[Param], bool)] = &[
    (
        "droptail",
        "FIFO; drop the arrival (or the head) when full",
        &[
            ("limit", "50", "packets ≥ 1; includes the packet in transmission (ns-2 semantics)"),
            ("limit_bytes", "—", "bytes ≥ 1; when set, the queue is limited in bytes"),
            ("drop_front", "false", "bool: on overflow drop the head packet, not the arrival (ns-2 drop_front_)"),
        ],
        false,
    ),
    ("red", "RED (Floyd & Jacobson 1993) with ns-2 2.35's Queue/RED options", &[], true),
    ("gentle", "Gentle RED: red with gentle = true (paper 003)", &[], true),
    (
        "ared",
        "Adaptive RED (Floyd et al. 2001), ns-2 adaptive_ 1: AIMD on max_p toward the target band",
        &[
            ("interval", "0.5", "s > 0 between adaptations (ns-2 interval_)"),
            ("alpha", "0.01", "> 0: additive increase cap, min(alpha, max_p/4) (ns-2 alpha_)"),
            ("beta", "0.9", "(0, 1): multiplicative decrease (ns-2 beta_)"),
            ("top", "0.5", "(0, 1]: max_p ceiling (ns-2 top_)"),
            ("bottom", "auto", "(0, 1] or \"auto\" = min(0.01, 80000/rate) (ns-2 bottom_ 0)"),
        ],
        true,
    ),
    (
        "ared_feng",
        "Adaptive RED (Feng et al. 1999): max_p ×alpha above max_th, ÷beta below min_th, once per crossing",
        &[("alpha", "2", "> 1: factor when avg crosses above max_th"), ("beta", "3", "> 1: divisor when avg falls below min_th")],
        true,
    ),
    (
        "rtred",
        "RTRED (paper 000): risk threshold on the actual queue sets max_p to max_p, max_p/2 or max_p/5",
        &[
            ("risk_th", "required", "packets, max_th < risk_th ≤ limit, against the actual queue (byte mode: risk_th·mean_pktsize bytes)"),
            ("between", "keep", "keep | half | initial: max_p where the paper gives no rule"),
        ],
        true,
    ),
    (
        "qrtred",
        "QRTRED (paper 001): min_th = 5 + Φ(QRT), max_th = 3·min_th, from the queue's rate of change",
        &[
            ("tau", "2", "cells ≥ 1 of occupancy change that end an interval"),
            ("qrt_unit", "1.0", "s > 0: QRT is in cells per qrt_unit (default cells/second)"),
        ],
        true,
    ),
    ("red1", "RED_1 (paper 002): drop probability independent of packet size", &[("max_pktsize", "1500", "M, bytes in [1, 65535]")], true),
    ("red2", "RED_2 (paper 002): p_b weighted by L/M before the count correction", &[("max_pktsize", "1500", "M, bytes in [1, 65535]")], true),
    ("red3", "RED_3 (paper 002): p_a weighted by L/M", &[("max_pktsize", "1500", "M, bytes in [1, 65535]")], true),
    ("red4", "RED_4 (paper 002): p_a weighted by L/M, count += L/M after", &[("max_pktsize", "1500", "M, bytes in [1, 65535]")], true),
    ("red5", "RED_5 (paper 002): p_a weighted by (L/M)², count += (L/M)² after", &[("max_pktsize", "1500", "M, bytes in [1, 65535]")], true),
    (
        "ecn_threshold",
        "ECN on the instantaneous queue (paper 004): mark when q > T, at the tail or the front",
        &[
            ("threshold", "required", "T, packets ≥ 0"),
            ("limit", "50", "packets ≥ 1 waiting (the buffer)"),
            ("mode", "mark_tail", "mark_tail | mark_front | drop_front"),
        ],
        false,
    ),
    ("codel", "CoDel (RFC 8289) as ns-3.37: drop or mark at dequeue once the sojourn time stays above target for an interval", CODEL_PARAMS, false),
    ("pie", "PIE (RFC 8033) as ns-3.37: drop probability from the queueing delay, updated every t_update, with burst allowance", PIE_PARAMS, false),
    (
        "fq_codel",
        "FQ-CoDel (RFC 8290) as ns-3.37: flows hashed into queues, DRR with new/old lists, CoDel per queue",
        FQ_CODEL_PARAMS,
        false,
    ),
    ("dualpi2", "DualPI2 (RFC 9332) as Linux 6.18's sch_dualpi2: L4S (ECT(1)/CE) and Classic queues, PI2 coupled marking, step threshold, WRR", super::queue_dualpi2::DUALPI2_PARAMS, false),
    ("fq_pie", "FQ-PIE as ns-3.37: flows hashed into queues, DRR with new/old lists, PIE per queue", super::queue_fq::FQ_PIE_PARAMS, false),
    ("cake", "CAKE as Linux's sch_cake, one best-effort tin: set-associative flow hashing, host isolation, DRR++, COBALT per queue, shaper, ACK filter", super::queue_cake::CAKE_PARAMS, false),
    ("cobalt", "COBALT (CoDel + BLUE, CAKE's AQM) as ns-3.37: CoDel's control law at dequeue, BLUE's drop probability on overload", super::queue_cobalt::COBALT_PARAMS, false),
    ("fq_cobalt", "FQ-COBALT as ns-3.37: flows hashed into queues, DRR with new/old lists, COBALT (CoDel + BLUE) per queue", super::queue_fq_cobalt::FQ_COBALT_PARAMS, false),
    ("python", "your own discipline: a Python class (aqmsim.plugin.QueueDiscipline); every other field of the table is a keyword of its __init__", PYTHON_PARAMS, false),
];

/// `kind = "python"`: the class; the table's other fields go to its constructor.
const PYTHON_PARAMS: &[Param] = &[
    ("class", "required", "\"module:Class\" or \"path/file.py:Class\" (relative to the scenario file): a subclass of aqmsim.plugin.QueueDiscipline"),
];

/// RED parameters a variant does not take, and RED defaults a variant changes.
fn red_overrides(kind: &str) -> (&'static [&'static str], &'static [Param]) {
    const GENTLE: &[Param] = &[("gentle", "true", "bool: the gentle region is what makes it Gentle RED (kind = \"red\" has none)")];
    const ARED: &[Param] = &[("gentle", "true", "bool: Floyd et al. 2001 run Adaptive RED in gentle mode (ns-2 gentle_)")];
    match kind {
        "red1" | "red2" | "red3" | "red4" | "red5" => (&["bytes"], &[]),
        "qrtred" => (&["min_th", "max_th"], &[]),
        "gentle" => (&[], GENTLE),
        "ared" => (&[], ARED),
        _ => (&[], &[]),
    }
}

/// What `aqmsim list` says under a discipline's table beyond its parameters: where its
/// defaults come from, how to get ns-2's, and the caveats a user of the name should know.
pub fn discipline_note(kind: &str) -> Option<&'static str> {
    let (_, _, _, red) = DISCIPLINES.iter().find(|d| d.0 == kind)?;
    Some(match kind {
        "red" => "Defaults are Floyd & Jacobson 1993: no gentle region, no wait_, packet mode (queue, average and thresholds in packets, p not scaled by size). defaults = \"ns2\" gives ns-2 2.35's Queue/RED (gentle_, wait_, bytes_, queue_in_bytes_ true); kind = \"gentle\" is Gentle RED.",
        "gentle" => "Defaults are RED's (Floyd & Jacobson 1993, packet mode, no wait_) with the gentle region. defaults = \"ns2\" gives ns-2 2.35's Queue/RED (wait_, bytes_, queue_in_bytes_ true as well).",
        "ared" => "Defaults are Floyd et al. 2001: gentle, packet mode, no wait_; defaults = \"ns2\" gives ns-2 2.35's (wait_, bytes_, queue_in_bytes_ true). Caveat: max_p only moves every interval when avg leaves the target band [min_th + 0.4·(max_th − min_th), min_th + 0.6·(max_th − min_th)]; started at a max_p (e.g. 0.02) with a stable load it behaves packet for packet as Gentle RED at that max_p until the first adaptation. The max_p column of the queue samples (and the drop-probability figure) shows when it moves.",
        "ared_feng" => "Defaults are RED's (Floyd & Jacobson 1993: no gentle, no wait_, packet mode) as Feng et al. 1999 build on it; defaults = \"ns2\" gives ns-2 2.35's Queue/RED values. max_p moves only when avg crosses a threshold: the max_p column of the queue samples shows it.",
        "rtred" | "qrtred" => "Defaults are RED's (Floyd & Jacobson 1993: no gentle, no wait_, packet mode), which the paper modifies; defaults = \"ns2\" gives ns-2 2.35's Queue/RED values (gentle_, wait_, bytes_, queue_in_bytes_ true).",
        _ if *red => "Defaults are the paper's 1993 RED (no gentle, no wait_, packet mode); defaults = \"ns2\" gives ns-2 2.35's gentle_, wait_ and queue_in_bytes_ (true).",
        "droptail" => "As ns-2's DropTail: limit counts the packet in transmission (limit − 1 wait).",
        "dualpi2" => "Defaults are Linux 6.18's sch_dualpi2 (tc-dualpi2(8)); its WRR scheduler, not RFC 9332's time-shifted FIFO. p = p'², max_p = min(k·p', 1), avg = p', count = L-queue packets in the queue samples. docs/aqm/dualpi2.md lists every reading and departure.",
        "cobalt" => "Defaults are ns-3.37's CobaltQueueDisc (MaxSize 1 500 000 bytes, UseEcn off, BlueThreshold 400 ms); checked packet for packet against ns-3's queue disc (docs/aqm/cobalt.md).",
        "python" => "Each other field of the table is passed to the class's __init__ as a keyword (its defaults fill the resolved scenario). The run fails with one line naming the plug-in if it raises, returns something other than a verdict, or runs past plugin_time_limit (a top-level field, default 60 s of wall-clock time). docs/plugins/aqm.md is the reference; aqmsim.plugin.examples.red:Red is a RED in Python equal to kind = \"red\" packet for packet.",
        "cake" => "One best-effort tin (tc-cake's default is diffserv3; aqmsim's packets carry no DSCP), egress mode, Linux's defaults otherwise. No simulator has CAKE: Linux's sch_cake.c is the reference (docs/aqm/cake.md lists every reading and departure).",
        _ => return None,
    })
}

/// The parameters a discipline accepts (its own, then RED's when they apply), with the
/// defaults in force for that discipline.
pub fn params_of(kind: &str) -> Option<Vec<Param>> {
    let (_, _, own, red) = DISCIPLINES.iter().find(|d| d.0 == kind)?;
    let mut v: Vec<Param> = own.to_vec();
    if *red {
        let (without, changed) = red_overrides(kind);
        for p in RED_COMMON {
            if without.contains(&p.0) || v.iter().any(|q| q.0 == p.0) {
                continue;
            }
            v.push(*changed.iter().find(|c| c.0 == p.0).unwrap_or(p));
        }
    }
    Some(v)
}


#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DropTailSpec {
    #[allow(dead_code)]
    kind: String,
    limit: Option<u32>,
    limit_bytes: Option<u64>,
    drop_front: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThresholdSpec {
    #[allow(dead_code)]
    kind: String,
    threshold: u32,
    limit: Option<u32>,
    mode: Option<String>,
}


/// Build a discipline from its table; returns it and its resolved parameters as JSON.
pub fn build_queue(spec: Option<&serde_json::Map<String, Value>>, path: &str, link: LinkInfo) -> Result<(AnyAqm, Value)> {
    let Some(m) = spec else {
        return Ok((AnyAqm::DropTail(DropTail::packets(50)), json!({"kind": "droptail", "limit": 50, "drop_front": false})));
    };
    let kind = match m.get("kind") {
        Some(Value::String(s)) => s.to_ascii_lowercase(),
        Some(other) => return Err(ScenarioError::new(format!("{path}.kind"), format!("must be a string, got {other}"))),
        None => return Err(ScenarioError::new(format!("{path}.kind"), format!("missing (one of: {})", names()))),
    };
    match kind.as_str() {
        "droptail" => {
            let s: DropTailSpec = parse_as(m, path)?;
            if let Some(lb) = s.limit_bytes {
                if s.limit.is_some() {
                    return Err(ScenarioError::new(format!("{path}.limit_bytes"), "give either limit or limit_bytes, not both"));
                }
                if lb == 0 {
                    return Err(ScenarioError::new(format!("{path}.limit_bytes"), "must be ≥ 1 byte"));
                }
                let mut d = DropTail::bytes(lb);
                d.drop_front = s.drop_front.unwrap_or(false);
                let j = json!({"kind": "droptail", "limit_bytes": lb, "drop_front": d.drop_front});
                return Ok((AnyAqm::DropTail(d), j));
            }
            let limit = s.limit.unwrap_or(50);
            if limit == 0 {
                return Err(ScenarioError::new(format!("{path}.limit"), "must be ≥ 1 packet, got 0"));
            }
            let mut d = DropTail::packets(limit);
            d.drop_front = s.drop_front.unwrap_or(false);
            let j = json!({"kind": "droptail", "limit": limit, "drop_front": d.drop_front});
            Ok((AnyAqm::DropTail(d), j))
        }
        "ecn_threshold" => {
            let s: ThresholdSpec = parse_as(m, path)?;
            let limit = s.limit.unwrap_or(50);
            if limit == 0 {
                return Err(ScenarioError::new(format!("{path}.limit"), "must be ≥ 1 packet, got 0"));
            }
            let mode_s = s.mode.unwrap_or_else(|| "mark_tail".into());
            let mode = Where::parse(&mode_s).ok_or_else(|| {
                ScenarioError::new(format!("{path}.mode"), format!("unknown mode {mode_s:?} (expected one of: mark_tail, mark_front, drop_front)"))
            })?;
            let d = EcnThreshold { threshold: s.threshold, limit, mode };
            let j = json!({"kind": "ecn_threshold", "threshold": s.threshold, "limit": limit, "mode": mode.name()});
            Ok((AnyAqm::Threshold(d), j))
        }
        // the registry checks a table's fields, then the discipline's own builder parses it
        "codel" => only_own_fields(m, path, &kind, CODEL_PARAMS).and_then(|_| build_codel(m, path)),
        "fq_codel" => only_own_fields(m, path, &kind, FQ_CODEL_PARAMS).and_then(|_| build_fq_codel(m, path)),
        "pie" => only_own_fields(m, path, &kind, PIE_PARAMS).and_then(|_| build_pie(m, path)),
        "dualpi2" => only_own_fields(m, path, &kind, super::queue_dualpi2::DUALPI2_PARAMS).and_then(|_| super::queue_dualpi2::build_dualpi2(m, path)),
        "fq_pie" => only_own_fields(m, path, &kind, super::queue_fq::FQ_PIE_PARAMS).and_then(|_| super::queue_fq::build_fq_pie(m, path)),
        "cobalt" => only_own_fields(m, path, &kind, super::queue_cobalt::COBALT_PARAMS).and_then(|_| super::queue_cobalt::build_cobalt(m, path)),
        "fq_cobalt" => only_own_fields(m, path, &kind, super::queue_fq_cobalt::FQ_COBALT_PARAMS).and_then(|_| super::queue_fq_cobalt::build_fq_cobalt(m, path)),
        "cake" => only_own_fields(m, path, &kind, super::queue_cake::CAKE_PARAMS).and_then(|_| super::queue_cake::build_cake(m, path)),
        "python" => crate::plugin::factory(path)?.make_aqm(m, path, link).map(|(d, j)| (AnyAqm::Plugin(d), j)),
        k if params_of(k).is_some() => {
            only_own_fields(m, path, k, &params_of(k).unwrap_or_default())?;
            super::queue_red::build_red_family(k, m, path, link)
        }
        other => Err(ScenarioError::new(format!("{path}.kind"), format!("unknown discipline {other:?} (expected one of: {})", names()))),
    }
}

/// Refuse fields that belong to another discipline (or to none), naming the owner.
pub(crate) fn only_own_fields(m: &serde_json::Map<String, Value>, path: &str, kind: &str, own: &[Param]) -> Result<()> {
    for key in m.keys() {
        if key != "kind" && !own.iter().any(|p| p.0 == key) {
            let owners: Vec<&str> =
                DISCIPLINES.iter().filter(|d| params_of(d.0).unwrap_or_default().iter().any(|p| p.0 == key)).map(|d| d.0).collect();
            let hint = if owners.is_empty() { String::new() } else { format!(" (it is a parameter of: {})", owners.join(", ")) };
            return Err(ScenarioError::new(format!("{path}.{key}"), format!("not a parameter of {kind}{hint}")));
        }
    }
    Ok(())
}

fn names() -> String {
    DISCIPLINES.iter().map(|d| d.0).collect::<Vec<_>>().join(", ")
}
