//! What code inside a simulation calls to reach it: the seeded
//! randomness and the faults. Each finds the simulation through the
//! thread's runtime context, so it works from any task of the run.

use crate::sim::executor::{self, Handle};
use crate::sim::net::{Network, ticks_of};
use std::time::Duration;

/// A random `u64` from the simulation's seeded stream: the same seed
/// gives the same numbers in the same order. Use it wherever the code
/// under test draws randomness (jitter, ids, choices), so a replay draws
/// the same. The stream is the user's own: drawing from it does not
/// change the schedule.
///
/// # Panics
///
/// Panics outside a simulation (no [`Sim`](crate::sim::Sim) is running
/// on this thread): there is no seed to draw from.
///
/// # Examples
///
/// ```
/// let draw = |seed| {
///     let mut sim = rt::sim::Sim::new(seed);
///     let (tx, rx) = std::sync::mpsc::channel();
///     sim.client("c", async move {
///         tx.send(rt::sim::random_u64()).unwrap();
///         Ok::<_, std::io::Error>(())
///     });
///     sim.run().unwrap();
///     rx.recv().unwrap()
/// };
/// assert_eq!(draw(11), draw(11));
/// assert_ne!(draw(11), draw(12));
/// ```
#[track_caller]
pub fn random_u64() -> u64 {
    match executor::with_current(|sim| sim.state().user_rng.next_u64()) {
        Some(value) => value,
        None => panic!(
            "`rt::sim::random_u64()` called outside a simulation: call it from a host's or \
             client's task while `rt::sim::Sim::run` runs (outside one, use an RNG of your own)"
        ),
    }
}

/// A number in `0..n` from the simulation's scheduling stream, or `None`
/// outside a simulation: for the choices rt itself makes at random
/// (`select!`'s first branch).
pub(crate) fn random_below(n: usize) -> Option<usize> {
    executor::with_current(|sim| sim.state().schedule_rng.below(n))
}

/// Crashes host `name` as a process crash: all its tasks are cancelled
/// (their futures dropped) right after the calling task's current poll,
/// before any other task runs, and it stays down until
/// [`restart`]. Crashing a host that is down does nothing.
///
/// # Panics
///
/// Panics outside a simulation, or if `name` is not one of its hosts.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::time::Duration;
///
/// let ticks = Arc::new(AtomicUsize::new(0));
/// let mut sim = rt::sim::Sim::new(1);
/// let counter = ticks.clone();
/// sim.host("ticker", move || {
///     let ticks = counter.clone();
///     async move {
///         while ticks.fetch_add(1, Ordering::SeqCst) < usize::MAX {
///             rt::time::sleep(Duration::from_secs(1)).await;
///         }
///         Ok::<_, std::io::Error>(())
///     }
/// });
/// let seen = ticks.clone();
/// sim.client("driver", async move {
///     rt::time::sleep(Duration::from_millis(2500)).await; // ticks at 0 s, 1 s, 2 s
///     rt::sim::crash("ticker");
///     rt::time::sleep(Duration::from_secs(10)).await;
///     assert_eq!(seen.load(Ordering::SeqCst), 3); // none since the crash
///     Ok::<_, std::io::Error>(())
/// });
/// sim.run().unwrap();
/// ```
#[track_caller]
pub fn crash(name: &str) {
    if executor::with_current(|sim| sim.crash(name)).is_none() {
        panic!("`rt::sim::crash(\"{name}\")` called outside a simulation");
    }
}

/// Restarts host `name`: its closure builds its future anew, as a fresh
/// process (a host that is up is crashed first, as a reboot).
///
/// # Panics
///
/// Panics outside a simulation, or if `name` is not one of its hosts.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// let boots = Arc::new(AtomicUsize::new(0));
/// let mut sim = rt::sim::Sim::new(1);
/// let counted = boots.clone();
/// sim.host("server", move || {
///     counted.fetch_add(1, Ordering::SeqCst);
///     std::future::pending::<Result<(), std::io::Error>>()
/// });
/// sim.client("operator", async {
///     rt::sim::crash("server");
///     rt::task::yield_now().await;
///     rt::sim::restart("server");
///     Ok::<_, std::io::Error>(())
/// });
/// sim.run().unwrap();
/// assert_eq!(boots.load(Ordering::SeqCst), 2);
/// ```
#[track_caller]
pub fn restart(name: &str) {
    if executor::with_current(|sim| Handle::restart(sim, name)).is_none() {
        panic!("`rt::sim::restart(\"{name}\")` called outside a simulation");
    }
}

