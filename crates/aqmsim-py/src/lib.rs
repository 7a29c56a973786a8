//! Python bindings: `aqmsim._core`. Converts types and nothing else.
//!
//! Every Rust error becomes `ScenarioError` (a `ValueError`) or `SimulationError` (a
//! `RuntimeError`); a panic inside the engine is caught and becomes `SimulationError`
//! carrying the seed and the panic message, never a `PanicException` that would escape
//! `except Exception`. The GIL is released while the simulation runs.

use aqmsim_core::aqm::Reason;
use aqmsim_core::monitor::TcpState;

mod logs;
mod plugin;
mod plugin_aqm;
mod plugin_views;
mod plugin_cc;
use logs::{log_table, ColKind};
use aqmsim_core::scenario::queue_spec::{discipline_note, params_of, DISCIPLINES};
use aqmsim_core::sim::RunResults;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

pyo3::create_exception!(_core, ScenarioError, PyValueError, "A scenario that cannot be run as written; the message names the field.");
pyo3::create_exception!(_core, SimulationError, PyRuntimeError, "The simulation failed while running.");
pyo3::create_exception!(_core, PluginError, SimulationError, "A plug-in (a Python discipline or congestion control) failed during the run; the message names it.");

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

enum Failure {
    Scenario(String),
    Panic(String),
    Plugin(String),
}

/// A caught panic: a plug-in's failure ([`aqmsim_core::plugin::fail`]) or a bug.
fn panic_failure(p: Box<dyn std::any::Any + Send>) -> Failure {
    match p.downcast::<aqmsim_core::plugin::PluginFailure>() {
        Ok(f) => Failure::Plugin(f.message),
        Err(p) => Failure::Panic(panic_message(p)),
    }
}

fn to_pyerr(f: Failure, seed: Option<u64>) -> PyErr {
    match f {
        Failure::Scenario(m) => ScenarioError::new_err(m),
        Failure::Plugin(m) => PluginError::new_err(m),
        Failure::Panic(m) => SimulationError::new_err(format!(
            "internal error in the simulator (seed {}): {m}",
            seed.map_or("default".to_string(), |s| s.to_string())
        )),
    }
}

/// A numeric column as `(dtype, bytes)`: Python views it with `numpy.frombuffer` (one
/// buffer per column instead of one Python object per value).
fn col<'py, T: Copy>(py: Python<'py>, dtype: &str, v: &[T]) -> PyResult<Bound<'py, PyTuple>> {
    // SAFETY: T is a plain numeric type (u32, u64, f64, u8); its bytes are its value in the
    // machine's (little-endian) order, which `dtype` names.
    let bytes = unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) };
    PyTuple::new(py, [dtype.into_pyobject(py)?.into_any(), PyBytes::new(py, bytes).into_any()])
}

/// A column of repeated names as `("category", codes as u32 bytes, names)`.
fn cat<'py>(py: Python<'py>, codes: &[u32], names: &[&str]) -> PyResult<Bound<'py, PyTuple>> {
    let bytes = unsafe { std::slice::from_raw_parts(codes.as_ptr() as *const u8, std::mem::size_of_val(codes)) };
    PyTuple::new(py, [
        "category".into_pyobject(py)?.into_any(),
        PyBytes::new(py, bytes).into_any(),
        PyList::new(py, names)?.into_any(),
    ])
}

