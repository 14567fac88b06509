//! Checks shared by the TCP and Unix-domain stream tests. They are macros:
//! `TcpStream`, `UnixStream` and their halves are different types with the
//! same methods, and no trait the tests could be generic over. Each
//! expands to an `async` block.

/// Writes to `stream` until a write would block: the next write readiness
/// needs the peer to read.
#[allow(unused_macros)]
macro_rules! fill_send_buffer {
    ($stream:expr) => {
        async {
            let stream = $stream;
            let chunk = vec![0u8; 256 * 1024];
            loop {
                stream.writable().await.unwrap();
                match stream.try_write(&chunk) {
                    Ok(_) => {}
                    Err(e) if e.kind() == ::std::io::ErrorKind::WouldBlock => break,
                    Err(e) => panic!("{e}"),
                }
            }
        }
    };
}

/// Writes `data` through the write half `write` and closes it while
/// reading through `read` until end-of-file, both in one task (the peer
/// echoes: more than the socket buffers hold would block a write alone).
/// Returns the bytes read.
#[allow(unused_macros)]
macro_rules! echo_through_halves {
    ($read:expr, $write:expr, $data:expr) => {
        async {
            use rt::io::{AsyncReadExt as _, AsyncWriteExt as _};
            let (read, write, data) = ($read, $write, $data);
            let send = async {
                write.write_all(data).await.unwrap();
                write.close().await.unwrap();
            };
            let recv = async {
                let mut got = Vec::new();
                read.read_to_end(&mut got).await.unwrap();
                got
            };
            let ((), got) = futures_util::future::join(send, recv).await;
            got
        }
    };
}

/// `ready(READABLE | WRITABLE)` on `stream` (an `Arc` of a connected
/// stream), whose peer is `peer`, says which side is ready: writable at
/// first; once the send buffer is full, a task waiting for either side is
/// woken by the peer's one byte and sees only readability, while a writer
/// keeps waiting until the peer reads.
#[allow(unused_macros)]
macro_rules! check_ready_for_either_side {
    ($stream:expr, $peer:expr) => {
        async {
            use rt::io::{AsyncReadExt as _, AsyncWriteExt as _, Interest};
            let (stream, mut peer) = ($stream, $peer);
            let ready = stream
                .ready(Interest::READABLE | Interest::WRITABLE)
                .await
                .unwrap();
            assert!(ready.is_writable() && !ready.is_readable(), "{ready:?}");
            crate::support::fill_send_buffer!(&*stream).await;
            let waiter = crate::support::spawn_all_waiting(vec![{
                let stream = stream.clone();
                async move {
                    stream
                        .ready(Interest::READABLE | Interest::WRITABLE)
                        .await
                        .unwrap()
                }
            }])
            .await
            .pop()
            .unwrap();
            peer.write_all(b"x").await.unwrap();
            let ready = waiter.await.unwrap();
            assert!(ready.is_readable(), "{ready:?}");
            assert!(!ready.is_writable(), "the send buffer is full: {ready:?}");
            // A writer keeps waiting while only readability is reported.
            let mut write = Box::pin(stream.ready(Interest::WRITABLE));
            assert!(crate::support::poll_once(&mut write).is_pending());
            drop(write);
            // Read the byte, or a TCP close would reset the connection.
            assert_eq!(stream.try_read(&mut [0; 4]).unwrap(), 1);
            // The peer reads, and room comes back.
            let drain = rt::spawn(async move {
                let mut sink = vec![0u8; 1 << 20];
                while peer.read(&mut sink).await.unwrap() > 0 {}
            });
            assert!(
                stream
                    .ready(Interest::WRITABLE)
                    .await
                    .unwrap()
                    .is_writable()
            );
            drop(stream);
            drain.await.unwrap();
        }
    };
}

