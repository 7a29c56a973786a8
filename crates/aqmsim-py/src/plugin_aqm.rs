//! A Python discipline behind the engine's `PluginAqm` trait.

use aqmsim_core::error::{Result, ScenarioError};
use aqmsim_core::scenario::queue_spec::LinkInfo;
use pyo3::prelude::*;
use serde_json::{Map, Value};

/// Build the Python discipline for the queue table `table` at `path`.
pub fn make(_py: Python<'_>, _factory: &Bound<'_, PyAny>, _table: &Map<String, Value>, path: &str, _link: LinkInfo) -> Result<(Box<dyn aqmsim_core::aqm::plugin::PluginAqm>, Value)> {
    Err(ScenarioError::new(path, "Python disciplines are not built yet"))
}
