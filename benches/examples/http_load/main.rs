//! End-to-end HTTP load: the same hyper HTTP/1.1 hello server on rt (with
//! `rt::hyper::Io`) and on tokio (with hyper-util's `TokioIo`), 2 workers
//! each, every one in its own process, loaded in turn on 127.0.0.1.
//!
//! ```sh
//! cargo run --release -p rt-benches --example http_load              # 3 rounds x 5 s at 1, 50, 1000, 5000, 10000 connections
//! cargo run --release -p rt-benches --example http_load -- --strace  # also count syscalls per request
//! cargo run --release -p rt-benches --example http_load -- --rounds 5 --seconds 3 --connections 1,50
//! cargo run --release -p rt-benches --example http_load -- --profile --connections 1000,10000
//! ```
//!
//! `http_load --serve rt|tokio|floor [WORKERS [CPU]]` runs one server
//! (printing its port) and `http_load --load PORT CONNECTIONS SECONDS
//! [wrk|builtin]` one load window against it, for profiling a side alone.
//!
//! Options: `--rounds N` (default 3), `--seconds S` per window (default
//! 5), `--connections A,B,..` (default `1,50,1000,5000,10000`), `--strace` (one more
//! window per side and connection count under `strace -c -f`, whose
//! counts are divided by the requests served in it), `--client
//! wrk|builtin` (default: wrk, installed with apt-get when missing and
//! running as root, else the built-in closed-loop client), `--no-write`
//! (print only; otherwise the table replaces the `http_load` section of
//! `benches/RESULTS.md`), `--floor` (also measure the floor: the same
//! responses from an epoll loop with no runtime and no HTTP library, see
//! `floor.rs`), `--split-cores` (each server gets 1 worker pinned to CPU
//! 0 and the load generator 1 thread pinned to CPU 1, so neither takes
//! CPU from the other: the table then goes to its own section of
//! `RESULTS.md`), `--no-scale` (skip the scale measurement: by default,
//! after the rounds, each side's time to answer as many connections as
//! the largest count arriving at once, and its memory per idle
//! keep-alive connection, against fresh servers, once per round: see
//! `scale.rs`), `--profile` (instead of the rounds, one window per server
//! and connection count with perf attached to the server, counting per
//! request what does not depend on the machine's load: see `profile.rs`;
//! its table goes to its own section of `RESULTS.md`), `--callgrind`
//! (with `--profile`: instructions per request under valgrind instead).
//!
//! File descriptors: 10,000 connections need 10,000 on each end; the
//! benchmark raises its soft limit to the hard one (and, as root, both to
//! `FD_LIMIT`), and the servers and the load generator inherit it.
//! Loopback ports: the client side of 10,000 connections takes 10,000
//! ephemeral ports (32768-60999 by default), and closing them leaves
//! them in `TIME_WAIT` for a minute; Linux reuses those for new
//! connections to loopback (`net.ipv4.tcp_tw_reuse = 2`, the default),
//! and a port is free again for another destination port anyway, so
//! the rounds do not run out. The listen backlog: see `server::BACKLOG`.
//!
//! Per window: requests/s and p50/p99 latency from the load generator, and
//! the server's CPU time (user + system, `/proc/PID/stat`) over the window
//! divided by the requests served. Rounds alternate which side goes first;
//! the table shows each figure's median over the rounds, and the spread of
//! the per-round requests/s ratios tells how noisy the machine was. The
//! load generator shares the machine's cores with the server under test,
//! the same way for both sides.

mod child;
mod floor;
mod load;
mod measure;
mod profile;
mod report;
mod scale;
mod server;

use child::{Launch, Sample, Server};
use load::Generator;
use report::{load_average, render, render_profile, write_section};
use server::Side;
use std::io;
use std::time::Duration;

/// The descriptor limit the benchmark asks for (as root, raising the
/// hard limit too): both ends of the largest connection count, with room.
const FD_LIMIT: u64 = 65_536;

/// The markers around each mode's section of `RESULTS.md`.
const SECTIONS: [(&str, &str); 2] = [
    ("<!-- http_load: begin -->", "<!-- http_load: end -->"),
    (
        "<!-- http_load split-cores: begin -->",
        "<!-- http_load split-cores: end -->",
    ),
];
/// `--split-cores`: the CPUs of the servers and of the load generator.
const SERVER_CPU: usize = 0;
const CLIENT_CPU: usize = 1;

