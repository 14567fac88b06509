//! The std/loom shim for the readiness cell, the only part of the reactor
//! that is model-checked (the rest talks to the OS).

#[cfg(not(loom))]
pub(crate) use std::sync::{
    Mutex,
    atomic::{AtomicUsize, Ordering},
};

#[cfg(loom)]
pub(crate) use loom::sync::{
    Mutex,
    atomic::{AtomicUsize, Ordering},
};
