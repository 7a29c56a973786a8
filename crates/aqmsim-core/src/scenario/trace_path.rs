//! `trace.path` checked when the scenario is built, so that `aqmsim validate` (which writes
//! nothing) refuses the paths the run would refuse when it opens the trace.

use super::model::TraceFormat;
use crate::error::{Result, ScenarioError};

fn err<T>(field: &str, msg: String) -> Result<T> {
    Err(ScenarioError::new(field, msg))
}

/// What can be known of `trace.path` without writing anything, so that `validate` refuses
/// what the run would: a NUL byte; for ns2 a directory, or a parent that is not an existing,
/// writable directory; for pcap an existing non-directory, or a nearest existing ancestor
/// that is not a writable directory (the run creates the missing ones). "Writable" is read
/// from the permission bits (no write bit at all: /proc, a read-only mount's root).
pub fn check_trace_path(path: &std::path::Path, format: TraceFormat) -> Result<()> {
    let shown = path.display();
    if path.as_os_str().to_string_lossy().contains('\0') {
        return err("trace.path", format!("{:?}: a path cannot contain a NUL byte", path.as_os_str()));
    }
    let writable_dir = |d: &std::path::Path| match std::fs::metadata(d) {
        Ok(m) if !m.is_dir() => Err(format!("{} is not a directory", d.display())),
        Ok(m) if m.permissions().readonly() => Err(format!("the directory {} is not writable", d.display())),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(format!("the directory {} does not exist", d.display())),
        Err(e) => Err(format!("{}: {e}", d.display())),
    };
    let here = std::path::Path::new(".");
    let problem = match format {
        TraceFormat::Ns2 => {
            if path.is_dir() {
                Some(format!("{shown} is a directory: an ns2 trace is one file (e.g. {}/trace.tr)", shown))
            } else {
                let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(here);
                writable_dir(parent).err()
            }
        }
        TraceFormat::Pcap => {
            if path.exists() && !path.is_dir() {
                Some(format!("{shown} exists and is not a directory: a pcap trace is a directory of .pcap files"))
            } else {
                let mut d = path;
                while !d.exists() {
                    match d.parent() {
                        Some(p) if !p.as_os_str().is_empty() => d = p,
                        _ => {
                            d = here;
                            break;
                        }
                    }
                }
                writable_dir(d).err()
            }
        }
    };
    match problem {
        Some(why) => err("trace.path", format!("cannot write the trace to {shown}: {why}")),
        None => Ok(()),
    }
}
