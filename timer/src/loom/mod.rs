//! The std/loom shim (the same pattern as the runtime's `loom` module):
//! the timer's shared state takes its `Arc`, `Mutex` and atomics from
//! here, never from `std::sync` directly, so the same code runs under the
//! loom model checker with `RUSTFLAGS="--cfg loom"`.

#[cfg(not(loom))]
mod std_impl;
#[cfg(not(loom))]
pub(crate) use std_impl::*;

#[cfg(loom)]
mod loom_impl;
#[cfg(loom)]
pub(crate) use loom_impl::*;
