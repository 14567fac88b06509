//! End-to-end HTTP load: the same hyper HTTP/1.1 hello server on rt (with
//! `rt::hyper::Io`) and on tokio (with hyper-util's `TokioIo`), 2 workers
//! each, every one in its own process, loaded in turn on 127.0.0.1.
//!
//! ```sh
//! cargo run --release -p rt-benches --example http_load              # 3 rounds x 5 s at 1, 50, 1000 connections
//! cargo run --release -p rt-benches --example http_load -- --strace  # also count syscalls per request
//! cargo run --release -p rt-benches --example http_load -- --rounds 5 --seconds 3 --connections 1,50
//! compat/axum-bench/run --rounds 5 --instructions 20000              # the axum app on tokio and on the facade
//! cargo run --release -p rt-benches --example http_load -- --instructions 20000 --instructions-only
//! ```
//!
//! `http_load --serve rt|tokio|floor [WORKERS [CPU]]` runs one server
//! (printing its port) and `http_load --load PORT CONNECTIONS SECONDS
//! [wrk|builtin]` one load window against it, for profiling a side alone.
//!
//! Options: `--rounds N` (default 3), `--seconds S` per window (default 5),
//! `--connections A,B,..` (default `1,50,1000`), `--strace` (one more
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
//! `RESULTS.md`), `--instructions N` (after the timed rounds, as many
//! rounds again with every server run under valgrind's callgrind, each
//! window N requests from the built-in client: user-space instructions
//! per request, which a busy machine hardly moves; `--instructions-only`
//! skips the timed rounds), `--axum DIR` (compare
//! the `axum::serve` hello app of `compat/axum-bench/` built on the
//! facade, `DIR/axum-bench-rt`, with the same app on real tokio,
//! `DIR/axum-bench-tokio`, plus rt's own hyper server for information;
//! the table goes to `compat/axum-bench/README.md`; `compat/axum-bench/run`
//! builds both and passes its arguments on).
//!
//! Per window: requests/s and p50/p99 latency from the load generator, and
//! the server's CPU time (user + system, `/proc/PID/stat`) over the window
//! divided by the requests served. Rounds alternate which side goes first;
//! the table shows each figure's median over the rounds, and the spread of
//! the per-round ratios tells how noisy the machine was. The load
//! generator shares the machine's cores with the server under test, the
//! same way for both sides.

mod floor;
mod load;
mod measure;
mod process;
mod report;
mod server;

use load::Generator;
use process::{Launch, Sample, Server};
use server::Side;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The markers around each mode's section of its file.
const SECTIONS: [(&str, &str); 3] = [
    ("<!-- http_load: begin -->", "<!-- http_load: end -->"),
    (
        "<!-- http_load split-cores: begin -->",
        "<!-- http_load split-cores: end -->",
    ),
    (
        "<!-- http_load axum: begin -->",
        "<!-- http_load axum: end -->",
    ),
];
/// `--split-cores`: the CPUs of the servers and of the load generator.
const SERVER_CPU: usize = 0;
const CLIENT_CPU: usize = 1;

pub(crate) struct Options {
    pub(crate) rounds: usize,
    pub(crate) seconds: u64,
    pub(crate) connections: Vec<usize>,
    pub(crate) strace: bool,
    client: Option<Generator>,
    write: bool,
    pub(crate) floor: bool,
    pub(crate) split_cores: bool,
    /// `--instructions N`: requests per callgrind window.
    pub(crate) instructions: Option<u64>,
    /// `--instructions-only`: no timed rounds.
    pub(crate) instructions_only: bool,
    /// `--axum DIR`: where the two axum binaries are.
    pub(crate) axum: Option<PathBuf>,
}

impl Options {
    /// Each server's worker count.
    pub(crate) fn workers(&self) -> usize {
        if self.split_cores { 1 } else { server::WORKERS }
    }

