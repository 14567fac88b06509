//! Hosts and clients: the nodes of a simulation, their root tasks, and
//! crashing and restarting a host.
//!
//! Every task belongs to a node and one of its incarnations (`Owner`).
//! A crash, requested from inside a poll:
//! 1. marks the host down and bumps its incarnation, so whatever a task
//!    of the old incarnation spawns from now on is cancelled at once
//!    (`Handle::spawn_owned`);
//! 2. aborts every task of the host: an idle one is put in the ready set,
//!    a queued one is marked, the running one (a host crashing itself)
//!    is cancelled by the harness when its poll returns;
//! 3. lists them as doomed; right after the poll, the run loop polls each
//!    doomed task in the ready set, which drops its future, before any
//!    other task runs (`Handle::cancel_doomed`).
//!
//! A restart of a host that is up crashes it first (a reboot), then
//! builds its future anew with its closure, as a new root task of the new
//! incarnation.

use crate::loom::sync::Arc;
use crate::sim::executor::Handle;
use crate::sim::outcome::{BoxError, SimFailure};
use crate::sim::rng::TraceEvent;
use crate::task::{AbortHandle, TaskMeta};
use std::fmt;
use std::future::Future;
use std::panic::{self, AssertUnwindSafe, Location};
use std::pin::Pin;
use std::task::{Context, Poll};

/// A host's or client's future, boxed.
pub(crate) type RootFuture = Pin<Box<dyn Future<Output = Result<(), BoxError>> + Send>>;

/// What builds a host's future, at the start and at each restart.
pub(crate) type HostFactory = Box<dyn FnMut() -> RootFuture + Send>;

/// A node as the `Sim` registered it.
pub(crate) struct NodeSpec {
    pub(crate) name: String,
    pub(crate) start: Start,
    /// The user's `Sim::host` or `Sim::client` call: the spawn location
    /// of the node's root task, as the task dump shows it.
    pub(crate) location: &'static Location<'static>,
}

pub(crate) enum Start {
    Host(HostFactory),
    Client(RootFuture),
}

/// A node and one incarnation of it: whom a task belongs to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Owner {
    pub(crate) node: usize,
    pub(crate) incarnation: u64,
}

pub(crate) struct Node {
    pub(crate) name: String,
    location: &'static Location<'static>,
    role: Role,
    incarnation: u64,
    up: bool,
}

enum Role {
    /// `factory` is out while it runs (it may use the simulation).
    Host { factory: Option<HostFactory> },
    /// `future` is taken when the client starts.
    Client {
        future: Option<RootFuture>,
        finished: bool,
    },
}

impl Node {
    pub(crate) fn new(spec: NodeSpec) -> Node {
        let role = match spec.start {
            Start::Host(factory) => Role::Host {
                factory: Some(factory),
            },
            Start::Client(future) => Role::Client {
                future: Some(future),
                finished: false,
            },
        };
        Node {
            name: spec.name,
            location: spec.location,
            role,
            incarnation: 0,
            up: false,
        }
    }

    pub(crate) fn is_alive(&self, incarnation: u64) -> bool {
        self.up && self.incarnation == incarnation
    }

    /// Whether the run may end as far as this node is concerned: a
    /// finished client, or any host.
    pub(crate) fn is_done(&self) -> bool {
        match self.role {
            Role::Host { .. } => true,
            Role::Client { finished, .. } => finished,
        }
    }

    fn is_client(&self) -> bool {
        matches!(self.role, Role::Client { .. })
    }
}

impl super::executor::State {
    /// The clients that have not finished, by name.
    pub(crate) fn waiting_clients(&self) -> Vec<String> {
        self.nodes
            .iter()
            .filter(|node| !node.is_done())
            .map(|node| node.name.clone())
            .collect()
    }

    pub(super) fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|node| node.name == name)
    }
}

impl Handle {
    /// Spawns every host's future, then every client's, in the order the
    /// `Sim` registered them.
    pub(crate) fn start_nodes(me: &Arc<Handle>) {
        let order: Vec<usize> = {
            let state = me.state();
            let (clients, hosts): (Vec<usize>, Vec<usize>) =
                (0..state.nodes.len()).partition(|&node| state.nodes[node].is_client());
            hosts.into_iter().chain(clients).collect()
        };
        for node in order {
            Handle::boot(me, node);
        }
    }

    /// Brings `node` up in its current incarnation and spawns its root.
    fn boot(me: &Arc<Handle>, node: usize) {
        let (owner, start, location) = {
            let mut state = me.state();
            let entry = &mut state.nodes[node];
            entry.up = true;
            let location = entry.location;
            let owner = Owner {
                node,
                incarnation: entry.incarnation,
            };
            let start = match &mut entry.role {
                Role::Host { factory } => factory.take().map(Ok),
                Role::Client { future, .. } => future.take().map(Err),
            };
            (owner, start, location)
        };
        let future = match start {
            Some(Ok(mut factory)) => {
                // The factory is user code: no lock held, panics caught.
                // It runs as the new incarnation, whoever booted it (the
                // run's start, or another node's task restarting it): what
                // it spawns and binds belongs to the host, and dies with it.
                let caller = me.state().current.replace(owner);
                let built = panic::catch_unwind(AssertUnwindSafe(&mut factory));
                let mut state = me.state();
                state.current = caller;
                if let Role::Host { factory: slot } = &mut state.nodes[node].role {
                    *slot = Some(factory);
                }
                match built {
                    Ok(future) => future,
                    Err(payload) => {
                        let node = state.nodes[node].name.clone();
                        let message = panic_message(&*payload);
                        state
                            .failure
                            .get_or_insert(SimFailure::Panic { node, message });
                        return;
                    }
                }
            }
            Some(Err(future)) => future,
            // A client starts once; a host's factory is only out while
            // it runs, on this thread.
            None => return,
        };
        let root = Root { owner, future };
        drop(Handle::spawn_owned(
            me,
            root,
            TaskMeta::at(location),
            Some(owner),
        ));
    }

