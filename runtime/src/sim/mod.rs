//! Deterministic simulation testing (feature `sim`): run your own server
//! and client code, unchanged, under a seeded schedule with simulated
//! time, and replay any failure exactly from its seed.
//!
//! A [`Sim`] is a set of *nodes*: hosts (servers, rebuilt by a closure
//! when they restart) and clients (the test drivers). [`Sim::run`] runs
//! them all on the calling thread until every client has finished, and
//! returns a [`SimReport`] or a [`SimError`] naming the seed, the
//! simulated time, the trace hash and what failed. Inside, the code uses
//! the normal rt API: [`rt::spawn`](crate::spawn), [`rt::time`](crate::time),
//! [`rt::sync`](crate::sync), [`select!`](crate::select),
//! `spawn_blocking`, and [`rt::net`](crate::net)'s `TcpListener`,
//! `TcpStream` and `UdpSocket` over a simulated network, with node names
//! as host names (`"server:8080"`).
//!
//! # Example: a planted ordering bug, found and replayed
//!
//! Two clients increment a shared counter with a read, a pause and a
//! write-back (a lost update when they interleave). A sweep over seeds
//! finds a seed whose schedule loses an update; running that seed again
//! fails the same way, with the same trace hash.
//!
//! ```
//! use std::sync::Arc;
//! use rt::sync::Mutex;
//!
//! fn system(sim: &mut rt::sim::Sim) {
//!     let counter = Arc::new(Mutex::new(0u32));
//!     let done = Arc::new(rt::sync::Barrier::new(3));
//!     for name in ["alice", "bob"] {
//!         let (counter, done) = (counter.clone(), done.clone());
//!         sim.client(name, async move {
//!             let read = *counter.lock().await; // read ...
//!             rt::task::yield_now().await; //      ... the other client may run here ...
//!             *counter.lock().await = read + 1; // ... write back
//!             done.wait().await;
//!             Ok::<_, std::io::Error>(())
//!         });
//!     }
//!     sim.client("checker", async move {
//!         done.wait().await;
//!         let total = *counter.lock().await;
//!         if total != 2 {
//!             return Err(format!("lost an update: counter is {total}, not 2"));
//!         }
//!         Ok(())
//!     });
//! }
//!
//! let failure = rt::sim::sweep(0..1000, system).unwrap_err();
//! assert!(failure.to_string().contains("lost an update"));
//!
//! // Replay: the same seed fails the same way, along the same schedule.
//! let mut sim = rt::sim::Sim::new(failure.seed());
//! system(&mut sim);
//! let again = sim.run().unwrap_err();
//! assert_eq!(again.trace_hash(), failure.trace_hash());
//! ```
//!
//! # The replay workflow
//!
//! A failing run prints its seed in its error (`SimError`'s `Display`),
//! with the command that replays it. [`Sim::from_env`] and [`sweep`] take
//! `RT_SIM_SEED` from the environment when it is set, so
//!
//! ```text
//! RT_SIM_SEED=<seed> cargo test --features sim -- name_of_the_test
//! ```
//!
//! reruns exactly the failing schedule: same polls in the same order,
//! same timers, same [`random_u64`] values, same result. Add logging and
//! rerun as often as needed; the run does not change.
//!
//! That holds while the system depends on nothing outside the
//! simulation. A sweep runs each failing seed once more before it
//! reports it, and if that run does not fail the same way, the error
//! says the seed will not replay the failure: most often a `static` that
//! every run changes (a counter), which the replay, a process's first
//! run, finds at its start value. (State that only an earlier run set,
//! a cache filled once, goes unnoticed: the second run finds it as the
//! first did; the replay alone does not.)
//!
//! # Compared with the paused clock
//!
//! [`rt::time::pause`](crate::time::pause) makes time deterministic, but
//! tasks still run in the scheduler's FIFO order, the same order on every
//! run: an ordering bug either always or never shows. A simulation also
//! picks *which* ready task runs next, by seed, so each seed explores
//! another interleaving, and a sweep explores many. And it fails with a
//! report (a deadlock, a step or time limit) instead of hanging.
//!
//! # Design
//!
//! ## A run, step by step
//!
//! [`Sim::run`] builds a runtime of its own flavour (`Handle` in
//! `executor.rs`: a ready set, the owned-task list, a time driver with a
//! paused clock and no I/O driver), makes it current on the calling
//! thread, spawns every host's future and then every client's, and loops:
//! 1. if a node failed (a client's or host's future returned `Err` or
//!    panicked), stop with that failure; if every client has finished,
//!    stop with the report;
//! 2. if tasks are ready, draw one at random (the seeded scheduling RNG
//!    picks an index into the ready set, not the oldest), add its per-run
//!    sequence number to the trace hash and poll it, recording its node
//!    as the one running (what it spawns belongs to that node); then run
//!    the cancellation of any task a crash doomed during that poll;
//! 3. otherwise, if a timer is pending or a packet in flight, move the
//!    paused clock straight to the earlier of the timer's deadline and the
//!    packet's due tick, fire the timers due and deliver the packets due
//!    (the tick goes into the trace hash); the timer wheel's 1 ms tick is
//!    the clock's resolution;
//! 4. otherwise nothing can ever run again: stop with a deadlock, naming
//!    the clients still waiting (packets a partition or hold keeps back
//!    are not in flight: see "The network"), and the tasks that returned
//!    `Pending` with no waker of them left, with their nodes and spawn
//!    lines (a node's root task: its `Sim::host`/`Sim::client` call), as
//!    does a run stopped at a limit.
//!
//! Steps 2 and 3 each count as a step for the step limit; a jump past the
//! time limit stops the run. Whatever stops it, every task left is then
//! cancelled (their futures dropped) inside the simulation, every node's
//! sockets are closed as by a crash (one kept in a `static` fails with
//! `NotConnected` in a later run, rather than sending into a network
//! nothing drives), the timers are shut down, and the runtime is gone: a
//! run leaves nothing behind.
//!
//! Everything inside the simulation runs on the one thread. Reaching the
//! run from another OS thread (a real thread the code started) fails it
//! with [`SimFailure::OutsideThread`], before the next draw:
//! - a wake, an abort or a spawn of one of its tasks there (also a wake
//!   or an abort that finds the task queued or running already and
//!   queues nothing: the task still sees it at its next poll, whenever
//!   the machine let it come; every wake and abort of a simulated task
//!   is checked, by a hook in its waker and abort, `Schedule::woken`);
//! - one of its sockets used there;
//! - a sleep of it moved there and polled, reset or dropped (its timer
//!   set in the run's wheel or taken out, which moves the clock's jumps);
//! - its handle entered there (`Handle::enter`, which also panics: the
//!   thread's timers, `select!` and `random_u64` draws would reach the run
//!   with no wake for it to notice).
//!
//! When that comes depends on the machine's timing, so accepting it made
//! the same seed finish, or end as a deadlock first, by luck. (One that
//! comes after the run declared a deadlock cannot change it; the
//! deadlock's message says so.)
//!
//! ## How rt's API reaches the simulation
//!
//! rt's runtime is a `scheduler::Handle`, an enum with one variant per
//! flavour, made current on the thread by the runtime context
//! (`runtime/context.rs`). With the feature, the enum has a third
//! variant, `Sim`, and every match on it (spawn, the driver, the
//! owned-task list, metrics) an arm for it. So:
//! - `rt::spawn`, `Handle::spawn`, `JoinSet`, `task::Builder` reach the
//!   simulation's `spawn`, which records the task's node and per-run
//!   sequence number and puts it in the ready set; a wake puts a task
//!   back there (the `Schedule` impl), whatever thread it comes from;
//! - `rt::time` finds the simulation's time driver through the same
//!   context: `Instant::now` reads its paused clock, `sleep` registers in
//!   its wheel (rt's auto-advancing paused clock, reused: the simulation
//!   only decides when to jump, which the time driver does on its own
//!   when a current-thread runtime is idle);
//! - `rt::sync` needs nothing: its primitives wake tasks through their
//!   wakers, which lead back to the ready set;
//! - `spawn_blocking` (and `block_in_place`) run their closure inline, as
//!   an ordinary simulated task: no pool thread, so no race with one;
//! - `select!` draws its starting branch from the simulation's RNG
//!   instead of the thread's OS-seeded one;
//! - [`random_u64`], [`crash`], [`restart`] find the simulation through
//!   the context, so they work from any task inside it and panic outside.
//!
//! ## Hosts and clients
//!
//! Every host and client is a node with a name; every task belongs to
//! the node whose task spawned it (the root task of a host or client
//! belongs to it). A host's future is built by its closure: at the start
//! and at each [`restart`], as the host's new incarnation whoever asked
//! for the restart (what the closure spawns is the host's too). [`crash`]
//! is a process crash: every task of the host is cancelled at once (their
//! futures dropped right after the poll that crashed it, before any other
//! task runs), and the host stays down until a restart builds its future
//! anew. A node has an
//! incarnation number, bumped by each crash; a task spawned later by a
//! task of a dead incarnation is cancelled too, so nothing of a crashed
//! process survives in tasks. (Statics do survive: a host that keeps
//! state in a `static` sees it again after a restart, unlike a real
//! process; keep host state in the future its closure builds. A socket
//! kept in a `static`, or leaked, is dead after the crash: its operations
//! fail with `NotConnected`, and neither they nor its drop touch the
//! socket the restarted host binds on the same port, since every bind has
//! its own binding number.)
//!
//! A client finishes when its future returns `Ok(())`; the run ends when
//! every client has. A host's future returning `Ok(())` ends that
//! server; `Err` or a panic, from any host or client, fails the run,
//! reported with the node's name. Tasks that a node spawns report their
//! panics to their `JoinHandle`s, as anywhere in rt.
//!
//! ## Determinism: the hazards and what is done about each
//!
//! - The scheduler's order: chosen by the seeded RNG among the ready
//!   tasks; task priorities are ignored (every ready task is as likely),
//!   so a simulation explores orders a priority would hide.
//! - `select!`'s random start, seeded from the OS per thread: drawn from
//!   the simulation's RNG inside one.
//! - Task ids, elsewhere from a process-wide counter (so they would
//!   differ between a sweep and the replay of one of its seeds): inside a
//!   simulation a [`task::Id`](crate::task::Id) is the task's number in
//!   the run's spawn order, from 1, the same on every replay (unique
//!   within the run, not across runtimes alive at the same time).
//! - The diagnostics' clock: a task's spawn and poll times (the task
//!   dump's ages, idle times and its order, longest idle first) are
//!   stamped on the simulated clock, and each poll is counted, in the
//!   task's statistics and the metrics' `worker_poll_count`, as a worker
//!   counts it; elsewhere they read a cached real clock that other
//!   threads' runtimes move.
//! - The global-queue interval, tuned from the real clock, and the event
//!   interval: the simulation's scheduler has neither (one ready set, no
//!   I/O driver to poll).
//! - The blocking pool and DNS on other threads: `spawn_blocking` runs
//!   inline as a task; `rt::fs` and `rt::net::lookup_host` are refused
//!   (below).
//! - `LocalSet`'s FIFO order: it never enters a run. Every task of a
//!   simulation is `Send` (hosts and clients too), a `LocalSet` is not,
//!   so no task can hold one across an await, and `spawn_local` finds no
//!   set to spawn onto.
//! - Time: only the simulated clock moves. `std::time::SystemTime` and
//!   `std::time::Instant::now` are the machine's (so is what libraries
//!   read from them: hyper's `Date` header): use
//!   [`rt::time::Instant`](crate::time::Instant) inside a simulation. Its
//!   durations replay, but an `Instant` itself is the machine's reading
//!   at the run's start plus simulated time, so its `Debug` output
//!   differs from run to run: log `start.elapsed()`, not `Instant::now()`.
//! - Other crates' randomness: `futures::select!` (futures-util) starts
//!   at a branch drawn from a per-thread RNG seeded by the OS, so two
//!   runs of a seed take different branches when several are ready; use
//!   [`rt::select!`](crate::select) (seeded inside a simulation) or
//!   `futures::select_biased!`. For the code's own draws, use
//!   [`random_u64`], not `rand::thread_rng`.
//! - The runtime's [`Id`](crate::runtime::Id) (`Handle::id`) stays
//!   unique in the process, as outside (per-runtime state a library keys
//!   by it never carries over from one run to the next), so its number is
//!   not replayed: leave it out of what runs compare.
//! - std's `HashMap` random state: its iteration order differs between
//!   processes. rt's scheduling uses no hash map; user code that iterates
//!   one to decide what to do next should use a `BTreeMap`, or a hasher
//!   with a fixed seed.
//! - Statics: a run starts from whatever state `static`s hold, which
//!   earlier runs in the process (a sweep's, other tests') may have
//!   changed; keep the system's state in what its closures build, or
//!   reset it there. A sweep notices some failures that do not replay
//!   (see "The replay workflow").
//! - Real threads: a wake from one fails the run (above); what such a
//!   thread does to shared state, and timing-dependent code outside rt's
//!   API, cannot be made deterministic.
//!
//! Runs on parallel test threads do not interfere: each simulation has
//! its own runtime, clock, timer wheel, RNGs and task table, found
//! through its thread's context.
//!
//! ## The network
//!
//! The model is in `sim/net/` (a pure structure on the clock's 1 ms
//! ticks, unit-tested on its own): nodes at fixed addresses in the
//! documentation ranges of RFC 5737 (never routed: 192.0.2.1 for the
//! first node registered, 192.0.2.2 for the next, ...), names resolved
//! to them (`"server:8080"`; `localhost` is 127.0.0.1, the node itself),
//! binds to `0.0.0.0`, `127.0.0.1` or the own address with ephemeral
//! ports handed out in order from 49152 (per address, as Linux binds: a
//! socket bound to `127.0.0.1` hears only its own node, the same port
//! may be bound on loopback and on the node's address, and `0.0.0.0`
//! takes the port on every address; `local_addr` of a `0.0.0.0` bind
//! says the node's address, where Linux says `0.0.0.0`, so that it can
//! be handed to peers); packets in flight with a seeded
//! latency per link, delivered in order per stream; TCP with handshake,
//! refusal, connect timeout, a window, half-close and resets; UDP with
//! seeded loss and duplication; partitions (datagrams lost, stream bytes
//! held until repair), held links, crashes. Latency below the 1 ms tick
//! rounds up to it.
//!
//! How it is wired:
//! 1. the `Network` lives in the simulation's state, built from `Sim`'s
//!    settings ([`Sim::latency`], [`Sim::udp_loss`],
//!    [`Sim::udp_duplication`], [`Sim::connect_timeout`]); before each
//!    draw the run loop delivers the packets due by the clock's tick (a
//!    node's packets to itself are due at once), and step 3 jumps to the
//!    earlier of the next timer and the network's next event (a packet
//!    due, a connect timing out). So step 4's deadlock also needs no
//!    packet in flight: packets a partition or a hold keeps back do not
//!    count (only a task could repair or release the link, and none is
//!    ready);
//! 2. a crash (and the crash half of a restart) closes the host's
//!    sockets in the network, as a killed process's kernel does (see
//!    "TCP" below); [`partition`], [`repair`], [`hold`], [`release`] and
//!    [`set_latency`] act on the link between two nodes, by name, from
//!    any task of the run;
//! 3. `rt::net`'s name lookup resolves node names inside a simulation,
//!    never with the system resolver;
//! 4. the socket types dispatch once, at their registered-I/O layer
//!    (`net/udp/dispatch.rs`, `net/tcp/dispatch.rs`,
//!    `net/tcp/listener_io.rs`): the one I/O field of a `UdpSocket`,
//!    `TcpListener` and `TcpStream` is, with the feature, an enum of the
//!    real registration and a simulated socket, chosen when the socket is
//!    made (`bind`, `connect`: one look at the thread's context; an
//!    accepted stream is of its listener's kind), and each operation
//!    (reads, writes, readiness, `try_*`, `peek`, addresses, options)
//!    matches it once (the readiness ones of both enums are one macro,
//!    `net/sim_dispatch.rs`). The shared macros of `TcpStream` and `UnixStream`
//!    (of `UdpSocket` and `UnixDatagram`) call the same named operations
//!    on either, so `UnixStream` (`UnixDatagram`) has no simulated
//!    branch. Without the feature each field is the real
//!    registration and the code compiles as before. The split halves,
//!    `rt::hyper::Io` (its reads into hyper's uninitialised buffers) and
//!    the `tokio-io` traits go through the stream, so they work on a
//!    simulated one too.
//!
//! ### TCP, as Linux's sockets report it
//!
//! - A connect to a port nobody listens on (a crashed host's too, whose
//!   kernel answers): `ConnectionRefused` after a round trip. One with no
//!   answer (across a partition, to an address no node has): `TimedOut`
//!   after [`Sim::connect_timeout`] (5 s by default; Linux retries for
//!   about two minutes, which would only slow runs down).
//! - A listener queues at most 1025 connections not accepted yet (the
//!   real listener's backlog of 1024, plus one, as Linux counts); a SYN
//!   that finds the queue full is dropped and sent again after 1 s, 2 s,
//!   4 s, ... (Linux's retransmissions), so the connect completes once an
//!   `accept` makes room, or times out.
//! - Bytes are delivered in order; at most 64 KiB written and not yet
//!   read by the peer (a window: a writer then waits). A partition or a
//!   hold keeps a stream's packets back and sends them again, in order,
//!   at the repair or release.
//! - `shutdown(Write)` (and `close()`, and dropping an `OwnedWriteHalf`)
//!   sends a FIN: the peer reads the bytes before it, then end of file,
//!   and may go on writing; a write after it fails with `BrokenPipe`.
//!   `shutdown(Read)`: reads return what is queued, then end of file.
//!   Once each side's FIN has reached the other, the connection is over:
//!   `peer_addr` and `shutdown` fail with `NotConnected` (Linux's
//!   `TIME_WAIT`; the side that closed last counts from its FIN's
//!   arrival, not from the acknowledgement).
//! - Closing a stream (dropping it) ends it with a FIN, or resets it when
//!   bytes it had received were unread or its linger is zero
//!   (`set_zero_linger`); a segment for a closed stream is answered with
//!   a reset; closing a listener resets the connections it had not
//!   accepted.
//! - A reset sets the stream's pending error: `ConnectionReset`, or
//!   `BrokenPipe` if the peer had already ended its side. Bytes received
//!   before the reset are still read first; then the first read or write
//!   reports the error, once (as `take_error` would); then reads see end
//!   of file and writes `BrokenPipe`; `peer_addr` fails with
//!   `NotConnected`.
//! - A crash is a process crash: the host's kernel closes its sockets as
//!   above, so a peer with bytes unread by the host is reset at once
//!   (`ConnectionReset`), and one without reads end of file and is reset
//!   when it next writes. Until the restart, connects to the host are
//!   refused.
//! - Readiness is what epoll reports: data or end of file is readable, a
//!   window with room is writable, a reset is readable, writable and an
//!   error. `readable`, `writable`, `ready` and the `try_*` methods work
//!   as on a real stream; options are recorded (`nodelay`, `ttl`,
//!   `linger`), and only a zero linger changes what the network does.
//!
//! ### UDP
//!
//! - A datagram is lost or duplicated at the seeded rates, lost across a
//!   partition, dropped at a port nobody has bound, and truncated to the
//!   receiver's buffer; each draws its own latency, so datagrams may
//!   arrive out of order.
//! - A datagram dropped at a port nobody has bound (a crashed host's too)
//!   is answered with a port unreachable, as Linux answers: a socket
//!   connected to that port gets `ConnectionRefused` from its next
//!   receive or send, once (an unconnected one is told nothing).
//! - A connected socket (`connect`) sends to its peer and, from then on,
//!   is reached only by the peer's datagrams (others are dropped on
//!   arrival, as Linux's lookup skips a connected socket for them);
//!   datagrams queued before the connect stay queued and are received,
//!   whoever sent them, as on Linux. `send` on a socket with no peer
//!   fails as Linux's does (`EDESTADDRREQ`, "Destination address
//!   required"), `peer_addr` with `ENOTCONN` (`NotConnected`); a socket
//!   bound to `127.0.0.1` cannot send to another host (`EINVAL`).
//! - Readiness is what epoll reports: a socket is readable while a
//!   datagram is queued and always writable (a simulated send never
//!   waits). `readable`, `writable`, `ready`, the `poll_*` methods, the
//!   `try_*` methods (`WouldBlock` with nothing queued), the peeks
//!   (`peek`, `peek_from`, `peek_sender` and their `poll_`/`try_` forms,
//!   which leave the datagram queued) and the `bytes` receives
//!   (`recv_buf`, `recv_buf_from` and their `try_` forms, into the
//!   buffer's spare chunk) work as on a real socket. A socket
//!   whose host crashed is ready, and its next operation fails with
//!   `NotConnected`.
//!
//! ### What the dispatch costs
//!
//! With the feature on, for every program in the build (Cargo unifies
//! features, so a dev-dependency enabling `sim` puts it in the build):
//! per `UdpSocket` I/O call, the match on the enum's tag and the `async
//! fn` around it, about 20 to 40 instructions on a call of about 1,600
//! (callgrind, `examples/udp_ping_loop.rs`, per round trip of four calls:
//! 6,480 without the feature, 6,615 with it: 39 more per `recv_from`, 19
//! per `send_to`, the rest the current-thread scheduler's park, which
//! the feature's build compiles a little differently, 20 instructions
//! either way); per `TcpStream` I/O call, the match on the tag, 3 to 6
//! instructions on a call of about 1,200 (`examples/tcp_ping_loop.rs`:
//! 4,821 without the feature, 4,859 with it, of which the park's 20); the
//! tag's word in each socket; one context look-up per socket bound, per
//! connect and per name lookup. Without the feature a socket method
//! awaits the same future as before, and a stream's read and write paths
//! compile to the same instructions as before the dispatch (their
//! disassembly matches). Per wake (and abort) of any task: a load and a
//! test of the slot in its vtable for the simulation's wake check (empty
//! for every other scheduler's tasks). Elsewhere: nothing per poll or
//! per spawn beyond the flavour match the scheduler handle already does,
//! now over three variants, one context look-up per `select!` (its starting branch) and
//! per `rt::fs` call (to refuse it). The scheduler rows
//! (`benches/ab-instructions`, callgrind, against `ca91c81`, before the
//! simulation work): without the feature, the current-thread rows run
//! 0.6 to 1.4% fewer instructions than then (5% fewer on `yield_many`,
//! from an unrelated change); with it, within 0.1% of without but for
//! `ping_pong` (+0.5%) and `chained_spawn` (+1.3%: about 11 instructions
//! per spawn, the handle's flavour match over three variants where
//! `spawn` is inlined into its caller); the multi-thread rows' counts
//! move by a few percent from run to run under valgrind, and their
//! medians sit within that either way.

