//! What a half tells about its channel beyond sending and receiving:
//! whether two senders (or owned permits) share a channel, and, on the
//! receiver, the
//! capacity and the number of senders (reads of `Chan` only, no state
//! changes). The methods both flavours share are written once here.

use super::{OwnedPermit, Receiver, Sender, UnboundedReceiver, UnboundedSender};
use crate::loom::sync::Arc;

/// `same_channel` on a sender type; `$make` creates a channel in the
/// example.
macro_rules! same_channel {
    ($($Sender:ident: $make:literal;)*) => {$(
        impl<T> $Sender<T> {
            #[doc = concat!(
                "`true` if `other` sends on the same channel as this sender.\n\n",
                "# Examples\n\n```\n",
                "let (tx, _rx) = rt::sync::mpsc::", $make, ";\n",
                "let (other, _other_rx) = rt::sync::mpsc::", $make, ";\n",
                "assert!(tx.same_channel(&tx.clone()));\n",
                "assert!(!tx.same_channel(&other));\n```",
            )]
            pub fn same_channel(&self, other: &$Sender<T>) -> bool {
                Arc::ptr_eq(&self.chan, &other.chan)
            }
        }
    )*};
}

/// `sender_strong_count` and `sender_weak_count` on a receiver type.
macro_rules! sender_counts {
    ($($Receiver:ident: $make:literal;)*) => {$(
        impl<T> $Receiver<T> {
            #[doc = concat!(
                "The number of live senders of this channel (the receiver closes ",
                "when it reaches zero).\n\n",
                "# Examples\n\n```\n",
                "let (tx, rx) = rt::sync::mpsc::", $make, ";\n",
                "let tx2 = tx.clone();\n",
                "assert_eq!(rx.sender_strong_count(), 2);\n",
                "drop((tx, tx2));\n",
                "assert_eq!(rx.sender_strong_count(), 0);\n```",
            )]
            pub fn sender_strong_count(&self) -> usize {
                self.chan.sender_count()
            }

            #[doc = concat!(
                "The number of weak senders of this channel (`downgrade`).\n\n",
                "# Examples\n\n```\n",
                "let (tx, rx) = rt::sync::mpsc::", $make, ";\n",
                "let weak = tx.downgrade();\n",
                "assert_eq!(rx.sender_weak_count(), 1);\n",
                "drop(weak);\n",
                "assert_eq!(rx.sender_weak_count(), 0);\n```",
            )]
            pub fn sender_weak_count(&self) -> usize {
                self.chan.weak_sender_count()
            }
        }
    )*};
}

same_channel! {
    Sender: "channel::<u8>(1)";
    UnboundedSender: "unbounded_channel::<u8>()";
}

sender_counts! {
    Receiver: "channel::<u8>(1)";
    UnboundedReceiver: "unbounded_channel::<u8>()";
}

impl<T> Receiver<T> {
    /// The number of free slots now, as [`Sender::capacity`] reports it.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::mpsc::channel(3);
    /// tx.try_send(()).unwrap();
    /// assert_eq!(rx.capacity(), 2);
    /// ```
    pub fn capacity(&self) -> usize {
        self.chan.free_slots()
    }

    /// The capacity the channel was created with.
    ///
    /// # Examples
    ///
    /// ```
    /// let (_tx, rx) = rt::sync::mpsc::channel::<u8>(3);
    /// assert_eq!(rx.max_capacity(), 3);
    /// ```
    pub fn max_capacity(&self) -> usize {
        self.chan.max_capacity()
    }
}

impl<T> OwnedPermit<T> {
    /// The sender the permit holds until it sends or is released.
    fn held_sender(&self) -> &Sender<T> {
        self.sender
            .as_ref()
            .expect("an owned permit holds its sender until `send` or `release` consumes it")
    }

    /// `true` if `other` reserves a slot of the same channel.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::channel::<u8>(2);
    /// let (other, _other_rx) = rt::sync::mpsc::channel::<u8>(1);
    /// let a = tx.clone().try_reserve_owned().unwrap();
    /// let b = tx.try_reserve_owned().unwrap();
    /// let c = other.try_reserve_owned().unwrap();
    /// assert!(a.same_channel(&b));
    /// assert!(!a.same_channel(&c));
    /// ```
    pub fn same_channel(&self, other: &OwnedPermit<T>) -> bool {
        self.held_sender().same_channel(other.held_sender())
    }

    /// `true` if the permit reserves a slot of `sender`'s channel.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::channel::<u8>(1);
    /// let (other, _other_rx) = rt::sync::mpsc::channel::<u8>(1);
    /// let permit = tx.clone().try_reserve_owned().unwrap();
    /// assert!(permit.same_channel_as_sender(&tx));
    /// assert!(!permit.same_channel_as_sender(&other));
    /// ```
    pub fn same_channel_as_sender(&self, sender: &Sender<T>) -> bool {
        self.held_sender().same_channel(sender)
    }
}