/// The owned halves `read` (an `Arc`) and `write` of a stream whose peer
/// is `peer` wait and try on their own side: the write half writes at
/// once, a task waiting on the read half is woken by the peer's write;
/// then the checks of [`check_split_halves`].
#[allow(unused_macros)]
macro_rules! check_owned_halves {
    ($read:expr, $write:expr, $peer:expr) => {
        async {
            use rt::io::{AsyncReadExt as _, AsyncWriteExt as _, Interest};
            let (read, write, peer) = ($read, $write, $peer);
            assert!(write.ready(Interest::WRITABLE).await.unwrap().is_writable());
            write.writable().await.unwrap();
            assert_eq!(write.try_write(b"up").unwrap(), 2);
            let reader = crate::support::spawn_all_waiting(vec![{
                let read = read.clone();
                async move {
                    assert!(read.ready(Interest::READABLE).await.unwrap().is_readable());
                    read.readable().await.unwrap();
                    let mut buf = [0u8; 8];
                    let n = read.try_read(&mut buf).unwrap();
                    buf[..n].to_vec()
                }
            }])
            .await
            .pop()
            .unwrap();
            peer.write_all(b"down").await.unwrap();
            assert_eq!(reader.await.unwrap(), b"down");
            let mut got = [0u8; 2];
            peer.read_exact(&mut got).await.unwrap();
            assert_eq!(&got, b"up");
            assert_eq!(
                read.try_read(&mut [0; 4]).unwrap_err().kind(),
                ::std::io::ErrorKind::WouldBlock
            );
            crate::support::check_split_halves!(&*read, &write, peer).await;
        }
    };
}

/// A forgotten write half of `stream` leaves the write side open: its
/// `std` peer `peer` sees no end-of-file until the read half drops.
#[allow(unused_macros)]
macro_rules! check_forgotten_write_half {
    ($stream:expr, $peer:expr) => {
        async {
            use ::std::io::Read as _;
            let (stream, mut peer) = ($stream, $peer);
            let (read, write) = stream.into_split();
            write.forget();
            peer.set_nonblocking(true).unwrap();
            let err = peer.read(&mut [0; 1]).unwrap_err();
            assert_eq!(
                err.kind(),
                ::std::io::ErrorKind::WouldBlock,
                "no end-of-file yet"
            );
            // Dropping the read half closes the socket: now the peer sees it.
            drop(read);
            peer.set_nonblocking(false).unwrap();
            assert_eq!(peer.read(&mut [0; 1]).unwrap(), 0);
        }
    };
}

/// Checks the halves of a split stream against `peer`, the stream's other
/// end; TCP or Unix-domain, borrowed or owned halves (a macro: they are
/// different types with the same methods). The write half writes at once,
/// plain and vectored, then waits while the peer does not read and is
/// woken when it does; the read half would block, then waits, is woken by
/// the peer's write and reads, plain and vectored. Expands to an `async`
/// block.
#[allow(unused_macros)]
macro_rules! check_split_halves {
    ($read:expr, $write:expr, $peer:expr) => {
        async {
            use rt::io::{AsyncReadExt as _, AsyncWriteExt as _, Interest};
            use std::io::{ErrorKind, IoSlice, IoSliceMut};
            let (read, write, peer) = ($read, $write, $peer);

            assert!(
                write
                    .ready(Interest::WRITABLE)
                    .await
                    .expect("write.ready")
                    .is_writable()
            );
            write.writable().await.expect("write.writable");
            assert_eq!(write.try_write(b"up").expect("write.try_write"), 2);
            let vectored = [IoSlice::new(b"-"), IoSlice::new(b"v")];
            assert_eq!(
                write
                    .try_write_vectored(&vectored)
                    .expect("write.try_write_vectored"),
                2
            );
            let mut got = [0u8; 4];
            peer.read_exact(&mut got).await.unwrap();
            assert_eq!(&got, b"up-v");
            crate::support::fill_send_buffer!(write).await;
            let mut writable = Box::pin(write.writable());
            let pending = crate::support::poll_once(&mut writable).is_pending();
            assert!(pending, "the buffer is full");
            let mut sink = vec![0u8; 256 * 1024];
            rt::select! {
                done = &mut writable => done.unwrap(),
                _ = async { loop { assert_ne!(peer.read(&mut sink).await.unwrap(), 0) } } => {}
            }

            let mut buf = [0u8; 8];
            let err = read.try_read(&mut buf).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);
            let mut readable = Box::pin(read.readable());
            let mut ready = Box::pin(read.ready(Interest::READABLE));
            assert!(crate::support::poll_once(&mut readable).is_pending());
            assert!(crate::support::poll_once(&mut ready).is_pending());
            peer.write_all(b"down").await.unwrap();
            readable.await.unwrap();
            assert!(ready.await.unwrap().is_readable());
            let n = read
                .try_read(&mut buf)
                .expect("read.try_read once readable");
            assert_eq!(&buf[..n], b"down");
            // Readiness left from the last read may be stale, and Nagle's
            // algorithm may hold the bytes back until that read is
            // acknowledged: wait again on `WouldBlock`, as users do.
            peer.write_all(b"ab-cd").await.unwrap();
            let mut got: Vec<u8> = Vec::new();
            while got.len() < 5 {
                read.readable().await.expect("read.readable");
                let (mut head, mut tail) = ([0u8; 2], [0u8; 8]);
                let mut bufs = [IoSliceMut::new(&mut head), IoSliceMut::new(&mut tail)];
                match read.try_read_vectored(&mut bufs) {
                    Ok(n) => {
                        assert_ne!(n, 0, "end-of-file after {got:?}");
                        got.extend(head.iter().chain(&tail).take(n));
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    Err(e) => panic!("read.try_read_vectored: {e}"),
                }
            }
            assert_eq!(got, b"ab-cd");
            let err = read.try_read(&mut buf).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);
        }
    };
}

