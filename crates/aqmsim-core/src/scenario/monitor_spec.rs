//! The `[monitor]` and `[trace]` tables resolved: sampling intervals (bounded by the rows
//! they make), the traced TCP flows, the traced links and the trace format and path.

use super::fields::err;
use super::model::{FlowModel, LinkModel, TraceFormat, TraceModel, MAX_MONITOR_ROWS, MIN_MONITOR_INTERVAL_S};
use crate::error::Result;
use serde_json::Value;

/// A monitor interval: at least 1 µs, and few enough rows for the run.
pub(super) fn check_interval(dt: f64, duration: f64, queues: usize, what: &str, field: &str) -> Result<()> {
    if dt < MIN_MONITOR_INTERVAL_S {
        return err(field, format!("must be in [1e-6, 1e6] s, got {dt}"));
    }
    if queues == 0 {
        return Ok(());
    }
    let rows = (duration / dt).floor() * queues as f64;
    if rows > MAX_MONITOR_ROWS {
        let least = duration * queues as f64 / MAX_MONITOR_ROWS;
        return err(
            field,
            format!(
                "{dt} s over duration {duration} s for {queues} {what} makes {rows} rows, more than the {MAX_MONITOR_ROWS:e} allowed: use an interval ≥ {least} s (range [1e-6, 1e6] s)"
            ),
        );
    }
    Ok(())
}

/// `[trace]`: the links ("all", names, default the monitored queues), the format and the
/// path (required: nothing is written unless asked).
pub(super) fn trace_model(t: Option<&crate::scenario::schema::TraceSpec>, links: &[LinkModel], monitored: &[u32]) -> Result<Option<TraceModel>> {
    let Some(t) = t else { return Ok(None) };
    let format = match t.format.as_deref() {
        None | Some("ns2") => TraceFormat::Ns2,
        Some("pcap") => TraceFormat::Pcap,
        Some(other) => return err("trace.format", format!("unknown format {other:?} (expected one of: ns2, pcap)")),
    };
    let path = match t.path.as_deref() {
        Some(p) if !p.trim().is_empty() => std::path::PathBuf::from(p),
        _ => return err("trace.path", "required: the file (ns2) or directory (pcap) to write the trace to"),
    };
    super::trace_path::check_trace_path(&path, format)?;
    let named = |s: &str| links.iter().position(|l| l.name == s);
    let mut out: Vec<u32> = match &t.links {
        None => monitored.to_vec(),
        Some(Value::String(s)) if s == "all" => (0..links.len() as u32).collect(),
        Some(Value::Array(items)) => {
            let mut v = Vec::new();
            for (k, item) in items.iter().enumerate() {
                match item.as_str().and_then(named) {
                    Some(i) => v.push(i as u32),
                    None => {
                        let some: Vec<&str> = links.iter().take(6).map(|l| l.name.as_str()).collect();
                        return err(format!("trace.links[{k}]"), format!("no link {item} (links are named \"from->to\", e.g. {})", some.join(", ")));
                    }
                }
            }
            v
        }
        Some(other) => return err("trace.links", format!("expected \"all\" or a list of link names (\"from->to\"), got {other}")),
    };
    if out.is_empty() {
        return err("trace.links", "no link to trace: name them (e.g. [\"R1->R2\"]) or use \"all\"");
    }
    if format == TraceFormat::Pcap {
        // a capture is a tap on the cable: both directions of each link
        let reverse: Vec<u32> = out
            .iter()
            .filter_map(|&l| links.iter().position(|r| r.from == links[l as usize].to && r.to == links[l as usize].from))
            .map(|r| r as u32)
            .collect();
        out.extend(reverse);
    }
    out.sort_unstable();
    out.dedup();
    Ok(Some(TraceModel { links: out, format, path }))
}

/// `monitor.tcp_flows`: flow indexes (as in the flows table), flow labels (every flow with
/// that label), or "all" (every TCP flow). Sorted, without repeats; CBR flows refused.
pub(super) fn traced_flows(v: Option<&Value>, flows: &[FlowModel]) -> Result<Vec<u32>> {
    const F: &str = "monitor.tcp_flows";
    let is_tcp = |i: usize| flows[i].app.is_tcp();
    let items: Vec<Value> = match v {
        None => return Ok(Vec::new()),
        Some(Value::String(s)) if s == "all" => return Ok((0..flows.len()).filter(|&i| is_tcp(i)).map(|i| i as u32).collect()),
        Some(Value::Array(a)) => a.clone(),
        Some(other) => return err(F, format!("expected {}, got {other}", tcp_flow_choices(flows))),
    };
    let mut out = Vec::new();
    for (k, item) in items.iter().enumerate() {
        let at = format!("{F}[{k}]");
        match item {
            Value::Number(n) => match n.as_u64() {
                Some(i) if (i as usize) < flows.len() => {
                    if !is_tcp(i as usize) {
                        return err(at, format!("flow {i} is not a TCP flow (its app is UDP: cbr or onoff)"));
                    }
                    out.push(i as u32);
                }
                _ => return err(at, format!("no flow {n}: expected {}", tcp_flow_choices(flows))),
            },
            Value::String(s) => {
                let before = out.len();
                out.extend((0..flows.len()).filter(|&i| flows[i].label == *s && is_tcp(i)).map(|i| i as u32));
                if out.len() == before {
                    return err(at, format!("no TCP flow labelled {s:?}: expected {}", tcp_flow_choices(flows)));
                }
            }
            other => return err(at, format!("expected {}, got {other}", tcp_flow_choices(flows))),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// What `monitor.tcp_flows` may hold in this scenario: "all", the TCP flows' indexes (as
/// ranges) and their labels (the first few).
pub(super) fn tcp_flow_choices(flows: &[FlowModel]) -> String {
    let tcp: Vec<usize> = (0..flows.len()).filter(|&i| flows[i].app.is_tcp()).collect();
    if tcp.is_empty() {
        return "nothing: the scenario has no TCP flow to record".into();
    }
    let mut ranges: Vec<String> = Vec::new();
    let mut k = 0;
    while k < tcp.len() {
        let mut j = k;
        while j + 1 < tcp.len() && tcp[j + 1] == tcp[j] + 1 {
            j += 1;
        }
        ranges.push(if j == k { tcp[k].to_string() } else { format!("{}-{}", tcp[k], tcp[j]) });
        k = j + 1;
    }
    let mut labels: Vec<&str> = tcp.iter().map(|&i| flows[i].label.as_str()).collect();
    labels.dedup();
    let more = if labels.len() > 8 { ", ..." } else { "" };
    labels.truncate(8);
    let ranges = if ranges.len() > 8 { format!("{}, ...", ranges[..8].join(", ")) } else { ranges.join(", ") };
    format!("\"all\" or a list of TCP flow indexes ({ranges}) or labels ({}{more})", labels.join(", "))
}