fn results_to_py<'py>(py: Python<'py>, r: RunResults, wall: f64) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let s = PyDict::new(py);
    for (k, v) in &r.summary.items {
        s.set_item(k, v)?;
    }
    s.set_item("wall_seconds", wall)?;
    d.set_item("summary", s)?;

    let names: Vec<&str> = r.link_names.iter().map(|s| s.as_str()).collect();
    let q = PyDict::new(py);
    q.set_item("t", col(py, "<f8", &r.queue.t)?)?;
    q.set_item("link", cat(py, &r.queue.link, &names)?)?;
    q.set_item("len_pkts", col(py, "<u4", &r.queue.len_pkts)?)?;
    q.set_item("len_bytes", col(py, "<u8", &r.queue.len_bytes)?)?;
    q.set_item("avg", col(py, "<f8", &r.queue.avg)?)?;
    q.set_item("p", col(py, "<f8", &r.queue.p)?)?;
    q.set_item("max_p", col(py, "<f8", &r.queue.max_p)?)?;
    q.set_item("min_th", col(py, "<f8", &r.queue.min_th)?)?;
    q.set_item("max_th", col(py, "<f8", &r.queue.max_th)?)?;
    q.set_item("delay", col(py, "<f8", &r.queue.delay)?)?;
    q.set_item("count", col(py, "<f8", &r.queue.count)?)?;
    for (name, values) in &r.queue.extra {
        q.set_item(name, col(py, "<f8", values)?)?;
    }
    d.set_item("queue", q)?;

    let reason_names: Vec<&str> = (0..4u8)
        .map(|x| if x == aqmsim_core::sim::LOSS { "loss" } else { Reason::ALL.get(x as usize).map_or("?", |r| r.name()) })
        .collect();
    let mut drops = r.drops;
    let dr = log_table(py, &mut drops, "drop", &["t", "link", "flow", "reason", "action", "qlen_pkts"], &[
        ColKind::Num("<f8"), ColKind::Cat("<u4", &names), ColKind::Num("<u4"),
        ColKind::Cat("<u1", &reason_names), ColKind::Cat("<u1", &["drop", "mark"]), ColKind::Num("<u4"),
    ])?;
    let mut tcp = r.tcp;
    let tc = log_table(py, &mut tcp, "TCP state", &["t", "flow", "cwnd", "ssthresh", "srtt", "rttvar", "rto", "outstanding", "state", "pacing_rate", "bbr_bw", "bbr_min_rtt"], &[
        ColKind::Num("<f8"), ColKind::Num("<u4"), ColKind::Num("<f8"), ColKind::Num("<i4"), ColKind::Num("<f8"),
        ColKind::Num("<f8"), ColKind::Num("<f8"), ColKind::Num("<i4"), ColKind::Cat("<u1", &TcpState::NAMES),
        ColKind::Num("<f8"), ColKind::Num("<f8"), ColKind::Num("<f8"),
    ])?;
    d.set_item("tcp", tc)?;
    let mut rtt = r.rtt;
    let rt = log_table(py, &mut rtt, "RTT", &["t", "flow", "rtt"], &[ColKind::Num("<f8"), ColKind::Num("<u4"), ColKind::Num("<f8")])?;
    d.set_item("rtt", rt)?;
    let ph = PyDict::new(py);
    ph.set_item("t", col(py, "<f8", &r.phases.t)?)?;
    ph.set_item("flow", col(py, "<u4", &r.phases.flow)?)?;
    ph.set_item("cc", cat(py, &r.phases.cc, &aqmsim_core::monitor::phases::PHASE_CCS)?)?;
    ph.set_item("phase", cat(py, &r.phases.phase, &aqmsim_core::monitor::phases::PHASE_NAMES)?)?;
    d.set_item("phases", ph)?;
    let dc = PyDict::new(py);
    let whats: Vec<&str> = {
        let mut w: Vec<&str> = r.delay_cdf.what.iter().map(|s| s.as_str()).collect();
        w.dedup();
        w
    };
    let codes: Vec<u32> = r.delay_cdf.what.iter().map(|s| whats.iter().position(|w| w == s).unwrap_or(0) as u32).collect();
    dc.set_item("what", cat(py, &codes, &whats)?)?;
    dc.set_item("q", col(py, "<f8", &r.delay_cdf.q)?)?;
    dc.set_item("delay_s", col(py, "<f8", &r.delay_cdf.delay_s)?)?;
    d.set_item("delay_cdf", dc)?;
    d.set_item("drops", dr)?;

    let f = PyDict::new(py);
    let ft = &r.flows;
    f.set_item("flow", PyList::new(py, &ft.flow)?)?;
    f.set_item("label", PyList::new(py, &ft.label)?)?;
    f.set_item("src", PyList::new(py, &ft.src)?)?;
    f.set_item("dst", PyList::new(py, &ft.dst)?)?;
    f.set_item("app", PyList::new(py, &ft.app)?)?;
    f.set_item("variant", PyList::new(py, &ft.variant)?)?;
    f.set_item("start", PyList::new(py, &ft.start)?)?;
    f.set_item("stop", PyList::new(py, &ft.stop)?)?;
    f.set_item("sent", PyList::new(py, &ft.sent)?)?;
    f.set_item("retransmitted", PyList::new(py, &ft.retransmitted)?)?;
    f.set_item("timeouts", PyList::new(py, &ft.timeouts)?)?;
    f.set_item("received", PyList::new(py, &ft.received)?)?;
    f.set_item("delivered", PyList::new(py, &ft.delivered)?)?;
    f.set_item("throughput_bps", PyList::new(py, &ft.throughput_bps)?)?;
    f.set_item("goodput_bps", PyList::new(py, &ft.goodput_bps)?)?;
    f.set_item("mean_delay_s", PyList::new(py, &ft.mean_delay_s)?)?;
    f.set_item("queue_arrivals", PyList::new(py, &ft.queue_arrivals)?)?;
    f.set_item("queue_drops", PyList::new(py, &ft.queue_drops)?)?;
    f.set_item("queue_marks", PyList::new(py, &ft.queue_marks)?)?;
    f.set_item("queue_marks_departed", PyList::new(py, &ft.queue_marks_departed)?)?;
    for (name, v) in [("delay_p50_s", &ft.delay_p50_s), ("delay_p90_s", &ft.delay_p90_s), ("delay_p99_s", &ft.delay_p99_s), ("delay_max_s", &ft.delay_max_s), ("jitter_s", &ft.jitter_s)] {
        f.set_item(name, col(py, "<f8", v)?)?;
    }
    f.set_item("size_bytes", PyList::new(py, &ft.size_bytes)?)?;
    f.set_item("fct_s", col(py, "<f8", &ft.fct_s)?)?;
    d.set_item("flows", f)?;

    let l = PyDict::new(py);
    l.set_item("t", col(py, "<f8", &r.links.t)?)?;
    l.set_item("link", cat(py, &r.links.link, &names)?)?;
    l.set_item("utilisation", col(py, "<f8", &r.links.utilisation)?)?;
    d.set_item("links", l)?;
    d.set_item("resolved", &r.resolved)?;
    d.set_item("trace_error", r.trace_error.as_deref())?;
    Ok(d)
}

