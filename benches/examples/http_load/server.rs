//! The server side: one hyper HTTP/1.1 hello server, on rt or on tokio,
//! with the same settings on both (2 workers unless told otherwise,
//! hyper's default HTTP/1.1 builder with the runtime's timer,
//! `TCP_NODELAY`, the same listener: see [`listener_on`]), optionally pinned
//! to one CPU. It prints `port <N>` on stdout once listening and exits
//! when its stdin closes (the parent process ended). A line `metrics` on
//! its stdin makes it print one line `metrics name=value ...` of its
//! runtime's counters (rt's own, or tokio's stable ones), for the
//! profile (`profile.rs`).

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use std::convert::Infallible;
use std::io::{self, BufRead, Write};

/// Both servers' worker count (`--split-cores`: 1).
pub(crate) const WORKERS: usize = 2;

/// The listen backlog every server asks for. The kernel caps it at
/// `net.core.somaxconn` (4096 by default since Linux 5.4); 10,000
/// connections arriving at once need the server to accept while they
/// arrive, or more room (as root: `sysctl -w net.core.somaxconn=16384`).
/// The scale measurement (`scale.rs`) reports the kernel's listen-queue
/// overflows, so a burst that did overflow (its clients then wait for a
/// SYN retransmission, 1 s) is visible.
pub(crate) const BACKLOG: i32 = 16_384;

/// What a server's `metrics` command prints: its runtime's counters.
type Counters = Box<dyn Fn() -> String + Send>;

/// Which server answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Rt,
    Tokio,
    /// Not hyper: the floor (see `floor.rs`), measured with `--floor`.
    Floor,
    /// `--axum`: the `axum::serve` hello app of `compat/axum-bench/`
    /// built on real tokio, a separate binary.
    AxumTokio,
    /// `--axum`: the same app built with tokio patched to rt's facade.
    AxumRt,
}

impl Side {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Side::Rt => "rt",
            Side::Tokio => "tokio",
            Side::Floor => "floor",
            Side::AxumTokio => "axum-tokio",
            Side::AxumRt => "axum-rt",
        }
    }

    /// A server this program runs itself (`--serve NAME`).
    pub(crate) fn parse(name: &str) -> Option<Side> {
        [Side::Rt, Side::Tokio, Side::Floor]
            .into_iter()
            .find(|side| side.name() == name)
    }

    /// The binary of a server built elsewhere (`--axum DIR`), which takes
    /// the worker count as its argument, prints `port <N>` and exits when
    /// its stdin closes, as `--serve` does.
    pub(crate) fn external_binary(self) -> Option<&'static str> {
        match self {
            Side::AxumTokio => Some("axum-bench-tokio"),
            Side::AxumRt => Some("axum-bench-rt"),
            Side::Rt | Side::Tokio | Side::Floor => None,
        }
    }
}

async fn hello(_request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from_static(
        b"Hello, World!",
    ))))
}

/// Runs the server on `side` with `workers` threads until stdin closes,
/// all of them on CPU `cpu` if given.
pub(crate) fn serve(side: Side, workers: usize, cpu: Option<usize>) -> io::Result<()> {
    if let Some(cpu) = cpu {
        // Before any thread starts: threads inherit their creator's CPUs.
        pin_to_cpu(cpu)?;
    }
    crate::raise_fd_limit();
    if per_core(side) {
        return serve_per_core(side, workers);
    }
    let listener = listener_on(0, false)?;
    match side {
        Side::Rt => serve_rt(listener, workers),
        Side::Tokio => serve_tokio(listener, workers),
        Side::AxumTokio | Side::AxumRt => unreachable!("{} is its own binary", side.name()),
        Side::Floor => {
            announce(listener.local_addr()?.port())?;
            obey_stdin(Box::new(String::new));
            crate::floor::serve(listener, workers)
        }
    }
}

/// The listener all three servers take: 127.0.0.1, `port` (0: an
/// ephemeral one), `SO_REUSEADDR` (and `SO_REUSEPORT` if asked), a
/// [`BACKLOG`] backlog, non-blocking.
fn listener_on(port: u16, reuse_port: bool) -> io::Result<std::net::TcpListener> {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None)?;
    socket.set_reuse_address(true)?;
    if reuse_port {
        socket.set_reuse_port(true)?;
    }
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    socket.bind(&address.into())?;
    socket.listen(BACKLOG)?;
    socket.set_nonblocking(true)?;
    Ok(socket.into())
}

