//! The std/loom shim.
//!
//! Every concurrent piece of the runtime imports its atomics, cells, `Arc`,
//! `Mutex`, `Condvar` and threads from here, never from `std` directly, so
//! the same code runs under the loom model checker when built with
//! `RUSTFLAGS="--cfg loom"`.

#[cfg(not(loom))]
mod std_impl;
#[cfg(not(loom))]
pub(crate) use std_impl::*;

#[cfg(loom)]
mod loom_impl;
#[cfg(loom)]
pub(crate) use loom_impl::*;

pub(crate) mod deque;

/// Runs a concurrency model: every interleaving loom explores under
/// `--cfg loom`, and once (on real threads) otherwise, which is how Miri
/// checks the same models for undefined behaviour.
#[cfg(test)]
pub(crate) fn model(f: impl Fn() + Sync + Send + 'static) {
    #[cfg(loom)]
    loom::model(f);
    #[cfg(not(loom))]
    f();
}
