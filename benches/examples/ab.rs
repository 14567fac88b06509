//! Alternating A/B runs of one workload on rt and tokio in one process:
//! round after round, rt then tokio, then the medians, minima and ratios.
//!
//! Criterion measures each runtime in its own time window, so a noisy
//! machine (a background build, a virtual machine whose wake-up latency
//! changes regime) can tilt one side. Interleaving exposes both runtimes
//! to the same conditions. Use it to check a criterion row that looks off:
//!
//! ```sh
//! cargo run --release -p rt-benches --example ab -- oneshot 100
//! ```
//!
//! Workloads: `sleep_many`, `oneshot`, `notify_waiters`, `notify_one`,
//! `semaphore_contended`, `fs_read`, `file_read_to_end`, and the criterion
//! `net` bench's own shapes `echo_64b`, `echo_64k`, `accept`, `proxy`,
//! `udp_shared_recv`. With `AB_SEQ` set
//! it also prints every round's time in order, to tell a few slow rounds
//! from a slow regime;
//! with `AB_ONLY=rt` (or `tokio`) it runs one side only, for profiling.

#[path = "../benches/net_shapes/mod.rs"]
mod net_shapes;

/// The net shapes under the crate names, for `workloads!`.
mod net_by_crate {
    pub(crate) use crate::net_shapes::rt_side as rt;
    pub(crate) use crate::net_shapes::tokio_side as tokio;
}

use std::cell::RefCell;
use std::time::Duration;

