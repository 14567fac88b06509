//! The Markdown tables: one comparison (rt against tokio, or with `--axum`
//! the axum app on the facade against the same app on tokio) as medians
//! over the rounds with the per-round ratios, a reference server's table
//! for information (the floor, or with `--axum` rt's own `rt::hyper`
//! server), syscalls and instructions per request; and the section of a
//! file they replace.

use crate::Options;
use crate::load::Generator;
use crate::process::{Instructions, Sample, Syscalls};
use crate::server::Side;
use std::fmt::Write as _;
use std::io;

/// Everything one run measured.
pub(crate) struct Measured<'a> {
    pub(crate) generator: Generator,
    pub(crate) samples: &'a [Sample],
    pub(crate) syscalls: &'a [Syscalls],
    pub(crate) instructions: &'a [Instructions],
    pub(crate) instruction_requests: u64,
    pub(crate) machine: &'a str,
}

pub(crate) fn render(options: &Options, measured: &Measured<'_>) -> String {
    let mut out = String::new();
    let (begin, end) = options.section();
    let (subject, baseline) = options.pair();
    let (s, b) = (subject.name(), baseline.name());
    let _ = writeln!(out, "{begin}");
    if options.axum.is_some() {
        let _ = writeln!(
            out,
            "## HTTP load: the axum hello app on tokio and on rt (tokio patched to the facade)\n\n\
             `axum-tokio` and `axum-rt` are one source (`compat/axum-bench/app/main.rs`: \
             `axum::serve` with a `Router` answering `Hello, World!`), built twice: on real tokio \
             and with `[patch.crates-io] tokio = compat/tokio`. `rt` is rt's own hyper server \
             (`rt::hyper`, not axum), for information.\n"
        );
    } else if options.split_cores {
        let _ = writeln!(
            out,
            "## HTTP load on split cores: hyper hello server, rt vs tokio\n\n\
             Each server has 1 worker pinned to CPU {} and the load generator 1 thread \
             pinned to CPU {}: neither takes CPU time from the other. The load \
             generator's one core needs about as much time per request as a hyper server's, so it \
             caps requests/s near what one server core serves (the floor's core idles part of the \
             time): compare CPU/req, each server's own cost per request. This is not the \
             configuration of the section above (2 workers each, sharing both CPUs with the load \
             generator); it measures the runtimes' cost without the load generator in the way.\n",
            crate::SERVER_CPU,
            crate::CLIENT_CPU,
        );
    } else {
        let _ = writeln!(out, "## HTTP load: hyper hello server, rt vs tokio\n");
    }
    if !measured.samples.is_empty() {
        render_comparison(&mut out, options, measured, subject, baseline);
        if let Some(reference) = options.reference() {
            render_reference(&mut out, options, measured.samples, reference, baseline);
        }
    }
    let errors: u64 = measured.samples.iter().map(|s| s.load.errors).sum::<u64>()
        + measured.instructions.iter().map(|i| i.errors).sum::<u64>();
    if errors > 0 {
        let _ = writeln!(
            out,
            "\nThe load generator saw {errors} errors over all windows."
        );
    }
    if !measured.syscalls.is_empty() {
        let _ = writeln!(
            out,
            "\nSystem calls per request (`strace -c -f` attached to the server for one more window per row; \
             strace slows the server, so these are counts, not speeds):\n"
        );
        let _ = writeln!(
            out,
            "| connections | {s} calls/req | {b} calls/req | {s}/{b} | {s}: most frequent | {b}: most frequent |"
        );
        let _ = writeln!(out, "|---:|---:|---:|---:|---|---|");
        for &connections in &options.connections {
            let find = |side: Side| {
                measured
                    .syscalls
                    .iter()
                    .find(|s| s.side == side && s.connections == connections)
            };
            if let (Some(x), Some(y)) = (find(subject), find(baseline)) {
                let _ = writeln!(
                    out,
                    "| {connections} | {:.2} | {:.2} | {} | {} | {} |",
                    x.per_request_total(),
                    y.per_request_total(),
                    ratio(x.per_request_total(), y.per_request_total()),
                    x.breakdown(),
                    y.breakdown(),
                );
            }
        }
    }
    if !measured.instructions.is_empty() {
        render_instructions(&mut out, options, measured, subject, baseline);
    }
    let _ = write!(out, "{end}");
    out
}

