//! `poll_recv_many` and `blocking_recv_many`, the forms of `recv_many`
//! for hand-written futures and for synchronous code, written once for
//! both receivers.

use super::{Receiver, UnboundedReceiver};
use std::task::{Context, Poll};

/// The two methods on a receiver type; `$make` makes its channel and
/// `$send` sends `i` in the examples.
macro_rules! recv_many_forms {
    ($($Receiver:ident: $make:literal, $send:literal;)*) => {$(
        impl<T> $Receiver<T> {
            #[doc = concat!(
                "Polls for values, as [`recv_many`](", stringify!($Receiver), "::recv_many) ",
                "waits: `Ready(n)` once it moved `n` of at most `limit` values into `buf`, ",
                "`Ready(0)` when the channel is closed and drained (or `limit` is 0). A ",
                "waiting call keeps only the last waker.\n\n",
                "# Examples\n\n```\n",
                "use std::task::{Context, Poll, Waker};\n",
                "let (tx, mut rx) = rt::sync::mpsc::", $make, ";\n",
                "let mut cx = Context::from_waker(Waker::noop());\n",
                "let mut buf = Vec::new();\n",
                "assert_eq!(rx.poll_recv_many(&mut cx, &mut buf, 8), Poll::Pending);\n",
                "for i in 0..3 { ", $send, "; }\n",
                "assert_eq!(rx.poll_recv_many(&mut cx, &mut buf, 8), Poll::Ready(3));\n",
                "assert_eq!(buf, [0, 1, 2]);\n```",
            )]
            pub fn poll_recv_many(
                &mut self,
                cx: &mut Context<'_>,
                buf: &mut Vec<T>,
                limit: usize,
            ) -> Poll<usize> {
                self.chan.poll_recv_many(&mut self.head, cx, buf, limit)
            }

            #[doc = concat!(
                "[`recv_many`](", stringify!($Receiver), "::recv_many) for synchronous ",
                "code: blocks the thread until at least one value arrives or the channel ",
                "closes.\n\n# Panics\n\nPanics on a thread that runs tasks (use ",
                "`recv_many(..).await` there).\n\n",
                "# Examples\n\n```\n",
                "let (tx, mut rx) = rt::sync::mpsc::", $make, ";\n",
                "let producer = std::thread::spawn(move || {\n",
                "    for i in 0..3 { ", $send, "; }\n",
                "});\n",
                "producer.join().unwrap();\n",
                "let mut buf = Vec::new();\n",
                "assert_eq!(rx.blocking_recv_many(&mut buf, 2), 2);\n",
                "assert_eq!(rx.blocking_recv_many(&mut buf, 2), 1);\n",
                "assert_eq!(rx.blocking_recv_many(&mut buf, 2), 0, \"closed and drained\");\n",
                "assert_eq!(buf, [0, 1, 2]);\n```",
            )]
            #[track_caller]
            pub fn blocking_recv_many(&mut self, buf: &mut Vec<T>, limit: usize) -> usize {
                crate::sync::blocking::block_on(
                    concat!("mpsc::", stringify!($Receiver), "::blocking_recv_many"),
                    self.recv_many(buf, limit),
                )
            }
        }
    )*};
}

recv_many_forms! {
    Receiver: "channel(4)", "tx.try_send(i).unwrap()";
    UnboundedReceiver: "unbounded_channel()", "tx.send(i).unwrap()";
}
