//! tokio's `runtime` module: rt's handle and metrics are re-exported as
//! they are (their shape is tokio's); [`Builder`] is a newtype for
//! tokio's `build_local(LocalOptions)` and tokio's defaults (worker count
//! from `TOKIO_WORKER_THREADS`, threads named `tokio-rt-worker`),
//! [`Runtime`] and [`LocalRuntime`] ones so that their `new` builds with
//! those defaults.
//!
//! There is one runtime: a dependency calling `Handle::current()` gets
//! rt's handle, and what it spawns is listed in rt's task dump.

mod builder;
mod local_options;
mod local_runtime;
#[allow(clippy::module_inception)]
mod runtime;

pub use builder::Builder;
pub use local_options::LocalOptions;
pub use local_runtime::LocalRuntime;
pub use rt::runtime::{
    EnterGuard, Handle, Id, RuntimeFlavor, RuntimeMetrics, TryCurrentError, is_rt_shutdown_err,
    worker_index,
};
pub use runtime::Runtime;