/// The wall-clock table: requests/s, latency and CPU time per request.
fn render_comparison(
    out: &mut String,
    options: &Options,
    measured: &Measured<'_>,
    subject: Side,
    baseline: Side,
) {
    let (s, b) = (subject.name(), baseline.name());
    let _ = writeln!(
        out,
        "Generated by `{}` \
         ({} rounds of {} s windows per server and connection count, alternating which goes first; \
         load from {}; {} per server; all on 127.0.0.1). \
         Each figure is the median over the rounds. CPU/req is the server's user+system time over the \
         window divided by the requests it served. For ratios, req/s above 1.0 and the others below 1.0 \
         mean {s} is ahead.\n",
        command_line(options),
        options.rounds,
        options.seconds,
        measured.generator.name(),
        match options.workers() {
            1 => "1 worker".to_owned(),
            n => format!("{n} workers"),
        },
    );
    let _ = writeln!(
        out,
        "Machine: {}: other work shares the CPUs, so single rounds swing widely (see the \
         per-round ratios); syscall and instruction counts do not depend on it.\n",
        measured.machine
    );
    let _ = writeln!(
        out,
        "| connections | {s} req/s | {b} req/s | req/s {s}/{b} | per-round req/s ratios | {s} p50 | {b} p50 \
         | {s} p99 | {b} p99 | p99 {s}/{b} | {s} CPU/req | {b} CPU/req | CPU {s}/{b} | per-round CPU ratios |"
    );
    let _ = writeln!(
        out,
        "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    let samples = measured.samples;
    for &connections in &options.connections {
        let figure = |side, f| median_of(samples, side, connections, f);
        let round_ratios = |f: fn(&Sample) -> f64| {
            let rounds = |side| {
                samples
                    .iter()
                    .filter(move |s: &&Sample| s.side == side && s.connections == connections)
            };
            rounds(subject)
                .zip(rounds(baseline))
                .map(|(x, y)| format!("{:.2}", f(x) / f(y)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let both = |f| (figure(subject, f), figure(baseline, f));
        let (s_rps, b_rps) = both(Sample::requests_per_second);
        let (s_p50, b_p50) = both(Sample::p50_us);
        let (s_p99, b_p99) = both(Sample::p99_us);
        let (s_cpu, b_cpu) = both(Sample::cpu_us_per_request);
        let _ = writeln!(
            out,
            "| {connections} | {s_rps:.0} | {b_rps:.0} | {} | {} | {} | {} | {} | {} | {} | {s_cpu:.1} µs | {b_cpu:.1} µs | {} | {} |",
            ratio(s_rps, b_rps),
            round_ratios(Sample::requests_per_second),
            latency(s_p50),
            latency(b_p50),
            latency(s_p99),
            latency(b_p99),
            ratio(s_p99, b_p99),
            ratio(s_cpu, b_cpu),
            round_ratios(Sample::cpu_us_per_request),
        );
    }
}

/// The command that made a table, as a user would type it.
fn command_line(options: &Options) -> String {
    let flags: Vec<String> = [
        (options.rounds != 3, format!("--rounds {}", options.rounds)),
        (
            options.seconds != 5,
            format!("--seconds {}", options.seconds),
        ),
        (
            options.connections != [1, 50, 1000],
            format!(
                "--connections {}",
                options
                    .connections
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        ),
        (options.strace, "--strace".to_owned()),
        (options.floor, "--floor".to_owned()),
        (options.split_cores, "--split-cores".to_owned()),
        (
            options.instructions.is_some(),
            format!("--instructions {}", options.instructions.unwrap_or(0)),
        ),
        (options.instructions_only, "--instructions-only".to_owned()),
    ]
    .into_iter()
    .filter_map(|(set, flag)| set.then_some(flag))
    .collect();
    if options.axum.is_some() {
        let mut line = "compat/axum-bench/run".to_owned();
        for flag in &flags {
            line.push(' ');
            line.push_str(flag);
        }
        line
    } else if flags.is_empty() {
        "cargo run --release -p rt-benches --example http_load".to_owned()
    } else {
        format!(
            "cargo run --release -p rt-benches --example http_load -- {}",
            flags.join(" ")
        )
    }
}

pub(crate) fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
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

/// A reference server's table, for information: the floor (`--floor`:
/// how far ahead of tokio a server with no runtime and no HTTP library
/// gets, which bounds what any runtime under hyper can gain on this
/// machine), or with `--axum` rt's own hyper server.
fn render_reference(
    out: &mut String,
    options: &Options,
    samples: &[Sample],
    reference: Side,
    baseline: Side,
) {
    let (r, b) = (reference.name(), baseline.name());
    if reference == Side::Floor {
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
    } else {
        let _ = writeln!(
            out,
            "\n`{r}`, for information: rt's own hyper server (`rt::hyper::Io`, no axum, no facade; \
             `benches/examples/http_load/server.rs`) in the same rounds, against `{b}`.\n"
        );
        let _ = writeln!(
            out,
            "| connections | {r} req/s | req/s {r}/{b} | {r} p99 | p99 {r}/{b} | {r} CPU/req | CPU {r}/{b} |"
        );
        let _ = writeln!(out, "|---:|---:|---:|---:|---:|---:|---:|");
    }
    let rps: fn(&Sample) -> f64 = Sample::requests_per_second;
    let cpu: fn(&Sample) -> f64 = Sample::cpu_us_per_request;
    let p99: fn(&Sample) -> f64 = Sample::p99_us;
    for &connections in &options.connections {
        let figure = |side, f| median_of(samples, side, connections, f);
        if reference == Side::Floor {
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
        } else {
            let _ = writeln!(
                out,
                "| {connections} | {:.0} | {} | {} | {} | {:.1} µs | {} |",
                figure(reference, rps),
                ratio(figure(reference, rps), figure(baseline, rps)),
                latency(figure(reference, p99)),
                ratio(figure(reference, p99), figure(baseline, p99)),
                figure(reference, cpu),
                ratio(figure(reference, cpu), figure(baseline, cpu)),
            );
        }
    }
}

/// The instruction counts (`--instructions N`).
fn render_instructions(
    out: &mut String,
    options: &Options,
    measured: &Measured<'_>,
    subject: Side,
    baseline: Side,
) {
    let (s, b) = (subject.name(), baseline.name());
    let reference = options.reference();
    let _ = writeln!(
        out,
        "\nInstructions per request (`--instructions {}`): each server started again under \
         valgrind's callgrind, which counts the user-space instructions all its threads execute \
         (not the kernel's); per round and connection count, the built-in client makes about {} \
         requests after every connection was served once, rounds alternating which server goes \
         first. Unlike times, these counts hardly move with the machine's load. Median over the \
         rounds; below 1.0, {s} executes fewer.\n",
        measured.instruction_requests, measured.instruction_requests
    );
    let reference_columns = match reference {
        Some(r) => format!(" {} instr/req | {}/{b} |", r.name(), r.name()),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "| connections | {s} instr/req | {b} instr/req | {s}/{b} | per-round ratios |{reference_columns}"
    );
    let _ = writeln!(
        out,
        "|---:|---:|---:|---:|---|{}",
        if reference.is_some() {
            "---:|---:|"
        } else {
            ""
        }
    );
    for &connections in &options.connections {
        let rounds = |side: Side| {
            measured
                .instructions
                .iter()
                .filter(move |i| i.side == side && i.connections == connections)
        };
        let figure = |side| median(rounds(side).map(Instructions::per_request).collect());
        let per_round: Vec<String> = rounds(subject)
            .zip(rounds(baseline))
            .map(|(x, y)| format!("{:.3}", x.per_request() / y.per_request()))
            .collect();
        let (x, y) = (figure(subject), figure(baseline));
        let reference_cells = match reference {
            Some(r) => format!(" {:.0} | {} |", figure(r), ratio(figure(r), y)),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "| {connections} | {x:.0} | {y:.0} | {:.3} | {} |{reference_cells}",
            x / y,
            per_round.join(" "),
        );
    }
}

/// The 1-minute load average (`/proc/loadavg`), or `?`.
pub(crate) fn load_average() -> String {
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
pub(crate) fn write_section(
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
