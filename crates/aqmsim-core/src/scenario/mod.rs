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
mod traffic_size;
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
        let msg = match missing_hint(&field) {
            Some(hint) => format!("missing: a required field ({hint})"),
            None => "missing: a required field".to_string(),
        };
        return ScenarioError::new(field, msg);
    }
    ScenarioError::new(path, msg)
}

/// What a required field looks like, for the error that says it is missing (by its name,
/// the last part of its path).
fn missing_hint(field: &str) -> Option<&'static str> {
    let name = field.rsplit('.').next().unwrap_or(field);
    let name = name.split('[').next().unwrap_or(name);
    Some(match name {
        "duration" => "simulated time, e.g. duration = \"60s\"",
        "rate" => "bit/s, e.g. rate = \"10Mb\"; also \"1.5Mbps\", \"1Gb\" or a number",
        "delay" => "one-way propagation delay, e.g. delay = \"10ms\"",
        "bottleneck" => "the R1–R2 link: [dumbbell.bottleneck] with rate = \"10Mb\" and delay = \"20ms\"",
        "groups" => "the sources: [[dumbbell.groups]] with count = 10 and access = { rate = \"100Mb\", delay = \"1ms\" }",
        "access" => "each source's link to R1, e.g. access = { rate = \"100Mb\", delay = \"1ms\" }",
        "from" | "to" | "src" | "dst" => "a node name of nodes = [...]",
        "kind" => "the discipline, e.g. kind = \"red\"; aqmsim list names them all",
        _ => return None,
    })
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
