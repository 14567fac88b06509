//! The server side: one hyper HTTP/1.1 hello server, on rt or on tokio,
//! with the same settings on both (2 workers unless told otherwise,
//! hyper's default HTTP/1.1 builder with the runtime's timer,
//! `TCP_NODELAY`, a 1024 backlog), optionally pinned to one CPU. It prints
//! `port <N>` on stdout once listening and exits when its stdin closes
//! (the parent process ended).

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use std::convert::Infallible;
use std::io::{self, Read, Write};

/// Both servers' worker count (`--split-cores`: 1).
pub(crate) const WORKERS: usize = 2;

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
    std::thread::spawn(|| {
        // Whatever ends the read (EOF, an error), the parent is gone.
        let _ = io::stdin().read_to_end(&mut Vec::new());
        std::process::exit(0);
    });
    match side {
        Side::Rt => serve_rt(workers),
        Side::Tokio => serve_tokio(workers),
        Side::AxumTokio | Side::AxumRt => unreachable!("{} is its own binary", side.name()),
        Side::Floor => {
            // mio's bind sets the same 1024 backlog as the other two.
            let listener = mio::net::TcpListener::bind("127.0.0.1:0".parse().expect("an address"))?;
            announce(listener.local_addr()?.port())?;
            crate::floor::serve(listener.into(), workers)
        }
    }
}

fn announce(port: u16) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    writeln!(stdout, "port {port}")?;
    stdout.flush()
}

fn serve_rt(workers: usize) -> io::Result<()> {
    let runtime = rt::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = rt::net::TcpListener::bind("127.0.0.1:0").await?;
        announce(listener.local_addr()?.port())?;
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
    })
}

fn serve_tokio(workers: usize) -> io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        announce(listener.local_addr()?.port())?;
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
    })
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