/// tokio's `tcp_stream::try_read_write` and `uds_stream::try_read_write`:
/// `readable()` is woken by the peer's
/// write; `writable()` stays ready at once while `try_write` fills the
/// send buffer with `$data` (far past the cooperative budget, which the
/// readiness futures do not spend), then waits once it is full; the
/// server drains it with `readable()` and `try_read`, scalar then
/// vectored (writes in `$chunk`-byte slices); and the client's drop shows
/// as read-closed readiness.
#[allow(unused_macros)]
macro_rules! check_try_read_write {
    ($client:expr, $server:expr, $data:expr, $chunk:expr) => {
        async {
            use futures::FutureExt as _;
            use std::io::{ErrorKind, IoSlice, IoSliceMut};
            let (client, server) = ($client, $server);
            let data: &[u8] = $data;
            let mut written = data.to_vec();

            // Nothing to read yet: an accepted socket, assumed readable,
            // finds that out here and clears the assumption (once more if
            // the reactor dispatched a write event between the read and
            // its clear, which keeps the readiness).
            let err = server.try_read(&mut [0; 1]).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);
            while server.readable().now_or_never().is_some() {
                let err = server.try_read(&mut [0; 1]).unwrap_err();
                assert_eq!(err.kind(), ErrorKind::WouldBlock);
            }

            // The server's `readable()` waits, and the client's write
            // wakes it.
            let counter = crate::support::WakeCounter::new();
            let mut readable = Box::pin(server.readable());
            std::future::poll_fn(|cx| {
                assert!(counter.poll_with(readable.as_mut(), cx).is_pending());
                std::task::Poll::Ready(())
            })
            .await;
            client.writable().await.unwrap();
            assert_eq!(client.try_write(data).unwrap(), data.len());
            while counter.wakes() == 0 {
                rt::task::yield_now().await;
            }
            drop(readable);

            // Fill the send buffer with scalar writes: `writable()` is
            // ready at once every time until a write would block.
            loop {
                assert!(client.writable().now_or_never().is_some(), "still writable");
                match client.try_write(data) {
                    Ok(n) => written.extend(&data[..n]),
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) => panic!("{e}"),
                }
            }
            assert!(
                client.writable().now_or_never().is_none(),
                "the buffer is full"
            );
            let mut read = vec![0; written.len()];
            let mut i = 0;
            while i < read.len() {
                server.readable().await.unwrap();
                match server.try_read(&mut read[i..]) {
                    Ok(n) => i += n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                    Err(e) => panic!("{e}"),
                }
            }
            assert!(read == written, "the scalar bytes arrived in order");

            // Again with vectored writes and reads.
            written.clear();
            client.writable().await.unwrap();
            let slices: Vec<_> = data.chunks($chunk).map(IoSlice::new).collect();
            loop {
                assert!(client.writable().now_or_never().is_some(), "still writable");
                match client.try_write_vectored(&slices) {
                    Ok(n) => written.extend(&data[..n]),
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) => panic!("{e}"),
                }
            }
            assert!(
                client.writable().now_or_never().is_none(),
                "the buffer is full"
            );
            let mut read = vec![0; written.len()];
            let mut i = 0;
            while i < read.len() {
                server.readable().await.unwrap();
                let mut bufs: Vec<_> = read[i..].chunks_mut(0x10000).map(IoSliceMut::new).collect();
                match server.try_read_vectored(&mut bufs) {
                    Ok(n) => i += n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                    Err(e) => panic!("{e}"),
                }
            }
            assert!(read == written, "the vectored bytes arrived in order");

            // The client's drop is read-closed readiness.
            drop(client);
            loop {
                let ready = server.ready(rt::io::Interest::READABLE).await.unwrap();
                if ready.is_read_closed() {
                    break;
                }
                rt::task::yield_now().await;
            }
        }
    };
}

