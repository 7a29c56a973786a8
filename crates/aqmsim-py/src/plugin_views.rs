//! The objects a Python discipline reads: one packet view, one queue view and one uniform
//! draw handle per discipline, made once and refilled from Rust before each call (no
//! allocation per decision).

use aqmsim_core::packet::{ecn, Packet};
use aqmsim_core::rng::Rng;
use aqmsim_core::time::SimTime;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// The packet a discipline decides on (`pkt` in `enqueue(pkt, q)` / `dequeue(pkt, q)`).
/// The engine reuses this object: read it during the call, do not keep it.
#[pyclass(module = "aqmsim.plugin", name = "Packet")]
#[derive(Default)]
pub struct PktView {
    /// Size on the wire, bytes.
    #[pyo3(get)]
    pub size: u32,
    /// Flow index (from 0, as in `Results.flows`).
    #[pyo3(get)]
    pub flow: u32,
    /// ECN-capable (ECT(0), ECT(1), or CE on an ECN-capable packet).
    #[pyo3(get)]
    pub ecn: bool,
    /// The IP ECN field (RFC 3168): 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE.
    #[pyo3(get)]
    pub ect: u8,
    /// When it entered this queue, s (at enqueue: now).
    #[pyo3(get)]
    pub enqueued: f64,
    /// Time it spent in this queue, s (at enqueue: 0).
    #[pyo3(get)]
    pub sojourn: f64,
}

#[pymethods]
impl PktView {
    fn __repr__(&self) -> String {
        format!(
            "Packet(size={}, flow={}, ecn={}, ect={}, enqueued={}, sojourn={})",
            self.size,
            self.flow,
            if self.ecn { "True" } else { "False" },
            self.ect,
            self.enqueued,
            self.sojourn
        )
    }
}

impl PktView {
    /// Fill from `p` at `now` (`sojourn` 0 at enqueue: `p.t_enq` is set after the verdict).
    #[inline]
    pub fn fill(&mut self, p: &Packet, now: SimTime, at_enqueue: bool) {
        self.size = p.size;
        self.flow = p.flow;
        self.ecn = p.ecn & ecn::ECT != 0;
        self.ect = codepoint(p.ecn);
        if at_enqueue {
            self.enqueued = now.secs();
            self.sojourn = 0.0;
        } else {
            self.enqueued = p.t_enq.secs();
            self.sojourn = now.saturating_since(p.t_enq).secs();
        }
    }
}

/// The IP ECN field of the engine's `ecn::*` bits.
#[inline]
pub fn codepoint(bits: u8) -> u8 {
    if bits & ecn::CE != 0 {
        3
    } else if bits & ecn::ECT == 0 {
        0
    } else if bits & ecn::ECT1 != 0 {
        1
    } else {
        2
    }
}

/// The queue as the discipline sees it (`q`): at enqueue, without the arrival; at dequeue,
/// without the departing packet.
#[pyclass(module = "aqmsim.plugin", name = "QueueView")]
#[derive(Default)]
pub struct QView {
    /// Packets waiting.
    #[pyo3(get)]
    pub len_pkts: u32,
    /// Bytes waiting.
    #[pyo3(get)]
    pub len_bytes: u64,
    /// The simulated clock, s.
    #[pyo3(get)]
    pub now: f64,
}

#[pymethods]
impl QView {
    fn __repr__(&self) -> String {
        format!("QueueView(len_pkts={}, len_bytes={}, now={})", self.len_pkts, self.len_bytes, self.now)
    }
}

/// `self.uniform()`: a uniform draw in [0, 1) from the queue's own random stream, the one
/// the engine hands a discipline at each arrival and each departure (so only during
/// `enqueue` and `dequeue`).
#[pyclass(module = "aqmsim.plugin", name = "Uniform")]
#[derive(Default)]
pub struct Uniform {
    /// The stream of the arrival or departure being decided (`*mut Rng` as an address; 0
    /// outside `enqueue` and `dequeue`).
    pub rng: usize,
}

#[pymethods]
impl Uniform {
    fn __call__(&self) -> PyResult<f64> {
        if self.rng == 0 {
            return Err(PyRuntimeError::new_err(
                "uniform() draws from the queue's random stream, which the engine hands the discipline only during enqueue() and dequeue()",
            ));
        }
        // SAFETY: `rng` is the address of the `&mut Rng` that `on_enqueue`/`on_dequeue` holds for the
        // whole Python call and clears before it returns; the GIL serialises every access.
        let rng = unsafe { &mut *(self.rng as *mut Rng) };
        Ok(rng.uniform())
    }
    fn __repr__(&self) -> String {
        "<uniform draw in [0, 1) from the queue's random stream>".to_string()
    }
}
