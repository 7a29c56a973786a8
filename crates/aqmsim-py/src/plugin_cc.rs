//! A Python congestion control behind the engine's `PluginCc` trait (either stack).
//!
//! `aqmsim.plugin.cc.build` makes the instance and hands back its bound methods (None for
//! an optional method the class does not define); they are kept here and called with one
//! reused `tcp` view object (`TcpView`) whose fields are refreshed before each call.
//! An exception or a return value that is not a window ends the run with
//! `aqmsim_core::plugin::fail`, the message formatted by `aqmsim.plugin.errors`.

use aqmsim_core::error::{Result, ScenarioError};
use aqmsim_core::tcp::plugin::{failure, CcStateEvent, CcView, PluginCc};
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyTuple};
use serde_json::{Map, Value};

/// What a congestion control sees of its flow (`tcp` in its methods). Linux stack: windows,
/// `mss` and `in_flight` in bytes, times in s, `pacing_rate` in bit/s; ns2 stack: windows
/// in packets, `mss` 1.
#[pyclass(name = "TcpView", module = "aqmsim.plugin")]
pub struct TcpView {
    cwnd: f64,
    ssthresh: f64,
    /// Maximum segment size, bytes.
    #[pyo3(get)]
    mss: u32,
    /// The time of the event, s.
    #[pyo3(get)]
    now: f64,
    /// Smoothed RTT, s (0 before the first sample).
    #[pyo3(get)]
    srtt: f64,
    in_flight: f64,
    /// The cumulative ACK and HighData, segment numbers.
    #[pyo3(get)]
    last_acked: i64,
    #[pyo3(get)]
    high_tx: i64,
    /// The sender's ECN state is "ECE received".
    #[pyo3(get)]
    ece: bool,
    /// Segments newly delivered by the latest ACK; of those, AccECN-reported CE ones.
    #[pyo3(get)]
    delivered: u32,
    #[pyo3(get)]
    delivered_ce: u32,
    pacing_rate: Option<f64>,
    /// The sender model this flow runs: "linux" (windows in bytes) or "ns2" (packets).
    #[pyo3(get)]
    stack: &'static str,
}

/// A whole number as a Python int (windows in bytes read as ints), else a float.
fn number(py: Python<'_>, x: f64) -> PyObject {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 9.0e15 {
        (x as i64).into_pyobject(py).map(|o| o.into_any().unbind()).unwrap_or_else(|_| py.None())
    } else {
        PyFloat::new(py, x).into_any().unbind()
    }
}

fn window_arg(name: &str, v: Option<&Bound<'_, PyAny>>) -> PyResult<f64> {
    // (PyO3 gives None both for `tcp.x = None` and for `del tcp.x`)
    let Some(v) = v.filter(|v| !v.is_none()) else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!("tcp.{name} must be a number, got None")));
    };
    if v.is_instance_of::<pyo3::types::PyBool>() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!("tcp.{name} must be a number, got {}", v.repr()?)));
    }
    v.extract::<f64>()
        .map_err(|_| pyo3::exceptions::PyTypeError::new_err(format!("tcp.{name} must be a number, got {}", v.repr().map(|r| r.to_string()).unwrap_or_default())))
}

#[pymethods]
impl TcpView {
    /// Congestion window, bytes (read/write; an int when whole).
    #[getter]
    fn cwnd(&self, py: Python<'_>) -> PyObject {
        number(py, self.cwnd)
    }
    #[setter]
    fn set_cwnd(&mut self, v: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        self.cwnd = window_arg("cwnd", v)?;
        Ok(())
    }
    /// Slow-start threshold, bytes (read/write; `math.inf` before the first reduction).
    #[getter]
    fn ssthresh(&self, py: Python<'_>) -> PyObject {
        number(py, self.ssthresh)
    }
    #[setter]
    fn set_ssthresh(&mut self, v: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        self.ssthresh = window_arg("ssthresh", v)?;
        Ok(())
    }
    /// Bytes in flight at the congestion event (in `ssthresh`; 0 in other methods).
    #[getter]
    fn in_flight(&self, py: Python<'_>) -> PyObject {
        number(py, self.in_flight)
    }
    /// Pacing rate, bit/s (read/write; None: the socket's cwnd/srtt rule). It takes effect
    /// when the flow paces (`pacing = true`).
    #[getter]
    fn pacing_rate(&self) -> Option<f64> {
        self.pacing_rate
    }
    #[setter]
    fn set_pacing_rate(&mut self, v: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        // None (or `del tcp.pacing_rate`): back to the socket's own rule
        self.pacing_rate = match v {
            Some(v) if !v.is_none() => Some(window_arg("pacing_rate", Some(v))?),
            _ => None,
        };
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "TcpView(now={}, cwnd={}, ssthresh={}, mss={}, srtt={}, in_flight={}, pacing_rate={:?})",
            self.now, self.cwnd, self.ssthresh, self.mss, self.srtt, self.in_flight, self.pacing_rate
        )
    }
}

