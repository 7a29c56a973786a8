//! A Python congestion control behind the engine's `PluginCc` trait.

use aqmsim_core::error::{Result, ScenarioError};
use pyo3::prelude::*;
use serde_json::{Map, Value};

/// Build the Python congestion control for the `tcp` table `table` at `path`.
pub fn make(_py: Python<'_>, _factory: &Bound<'_, PyAny>, _table: &Map<String, Value>, path: &str) -> Result<Box<dyn aqmsim_core::tcp::plugin::PluginCc>> {
    Err(ScenarioError::new(path, "Python congestion controls are not built yet"))
}
