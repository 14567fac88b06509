//! `rt::io::copy_bidirectional`, `rt::io::duplex`, `BufStream`, `join` and
//! the standard streams.

mod support;

use rt::io::{
    AsyncRead, AsyncReadExt, AsyncSeekExt, AsyncWrite, AsyncWriteExt, DuplexStream, SeekFrom,
};
use rt::net::{TcpListener, TcpStream};
use std::io::{ErrorKind, IoSlice};
use std::pin::Pin;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use support::{Checksum, Pattern, block_on_each, waker_with_drop_hook};

/// A proxy on `127.0.0.1`: accepts one connection, connects to `upstream`
/// and copies both ways; the task's output is the byte counts.
async fn proxy_once(
    upstream: std::net::SocketAddr,
) -> (std::net::SocketAddr, rt::task::JoinHandle<(u64, u64)>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = rt::spawn(async move {
        let (mut inbound, _) = listener.accept().await.unwrap();
        let mut outbound = TcpStream::connect(upstream).await.unwrap();
        rt::io::copy_bidirectional(&mut inbound, &mut outbound)
            .await
            .unwrap()
    });
    (addr, task)
}

/// Writes `len` pattern bytes, then shuts the write side down.
async fn send_pattern<W: AsyncWrite + Unpin>(writer: &mut W, seed: u64, len: usize) -> Checksum {
    let mut pattern = Pattern::new(seed);
    let mut checksum = Checksum::new();
    let mut chunk = vec![0; 64 * 1024];
    let mut left = len;
    while left > 0 {
        let n = left.min(chunk.len());
        pattern.fill(&mut chunk[..n]);
        checksum.update(&chunk[..n]);
        writer.write_all(&chunk[..n]).await.unwrap();
        left -= n;
    }
    writer.shutdown().await.unwrap();
    checksum
}

/// Reads to end-of-file: how many bytes, and their checksum.
async fn receive_all<R: AsyncRead + Unpin>(reader: &mut R) -> (usize, Checksum) {
    let mut checksum = Checksum::new();
    let mut buf = vec![0; 50_000];
    let mut total = 0;
    loop {
        let n = reader.read(&mut buf).await.unwrap();
        if n == 0 {
            return (total, checksum);
        }
        checksum.update(&buf[..n]);
        total += n;
    }
}

/// Megabytes both ways at once through a TCP proxy: every byte arrives,
/// in order, and the counts are right.
#[test]
fn copy_bidirectional_proxies_both_ways_at_once() {
    block_on_each(|_| async {
        let server = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let (proxy_addr, proxy) = proxy_once(server.local_addr().unwrap()).await;
        let client = TcpStream::connect(proxy_addr).await.unwrap();
        let (upstream, _) = server.accept().await.unwrap();

        const UP: usize = 3_000_017;
        const DOWN: usize = 2_000_003;
        let (mut client_read, mut client_write) = client.into_split();
        let (mut server_read, mut server_write) = upstream.into_split();
        let up_sent = rt::spawn(async move { send_pattern(&mut client_write, 1, UP).await });
        let down_sent = rt::spawn(async move { send_pattern(&mut server_write, 2, DOWN).await });
        let up_got = rt::spawn(async move { receive_all(&mut server_read).await });
        let (down_len, down_sum) = receive_all(&mut client_read).await;
        let (up_len, up_sum) = up_got.await.unwrap();
        assert_eq!((up_len, down_len), (UP, DOWN));
        assert!(up_sum == up_sent.await.unwrap());
        assert!(down_sum == down_sent.await.unwrap());
        assert_eq!(proxy.await.unwrap(), (UP as u64, DOWN as u64));
    });
}

/// The client half-closes: the server sees end-of-file through the proxy,
/// and its reply still flows back afterwards.
#[test]
fn copy_bidirectional_passes_half_closes_through() {
    block_on_each(|_| async {
        let server = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let (proxy_addr, proxy) = proxy_once(server.local_addr().unwrap()).await;
        let mut client = TcpStream::connect(proxy_addr).await.unwrap();
        let (mut upstream, _) = server.accept().await.unwrap();

        client.write_all(b"question").await.unwrap();
        client.shutdown().await.unwrap();
        let mut question = Vec::new();
        upstream.read_to_end(&mut question).await.unwrap();
        assert_eq!(question, b"question");
        // The other direction is still open, both at the proxy and here.
        for part in [&b"long "[..], b"answer"] {
            upstream.write_all(part).await.unwrap();
            rt::task::yield_now().await;
        }
        upstream.shutdown().await.unwrap();
        let mut answer = String::new();
        client.read_to_string(&mut answer).await.unwrap();
        assert_eq!(answer, "long answer");
        assert_eq!(proxy.await.unwrap(), (8, 11));
    });
}

