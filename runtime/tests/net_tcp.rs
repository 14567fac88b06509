//! TCP on both schedulers: echo with many clients, large transfers,
//! half-close, resets, vectored writes, split halves, send_file.

mod support;

use futures_util::StreamExt;
use rt::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use rt::net::{TcpListener, TcpStream};
use std::io::{ErrorKind, IoSlice};
use std::net::Shutdown;
use std::pin::Pin;
use std::time::Duration;
use support::{Checksum, Pattern, on_both, tcp_pair};

/// Accepts connections forever, echoing each on its own task.
async fn echo_server() -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    rt::spawn(async move {
        let mut incoming = listener.incoming();
        while let Some(stream) = incoming.next().await {
            let stream = stream.unwrap();
            rt::spawn(async move {
                let (mut read, mut write) = stream.into_split();
                rt::io::copy(&mut read, &mut write).await.unwrap();
            });
        }
    });
    addr
}

#[test]
fn echo_1000_clients() {
    let limit = support::raise_fd_limit();
    // Two descriptors per connection plus headroom for the harness.
    let clients = 1000.min((limit.saturating_sub(200) / 2) as usize);
    assert!(
        clients >= 100,
        "descriptor limit {limit} too low for this test"
    );
    on_both(|| async move {
        let addr = echo_server().await;
        let tasks: Vec<_> = (0..clients)
            .map(|i| {
                rt::spawn(async move {
                    let mut stream = TcpStream::connect(addr).await.unwrap();
                    stream.set_nodelay(true).unwrap();
                    let mut buf = [0u8; 64];
                    for round in 0..3u8 {
                        let msg = [i as u8 ^ round; 64];
                        stream.write_all(&msg).await.unwrap();
                        stream.read_exact(&mut buf).await.unwrap();
                        assert_eq!(buf, msg);
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
    });
}

#[test]
fn large_transfer_64_mib_with_checksum() {
    const TOTAL: usize = 64 << 20;
    on_both(|| async {
        let addr = echo_server().await;
        let stream = TcpStream::connect(addr).await.unwrap();
        let (mut read, mut write) = stream.into_split();
        let writer = rt::spawn(async move {
            let mut pattern = Pattern::new(42);
            let mut sum = Checksum::new();
            let mut buf = vec![0u8; 64 << 10];
            let mut sent = 0;
            while sent < TOTAL {
                pattern.fill(&mut buf);
                sum.update(&buf);
                write.write_all(&buf).await.unwrap();
                sent += buf.len();
            }
            write.close().await.unwrap();
            sum
        });
        let mut sum = Checksum::new();
        let mut received = 0;
        let mut buf = vec![0u8; 48 << 10];
        loop {
            let n = read.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            sum.update(&buf[..n]);
            received += n;
        }
        assert_eq!(received, TOTAL);
        assert_eq!(sum, writer.await.unwrap());
    });
}

#[test]
fn half_close_keeps_the_other_direction_open() {
    on_both(|| async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = rt::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut request = Vec::new();
            // Reads until the client's half-close.
            stream.read_to_end(&mut request).await.unwrap();
            stream.write_all(b"got: ").await.unwrap();
            stream.write_all(&request).await.unwrap();
            stream.close().await.unwrap();
        });
        let mut client = TcpStream::connect(addr).await.unwrap();
        client.write_all(b"request").await.unwrap();
        client.shutdown_std(Shutdown::Write).unwrap();
        let mut response = Vec::new();
        client.read_to_end(&mut response).await.unwrap();
        assert_eq!(response, b"got: request");
        server.await.unwrap();
    });
}

#[test]
fn reset_by_peer_is_an_error_not_a_hang() {
    on_both(|| async {
        let (client, mut server) = tcp_pair().await;
        let reader = rt::spawn(async move {
            let mut buf = [0u8; 16];
            server.read(&mut buf).await
        });
        // Linger 0: closing sends RST instead of FIN.
        client.set_zero_linger().unwrap();
        assert_eq!(client.linger().unwrap(), Some(Duration::ZERO));
        drop(client);
        let err = reader.await.unwrap().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionReset);
    });
}

#[test]
fn connect_reports_refused() {
    on_both(|| async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        let err = TcpStream::connect(addr).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionRefused);
        let err = TcpStream::connect("not-an-address").await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
    });
}

