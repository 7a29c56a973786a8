//! aqmsim-core: a packet-level simulator for active queue management under TCP.
//!
//! Layers, bottom up: [`time`] (integer nanoseconds) → [`sched`] (event queue) → [`rng`]
//! (per-component streams) → [`packet`] → [`aqm`] (queue disciplines behind one trait) →
//! [`net`] (links, routes) → [`tcp`] (ns-2 style agents) → [`monitor`] → [`scenario`]
//! (schema, validation, the resolved model) → [`sim`] (the event loop).
//!
//! No Python here: `cargo test -p aqmsim-core` runs alone.

pub mod aqm;
pub mod error;
pub mod fuzzing;
pub mod monitor;
pub mod net;
pub mod packet;
pub mod plugin;
pub mod replay;
pub mod rng;
pub mod scenario;
pub mod sched;
pub mod seqruns;
pub mod sim;
pub mod tcp;
pub mod time;
pub mod trace;

pub use error::ScenarioError;
pub use sim::{run_json, run_toml, RunResults, Simulation};