/// Small pipes and small buffers: reads and writes are `Pending` at every
/// turn (the copy reads ahead while its writer is full), and the bytes
/// still all arrive in order.
#[test]
fn copy_bidirectional_through_narrow_pipes() {
    block_on_each(|_| async {
        let (mut a, a_peer) = rt::io::duplex(7);
        let (mut b, b_peer) = rt::io::duplex(13);
        let copy = rt::spawn(async move {
            rt::io::copy_bidirectional_with_sizes(&mut a, &mut b, 100, 3)
                .await
                .unwrap()
        });
        let (mut a_read, mut a_write) = rt::io::split(a_peer);
        let (mut b_read, mut b_write) = rt::io::split(b_peer);
        let a_sent = rt::spawn(async move { send_pattern(&mut a_write, 3, 100_001).await });
        let b_sent = rt::spawn(async move { send_pattern(&mut b_write, 4, 50_003).await });
        let at_b = rt::spawn(async move { receive_all(&mut b_read).await });
        let (at_a_len, at_a_sum) = receive_all(&mut a_read).await;
        let (at_b_len, at_b_sum) = at_b.await.unwrap();
        assert_eq!((at_b_len, at_a_len), (100_001, 50_003));
        assert!(at_b_sum == a_sent.await.unwrap());
        assert!(at_a_sum == b_sent.await.unwrap());
        assert_eq!(copy.await.unwrap(), (100_001, 50_003));
    });
}

/// A side that goes away mid-copy is an error, not a hang.
#[test]
fn copy_bidirectional_reports_a_broken_side() {
    block_on_each(|_| async {
        let (mut a, mut a_peer) = rt::io::duplex(64);
        let (mut b, b_peer) = rt::io::duplex(64);
        drop(b_peer);
        a_peer.write_all(b"nobody will read this").await.unwrap();
        let err = rt::io::copy_bidirectional(&mut a, &mut b)
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BrokenPipe);
    });
}

#[test]
fn duplex_writes_at_most_the_buffer_and_resumes_when_read() {
    block_on_each(|_| async {
        let (mut a, mut b) = rt::io::duplex(4);
        assert_eq!(a.write(b"0123456789").await.unwrap(), 4);
        let writer = rt::spawn(async move {
            a.write_all(b"456789").await.unwrap();
            a
        });
        let mut got = Vec::new();
        let mut buf = [0; 3];
        while got.len() < 10 {
            let n = b.read(&mut buf).await.unwrap();
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, b"0123456789");
        let mut a = writer.await.unwrap();
        // And the other direction.
        b.write_all(b"ok").await.unwrap();
        let mut reply = [0; 2];
        a.read_exact(&mut reply).await.unwrap();
        assert_eq!(&reply, b"ok");
    });
}

#[test]
fn duplex_shutdown_and_drop() {
    block_on_each(|_| async {
        let (mut a, mut b) = rt::io::duplex(16);
        a.write_all(b"last").await.unwrap();
        a.shutdown().await.unwrap();
        let mut got = Vec::new();
        b.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, b"last");
        let err = a.write_all(b"more").await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BrokenPipe);
        // `b` can still write to `a` after `a` shut its own side down.
        b.write_all(b"back").await.unwrap();
        drop(b);
        let mut got = Vec::new();
        a.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, b"back");

        // A reader waiting on an empty pipe is woken by the peer's drop.
        let (mut c, d) = rt::io::duplex(16);
        let reader = rt::spawn(async move { c.read(&mut [0; 4]).await.unwrap() });
        rt::task::yield_now().await;
        drop(d);
        assert_eq!(reader.await.unwrap(), 0);

        // A writer waiting on a full pipe is woken by the peer's drop, and
        // fails.
        let (mut e, f) = rt::io::duplex(2);
        let writer = rt::spawn(async move { e.write_all(b"too long").await });
        rt::task::yield_now().await;
        drop(f);
        assert_eq!(
            writer.await.unwrap().unwrap_err().kind(),
            ErrorKind::BrokenPipe
        );
    });
}