    /// This mode's markers.
    pub(crate) fn section(&self) -> (&'static str, &'static str) {
        if self.axum.is_some() {
            SECTIONS[2]
        } else {
            SECTIONS[usize::from(self.split_cores)]
        }
    }

    /// The file this mode's table goes to.
    fn output(&self) -> PathBuf {
        let benches = Path::new(env!("CARGO_MANIFEST_DIR"));
        if self.axum.is_some() {
            benches.join("../compat/axum-bench/README.md")
        } else {
            benches.join("RESULTS.md")
        }
    }

    /// The compared pair: (subject, baseline); ratios are subject/baseline.
    pub(crate) fn pair(&self) -> (Side, Side) {
        if self.axum.is_some() {
            (Side::AxumRt, Side::AxumTokio)
        } else {
            (Side::Rt, Side::Tokio)
        }
    }

    /// The server measured for information beside the pair, if any.
    pub(crate) fn reference(&self) -> Option<Side> {
        if self.axum.is_some() {
            Some(Side::Rt)
        } else if self.floor {
            Some(Side::Floor)
        } else {
            None
        }
    }

    fn sides(&self) -> Vec<Side> {
        let (subject, baseline) = self.pair();
        let mut sides = vec![subject, baseline];
        sides.extend(self.reference());
        sides
    }

    fn launch(&self, callgrind: bool) -> Launch<'_> {
        Launch {
            workers: self.workers(),
            cpu: self.split_cores.then_some(SERVER_CPU),
            external_dir: self.axum.as_deref(),
            callgrind,
        }
    }
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "http_load: {problem}\nusage: http_load [--rounds N] [--seconds S] [--connections 1,50,1000] \
         [--strace] [--client wrk|builtin] [--no-write] [--floor] [--split-cores] \
         [--instructions REQUESTS [--instructions-only]] [--axum DIR]"
    );
    std::process::exit(2);
}