#[test]
fn host_names_are_resolved_on_the_blocking_pool() {
    on_both(|| async {
        let listener = TcpListener::bind("localhost:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let accept = rt::spawn(async move { listener.accept().await.map(|(_, peer)| peer) });
        let client = TcpStream::connect(format!("localhost:{port}"))
            .await
            .unwrap();
        assert!(client.peer_addr().unwrap().ip().is_loopback());
        assert_eq!(accept.await.unwrap().unwrap(), client.local_addr().unwrap());
    });
}

#[test]
fn vectored_write_writes_many_buffers_at_once_and_everything() {
    on_both(|| async {
        let (mut client, mut server) = tcp_pair().await;

        // Small buffers into an empty socket buffer: one writev takes all.
        let parts: Vec<Vec<u8>> = (0..16u8).map(|i| vec![i; 10 + i as usize]).collect();
        let slices: Vec<IoSlice<'_>> = parts.iter().map(|p| IoSlice::new(p)).collect();
        let n = client.write_vectored(&slices).await.unwrap();
        assert_eq!(n, parts.iter().map(Vec::len).sum::<usize>());
        let mut got = vec![0u8; n];
        server.read_exact(&mut got).await.unwrap();
        assert_eq!(got, parts.concat());

        // 4 MiB in 64 buffers: more than the socket buffer, so writes are
        // partial; looping until done must deliver every byte in order.
        let mut pattern = Pattern::new(7);
        let big: Vec<Vec<u8>> = (0..64)
            .map(|_| {
                let mut b = vec![0u8; 64 << 10];
                pattern.fill(&mut b);
                b
            })
            .collect();
        let expected = big.concat();
        let reader = rt::spawn(async move {
            let mut got = Vec::new();
            server.read_to_end(&mut got).await.unwrap();
            got
        });
        let mut slices: Vec<IoSlice<'_>> = big.iter().map(|b| IoSlice::new(b)).collect();
        let mut slices = &mut slices[..];
        while !slices.is_empty() {
            let n = client.write_vectored(slices).await.unwrap();
            assert!(n > 0);
            IoSlice::advance_slices(&mut slices, n);
        }
        client.close().await.unwrap();
        assert!(reader.await.unwrap() == expected);
    });
}

#[test]
fn vectored_read_fills_many_buffers() {
    on_both(|| async {
        let (mut client, mut server) = tcp_pair().await;
        client.write_all(b"abcdefgh").await.unwrap();
        client.close().await.unwrap();
        let (mut a, mut b) = ([0u8; 3], [0u8; 5]);
        let mut total = 0;
        while total < 8 {
            let mut bufs = [
                std::io::IoSliceMut::new(&mut a[total.min(3)..]),
                std::io::IoSliceMut::new(&mut b[total.saturating_sub(3)..]),
            ];
            let n = server.read_vectored(&mut bufs).await.unwrap();
            assert!(n > 0);
            total += n;
        }
        assert_eq!((&a, &b), (b"abc", b"defgh"));
    });
}

#[test]
fn split_halves_read_and_write_concurrently_without_lost_wakeups() {
    const MESSAGES: usize = 2000;
    on_both(|| async {
        let addr = echo_server().await;
        let stream = TcpStream::connect(addr).await.unwrap();
        let (mut read, mut write) = stream.into_split();
        // The writer and the reader wait on the same socket at once, each
        // on its own side of the registration.
        let writer = rt::spawn(async move {
            for i in 0..MESSAGES {
                write.write_all(&(i as u32).to_le_bytes()).await.unwrap();
                if i % 64 == 0 {
                    rt::task::yield_now().await;
                }
            }
        });
        let reader = rt::spawn(async move {
            let mut buf = [0u8; 4];
            for i in 0..MESSAGES {
                read.read_exact(&mut buf).await.unwrap();
                assert_eq!(u32::from_le_bytes(buf), i as u32);
            }
        });
        writer.await.unwrap();
        reader.await.unwrap();
    });
}

#[test]
fn borrowed_split_in_one_task() {
    on_both(|| async {
        let addr = echo_server().await;
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let (mut read, mut write) = stream.split();
        let data = vec![9u8; 1 << 20];
        let got = support::echo_through_halves!(&mut read, &mut write, &data).await;
        assert!(got == data);
    });
}

#[test]
fn send_file_sends_the_requested_range() {
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("rt-net-sendfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("data");
    let mut content = vec![0u8; 3 << 20];
    Pattern::new(3).fill(&mut content);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(&content)
        .unwrap();
    on_both(|| {
        let path = path.clone();
        let content = content.clone();
        async move {
            let file = std::fs::File::open(&path).unwrap();
            let (client, mut server) = tcp_pair().await;
            let reader = rt::spawn(async move {
                let mut got = Vec::new();
                server.read_to_end(&mut got).await.unwrap();
                got
            });
            // A range bigger than the socket buffer, then a range past EOF.
            let sent = client.send_file(&file, 1000, 2 << 20).await.unwrap();
            assert_eq!(sent, 2 << 20);
            let tail = client
                .send_file(&file, content.len() as u64 - 10, 100)
                .await
                .unwrap();
            assert_eq!(tail, 10);
            client.shutdown_std(Shutdown::Write).unwrap();
            let got = reader.await.unwrap();
            let mut expected = content[1000..1000 + (2 << 20)].to_vec();
            expected.extend_from_slice(&content[content.len() - 10..]);
            assert!(got == expected);
        }
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn peek_does_not_consume() {
    on_both(|| async {
        let (mut client, mut server) = tcp_pair().await;
        client.write_all(b"x").await.unwrap();
        let mut buf = [0u8; 4];
        assert_eq!(server.peek(&mut buf).await.unwrap(), 1);
        assert_eq!(server.read(&mut buf).await.unwrap(), 1);
        assert_eq!(buf[0], b'x');
    });
}

#[test]
fn stream_addresses_and_options() {
    on_both(|| async {
        let listener = TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0))
            .await
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let client = TcpStream::connect(addr).await.unwrap();
        let (server, peer) = listener.accept().await.unwrap();
        assert_eq!(client.peer_addr().unwrap(), addr);
        assert_eq!(server.peer_addr().unwrap(), peer);
        assert_eq!(client.local_addr().unwrap(), peer);
        client.set_nodelay(true).unwrap();
        assert!(client.nodelay().unwrap());
        // std round trip.
        let std = TcpListener::from_std(std::net::TcpListener::bind("127.0.0.1:0").unwrap())
            .unwrap()
            .into_std()
            .unwrap();
        assert!(std.local_addr().is_ok());
    });
}

#[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
#[test]
fn quickack_reads_back_as_set_on_both_ends() {
    on_both(|| async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        // Idle connections: nothing flows that would make the kernel
        // change the mode behind the test's back.
        for stream in [&client, &server] {
            for on in [false, true, false] {
                stream.set_quickack(on).unwrap();
                assert_eq!(stream.quickack().unwrap(), on);
            }
        }
    });
}

#[test]
fn std_sockets_convert_with_try_from_and_carry_bytes() {
    on_both(|| async {
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = std_listener.local_addr().unwrap();
        let listener: TcpListener = std_listener.try_into().unwrap();
        let std_client = std::net::TcpStream::connect(addr).unwrap();
        let mut client = TcpStream::try_from(std_client).unwrap();
        let (mut server, _) = listener.accept().await.unwrap();
        client.write_all(b"converted").await.unwrap();
        let mut buf = [0; 9];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"converted");
    });
}

/// A task blocked reading is woken by the peer going away, and aborting a
/// task that waits on a socket drops the socket and cancels the task.
#[test]
fn waiting_tasks_are_released() {
    on_both(|| async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let (mut read, write) = server.into_split();
        let waiter = rt::spawn(async move { read.read(&mut [0u8; 8]).await });
        drop(client);
        assert_eq!(waiter.await.unwrap().unwrap(), 0);
        drop(write);

        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (mut server, _) = listener.accept().await.unwrap();
        let waiter = rt::spawn(async move { server.read(&mut [0u8; 8]).await });
        rt::task::yield_now().await;
        waiter.abort();
        assert!(waiter.await.unwrap_err().is_cancelled());
        // The server side was dropped with the task: the client sees EOF.
        let mut client = client;
        assert_eq!(client.read(&mut [0u8; 8]).await.unwrap(), 0);
    });
}

