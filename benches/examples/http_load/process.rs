//! The server processes under test and what one window measures on them.
//!
//! A server is a child process that prints `port <N>` on stdout once it
//! listens and exits when its stdin closes: this program itself with
//! `--serve rt|tokio|floor`, or a binary built elsewhere (`--axum DIR`: the
//! axum hello app of `compat/axum-bench/`, built on real tokio and on the
//! facade), optionally run under callgrind to count its instructions.

use crate::load::{self, Generator, Load, Window};
use crate::measure;
use crate::server::Side;
use std::io::{self, BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// How to start the servers.
pub(crate) struct Launch<'a> {
    pub(crate) workers: usize,
    /// Pin the server (all its threads) to this CPU (`--serve` servers).
    pub(crate) cpu: Option<usize>,
    /// Where the external servers' binaries are (`--axum DIR`).
    pub(crate) external_dir: Option<&'a Path>,
    /// Run the server under callgrind.
    pub(crate) callgrind: bool,
}

/// A running server.
pub(crate) struct Server {
    pub(crate) side: Side,
    child: Child,
    pub(crate) port: u16,
    pub(crate) workers: usize,
    callgrind: Option<measure::Callgrind>,
}

impl Server {
    pub(crate) fn start(side: Side, launch: &Launch<'_>) -> io::Result<Server> {
        let workers = launch.workers;
        let (program, mut args) = match side.external_binary() {
            Some(binary) => {
                let dir = launch
                    .external_dir
                    .ok_or_else(|| io::Error::other(format!("{} needs --axum DIR", side.name())))?;
                if launch.cpu.is_some() {
                    return Err(io::Error::other(
                        "--split-cores pins only this program's own servers, not --axum's",
                    ));
                }
                (dir.join(binary), vec![])
            }
            None => (
                std::env::current_exe()?,
                vec!["--serve".to_owned(), side.name().to_owned()],
            ),
        };
        args.push(workers.to_string());
        if let Some(cpu) = launch.cpu {
            args.push(cpu.to_string());
        }
        let (mut command, callgrind_base) = if launch.callgrind {
            let (command, base) = measure::Callgrind::command(&program, side.name());
            (command, Some(base))
        } else {
            (Command::new(&program), None)
        };
        let mut child = command
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| {
                io::Error::new(e.kind(), format!("starting {}: {e}", program.display()))
            })?;
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let port = line
            .strip_prefix("port ")
            .and_then(|p| p.trim().parse().ok())
            .ok_or_else(|| io::Error::other(format!("{} server said {line:?}", side.name())))?;
        let callgrind = callgrind_base.map(|base| measure::Callgrind::attach(child.id(), base));
        Ok(Server {
            side,
            child,
            port,
            workers,
            callgrind,
        })
    }

    /// One load window, with the server's CPU time over it.
    pub(crate) fn measure(
        &self,
        generator: Generator,
        connections: usize,
        window: Duration,
    ) -> io::Result<Sample> {
        let before = measure::cpu_seconds(self.child.id())?;
        let load = generator.run(self.port, connections, window, self.workers)?;
        let after = measure::cpu_seconds(self.child.id())?;
        Ok(Sample {
            side: self.side,
            connections,
            load,
            cpu_seconds: after - before,
        })
    }

    /// One window under strace.
    pub(crate) fn count_syscalls(
        &self,
        generator: Generator,
        connections: usize,
        window: Duration,
    ) -> io::Result<Syscalls> {
        let strace = measure::Strace::attach(self.child.id())?;
        let load = generator.run(self.port, connections, window, self.workers);
        let counts = strace.finish()?;
        Ok(Syscalls {
            side: self.side,
            connections,
            requests: load?.requests,
            counts,
        })
    }

    /// `requests` requests (rounded up to a whole number per connection)
    /// over `connections` connections from the built-in client, counting
    /// the server's instructions from the moment every connection has
    /// been served once until the last response arrived (before the
    /// connections close). The server must run under callgrind.
    pub(crate) fn count_instructions(
        &mut self,
        connections: usize,
        requests: u64,
    ) -> io::Result<Instructions> {
        let callgrind = self
            .callgrind
            .as_mut()
            .expect("count_instructions needs a server started under callgrind");
        let per_connection = requests.div_ceil(connections as u64).max(1);
        let mut counted = Vec::new();
        let load = load::run_builtin(
            self.port,
            connections,
            load::client_threads(connections, self.workers),
            Window::Requests(per_connection),
            &mut || callgrind.dump().map(|n| counted.push(n)),
        )?;
        // The second mark is the measured part; the first zeroed the counters.
        let instructions = match counted.as_slice() {
            [_, measured] => *measured,
            other => {
                return Err(io::Error::other(format!(
                    "expected 2 callgrind dumps around the window, got {}",
                    other.len()
                )));
            }
        };
        Ok(Instructions {
            side: self.side,
            connections,
            requests: load.requests,
            errors: load.errors,
            instructions,
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Closing stdin ends the server; killing covers a stuck one.
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One measured window.
pub(crate) struct Sample {
    pub(crate) side: Side,
    pub(crate) connections: usize,
    pub(crate) load: Load,
    pub(crate) cpu_seconds: f64,
}

impl Sample {
    pub(crate) fn requests_per_second(&self) -> f64 {
        self.load.requests_per_second()
    }

    pub(crate) fn p50_us(&self) -> f64 {
        self.load.p50_us
    }

    pub(crate) fn p99_us(&self) -> f64 {
        self.load.p99_us
    }

    pub(crate) fn cpu_us_per_request(&self) -> f64 {
        self.cpu_seconds * 1e6 / self.load.requests.max(1) as f64
    }
}

/// One window under strace.
pub(crate) struct Syscalls {
    pub(crate) side: Side,
    pub(crate) connections: usize,
    pub(crate) requests: u64,
    pub(crate) counts: measure::SyscallCounts,
}

impl Syscalls {
    pub(crate) fn per_request_total(&self) -> f64 {
        self.counts.values().map(|&(calls, _)| calls).sum::<u64>() as f64
            / self.requests.max(1) as f64
    }

    /// The most frequent calls per request, with failures (EAGAIN) noted.
    pub(crate) fn breakdown(&self) -> String {
        let mut by_calls: Vec<_> = self.counts.iter().collect();
        by_calls.sort_by_key(|&(_, &(calls, _))| std::cmp::Reverse(calls));
        let per = |n: u64| n as f64 / self.requests.max(1) as f64;
        by_calls
            .iter()
            .take(4)
            .filter(|(_, (calls, _))| per(*calls) >= 0.01)
            .map(|&(name, &(calls, errors))| {
                if per(errors) >= 0.005 {
                    format!("{name} {:.2} ({:.2} failed)", per(calls), per(errors))
                } else {
                    format!("{name} {:.2}", per(calls))
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One window of a fixed number of requests under callgrind.
pub(crate) struct Instructions {
    pub(crate) side: Side,
    pub(crate) connections: usize,
    pub(crate) requests: u64,
    pub(crate) errors: u64,
    pub(crate) instructions: u64,
}

impl Instructions {
    pub(crate) fn per_request(&self) -> f64 {
        self.instructions as f64 / self.requests.max(1) as f64
    }
}
