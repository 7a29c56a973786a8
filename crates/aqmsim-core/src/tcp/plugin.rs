//! A congestion control written outside the engine (a Python class). Built by
//! [`crate::plugin::PluginFactory`].

/// A plug-in congestion control.
pub trait PluginCc: std::fmt::Debug + Send {}