/// Tasks still waiting on sockets when the runtime shuts down are
/// cancelled; dropping the runtime does not hang.
#[test]
fn runtime_shutdown_releases_waiting_tasks() {
    for (_, rt) in support::runtimes() {
        let (tx, rx) = std::sync::mpsc::channel();
        rt.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let client = TcpStream::connect(addr).await.unwrap();
            let (server, _) = listener.accept().await.unwrap();
            for mut stream in [client, server] {
                let guard = DropSignal(tx.clone());
                rt::spawn(async move {
                    let _guard = guard;
                    stream.read(&mut [0u8; 8]).await
                });
            }
            rt::spawn(async move { listener.accept().await });
            // Let the tasks start waiting.
            for _ in 0..4 {
                rt::task::yield_now().await;
            }
        });
        drop(tx);
        drop(rt);
        // Both waiting tasks were dropped (their guards signalled).
        assert_eq!(rx.iter().count(), 2);
    }
}

struct DropSignal(std::sync::mpsc::Sender<()>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

/// Every ready read spends budget, so a task that always finds data still
/// lets the other tasks on its thread run.
#[test]
fn ready_reads_consume_the_cooperative_budget() {
    let rt = rt::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
    rt.block_on(async {
        let (mut client, mut server) = tcp_pair().await;
        const LEN: usize = 32 << 10;
        client.write_all(&vec![1u8; LEN]).await.unwrap();
        client.close().await.unwrap();
        let other_ran = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        // Wait until everything is queued in the server's receive buffer.
        let mut peeked = vec![0u8; LEN];
        while server.peek(&mut peeked).await.unwrap() < LEN {
            rt::task::yield_now().await;
        }
        let flag = other_ran.clone();
        let reader = rt::spawn(async move {
            let mut byte = [0u8; 1];
            let mut reads = 0;
            let mut read_before_other = None;
            while server.read(&mut byte).await.unwrap() == 1 {
                reads += 1;
                if read_before_other.is_none() && flag.load(std::sync::atomic::Ordering::SeqCst) {
                    read_before_other = Some(reads);
                }
            }
            (reads, read_before_other)
        });
        let flag = other_ran.clone();
        let other = rt::spawn(async move { flag.store(true, std::sync::atomic::Ordering::SeqCst) });
        let (reads, before) = reader.await.unwrap();
        other.await.unwrap();
        assert_eq!(reads, LEN);
        let before = before.expect("the other task only ran after the reader finished");
        assert!(before < LEN);
    });
}

#[test]
fn async_write_trait_objects_work() {
    // The streams are usable through the futures-io trait objects.
    on_both(|| async {
        let (client, server) = tcp_pair().await;
        let mut w: Pin<Box<dyn AsyncWrite + Send>> = Box::pin(client);
        let mut r: Pin<Box<dyn AsyncRead + Send>> = Box::pin(server);
        w.write_all(b"dyn").await.unwrap();
        let mut buf = [0u8; 3];
        r.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"dyn");
    });
}

