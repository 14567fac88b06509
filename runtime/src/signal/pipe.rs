//! One runtime's pipe for one signal, shared by all the signal's listeners
//! on that runtime: a listener costs no descriptor and no reactor
//! registration of its own, only a place in the pipe's list of waiting
//! listeners.
//!
//! The pipe (signal-hook's socket pair, written by its handler) only
//! wakes; the process-wide count (`deliveries.rs`) says what was
//! delivered. A delivery bumps the count before the pipe is written (the
//! counting handler was registered first). A listener's poll:
//! 1. compares the count with the one it last received: a new count is a
//!    delivery, received at once;
//! 2. stores its waker in its place in the pipe's list, before looking at
//!    the pipe, so that any wake for the pipe from here on reaches it;
//! 3. polls the pipe's registration with the pipe's own waker
//!    (`Waiters`), which wakes every listener in the list. Ready: it
//!    empties the pipe, clears the readiness it saw, wakes every listener
//!    in the list and goes back to step 1. The wake is not redundant: a
//!    pipe emptied before the reactor's next turn gives the reactor no
//!    edge for the writes it held (the poller finds nothing to read), so
//!    the listener that empties it passes the wake on;
//! 4. Pending (the registration now holds the pipe's waker): compares the
//!    count once more before returning `Pending`.
//!
//! No wake is lost: take a delivery counted after a listener's step 1. Its
//! write comes later still, and either the reactor reports it (waking the
//! pipe's waker, stored in step 3, so the whole list, this listener
//! included since step 2), or a listener that saw the readiness of an
//! earlier write emptied the pipe first and woke the list after it: this
//! listener is in the list if its step 2 came first, and otherwise its
//! step 4 comes after the emptying (the list's lock orders them) and sees
//! the count. A delivery may wake a listener twice (once from the reactor,
//! once from the listener that empties the pipe); the second finds nothing
//! and waits again.
//!
//! A runtime's pipe for a signal is made by its first listener there and
//! found by the next ones in `PIPES`, keyed by runtime id (ids are never
//! reused, so a pipe outliving its runtime is never found by another); the
//! map holds it weakly, and the last listener's drop closes it.
//!
//! std's locks and `Arc`: signals and the reactor's pipe are outside the
//! concurrency loom models, `std::task::Wake` is implemented for std's
//! `Arc` only, and `PIPES` is a static (a const lock).

use super::deliveries::Deliveries;
use crate::io::registered::Registered;
use crate::runtime::{Id, context};
use rt_reactor::{Direction, Interest};
use signal_hook_mio::v1_0::Signals;
use slab::Slab;
use std::collections::BTreeMap;
use std::io;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::task::{Context, Poll, Wake, Waker, ready};

/// Each runtime's pipe for each signal it has listeners for.
static PIPES: Mutex<BTreeMap<(Id, libc::c_int), Weak<SignalPipe>>> = Mutex::new(BTreeMap::new());

/// One listener's hold on its runtime's pipe for its signal.
pub(super) struct PipeListener {
    pipe: Arc<SignalPipe>,
    /// The delivery count when this listener last received.
    seen: usize,
    /// Its place in the pipe's list, taken on its first wait and kept
    /// until it drops.
    place: Option<usize>,
}

impl PipeListener {
    /// A listener for `signum` on the current runtime, joining the
    /// runtime's pipe for it (made if there is none).
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled (see `current_reactor`).
    #[track_caller]
    pub(super) fn new(
        signum: libc::c_int,
        deliveries: &'static Deliveries,
    ) -> io::Result<PipeListener> {
        let pipe = SignalPipe::for_current_runtime(signum, deliveries)?;
        Ok(PipeListener {
            pipe,
            seen: deliveries.received(),
            place: None,
        })
    }

    /// Steps 1 to 4 of the module docs: `Ready(Some(()))` for a delivery,
    /// `Ready(None)` once the runtime has shut down. Spends no budget.
    pub(super) fn poll_delivery(&mut self, cx: &mut Context<'_>) -> Poll<Option<()>> {
        let pipe = &*self.pipe;
        loop {
            // Step 1.
            if pipe.deliveries.receive(&mut self.seen) {
                return Poll::Ready(Some(()));
            }
            // Step 2.
            pipe.waiters.wait(&mut self.place, cx.waker());
            // Step 3.
            match pipe.poll_emptied() {
                Poll::Ready(Ok(())) => continue,
                // The reactor shut down: no delivery will ever wake us.
                Poll::Ready(Err(_)) => return Poll::Ready(None),
                Poll::Pending => {}
            }
            // Step 4.
            if pipe.deliveries.receive(&mut self.seen) {
                return Poll::Ready(Some(()));
            }
            return Poll::Pending;
        }
    }
}

impl Drop for PipeListener {
    fn drop(&mut self) {
        if let Some(place) = self.place.take() {
            self.pipe.waiters.leave(place);
        }
    }
}

/// One runtime's pipe for one signal.
struct SignalPipe {
    /// Its key in `PIPES`.
    key: (Id, libc::c_int),
    deliveries: &'static Deliveries,
    source: Registered<PipeSource>,
    waiters: Arc<Waiters>,
    /// A waker for `waiters`: the one the registration holds.
    wake_all: Waker,
}