/// `true` if a simulation is current on this thread.
pub(crate) fn is_current() -> bool {
    executor::with_current(|_| ()).is_some()
}

/// An `Unsupported` error naming `api` inside a simulation (whose runs
/// must not depend on the real machine), `Ok` outside one.
pub(crate) fn refuse(api: &str) -> std::io::Result<()> {
    refuse_naming_fix(api, "")
}

/// As [`refuse`], the message ending with `fix`, what to do instead
/// (`"; bind ..."`).
pub(crate) fn refuse_naming_fix(api: &str, fix: &str) -> std::io::Result<()> {
    if !is_current() {
        return Ok(());
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        format!(
            "{api} is not supported inside a simulation (`rt::sim`): it reaches the real \
             machine, which a seed cannot replay{fix}"
        ),
    ))
}

/// An `Unsupported` error naming `api` when a simulation is current on
/// this thread and `handle` is another runtime's (one built before the
/// run, whose handle a task holds), `Ok` otherwise. Work handed to that
/// runtime would run on its threads and by the real clock, which a seed
/// cannot replay, and the run would not wait for it: a task awaiting it
/// would end the run as a deadlock, or not, by how fast the machine is.
pub(crate) fn refuse_other_runtime(
    handle: &crate::scheduler::Handle,
    api: &str,
) -> std::io::Result<()> {
    let other = executor::with_current(
        |sim| !matches!(handle, crate::scheduler::Handle::Sim(own) if std::sync::Arc::ptr_eq(own, sim)),
    );
    if other != Some(true) {
        return Ok(());
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        format!(
            "{api} on another runtime inside a simulation (`rt::sim`) is not supported: its \
             tasks would run on that runtime's threads, by the real clock, which a seed cannot \
             replay, and the simulation would not wait for them. Use the simulation's own \
             runtime instead (`rt::spawn`, `rt::task::spawn_blocking`, `Handle::current()`)"
        ),
    ))
}

/// `Handle::enter` of `handle`, refused with a panic where rt's API would
/// then reach what a seed cannot replay:
/// 1. inside a simulation, another runtime's handle: it would take over
///    what the simulation's tasks reach through the context (their
///    spawns, timers and sockets);
/// 2. a simulation's handle on a thread other than its run's: that
///    thread's timers, `select!` draws, `random_u64` draws and faults
///    would reach the run whenever the machine's timing let them, with
///    no wake for the run to notice. The run fails too
///    ([`SimFailure::OutsideThread`](crate::sim::SimFailure::OutsideThread)),
///    so that it does not pass by luck.
#[track_caller]
pub(crate) fn refuse_enter(handle: &crate::scheduler::Handle) {
    if let Err(refused) = refuse_other_runtime(handle, "`Handle::enter`") {
        panic!("{refused}");
    }
    if let crate::scheduler::Handle::Sim(sim) = handle {
        sim.refuse_entry_outside();
    }
}

/// Runs `fault` on the network link between nodes `a` and `b`, named.
#[track_caller]
fn on_link(what: &str, a: &str, b: &str, fault: impl FnOnce(&mut Network, usize, usize, u64)) {
    let done = executor::with_current(|sim| {
        let (x, y) = (sim.node(a, what), sim.node(b, what));
        sim.with_net(|net, now| fault(net, x, y, now));
    });
    if done.is_none() {
        panic!("`rt::sim::{what}(\"{a}\", \"{b}\")` called outside a simulation");
    }
}

