//! A Python congestion control in a `tcp` table (`variant = "python"`, either stack):
//! `cc_class` names the class ("module:Class" or "path/file.py:Class"), `cc` is the table of
//! its keyword arguments. The class is built once here, through the run's plug-in factory,
//! so a bad class or a bad argument is a scenario error naming the field; each flow then
//! gets its own instance (`sim/linux_hooks.rs`).

use super::schema::TcpSpec;
use crate::error::{Result, ScenarioError};
use crate::tcp::params::CcPluginSpec;
use crate::tcp::{TcpParams, Variant};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The plug-in's fields (refused in an ns2 table and with another variant).
pub const FIELDS: &[&str] = &["cc_class", "cc"];

/// Resolve `cc_class` and `cc` (`set(f)`: Some(true) when this table sets `f`, Some(false)
/// when the top-level one does; `at(f, here)`: the field's path).
pub fn apply(p: &mut TcpParams, base: &TcpSpec, over: &TcpSpec, set: &dyn Fn(&str) -> Option<bool>, at: &dyn Fn(&str, bool) -> String) -> Result<()> {
    let python = p.variant == Variant::Python;
    let top = base.variant.as_deref().and_then(Variant::parse).unwrap_or(Variant::NewReno);
    for &f in FIELDS {
        if let Some(here) = set(f) {
            let table_variant = if here { p.variant } else { top };
            if table_variant != Variant::Python {
                let msg = format!("only used with variant = \"python\" (the variant here is \"{}\")", table_variant.name());
                return Err(ScenarioError::new(at(f, here), msg));
            }
        }
    }
    if !python {
        return Ok(());
    }
    let here = over.cc_class.is_some();
    let Some(class) = over.cc_class.clone().or(base.cc_class.clone()) else {
        let msg = "variant = \"python\" needs cc_class = \"module:Class\" or \"path/file.py:Class\" (the congestion control's class)";
        return Err(ScenarioError::new(at("cc_class", set("variant") != Some(false)), msg));
    };
    // the plug-in's path is the table that names its class
    let cc_at = at("cc_class", here);
    let path = cc_at.strip_suffix(".cc_class").unwrap_or(&cc_at).to_string();
    let cc = over.cc.clone().or(base.cc.clone()).unwrap_or_default();
    let mut table = Map::new();
    table.insert("cc_class".into(), Value::String(class));
    table.insert("cc".into(), Value::Object(cc));
    // built once to check the class and its arguments (dropped: each flow builds its own)
    drop(crate::plugin::factory(&path)?.make_cc(&table, &path)?);
    p.cc_plugin = Some(Arc::new(CcPluginSpec { table, path }));
    Ok(())
}

/// The plug-in's fields in the resolved `tcp` table.
pub fn json(p: &TcpParams, j: &mut Value) {
    if let Some(s) = &p.cc_plugin {
        j["cc_class"] = s.table["cc_class"].clone();
        j["cc"] = s.table.get("cc").cloned().unwrap_or(json!({}));
    }
}
