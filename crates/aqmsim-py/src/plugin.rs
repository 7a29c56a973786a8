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

