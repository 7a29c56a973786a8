//! Scenarios: the schema, its validation, and the resolved model the simulation runs.

pub mod build;
mod fields;
mod flows;
pub mod model;
mod monitor_spec;
pub mod queue_dualpi2;
pub mod queue_cake;
pub mod queue_cobalt;
pub mod queue_modern;
pub mod queue_fields;
pub mod queue_fq;
pub mod queue_fq_cobalt;
pub mod queue_red;
pub mod queue_spec;
#[cfg(test)]
mod queue_defaults_tests;
pub mod schema;
mod tcp_spec;
pub mod tcp_stack;
mod tcp_l4s;
mod tcp_ledbat;
mod tcp_python;
mod topology;
mod trace_path;
pub mod traffic;
pub mod units;

pub use model::{AppModel, FlowModel, LinkModel, Model};
pub use schema::ScenarioSpec;

use crate::error::{Result, ScenarioError};

fn serde_err(e: serde_path_to_error::Error<impl std::fmt::Display>) -> ScenarioError {
    let path = e.path().to_string();
    let path = if path == "." { String::new() } else { path };
    let mut msg = e.into_inner().to_string();
    // The position is in text the user did not write (the JSON made from their file).
    if let Some(i) = msg.find(" at line ") {
        msg.truncate(i);
    }
    // serde names a missing field in the message, at the path of the table that lacks it:
    // name it by its own path instead (`dumbbell.bottleneck.rate: missing ...`).
    if let Some(name) = msg.strip_prefix("missing field `").and_then(|r| r.strip_suffix('`')) {
        let field = if path.is_empty() { name.to_string() } else { format!("{path}.{name}") };
        return ScenarioError::new(field, "missing: a required field");
    }
    ScenarioError::new(path, msg)
}

/// Parse a scenario from JSON text (the Python API's path).
pub fn from_json(text: &str) -> Result<ScenarioSpec> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(serde_err)
}

/// Parse a scenario from TOML text.
pub fn from_toml(text: &str) -> Result<ScenarioSpec> {
    let de = toml::Deserializer::new(text);
    serde_path_to_error::deserialize(de).map_err(serde_err)
}
