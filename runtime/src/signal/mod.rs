//! Asynchronous signal handling.
//!
//! Each listener owns a signal-hook registration whose self-pipe is
//! registered with the runtime's reactor, so a delivery wakes the listening
//! task through the same path as socket readiness; a handler installed
//! with a signal's first listener counts its deliveries for the whole
//! process. Every listener for a signal sees every delivery made while it
//! exists (several deliveries that arrive before the listener looks may be
//! seen as one, as with any Unix signal), and a new listener also sees a
//! delivery that no listener has received yet, so a signal that arrives
//! between one listener's drop and the next one's creation is not lost.
//!
//! Registering a listener replaces the signal's default action for the
//! whole process (for `SIGINT`, the process no longer exits on Ctrl-C) for
//! as long as the process runs.

pub mod unix;

use std::io;

/// Waits for one Ctrl-C (`SIGINT`).
///
/// The listener is registered when the returned future is first polled. A
/// Ctrl-C before the process's first `SIGINT` listener was registered is
/// not seen (it ran the default action: the process exited); one since
/// then that no listener has received yet is.
///
/// # Errors
///
/// Returns an error if the handler could not be installed, or if the
/// runtime shut down while waiting.
///
/// # Panics
///
/// Panics outside a runtime with I/O enabled.
///
/// # Examples
///
/// ```no_run
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// rt::signal::ctrl_c().await.expect("install the Ctrl-C handler");
/// println!("Ctrl-C received, shutting down");
/// # });
/// ```
pub async fn ctrl_c() -> io::Result<()> {
    let mut interrupts = unix::signal(unix::SignalKind::interrupt())?;
    match interrupts.recv().await {
        Some(()) => Ok(()),
        None => Err(io::Error::other(
            "rt: the runtime shut down while waiting for Ctrl-C",
        )),
    }
}
