//! tokio's traits on the std types tokio implements them for, and the
//! extension traits' methods over them.

mod support;

use std::io::{Cursor, IoSlice, SeekFrom};
use std::pin::Pin;
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncSeekExt, AsyncWrite, AsyncWriteExt,
};

#[test]
fn slices_and_cursors_read_and_advance() {
    support::block_on(async {
        let mut slice: &[u8] = b"hello";
        let mut buf = [0; 3];
        assert_eq!(slice.read(&mut buf).await.unwrap(), 3);
        assert_eq!(slice, b"lo");

        let mut cursor = Cursor::new(b"hello".to_vec());
        cursor.set_position(1);
        let mut rest = String::new();
        cursor.read_to_string(&mut rest).await.unwrap();
        assert_eq!(rest, "ello");
        // Past the end: end-of-file, not a panic.
        cursor.set_position(100);
        assert_eq!(cursor.read(&mut buf).await.unwrap(), 0);
    });
}

#[test]
fn vec_and_cursor_writers() {
    support::block_on(async {
        let mut vec = Vec::new();
        vec.write_all(b"ab").await.unwrap();
        assert!(vec.is_write_vectored());
        let n = vec
            .write_vectored(&[IoSlice::new(b"c"), IoSlice::new(b"d")])
            .await
            .unwrap();
        assert_eq!((n, vec.as_slice()), (2, &b"abcd"[..]));

        let mut memory = [0u8; 3];
        let mut cursor = Cursor::new(&mut memory[..]);
        cursor.write_all(b"xyz").await.unwrap();
        let err = cursor.write_u8(1).await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::WriteZero);

        let mut owned = Cursor::new(Vec::new());
        owned.write_u32_le(1).await.unwrap();
        assert_eq!(owned.into_inner(), [1, 0, 0, 0]);
        let mut boxed = Cursor::new(vec![0u8; 2].into_boxed_slice());
        boxed.write_all(b"ok").await.unwrap();
        let mut grown = Vec::new();
        Cursor::new(&mut grown).write_all(b"z").await.unwrap();
        assert_eq!(grown, b"z");
    });
}

#[test]
fn box_mut_ref_and_pin_forward() {
    support::block_on(async {
        let mut boxed: Box<dyn AsyncRead + Unpin + Send> = Box::new(&b"box"[..]);
        let mut got = Vec::new();
        boxed.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, b"box");

        let mut inner: &[u8] = b"ref";
        let by_ref = &mut inner;
        let mut buf = [0; 3];
        by_ref.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"ref");

        let mut pinned = Box::pin(Vec::new());
        pinned.write_all(b"pin").await.unwrap();
        assert_eq!(pinned.as_slice(), b"pin");
        let mut out: Pin<Box<dyn AsyncWrite + Send>> = Box::pin(Vec::new());
        out.write_all(b"dyn").await.unwrap();
        out.shutdown().await.unwrap();

        let mut reader: Pin<Box<dyn AsyncBufRead + Send>> = Box::pin(&b"x\ny"[..]);
        let mut line = String::new();
        reader.read_line(&mut line).await.unwrap();
        assert_eq!(line, "x\n");
    });
}

#[test]
fn numbers_round_trip_in_both_byte_orders() {
    support::block_on(async {
        let mut out = Vec::new();
        out.write_u8(1).await.unwrap();
        out.write_i16(-2).await.unwrap();
        out.write_u32_le(3).await.unwrap();
        out.write_i64(-4).await.unwrap();
        out.write_u128_le(5).await.unwrap();
        out.write_f32(1.5).await.unwrap();
        out.write_f64_le(-2.25).await.unwrap();
        assert_eq!(out.len(), 1 + 2 + 4 + 8 + 16 + 4 + 8);
        assert_eq!(&out[1..3], (-2i16).to_be_bytes());

        let mut reader: &[u8] = &out;
        assert_eq!(reader.read_u8().await.unwrap(), 1);
        assert_eq!(reader.read_i16().await.unwrap(), -2);
        assert_eq!(reader.read_u32_le().await.unwrap(), 3);
        assert_eq!(reader.read_i64().await.unwrap(), -4);
        assert_eq!(reader.read_u128_le().await.unwrap(), 5);
        assert_eq!(reader.read_f32().await.unwrap(), 1.5);
        assert_eq!(reader.read_f64_le().await.unwrap(), -2.25);
        let err = reader.read_u16().await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
    });
}