/// Serves the parent's commands on stdin, from a thread of its own: a
/// line `metrics` prints `counters()`; the end of stdin (the parent is
/// gone, whatever ended the read) exits the process.
fn obey_stdin(counters: Counters) {
    std::thread::spawn(move || {
        for line in io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if line.trim() == "metrics" {
                let mut stdout = io::stdout().lock();
                if writeln!(stdout, "metrics {}", counters()).is_err() || stdout.flush().is_err() {
                    break;
                }
            }
        }
        std::process::exit(0);
    });
}

fn announce(port: u16) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    writeln!(stdout, "port {port}")?;
    stdout.flush()
}

/// `HTTP_LOAD_GLOBAL_QUEUE_INTERVAL`: a fixed global-queue interval for
/// either runtime's server (both tune it by default), to trace how each
/// trades throughput for tail latency (`benches/README.md`).
fn global_queue_interval() -> io::Result<Option<u32>> {
    let Some(value) = std::env::var_os("HTTP_LOAD_GLOBAL_QUEUE_INTERVAL") else {
        return Ok(None);
    };
    match value.to_str().and_then(|value| value.parse().ok()) {
        Some(ticks) if ticks > 0 => Ok(Some(ticks)),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "HTTP_LOAD_GLOBAL_QUEUE_INTERVAL must be a whole number of ticks, at least 1, not {value:?}"
            ),
        )),
    }
}

fn serve_rt(listener: std::net::TcpListener, workers: usize) -> io::Result<()> {
    let mut builder = rt::runtime::Builder::new_multi_thread();
    builder.worker_threads(workers).enable_all();
    if let Some(ticks) = global_queue_interval()? {
        builder.global_queue_interval(ticks);
    }
    let runtime = builder.build()?;
    let metrics = runtime.metrics();
    obey_stdin(Box::new(move || rt_counters(&metrics)));
    runtime.block_on(async {
        let listener = rt::net::TcpListener::from_std(listener)?;
        announce(listener.local_addr()?.port())?;
        accept_rt(listener).await
    })
}

/// Serves every connection `listener` accepts, each in a task of its own.
async fn accept_rt(listener: rt::net::TcpListener) -> io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        rt::spawn(async move {
            // A client closing mid-request is its own business.
            let _ = http1::Builder::new()
                .timer(rt::hyper::Timer::new())
                .serve_connection(rt::hyper::Io::new(stream), service_fn(hello))
                .await;
        });
    }
}

fn serve_tokio(listener: std::net::TcpListener, workers: usize) -> io::Result<()> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.worker_threads(workers).enable_all();
    if let Some(ticks) = global_queue_interval()? {
        builder.global_queue_interval(ticks);
    }
    let runtime = builder.build()?;
    let metrics = runtime.metrics();
    obey_stdin(Box::new(move || tokio_counters(&metrics)));
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        announce(listener.local_addr()?.port())?;
        accept_tokio(listener).await
    })
}

async fn accept_tokio(listener: tokio::net::TcpListener) -> io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        tokio::spawn(async move {
            let _ = http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service_fn(hello))
                .await;
        });
    }
}

/// `HTTP_LOAD_PER_CORE=rt,tokio` (either or both): that side's server is
/// `workers` threads, each with a current-thread runtime of its own and
/// its own `SO_REUSEPORT` listener on one port (the kernel spreads the
/// connections over them), instead of one multi-thread runtime: no
/// stealing, and each connection's events, wakes and polls stay on one
/// thread. It measures what thread-per-core, the layout actix-web and
/// per-worker reactors use, would gain on this workload (`RESULTS.md`,
/// issue 31, thread-per-core).
fn per_core(side: Side) -> bool {
    std::env::var("HTTP_LOAD_PER_CORE")
        .is_ok_and(|sides| sides.split(',').any(|name| name.trim() == side.name()))
}

