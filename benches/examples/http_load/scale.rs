//! Scale: how long a server takes to answer `N` connections that arrive
//! at once, and how much memory each of them holds once idle.
//!
//! Against a fresh server (so its memory is not a high-water mark left
//! by an earlier window), one thread of this process with its own epoll
//! loop (mio, no runtime: the client costs the same against both
//! servers):
//! 1. reads the server's resident memory (`VmRSS`) and the kernel's
//!    listen-queue overflow counters;
//! 2. starts `N` non-blocking connects back to back, as fast as one
//!    thread issues them, and sends one request on each as soon as it is
//!    connected;
//! 3. stops the clock when every connection has its whole response: the
//!    time covers accepting, spawning, registering and the first request
//!    of every connection;
//! 4. reads `VmRSS` again with all `N` connections open and idle
//!    (keep-alive, after one request each, as a real client leaves them):
//!    the difference over `N` is the memory per idle connection, buffers
//!    included (the kernel's socket buffers are not in it, and are the
//!    same for both);
//! 5. closes them.
//!
//! A burst that overflows the listen queue (see `server::BACKLOG`) leaves
//! some clients waiting a second for the kernel to retransmit their SYN;
//! the overflow count is reported so such a round is recognised.

use crate::Options;
use crate::load;
use crate::process::{Launch, Server};
use crate::report::{latency, median, ratio};
use crate::server::Side;
use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token};
use std::fmt::Write as _;
use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

/// A burst that has not been answered in full by then failed.
const BURST_TIMEOUT: Duration = Duration::from_secs(60);

/// What one burst measured.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Burst {
    pub(crate) connections: usize,
    /// From the first connect to the last response's end.
    pub(crate) seconds: f64,
    /// Server memory before and after, in KiB.
    pub(crate) rss_before_kib: u64,
    pub(crate) rss_after_kib: u64,
    /// The kernel's `ListenOverflows` during the burst (system-wide).
    pub(crate) listen_overflows: u64,
}

impl Burst {
    pub(crate) fn kib_per_connection(&self) -> f64 {
        self.rss_after_kib.saturating_sub(self.rss_before_kib) as f64 / self.connections as f64
    }
}

/// The scale measurement at the largest connection count: per round,
/// each server of the compared pair (rt and tokio, or with `--axum` the
/// two axum binaries) against a fresh process, alternating which goes
/// first.
pub(crate) fn run(options: &Options, launch: &Launch<'_>) -> io::Result<Vec<(Side, Burst)>> {
    let connections = options.connections.iter().copied().max().unwrap_or(1);
    let (subject, baseline) = options.pair();
    let mut bursts = Vec::new();
    for round in 0..options.rounds {
        let order = if round % 2 == 0 {
            [subject, baseline]
        } else {
            [baseline, subject]
        };
        for side in order {
            let server = Server::start(side, launch)?;
            let burst = burst(server.port, server.pid(), connections)?;
            eprintln!(
                "scale round {round} c{connections} {:<10} all answered in {:.1} ms, {:.1} KiB/conn \
                 (RSS {} -> {} KiB), {} listen overflows",
                side.name(),
                burst.seconds * 1e3,
                burst.kib_per_connection(),
                burst.rss_before_kib,
                burst.rss_after_kib,
                burst.listen_overflows
            );
            bursts.push((side, burst));
        }
    }
    Ok(bursts)
}

/// The scale table (see `scale.rs`): the burst's time and the memory per
/// idle connection, subject against baseline, per round and as medians.
pub(crate) fn render(out: &mut String, bursts: &[(Side, Burst)], subject: Side, baseline: Side) {
    let Some((_, first)) = bursts.first() else {
        return;
    };
    let (s, b) = (subject.name(), baseline.name());
    let connections = first.connections;
    let _ = writeln!(
        out,
        "\nScale (`scale.rs`): {connections} connections arriving at once at a fresh server (each \
         round a new process per side): the time from the first connect to the last first \
         response (accept, spawn, register and one request each; the client is one epoll thread, \
         the same for both), then the server's resident memory with all of them idle on \
         keep-alive, less its memory before, per connection. Listen overflows: the kernel's \
         `ListenOverflows` during the bursts (0: no client waited for a SYN retransmission).\n"
    );
    let _ = writeln!(
        out,
        "| connections | {s} burst | {b} burst | burst {s}/{b} | per-round burst ratios | {s} KiB/conn \
         | {b} KiB/conn | memory {s}/{b} | {s} RSS at {connections} | {b} RSS at {connections} | listen overflows |"
    );
    let _ = writeln!(
        out,
        "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"
    );
    let of = |side: Side| {
        bursts
            .iter()
            .filter(move |(s, _)| *s == side)
            .map(|(_, b)| b)
    };
    let median_by = |side, f: fn(&Burst) -> f64| median(of(side).map(f).collect());
    let seconds: fn(&Burst) -> f64 = |b| b.seconds;
    let per_connection: fn(&Burst) -> f64 = Burst::kib_per_connection;
    let rss: fn(&Burst) -> f64 = |b| b.rss_after_kib as f64;
    let round_ratios: Vec<String> = of(subject)
        .zip(of(baseline))
        .map(|(x, y)| format!("{:.2}", x.seconds / y.seconds))
        .collect();
    let (s_burst, b_burst) = (median_by(subject, seconds), median_by(baseline, seconds));
    let (s_kib, b_kib) = (
        median_by(subject, per_connection),
        median_by(baseline, per_connection),
    );
    let _ = writeln!(
        out,
        "| {connections} | {} | {} | {} | {} | {s_kib:.1} | {b_kib:.1} | {} | {:.0} MiB | {:.0} MiB | {} |",
        latency(s_burst * 1e6),
        latency(b_burst * 1e6),
        ratio(s_burst, b_burst),
        round_ratios.join(" "),
        ratio(s_kib, b_kib),
        median_by(subject, rss) / 1024.0,
        median_by(baseline, rss) / 1024.0,
        bursts.iter().map(|(_, b)| b.listen_overflows).sum::<u64>(),
    );
}

