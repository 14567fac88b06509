//! The I/O utilities: the extension traits and their futures, the buffered
//! wrappers, copying, and the readers and writers with nothing behind
//! them.

/// `ready!(poll)?` inside a loop that retries an interrupted operation:
/// an `ErrorKind::Interrupted` error `continue`s the enclosing loop (polls
/// again), as tokio's utilities do; any other error is returned.
macro_rules! ready_retry {
    ($poll:expr) => {
        match std::task::ready!($poll) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => other?,
        }
    };
}

mod buf_read_ext;
mod buf_reader;
mod buf_stream;
mod buf_writer;
mod chain_take;
mod copy;
mod empty;
mod lines;
mod read_ext;
pub(crate) mod read_futures;
mod seek_ext;
mod write_ext;
mod write_futures;

pub use buf_read_ext::AsyncBufReadExt;
pub use buf_reader::BufReader;
pub use buf_stream::BufStream;
pub use buf_writer::BufWriter;
pub use chain_take::{Chain, Take};
pub use copy::{copy, copy_bidirectional, copy_bidirectional_with_sizes, copy_buf};
pub use empty::{Empty, Repeat, Sink, empty, repeat, sink};
pub use lines::{Lines, Split};
pub use read_ext::AsyncReadExt;
pub use seek_ext::AsyncSeekExt;
pub use write_ext::AsyncWriteExt;
