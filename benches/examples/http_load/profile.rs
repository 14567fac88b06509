//! `--profile`: where a server's time per request goes, in counts that
//! hold on a shared machine (a busy neighbour changes how fast, not what
//! is done per request, much).
//!
//! Per server and connection count, one load window with, attached to the
//! server process:
//! - `perf stat` of software events and syscall tracepoints: every
//!   system call, `epoll_wait`/`epoll_pwait` (one per driver turn),
//!   `futex` calls, context switches, CPU migrations, task clock;
//! - `perf record` of the `epoll_wait` exits and the `futex` enters and
//!   exits: the events each turn returned (their mean, and how many
//!   turns returned none or one), the futex waits and wakes, and how many
//!   threads the wakes woke;
//! - the threads' voluntary and involuntary context switches
//!   (`/proc/PID/task/*/status`): a voluntary one is a thread going to
//!   sleep, so each costs a wake-up later;
//! - the server runtime's own counters before and after (`server.rs`):
//!   rt's polls, steals, parks, LIFO-slot hits and I/O events; tokio's
//!   parks (its other counters need `--cfg tokio_unstable`);
//!
//! all divided by the requests served in the window. The load comes from
//! the built-in client unless `--client wrk` is given: it opens every
//! connection before the window starts, so the window holds requests
//! only (wrk opens its connections inside it: 10,000 accepts then count
//! too). perf gives no sign once attached, so the load starts
//! `PERF_SETTLE` after it, the connections idle meanwhile.
//!
//! With `--callgrind`, the servers run under valgrind's callgrind
//! instead (no perf; `measure::Callgrind`, as `--instructions` uses):
//! a dump as the window starts zeroes the counters, one as it ends (the
//! built-in client's connections still open) counts the instructions of
//! the window, the count this VM's perf cannot give (it exposes no
//! hardware counters). valgrind runs one thread at a time and slows the
//! server about 50x, so a turn sees more events than it would at full
//! speed: compare rt with tokio under the same conditions, and one build
//! with another, never with the perf figures.
//!
//! With `--axum`, the pair is the axum app on the facade and on tokio
//! (and rt's own server): the same counts, but no runtime counters from
//! the axum binaries, which take no commands on stdin.

use crate::Options;
use crate::load::{Generator, Load};
use crate::measure;
use crate::process::Server;
use crate::server::Side;
use std::collections::BTreeMap;
use std::io;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// How long perf is given to attach before the load starts.
const PERF_SETTLE: Duration = Duration::from_millis(300);

/// Counted with `perf stat`, by these names.
const STAT_EVENTS: [&str; 7] = [
    "raw_syscalls:sys_enter",
    "syscalls:sys_enter_epoll_wait",
    "syscalls:sys_enter_epoll_pwait",
    "syscalls:sys_enter_futex",
    "context-switches",
    "cpu-migrations",
    "task-clock",
];

/// Recorded one by one with `perf record`.
const RECORD_EVENTS: [&str; 4] = [
    "syscalls:sys_exit_epoll_wait",
    "syscalls:sys_exit_epoll_pwait",
    "syscalls:sys_enter_futex",
    "syscalls:sys_exit_futex",
];

/// One profiled window.
#[derive(Debug)]
pub(crate) struct Profile {
    pub(crate) side: Side,
    pub(crate) connections: usize,
    pub(crate) load: Load,
    pub(crate) cpu_seconds: f64,
    /// `perf stat` counts (task-clock in milliseconds), by event name.
    pub(crate) stat: BTreeMap<String, f64>,
    pub(crate) epoll: EpollTurns,
    pub(crate) futex: Futexes,
    /// Voluntary and involuntary context switches of the server's threads.
    pub(crate) switches: (u64, u64),
    /// The runtime's counters over the window.
    pub(crate) counters: BTreeMap<String, f64>,
    /// Instructions over the window (`--callgrind` only).
    pub(crate) instructions: Option<u64>,
}

impl Profile {
    pub(crate) fn per_request(&self, count: f64) -> f64 {
        count / self.load.requests.max(1) as f64
    }

    pub(crate) fn stat(&self, event: &str) -> f64 {
        self.stat.get(event).copied().unwrap_or(f64::NAN)
    }
}

