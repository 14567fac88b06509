//! tokio's stable public API on the rt runtime.
//!
//! Patch a workspace's graph onto rt with one section in its `Cargo.toml`:
//!
//! ```toml
//! [patch.crates-io]
//! tokio = { path = "<rt checkout>/compat/tokio" }
//! ```
//!
//! Every crate in the graph that names `tokio` then runs on rt's one
//! runtime: its scheduler, reactor, timer wheel and blocking pool. Types
//! whose shape is already tokio's are rt's own, re-exported; the I/O types,
//! whose traits differ (tokio's `AsyncRead` fills a `ReadBuf`), are
//! newtypes with `From` both ways to rt's.

// I/O half
#[cfg(feature = "fs")]
pub mod fs;
pub mod io;
#[cfg(feature = "net")]
pub mod net;
#[cfg(feature = "process")]
pub mod process;
