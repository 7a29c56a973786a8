//! A Python discipline behind the engine's `PluginAqm` trait.
//!
//! `aqmsim.plugin.aqm.build` makes the instance and says which optional methods it has;
//! here its bound methods are cached and called with one reused packet view and queue view
//! (`plugin_views.rs`) and one reused argument tuple. A return that is not one of the
//! verdict constants, an exception, or a run past `plugin_time_limit` ends the run through
//! `aqmsim_core::plugin::fail` with one message naming the plug-in (worded in Python:
//! `aqmsim.plugin.aqm._returned` / `_raised`, which also find the user's traceback line).

use crate::plugin_views::{PktView, QView, Uniform};
use aqmsim_core::aqm::plugin::PluginAqm;
use aqmsim_core::aqm::{Aqm, AqmState, FrontAction, QueueView, Reason, Verdict};
use aqmsim_core::error::{Result, ScenarioError};
use aqmsim_core::packet::Packet;
use aqmsim_core::plugin::{fail, past_time_limit, time_limit};
use aqmsim_core::rng::Rng;
use aqmsim_core::scenario::queue_spec::LinkInfo;
use aqmsim_core::time::{Dur as Duration, SimTime};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use serde_json::{Map, Value};

/// The columns of `AqmState`, in its order: a plug-in's attributes of these names fill them.
const STATE_NAMES: [&str; 7] = ["avg", "p", "max_p", "min_th", "max_th", "delay", "count"];

/// Verdict codes (`aqmsim.plugin.aqm`): action in bits 2–3, reason in bits 0–1.
const ACCEPT: i64 = 1;
const PASS: i64 = 2;
const DROP: i64 = 4;
const MARK: i64 = 8;
const DROP_HEAD: i64 = 12;

pub struct PyAqm {
    obj: Py<PyAny>,
    /// "module:Class", for messages.
    name: String,
    path: String,
    enqueue: Py<PyAny>,
    dequeue: Option<Py<PyAny>>,
    idle: Option<Py<PyAny>>,
    update: Option<Py<PyAny>>,
    /// `update_interval` (0: none) and when the next update is due.
    interval: Duration,
    next_update: SimTime,
    pkt: Py<PktView>,
    q: Py<QView>,
    uniform: Py<Uniform>,
    /// `(pkt, q)`, the arguments of every enqueue/dequeue call.
    args: Py<PyTuple>,
    /// Monitored attributes filling `AqmState` (by index into [`STATE_NAMES`]) and the
    /// extra ones, with their interned names.
    state_attrs: Vec<(usize, Py<PyString>)>,
    extra_names: Vec<String>,
    extra_attrs: Vec<Py<PyString>>,
    /// To build a fresh copy (`clone_box`).
    factory: Py<PyAny>,
    table: Map<String, Value>,
    link: LinkInfo,
}

impl std::fmt::Debug for PyAqm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyAqm({} at {})", self.name, self.path)
    }
}

/// The Python error `e` as a scenario error: `aqmsim`'s `ScenarioError` messages already
/// start with the field (`path.field: why`).
fn scenario_error(py: Python<'_>, e: PyErr, path: &str) -> ScenarioError {
    let is_scenario = e.is_instance_of::<crate::ScenarioError>(py);
    let text = e.value(py).str().map(|s| s.to_string()).unwrap_or_default();
    if is_scenario {
        match text.split_once(": ") {
            Some((field, msg)) if !field.contains(' ') => ScenarioError::new(field, msg),
            _ => ScenarioError::new("", text),
        }
    } else {
        ScenarioError::new(path, format!("building the plug-in raised {}: {text}", e.get_type(py).name().map(|n| n.to_string()).unwrap_or_default()))
    }
}