    /// A root task finished: a client is done, or a node failed.
    fn root_finished(&self, owner: Owner, outcome: Result<(), SimFailure>) {
        let mut state = self.state();
        if !state.is_alive(owner) {
            return;
        }
        match outcome {
            Ok(()) => {
                if let Role::Client { finished, .. } = &mut state.nodes[owner.node].role {
                    *finished = true;
                }
            }
            Err(failure) if state.failure.is_none() => state.failure = Some(failure),
            Err(later) => {
                // Only the first failure is reported; this one (user
                // data) is dropped without the lock its destructor might
                // want.
                drop(state);
                drop(later);
            }
        }
    }

    /// `rt::sim::crash`: see the module docs.
    ///
    /// # Panics
    ///
    /// Panics if `name` is not a host of this simulation.
    #[track_caller]
    pub(crate) fn crash(&self, name: &str) {
        let now = self.time().now_tick();
        let aborts = {
            let mut state = self.state();
            match state.host_index(name, "crash") {
                Ok(node) => state.take_down(node, now),
                Err(message) => {
                    drop(state);
                    panic!("{message}");
                }
            }
        };
        for abort in aborts {
            abort.abort();
        }
    }

    /// `rt::sim::restart`: see the module docs.
    ///
    /// # Panics
    ///
    /// Panics if `name` is not a host of this simulation.
    #[track_caller]
    pub(crate) fn restart(me: &Arc<Handle>, name: &str) {
        let now = me.time().now_tick();
        let (node, aborts) = {
            let mut state = me.state();
            match state.host_index(name, "restart") {
                Ok(node) => {
                    let aborts = state.take_down(node, now);
                    state.record(TraceEvent::Restart(node as u64));
                    (node, aborts)
                }
                Err(message) => {
                    drop(state);
                    panic!("{message}");
                }
            }
        };
        for abort in aborts {
            abort.abort();
        }
        Handle::boot(me, node);
    }
}

impl super::executor::State {
    /// The index of host `name`, or the message of `what`'s panic.
    fn host_index(&self, name: &str, what: &str) -> Result<usize, String> {
        match self.node_index(name) {
            Some(node) if !self.nodes[node].is_client() => Ok(node),
            Some(_) => Err(format!(
                "`rt::sim::{what}(\"{name}\")`: `{name}` is a client; only hosts \
                 (`Sim::host`) crash and restart"
            )),
            None => Err(format!(
                "`rt::sim::{what}(\"{name}\")`: this simulation has no host named `{name}`"
            )),
        }
    }

    /// Steps 1 and 3 of a crash (module docs), returning what step 2
    /// aborts; nothing if the host is down already.
    fn take_down(&mut self, node: usize, now: u64) -> Vec<AbortHandle> {
        if !self.nodes[node].up {
            return Vec::new();
        }
        self.nodes[node].up = false;
        self.nodes[node].incarnation += 1;
        self.record(TraceEvent::Crash(node as u64));
        // Its sockets vanish with it; the peers' resets go out now, and
        // the wakers released wait in `net.woken` for the run loop.
        self.net.crash(node, now);
        let mut aborts = Vec::new();
        let mut doomed = Vec::new();
        for (&id, info) in &self.tasks {
            if info.owner.is_some_and(|owner| owner.node == node) {
                aborts.push(info.abort.clone());
                doomed.push(id);
            }
        }
        self.doomed.extend(doomed);
        aborts
    }
}

/// A host's or client's future as a task: reports how it ended.
struct Root {
    owner: Owner,
    future: RootFuture,
}

impl Future for Root {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let polled = panic::catch_unwind(AssertUnwindSafe(|| self.future.as_mut().poll(cx)));
        let owner = self.owner;
        let outcome = match polled {
            Ok(Poll::Pending) => return Poll::Pending,
            Ok(Poll::Ready(Ok(()))) => Ok(()),
            Ok(Poll::Ready(Err(error))) => Err((owner, Failed::Error(error))),
            Err(payload) => Err((owner, Failed::Panic(panic_message(&*payload)))),
        };
        super::executor::with_current(|sim| {
            let outcome = outcome.map_err(|(owner, failed)| {
                let node = sim.state().nodes[owner.node].name.clone();
                match failed {
                    Failed::Error(error) => SimFailure::Error { node, error },
                    Failed::Panic(message) => SimFailure::Panic { node, message },
                }
            });
            sim.root_finished(owner, outcome);
        });
        Poll::Ready(())
    }
}

enum Failed {
    Error(BoxError),
    Panic(String),
}

/// The text of a panic's payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "(a panic payload that is not a string)".to_owned()
    }
}

impl fmt::Debug for NodeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let role = match self.start {
            Start::Host(_) => "host",
            Start::Client(_) => "client",
        };
        f.debug_struct("NodeSpec")
            .field("name", &self.name)
            .field("role", &role)
            .finish()
    }
}