fn parse_options(mut args: impl Iterator<Item = String>) -> Options {
    let mut options = Options {
        rounds: 3,
        seconds: 5,
        connections: vec![1, 50, 1000],
        strace: false,
        client: None,
        write: true,
        floor: false,
        split_cores: false,
        instructions: None,
        instructions_only: false,
        axum: None,
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
            "--instructions" => {
                options.instructions =
                    Some(
                        value().parse().ok().filter(|&n| n > 0).unwrap_or_else(|| {
                            usage("--instructions takes a positive request count")
                        }),
                    )
            }
            "--instructions-only" => options.instructions_only = true,
            "--axum" => options.axum = Some(PathBuf::from(value())),
            other => usage(&format!("unknown argument {other}")),
        }
    }
    if options.rounds == 0 || options.seconds == 0 || options.connections.contains(&0) {
        usage("rounds, seconds and connections must be positive");
    }
    if options.instructions_only && options.instructions.is_none() {
        usage("--instructions-only needs --instructions N");
    }
    if options.axum.is_some() && (options.split_cores || options.floor) {
        usage(
            "--axum compares the axum binaries (with rt's hyper server): no --floor or --split-cores",
        );
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
    let generator = options.client.unwrap_or_else(|| Generator::detect(true));
    let strace = options.strace && measure::strace_available();
    if options.strace && !strace {
        eprintln!("http_load: strace is not installed; skipping syscall counts");
    }
    if options.instructions.is_some() && !measure::callgrind_available() {
        usage("--instructions needs valgrind and callgrind_control (apt-get install valgrind)");
    }
    let sides = options.sides();
    let timed_rounds = if options.instructions_only {
        0
    } else {
        options.rounds
    };
    let windows = (timed_rounds + usize::from(strace)) * options.connections.len() * sides.len();
    eprintln!(
        "http_load: {} rounds x {:?} connections x {} servers, {} s windows with {} (about {} s){}",
        timed_rounds,
        options.connections,
        sides.len(),
        options.seconds,
        generator.name(),
        (windows as u64 + 2) * options.seconds,
        match options.instructions {
            Some(n) => format!(", then {} callgrind rounds of {n} requests", options.rounds),
            None => String::new(),
        }
    );

    let load_before = report::load_average();
    let window = Duration::from_secs(options.seconds);
    let mut samples: Vec<Sample> = Vec::new();
    let mut syscalls = Vec::new();
    if timed_rounds > 0 {
        let servers = sides
            .iter()
            .map(|&side| Server::start(side, &options.launch(false)))
            .collect::<io::Result<Vec<_>>>()?;
        // Warm up every server (connections, allocator, page faults), unmeasured.
        for server in &servers {
            generator.run(server.port, 50, Duration::from_secs(1), server.workers)?;
        }
        for round in 0..options.rounds {
            for &connections in &options.connections {
                // Each round starts with the next server.
                for index in (0..servers.len()).map(|i| (i + round) % servers.len()) {
                    let sample = servers[index].measure(generator, connections, window)?;
                    eprintln!(
                        "round {round} c{connections:<4} {:<10} {:>9.0} req/s  p50 {:>8.1} us  p99 {:>8.1} us  \
                         cpu {:>6.2} us/req{}",
                        sample.side.name(),
                        sample.load.requests_per_second(),
                        sample.load.p50_us,
                        sample.load.p99_us,
                        sample.cpu_us_per_request(),
                        errors_note(sample.load.errors)
                    );
                    samples.push(sample);
                }
            }
        }
        if strace {
            let strace_window = window.min(Duration::from_secs(3));
            for &connections in &options.connections {
                for server in &servers {
                    let traced = server.count_syscalls(generator, connections, strace_window)?;
                    eprintln!(
                        "strace c{connections:<4} {:<10} {:.2} syscalls/req",
                        server.side.name(),
                        traced.per_request_total()
                    );
                    syscalls.push(traced);
                }
            }
        }
    }

    let mut instructions = Vec::new();
    if let Some(requests) = options.instructions {
        let mut servers = sides
            .iter()
            .map(|&side| Server::start(side, &options.launch(true)))
            .collect::<io::Result<Vec<_>>>()?;
        // One unmeasured window each: code paths and allocator warm.
        for server in &mut servers {
            server.count_instructions(50, 1000)?;
        }
        for round in 0..options.rounds {
            for &connections in &options.connections {
                let count = servers.len();
                for index in (0..count).map(|i| (i + round) % count) {
                    let counted = servers[index].count_instructions(connections, requests)?;
                    eprintln!(
                        "callgrind {round} c{connections:<4} {:<10} {:>9.0} instructions/req over {} requests{}",
                        counted.side.name(),
                        counted.per_request(),
                        counted.requests,
                        errors_note(counted.errors)
                    );
                    instructions.push(counted);
                }
            }
        }
    }

    let machine = format!(
        "{cpus} CPUs, load average (1 min) {} at the start, {} at the end",
        load_before,
        report::load_average()
    );
    let report = report::render(
        &options,
        &report::Measured {
            generator,
            samples: &samples,
            syscalls: &syscalls,
            instructions: &instructions,
            instruction_requests: options.instructions.unwrap_or(0),
            machine: &machine,
        },
    );
    println!("{report}");
    if options.write {
        let path = options.output();
        report::write_section(&path, options.section(), &report)?;
        eprintln!("http_load: wrote its section of {}", path.display());
    }
    Ok(())
}

fn errors_note(errors: u64) -> String {
    if errors > 0 {
        format!("  ({errors} errors)")
    } else {
        String::new()
    }
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

/// Descriptors for 1000 connections on each end, in this process and the
/// servers it starts.
fn raise_fd_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, exclusively borrowed out-parameter.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
        limit.rlim_cur = limit.rlim_max;
        // SAFETY: `limit` is a valid `rlimit`; raising the soft limit to
        // the hard one is always allowed.
        unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) };
    }
}
