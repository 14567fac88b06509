//! The load generators: `wrk` when it is installed, otherwise a built-in
//! closed-loop HTTP/1.1 client (each connection sends a request, reads the
//! whole response, sends the next), both on keep-alive connections to
//! 127.0.0.1. The built-in client can also make a fixed number of
//! requests per connection ([`Window::Requests`]), for counting the
//! server's instructions per request.

use std::io;
use std::process::Command;
use std::time::{Duration, Instant};

/// What one load window measured.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Load {
    pub(crate) requests: u64,
    pub(crate) seconds: f64,
    pub(crate) p50_us: f64,
    pub(crate) p99_us: f64,
    /// Socket errors, timeouts and non-2xx answers.
    pub(crate) errors: u64,
}

impl Load {
    pub(crate) fn requests_per_second(&self) -> f64 {
        self.requests as f64 / self.seconds
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Generator {
    Wrk,
    Builtin,
}

impl Generator {
    /// `wrk` if it runs, after trying to install it with apt-get when
    /// `install` (as root only); otherwise the built-in client.
    pub(crate) fn detect(install: bool) -> Generator {
        if wrk_runs() {
            return Generator::Wrk;
        }
        if install && is_root() && command_exists("apt-get") {
            eprintln!("http_load: wrk is not installed; trying apt-get install -y wrk");
            let installed = apt_get(&["install", "-y", "wrk"])
                || (apt_get(&["update"]) && apt_get(&["install", "-y", "wrk"]));
            if installed && wrk_runs() {
                return Generator::Wrk;
            }
            eprintln!("http_load: could not install wrk; using the built-in client");
        }
        Generator::Builtin
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Generator::Wrk => "wrk",
            Generator::Builtin => "built-in closed-loop client",
        }
    }

    /// Loads `127.0.0.1:port` with `connections` keep-alive connections
    /// for `duration`, from as many client threads as the server has
    /// workers (`server_workers`), never more than connections.
    pub(crate) fn run(
        self,
        port: u16,
        connections: usize,
        duration: Duration,
        server_workers: usize,
    ) -> io::Result<Load> {
        let threads = client_threads(connections, server_workers);
        match self {
            Generator::Wrk => run_wrk(port, connections, threads, duration),
            Generator::Builtin => run_builtin(
                port,
                connections,
                threads,
                Window::For(duration),
                &mut || Ok(()),
            ),
        }
    }
}

/// The load generator's threads: as many as the server has workers, never
/// more than connections (wrk needs at least one connection per thread).
pub(crate) fn client_threads(connections: usize, server_workers: usize) -> usize {
    connections.clamp(1, server_workers.max(1))
}

fn wrk_runs() -> bool {
    // `wrk --version` exits with 1 but prints its banner.
    Command::new("wrk")
        .arg("--version")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("wrk"))
}

fn command_exists(name: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .is_ok_and(|out| out.status.success())
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn apt_get(args: &[&str]) -> bool {
    Command::new("apt-get")
        .args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .output()
        .is_ok_and(|out| out.status.success())
}

fn run_wrk(port: u16, connections: usize, threads: usize, duration: Duration) -> io::Result<Load> {
    let out = Command::new("wrk")
        .arg(format!("-t{threads}"))
        .arg(format!("-c{connections}"))
        .arg(format!("-d{}s", duration.as_secs().max(1)))
        .arg("--latency")
        .arg(format!("http://127.0.0.1:{port}/"))
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "wrk failed ({}): {text}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    parse_wrk(&text).ok_or_else(|| io::Error::other(format!("unexpected wrk output:\n{text}")))
}

/// Reads requests, duration, p50/p99 and errors from `wrk --latency`.
fn parse_wrk(text: &str) -> Option<Load> {
    let mut load = Load {
        requests: 0,
        seconds: 0.0,
        p50_us: f64::NAN,
        p99_us: f64::NAN,
        errors: 0,
    };
    for line in text.lines().map(str::trim) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["50%", value] => load.p50_us = micros(value)?,
            ["99%", value] => load.p99_us = micros(value)?,
            [requests, "requests", "in", seconds, ..] => {
                load.requests = requests.parse().ok()?;
                load.seconds = micros(seconds.trim_end_matches(','))? / 1e6;
            }
            ["Socket", "errors:", rest @ ..] => {
                // connect N, read N, write N, timeout N
                load.errors += rest
                    .iter()
                    .filter_map(|w| w.trim_end_matches(',').parse::<u64>().ok())
                    .sum::<u64>();
            }
            ["Non-2xx", "or", "3xx", "responses:", n] => load.errors += n.parse::<u64>().ok()?,
            _ => {}
        }
    }
    (load.requests > 0 && load.seconds > 0.0).then_some(load)
}

