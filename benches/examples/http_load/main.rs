//! End-to-end HTTP load: the same hyper HTTP/1.1 hello server on rt (with
//! `rt::hyper::Io`) and on tokio (with hyper-util's `TokioIo`), 2 workers
//! each, every one in its own process, loaded in turn on 127.0.0.1.
//!
//! ```sh
//! cargo run --release -p rt-benches --example http_load              # 3 rounds x 5 s at 1, 50, 1000 connections
//! cargo run --release -p rt-benches --example http_load -- --strace  # also count syscalls per request
//! cargo run --release -p rt-benches --example http_load -- --rounds 5 --seconds 3 --connections 1,50
//! ```
//!
//! `http_load --serve rt|tokio|floor [WORKERS [CPU]]` runs one server
//! (printing its port) and `http_load --load PORT CONNECTIONS SECONDS
//! [wrk|builtin]` one load window against it, for profiling a side alone.
//!
//! Options: `--rounds N` (default 3), `--seconds S` per window (default
//! 5), `--connections A,B,..` (default `1,50,1000`), `--strace` (one more
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
//! `RESULTS.md`).
//!
//! Per window: requests/s and p50/p99 latency from the load generator, and
//! the server's CPU time (user + system, `/proc/PID/stat`) over the window
//! divided by the requests served. Rounds alternate which side goes first;
//! the table shows each figure's median over the rounds, and the spread of
//! the per-round requests/s ratios tells how noisy the machine was. The
//! load generator shares the machine's cores with the server under test,
//! the same way for both sides.

mod floor;
mod load;
mod measure;
mod server;