impl SignalPipe {
    /// The current runtime's pipe for `signum`, made if it has none.
    #[track_caller]
    fn for_current_runtime(
        signum: libc::c_int,
        deliveries: &'static Deliveries,
    ) -> io::Result<Arc<SignalPipe>> {
        let reactor = crate::io::registered::current_reactor();
        let runtime = context::with_current(|handle| handle.config().runtime_id)
            .expect("a runtime is current: `current_reactor` found its reactor");
        let key = (runtime, signum);
        // Held while a missing pipe is made, so a runtime gets one pipe per
        // signal. No `SignalPipe` is dropped under it (its drop takes it).
        let mut pipes = PIPES.lock().unwrap_or_else(PoisonError::into_inner);
        // After a shutdown a new listener fails as it did before pipes
        // were shared: the registration below reports the shutdown.
        if !reactor.is_shutdown() {
            if let Some(pipe) = pipes.get(&key).and_then(Weak::upgrade) {
                return Ok(pipe);
            }
        }
        let signals = Signals::new([signum]).map_err(|error| {
            io::Error::new(
                error.kind(),
                format!("rt: cannot listen for signal {signum}: {error}"),
            )
        })?;
        let source = Registered::new(PipeSource(Mutex::new(signals)), Interest::READABLE)?;
        let waiters = Arc::new(Waiters::default());
        let pipe = Arc::new(SignalPipe {
            key,
            deliveries,
            source,
            wake_all: Waker::from(waiters.clone()),
            waiters,
        });
        pipes.insert(key, Arc::downgrade(&pipe));
        Ok(pipe)
    }

    /// Step 3 of the module docs: `Ready` once the pipe was emptied (and
    /// the list woken), `Pending` with the pipe's waker in the
    /// registration.
    fn poll_emptied(&self) -> Poll<io::Result<()>> {
        let registration = self.source.registration();
        let mut cx = Context::from_waker(&self.wake_all);
        let event = ready!(registration.poll_ready(&mut cx, Direction::Read))?;
        self.source.get_ref().empty();
        // A write made since `event` is a new readiness, which the clear
        // keeps (it checks the tick).
        registration.clear_readiness(event);
        self.waiters.wake_all();
        Poll::Ready(Ok(()))
    }
}

impl Drop for SignalPipe {
    fn drop(&mut self) {
        let mut pipes = PIPES.lock().unwrap_or_else(PoisonError::into_inner);
        // A listener may have made a new pipe under this key since the
        // last one of this pipe dropped: that one stays.
        if pipes
            .get(&self.key)
            .is_some_and(|pipe| pipe.strong_count() == 0)
        {
            pipes.remove(&self.key);
        }
    }
}

/// signal-hook's pipe for one signal, behind a lock: emptying it takes
/// `&mut`, and any of the runtime's listeners may empty it.
struct PipeSource(Mutex<Signals>);

impl PipeSource {
    /// Reads everything written to the pipe (the count says what it
    /// announced).
    fn empty(&self) {
        let mut signals = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        signals.pending().for_each(drop);
    }

    fn signals(&mut self) -> &mut Signals {
        self.0.get_mut().unwrap_or_else(PoisonError::into_inner)
    }
}

impl mio::event::Source for PipeSource {
    fn register(
        &mut self,
        registry: &mio::Registry,
        token: mio::Token,
        interests: mio::Interest,
    ) -> io::Result<()> {
        self.signals().register(registry, token, interests)
    }

    fn reregister(
        &mut self,
        registry: &mio::Registry,
        token: mio::Token,
        interests: mio::Interest,
    ) -> io::Result<()> {
        self.signals().reregister(registry, token, interests)
    }

    fn deregister(&mut self, registry: &mio::Registry) -> io::Result<()> {
        self.signals().deregister(registry)
    }
}

/// The wakers of a pipe's waiting listeners, one place each; as a waker,
/// it wakes them all.
///
/// Wakers are dropped and woken after the lock is released: a waker may
/// run arbitrary code.
#[derive(Default)]
struct Waiters(Mutex<Slab<Option<Waker>>>);

impl Waiters {
    /// Stores `waker` in the listener's place, taking one if it has none.
    fn wait(&self, place: &mut Option<usize>, waker: &Waker) {
        let mut list = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let replaced = match *place {
            Some(place) => {
                let slot = &mut list[place];
                match slot {
                    Some(stored) if stored.will_wake(waker) => None,
                    _ => slot.replace(waker.clone()),
                }
            }
            None => {
                *place = Some(list.insert(Some(waker.clone())));
                None
            }
        };
        drop(list);
        drop(replaced);
    }

    /// Frees a dropped listener's place.
    fn leave(&self, place: usize) {
        let mut list = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let waker = list.remove(place);
        drop(list);
        drop(waker);
    }

    /// Wakes every waiting listener; each stores its waker again when it
    /// next waits.
    fn wake_all(&self) {
        let mut list = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let woken: Vec<Waker> = list
            .iter_mut()
            .filter_map(|(_, slot)| slot.take())
            .collect();
        drop(list);
        woken.into_iter().for_each(Waker::wake);
    }
}

impl Wake for Waiters {
    fn wake(self: Arc<Self>) {
        self.wake_all();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wake_all();
    }
}