/// Replacing a stored waker drops the old one after the pipe's lock is
/// released: that waker's drop may use the same pipe (here: a write from
/// the other end into the pipe the reader waits on) without deadlocking.
#[test]
fn duplex_drops_replaced_wakers_outside_its_lock() {
    let (mut reader, writer) = rt::io::duplex(8);
    let writer = Arc::new(Mutex::new(writer));
    let wrote = Arc::new(AtomicBool::new(false));
    let hook = {
        let (writer, wrote) = (writer.clone(), wrote.clone());
        move || {
            let mut writer = writer.lock().unwrap();
            let mut cx = Context::from_waker(Waker::noop());
            let written = Pin::new(&mut *writer).poll_write(&mut cx, b"x");
            assert!(matches!(written, Poll::Ready(Ok(1))));
            wrote.store(true, Ordering::SeqCst);
        }
    };
    let first = waker_with_drop_hook(hook);
    let mut buf = [0; 1];
    let polled = Pin::new(&mut reader).poll_read(&mut Context::from_waker(&first), &mut buf);
    assert!(polled.is_pending());
    drop(first);
    // A different waker replaces the stored one, which is then dropped.
    let polled = Pin::new(&mut reader).poll_read(&mut Context::from_waker(Waker::noop()), &mut buf);
    assert!(polled.is_pending());
    assert!(
        wrote.load(Ordering::SeqCst),
        "the replaced waker was dropped"
    );
    let polled = Pin::new(&mut reader).poll_read(&mut Context::from_waker(Waker::noop()), &mut buf);
    assert!(matches!(polled, Poll::Ready(Ok(1))));
}

/// A loop of reads that are always ready spends the task's budget and
/// lets another task run.
#[test]
fn duplex_reads_spend_the_budget() {
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let (mut a, mut b): (DuplexStream, DuplexStream) = rt::io::duplex(10_000);
        a.write_all(&[7; 10_000]).await.unwrap();
        let ran = Arc::new(AtomicBool::new(false));
        let other = rt::spawn({
            let ran = ran.clone();
            async move { ran.store(true, Ordering::SeqCst) }
        });
        let mut reads = 0;
        while !ran.load(Ordering::SeqCst) {
            assert!(reads < 10_000, "the other task never ran");
            b.read_exact(&mut [0]).await.unwrap();
            reads += 1;
        }
        other.await.unwrap();
    });
}

/// `empty`, `repeat` and `sink` are always ready, so each poll spends a
/// unit of the task's budget, as in tokio: a loop over one yields and
/// lets another task run (tokio's `timeout_is_not_exhausted_by_future`
/// loops over `empty()` reads inside a `timeout`, which never fired when
/// the loop never yielded).
#[test]
fn empty_repeat_and_sink_spend_the_budget() {
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        for utility in ["empty", "repeat", "sink"] {
            let ran = Arc::new(AtomicBool::new(false));
            let other = rt::spawn({
                let ran = ran.clone();
                async move { ran.store(true, Ordering::SeqCst) }
            });
            let (mut empty, mut repeat, mut sink) =
                (rt::io::empty(), rt::io::repeat(7), rt::io::sink());
            let mut polls = 0;
            while !ran.load(Ordering::SeqCst) {
                assert!(polls < 10_000, "{utility}: the other task never ran");
                let mut byte = [0];
                let done = match utility {
                    "empty" => empty.read(&mut byte).await.unwrap(),
                    "repeat" => repeat.read(&mut byte).await.unwrap(),
                    _ => sink.write(&byte).await.unwrap(),
                };
                assert_eq!(done, usize::from(utility != "empty"), "{utility}");
                polls += 1;
            }
            other.await.unwrap();
        }
    });
}

