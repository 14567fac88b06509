//! `split`: one reader-writer into two halves, as a free function (as in
//! tokio), so that no by-value `split` method competes with the sockets'
//! inherent, lock-free `split`.

use futures_io::{AsyncRead, AsyncWrite};
use futures_util::io::{ReadHalf, WriteHalf};

/// Splits any reader-writer into a read half and a write half that can be
/// used from different tasks; [`ReadHalf::reunite`] puts them back
/// together.
///
/// The halves share the stream through a lock that each operation takes
/// briefly. For sockets, prefer their own split, which needs no lock:
/// `TcpStream::split` / `into_split`, `UnixStream::split` / `into_split`
/// (and with rt's extension traits in scope, `stream.split()` is that
/// one).
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (a, mut b) = rt::io::duplex(64);
/// let (mut read, mut write) = rt::io::split(a);
/// let writer = rt::spawn(async move { write.write_all(b"from a").await.unwrap() });
/// b.write_all(b"to a").await.unwrap();
/// let mut got = [0; 4];
/// read.read_exact(&mut got).await.unwrap();
/// assert_eq!(&got, b"to a");
/// writer.await.unwrap();
/// let mut got = [0; 6];
/// b.read_exact(&mut got).await.unwrap();
/// assert_eq!(&got, b"from a");
/// # });
/// ```
pub fn split<T: AsyncRead + AsyncWrite>(stream: T) -> (ReadHalf<T>, WriteHalf<T>) {
    futures_util::AsyncReadExt::split(stream)
}
