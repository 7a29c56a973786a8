//! Plug-ins: queue disciplines and congestion controls written outside the engine (a
//! user's Python class, through `aqmsim-py`). The engine knows them only by two traits,
//! [`crate::aqm::plugin::PluginAqm`] and [`crate::tcp::plugin::PluginCc`], and builds them
//! through a [`PluginFactory`] that the caller installs for one run ([`with_factory`]).
//! Nothing here depends on Python: `cargo test -p aqmsim-core` builds plug-ins from Rust.
//!
//! A plug-in that fails (raises, returns nonsense, runs past its time limit) ends the run
//! with [`fail`]: a panic carrying a [`PluginFailure`], which the caller catches and turns
//! into one message naming the plug-in. The run's hot path pays nothing for it.

use crate::error::{Result, ScenarioError};
use crate::scenario::queue_fields::LinkInfo;
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// The wall-clock time a run with plug-ins may take, s, when `plugin_time_limit` is not
/// given; and the most it may be set to.
pub const DEFAULT_TIME_LIMIT_S: f64 = 60.0;
pub const MAX_TIME_LIMIT_S: f64 = 86_400.0;

/// The payload of the panic [`fail`] raises: why a plug-in stopped the run.
#[derive(Clone, Debug)]
pub struct PluginFailure {
    pub message: String,
}

/// Stop the run because a plug-in failed (the caller catches the [`PluginFailure`]).
pub fn fail(message: String) -> ! {
    std::panic::panic_any(PluginFailure { message })
}

/// Builds plug-ins from their scenario tables, one instance per queue or flow.
pub trait PluginFactory {
    /// A discipline for the queue whose table is `table` (at `path`, e.g.
    /// `dumbbell.bottleneck.queue`) on a link like `link`; returns it and its resolved
    /// parameters (written into the resolved scenario).
    fn make_aqm(&self, table: &Map<String, Value>, path: &str, link: LinkInfo) -> Result<(Box<dyn crate::aqm::plugin::PluginAqm>, Value)>;
    /// A congestion control for a flow of the group whose `tcp` table is `table` (at `path`).
    fn make_cc(&self, table: &Map<String, Value>, path: &str) -> Result<Box<dyn crate::tcp::plugin::PluginCc>>;
}

thread_local! {
    static FACTORY: RefCell<Option<Rc<dyn PluginFactory>>> = const { RefCell::new(None) };
    /// When the run with plug-ins started, and its time limit (s).
    static CLOCK: Cell<Option<(Instant, f64)>> = const { Cell::new(None) };
}

/// Set the time limit (`plugin_time_limit`, s) of the run [`with_factory`] is running.
pub fn set_time_limit(secs: f64) {
    CLOCK.with(|c| {
        if let Some((start, _)) = c.get() {
            c.set(Some((start, secs)))
        }
    })
}

/// The time limit of the run, s ([`DEFAULT_TIME_LIMIT_S`] unless set).
pub fn time_limit() -> f64 {
    CLOCK.with(|c| c.get().map_or(DEFAULT_TIME_LIMIT_S, |(_, l)| l))
}

/// Is the run past its time limit? (Plug-ins check it after each callback.)
#[inline]
pub fn past_time_limit() -> bool {
    CLOCK.with(|c| c.get().is_some_and(|(start, l)| start.elapsed() > Duration::from_secs_f64(l)))
}

/// Is a plug-in factory installed (a run with plug-ins)?
pub fn installed() -> bool {
    FACTORY.with(|f| f.borrow().is_some())
}

/// Run `body` with `factory` building this thread's plug-ins (restored afterwards, also
/// when `body` panics).
pub fn with_factory<R>(factory: Rc<dyn PluginFactory>, body: impl FnOnce() -> R) -> R {
    struct Restore(Option<Rc<dyn PluginFactory>>, Option<(Instant, f64)>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take();
            FACTORY.with(|f| *f.borrow_mut() = prev);
            CLOCK.with(|c| c.set(self.1));
        }
    }
    let clock = CLOCK.with(|c| c.replace(Some((Instant::now(), DEFAULT_TIME_LIMIT_S))));
    let _restore = Restore(FACTORY.with(|f| f.borrow_mut().replace(factory)), clock);
    body()
}

/// The factory installed by [`with_factory`], or an error naming `path` when there is none.
pub fn factory(path: &str) -> Result<Rc<dyn PluginFactory>> {
    FACTORY.with(|f| f.borrow().clone()).ok_or_else(|| {
        ScenarioError::new(
            path,
            "a Python plug-in runs only from Python (aqmsim run, the Python API, sweeps, the suite): this engine was called without a plug-in factory",
        )
    })
}