pub(crate) struct Options {
    rounds: usize,
    seconds: u64,
    connections: Vec<usize>,
    strace: bool,
    client: Option<Generator>,
    write: bool,
    floor: bool,
    split_cores: bool,
    scale: bool,
    profile: bool,
    callgrind: bool,
}

impl Options {
    /// Each server's worker count.
    fn workers(&self) -> usize {
        if self.split_cores { 1 } else { server::WORKERS }
    }

    /// This mode's markers in `RESULTS.md`.
    fn section(&self) -> (&'static str, &'static str) {
        SECTIONS[usize::from(self.split_cores)]
    }

    fn launch(&self) -> Launch {
        Launch {
            workers: self.workers(),
            cpu: self.split_cores.then_some(SERVER_CPU),
            wrapper: if self.callgrind {
                profile::callgrind_wrapper()
            } else {
                Vec::new()
            },
        }
    }
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "http_load: {problem}\nusage: http_load [--rounds N] [--seconds S] [--connections 1,50,1000] \
         [--strace] [--client wrk|builtin] [--no-write] [--floor] [--split-cores] [--no-scale] \
         [--profile [--callgrind]]"
    );
    std::process::exit(2);
}

fn parse_options(mut args: impl Iterator<Item = String>) -> Options {
    let mut options = Options {
        rounds: 3,
        seconds: 5,
        connections: vec![1, 50, 1000, 5000, 10_000],
        strace: false,
        client: None,
        write: true,
        floor: false,
        split_cores: false,
        scale: true,
        profile: false,
        callgrind: false,
    };
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{arg} needs a value")))
        };
        match arg.as_str() {
            "--rounds" => {
                options.rounds = value().parse().unwrap_or_else(|_| usage("bad --rounds"))
            }
            "--seconds" => {
                options.seconds = value().parse().unwrap_or_else(|_| usage("bad --seconds"))
            }
            "--connections" => {
                options.connections = value()
                    .split(',')
                    .map(|c| {
                        c.trim()
                            .parse()
                            .unwrap_or_else(|_| usage("bad --connections"))
                    })
                    .collect()
            }
            "--strace" => options.strace = true,
            "--client" => {
                options.client = Some(match value().as_str() {
                    "wrk" => Generator::Wrk,
                    "builtin" => Generator::Builtin,
                    _ => usage("--client is wrk or builtin"),
                })
            }
            "--no-write" => options.write = false,
            "--floor" => options.floor = true,
            "--split-cores" => options.split_cores = true,
            "--no-scale" => options.scale = false,
            "--profile" => options.profile = true,
            "--callgrind" => options.callgrind = true,
            other => usage(&format!("unknown argument {other}")),
        }
    }
    if options.rounds == 0 || options.seconds == 0 || options.connections.contains(&0) {
        usage("rounds, seconds and connections must be positive");
    }
    if options.callgrind && !options.profile {
        usage("--callgrind goes with --profile");
    }
    options
}

