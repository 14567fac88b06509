//! Multi-producer, single-consumer channels, bounded and unbounded.
//!
//! Both flavours share one channel (`chan.rs`): a lock-free linked list of
//! blocks of slots (`queue.rs`) that senders claim with a compare-exchange
//! on the tail and the receiver drains from the head, plus the count of
//! live senders and the receiver's waker. The bounded flavour adds a fair
//! [`Semaphore`](crate::sync::Semaphore) holding one permit per free slot:
//! a sender takes a permit before pushing, the receiver gives it back
//! after popping. So senders waiting for capacity are served in FIFO
//! order, and a cancelled `send` never leaks a slot.
//!
//! Cancel safety:
//! - `recv` / `recv_many` are cancel-safe: a value is removed from the
//!   queue only in the poll that returns it.
//! - `send` is cancel-safe in that dropping it never loses a slot or sends
//!   twice, but the value inside the dropped future is dropped and the
//!   sender loses its place in line. Use `reserve` first to keep the value.
//! - `reserve`, `reserve_many`, `closed` are cancel-safe.
//!
//! Senders keep the channel open; [`WeakSender`] and
//! [`WeakUnboundedSender`] do not (they upgrade back to a sender while
//! one exists).
//!
//! # Examples
//!
//! ```
//! use rt::sync::mpsc;
//!
//! let rt = rt::runtime::Runtime::new().unwrap();
//! rt.block_on(async {
//!     let (tx, mut rx) = mpsc::channel(8);
//!     for i in 0..3 {
//!         let tx = tx.clone();
//!         rt::spawn(async move { tx.send(i).await.unwrap() });
//!     }
//!     drop(tx);
//!     let mut got = Vec::new();
//!     while let Some(i) = rx.recv().await {
//!         got.push(i);
//!     }
//!     got.sort();
//!     assert_eq!(got, [0, 1, 2]);
//! });
//! ```

mod bounded;
mod chan;
mod channel_counts;
pub mod error;
mod permit_iterator;
mod queue;
mod recv_many;
mod shared_halves;
mod unbounded;
mod weak;

pub use bounded::{OwnedPermit, Permit, Receiver, Sender, channel};
pub use permit_iterator::PermitIterator;
pub use unbounded::{UnboundedReceiver, UnboundedSender, unbounded_channel};
pub use weak::{WeakSender, WeakUnboundedSender};

/// Counts its drops, for the tests that check each value is dropped
/// exactly once.
#[cfg(test)]
struct Counted(std::sync::Arc<std::sync::atomic::AtomicUsize>);

#[cfg(test)]
impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}