/// One flow's Python congestion control: the instance, its cached bound methods and view.
pub struct PyCc {
    name: String,
    path: String,
    obj: Py<PyAny>,
    view: Py<TcpView>,
    on_ack: Py<PyAny>,
    ssthresh: Py<PyAny>,
    pkts_acked: Option<Py<PyAny>>,
    on_ecn: Option<Py<PyAny>>,
    on_rto: Option<Py<PyAny>>,
    on_event: Option<Py<PyAny>>,
}

impl std::fmt::Debug for PyCc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyCc({} at {})", self.name, self.path)
    }
}

fn opt(hooks: &Bound<'_, PyTuple>, i: usize) -> PyResult<Option<Py<PyAny>>> {
    let h = hooks.get_item(i)?;
    Ok(if h.is_none() { None } else { Some(h.unbind()) })
}

impl PyCc {
    /// From `(instance, name, (on_ack, ssthresh, pkts_acked, on_ecn, on_rto, on_event))`.
    fn from_built(py: Python<'_>, built: &Bound<'_, PyAny>, path: &str) -> PyResult<PyCc> {
        let (obj, name, hooks): (Bound<'_, PyAny>, String, Bound<'_, PyTuple>) = built.extract()?;
        let view = Py::new(
            py,
            TcpView {
                cwnd: 0.0,
                ssthresh: f64::INFINITY,
                mss: 0,
                now: 0.0,
                srtt: 0.0,
                in_flight: 0.0,
                last_acked: 0,
                high_tx: 0,
                ece: false,
                delivered: 0,
                delivered_ce: 0,
                pacing_rate: None,
                stack: "linux",
            },
        )?;
        Ok(PyCc {
            name,
            path: path.to_string(),
            obj: obj.unbind(),
            view,
            on_ack: hooks.get_item(0)?.unbind(),
            ssthresh: hooks.get_item(1)?.unbind(),
            pkts_acked: opt(&hooks, 2)?,
            on_ecn: opt(&hooks, 3)?,
            on_rto: opt(&hooks, 4)?,
            on_event: opt(&hooks, 5)?,
        })
    }

    fn fill(&self, py: Python<'_>, v: &CcView) {
        let mut t = self.view.bind(py).borrow_mut();
        t.cwnd = v.cwnd;
        t.ssthresh = v.ssthresh;
        t.mss = v.mss;
        t.now = v.now;
        t.srtt = v.srtt;
        t.in_flight = v.in_flight;
        t.last_acked = v.last_acked;
        t.high_tx = v.high_tx;
        t.ece = v.ece;
        t.delivered = v.delivered;
        t.delivered_ce = v.delivered_ce;
        t.pacing_rate = v.pacing_rate;
        t.stack = v.stack;
    }

    fn take(&self, py: Python<'_>, v: &mut CcView) {
        let t = self.view.bind(py).borrow();
        v.cwnd = t.cwnd;
        v.ssthresh = t.ssthresh;
        v.pacing_rate = t.pacing_rate;
    }

    /// End the run: `method` raised `e` (the message names the user's own source line).
    fn raised(&self, py: Python<'_>, method: &str, now: f64, e: PyErr) -> ! {
        let msg = py
            .import("aqmsim.plugin.errors")
            .and_then(|m| {
                let value = e.value(py);
                // the traceback PyO3 holds beside the exception (not always on the value yet)
                if let Some(tb) = e.traceback(py) {
                    let _ = value.setattr("__traceback__", tb);
                }
                m.getattr("raised")?.call1((self.path.as_str(), self.name.as_str(), method, now, value, self.obj.bind(py).get_type(), aqmsim_core::plugin::time_limit()))
            })
            .and_then(|s| s.extract::<String>())
            .unwrap_or_else(|_| failure(&self.path, &self.name, method, &format!("raised {e}"), now, ""));
        aqmsim_core::plugin::fail(msg)
    }

    /// End the run: it is past its time limit (checked after every callback; a callback
    /// that never returns is interrupted by the watchdog and ends in [`PyCc::raised`]).
    #[cold]
    #[inline(never)]
    fn over_time(&self, py: Python<'_>, method: &str, now: f64) -> ! {
        let limit = aqmsim_core::plugin::time_limit();
        let msg = py
            .import("aqmsim.plugin.errors")
            .and_then(|m| m.getattr("over_time")?.call1((self.path.as_str(), self.name.as_str(), method, now, limit)))
            .and_then(|s| s.extract::<String>())
            .unwrap_or_else(|_| failure(&self.path, &self.name, method, &format!("was still running when the run reached its time limit ({limit} s)"), now, ""));
        aqmsim_core::plugin::fail(msg)
    }