fn main() -> io::Result<()> {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some("--serve") {
        args.next();
        let side = args
            .next()
            .and_then(|name| Side::parse(&name))
            .unwrap_or_else(|| usage("--serve takes rt, tokio or floor"));
        let workers = args.next().map_or(server::WORKERS, |workers| {
            workers
                .parse()
                .ok()
                .filter(|&n| n > 0)
                .unwrap_or_else(|| usage("--serve's worker count is a positive number"))
        });
        let cpu = args.next().map(|cpu| {
            cpu.parse()
                .unwrap_or_else(|_| usage("--serve's CPU is a number"))
        });
        return server::serve(side, workers, cpu);
    }
    if args.peek().map(String::as_str) == Some("--load") {
        args.next();
        return load_alone(args);
    }
    let options = parse_options(args);
    raise_fd_limit();
    // One end of every connection per process (the server's, the load
    // generator's or the burst's), and some to spare.
    let needed = options.connections.iter().max().copied().unwrap_or(0) as u64 + 64;
    if fd_limit() < needed {
        eprintln!(
            "http_load: the descriptor limit is {} but {needed} are needed \
             (raise the hard limit: `ulimit -Hn {needed}` as root)",
            fd_limit()
        );
    }
    // Before pinning, which hides the other CPUs from this process.
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if options.split_cores {
        if cpus < 2 {
            usage("--split-cores needs 2 CPUs or more");
        }
        // The load generator (wrk or the built-in client's threads) starts
        // from this thread, and inherits its CPU.
        server::pin_to_cpu(CLIENT_CPU)?;
    }
    let generator = match options.client {
        Some(generator) => generator,
        // Its window starts once every connection is open (`profile.rs`).
        None if options.profile => Generator::Builtin,
        None => Generator::detect(true),
    };
    let mut sides = vec![Side::Rt, Side::Tokio];
    if options.floor {
        sides.push(Side::Floor);
    }
    let load_before = load_average();
    let machine = |load_before: &str| {
        format!(
            "{cpus} CPUs, load average (1 min) {load_before} at the start, {} at the end",
            load_average()
        )
    };
    if options.profile {
        let profiles = run_profile(&options, generator, &sides)?;
        let report = render_profile(&profiles, &machine(&load_before), options.callgrind);
        return publish(&options, &report, report::PROFILE_SECTION);
    }
    let strace = options.strace && measure::strace_available();
    if options.strace && !strace {
        eprintln!("http_load: strace is not installed; skipping syscall counts");
    }
    let windows = (options.rounds + usize::from(strace)) * options.connections.len() * sides.len();
    eprintln!(
        "http_load: {} rounds x {:?} connections x {} servers, {} s windows with {} (about {} s)",
        options.rounds,
        options.connections,
        sides.len(),
        options.seconds,
        generator.name(),
        (windows as u64 + 2) * options.seconds
    );

    let launch = options.launch();
    let servers = sides
        .iter()
        .map(|&side| Server::start(side, &launch))
        .collect::<io::Result<Vec<_>>>()?;
    let window = Duration::from_secs(options.seconds);
    warm_up(generator, &servers)?;

    let mut samples: Vec<Sample> = Vec::new();
    for round in 0..options.rounds {
        for &connections in &options.connections {
            // Each round starts with the next server.
            for index in (0..servers.len()).map(|i| (i + round) % servers.len()) {
                let sample = servers[index].measure(generator, connections, window)?;
                eprintln!(
                    "round {round} c{connections:<5} {:<5} {:>9.0} req/s  p50 {:>8.1} us  p99 {:>8.1} us  \
                     cpu {:>6.2} us/req{}",
                    sample.side.name(),
                    sample.load.requests_per_second(),
                    sample.load.p50_us,
                    sample.load.p99_us,
                    sample.cpu_us_per_request(),
                    if sample.load.errors > 0 {
                        format!("  ({} errors)", sample.load.errors)
                    } else {
                        String::new()
                    }
                );
                samples.push(sample);
            }
        }
    }

    let mut syscalls = Vec::new();
    if strace {
        let strace_window = window.min(Duration::from_secs(3));
        for &connections in &options.connections {
            for server in &servers {
                let traced = server.count_syscalls(generator, connections, strace_window)?;
                eprintln!(
                    "strace c{connections:<5} {:<5} {:.2} syscalls/req",
                    server.side.name(),
                    traced.per_request_total()
                );
                syscalls.push(traced);
            }
        }
    }
    drop(servers);

    let bursts = if options.scale {
        run_scale(&options, &launch)?
    } else {
        Vec::new()
    };
    let report = render(
        &options,
        generator,
        &samples,
        &syscalls,
        &bursts,
        &machine(&load_before),
    );
    publish(&options, &report, options.section())
}

/// Prints `report` and, unless `--no-write`, puts it in its section of
/// `RESULTS.md`.
fn publish(options: &Options, report: &str, section: (&str, &str)) -> io::Result<()> {
    println!("{report}");
    if options.write {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("RESULTS.md");
        write_section(&path, section, report)?;
        eprintln!("http_load: wrote {} of {}", section.0, path.display());
    }
    Ok(())
}

/// Warms up every server (connections, allocator, page faults), unmeasured.
fn warm_up(generator: Generator, servers: &[Server]) -> io::Result<()> {
    for server in servers {
        generator.run(server.port, 50, Duration::from_secs(1), server.workers)?;
    }
    Ok(())
}

