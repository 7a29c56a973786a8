//! Integration tests: whole simulations on small topologies.

mod common;
mod invariants;
mod tcp_behaviour;
