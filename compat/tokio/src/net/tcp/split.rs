//! The halves of a split [`TcpStream`], with TCP's `peek`.

use super::TcpStream;
use crate::io::ReadBuf;
use std::future::poll_fn;
use std::io;
use std::task::{Context, Poll};

crate::net::halves::stream_halves!(
    TcpStream,
    rt::net::tcp,
    rt::net::TcpStream,
    std::net::SocketAddr
);

/// `peek` and `poll_peek` on a read half, as on the stream.
macro_rules! peek {
    ($($Half:ty),*) => {$(
        impl $Half {
            /// Receives into `buf` without consuming the data, as
            /// [`TcpStream::poll_peek`].
            ///
            /// # Errors
            ///
            /// The OS error of `recv`.
            pub fn poll_peek(
                &mut self,
                cx: &mut Context<'_>,
                buf: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<usize>> {
                let stream: &rt::net::TcpStream = self.inner.as_ref();
                super::stream::poll_peek(stream, cx, buf)
            }

            /// Receives into `buf` without consuming the data, as
            /// `TcpStream::peek`.
            ///
            /// # Errors
            ///
            /// The OS error of `recv`.
            pub async fn peek(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let mut buf = ReadBuf::new(buf);
                poll_fn(|cx| self.poll_peek(cx, &mut buf)).await
            }
        }
    )*};
}

peek!(ReadHalf<'_>, OwnedReadHalf);
