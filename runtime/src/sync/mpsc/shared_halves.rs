//! The methods and trait impls the bounded and unbounded flavours share,
//! with one body each over the halves' `chan` (and the receiver's `head`):
//! all of a receiver, and a sender's `downgrade`, counts, `is_closed`,
//! `closed`, `Clone`, `Drop` and `Debug`.
//!
//! Each flavour's file invokes the macros with its types' names and each
//! method's whole doc comment, in the order the macro lists them, so the
//! docs and their examples stay with the type they describe:
//!
//! ```text
//! receiver_half! {
//!     Receiver;
//!     /// The docs of `recv`, with its examples.
//!     recv;
//!     ...
//! }
//! ```

/// A receiver's methods, `Drop` and `Debug`, for `$Receiver<T>` with the
/// fields `chan: Arc<Chan<T>>` and `head: Head`. `try_recv`'s error is
/// `TryRecvError` as the invoking module imports it, the name its docs
/// link to.
macro_rules! receiver_half {
    (
        $Receiver:ident;
        $(#[$recv:meta])* recv;
        $(#[$blocking_recv:meta])* blocking_recv;
        $(#[$poll_recv:meta])* poll_recv;
        $(#[$recv_many:meta])* recv_many;
        $(#[$try_recv:meta])* try_recv;
        $(#[$close:meta])* close;
        $(#[$len:meta])* len;
        $(#[$is_empty:meta])* is_empty;
        $(#[$is_closed:meta])* is_closed;
    ) => {
        impl<T> $Receiver<T> {
            $(#[$recv])*
            #[track_caller]
            pub fn recv(&mut self) -> impl ::std::future::Future<Output = Option<T>> {
                let site = crate::task::waits::Site::here(concat!(
                    "mpsc::",
                    stringify!($Receiver),
                    "::recv"
                ));
                // An `async` block, not the bare `poll_fn`: `!Unpin`, as
                // tokio's `async fn` is (its `async_send_sync.rs` checks).
                async move {
                    ::std::future::poll_fn(|cx| {
                        site.pending(self.chan.poll_recv(&mut self.head, cx))
                    })
                    .await
                }
            }

            $(#[$blocking_recv])*
            #[track_caller]
            pub fn blocking_recv(&mut self) -> Option<T> {
                crate::sync::blocking::block_on(
                    concat!("mpsc::", stringify!($Receiver), "::blocking_recv"),
                    self.recv(),
                )
            }

            $(#[$poll_recv])*
            pub fn poll_recv(
                &mut self,
                cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<Option<T>> {
                self.chan.poll_recv(&mut self.head, cx)
            }

            $(#[$recv_many])*
            #[track_caller]
            pub fn recv_many<'a>(
                &'a mut self,
                buf: &'a mut Vec<T>,
                limit: usize,
            ) -> impl ::std::future::Future<Output = usize> + 'a {
                let site = crate::task::waits::Site::here(concat!(
                    "mpsc::",
                    stringify!($Receiver),
                    "::recv_many"
                ));
                async move {
                    ::std::future::poll_fn(|cx| {
                        site.pending(self.chan.poll_recv_many(&mut self.head, cx, buf, limit))
                    })
                    .await
                }
            }

            $(#[$try_recv])*
            pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
                self.chan.try_recv(&mut self.head)
            }

            $(#[$close])*
            pub fn close(&mut self) {
                self.chan.close();
            }

            $(#[$len])*
            pub fn len(&self) -> usize {
                self.chan.len()
            }

            $(#[$is_empty])*
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            $(#[$is_closed])*
            pub fn is_closed(&self) -> bool {
                self.chan.is_closed_for_receiver()
            }
        }

        impl<T> Drop for $Receiver<T> {
            fn drop(&mut self) {
                self.chan.drop_receiver(&mut self.head);
            }
        }

        impl<T> ::std::fmt::Debug for $Receiver<T> {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct(concat!("mpsc::", stringify!($Receiver)))
                    .field("chan", &self.chan)
                    .finish()
            }
        }
    };
}

/// A sender's methods that do not send, `Clone`, `Drop` and `Debug`, for
/// `$Sender<T>` with the field `chan: Arc<Chan<T>>`; `downgrade` makes a
/// `$Weak<T>`, named as the invoking module imports it (and its docs link
/// to it). Also `from_chan`, for upgrading weak senders.
macro_rules! sender_half {
    (
        $Sender:ident, $Weak:ident;
        $(#[$downgrade:meta])* downgrade;
        $(#[$strong_count:meta])* strong_count;
        $(#[$weak_count:meta])* weak_count;
        $(#[$is_closed:meta])* is_closed;
        $(#[$closed:meta])* closed;
    ) => {
        impl<T> $Sender<T> {
            /// A sender for `chan`, whose sender count already counts it.
            pub(super) fn from_chan(
                chan: crate::loom::sync::Arc<crate::sync::mpsc::chan::Chan<T>>,
            ) -> $Sender<T> {
                $Sender { chan }
            }

            $(#[$downgrade])*
            pub fn downgrade(&self) -> $Weak<T> {
                $Weak::new(&self.chan)
            }

            $(#[$strong_count])*
            pub fn strong_count(&self) -> usize {
                self.chan.sender_count()
            }

            $(#[$weak_count])*
            pub fn weak_count(&self) -> usize {
                self.chan.weak_sender_count()
            }

            $(#[$is_closed])*
            pub fn is_closed(&self) -> bool {
                self.chan.is_closed()
            }

            $(#[$closed])*
            pub async fn closed(&self) {
                self.chan.closed().await
            }
        }

        impl<T> Clone for $Sender<T> {
            fn clone(&self) -> $Sender<T> {
                self.chan.add_sender();
                $Sender {
                    chan: self.chan.clone(),
                }
            }
        }

        impl<T> Drop for $Sender<T> {
            fn drop(&mut self) {
                self.chan.drop_sender();
            }
        }

        impl<T> ::std::fmt::Debug for $Sender<T> {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct(concat!("mpsc::", stringify!($Sender)))
                    .field("chan", &self.chan)
                    .finish()
            }
        }
    };
}

pub(super) use {receiver_half, sender_half};