use load::{Generator, Load};
use server::Side;
use std::fmt::Write as _;
use std::io::{self, BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

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

struct Options {
    rounds: usize,
    seconds: u64,
    connections: Vec<usize>,
    strace: bool,
    client: Option<Generator>,
    write: bool,
    floor: bool,
    split_cores: bool,
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
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "http_load: {problem}\nusage: http_load [--rounds N] [--seconds S] [--connections 1,50,1000] \
         [--strace] [--client wrk|builtin] [--no-write] [--floor] [--split-cores]"
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
            other => usage(&format!("unknown argument {other}")),
        }
    }
    if options.rounds == 0 || options.seconds == 0 || options.connections.contains(&0) {
        usage("rounds, seconds and connections must be positive");
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
    let mut sides = vec![Side::Rt, Side::Tokio];
    if options.floor {
        sides.push(Side::Floor);
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

    let load_before = load_average();
    let servers = sides
        .iter()
        .map(|&side| Server::start(side, &options))
        .collect::<io::Result<Vec<_>>>()?;
    let window = Duration::from_secs(options.seconds);
    // Warm up both (connections, allocator, page faults), unmeasured.
    for server in &servers {
        generator.run(server.port, 50, Duration::from_secs(1), server.workers)?;
    }

    let mut samples: Vec<Sample> = Vec::new();
    for round in 0..options.rounds {
        for &connections in &options.connections {
            // Each round starts with the next server.
            for index in (0..servers.len()).map(|i| (i + round) % servers.len()) {
                let sample = servers[index].measure(generator, connections, window)?;
                eprintln!(
                    "round {round} c{connections:<4} {:<5} {:>9.0} req/s  p50 {:>8.1} us  p99 {:>8.1} us  \
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
                    "strace c{connections:<4} {:<5} {:.2} syscalls/req",
                    server.side.name(),
                    traced.per_request_total()
                );
                syscalls.push(traced);
            }
        }
    }

    let machine = format!(
        "{cpus} CPUs, load average (1 min) {} at the start, {} at the end",
        load_before,
        load_average()
    );
    let report = render(&options, generator, &samples, &syscalls, &machine);
    println!("{report}");
    if options.write {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("RESULTS.md");
        write_section(&path, options.section(), &report)?;
        eprintln!(
            "http_load: wrote the http_load section of {}",
            path.display()
        );
    }
    Ok(())
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

/// A server process (this program with `--serve`).
struct Server {
    side: Side,
    child: Child,
    port: u16,
    workers: usize,
}

impl Server {
    fn start(side: Side, options: &Options) -> io::Result<Server> {
        let workers = options.workers();
        let mut command = Command::new(std::env::current_exe()?);
        command.args(["--serve", side.name(), &workers.to_string()]);
        if options.split_cores {
            command.arg(SERVER_CPU.to_string());
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let port = line
            .strip_prefix("port ")
            .and_then(|p| p.trim().parse().ok())
            .ok_or_else(|| io::Error::other(format!("{} server said {line:?}", side.name())))?;
        Ok(Server {
            side,
            child,
            port,
            workers,
        })
    }

    fn measure(
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

    fn count_syscalls(
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
struct Sample {
    side: Side,
    connections: usize,
    load: Load,
    cpu_seconds: f64,
}

impl Sample {
    fn requests_per_second(&self) -> f64 {
        self.load.requests_per_second()
    }

    fn p50_us(&self) -> f64 {
        self.load.p50_us
    }

    fn p99_us(&self) -> f64 {
        self.load.p99_us
    }

    fn cpu_us_per_request(&self) -> f64 {
        self.cpu_seconds * 1e6 / self.load.requests.max(1) as f64
    }
}

/// One window under strace.
struct Syscalls {
    side: Side,
    connections: usize,
    requests: u64,
    counts: measure::SyscallCounts,
}

impl Syscalls {
    fn per_request_total(&self) -> f64 {
        self.counts.values().map(|&(calls, _)| calls).sum::<u64>() as f64
            / self.requests.max(1) as f64
    }

    /// The most frequent calls per request, with failures (EAGAIN) noted.
    fn breakdown(&self) -> String {
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

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn render(
    options: &Options,
    generator: Generator,
    samples: &[Sample],
    syscalls: &[Syscalls],
    machine: &str,
) -> String {
    let mut out = String::new();
    let (begin, end) = options.section();
    let _ = writeln!(out, "{begin}");
    if options.split_cores {
        let _ = writeln!(
            out,
            "## HTTP load on split cores: hyper hello server, rt vs tokio\n\n\
             Each server has 1 worker pinned to CPU {SERVER_CPU} and the load generator 1 thread \
             pinned to CPU {CLIENT_CPU}: neither takes CPU time from the other. The load \
             generator's one core needs about as much time per request as a hyper server's, so it \
             caps requests/s near what one server core serves (the floor's core idles part of the \
             time): compare CPU/req, each server's own cost per request. This is not the \
             configuration of the section above (2 workers each, sharing both CPUs with the load \
             generator); it measures the runtimes' cost without the load generator in the way.\n"
        );
    } else {
        let _ = writeln!(out, "## HTTP load: hyper hello server, rt vs tokio\n");
    }
    let _ = writeln!(
        out,
        "Generated by `cargo run --release -p rt-benches --example http_load{}` \
         ({} rounds of {} s windows per server and connection count, alternating which goes first; \
         load from {}; {} per server; all on 127.0.0.1). \
         Each figure is the median over the rounds. CPU/req is the server's user+system time over the \
         window divided by the requests it served. For ratios, req/s above 1.0 and the others below 1.0 \
         mean rt is ahead.\n",
        command_flags(options),
        options.rounds,
        options.seconds,
        generator.name(),
        match options.workers() {
            1 => "1 worker".to_owned(),
            n => format!("{n} workers"),
        },
    );
    let _ = writeln!(
        out,
        "Machine: {machine}: other work shares the CPUs, so single rounds swing widely (see the \
         per-round ratios); syscall counts do not depend on it.\n"
    );
    let _ = writeln!(
        out,
        "| connections | rt req/s | tokio req/s | req/s rt/tokio | per-round req/s ratios | rt p50 | tokio p50 \
         | rt p99 | tokio p99 | p99 rt/tokio | rt CPU/req | tokio CPU/req | CPU rt/tokio |"
    );
    let _ = writeln!(
        out,
        "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for &connections in &options.connections {
        let figure = |side, f| median_of(samples, side, connections, f);
        let rounds = |side| {
            samples
                .iter()
                .filter(move |s: &&Sample| s.side == side && s.connections == connections)
        };
        let round_ratios: Vec<String> = rounds(Side::Rt)
            .zip(rounds(Side::Tokio))
            .map(|(r, t)| format!("{:.2}", r.requests_per_second() / t.requests_per_second()))
            .collect();
        let both = |f| (figure(Side::Rt, f), figure(Side::Tokio, f));
        let (rt_rps, tokio_rps) = both(Sample::requests_per_second);
        let (rt_p50, tokio_p50) = both(Sample::p50_us);
        let (rt_p99, tokio_p99) = both(Sample::p99_us);
        let (rt_cpu, tokio_cpu) = both(Sample::cpu_us_per_request);
        let _ = writeln!(
            out,
            "| {connections} | {rt_rps:.0} | {tokio_rps:.0} | {} | {} | {} | {} | {} | {} | {} | {rt_cpu:.1} µs | {tokio_cpu:.1} µs | {} |",
            ratio(rt_rps, tokio_rps),
            round_ratios.join(" "),
            latency(rt_p50),
            latency(tokio_p50),
            latency(rt_p99),
            latency(tokio_p99),
            ratio(rt_p99, tokio_p99),
            ratio(rt_cpu, tokio_cpu),
        );
    }
    if samples.iter().any(|s| s.side == Side::Floor) {
        render_floor(&mut out, options, samples);
    }
    let errors: u64 = samples.iter().map(|s| s.load.errors).sum();
    if errors > 0 {
        let _ = writeln!(
            out,
            "\nThe load generator saw {errors} errors over all windows."
        );
    }
    if !syscalls.is_empty() {
        let _ = writeln!(
            out,
            "\nSystem calls per request (`strace -c -f` attached to the server for one more window per row; \
             strace slows the server, so these are counts, not speeds):\n"
        );
        let _ = writeln!(
            out,
            "| connections | rt calls/req | tokio calls/req | rt/tokio | rt: most frequent | tokio: most frequent |"
        );
        let _ = writeln!(out, "|---:|---:|---:|---:|---|---|");
        for &connections in &options.connections {
            let find = |side: Side| {
                syscalls
                    .iter()
                    .find(|s| s.side == side && s.connections == connections)
            };
            if let (Some(rt), Some(tokio)) = (find(Side::Rt), find(Side::Tokio)) {
                let _ = writeln!(
                    out,
                    "| {connections} | {:.2} | {:.2} | {} | {} | {} |",
                    rt.per_request_total(),
                    tokio.per_request_total(),
                    ratio(rt.per_request_total(), tokio.per_request_total()),
                    rt.breakdown(),
                    tokio.breakdown(),
                );
            }
        }
    }
    let _ = write!(out, "{end}");
    out
}

/// The flags of the run that made a table, as a user would type them.
fn command_flags(options: &Options) -> String {
    let flags: Vec<&str> = [
        (options.strace, "--strace"),
        (options.floor, "--floor"),
        (options.split_cores, "--split-cores"),
    ]
    .into_iter()
    .filter_map(|(set, flag)| set.then_some(flag))
    .collect();
    if flags.is_empty() {
        String::new()
    } else {
        format!(" -- {}", flags.join(" "))
    }
}

/// The median over the rounds of `figure` for `side` at `connections`.
fn median_of(
    samples: &[Sample],
    side: Side,
    connections: usize,
    figure: fn(&Sample) -> f64,
) -> f64 {
    median(
        samples
            .iter()
            .filter(|s| s.side == side && s.connections == connections)
            .map(figure)
            .collect(),
    )
}

/// The floor's table (`--floor`): how far ahead of tokio a server with no
/// runtime and no HTTP library gets, which bounds what any runtime under
/// hyper can gain on this machine.
fn render_floor(out: &mut String, options: &Options, samples: &[Sample]) {
    let _ = writeln!(
        out,
        "\nThe floor (`--floor`): the same responses from {}, no \
         runtime and no HTTP library (`examples/http_load/floor.rs`): one read and one write per \
         request. Its lead over tokio is about the most any runtime serving hyper could gain here: \
         the kernel's work per request is the same for all three{}.\n",
        match options.workers() {
            1 => "1 thread with an epoll loop".to_owned(),
            n => format!("{n} threads with an epoll loop each"),
        },
        if options.split_cores {
            ""
        } else {
            ", and the load generator shares the CPUs, so a server's throughput also depends on \
             how much CPU it leaves to the client"
        },
    );
    let _ = writeln!(
        out,
        "| connections | floor req/s | req/s floor/tokio | req/s rt/floor | floor CPU/req | CPU floor/tokio | CPU rt/floor |"
    );
    let _ = writeln!(out, "|---:|---:|---:|---:|---:|---:|---:|");
    let rps: fn(&Sample) -> f64 = Sample::requests_per_second;
    let cpu: fn(&Sample) -> f64 = Sample::cpu_us_per_request;
    for &connections in &options.connections {
        let figure = |side, f| median_of(samples, side, connections, f);
        let _ = writeln!(
            out,
            "| {connections} | {:.0} | {} | {} | {:.1} µs | {} | {} |",
            figure(Side::Floor, rps),
            ratio(figure(Side::Floor, rps), figure(Side::Tokio, rps)),
            ratio(figure(Side::Rt, rps), figure(Side::Floor, rps)),
            figure(Side::Floor, cpu),
            ratio(figure(Side::Floor, cpu), figure(Side::Tokio, cpu)),
            ratio(figure(Side::Rt, cpu), figure(Side::Floor, cpu)),
        );
    }
}

/// The 1-minute load average (`/proc/loadavg`), or `?`.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}

fn ratio(a: f64, b: f64) -> String {
    format!("{:.2}", a / b)
}

fn latency(us: f64) -> String {
    if us >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{us:.0} µs")
    }
}

/// Replaces the section of `path` between `markers` with `section` (or
/// appends it).
fn write_section(
    path: &std::path::Path,
    (begin_marker, end_marker): (&str, &str),
    section: &str,
) -> io::Result<()> {
    let old = std::fs::read_to_string(path).unwrap_or_default();
    let new = match (old.find(begin_marker), old.find(end_marker)) {
        (Some(begin), Some(end)) if begin < end => {
            format!(
                "{}{section}{}",
                &old[..begin],
                &old[end + end_marker.len()..]
            )
        }
        _ => format!("{}\n{section}\n", old.trim_end()),
    };
    std::fs::write(path, new)
}
