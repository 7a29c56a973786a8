//! A discipline written outside the engine (a Python class): the [`Aqm`] contract plus
//! what the engine needs to copy and name it. Built by [`crate::plugin::PluginFactory`].

use super::Aqm;

/// A plug-in discipline. It decides on a FIFO the queue wrapper keeps (as RED or CoDel do).
pub trait PluginAqm: Aqm + std::fmt::Debug + Send {
    /// An independent copy (a fresh instance with the same parameters and state).
    fn clone_box(&self) -> Box<dyn PluginAqm>;
    /// Names of the monitored variables beyond [`super::AqmState`]'s (extra columns of the
    /// queue samples), in a fixed order.
    fn extra_names(&self) -> &[String] {
        &[]
    }
    /// Their current values, in the order of [`PluginAqm::extra_names`], appended to `out`.
    fn extra_values(&self, _out: &mut Vec<f64>) {}
}

impl Clone for Box<dyn PluginAqm> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}
