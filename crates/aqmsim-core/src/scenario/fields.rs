//! One field read with its path: the helpers every part of the build uses to parse a value
//! and name the field in the error.

use super::schema::RateSchedule;
use super::traffic::parse_schedule;
use super::units::{parse_dist, parse_rate, parse_time, Dist, Quantity, TimeDist, MAX_PACKET_BYTES};
use crate::error::{Result, ScenarioError};

/// A size field in bytes: `lo..=MAX_PACKET_BYTES`.
pub(super) fn size(v: u64, lo: u32, field: String) -> Result<u32> {
    if v < lo as u64 || v > MAX_PACKET_BYTES as u64 {
        return err(field, format!("must be in [{lo}, {MAX_PACKET_BYTES}] bytes, got {v}"));
    }
    Ok(v as u32)
}

pub(super) fn err<T>(field: impl Into<String>, msg: impl Into<String>) -> Result<T> {
    Err(ScenarioError::new(field, msg))
}

pub(super) fn rate(q: &Quantity, path: &str) -> Result<f64> {
    parse_rate(q).map_err(|e| ScenarioError::new(path, e))
}
pub(super) fn time(q: &Quantity, path: &str) -> Result<f64> {
    parse_time(q).map_err(|e| ScenarioError::new(path, e))
}
/// A `rate_schedule`, parsed (empty when there is none): its first rate replaces `rate`.
pub(super) fn schedule(s: &Option<RateSchedule>, path: &str) -> Result<Vec<(f64, f64)>> {
    s.as_ref().map_or(Ok(Vec::new()), |s| parse_schedule(s, path))
}
pub(super) fn dist(d: &Dist, path: &str) -> Result<TimeDist> {
    parse_dist(d).map_err(|e| ScenarioError::new(path, e))
}