/// `12.5us`, `1.20ms`, `2.00s`, `1.5m` in microseconds.
fn micros(value: &str) -> Option<f64> {
    let split = value.find(|c: char| c.is_ascii_alphabetic())?;
    let (number, unit) = value.split_at(split);
    let number: f64 = number.parse().ok()?;
    let scale = match unit {
        "us" => 1.0,
        "ms" => 1e3,
        "s" => 1e6,
        "m" => 60e6,
        _ => return None,
    };
    Some(number * scale)
}

const REQUEST: &[u8] = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

/// How long the built-in client loads: for a time, or a number of requests
/// per connection.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Window {
    For(Duration),
    /// Each connection first makes one unmeasured request (so the server
    /// has accepted it and served it once), then this many measured ones.
    Requests(u64),
}

/// Called at both ends of the measured part of a window (see
/// [`run_builtin`]), e.g. to count the server's work in between.
type Mark<'a> = &'a mut dyn FnMut() -> io::Result<()>;

/// The built-in client: `connections` closed-loop connections from a
/// `threads`-worker tokio runtime. `mark` runs twice: once every
/// connection is open (and, with [`Window::Requests`], has made its
/// unmeasured request), just before the measured part begins; and once
/// the last response has arrived, before any connection closes.
pub(crate) fn run_builtin(
    port: u16,
    connections: usize,
    threads: usize,
    window: Window,
    mark: Mark<'_>,
) -> io::Result<Load> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        // Every connection is open before the clock starts.
        let start = std::sync::Arc::new(tokio::sync::Barrier::new(connections + 1));
        let (go_tx, go_rx) = tokio::sync::watch::channel(Goal::Requests(0));
        let warm_up = matches!(window, Window::Requests(_));
        let tasks: Vec<_> = (0..connections)
            .map(|_| {
                let start = std::sync::Arc::clone(&start);
                let go = go_rx.clone();
                tokio::spawn(closed_loop(port, start, warm_up, go))
            })
            .collect();
        start.wait().await;
        // Blocking this thread is fine: every client task waits for `go`.
        let started = mark();
        let began = Instant::now();
        // The window starts now that every connection is ready.
        let _ = go_tx.send(match window {
            Window::For(duration) => Goal::Deadline(began + duration),
            Window::Requests(n) => Goal::Requests(n),
        });
        let mut latencies = Vec::new();
        let mut errors = 0;
        let mut open = Vec::with_capacity(connections);
        for task in tasks {
            match task.await {
                Ok(Ok((mut own, stream))) => {
                    latencies.append(&mut own);
                    open.push(stream);
                }
                Ok(Err(_)) | Err(_) => errors += 1,
            }
        }
        let seconds = began.elapsed().as_secs_f64();
        started?;
        mark()?;
        drop(open);
        latencies.sort_unstable();
        let percentile = |q: f64| match latencies.len() {
            0 => f64::NAN,
            n => latencies[((n - 1) as f64 * q).round() as usize] as f64,
        };
        Ok(Load {
            requests: latencies.len() as u64,
            seconds,
            p50_us: percentile(0.50),
            p99_us: percentile(0.99),
            errors,
        })
    })
}

/// What a connection does once the window opens.
#[derive(Clone, Copy, Debug)]
enum Goal {
    Deadline(Instant),
    Requests(u64),
}