/// The scale measurement (`scale.rs`) at the largest connection count:
/// per round, rt and tokio each against a fresh server, alternating
/// which goes first.
fn run_scale(options: &Options, launch: &Launch) -> io::Result<Vec<(Side, scale::Burst)>> {
    let connections = options.connections.iter().copied().max().unwrap_or(1);
    let mut bursts = Vec::new();
    for round in 0..options.rounds {
        let order = if round % 2 == 0 {
            [Side::Rt, Side::Tokio]
        } else {
            [Side::Tokio, Side::Rt]
        };
        for side in order {
            let server = Server::start(side, launch)?;
            let burst = scale::burst(server.port, server.pid(), connections)?;
            eprintln!(
                "scale round {round} c{connections} {:<5} all answered in {:.1} ms, {:.1} KiB/conn \
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

/// `--profile`: one profiled window per server and connection count,
/// alternating which server goes first.
fn run_profile(
    options: &Options,
    generator: Generator,
    sides: &[Side],
) -> io::Result<Vec<profile::Profile>> {
    if !options.callgrind && !profile::perf_available() {
        return Err(io::Error::other(
            "--profile needs perf with syscall tracepoints (install linux-tools, run as root)",
        ));
    }
    let launch = options.launch();
    let mut servers = sides
        .iter()
        .map(|&side| Server::start(side, &launch))
        .collect::<io::Result<Vec<_>>>()?;
    warm_up(generator, &servers)?;
    let window = Duration::from_secs(options.seconds);
    let mut profiles = Vec::new();
    for (round, &connections) in options.connections.iter().enumerate() {
        let count = servers.len();
        for index in (0..count).map(|i| (i + round) % count) {
            let profile = profile::profile(
                &mut servers[index],
                generator,
                connections,
                window,
                options.callgrind,
            )?;
            eprintln!(
                "profile c{connections:<5} {:<5} {} requests, {:.1} us CPU/req, {:.2} syscalls/req, \
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
    // Rows by connection count, then rt, tokio, floor.
    profiles.sort_by_key(|p| (p.connections, p.side as u8));
    Ok(profiles)
}

/// `--load PORT CONNECTIONS SECONDS [wrk|builtin]`: only the load
/// generator, against a server started elsewhere (`--serve rt` prints its
/// port), for profiling one side at a time.
fn load_alone(mut args: impl Iterator<Item = String>) -> io::Result<()> {
    let mut number = |what: &str| -> u64 {
        args.next()
            .and_then(|value| value.parse().ok())
            .unwrap_or_else(|| usage(&format!("--load needs {what}")))
    };
    let port = u16::try_from(number("a port")).unwrap_or_else(|_| usage("bad port"));
    let connections = number("a connection count") as usize;
    let seconds = number("seconds");
    let generator = match args.next().as_deref() {
        None | Some("wrk") => Generator::detect(false),
        Some("builtin") => Generator::Builtin,
        Some(_) => usage("--load's generator is wrk or builtin"),
    };
    raise_fd_limit();
    let load = generator.run(
        port,
        connections.max(1),
        Duration::from_secs(seconds.max(1)),
        server::WORKERS,
    )?;
    println!(
        "{} requests in {:.2} s: {:.0} req/s, p50 {:.1} us, p99 {:.1} us, {} errors",
        load.requests,
        load.seconds,
        load.requests_per_second(),
        load.p50_us,
        load.p99_us,
        load.errors
    );
    Ok(())
}

/// Raises this process's descriptor limit (the servers and the load
/// generator it starts inherit it): the soft limit to the hard one, and
/// as root both to `FD_LIMIT` if the hard one is lower (and the kernel's
/// `fs.nr_open` allows).
pub(crate) fn raise_fd_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, exclusively borrowed out-parameter.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return;
    }
    if limit.rlim_max < FD_LIMIT {
        let raised = libc::rlimit {
            rlim_cur: FD_LIMIT,
            rlim_max: FD_LIMIT,
        };
        // SAFETY: `raised` is a valid `rlimit`; without the privilege
        // the call fails and changes nothing.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            return;
        }
    }
    limit.rlim_cur = limit.rlim_max;
    // SAFETY: `limit` is a valid `rlimit`; raising the soft limit to
    // the hard one is always allowed.
    unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) };
}

/// This process's soft descriptor limit.
fn fd_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, exclusively borrowed out-parameter.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
        limit.rlim_cur
    } else {
        0
    }
}