/// A task that never stops yielding keeps the scheduler busy (it never
/// parks), yet socket readiness still reaches a waiting task: busy workers
/// poll the driver every `event_interval` ticks.
#[test]
fn io_is_not_starved_by_busy_tasks() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    on_both(|| async {
        let (mut client, mut server) = tcp_pair().await;
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        let reader = rt::spawn(async move {
            let mut buf = [0u8; 4];
            server.read_exact(&mut buf).await.unwrap();
            flag.store(true, Ordering::SeqCst);
            buf
        });
        let flag = done.clone();
        let busy = rt::spawn(async move {
            for _ in 0..1_000_000u32 {
                if flag.load(Ordering::SeqCst) {
                    return true;
                }
                rt::task::yield_now().await;
            }
            false
        });
        client.write_all(b"data").await.unwrap();
        assert!(busy.await.unwrap(), "the reader never saw its data");
        assert_eq!(&reader.await.unwrap(), b"data");
    });
}

/// The most connections `listener`'s accept queue holds (Linux reports
/// it as `tcpi_sacked` of a listening socket's `TCP_INFO`; `ss -l` shows
/// it as the `Send-Q`).
#[cfg(target_os = "linux")]
fn accept_queue_limit(listener: &TcpListener) -> u32 {
    use std::os::fd::AsRawFd;
    // SAFETY: `tcp_info` is plain integers, for which zero is valid.
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: `info` and `len` are valid, exclusively borrowed
    // out-parameters, `len` holding `info`'s size; the descriptor is the
    // listener's, open while it is borrowed.
    let rc = unsafe {
        libc::getsockopt(
            listener.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        )
    };
    assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
    info.tcpi_sacked
}

/// `bind` queues 1024 connections (fewer only if `net.core.somaxconn`
/// says so), as its docs say. mio's `bind` queues 128: a burst of more
/// connects overflowed the queue, and with SYN cookies the clients past it
/// saw their connect succeed while the listener never saw the connection
/// until they sent something.
#[cfg(target_os = "linux")]
#[test]
fn bind_queues_1024_connections() {
    let somaxconn: u32 = std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    if somaxconn <= 128 {
        eprintln!("skipped: net.core.somaxconn is {somaxconn}, no more than mio's 128");
        return;
    }
    on_both(|| async move {
        for addr in ["127.0.0.1:0", "[::1]:0"] {
            let Ok(listener) = TcpListener::bind(addr).await else {
                eprintln!("{addr}: no such interface here");
                continue;
            };
            assert_eq!(accept_queue_limit(&listener), somaxconn.min(1024), "{addr}");
        }
    });
}
