//! The floor: what serving the hello response costs with no runtime and
//! no HTTP library. Two threads, each with its own epoll (mio) instance
//! and a clone of one non-blocking listener, answer every request read
//! with the bytes hyper sends for the hello response (same length, a
//! fixed date), in one `write`. Per request it makes the system calls the
//! kernel cannot do without: one read and one write, plus a share of an
//! `epoll_wait`.
//!
//! It is not an HTTP server (it counts request ends, `\r\n\r\n`, and
//! ignores everything else); it measures how far ahead of tokio any
//! runtime serving hyper could get on this machine, since the kernel's
//! share of the floor's time is a share no runtime avoids.

use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token};
use std::collections::HashMap;
use std::io::{self, Read, Write};

/// hyper's hello response, byte for byte but for the fixed date.
const RESPONSE: &[u8] =
    b"HTTP/1.1 200 OK\r\ncontent-length: 13\r\ndate: Tue, 01 Dec 2026 12:00:00 GMT\r\n\r\nHello, World!";

const LISTENER: Token = Token(usize::MAX);

/// Serves on `listener` from `threads` threads until the process exits.
pub(crate) fn serve(listener: std::net::TcpListener, threads: usize) -> io::Result<()> {
    listener.set_nonblocking(true)?;
    let workers = (0..threads)
        .map(|_| {
            let listener = TcpListener::from_std(listener.try_clone()?);
            Ok(std::thread::spawn(move || run(listener)))
        })
        .collect::<io::Result<Vec<_>>>()?;
    for worker in workers {
        worker
            .join()
            .map_err(|_| io::Error::other("a floor thread panicked"))??;
    }
    Ok(())
}

/// One connection: the stream, how much of a request end (`\r\n\r\n`) its
/// last read ended with, and output the socket did not take yet.
struct Connection {
    stream: TcpStream,
    matched: u8,
    unsent: Vec<u8>,
}

fn run(mut listener: TcpListener) -> io::Result<()> {
    let mut poll = Poll::new()?;
    poll.registry()
        .register(&mut listener, LISTENER, Interest::READABLE)?;
    let mut events = Events::with_capacity(1024);
    let mut connections: HashMap<usize, Connection> = HashMap::new();
    let mut next_token = 0;
    let mut buf = vec![0u8; 8192];
    loop {
        match poll.poll(&mut events, None) {
            Ok(()) => {}
            // strace attaching (`--strace`) interrupts the wait.
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
        for event in &events {
            if event.token() == LISTENER {
                // Both threads hear of a new connection; whoever accepts
                // first serves it.
                loop {
                    match listener.accept() {
                        Ok((mut stream, _)) => {
                            stream.set_nodelay(true)?;
                            let token = Token(next_token);
                            next_token += 1;
                            poll.registry().register(
                                &mut stream,
                                token,
                                Interest::READABLE | Interest::WRITABLE,
                            )?;
                            connections.insert(
                                token.0,
                                Connection {
                                    stream,
                                    matched: 0,
                                    unsent: Vec::new(),
                                },
                            );
                        }
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                        Err(e) => return Err(e),
                    }
                }
                continue;
            }
            let Some(connection) = connections.get_mut(&event.token().0) else {
                continue;
            };
            if serve_connection(connection, &mut buf).is_ok() {
                continue;
            }
            // Closed or failed: dropping the stream closes it.
            if let Some(mut gone) = connections.remove(&event.token().0) {
                poll.registry().deregister(&mut gone.stream)?;
            }
        }
    }
}

/// Reads what arrived, answers each complete request, and writes what the
/// socket takes. An error (or the peer closing) ends the connection.
fn serve_connection(connection: &mut Connection, buf: &mut [u8]) -> io::Result<()> {
    flush(connection)?;
    loop {
        let n = match connection.stream.read(buf) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let requests = count_request_ends(&mut connection.matched, &buf[..n]);
        for _ in 0..requests {
            connection.unsent.extend_from_slice(RESPONSE);
        }
        flush(connection)?;
        // A read that did not fill the buffer drained the socket: the next
        // data comes with a new edge (the same bet tokio and rt make).
        if n < buf.len() {
            return Ok(());
        }
    }
}

fn flush(connection: &mut Connection) -> io::Result<()> {
    while !connection.unsent.is_empty() {
        match connection.stream.write(&connection.unsent) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                connection.unsent.drain(..n);
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// How many requests end (`\r\n\r\n`) in `data`. `matched` carries how
/// much of an end the previous read's last bytes began (0 to 3).
fn count_request_ends(matched: &mut u8, data: &[u8]) -> usize {
    let mut ends = 0;
    for &byte in data {
        *matched = match (byte, *matched) {
            (b'\r', 2) => 3,
            (b'\r', _) => 1,
            (b'\n', 1) => 2,
            (b'\n', 3) => {
                ends += 1;
                0
            }
            _ => 0,
        };
    }
    ends
}

#[cfg(test)]
mod tests {
    use super::count_request_ends;

    #[test]
    fn counts_request_ends_across_reads() {
        let mut matched = 0;
        let request = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n";
        assert_eq!(count_request_ends(&mut matched, &request[..26]), 0);
        assert_eq!(count_request_ends(&mut matched, &request[26..]), 1);
        assert_eq!(count_request_ends(&mut matched, b""), 0);
        let two = [&request[..], &request[..]].concat();
        assert_eq!(count_request_ends(&mut matched, &two), 2);
        assert_eq!(count_request_ends(&mut matched, b"\r\n\r\r\n\n\n"), 0);
    }
}
