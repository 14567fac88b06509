//! Invalid UTF-8 in `read_line`, `read_to_string` and `lines`: what the
//! error holds and what the string keeps (tokio's io_read_line.rs,
//! io_read_to_string.rs and io_lines.rs).

mod support;

use std::io::{self, ErrorKind};
use std::str::Utf8Error;
use std::string::FromUtf8Error;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

/// A reader that hands out `chunks` one per read, then fails.
fn chunks_then_error(chunks: &[&'static [u8]]) -> impl tokio::io::AsyncRead + Unpin + Send {
    let mut chunks: std::collections::VecDeque<&'static [u8]> = chunks.iter().copied().collect();
    Reader(
        move |buf: &mut tokio::io::ReadBuf<'_>| match chunks.pop_front() {
            Some(chunk) => {
                buf.put_slice(chunk);
                Ok(())
            }
            None => Err(io::Error::other("The world has no end")),
        },
    )
}

struct Reader<F>(F);

impl<F: FnMut(&mut tokio::io::ReadBuf<'_>) -> io::Result<()> + Unpin> tokio::io::AsyncRead
    for Reader<F>
{
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::task::Poll::Ready((self.0)(buf))
    }
}

#[test]
fn read_line_invalid_utf8_keeps_the_string_and_counts_its_prefix() {
    support::on_both_flavours(|| async {
        let mut read = BufReader::new(&b"Hello Wor\xffld.\n"[..]);
        let mut line = "Foo".to_string();
        let err = read.read_line(&mut line).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidData);
        let utf8 = err.into_inner().unwrap().downcast::<Utf8Error>().unwrap();
        assert_eq!(utf8.valid_up_to(), 12);
        assert_eq!(line, "Foo");
    });
}

#[test]
fn read_line_reader_error_keeps_the_utf8_read_before_it() {
    support::on_both_flavours(|| async {
        let mut read = BufReader::new(chunks_then_error(&[b"Hello Wor"]));
        let mut line = "Foo".to_string();
        let err = read.read_line(&mut line).await.unwrap_err();
        assert_eq!(err.to_string(), "The world has no end");
        assert_eq!(line, "FooHello Wor");

        // Not UTF-8 before the error: nothing is kept.
        let mut read = BufReader::new(chunks_then_error(&[b"Hello Wor", b"\xff\xff\xff"]));
        let mut line = "Foo".to_string();
        let err = read.read_line(&mut line).await.unwrap_err();
        assert_eq!(err.to_string(), "The world has no end");
        assert_eq!(line, "Foo");
    });
}

#[test]
fn read_to_string_invalid_utf8_keeps_the_string() {
    support::on_both_flavours(|| async {
        let mut s = "abc".to_string();
        let err = (&[0xff, 0xff, 0xff][..])
            .read_to_string(&mut s)
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidData);
        let utf8 = err.into_inner().unwrap().downcast::<Utf8Error>().unwrap();
        assert_eq!(utf8.valid_up_to(), 3);
        assert_eq!(s, "abc");
    });
}

#[test]
fn lines_invalid_utf8_line_errors_once_and_advances() {
    support::on_both_flavours(|| async {
        let mut lines = (&b"ok\n\xff\xfe\nnext\n"[..]).lines();
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("ok"));
        let err = lines.next_line().await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidData);
        let utf8 = err
            .into_inner()
            .unwrap()
            .downcast::<FromUtf8Error>()
            .unwrap();
        assert_eq!(utf8.into_bytes(), b"\xff\xfe");
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("next"));
        assert_eq!(lines.next_line().await.unwrap(), None);
    });
}