/// One connection: request, whole response, repeat until the goal (after
/// one unmeasured request first if `warm_up`). Returns each measured
/// request's latency in microseconds, and the connection, still open.
async fn closed_loop(
    port: u16,
    start: std::sync::Arc<tokio::sync::Barrier>,
    warm_up: bool,
    mut go: tokio::sync::watch::Receiver<Goal>,
) -> io::Result<(Vec<u32>, tokio::net::TcpStream)> {
    use tokio::io::AsyncWriteExt;
    let mut buf = vec![0u8; 4096];
    let connected = async {
        let stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
        stream.set_nodelay(true)?;
        Ok::<_, io::Error>(stream)
    }
    .await;
    let connected = match connected {
        Ok(mut stream) if warm_up => {
            let served = async {
                stream.write_all(REQUEST).await?;
                read_response(&mut stream, &mut buf).await
            };
            served.await.map(|()| stream)
        }
        other => other,
    };
    start.wait().await;
    let mut stream = connected?;
    // The goal is sent once everyone passed the barrier.
    go.changed()
        .await
        .map_err(|_| io::Error::other("the load ended early"))?;
    let goal = *go.borrow();
    let mut latencies = Vec::new();
    loop {
        match goal {
            Goal::Deadline(deadline) if Instant::now() >= deadline => break,
            Goal::Requests(n) if latencies.len() as u64 >= n => break,
            _ => {}
        }
        let sent = Instant::now();
        stream.write_all(REQUEST).await?;
        read_response(&mut stream, &mut buf).await?;
        latencies.push(sent.elapsed().as_micros().min(u32::MAX as u128) as u32);
    }
    Ok((latencies, stream))
}

/// Reads one whole response (head and `content-length` body).
async fn read_response(stream: &mut tokio::net::TcpStream, buf: &mut Vec<u8>) -> io::Result<()> {
    use tokio::io::AsyncReadExt;
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        let n = stream.read(&mut buf[filled..]).await?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        filled += n;
        if response_len(&buf[..filled])?.is_some_and(|total| filled >= total) {
            return Ok(());
        }
    }
}

/// The length of the response at the start of `bytes`, once its head is
/// complete.
fn response_len(bytes: &[u8]) -> io::Result<Option<usize>> {
    let Some(head_end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Ok(None);
    };
    let head = std::str::from_utf8(&bytes[..head_end])
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "a non-UTF-8 response head"))?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("unexpected response: {head}"),
        ));
    }
    let length = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse::<usize>().ok())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no content-length"))?;
    Ok(Some(head_end + 4 + length))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A blocking server answering every request end (`\r\n\r\n`) with
    /// the hello response, one thread per connection; counts requests.
    fn answering_server() -> (u16, std::sync::Arc<std::sync::atomic::AtomicU64>) {
        use std::io::{Read, Write};
        use std::sync::atomic::{AtomicU64, Ordering};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let served = std::sync::Arc::new(AtomicU64::new(0));
        let count = std::sync::Arc::clone(&served);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let mut stream = stream.unwrap();
                let count = std::sync::Arc::clone(&count);
                std::thread::spawn(move || {
                    let mut buf = [0u8; 1024];
                    let mut pending = Vec::new();
                    while let Ok(n @ 1..) = stream.read(&mut buf) {
                        pending.extend_from_slice(&buf[..n]);
                        while let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
                            pending.drain(..end + 4);
                            count.fetch_add(1, Ordering::SeqCst);
                            stream
                                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nhi")
                                .unwrap();
                        }
                    }
                });
            }
        });
        (port, served)
    }

    #[test]
    fn fixed_requests_are_counted_between_the_marks() {
        use std::sync::atomic::Ordering;
        let (port, served) = answering_server();
        let mut served_at_marks = Vec::new();
        let load = run_builtin(port, 3, 2, Window::Requests(4), &mut || {
            served_at_marks.push(served.load(Ordering::SeqCst));
            Ok(())
        })
        .unwrap();
        assert_eq!(load.requests, 12);
        assert_eq!(load.errors, 0);
        // One unmeasured request per connection before the first mark,
        // the measured ones between the marks.
        assert_eq!(served_at_marks, vec![3, 15]);
    }

    #[test]
    fn parses_wrk_output() {
        let text = "Running 5s test @ http://127.0.0.1:3000/
  2 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   520.31us  200.00us   9.12ms   90.00%
  Latency Distribution
     50%  480.00us
     75%  600.00us
     90%  700.00us
     99%    1.20ms
  250000 requests in 5.00s, 25.00MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
Requests/sec:  50000.00
Transfer/sec:      5.00MB
";
        let load = parse_wrk(text).unwrap();
        assert_eq!(load.requests, 250_000);
        assert_eq!(load.seconds, 5.0);
        assert_eq!(load.p50_us, 480.0);
        assert_eq!(load.p99_us, 1200.0);
        assert_eq!(load.errors, 3);
    }
}