/// Run a scenario (JSON text) with `seed` (None: the scenario's own seed). `plugins` is the
/// factory of the scenario's Python plug-ins (`aqmsim.plugin`), if it has any: such a run
/// holds the GIL (its plug-ins are called at every packet), any other releases it.
#[pyfunction]
#[pyo3(signature = (scenario_json, seed=None, plugins=None))]
fn run<'py>(py: Python<'py>, scenario_json: &str, seed: Option<u64>, plugins: Option<Py<PyAny>>) -> PyResult<Bound<'py, PyDict>> {
    let text = scenario_json.to_owned();
    let t0 = Instant::now();
    let go = move || {
        catch_unwind(AssertUnwindSafe(|| aqmsim_core::run_json(&text, seed, Some(std::env::temp_dir()))))
            .map_err(panic_failure)
            .and_then(|r| r.map_err(|e| Failure::Scenario(e.to_string())))
    };
    let out = match plugins {
        Some(obj) => plugin::run_with(obj, go),
        None => py.allow_threads(go),
    };
    let wall = t0.elapsed().as_secs_f64();
    match out {
        Ok(r) => results_to_py(py, r, wall),
        Err(f) => Err(to_pyerr(f, seed)),
    }
}

/// Check a scenario (JSON text); returns the resolved scenario as JSON text. `plugins` as
/// for [`run`] (a scenario with plug-ins builds them to check their parameters).
#[pyfunction]
#[pyo3(signature = (scenario_json, seed=None, plugins=None))]
fn validate(scenario_json: &str, seed: Option<u64>, plugins: Option<Py<PyAny>>) -> PyResult<String> {
    let go = || {
        catch_unwind(AssertUnwindSafe(|| {
            let spec = aqmsim_core::scenario::from_json(scenario_json)?;
            let s = seed.unwrap_or(spec.seed);
            aqmsim_core::scenario::build::build(&spec, s).map(|m| m.resolved.to_string())
        }))
    };
    let r = match plugins {
        Some(obj) => plugin::run_with(obj, go),
        None => go(),
    };
    match r {
        Ok(Ok(s)) => Ok(s),
        Ok(Err(e)) => Err(ScenarioError::new_err(e.to_string())),
        Err(p) => Err(to_pyerr(panic_failure(p), seed)),
    }
}