//! ### How fast
//!
//! `examples/sim_lease_lock.rs` (three workers taking a lease from a lock
//! service and entering a guarded store, over TCP, on jittery links)
//! sweeps 1000 seeds in about 0.25 s in release on a loaded 2-core
//! machine: some 250,000 seeds a minute, 500,000 task polls and 400,000
//! delivered messages a second. The planted bug is found at the fifth
//! seed, and 1000 seeds pass once it is fixed.
//!
//! ## Refused inside a simulation
//!
//! What cannot be made deterministic fails with an
//! [`io::ErrorKind::Unsupported`](std::io::ErrorKind::Unsupported) error
//! naming the API, or, where the API has no error to return, a panic
//! saying so:
//! - `rt::fs` (the real file system): `Unsupported`; a `File` opened
//!   outside and moved in panics on use;
//! - reading `rt::io::stdin` (the run would wait on the read, inline, for
//!   input from outside): `Unsupported`; writing `stdout` and `stderr`
//!   works (inline, as any blocking job);
//! - `rt::net::lookup_host` of a name that is not a node's: `NotFound`
//!   (node names resolve to the simulated addresses; the system
//!   resolver is never asked);
//! - real sockets: every Unix socket (`UnixStream::connect`/`pair`,
//!   `UnixListener::bind`, `UnixDatagram`, `UnixSocket`, ...), and the
//!   `from_std` of every socket type: `Unsupported` (for TCP and UDP
//!   naming the call that makes a simulated one); a `TcpSocket` is a
//!   real descriptor holding options until its `connect` or `listen`,
//!   which go over the simulated network (`net/tcp/socket_sim.rs`), but
//!   for one adopted already bound on the machine, a `connect` after a
//!   `bind` that picks an address or port, and a `listen` with a linger
//!   set: `Unsupported`, naming the fix;
//! - on a simulated `TcpStream`: `into_std`, `try_io`, `async_io`,
//!   `send_file` and `quickack`/`set_quickack` return `Unsupported`; the
//!   descriptor (`as_fd`, `as_raw_fd`, so `socket2::SockRef`) panics; on a
//!   simulated `TcpListener`: `into_std` and the TTL return
//!   `Unsupported`, the descriptor panics;
//! - on a simulated `UdpSocket`: `into_std`, `try_io` and `async_io`
//!   return `Unsupported`; the socket options and the descriptor (`as_fd`,
//!   `as_raw_fd`) panic saying so (they reach the mio socket, which a
//!   simulated socket does not have);
//! - `AsyncFd` and child processes (their readiness comes from the OS):
//!   a panic saying so;
//! - `rt::signal` (`ctrl_c`, `signal`): a panic naming the fix (no OS
//!   signal reaches a node: stop a host with [`crash`], and give the
//!   server a shutdown future of its own);
//! - `Handle::block_on` on a simulation's handle (the simulation drives
//!   itself): a panic;
//! - building another runtime (`Runtime::new`, `Builder::build`,
//!   `build_local`): `Unsupported` (its tasks would run on threads and a
//!   clock of their own, and the run would not wait for their wakes);
//! - handing work to a runtime built outside the run, through its handle
//!   (`Handle::spawn`, `Handle::spawn_blocking`, so also `Runtime`'s and
//!   `JoinSet::spawn_on`), making it current (`Handle::enter`, after
//!   which rt's API would reach it instead of the simulation), or
//!   blocking on it (`Runtime::block_on`, `Handle::block_on`, which
//!   inside `block_in_place` ran its future on the run's thread by the
//!   real clock): a panic naming the fix; `task::Builder::spawn_on` and
//!   `spawn_blocking_on`: `Unsupported`. (Awaiting such work, a run reported a deadlock at
//!   once, or not, by how fast the machine ran the other runtime.)
//! - the `blocking_*` methods of `rt::sync` (`blocking_recv`,
//!   `blocking_lock`, ...) inside a `spawn_blocking` or `block_in_place`
//!   job, which runs inline on the simulation's thread, so could only
//!   wait by stopping the run: a panic saying so (use the async method).
//!
//! ## tokio crates inside a simulation
//!
//! In a graph patched onto rt's tokio facade (`compat/tokio`), the
//! facade's types are rt's, so what a crate does through `tokio::net`,
//! `tokio::time`, `tokio::spawn` and `tokio::sync` is simulated with no
//! change to the crate (`compat/ecosystem-tests/tests/sim_http.rs`):
//! `axum::serve` and hyper-util's servers on `tokio::net::TcpListener`,
//! hyper's `client::conn` over `tokio::net::TcpStream`, and hyper-util's
//! legacy `Client` with its `HttpConnector`, whose socket2-built socket
//! the simulation adopts (`TcpSocket::from_std_stream`, above) and whose
//! pool and timeouts run on the simulated clock (`TokioTimer`). One
//! setting: `HttpConnector`'s default resolver, hyper-util's
//! `GaiResolver`, calls the system resolver itself (std's `getaddrinfo`
//! in `spawn_blocking`, which runs inline here), so it knows no node
//! names and its answers are the machine's; give the connector one that
//! calls `tokio::net::lookup_host` (`HttpConnector::new_with_resolver`;
//! outside a simulation `lookup_host` asks the system resolver on the
//! blocking pool, as `GaiResolver` does). rt cannot refuse that path: a
//! blocking closure's system calls are not rt's to see. reqwest takes
//! the same resolver through `ClientBuilder::dns_resolver`, tonic's
//! `Endpoint` a connector built with it through `connect_with_connector`.
//! tonic's `Server::serve(addr)` binds a std listener on the machine and
//! adopts it (`TcpListener::from_std`, refused): give it a listener bound
//! inside the simulation, `serve_with_incoming`. hyper's `Date` header
//! reads `SystemTime` (see the hazards above): leave it out of what runs
//! compare.
//!
//! ## Limits and their defaults
//!
//! - [`Sim::max_steps`]: 1,000,000 steps (polls and clock jumps);
//! - [`Sim::max_time`]: one hour of simulated time;
//! - [`Sim::latency`]: 1 ms each way on every link (the clock's tick:
//!   latencies round up to whole milliseconds, at least one);
//! - [`Sim::udp_loss`], [`Sim::udp_duplication`]: 0 (none);
//! - [`Sim::connect_timeout`]: a TCP connect with no answer (across a
//!   partition, to an address no node has) fails with `TimedOut` after
//!   5 s of simulated time;
//! - a TCP stream's window: 64 KiB written and not yet read; a
//!   listener's backlog: 1024 (as the real `TcpListener::bind`'s).

mod builder;
mod endpoint;
mod executor;
mod faults;
mod net;
mod nodes;
mod outcome;
mod rng;
mod socket;
mod sweep;
mod tcp_socket;

pub use builder::Sim;
pub use faults::{crash, hold, partition, random_u64, release, repair, restart, set_latency};
pub use outcome::{SimError, SimFailure, SimReport};
pub use sweep::{SweepReport, sweep};

pub(crate) use endpoint::SimReadiness;
pub(crate) use executor::Handle;
pub(crate) use faults::{
    is_current, random_below, refuse, refuse_enter, refuse_naming_fix, refuse_other_runtime,
};
pub(crate) use socket::{SimUdp, in_sim, unsupported};
pub(crate) use tcp_socket::{SimTcpListener, SimTcpStream};
