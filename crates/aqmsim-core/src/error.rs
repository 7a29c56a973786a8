//! Errors. Scenario errors name the field (a dotted path) and what is allowed.

use std::fmt;

/// A scenario that cannot be run as written.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    /// Dotted path of the offending field, e.g. `dumbbell.bottleneck.queue.max_p`.
    pub field: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { field: field.into(), message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

pub type Result<T> = std::result::Result<T, ScenarioError>;