/// tokio's `tcp_stream::poll_read_ready` and `uds_stream::poll_read_ready`
/// on an accepted `$server` and its peer `$client`: assumed readable at
/// the first poll (no event needed), not readable once a read found
/// nothing; readable when the peer writes, still readable after a read
/// that filled its buffer, not after reading until `WouldBlock`; readable
/// when the peer leaves. Run it on a single poller (`on_single_poller`),
/// where no event lands between a read and the check after it.
#[allow(unused_macros)]
macro_rules! check_poll_read_ready {
    ($client:expr, $server:expr) => {
        async {
            use futures::FutureExt as _;
            use rt::io::{AsyncReadExt as _, AsyncWriteExt as _};
            use std::future::poll_fn;
            let (mut client, mut server) = ($client, $server);
            let mut big = vec![0u8; 1024 * 1024];
            macro_rules! read_until_would_block {
                () => {
                    loop {
                        match server.try_read(&mut big) {
                            Ok(_) => {}
                            Err(e) => {
                                assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock);
                                break;
                            }
                        }
                    }
                };
            }
            macro_rules! assert_not_readable {
                () => {
                    poll_fn(|cx| {
                        assert!(server.poll_read_ready(cx).is_pending(), "readable");
                        std::task::Poll::Ready(())
                    })
                    .await
                };
            }

            // Accepted: readable at the first poll, before any event.
            let first = poll_fn(|cx| server.poll_read_ready(cx)).now_or_never();
            assert!(
                matches!(first, Some(Ok(()))),
                "an accepted stream is assumed readable: {first:?}"
            );
            read_until_would_block!();
            assert_not_readable!();

            // Bytes in the buffer: readable.
            client.write_all(b"ping").await.unwrap();
            poll_fn(|cx| server.poll_read_ready(cx)).await.unwrap();

            // Readable until a read leaves room or would block.
            let mut buf = [0u8; 4];
            server.read_exact(&mut buf).await.unwrap();
            poll_fn(|cx| server.poll_read_ready(cx)).await.unwrap();
            read_until_would_block!();
            assert_not_readable!();

            // The peer's departure is readable.
            drop(client);
            poll_fn(|cx| server.poll_read_ready(cx)).await.unwrap();
        }
    };
}

#[allow(unused_imports)]
pub(crate) use {
    check_forgotten_write_half, check_owned_halves, check_poll_read_ready,
    check_ready_for_either_side, check_split_halves, check_try_read_write, echo_through_halves,
    fill_send_buffer,
};