/// Build the Python discipline for the queue table `table` at `path`.
pub fn make(py: Python<'_>, factory: &Bound<'_, PyAny>, table: &Map<String, Value>, path: &str, link: LinkInfo) -> Result<(Box<dyn PluginAqm>, Value)> {
    let text = serde_json::to_string(table).map_err(|e| ScenarioError::new(path, e.to_string()))?;
    if factory.hasattr("arm").unwrap_or(false) {
        factory.call_method1("arm", (time_limit(),)).map_err(|e| scenario_error(py, e, path))?;
    }
    let built = factory
        .call_method1("make_aqm", (text, path, link.rate_bps, link.delay_s))
        .map_err(|e| scenario_error(py, e, path))?;
    let aqm = from_built(py, &built, factory, table, path, link).map_err(|e| scenario_error(py, e, path))?;
    let resolved: String = built.getattr("resolved").and_then(|r| r.extract()).map_err(|e| scenario_error(py, e, path))?;
    let resolved: Value = serde_json::from_str(&resolved).map_err(|e| ScenarioError::new(path, e.to_string()))?;
    Ok((Box::new(aqm), resolved))
}

fn from_built(py: Python<'_>, b: &Bound<'_, PyAny>, factory: &Bound<'_, PyAny>, table: &Map<String, Value>, path: &str, link: LinkInfo) -> PyResult<PyAqm> {
    let obj = b.getattr("obj")?;
    let method = |flag: &str, name: &str| -> PyResult<Option<Py<PyAny>>> {
        Ok(if b.getattr(flag)?.extract::<bool>()? { Some(obj.getattr(name)?.unbind()) } else { None })
    };
    let interval: f64 = b.getattr("interval")?.extract()?;
    let pkt = Py::new(py, PktView::default())?;
    let q = Py::new(py, QView::default())?;
    let uniform = Py::new(py, Uniform::default())?;
    obj.setattr("uniform", uniform.clone_ref(py))?;
    let args = PyTuple::new(py, [pkt.clone_ref(py).into_any(), q.clone_ref(py).into_any()])?.unbind();
    let monitor: Vec<String> = b.getattr("monitor")?.extract()?;
    let mut state_attrs = Vec::new();
    let mut extra_names = Vec::new();
    let mut extra_attrs = Vec::new();
    for m in monitor {
        let key = PyString::intern(py, &m).unbind();
        match STATE_NAMES.iter().position(|s| *s == m) {
            Some(i) => state_attrs.push((i, key)),
            None => {
                extra_names.push(m);
                extra_attrs.push(key);
            }
        }
    }
    let interval = if interval > 0.0 { Duration::from_secs(interval) } else { Duration(0) };
    Ok(PyAqm {
        name: b.getattr("name")?.extract()?,
        path: path.to_string(),
        enqueue: obj.getattr("enqueue")?.unbind(),
        dequeue: method("has_dequeue", "dequeue")?,
        idle: method("has_idle", "idle")?,
        update: method("has_update", "update")?,
        interval,
        next_update: SimTime(interval.0),
        pkt,
        q,
        uniform,
        args,
        state_attrs,
        extra_names,
        extra_attrs,
        factory: factory.clone().unbind(),
        table: table.clone(),
        link,
        obj: obj.unbind(),
    })
}

impl PyAqm {
    /// Call `f(*args)`; an exception or the time limit ends the run.
    #[inline]
    fn call<'py>(&self, py: Python<'py>, f: &Py<PyAny>, args: &Bound<'py, PyTuple>, what: &str, now: SimTime) -> Bound<'py, PyAny> {
        // SAFETY: both pointers are live objects; PyObject_Call returns a new reference or
        // NULL with the error set.
        let r = unsafe { ffi::PyObject_Call(f.as_ptr(), args.as_ptr(), std::ptr::null_mut()) };
        if r.is_null() {
            let e = PyErr::fetch(py);
            self.raised(py, e, what, now)
        }
        if past_time_limit() {
            self.over_time(py, what, now)
        }
        // SAFETY: r is a new, non-null reference.
        unsafe { Bound::from_owned_ptr(py, r) }
    }