/// One connection of the burst.
struct Connection {
    stream: TcpStream,
    sent: bool,
    received: Vec<u8>,
    done: bool,
}

/// Steps 1-5 of the module docs against the server `pid` on `port`.
pub(crate) fn burst(port: u16, pid: u32, connections: usize) -> io::Result<Burst> {
    let address: std::net::SocketAddr = ([127, 0, 0, 1], port).into();
    let rss_before_kib = rss_kib(pid)?;
    let overflows_before = listen_overflows()?;
    let mut poll = Poll::new()?;
    let mut events = Events::with_capacity(1024);
    let mut open = Vec::with_capacity(connections);
    let start = Instant::now();
    for index in 0..connections {
        let mut stream = TcpStream::connect(address)?;
        poll.registry().register(
            &mut stream,
            Token(index),
            Interest::READABLE | Interest::WRITABLE,
        )?;
        open.push(Connection {
            stream,
            sent: false,
            received: Vec::new(),
            done: false,
        });
    }
    let mut answered = 0;
    let mut buf = vec![0u8; 4096];
    while answered < connections {
        let left = BURST_TIMEOUT.checked_sub(start.elapsed()).ok_or_else(|| {
            io::Error::other(format!(
                "burst: {answered} of {connections} connections answered in {BURST_TIMEOUT:?}"
            ))
        })?;
        poll.poll(&mut events, Some(left))?;
        for event in &events {
            let connection = &mut open[event.token().0];
            if connection.done {
                continue;
            }
            if event.is_writable() && !connection.sent {
                if let Some(error) = connection.stream.take_error()? {
                    return Err(error);
                }
                match connection.stream.write(load::REQUEST) {
                    // A fresh socket takes the short request whole.
                    Ok(n) if n == load::REQUEST.len() => connection.sent = true,
                    Ok(_) => return Err(io::Error::other("burst: a short write")),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    // Not connected yet.
                    Err(e) if e.kind() == io::ErrorKind::NotConnected => {}
                    Err(e) => return Err(e),
                }
            }
            if event.is_readable() && connection.sent && read_response(connection, &mut buf)? {
                connection.done = true;
                answered += 1;
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let rss_after_kib = rss_kib(pid)?;
    let listen_overflows = listen_overflows()?.saturating_sub(overflows_before);
    drop(open);
    Ok(Burst {
        connections,
        seconds,
        rss_before_kib,
        rss_after_kib,
        listen_overflows,
    })
}

/// Reads what arrived; `true` once the whole response is in.
fn read_response(connection: &mut Connection, buf: &mut [u8]) -> io::Result<bool> {
    loop {
        match connection.stream.read(buf) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => connection.received.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let complete = load::response_len(&connection.received)?
        .is_some_and(|total| connection.received.len() >= total);
    if complete {
        connection.received = Vec::new();
    }
    Ok(complete)
}

/// The resident memory of process `pid` in KiB (`VmRSS`).
pub(crate) fn rss_kib(pid: u32) -> io::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| io::Error::other("no VmRSS in /proc/PID/status"))
}

/// The kernel's count of connections refused for a full listen queue
/// (`TcpExt: ListenOverflows` in `/proc/net/netstat`), system-wide.
fn listen_overflows() -> io::Result<u64> {
    let text = std::fs::read_to_string("/proc/net/netstat")?;
    parse_listen_overflows(&text)
        .ok_or_else(|| io::Error::other("no ListenOverflows in /proc/net/netstat"))
}

/// `/proc/net/netstat` holds pairs of lines: `TcpExt: names...` then
/// `TcpExt: values...`.
fn parse_listen_overflows(text: &str) -> Option<u64> {
    let mut lines = text.lines().filter(|line| line.starts_with("TcpExt:"));
    let names = lines.next()?;
    let values = lines.next()?;
    let position = names
        .split_whitespace()
        .position(|name| name == "ListenOverflows")?;
    values.split_whitespace().nth(position)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::parse_listen_overflows;

    #[test]
    fn reads_listen_overflows() {
        let text = "TcpExt: SyncookiesSent ListenOverflows ListenDrops\n\
                    TcpExt: 0 17 19\n\
                    IpExt: InNoRoutes\nIpExt: 0\n";
        assert_eq!(parse_listen_overflows(text), Some(17));
    }
}