/// Cuts the network link between nodes `a` and `b` (hosts or clients, by
/// name), both ways, until [`repair`]: datagrams across it are lost,
/// stream bytes are held (TCP retransmits) and delivered after the
/// repair, and a connect across it fails with `TimedOut` after the
/// simulated connect timeout (5 s) unless the link heals first. A node's
/// traffic to itself (loopback) crosses no link: `partition(a, a)` does
/// nothing, as does [`hold`]`(a, a)`.
///
/// # Panics
///
/// Panics outside a simulation, or if a name is not one of its nodes.
///
/// # Examples
///
/// ```
/// let mut sim = rt::sim::Sim::new(1);
/// sim.host("server", || std::future::pending::<Result<(), std::io::Error>>());
/// sim.client("driver", async {
///     rt::sim::partition("server", "driver");
///     rt::sim::repair("server", "driver");
///     Ok::<_, std::io::Error>(())
/// });
/// sim.run().unwrap();
/// ```
#[track_caller]
pub fn partition(a: &str, b: &str) {
    on_link("partition", a, b, |net, x, y, _| net.partition(x, y));
}

/// Heals the partition between `a` and `b`: the stream bytes it held go
/// out again, in order, each with a fresh latency. See [`partition`].
///
/// # Panics
///
/// Panics outside a simulation, or if a name is not one of its nodes.
///
/// # Examples
///
/// See [`partition`].
#[track_caller]
pub fn repair(a: &str, b: &str) {
    on_link("repair", a, b, |net, x, y, now| net.repair(x, y, now));
}

/// Holds every packet on the link between `a` and `b` (datagrams too)
/// until [`release`]: a delay as long as the test driver wants, to put a
/// message after another. Packets a hold keeps back are not in flight: a
/// run whose tasks all wait for them is a deadlock.
///
/// # Panics
///
/// Panics outside a simulation, or if a name is not one of its nodes.
///
/// # Examples
///
/// ```
/// let mut sim = rt::sim::Sim::new(1);
/// sim.host("server", || std::future::pending::<Result<(), std::io::Error>>());
/// sim.client("driver", async {
///     rt::sim::hold("server", "driver");
///     rt::sim::release("server", "driver");
///     Ok::<_, std::io::Error>(())
/// });
/// sim.run().unwrap();
/// ```
#[track_caller]
pub fn hold(a: &str, b: &str) {
    on_link("hold", a, b, |net, x, y, _| net.hold(x, y));
}

/// Lets the packets a [`hold`] kept back go, in their order, each with a
/// fresh latency.
///
/// # Panics
///
/// Panics outside a simulation, or if a name is not one of its nodes.
///
/// # Examples
///
/// See [`hold`].
#[track_caller]
pub fn release(a: &str, b: &str) {
    on_link("release", a, b, |net, x, y, now| net.release(x, y, now));
}

/// Sets the latency of the link between `a` and `b` for the packets sent
/// from now on: each draws one, seeded, in `min..=max`, rounded up to
/// whole 1 ms ticks, at least one (see [`Sim::latency`](crate::sim::Sim::latency)).
///
/// # Panics
///
/// Panics outside a simulation, if a name is not one of its nodes, or
/// if `max` is below `min`.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// let mut sim = rt::sim::Sim::new(1);
/// sim.host("far", || std::future::pending::<Result<(), std::io::Error>>());
/// sim.client("driver", async {
///     rt::sim::set_latency("far", "driver", Duration::from_millis(80), Duration::from_millis(120));
///     Ok::<_, std::io::Error>(())
/// });
/// sim.run().unwrap();
/// ```
#[track_caller]
pub fn set_latency(a: &str, b: &str, min: Duration, max: Duration) {
    assert!(
        min <= max,
        "`rt::sim::set_latency(\"{a}\", \"{b}\", {min:?}, {max:?})`: the maximum is below the \
         minimum"
    );
    let (min, max) = (ticks_of(min), ticks_of(max));
    on_link("set_latency", a, b, |net, x, y, _| {
        net.set_latency(x, y, min, max)
    });
}
