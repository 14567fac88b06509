//! The load generators: `wrk` when it is installed, otherwise a built-in
//! closed-loop HTTP/1.1 client (each connection sends a request, reads the
//! whole response, sends the next), both on keep-alive connections to
//! 127.0.0.1.

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
        self.run_with(port, connections, duration, server_workers, &mut || Ok(()))
    }

    /// As `run`, calling `on_start` as the window starts: for wrk, before
    /// it starts (its window includes opening the connections); for the
    /// built-in client, once every connection is open, and the window
    /// starts when `on_start` returns.
    pub(crate) fn run_with(
        self,
        port: u16,
        connections: usize,
        duration: Duration,
        server_workers: usize,
        on_start: &mut dyn FnMut() -> io::Result<()>,
    ) -> io::Result<Load> {
        // wrk needs at least one connection per thread.
        let threads = connections.clamp(1, server_workers.max(1));
        match self {
            Generator::Wrk => {
                on_start()?;
                run_wrk(port, connections, threads, duration)
            }
            Generator::Builtin => run_builtin(port, connections, threads, duration, on_start),
        }
    }
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
    // A window with no request answered (10,000 connections still being
    // opened when it ended, on a loaded machine) is a result, not an
    // unreadable output.
    (load.seconds > 0.0 && text.contains("requests in")).then_some(load)
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

pub(crate) const REQUEST: &[u8] = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

fn run_builtin(
    port: u16,
    connections: usize,
    threads: usize,
    duration: Duration,
    on_start: &mut dyn FnMut() -> io::Result<()>,
) -> io::Result<Load> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        // Every connection is open before the clock starts.
        let start = std::sync::Arc::new(tokio::sync::Barrier::new(connections + 1));
        let (done_tx, done_rx) = tokio::sync::watch::channel(Instant::now() + duration);
        let tasks: Vec<_> = (0..connections)
            .map(|_| {
                let start = std::sync::Arc::clone(&start);
                let deadline = done_rx.clone();
                tokio::spawn(closed_loop(port, start, deadline))
            })
            .collect();
        start.wait().await;
        // Every connection is open and idle: `on_start` blocks no task.
        on_start()?;
        let began = Instant::now();
        // The window starts now that every connection is ready.
        let _ = done_tx.send(began + duration);
        let mut latencies = Vec::new();
        let mut errors = 0;
        for task in tasks {
            match task.await {
                Ok(Ok(mut own)) => latencies.append(&mut own),
                Ok(Err(_)) | Err(_) => errors += 1,
            }
        }
        let seconds = began.elapsed().as_secs_f64();
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

/// One connection: request, whole response, repeat until the deadline.
/// Returns each request's latency in microseconds.
async fn closed_loop(
    port: u16,
    start: std::sync::Arc<tokio::sync::Barrier>,
    mut deadline: tokio::sync::watch::Receiver<Instant>,
) -> io::Result<Vec<u32>> {
    use tokio::io::AsyncWriteExt;
    let connected = tokio::net::TcpStream::connect(("127.0.0.1", port)).await;
    start.wait().await;
    let mut stream = connected?;
    stream.set_nodelay(true)?;
    // The final deadline is sent once everyone passed the barrier.
    deadline
        .changed()
        .await
        .map_err(|_| io::Error::other("the load ended early"))?;
    let deadline = *deadline.borrow();
    let mut buf = vec![0u8; 4096];
    let mut latencies = Vec::new();
    while Instant::now() < deadline {
        let sent = Instant::now();
        stream.write_all(REQUEST).await?;
        read_response(&mut stream, &mut buf).await?;
        latencies.push(sent.elapsed().as_micros().min(u32::MAX as u128) as u32);
    }
    Ok(latencies)
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
pub(crate) fn response_len(bytes: &[u8]) -> io::Result<Option<usize>> {
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