/// Every discipline: {name: {"description": str, "params": [(field, default, allowed), ...],
/// "note": str or None (where the defaults come from, how to get ns-2's, caveats)}}.
#[pyfunction]
fn disciplines<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, desc, _, _) in DISCIPLINES {
        let e = PyDict::new(py);
        e.set_item("description", *desc)?;
        e.set_item("params", params_of(name).unwrap_or_default())?;
        e.set_item("note", discipline_note(name))?;
        d.set_item(*name, e)?;
    }
    Ok(d)
}

/// Replay a scripted enqueue/dequeue sequence through one discipline (its queue table
/// as JSON text); returns the event lines (see `aqmsim_core::replay`). `plugins` builds a
/// `kind = "python"` discipline (`aqmsim.plugin.Factory`), as for [`run`].
#[pyfunction]
#[pyo3(signature = (queue_json, ops, seed=1, plugins=None))]
fn replay_queue(queue_json: &str, ops: &str, seed: u64, plugins: Option<Py<PyAny>>) -> PyResult<String> {
    let go = || {
        catch_unwind(AssertUnwindSafe(|| {
            let v: serde_json::Value = serde_json::from_str(queue_json).map_err(|e| aqmsim_core::error::ScenarioError::new("queue", e.to_string()))?;
            let m = v.as_object().cloned().ok_or_else(|| aqmsim_core::error::ScenarioError::new("queue", "must be a table"))?;
            aqmsim_core::replay::replay(&m, ops, seed)
        }))
    };
    let r = match plugins {
        Some(obj) => plugin::run_with(obj, go),
        None => go(),
    };
    match r {
        Ok(Ok(s)) => Ok(s),
        Ok(Err(e)) => Err(ScenarioError::new_err(e.to_string())),
        Err(p) => Err(to_pyerr(panic_failure(p), Some(seed))),
    }
}

/// The first `n` uniform draws `replay_queue` gives its discipline with `seed`.
#[pyfunction]
fn replay_uniforms(seed: u64, n: usize) -> Vec<f64> {
    aqmsim_core::replay::uniforms(seed, n)
}

/// The engine's identity, stamped by build.rs: `version`, `source_hash` (FNV-1a of the
/// engine's Rust sources: equal hashes mean the same simulation code), `git_commit` (empty
/// outside a checkout, `-dirty` when the engine's sources differ from the commit) and
/// `profile` (release or debug).
fn build_info(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("version", env!("CARGO_PKG_VERSION"))?;
    d.set_item("source_hash", env!("AQMSIM_SOURCE_HASH"))?;
    d.set_item("git_commit", env!("AQMSIM_GIT_COMMIT"))?;
    d.set_item("profile", env!("AQMSIM_PROFILE"))?;
    Ok(d)
}

/// A plug-in's failure is reported as `PluginError`; the default panic hook would also print
/// "thread panicked at ..." to stderr. Keep the hook for every other panic.
fn quiet_plugin_failures() {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info.payload().downcast_ref::<aqmsim_core::plugin::PluginFailure>().is_none() {
            prev(info)
        }
    }));
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(disciplines, m)?)?;
    m.add_function(wrap_pyfunction!(replay_queue, m)?)?;
    m.add_function(wrap_pyfunction!(replay_uniforms, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("PluginError", m.py().get_type::<PluginError>())?;
    quiet_plugin_failures();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("BUILD", build_info(m.py())?)?;
    Ok(())
}
