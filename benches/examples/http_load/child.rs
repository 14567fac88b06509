//! A server process as the benchmark sees it: this program re-run with
//! `--serve`, its port, and what can be read off it while it serves (CPU
//! time, system calls, its runtime's counters).

use crate::load::Generator;
use crate::measure;
use crate::server::Side;
use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

/// A running server.
pub(crate) struct Server {
    pub(crate) side: Side,
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    pub(crate) port: u16,
    pub(crate) workers: usize,
}

/// How to start a server.
#[derive(Clone, Debug, Default)]
pub(crate) struct Launch {
    pub(crate) workers: usize,
    /// Pin every thread of the server to this CPU.
    pub(crate) cpu: Option<usize>,
    /// Run the server under this command (e.g. valgrind and its flags).
    pub(crate) wrapper: Vec<String>,
}

impl Server {
    pub(crate) fn start(side: Side, launch: &Launch) -> io::Result<Server> {
        let exe = std::env::current_exe()?;
        let mut command = match launch.wrapper.split_first() {
            Some((program, args)) => {
                let mut command = Command::new(program);
                command.args(args).arg(exe);
                command
            }
            None => Command::new(exe),
        };
        command.args(["--serve", side.name(), &launch.workers.to_string()]);
        if let Some(cpu) = launch.cpu {
            command.arg(cpu.to_string());
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut line = String::new();
        stdout.read_line(&mut line)?;
        let port = line
            .strip_prefix("port ")
            .and_then(|p| p.trim().parse().ok())
            .ok_or_else(|| io::Error::other(format!("{} server said {line:?}", side.name())))?;
        Ok(Server {
            side,
            child,
            stdin,
            stdout,
            port,
            workers: launch.workers,
        })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server runtime's counters (see `server.rs`), by name.
    pub(crate) fn counters(&mut self) -> io::Result<BTreeMap<String, f64>> {
        let stdin = self
            .stdin
            .as_mut()
            .expect("stdin is open while the server lives");
        stdin.write_all(b"metrics\n")?;
        stdin.flush()?;
        let mut line = String::new();
        self.stdout.read_line(&mut line)?;
        let fields = line
            .strip_prefix("metrics")
            .ok_or_else(|| io::Error::other(format!("the server said {line:?}")))?;
        Ok(fields
            .split_whitespace()
            .filter_map(|field| {
                let (name, value) = field.split_once('=')?;
                Some((name.to_owned(), value.parse().ok()?))
            })
            .collect())
    }

    /// One load window, with the server's CPU time over it.
    pub(crate) fn measure(
        &self,
        generator: Generator,
        connections: usize,
        window: Duration,
    ) -> io::Result<Sample> {
        let before = measure::cpu_seconds(self.pid())?;
        let load = generator.run(self.port, connections, window, self.workers)?;
        let after = measure::cpu_seconds(self.pid())?;
        Ok(Sample {
            side: self.side,
            connections,
            load,
            cpu_seconds: after - before,
        })
    }

    /// One load window under `strace -c -f`.
    pub(crate) fn count_syscalls(
        &self,
        generator: Generator,
        connections: usize,
        window: Duration,
    ) -> io::Result<Syscalls> {
        let strace = measure::Strace::attach(self.pid())?;
        let load = generator.run(self.port, connections, window, self.workers);
        let counts = strace.finish()?;
        Ok(Syscalls {
            side: self.side,
            connections,
            requests: load?.requests,
            counts,
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Closing stdin ends the server; killing covers a stuck one.
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One measured window.
pub(crate) struct Sample {
    pub(crate) side: Side,
    pub(crate) connections: usize,
    pub(crate) load: crate::load::Load,
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
