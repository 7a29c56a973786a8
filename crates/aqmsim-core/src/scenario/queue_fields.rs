//! What every queue table's builder shares: the parameter description the registry lists
//! (`aqmsim list`) and parsing a table into a typed spec with the failing field named. A
//! leaf: the registry (`queue_spec`) checks that a table holds only its discipline's fields,
//! then calls that discipline's builder, and the builders depend only on this file.

use crate::error::{Result, ScenarioError};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// One parameter of a discipline: (field, default, allowed values and meaning).
pub type Param = (&'static str, &'static str, &'static str);

/// The table `m` parsed as `T`; an error names the failing field by its path under `path`.
pub(crate) fn parse_as<T: DeserializeOwned>(m: &serde_json::Map<String, Value>, path: &str) -> Result<T> {
    let v = Value::Object(m.clone());
    serde_path_to_error::deserialize(v).map_err(|e| {
        let p = e.path().to_string();
        let field = if p == "." || p.is_empty() { path.to_string() } else { format!("{path}.{p}") };
        ScenarioError::new(field, e.into_inner().to_string())
    })
}

/// The link a queue sits on (RED's automatic values need it).
#[derive(Copy, Clone, Debug)]
pub struct LinkInfo {
    pub rate_bps: f64,
    pub delay_s: f64,
}
