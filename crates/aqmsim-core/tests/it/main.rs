//! Integration tests: whole simulations on small topologies.

mod cc_dumbbell;
mod common;
mod cut_through;
mod invariants;
mod linux_stack;
mod markfront;
mod parallel;
mod pcap;
mod plugin_seam;
mod properties;
mod rack_stress;
mod tcp_behaviour;
mod tcp_series;
mod traffic;