fn serve_per_core(side: Side, workers: usize) -> io::Result<()> {
    if !matches!(side, Side::Rt | Side::Tokio) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("HTTP_LOAD_PER_CORE takes rt and tokio, not {}", side.name()),
        ));
    }
    let listeners = reuse_port_listeners(workers)?;
    announce(listeners[0].local_addr()?.port())?;
    // A runtime per thread: no counters to sum.
    obey_stdin(Box::new(String::new));
    let threads = listeners
        .into_iter()
        .map(|listener| {
            std::thread::spawn(move || match side {
                Side::Rt => rt::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?
                    .block_on(async { accept_rt(rt::net::TcpListener::from_std(listener)?).await }),
                Side::Tokio => tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?
                    .block_on(async {
                        accept_tokio(tokio::net::TcpListener::from_std(listener)?).await
                    }),
                Side::Floor | Side::AxumTokio | Side::AxumRt => unreachable!("refused above"),
            })
        })
        .collect::<Vec<_>>();
    for thread in threads {
        thread
            .join()
            .map_err(|_| io::Error::other("a per-core server thread panicked"))??;
    }
    Ok(())
}

/// `count` listeners as [`listener_on`] makes them, all on one port with
/// `SO_REUSEPORT`.
fn reuse_port_listeners(count: usize) -> io::Result<Vec<std::net::TcpListener>> {
    let mut listeners: Vec<std::net::TcpListener> = Vec::with_capacity(count);
    for _ in 0..count {
        let port = match listeners.first() {
            Some(first) => first.local_addr()?.port(),
            None => 0,
        };
        listeners.push(listener_on(port, true)?);
    }
    Ok(listeners)
}

/// rt's counters, summed over the workers.
fn rt_counters(metrics: &rt::runtime::RuntimeMetrics) -> String {
    let workers = 0..metrics.num_workers();
    let sum = |f: &dyn Fn(usize) -> u64| workers.clone().map(f).sum::<u64>();
    let busy: std::time::Duration = workers
        .clone()
        .map(|w| metrics.worker_total_busy_duration(w))
        .sum();
    format!(
        "polls={} steal_operations={} steals={} parks={} unparks={} lifo_hits={} \
         overflows={} forced_yields={} io_events={} busy_us={}",
        sum(&|w| metrics.worker_poll_count(w)),
        sum(&|w| metrics.worker_steal_operations(w)),
        sum(&|w| metrics.worker_steal_count(w)),
        sum(&|w| metrics.worker_park_count(w)),
        sum(&|w| metrics.worker_unpark_count(w)),
        sum(&|w| metrics.worker_lifo_slot_hits(w)),
        sum(&|w| metrics.worker_overflow_count(w)),
        metrics.budget_forced_yield_count(),
        metrics.io_driver_ready_count(),
        busy.as_micros(),
    )
}

/// tokio's counters, summed over the workers: the stable ones, and with
/// `RUSTFLAGS="--cfg tokio_unstable"` (a build of its own) the ones that
/// match rt's (polls, steals) and where its wakes went (local queue,
/// overflow to the injector, from outside).
fn tokio_counters(metrics: &tokio::runtime::RuntimeMetrics) -> String {
    let workers = 0..metrics.num_workers();
    let sum = |f: &dyn Fn(usize) -> u64| workers.clone().map(f).sum::<u64>();
    let busy: std::time::Duration = workers
        .clone()
        .map(|w| metrics.worker_total_busy_duration(w))
        .sum();
    let stable = format!(
        "parks={} busy_us={}",
        sum(&|w| metrics.worker_park_count(w)),
        busy.as_micros()
    );
    #[cfg(tokio_unstable)]
    let stable = format!(
        "{stable} polls={} steal_operations={} steals={} local_schedules={} overflows={} \
         remote_schedules={} noops={} forced_yields={} io_events={}",
        sum(&|w| metrics.worker_poll_count(w)),
        sum(&|w| metrics.worker_steal_operations(w)),
        sum(&|w| metrics.worker_steal_count(w)),
        sum(&|w| metrics.worker_local_schedule_count(w)),
        sum(&|w| metrics.worker_overflow_count(w)),
        metrics.remote_schedule_count(),
        sum(&|w| metrics.worker_noop_count(w)),
        metrics.budget_forced_yield_count(),
        metrics.io_driver_ready_count(),
    );
    stable
}

/// Restricts the calling thread, and the threads it starts from now on,
/// to CPU `cpu`.
pub(crate) fn pin_to_cpu(cpu: usize) -> io::Result<()> {
    // SAFETY: an all-zero `cpu_set_t` is a valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid set; `CPU_SET` checks `cpu` against its size.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: `set` is a valid `cpu_set_t` of the size passed; pid 0 is
    // the calling thread.
    let result = unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) };
    if result == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}
