//! The logs that grow with simulated time (drops, TCP state, RTT samples) as Python
//! columns: read-only maps of the files the engine wrote as it went, or the bytes of the
//! rows it kept in memory.

use aqmsim_core::monitor::spill::{self, Spilling};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

use crate::SimulationError;

/// How Python reads a column: numbers of a numpy dtype, or category codes of a dtype with
/// their names.
pub enum ColKind<'a> {
    Num(&'static str),
    Cat(&'static str, &'a [&'a str]),
}

/// `log` as a dict of columns named `names`.
pub fn log_table<'py, L: Spilling>(py: Python<'py>, log: &mut L, what: &str, names: &[&str], kinds: &[ColKind]) -> PyResult<Bound<'py, PyDict>> {
    if log.state().spilled.is_some() && log.mem_rows() > 0 {
        // writing the last rows out failed: read everything back
        spill::load(log).map_err(|e| SimulationError::new_err(format!("reading the {what} log back: {e}")))?;
    }
    let buffers: Vec<Bound<'py, PyAny>> = match &log.state().spilled {
        Some(sp) => {
            let mmap = py.import("mmap")?;
            let mut out = Vec::new();
            for f in &sp.files {
                use std::os::unix::io::AsRawFd;
                let len = f.metadata().map_err(|e| SimulationError::new_err(format!("{what} log file: {e}")))?.len();
                let kw = PyDict::new(py);
                kw.set_item("access", mmap.getattr("ACCESS_READ")?)?;
                out.push(mmap.getattr("mmap")?.call((f.as_raw_fd(), len), Some(&kw))?);
            }
            out
        }
        None => log.chunk().iter().map(|b| PyBytes::new(py, b).into_any()).collect(),
    };
    let d = PyDict::new(py);
    for ((name, kind), buf) in names.iter().zip(kinds).zip(buffers) {
        let col = match kind {
            ColKind::Num(dtype) => PyTuple::new(py, [dtype.into_pyobject(py)?.into_any(), buf])?,
            ColKind::Cat(dtype, cats) => PyTuple::new(py, ["category".into_pyobject(py)?.into_any(), buf, PyList::new(py, *cats)?.into_any(), dtype.into_pyobject(py)?.into_any()])?,
        };
        d.set_item(name, col)?;
    }
    Ok(d)
}
