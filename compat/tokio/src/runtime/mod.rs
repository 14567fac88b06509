//! tokio's `runtime` module: rt's runtime, handle and metrics are
//! re-exported as they are (their shape is tokio's); [`Builder`] is a
//! newtype for tokio's `build_local(LocalOptions)`.
//!
//! There is one runtime: a dependency calling `Handle::current()` gets
//! rt's handle, and what it spawns is listed in rt's task dump.

mod builder;
mod local_options;

pub use builder::Builder;
pub use local_options::LocalOptions;
pub use rt::runtime::{
    EnterGuard, Handle, Id, LocalRuntime, Runtime, RuntimeFlavor, RuntimeMetrics, TryCurrentError,
    is_rt_shutdown_err, worker_index,
};