    #[cold]
    #[inline(never)]
    fn raised(&self, py: Python<'_>, e: PyErr, what: &str, now: SimTime) -> ! {
        let tb = e.traceback(py).map(|t| t.into_any()).unwrap_or_else(|| py.None().into_bound(py));
        let msg = helper(py, "_raised", (&self.path, &self.name, what, now.secs(), e.value(py), time_limit(), tb));
        fail(msg)
    }

    #[cold]
    #[inline(never)]
    fn over_time(&self, py: Python<'_>, what: &str, now: SimTime) -> ! {
        let msg = helper(py, "_over_time", (&self.path, &self.name, what, now.secs(), time_limit()));
        fail(msg)
    }

    #[cold]
    #[inline(never)]
    fn returned(&self, py: Python<'_>, r: &Bound<'_, PyAny>, what: &str, now: SimTime) -> ! {
        let msg = helper(py, "_returned", (&self.path, &self.name, what, now.secs(), r));
        fail(msg)
    }

    /// Run the updates due up to `now` (lazily, in time order, before the packet event).
    #[inline]
    fn catch_up(&mut self, py: Python<'_>, now: SimTime) {
        if self.interval.0 == 0 || self.next_update > now {
            return;
        }
        self.catch_up_slow(py, now)
    }

    #[inline(never)]
    fn catch_up_slow(&mut self, py: Python<'_>, now: SimTime) {
        let Some(f) = self.update.as_ref().map(|f| f.clone_ref(py)) else { return };
        while self.next_update <= now {
            let t = self.next_update;
            self.q.borrow_mut(py).now = t.secs();
            let args = PyTuple::new(py, [t.secs()]).expect("a tuple of one float");
            self.call(py, &f, &args, "update", t);
            self.next_update = t + self.interval;
        }
    }

    #[inline]
    fn fill(&self, py: Python<'_>, pkt: &Packet, q: &QueueView, now: SimTime, at_enqueue: bool) {
        self.pkt.borrow_mut(py).fill(pkt, now, at_enqueue);
        let mut v = self.q.borrow_mut(py);
        v.len_pkts = q.len_pkts;
        v.len_bytes = q.len_bytes;
        v.now = now.secs();
    }

    /// A monitored attribute as a number (NaN when the object has no such attribute).
    fn number(&self, py: Python<'_>, key: &Py<PyString>) -> f64 {
        let obj = self.obj.bind(py);
        match obj.getattr(key.bind(py)) {
            Err(_) => f64::NAN,
            Ok(v) => match v.extract::<f64>() {
                Ok(x) => x,
                Err(_) => fail(helper(py, "_not_a_number", (&self.path, &self.name, key.bind(py), &v))),
            },
        }
    }
}

/// A message worded by `aqmsim.plugin.aqm.<name>(*args)`.
fn helper<'py>(py: Python<'py>, name: &str, args: impl IntoPyObject<'py, Target = PyTuple>) -> String {
    let r = py
        .import("aqmsim.plugin.aqm")
        .and_then(|m| m.getattr(name))
        .and_then(|f| f.call1(args))
        .and_then(|s| s.extract::<String>());
    r.unwrap_or_else(|e| format!("a plug-in failed (and wording the message failed too: {e})"))
}

/// Clears the stream address of a [`Uniform`] when dropped.
struct ClearRng<'a>(Python<'a>, &'a Py<Uniform>);

impl Drop for ClearRng<'_> {
    fn drop(&mut self) {
        if let Ok(mut u) = self.1.try_borrow_mut(self.0) {
            u.rng = 0;
        }
    }
}

/// The GIL: a run with plug-ins holds it throughout (`lib.rs`: `run`, `validate` and
/// `replay_queue` do not release it when given a factory), so the engine's calls into a
/// plug-in are made with it held.
#[inline]
fn gil() -> Python<'static> {
    // SAFETY: see above; a PyAqm exists only inside a call from Python holding the GIL.
    unsafe { Python::assume_gil_acquired() }
}

#[inline]
fn reason(code: i64) -> Option<Reason> {
    Reason::ALL.get((code & 3) as usize).copied()
}