#[test]
fn read_to_string_rejects_invalid_utf8_and_leaves_the_string() {
    support::block_on(async {
        let mut reader: &[u8] = &[b'a', 0xff];
        let mut text = String::from("kept");
        let err = reader.read_to_string(&mut text).await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        assert_eq!(text, "kept");
    });
}

#[test]
fn read_to_end_appends_and_counts() {
    support::block_on(async {
        let data = vec![9u8; 100_000];
        let mut reader: &[u8] = &data;
        let mut got = b"head".to_vec();
        assert_eq!(reader.read_to_end(&mut got).await.unwrap(), 100_000);
        assert_eq!(got.len(), 100_004);
        assert!(got[4..].iter().all(|&b| b == 9));
    });
}

#[test]
fn take_and_chain_limit_and_concatenate() {
    support::block_on(async {
        let mut take = (&b"abcdef"[..]).take(4);
        let mut got = Vec::new();
        take.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, b"abcd");
        assert_eq!(take.limit(), 0);
        take.set_limit(10);
        got.clear();
        take.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, b"ef");

        let mut chain = (&b"ab"[..]).chain(&b"\ncd"[..]);
        let mut line = String::new();
        chain.read_line(&mut line).await.unwrap();
        assert_eq!(line, "ab\n");
    });
}

#[test]
fn seek_ext_on_a_cursor() {
    support::block_on(async {
        let mut cursor = Cursor::new(b"0123456789".to_vec());
        assert_eq!(cursor.seek(SeekFrom::End(-3)).await.unwrap(), 7);
        assert_eq!(cursor.read_u8().await.unwrap(), b'7');
        assert_eq!(cursor.stream_position().await.unwrap(), 8);
        cursor.rewind().await.unwrap();
        assert_eq!(cursor.read_u8().await.unwrap(), b'0');
        let err = cursor.seek(SeekFrom::Current(-5)).await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    });
}

#[cfg(feature = "bytes")]
#[test]
fn read_buf_and_write_buf_over_bytes() {
    use bytes::{Buf, BytesMut};
    support::block_on(async {
        let mut reader: &[u8] = b"hello";
        let mut buf = BytesMut::with_capacity(3);
        assert_eq!(reader.read_buf(&mut buf).await.unwrap(), 3);
        assert_eq!(&buf[..], b"hel");
        // A full buffer reads nothing.
        let mut full = [0u8; 0];
        assert_eq!(reader.read_buf(&mut &mut full[..]).await.unwrap(), 0);

        let mut out = Vec::new();
        let mut src = Buf::chain(&b"ab"[..], &b"cd"[..]);
        out.write_all_buf(&mut src).await.unwrap();
        assert_eq!(out, b"abcd");
        assert!(!src.has_remaining());
        let mut one = &b"xy"[..];
        assert_eq!(out.write_buf(&mut one).await.unwrap(), 2);
    });
}

#[test]
fn fill_buf_and_consume() {
    support::block_on(async {
        let mut reader: &[u8] = b"abc";
        assert_eq!(reader.fill_buf().await.unwrap(), b"abc");
        reader.consume(2);
        assert_eq!(reader.fill_buf().await.unwrap(), b"c");
        let mut until = Vec::new();
        let mut source: &[u8] = b"k=v;rest";
        source.read_until(b';', &mut until).await.unwrap();
        assert_eq!(until, b"k=v;");
    });
}

/// The futures of the extension methods are `Send` in generic code, as
/// tokio's are (an `impl Future` in a trait would not be).
#[test]
fn ext_futures_are_send_in_generic_code() {
    fn assert_send<T: Send>(_: &T) {}
    async fn generic<R: AsyncRead + AsyncWrite + Unpin + Send>(mut io: R) {
        let mut buf = [0; 4];
        let read = io.read(&mut buf);
        assert_send(&read);
        drop(read);
        let write = io.write_all(b"x");
        assert_send(&write);
    }
    let future = generic(tokio::io::empty());
    assert_send(&future);
}
