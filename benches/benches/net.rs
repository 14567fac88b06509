//! TCP on loopback: rt vs tokio, `NUM_WORKERS` worker threads each, with
//! both ends of every connection inside the runtime under test.
//!
//! - `net_echo_64b`, `net_echo_64k`: `CONNECTIONS` connections set up once
//!   per runtime, each served by its own echo task; one iteration runs one
//!   client task per connection, each doing `ROUNDS_*` round trips (write a
//!   message, read the echo back) of 64 B or 64 KiB;
//! - `net_accept`: one iteration accepts `ACCEPTS` connections on a
//!   listener bound once, while `CONNECTORS` client tasks connect
//!   `ACCEPTS / CONNECTORS` times each, in sequence;
//! - `net_proxy_256m`: one iteration opens a connection through a proxy
//!   (each side's `io::copy_bidirectional`) to an echo server, writes
//!   `PROXY_TOTAL` bytes (256 MiB) in 64 KiB chunks and reads them back.
//! - `net_udp_shared_recv`: `RECEIVERS` tasks wait in `recv_from` on one
//!   shared UDP socket (bound once per runtime) while one task sends it
//!   `DATAGRAMS` datagrams of 64 B, at most `WINDOW` not yet received.
//!
//! The networking APIs differ by crate path only, so one macro in
//! `net_shapes` writes both sides from the same text (`rt_side`,
//! `tokio_side`): the shapes cannot drift apart. The `ab` example runs the
//! same shapes interleaved.

mod net_shapes;
mod support;

use criterion::{Criterion, criterion_group, criterion_main};
use net_shapes::{
    ACCEPTS, DATAGRAMS, LARGE, PROXY_TOTAL, ROUNDS_LARGE, ROUNDS_SMALL, SMALL, rt_side, tokio_side,
};
use support::{BenchRuntime, Flavor, NUM_WORKERS, Rt, Tokio};

const FLAVOR: Flavor = Flavor::MultiThread(NUM_WORKERS);

/// Registers one echo group: messages of `$len` bytes, `$rounds` round trips per
/// connection per iteration.
macro_rules! echo_group {
    ($c:expr, $name:expr, $len:expr, $rounds:expr) => {{
        let mut group = $c.benchmark_group($name);
        support::configure(&mut group);
        echo_group!(@one group, Rt, rt_side, $len, $rounds);
        echo_group!(@one group, Tokio, tokio_side, $len, $rounds);
        group.finish();
    }};
    (@one $group:ident, $runtime:ty, $side:ident, $len:expr, $rounds:expr) => {{
        let runtime = <$runtime>::new(FLAVOR);
        let mut clients = Some(runtime.block_on($side::connect_echo($len)));
        $group.bench_function(<$runtime>::NAME, |b| {
            b.iter(|| {
                let open = clients.take().expect("connections");
                clients = Some(runtime.block_on($side::echo_rounds(open, $len, $rounds)));
            })
        });
        // Closing the clients ends the echo tasks before the runtime goes.
        drop(clients);
        drop(runtime);
    }};
}

fn accept_group(c: &mut Criterion) {
    let mut group = c.benchmark_group("net_accept");
    support::configure(&mut group);
    {
        let runtime = Rt::new(FLAVOR);
        let (listener, addr) = runtime.block_on(rt_side::bind());
        group.bench_function(Rt::NAME, |b| {
            b.iter(|| runtime.block_on(rt_side::accept_batch(listener.clone(), addr, ACCEPTS)))
        });
        drop(listener);
    }
    {
        let runtime = Tokio::new(FLAVOR);
        let (listener, addr) = runtime.block_on(tokio_side::bind());
        group.bench_function(Tokio::NAME, |b| {
            b.iter(|| runtime.block_on(tokio_side::accept_batch(listener.clone(), addr, ACCEPTS)))
        });
        drop(listener);
    }
    group.finish();
}

/// Registers the proxy group; a run moves 256 MiB each way, so it takes
/// fewer samples.
macro_rules! proxy_group {
    ($c:expr, $($runtime:ty => $side:ident),*) => {{
        let mut group = $c.benchmark_group("net_proxy_256m");
        support::configure(&mut group);
        group.sample_size(10);
        $({
            let runtime = <$runtime>::new(FLAVOR);
            let proxy = runtime.block_on($side::start_proxy());
            group.bench_function(<$runtime>::NAME, |b| {
                b.iter(|| runtime.block_on($side::proxy_transfer(proxy, PROXY_TOTAL)))
            });
        })*
        group.finish();
    }};
}

/// Registers `net_udp_shared_recv` for one runtime.
macro_rules! udp_shared_recv {
    ($group:ident, $runtime:ty, $side:ident) => {{
        let runtime = <$runtime>::new(FLAVOR);
        let (receiver, sender) = runtime.block_on($side::udp_pair());
        $group.bench_function(<$runtime>::NAME, |b| {
            b.iter(|| runtime.block_on($side::udp_shared_recv(&receiver, &sender, DATAGRAMS)))
        });
        drop((receiver, sender));
    }};
}

fn udp_shared_recv_group(c: &mut Criterion) {
    let mut group = c.benchmark_group("net_udp_shared_recv");
    support::configure(&mut group);
    udp_shared_recv!(group, Rt, rt_side);
    udp_shared_recv!(group, Tokio, tokio_side);
    group.finish();
}

fn net(c: &mut Criterion) {
    echo_group!(c, "net_echo_64b", SMALL, ROUNDS_SMALL);
    echo_group!(c, "net_echo_64k", LARGE, ROUNDS_LARGE);
    accept_group(c);
    proxy_group!(c, Rt => rt_side, Tokio => tokio_side);
    udp_shared_recv_group(c);
}

criterion_group!(benches, net);
criterion_main!(benches);