/// `empty()` is also a writer that drops everything and a seeker that is
/// always at 0, as tokio's `empty()`: code that writes to it to discard
/// output ports as it is.
#[test]
fn empty_is_also_a_discarding_writer_and_a_seeker() {
    block_on_each(|_| async {
        let mut empty = rt::io::empty();
        assert_eq!(empty.write(b"gone").await.unwrap(), 4);
        empty.write_all(b"all of it").await.unwrap();
        let bufs = [IoSlice::new(b"two "), IoSlice::new(b"slices")];
        assert_eq!(empty.write_vectored(&bufs).await.unwrap(), 10);
        empty.flush().await.unwrap();
        empty.shutdown().await.unwrap();
        assert_eq!(empty.seek(SeekFrom::End(7)).await.unwrap(), 0);
        assert_eq!(empty.stream_position().await.unwrap(), 0);
        assert_eq!(empty.read(&mut [0; 4]).await.unwrap(), 0);
        let copied = rt::io::copy(&mut rt::io::repeat(1).take(100), &mut empty).await;
        assert_eq!(copied.unwrap(), 100);
    });
}

/// Set in the child process that runs `stdio_child` for real; the value
/// is the scheduler to use.
const STDIO_CHILD: &str = "RT_IO_STDIO_CHILD";

/// In the child: upper-cases stdin's lines to stdout between markers, and
/// writes a marker to stderr. Passes at once in a normal run.
#[test]
fn stdio_child() {
    let Some(flavor) = std::env::var_os(STDIO_CHILD) else {
        return;
    };
    let rt = if flavor == "current_thread" {
        rt::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        rt::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
    }
    .unwrap();
    rt.block_on(async {
        use rt::io::{AsyncBufReadExt, BufReader};
        let mut lines = BufReader::new(rt::io::stdin()).lines();
        let mut out = rt::io::stdout();
        while let Some(line) = lines.next_line().await.unwrap() {
            out.write_all(format!("<<{}>>\n", line.to_uppercase()).as_bytes())
                .await
                .unwrap();
        }
        out.flush().await.unwrap();
        let mut err = rt::io::stderr();
        err.write_all(b"[[stderr works]]\n").await.unwrap();
        err.flush().await.unwrap();
    });
}

/// Runs this test binary again on `stdio_child`, with its stdin piped.
#[test]
fn stdin_stdout_stderr_through_the_blocking_pool() {
    for flavor in ["current_thread", "multi_thread"] {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "stdio_child", "--test-threads=1", "--nocapture"])
            .env(STDIO_CHILD, flavor)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let big_line = "x".repeat(100_000);
        let input = format!("hello\nworld\n{big_line}\nno newline");
        let feeder = std::thread::spawn(move || {
            std::io::Write::write_all(&mut stdin, input.as_bytes()).unwrap();
        });
        let output = child.wait_with_output().unwrap();
        feeder.join().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{flavor}: {stdout}\n{stderr}");
        // The harness prints "test stdio_child ... " without a newline
        // before the child's first line.
        let echoed: Vec<&str> = stdout
            .lines()
            .filter_map(|line| line.find("<<").map(|at| &line[at..]))
            .collect();
        let big_upper = format!("<<{}>>", big_line.to_uppercase());
        let expected = [
            "<<HELLO>>",
            "<<WORLD>>",
            big_upper.as_str(),
            "<<NO NEWLINE>>",
        ];
        assert!(
            echoed == expected,
            "{flavor}: got {} lines of lengths {:?}",
            echoed.len(),
            echoed.iter().map(|line| line.len()).collect::<Vec<_>>()
        );
        assert!(stderr.contains("[[stderr works]]"), "{flavor}: {stderr}");
    }
}

/// Set in the child process that runs `queued_write_child` for real; the
/// value is the scheduler to use.
const QUEUED_WRITE_CHILD: &str = "RT_IO_QUEUED_WRITE_CHILD";

/// In the child: writes to stdout and stderr while the only blocking
/// thread is busy, so the writes wait in the pool's queue, then shuts the
/// runtime down without flushing. Passes at once in a normal run.
#[test]
fn queued_write_child() {
    let Some(flavor) = std::env::var_os(QUEUED_WRITE_CHILD) else {
        return;
    };
    let mut builder = if flavor == "current_thread" {
        rt::runtime::Builder::new_current_thread()
    } else {
        rt::runtime::Builder::new_multi_thread()
    };
    let rt = builder
        .max_blocking_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (release, released) = std::sync::mpsc::channel::<()>();
    rt.block_on(async {
        let (started, is_started) = rt::sync::oneshot::channel();
        drop(rt::task::spawn_blocking(move || {
            started.send(()).unwrap();
            // Until the runtime is gone: the writes below stay queued.
            let _ = released.recv();
        }));
        is_started.await.unwrap();
        rt::io::stdout()
            .write_all(b"<<queued out>>\n")
            .await
            .unwrap();
        rt::io::stderr()
            .write_all(b"<<queued err>>\n")
            .await
            .unwrap();
    });
    rt.shutdown_background();
    drop(release);
}