/// What the driver turns (`epoll_wait` returns) looked like.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct EpollTurns {
    pub(crate) calls: u64,
    pub(crate) events: u64,
    pub(crate) empty: u64,
    pub(crate) single: u64,
}

impl EpollTurns {
    pub(crate) fn events_per_call(&self) -> f64 {
        self.events as f64 / self.calls.max(1) as f64
    }
}

/// `futex` calls by kind, and the threads the wakes woke.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Futexes {
    pub(crate) waits: u64,
    pub(crate) wakes: u64,
    pub(crate) woken: u64,
}

/// Whether `perf` runs here with syscall tracepoints.
pub(crate) fn perf_available() -> bool {
    Command::new("perf")
        .args(["stat", "-e", "raw_syscalls:sys_enter", "true"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// What is read off the server at each end of the window.
struct Reading {
    counters: BTreeMap<String, f64>,
    switches: (u64, u64),
    cpu_seconds: f64,
}

impl Reading {
    fn take(server: &mut Server) -> io::Result<Reading> {
        Ok(Reading {
            counters: server.counters()?,
            switches: context_switches(server.pid())?,
            cpu_seconds: measure::cpu_seconds(server.pid())?,
        })
    }
}

/// One window of `connections` against `server`, profiled: with perf
/// attached, or with `callgrind` (the server started under callgrind)
/// its instructions counted, between the load generator's two marks.
pub(crate) fn profile(
    server: &mut Server,
    generator: Generator,
    connections: usize,
    window: Duration,
    callgrind: bool,
) -> io::Result<Profile> {
    let pid = server.pid();
    let (side, port, workers) = (server.side, server.port, server.workers);
    if callgrind && server.callgrind.is_none() {
        return Err(io::Error::other(
            "--profile --callgrind needs the servers started under callgrind",
        ));
    }
    let scratch = std::env::temp_dir().join(format!("http_load-perf-{pid}"));
    let stat_file = scratch.with_extension("stat");
    let record_file = scratch.with_extension("data");
    let mut readings = Vec::new();
    let mut perf = None;
    let mut instructions = None;
    let load = generator.run_with(port, connections, window, workers, &mut || {
        let starting = readings.is_empty();
        if !starting {
            // The window's end: stop counting first.
            if let Some(callgrind) = server.callgrind.as_mut() {
                instructions = Some(callgrind.dump()?);
            }
            if let Some((stat, record)) = perf.take() {
                stop_perf(stat)?;
                stop_perf(record)?;
            }
        }
        readings.push(Reading::take(server)?);
        if starting {
            if let Some(callgrind) = server.callgrind.as_mut() {
                // Zeroes the counters.
                callgrind.dump()?;
            } else {
                let events = STAT_EVENTS.join(",");
                let stat = spawn_perf(&["stat", "-x", ",", "-e", &events, "-o"], &stat_file, pid)?;
                let record_events = RECORD_EVENTS.join(",");
                let record = spawn_perf(
                    &["record", "-q", "-e", &record_events, "-o"],
                    &record_file,
                    pid,
                )?;
                perf = Some((stat, record));
                std::thread::sleep(PERF_SETTLE);
            }
        }
        Ok(())
    });
    // A window that failed before its end leaves perf running.
    if let Some((stat, record)) = perf.take() {
        let _ = stop_perf(stat);
        let _ = stop_perf(record);
    }
    let load = load?;
    let [before, after] = <[Reading; 2]>::try_from(readings).map_err(|readings| {
        io::Error::other(format!(
            "expected a reading at both ends of the window, got {}",
            readings.len()
        ))
    })?;
    let mut profile = Profile {
        side,
        connections,
        load,
        cpu_seconds: after.cpu_seconds - before.cpu_seconds,
        stat: BTreeMap::new(),
        epoll: EpollTurns::default(),
        futex: Futexes::default(),
        switches: (
            after.switches.0 - before.switches.0,
            after.switches.1 - before.switches.1,
        ),
        counters: after
            .counters
            .iter()
            .map(|(name, value)| {
                let start = before.counters.get(name).copied().unwrap_or(0.0);
                (name.clone(), value - start)
            })
            .collect(),
        instructions,
    };
    if !callgrind {
        profile.stat = parse_perf_stat(&std::fs::read_to_string(&stat_file)?);
        let script = Command::new("perf")
            .args(["script", "-F", "tid,event,trace", "-i"])
            .arg(&record_file)
            .stderr(Stdio::null())
            .output()?;
        (profile.epoll, profile.futex) =
            parse_perf_script(&String::from_utf8_lossy(&script.stdout));
        let _ = std::fs::remove_file(&stat_file);
        let _ = std::fs::remove_file(&record_file);
    }
    Ok(profile)
}

/// `--profile`: one profiled window per server and connection count,
/// alternating which server goes first; the rows by connection count,
/// then in `sides` order.
pub(crate) fn run(
    options: &Options,
    generator: Generator,
    sides: &[Side],
) -> io::Result<Vec<Profile>> {
    if !options.callgrind && !perf_available() {
        return Err(io::Error::other(
            "--profile needs perf with syscall tracepoints (install linux-tools, run as root)",
        ));
    }
    if options.callgrind && !measure::callgrind_available() {
        return Err(io::Error::other(
            "--profile --callgrind needs valgrind and callgrind_control (apt-get install valgrind)",
        ));
    }
    let launch = options.launch(options.callgrind);
    let mut servers = sides
        .iter()
        .map(|&side| Server::start(side, &launch))
        .collect::<io::Result<Vec<_>>>()?;
    crate::warm_up(generator, &servers)?;
    let window = Duration::from_secs(options.seconds);
    let mut profiles = Vec::new();
    for (round, &connections) in options.connections.iter().enumerate() {
        let count = servers.len();
        for index in (0..count).map(|i| (i + round) % count) {
            let profile = profile(
                &mut servers[index],
                generator,
                connections,
                window,
                options.callgrind,
            )?;
            eprintln!(
                "profile c{connections:<5} {:<10} {} requests, {:.1} us CPU/req, {:.2} syscalls/req, \
                 {:.1} events/turn{}",
                profile.side.name(),
                profile.load.requests,
                profile.per_request(profile.cpu_seconds * 1e6),
                profile.per_request(profile.stat("raw_syscalls:sys_enter")),
                profile.epoll.events_per_call(),
                profile.instructions.map_or(String::new(), |ir| format!(
                    ", {:.0} instructions/req",
                    profile.per_request(ir as f64)
                )),
            );
            profiles.push(profile);
        }
    }
    let position = |side| sides.iter().position(|&s| s == side);
    profiles.sort_by_key(|p| (p.connections, position(p.side)));
    Ok(profiles)
}

fn spawn_perf(args: &[&str], output: &Path, pid: u32) -> io::Result<Child> {
    Command::new("perf")
        .args(args)
        .arg(output)
        .arg("-p")
        .arg(pid.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
}

/// SIGINT makes perf write its output and exit.
fn stop_perf(mut perf: Child) -> io::Result<()> {
    // SAFETY: kill has no memory preconditions; the pid is our child's.
    unsafe { libc::kill(perf.id() as libc::pid_t, libc::SIGINT) };
    let status = perf.wait()?;
    // perf exits with the signal's status after writing its output.
    if status.success() || status.code().is_none() || status.code() == Some(130) {
        Ok(())
    } else {
        Err(io::Error::other(format!("perf failed: {status}")))
    }
}

/// Voluntary and involuntary context switches, summed over the threads
/// of `pid`.
fn context_switches(pid: u32) -> io::Result<(u64, u64)> {
    let mut totals = (0, 0);
    for entry in std::fs::read_dir(format!("/proc/{pid}/task"))? {
        // A thread may end meanwhile.
        let Ok(status) = std::fs::read_to_string(entry?.path().join("status")) else {
            continue;
        };
        for line in status.lines() {
            let value = |rest: &str| rest.trim().parse::<u64>().unwrap_or(0);
            if let Some(rest) = line.strip_prefix("voluntary_ctxt_switches:") {
                totals.0 += value(rest);
            } else if let Some(rest) = line.strip_prefix("nonvoluntary_ctxt_switches:") {
                totals.1 += value(rest);
            }
        }
    }
    Ok(totals)
}

/// `perf stat -x ,` lines: `value,unit,event,...`.
fn parse_perf_stat(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            let value = fields.first()?.trim().parse().ok()?;
            Some((fields.get(2)?.trim().to_owned(), value))
        })
        .collect()
}

/// `perf script -F tid,event,trace` lines, e.g.
/// `1234 syscalls:sys_exit_epoll_wait: 0x5` and
/// `1234 syscalls:sys_enter_futex: uaddr: 0x.., op: 0x00000081, ...`.
fn parse_perf_script(text: &str) -> (EpollTurns, Futexes) {
    let mut epoll = EpollTurns::default();
    let mut futex = Futexes::default();
    // The futex operation each thread is in.
    let mut pending: BTreeMap<u64, u64> = BTreeMap::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let (Some(tid), Some(event)) = (words.next(), words.next()) else {
            continue;
        };
        let Ok(tid) = tid.parse::<u64>() else {
            continue;
        };
        let rest: Vec<&str> = words.collect();
        let hex = |word: &str| {
            u64::from_str_radix(word.trim_end_matches(',').trim_start_matches("0x"), 16).ok()
        };
        match event.trim_end_matches(':') {
            "syscalls:sys_exit_epoll_wait" | "syscalls:sys_exit_epoll_pwait" => {
                // A negative return (EINTR) reads as a huge number.
                let Some(events) = rest.first().and_then(|w| hex(w)).filter(|&n| n < 1 << 32)
                else {
                    continue;
                };
                epoll.calls += 1;
                epoll.events += events;
                epoll.empty += u64::from(events == 0);
                epoll.single += u64::from(events == 1);
            }
            "syscalls:sys_enter_futex" => {
                let op = rest
                    .iter()
                    .position(|&w| w == "op:")
                    .and_then(|i| rest.get(i + 1))
                    .and_then(|w| hex(w));
                if let Some(op) = op {
                    // Without FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME.
                    let op = op & 0x7f;
                    match op {
                        0 | 9 => futex.waits += 1,
                        1 | 10 => futex.wakes += 1,
                        _ => {}
                    }
                    pending.insert(tid, op);
                }
            }
            "syscalls:sys_exit_futex" => {
                let op = pending.remove(&tid);
                let woke = rest.first().and_then(|w| hex(w)).filter(|&n| n < 1 << 32);
                if let (Some(1 | 10), Some(woke)) = (op, woke) {
                    futex.woken += woke;
                }
            }
            _ => {}
        }
    }
    (epoll, futex)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_perf_stat_csv() {
        let text = "# started on Fri Dec  4\n\n\
                    1234,,raw_syscalls:sys_enter,100.00,,\n\
                    12.50,msec,task-clock,12500000,100.00,0.5,CPUs utilized\n\
                    <not counted>,,cpu-migrations,0,100.00,,\n";
        let stat = parse_perf_stat(text);
        assert_eq!(stat["raw_syscalls:sys_enter"], 1234.0);
        assert_eq!(stat["task-clock"], 12.5);
        assert!(!stat.contains_key("cpu-migrations"));
    }

    #[test]
    fn parses_perf_script_turns_and_futexes() {
        let text = " 101 syscalls:sys_exit_epoll_wait: 0x5\n\
                    101 syscalls:sys_exit_epoll_wait: 0x0\n\
                    102 syscalls:sys_exit_epoll_pwait: 0x1\n\
                    102 syscalls:sys_exit_epoll_wait: 0xfffffffffffffffc\n\
                    101 syscalls:sys_enter_futex: uaddr: 0x7f00, op: 0x00000081, val: 0x00000001, utime: 0x0, uaddr2: 0x0, val3: 0x0\n\
                    101 syscalls:sys_exit_futex: 0x1\n\
                    102 syscalls:sys_enter_futex: uaddr: 0x7f08, op: 0x00000080, val: 0x0, utime: 0x0, uaddr2: 0x0, val3: 0x0\n\
                    102 syscalls:sys_exit_futex: 0x0\n";
        let (epoll, futex) = parse_perf_script(text);
        assert_eq!(
            (epoll.calls, epoll.events, epoll.empty, epoll.single),
            (3, 6, 1, 1)
        );
        assert_eq!((futex.waits, futex.wakes, futex.woken), (1, 1, 1));
    }
}
