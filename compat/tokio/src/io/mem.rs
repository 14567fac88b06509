//! `duplex`: two in-memory streams joined to each other, over rt's
//! `DuplexStream`.

use crate::io::forward::{forward_async_read, forward_async_write};

/// One end of an in-memory stream pair, from [`duplex`]. A newtype over
/// rt's `DuplexStream` because tokio's traits differ from the futures-io
/// ones rt's implements. Dropping one end makes the other read end-of-file
/// and fail writes with `BrokenPipe`; shutting one down makes the other
/// read end-of-file.
///
/// # Examples
///
/// ```
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (mut a, mut b) = tokio::io::duplex(64);
/// a.write_all(b"ping").await.unwrap();
/// let mut buf = [0; 4];
/// b.read_exact(&mut buf).await.unwrap();
/// assert_eq!(&buf, b"ping");
/// drop(a);
/// assert_eq!(b.read(&mut buf).await.unwrap(), 0);
/// # });
/// ```
#[derive(Debug)]
pub struct DuplexStream {
    inner: rt::io::DuplexStream,
}

/// Two streams joined to each other: what one writes the other reads. Each
/// direction holds at most `max_buf_size` bytes; a writer waits for room.
///
/// # Panics
///
/// If `max_buf_size` is 0.
///
/// # Examples
///
/// See [`DuplexStream`].
pub fn duplex(max_buf_size: usize) -> (DuplexStream, DuplexStream) {
    let (a, b) = rt::io::duplex(max_buf_size);
    (DuplexStream::from(a), DuplexStream::from(b))
}

impl From<rt::io::DuplexStream> for DuplexStream {
    fn from(inner: rt::io::DuplexStream) -> DuplexStream {
        DuplexStream { inner }
    }
}

impl From<DuplexStream> for rt::io::DuplexStream {
    fn from(stream: DuplexStream) -> rt::io::DuplexStream {
        stream.inner
    }
}

forward_async_read!(DuplexStream, inner);
forward_async_write!(DuplexStream, inner, vectored: false);