/// Generates one module per runtime with the same workload bodies, each
/// returning how long its measured part took.
macro_rules! workloads {
    ($krate:ident) => {
        pub(crate) mod $krate {
            use std::path::Path;
            use std::time::{Duration, Instant};

            pub(crate) fn runtime() -> ::$krate::runtime::Runtime {
                ::$krate::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .expect("building the runtime")
            }

            /// 10 000 tasks, each sleeping 1 ms ten times.
            pub(crate) fn sleep_many(rt: &::$krate::runtime::Runtime) -> Duration {
                rt.block_on(async {
                    let start = Instant::now();
                    let sleepers: Vec<_> = (0..10_000)
                        .map(|_| {
                            ::$krate::spawn(async {
                                for _ in 0..10 {
                                    ::$krate::time::sleep(Duration::from_millis(1)).await;
                                }
                            })
                        })
                        .collect();
                    for sleeper in sleepers {
                        sleeper.await.expect("a sleeper failed");
                    }
                    start.elapsed()
                })
            }

            /// A server task that lives as long as the runtime, as in the
            /// criterion `sync_oneshot_request_reply` row: it answers each
            /// request on the oneshot the request carries.
            pub(crate) fn oneshot_server(
                rt: &::$krate::runtime::Runtime,
            ) -> ::$krate::sync::mpsc::Sender<::$krate::sync::oneshot::Sender<()>> {
                use ::$krate::sync::{mpsc, oneshot};
                let (requests, mut incoming) = mpsc::channel::<oneshot::Sender<()>>(10);
                drop(rt.spawn(async move {
                    while let Some(reply) = incoming.recv().await {
                        reply.send(()).expect("the requester waits");
                    }
                }));
                requests
            }

            /// 1 000 round trips with the server, from `block_on`.
            pub(crate) fn oneshot(
                rt: &::$krate::runtime::Runtime,
                requests: &::$krate::sync::mpsc::Sender<::$krate::sync::oneshot::Sender<()>>,
            ) -> Duration {
                let start = Instant::now();
                rt.block_on(async {
                    for _ in 0..1_000 {
                        let (reply, replied) = ::$krate::sync::oneshot::channel();
                        requests.send(reply).await.expect("the server runs");
                        replied.await.expect("the server replies");
                    }
                });
                start.elapsed()
            }

            /// The `Notify` and wake-up counter shared by 10 waiter tasks
            /// that live as long as the runtime, as in the criterion
            /// `sync_notify_*` rows.
            pub(crate) fn notify_waiters_spawned(
                rt: &::$krate::runtime::Runtime,
            ) -> (
                std::sync::Arc<::$krate::sync::Notify>,
                std::sync::Arc<std::sync::atomic::AtomicUsize>,
            ) {
                use std::sync::Arc;
                use std::sync::atomic::{AtomicUsize, Ordering};
                let shared = Arc::new(::$krate::sync::Notify::new());
                let woken = Arc::new(AtomicUsize::new(0));
                for _ in 0..10 {
                    let (shared, woken) = (shared.clone(), woken.clone());
                    drop(rt.spawn(async move {
                        loop {
                            shared.notified().await;
                            woken.fetch_add(1, Ordering::Relaxed);
                        }
                    }));
                }
                (shared, woken)
            }

            /// A notifier task calling `notify_waiters` (or `notify_one`)
            /// then yielding, until the waiters have seen 500 wake-ups.
            pub(crate) fn notify(
                rt: &::$krate::runtime::Runtime,
                (shared, woken): &(
                    std::sync::Arc<::$krate::sync::Notify>,
                    std::sync::Arc<std::sync::atomic::AtomicUsize>,
                ),
                all: bool,
            ) -> Duration {
                use std::sync::atomic::Ordering;
                woken.store(0, Ordering::Relaxed);
                let (shared, woken) = (shared.clone(), woken.clone());
                rt.block_on(async move {
                    let start = Instant::now();
                    let notifier = ::$krate::spawn(async move {
                        while woken.load(Ordering::Relaxed) < 500 {
                            if all {
                                shared.notify_waiters();
                            } else {
                                shared.notify_one();
                            }
                            ::$krate::task::yield_now().await;
                        }
                    });
                    notifier.await.expect("the notifier failed");
                    start.elapsed()
                })
            }

            /// 6 tasks share 2 permits; each acquires 200 times and yields
            /// while holding one (the criterion `sync_semaphore_contended`).
            pub(crate) fn semaphore_contended(rt: &::$krate::runtime::Runtime) -> Duration {
                let semaphore = std::sync::Arc::new(::$krate::sync::Semaphore::new(2));
                let start = Instant::now();
                rt.block_on(async {
                    let tasks: Vec<_> = (0..6)
                        .map(|_| {
                            let semaphore = semaphore.clone();
                            ::$krate::spawn(async move {
                                for _ in 0..200 {
                                    let permit = semaphore.acquire().await.expect("never closed");
                                    ::$krate::task::yield_now().await;
                                    drop(permit);
                                }
                            })
                        })
                        .collect();
                    for task in tasks {
                        task.await.expect("a contending task failed");
                    }
                });
                start.elapsed()
            }

            /// One round of the `net` bench's echo workload over the
            /// connections in `clients`, which it gives back.
            pub(crate) fn echo(
                rt: &::$krate::runtime::Runtime,
                clients: &std::cell::RefCell<Option<Vec<::$krate::net::TcpStream>>>,
                (len, rounds): (usize, usize),
            ) -> Duration {
                let open = clients.borrow_mut().take().expect("connections");
                let start = Instant::now();
                let open = rt.block_on(crate::net_by_crate::$krate::echo_rounds(open, len, rounds));
                let elapsed = start.elapsed();
                *clients.borrow_mut() = Some(open);
                elapsed
            }

            /// One batch of the `net` bench's accept workload.
            pub(crate) fn accept(
                rt: &::$krate::runtime::Runtime,
                (listener, addr): &(
                    std::sync::Arc<::$krate::net::TcpListener>,
                    std::net::SocketAddr,
                ),
            ) -> Duration {
                let start = Instant::now();
                rt.block_on(crate::net_by_crate::$krate::accept_batch(
                    listener.clone(),
                    *addr,
                    crate::net_shapes::ACCEPTS,
                ));
                start.elapsed()
            }

            /// One transfer of the `net` bench's proxy workload.
            pub(crate) fn proxy(
                rt: &::$krate::runtime::Runtime,
                proxy: std::net::SocketAddr,
            ) -> Duration {
                let start = Instant::now();
                rt.block_on(crate::net_by_crate::$krate::proxy_transfer(
                    proxy,
                    crate::net_shapes::PROXY_TOTAL,
                ));
                start.elapsed()
            }

            /// One iteration of the `net` bench's shared-socket UDP workload.
            pub(crate) fn udp_shared_recv(
                rt: &::$krate::runtime::Runtime,
                (receiver, sender): &(
                    std::sync::Arc<::$krate::net::UdpSocket>,
                    ::$krate::net::UdpSocket,
                ),
            ) -> Duration {
                let start = Instant::now();
                rt.block_on(crate::net_by_crate::$krate::udp_shared_recv(
                    receiver,
                    sender,
                    crate::net_shapes::DATAGRAMS,
                ));
                start.elapsed()
            }

            /// `fs::read` of the file at `path`.
            pub(crate) fn fs_read(rt: &::$krate::runtime::Runtime, path: &Path) -> Duration {
                rt.block_on(async {
                    let start = Instant::now();
                    let data = ::$krate::fs::read(path).await.expect("reading the file");
                    let elapsed = start.elapsed();
                    assert_eq!(data.len(), crate::FILE_LEN);
                    elapsed
                })
            }

            /// `File::read_to_end` of the file at `path`.
            pub(crate) fn file_read_to_end(
                rt: &::$krate::runtime::Runtime,
                path: &Path,
            ) -> Duration {
                rt.block_on(async {
                    let start = Instant::now();
                    let mut file = ::$krate::fs::File::open(path)
                        .await
                        .expect("opening the file");
                    let mut data = Vec::new();
                    crate::read_to_end!($krate, file, data);
                    let elapsed = start.elapsed();
                    assert_eq!(data.len(), crate::FILE_LEN);
                    elapsed
                })
            }
        }
    };
}

