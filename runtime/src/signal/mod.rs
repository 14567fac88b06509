//! Asynchronous signal handling.
//!
//! How a delivery reaches the listeners:
//! 1. a handler installed with a signal's first listener counts its
//!    deliveries for the whole process (`deliveries.rs`);
//! 2. each runtime has one signal-hook pipe per signal its listeners wait
//!    for, registered with its reactor, made by the first listener there
//!    and closed with the last (`pipe.rs`): a listener costs no
//!    descriptor of its own;
//! 3. a delivery writes every runtime's pipe after it is counted, so the
//!    reactor wakes the pipe's waiting listeners through the same path as
//!    socket readiness;
//! 4. a woken listener compares the count with the one it last received:
//!    a new count is a delivery.
//!
//! Every listener for a signal sees every delivery made while it exists
//! (several deliveries that arrive before the listener looks may be seen
//! as one, as with any Unix signal), and a new listener also sees a
//! delivery that no listener has received yet, so a signal that arrives
//! between one listener's drop and the next one's creation is not lost.
//!
//! Registering a listener replaces the signal's default action for the
//! whole process (for `SIGINT`, the process no longer exits on Ctrl-C) for
//! as long as the process runs.

mod deliveries;
mod pipe;
pub mod unix;

use std::io;

/// Waits for one Ctrl-C (`SIGINT`).
///
/// The listener is registered when the returned future is first polled. A
/// Ctrl-C before the process's first `SIGINT` listener was registered is
/// not seen (it ran the default action: the process exited); one since
/// then that no listener has received yet is.
///
/// Once listening, it completes on a Ctrl-C and never gives up, as
/// tokio's: if its runtime shuts down while the future lives on (awaited
/// later on another runtime), it listens again on the runtime that polls
/// it.
///
/// # Errors
///
/// Returns an error if the handler could not be installed, or if it is
/// polled on a runtime that has shut down.
///
/// # Panics
///
/// Panics outside a runtime with I/O enabled, when first polled or when
/// polled again after its runtime is gone.
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
    loop {
        // On a runtime that has shut down, this fails: no endless loop.
        let mut interrupts = unix::signal(unix::SignalKind::interrupt())?;
        if interrupts.recv().await.is_some() {
            return Ok(());
        }
        // The listener's runtime is gone; a Ctrl-C since then that no
        // listener has received is still seen by the next listener.
    }
}
