//! `rt::io::copy` and `rt::io::copy_buf`: what they do with a writer that
//! buffers while the reader waits, as tokio's do.

use rt::io::{AsyncReadExt, AsyncWriteExt, BufReader, BufWriter};
use std::time::Duration;

/// How long a paused-clock test waits for bytes that, if the copy works,
/// arrive with no time passing at all: a deadlock fires the timeout at
/// once (the clock jumps when every task is idle), a passing run never
/// sees it.
const HANG: Duration = Duration::from_secs(3600);

/// Requests through `copy` into a `BufWriter`: the copy flushes the
/// writer while its reader waits for more, so each request reaches the
/// server before the client sends the next (which, in a request-reply
/// protocol, waits for the reply).
#[rt::test(start_paused = true)]
async fn copy_flushes_a_buffering_writer_while_the_reader_waits() {
    let (mut client, mut proxy_in) = rt::io::duplex(64);
    let (proxy_out, mut server) = rt::io::duplex(64);
    let proxy = rt::spawn(async move {
        let mut out = BufWriter::new(proxy_out);
        rt::io::copy(&mut proxy_in, &mut out).await
    });
    for request in [b"ping", b"more"] {
        client.write_all(request).await.unwrap();
        let mut got = [0; 4];
        rt::time::timeout(HANG, server.read_exact(&mut got))
            .await
            .expect("the bytes stayed in the BufWriter while copy waited for its reader")
            .unwrap();
        assert_eq!(&got, request);
    }
    drop(client);
    assert_eq!(proxy.await.unwrap().unwrap(), 8);
}

/// `copy_buf` likewise flushes while its buffered reader waits.
#[rt::test(start_paused = true)]
async fn copy_buf_flushes_a_buffering_writer_while_the_reader_waits() {
    let (mut client, proxy_in) = rt::io::duplex(64);
    let (proxy_out, mut server) = rt::io::duplex(64);
    let proxy = rt::spawn(async move {
        let mut out = BufWriter::new(proxy_out);
        rt::io::copy_buf(BufReader::new(proxy_in), &mut out).await
    });
    client.write_all(b"ping").await.unwrap();
    let mut got = [0; 4];
    rt::time::timeout(HANG, server.read_exact(&mut got))
        .await
        .expect("the bytes stayed in the BufWriter while copy_buf waited for its reader")
        .unwrap();
    assert_eq!(&got, b"ping");
    drop(client);
    assert_eq!(proxy.await.unwrap().unwrap(), 4);
}
