//! The in-memory streams' vectored writes take every slice (tokio's
//! duplex_stream.rs `write_vectored`, `write_vectored_and_shutdown`).

mod support;

use std::io::IoSlice;
use tokio::io::{AsyncReadExt, AsyncWrite, AsyncWriteExt};

const HELLO: &[u8] = b"hello world...";

#[test]
fn duplex_write_vectored_writes_all_slices() {
    support::on_both_flavours(|| async {
        for shutdown in [false, true] {
            let (mut client, mut server) = tokio::io::duplex(64);
            assert!(client.is_write_vectored());
            let n = client
                .write_vectored(&[IoSlice::new(HELLO), IoSlice::new(&[]), IoSlice::new(HELLO)])
                .await
                .unwrap();
            assert_eq!(n, HELLO.len() * 2);
            if shutdown {
                client.shutdown().await.unwrap();
            } else {
                client.flush().await.unwrap();
            }
            drop(client);
            let mut buf = Vec::new();
            assert_eq!(server.read_to_end(&mut buf).await.unwrap(), HELLO.len() * 2);
            assert_eq!(buf, [HELLO, HELLO].concat());
        }
    });
}

#[test]
fn duplex_write_vectored_stops_at_a_full_buffer() {
    support::on_both_flavours(|| async {
        // Room for 20 bytes: the first slice fits, the second only partly.
        let (mut client, mut server) = tokio::io::duplex(20);
        let n = client
            .write_vectored(&[IoSlice::new(HELLO), IoSlice::new(HELLO)])
            .await
            .unwrap();
        assert_eq!(n, 20);
        let mut buf = [0; 20];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(buf[..], [HELLO, &HELLO[..6]].concat()[..]);
    });
}

#[test]
fn simplex_write_vectored_writes_all_slices() {
    support::on_both_flavours(|| async {
        let (mut read, mut write) = tokio::io::simplex(64);
        let n = write
            .write_vectored(&[IoSlice::new(b"one "), IoSlice::new(b"two")])
            .await
            .unwrap();
        assert_eq!(n, 7);
        write.shutdown().await.unwrap();
        let mut got = String::new();
        read.read_to_string(&mut got).await.unwrap();
        assert_eq!(got, "one two");
    });
}

/// A vectored write of only empty slices to a stream whose peer is gone
/// fails with `BrokenPipe`, as an empty plain write does (tokio's
/// io_mem_stream.rs `zero_length_writes_to_closed_stream`).
#[test]
fn empty_vectored_write_to_a_closed_stream_fails() {
    support::on_both_flavours(|| async {
        let (mut writer, peer) = tokio::io::duplex(1);
        drop(peer);
        let empty = [IoSlice::new(&[]), IoSlice::new(&[])];
        let err = writer.write_vectored(&empty).await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
        // With the peer there, it writes nothing and succeeds.
        let (mut writer, _peer) = tokio::io::duplex(1);
        assert_eq!(writer.write_vectored(&empty).await.unwrap(), 0);
    });
}