    /// Call `f(tcp, *extra)` with the view filled from `v`; take the windows back.
    fn call(&self, method: &str, f: &Py<PyAny>, v: &mut CcView, extra: Option<PyObject>) -> PyObject {
        Python::with_gil(|py| {
            self.fill(py, v);
            let view = self.view.clone_ref(py);
            let r = match extra {
                None => f.call1(py, (view,)),
                Some(x) => f.call1(py, (view, x)),
            };
            match r {
                Ok(r) => {
                    if aqmsim_core::plugin::past_time_limit() {
                        self.over_time(py, method, v.now)
                    }
                    self.take(py, v);
                    r
                }
                Err(e) => self.raised(py, method, v.now, e),
            }
        })
    }
}

impl PluginCc for PyCc {
    fn name(&self) -> &str {
        &self.name
    }
    fn on_ack(&mut self, v: &mut CcView, acked: u32) {
        let x = Python::with_gil(|py| acked.into_pyobject(py).map(|o| o.into_any().unbind()).ok());
        self.call("on_ack", &self.on_ack, v, x);
    }
    fn ssthresh(&mut self, v: &mut CcView) -> f64 {
        let r = self.call("ssthresh", &self.ssthresh, v, None);
        Python::with_gil(|py| {
            let b = r.bind(py);
            let got = if b.is_instance_of::<pyo3::types::PyBool>() { None } else { b.extract::<f64>().ok() };
            match got {
                Some(x) if x > 0.0 && x.is_finite() => x,
                _ => {
                    let shown = b.repr().map(|s| s.to_string()).unwrap_or_else(|_| "?".into());
                    let what = format!("returned {shown}");
                    let unit = if v.stack == "ns2" { "packets" } else { "bytes" };
                    aqmsim_core::plugin::fail(failure(&self.path, &self.name, "ssthresh", &what, v.now, &format!(" (expected a window > 0 {unit})")))
                }
            }
        })
    }
    fn pkts_acked(&mut self, v: &mut CcView, acked: u32) {
        if let Some(f) = &self.pkts_acked {
            let x = Python::with_gil(|py| acked.into_pyobject(py).map(|o| o.into_any().unbind()).ok());
            self.call("pkts_acked", f, v, x);
        }
    }
    fn on_ecn(&mut self, v: &mut CcView) {
        if let Some(f) = &self.on_ecn {
            self.call("on_ecn", f, v, None);
        }
    }
    fn on_rto(&mut self, v: &mut CcView) {
        if let Some(f) = &self.on_rto {
            self.call("on_rto", f, v, None);
        }
    }
    fn on_event(&mut self, v: &mut CcView, ev: CcStateEvent) {
        if let Some(f) = &self.on_event {
            let x = Python::with_gil(|py| ev.name().into_pyobject(py).map(|o| o.into_any().unbind()).ok());
            self.call("on_event", f, v, x);
        }
    }
    fn clone_box(&self) -> Box<dyn PluginCc> {
        Python::with_gil(|py| {
            let built = py
                .import("aqmsim.plugin.cc")
                .and_then(|m| m.getattr("copy_of")?.call1((self.obj.bind(py), self.name.as_str())))
                .and_then(|b| PyCc::from_built(py, &b, &self.path));
            match built {
                Ok(c) => Box::new(c) as Box<dyn PluginCc>,
                Err(e) => self.raised(py, "__deepcopy__", 0.0, e),
            }
        })
    }
}

/// Build the Python congestion control for the `tcp` table `table` at `path`.
pub fn make(py: Python<'_>, factory: &Bound<'_, PyAny>, table: &Map<String, Value>, path: &str) -> Result<Box<dyn aqmsim_core::tcp::plugin::PluginCc>> {
    let text = serde_json::to_string(table).map_err(|e| ScenarioError::new(path, e.to_string()))?;
    if factory.hasattr("arm").unwrap_or(false) {
        // the run's time limit, as for a Python discipline (a control that never returns)
        factory.call_method1("arm", (aqmsim_core::plugin::time_limit(),)).map_err(|e| ScenarioError::new(path, e.to_string()))?;
    }
    let built = factory.call_method1("make_cc", (text, path)).map_err(|e| {
        let msg = e.value(py).str().map(|s| s.to_string()).unwrap_or_else(|_| e.to_string());
        ScenarioError::new("", msg)
    })?;
    PyCc::from_built(py, &built, path).map(|c| Box::new(c) as Box<dyn PluginCc>).map_err(|e| ScenarioError::new(path, format!("the plug-in factory returned something unexpected: {e}")))
}