/// `File::read_to_end` is inherent on rt's `File` and comes from
/// `AsyncReadExt` on tokio's.
macro_rules! read_to_end {
    (rt, $file:ident, $data:ident) => {
        $file
            .read_to_end(&mut $data)
            .await
            .expect("reading the file")
    };
    (tokio, $file:ident, $data:ident) => {
        tokio::io::AsyncReadExt::read_to_end(&mut $file, &mut $data)
            .await
            .expect("reading the file")
    };
}
pub(crate) use read_to_end;

workloads!(rt);
workloads!(tokio);

/// Size of the file the fs workloads read.
const FILE_LEN: usize = 64 << 20;

fn main() {
    let mut args = std::env::args().skip(1);
    let workload = args.next().unwrap_or_else(|| usage());
    let rounds: usize = match args.next() {
        Some(rounds) => rounds.parse().unwrap_or_else(|_| usage()),
        None => 30,
    };
    let (rt, tokio) = (rt::runtime(), tokio::runtime());
    let path = std::env::temp_dir().join(format!("rt-ab-{}", std::process::id()));
    if workload.contains("read") {
        std::fs::write(&path, vec![7; FILE_LEN]).expect("writing the file to read");
        // Written back before measuring, so writeback does not overlap.
        std::fs::File::open(&path)
            .and_then(|file| file.sync_all())
            .expect("syncing the file to read");
    }
    let servers = (rt::oneshot_server(&rt), tokio::oneshot_server(&tokio));
    let notify_on = (
        rt::notify_waiters_spawned(&rt),
        tokio::notify_waiters_spawned(&tokio),
    );
    let echo = match workload.as_str() {
        "echo_64b" => Some((net_shapes::SMALL, net_shapes::ROUNDS_SMALL)),
        "echo_64k" => Some((net_shapes::LARGE, net_shapes::ROUNDS_LARGE)),
        _ => None,
    };
    // Connections and listener set up once per runtime, as in the criterion
    // rows; each echo round takes the connections and gives them back.
    let clients = echo.map(|(len, _)| {
        (
            RefCell::new(Some(rt.block_on(net_shapes::rt_side::connect_echo(len)))),
            RefCell::new(Some(
                tokio.block_on(net_shapes::tokio_side::connect_echo(len)),
            )),
        )
    });
    let listeners = (workload == "accept").then(|| {
        (
            rt.block_on(net_shapes::rt_side::bind()),
            tokio.block_on(net_shapes::tokio_side::bind()),
        )
    });
    let proxies = (workload == "proxy").then(|| {
        (
            rt.block_on(net_shapes::rt_side::start_proxy()),
            tokio.block_on(net_shapes::tokio_side::start_proxy()),
        )
    });
    let udp = (workload == "udp_shared_recv").then(|| {
        (
            rt.block_on(net_shapes::rt_side::udp_pair()),
            tokio.block_on(net_shapes::tokio_side::udp_pair()),
        )
    });
    let run = |on_rt: bool| match (workload.as_str(), on_rt) {
        ("echo_64b" | "echo_64k", true) => rt::echo(
            &rt,
            &clients.as_ref().expect("set up").0,
            echo.expect("set up"),
        ),
        ("echo_64b" | "echo_64k", false) => tokio::echo(
            &tokio,
            &clients.as_ref().expect("set up").1,
            echo.expect("set up"),
        ),
        ("accept", true) => rt::accept(&rt, &listeners.as_ref().expect("set up").0),
        ("accept", false) => tokio::accept(&tokio, &listeners.as_ref().expect("set up").1),
        ("proxy", true) => rt::proxy(&rt, proxies.expect("set up").0),
        ("proxy", false) => tokio::proxy(&tokio, proxies.expect("set up").1),
        ("udp_shared_recv", true) => rt::udp_shared_recv(&rt, &udp.as_ref().expect("set up").0),
        ("udp_shared_recv", false) => {
            tokio::udp_shared_recv(&tokio, &udp.as_ref().expect("set up").1)
        }
        ("sleep_many", true) => rt::sleep_many(&rt),
        ("sleep_many", false) => tokio::sleep_many(&tokio),
        ("oneshot", true) => rt::oneshot(&rt, &servers.0),
        ("oneshot", false) => tokio::oneshot(&tokio, &servers.1),
        ("notify_waiters", true) => rt::notify(&rt, &notify_on.0, true),
        ("notify_waiters", false) => tokio::notify(&tokio, &notify_on.1, true),
        ("notify_one", true) => rt::notify(&rt, &notify_on.0, false),
        ("notify_one", false) => tokio::notify(&tokio, &notify_on.1, false),
        ("semaphore_contended", true) => rt::semaphore_contended(&rt),
        ("semaphore_contended", false) => tokio::semaphore_contended(&tokio),
        ("fs_read", true) => rt::fs_read(&rt, &path),
        ("fs_read", false) => tokio::fs_read(&tokio, &path),
        ("file_read_to_end", true) => rt::file_read_to_end(&rt, &path),
        ("file_read_to_end", false) => tokio::file_read_to_end(&tokio, &path),
        _ => usage(),
    };
    let (mut on_rt, mut on_tokio) = (Vec::new(), Vec::new());
    let only = std::env::var("AB_ONLY").ok();
    for _ in 0..rounds {
        if only.as_deref() != Some("tokio") {
            on_rt.push(run(true));
        }
        if only.as_deref() != Some("rt") {
            on_tokio.push(run(false));
        }
    }
    if workload.contains("read") {
        std::fs::remove_file(&path).expect("removing the file read");
    }
    if std::env::var("AB_SEQ").is_ok() {
        println!("rt, round by round: {on_rt:?}");
        println!("tokio, round by round: {on_tokio:?}");
    }
    on_rt.sort();
    on_tokio.sort();
    let median = |times: &[Duration]| times[times.len() / 2];
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    match (on_rt.first(), on_tokio.first()) {
        (Some(&rt_min), Some(&tokio_min)) => println!(
            "{workload}, {rounds} rounds: rt median {:?} min {rt_min:?} | tokio median {:?} \
             min {tokio_min:?} | rt/tokio median {:.2} min {:.2}",
            median(&on_rt),
            median(&on_tokio),
            ratio(median(&on_rt), median(&on_tokio)),
            ratio(rt_min, tokio_min),
        ),
        (Some(&min), None) | (None, Some(&min)) => {
            let times = if on_rt.is_empty() { &on_tokio } else { &on_rt };
            println!(
                "{workload}, {rounds} rounds, {} only: median {:?} min {min:?}",
                if on_rt.is_empty() { "tokio" } else { "rt" },
                median(times),
            );
        }
        (None, None) => usage(),
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: ab <sleep_many|oneshot|notify_waiters|notify_one|semaphore_contended|fs_read|file_read_to_end|echo_64b|echo_64k|accept|proxy|udp_shared_recv> [rounds, default 30]"
    );
    std::process::exit(2)
}