/// The code of a return value: an exact `int` (not a bool or another type).
#[inline]
fn code_of(r: &Bound<'_, PyAny>) -> Option<i64> {
    // SAFETY: r is a live object.
    if unsafe { ffi::PyLong_CheckExact(r.as_ptr()) } != 0 {
        let v = unsafe { ffi::PyLong_AsLong(r.as_ptr()) };
        if v == -1 && unsafe { !ffi::PyErr_Occurred().is_null() } {
            unsafe { ffi::PyErr_Clear() };
            return None;
        }
        Some(v as i64)
    } else {
        None
    }
}

impl Aqm for PyAqm {
    fn on_enqueue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> Verdict {
        let py = gil();
        self.catch_up(py, now);
        self.fill(py, pkt, q, now, true);
        self.uniform.borrow_mut(py).rng = rng as *mut Rng as usize;
        // the stream's address is cleared when the call ends, also when it fails (the
        // failure unwinds through here): no later uniform() can reach a stale stream
        let clear = ClearRng(py, &self.uniform);
        let args = self.args.bind(py);
        let r = self.call(py, &self.enqueue, args, "enqueue", now);
        drop(clear);
        let v = match code_of(&r) {
            Some(ACCEPT) => Some(Verdict::Enqueue),
            Some(c) if c & !3 == DROP => reason(c).map(Verdict::Drop),
            Some(c) if c & !3 == MARK => reason(c).map(Verdict::Mark),
            Some(c) if c & !3 == DROP_HEAD => reason(c).map(Verdict::DropHead),
            _ => None,
        };
        match v {
            Some(v) => v,
            None => self.returned(py, &r, "enqueue", now),
        }
    }

    fn on_idle(&mut self, now: SimTime) {
        let py = gil();
        self.catch_up(py, now);
        if let Some(f) = &self.idle {
            self.q.borrow_mut(py).now = now.secs();
            let args = PyTuple::new(py, [now.secs()]).expect("a tuple of one float");
            self.call(py, f, &args, "idle", now);
        }
    }

    fn on_dequeue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> FrontAction {
        let py = gil();
        self.catch_up(py, now);
        let Some(f) = &self.dequeue else { return FrontAction::Pass };
        self.fill(py, pkt, q, now, false);
        // the queue's stream, as at enqueue (one stream per queue: draws at enqueue and
        // at dequeue interleave in event order); cleared when the call ends
        self.uniform.borrow_mut(py).rng = rng as *mut Rng as usize;
        let clear = ClearRng(py, &self.uniform);
        let args = self.args.bind(py);
        let r = self.call(py, f, args, "dequeue", now);
        drop(clear);
        let v = match code_of(&r) {
            Some(PASS) => Some(FrontAction::Pass),
            Some(c) if c & !3 == DROP => reason(c).map(FrontAction::Drop),
            Some(c) if c & !3 == MARK => reason(c).map(FrontAction::Mark),
            _ => None,
        };
        match v {
            Some(v) => v,
            None => self.returned(py, &r, "dequeue", now),
        }
    }

    fn advance(&mut self, now: SimTime) {
        self.catch_up(gil(), now);
    }

    fn state(&self) -> AqmState {
        let py = gil();
        let mut v = [0.0f64; 7];
        for (i, key) in &self.state_attrs {
            v[*i] = self.number(py, key);
        }
        AqmState { avg: v[0], p: v[1], max_p: v[2], min_th: v[3], max_th: v[4], delay: v[5], count: v[6] }
    }
}

impl PluginAqm for PyAqm {
    fn clone_box(&self) -> Box<dyn PluginAqm> {
        let py = gil();
        match make(py, self.factory.bind(py), &self.table, &self.path, self.link) {
            Ok((a, _)) => a,
            Err(e) => fail(e.to_string()),
        }
    }
    fn extra_names(&self) -> &[String] {
        &self.extra_names
    }
    fn extra_values(&self, out: &mut Vec<f64>) {
        let py = gil();
        for key in &self.extra_attrs {
            out.push(self.number(py, key));
        }
    }
}
