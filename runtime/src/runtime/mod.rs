//! The runtime: `Builder`, `Runtime`, `Handle`.

pub(crate) mod arc_waker;
pub(crate) mod builder;
pub(crate) mod context;
mod handle;
mod id;
mod local_runtime;
pub(crate) mod park;
#[allow(clippy::module_inception)]
mod runtime;
pub(crate) mod spawn;

pub use builder::Builder;
pub use handle::{EnterGuard, Handle, RuntimeFlavor, RuntimeMetrics, TryCurrentError};
pub use id::Id;
pub use local_runtime::LocalRuntime;
pub use runtime::Runtime;
pub(crate) use runtime::{block_on_thread, deadline_after};