/// A write the runtime accepted is made even if the runtime shuts down
/// before a pool thread got to it, as tokio's (its stdout and stderr
/// writes are "mandatory" blocking jobs): a program that ends without a
/// flush still prints its last line.
#[test]
fn a_queued_stdio_write_is_made_when_the_runtime_shuts_down() {
    for flavor in ["current_thread", "multi_thread"] {
        let output = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "queued_write_child",
                "--test-threads=1",
                "--nocapture",
            ])
            .env(QUEUED_WRITE_CHILD, flavor)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{flavor}: {stdout}\n{stderr}");
        assert!(stdout.contains("<<queued out>>"), "{flavor}: {stdout}");
        assert!(stderr.contains("<<queued err>>"), "{flavor}: {stderr}");
    }
}

/// As tokio's, the handles lend the process's descriptors 0, 1 and 2 (to
/// ask whether one is a terminal, or set its modes).
#[test]
fn the_standard_streams_lend_their_descriptors() {
    use std::os::fd::{AsFd, AsRawFd};
    let (stdin, stdout, stderr) = (rt::io::stdin(), rt::io::stdout(), rt::io::stderr());
    assert_eq!(stdin.as_raw_fd(), libc::STDIN_FILENO);
    assert_eq!(stdout.as_raw_fd(), libc::STDOUT_FILENO);
    assert_eq!(stderr.as_raw_fd(), libc::STDERR_FILENO);
    assert_eq!(stdin.as_fd().as_raw_fd(), libc::STDIN_FILENO);
    assert_eq!(stdout.as_fd().as_raw_fd(), libc::STDOUT_FILENO);
    assert_eq!(stderr.as_fd().as_raw_fd(), libc::STDERR_FILENO);
}

#[test]
fn buf_stream_holds_writes_until_flushed_and_reads_lines_and_seeks() {
    use rt::io::{AsyncBufReadExt, AsyncSeekExt, BufStream, Cursor};
    block_on_each(|_| async {
        let (a, b) = rt::net::UnixStream::pair().unwrap();
        let mut client = BufStream::new(a);
        let mut server = BufStream::new(b);
        client.write_all(b"GET /\n").await.unwrap();
        // Nothing went out yet: the peer's socket has nothing to read.
        let err = server.get_ref().try_read(&mut [0; 8]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        client.flush().await.unwrap();
        let mut request = String::new();
        server.read_line(&mut request).await.unwrap();
        assert_eq!(request, "GET /\n");
        server.write_all(b"200\n").await.unwrap();
        server.shutdown().await.unwrap();
        let mut response = String::new();
        client.read_to_string(&mut response).await.unwrap();
        assert_eq!(response, "200\n");

        // Seeking flushes the write buffer and drops the read buffer.
        let mut file = BufStream::new(Cursor::new(Vec::new()));
        file.write_all(b"hello world").await.unwrap();
        assert_eq!(file.seek(std::io::SeekFrom::Start(6)).await.unwrap(), 6);
        let mut word = String::new();
        file.read_to_string(&mut word).await.unwrap();
        assert_eq!(word, "world");
        assert_eq!(file.into_inner().into_inner(), b"hello world");
    });
}

#[test]
fn join_makes_one_stream_of_a_childs_stdout_and_stdin() {
    use rt::io::AsyncBufReadExt;
    block_on_each(|_| async {
        let mut child = rt::process::Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = rt::io::BufReader::new(child.stdout.take().unwrap());
        let stdin = child.stdin.take().unwrap();
        let mut stream = rt::io::join(stdout, stdin);
        let mut line = String::new();
        for word in ["one", "two"] {
            stream
                .write_all(format!("{word}\n").as_bytes())
                .await
                .unwrap();
            line.clear();
            stream.read_line(&mut line).await.unwrap();
            assert_eq!(line, format!("{word}\n"));
        }
        stream.shutdown().await.unwrap(); // cat sees the end of its input
        let (mut stdout, _stdin) = stream.into_inner();
        assert_eq!(stdout.read_to_end(&mut Vec::new()).await.unwrap(), 0);
        assert!(child.wait().await.unwrap().success());
    });
}
