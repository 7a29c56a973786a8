//! The plug-in factory Python hands to `run`/`validate`: builds each queue's and flow's
//! plug-in by calling back into Python (`aqmsim.plugin`), and wraps the objects it returns
//! so the engine calls them through its plug-in traits (`plugin_aqm.rs`, `plugin_cc.rs`).
//!
//! A run with plug-ins holds the GIL throughout (the callbacks need it at every packet).

use aqmsim_core::error::Result;
use aqmsim_core::plugin::PluginFactory;
use aqmsim_core::scenario::queue_spec::LinkInfo;
use pyo3::prelude::*;
use serde_json::{Map, Value};

/// The Python factory object (`aqmsim.plugin.Factory`).
pub struct PyFactory {
    pub obj: Py<PyAny>,
}

impl PluginFactory for PyFactory {
    fn make_aqm(&self, table: &Map<String, Value>, path: &str, link: LinkInfo) -> Result<(Box<dyn aqmsim_core::aqm::plugin::PluginAqm>, Value)> {
        Python::with_gil(|py| crate::plugin_aqm::make(py, self.obj.bind(py), table, path, link))
    }
    fn make_cc(&self, table: &Map<String, Value>, path: &str) -> Result<Box<dyn aqmsim_core::tcp::plugin::PluginCc>> {
        Python::with_gil(|py| crate::plugin_cc::make(py, self.obj.bind(py), table, path))
    }
}


/// Run `body` with the Python factory `obj` building this run's plug-ins, then stop the
/// run's time limit (`Factory.disarm`), whatever `body` returned: a watchdog must never
/// outlive the engine call that armed it (it would interrupt whatever Python runs next).
pub fn run_with<R>(obj: Py<PyAny>, body: impl FnOnce() -> R) -> R {
    let disarm = Python::with_gil(|py| obj.clone_ref(py));
    let out = aqmsim_core::plugin::with_factory(std::rc::Rc::new(PyFactory { obj }), body);
    Python::with_gil(|py| {
        let f = disarm.bind(py);
        if f.hasattr("disarm").unwrap_or(false) {
            if let Err(e) = f.call_method0("disarm") {
                e.print(py); // the run's own outcome is what is reported
            }
        }
    });
    out
}
