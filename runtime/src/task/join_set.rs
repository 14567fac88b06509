//! `JoinSet`: a set of spawned tasks, joined in completion order.
//!
//! Each task's `JoinHandle` is polled with a waker of its own
//! (`EntryWaker`), which puts the task's slab key on a shared ready list
//! and wakes whoever waits in `join_next`. So `join_next` polls only the
//! handles that were woken, never every handle in the set:
//! 1. `spawn` stores the handle in the slab and queues its key, so the
//!    first `join_next` polls it once (registering its waker);
//! 2. a task that completes wakes its entry waker, which queues the key
//!    (at most once until it is polled again) and wakes the joiner;
//! 3. `join_next` pops keys and polls those handles; a handle still
//!    pending stays registered and is polled again only when woken.
//!
//! Keys are reused by the slab, so a stale key may make `join_next` poll
//! some other pending handle once; that is harmless.

use crate::loom::sync::Mutex;
use crate::loom::sync::atomic::{AtomicBool, Ordering};
use crate::runtime::Handle;
use crate::task::waits::Site;
use crate::task::{AbortHandle, Id, JoinError, JoinHandle, LocalSet, poll_budget_available};
use slab::Slab;
use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
// std's Arc: `std::task::Wake` is implemented for it only.
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker, ready};

/// A set of tasks on a runtime, joined in the order they finish.
///
/// Dropping the set aborts every task still in it (their runtime drops
/// their futures, see [`JoinHandle::abort`]), even from a thread outside
/// the runtime.
///
/// # Examples
///
/// ```
/// use rt::task::JoinSet;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let mut set = JoinSet::new();
///     for i in 0..10u64 {
///         set.spawn(async move { i * 2 });
///     }
///     let mut total = 0;
///     while let Some(result) = set.join_next().await {
///         total += result.unwrap();
///     }
///     assert_eq!(total, 90);
/// });
/// ```
pub struct JoinSet<T> {
    tasks: Slab<Entry<T>>,
    ready: Arc<ReadyList>,
}

struct Entry<T> {
    handle: JoinHandle<T>,
    entry_waker: Arc<EntryWaker>,
    waker: Waker,
}

#[derive(Debug)]
struct ReadyList {
    state: Mutex<ReadyState>,
}

#[derive(Debug)]
struct ReadyState {
    keys: VecDeque<usize>,
    joiner: Option<Waker>,
}

impl ReadyList {
    fn push(&self, key: usize) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.keys.push_back(key);
        let joiner = state.joiner.take();
        drop(state);
        if let Some(joiner) = joiner {
            joiner.wake();
        }
    }
}

#[derive(Debug)]
struct EntryWaker {
    key: usize,
    /// Set while the key is on the ready list, so a task woken many times
    /// is queued once.
    queued: AtomicBool,
    list: Arc<ReadyList>,
}

impl Wake for EntryWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if !self.queued.swap(true, Ordering::AcqRel) {
            self.list.push(self.key);
        }
    }
}

impl<T> JoinSet<T> {
    /// An empty set.
    ///
    /// # Examples
    ///
    /// ```
    /// let set = rt::task::JoinSet::<()>::new();
    /// assert!(set.is_empty());
    /// ```
    pub fn new() -> JoinSet<T> {
        JoinSet {
            tasks: Slab::new(),
            ready: Arc::new(ReadyList {
                state: Mutex::new(ReadyState {
                    keys: VecDeque::new(),
                    joiner: None,
                }),
            }),
        }
    }

    /// Adds a spawned task to the set.
    pub(crate) fn insert(&mut self, handle: JoinHandle<T>) -> AbortHandle {
        let abort = handle.abort_handle();
        let slot = self.tasks.vacant_entry();
        let key = slot.key();
        let entry_waker = Arc::new(EntryWaker {
            key,
            queued: AtomicBool::new(true),
            list: self.ready.clone(),
        });
        let waker = Waker::from(entry_waker.clone());
        slot.insert(Entry {
            handle,
            entry_waker,
            waker,
        });
        // Step 1: the first poll registers the entry's waker.
        self.ready.push(key);
        abort
    }
}

impl<T: 'static> JoinSet<T> {
    /// Spawns a `!Send` future into the set, on the
    /// [`LocalSet`](crate::task::LocalSet) this thread is running (as
    /// [`spawn_local`](crate::task::spawn_local)). The set may hold local
    /// and `Send` tasks together; it must then be joined on this thread.
    ///
    /// # Panics
    ///
    /// Panics outside a `LocalSet`; use
    /// [`spawn_local_on`](JoinSet::spawn_local_on) there.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::rc::Rc;
    ///
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// rt::task::LocalSet::new().block_on(&rt, async {
    ///     let shared = Rc::new(5);
    ///     let mut set = rt::task::JoinSet::new();
    ///     for i in 0..3 {
    ///         let shared = shared.clone();
    ///         set.spawn_local(async move { *shared + i });
    ///     }
    ///     let mut outputs = set.join_all().await;
    ///     outputs.sort();
    ///     assert_eq!(outputs, [5, 6, 7]);
    /// });
    /// ```
    #[track_caller]
    pub fn spawn_local<F>(&mut self, future: F) -> AbortHandle
    where
        F: Future<Output = T> + 'static,
    {
        match super::local::try_spawn_local(future, crate::task::TaskMeta::new()) {
            Ok(handle) => self.insert(handle),
            Err(_) => panic!(
                "`JoinSet::spawn_local` called outside a `LocalSet`: local tasks need a set to \
                 run on. Call it inside `LocalSet::run_until`, `LocalSet::block_on` or an awaited \
                 `LocalSet` (or under `LocalSet::enter`), or use \
                 `JoinSet::spawn_local_on(future, &local_set)`; use `JoinSet::spawn` for `Send` \
                 futures"
            ),
        }
    }

    /// Spawns a `!Send` future into the set, on `local_set` (as
    /// [`LocalSet::spawn_local`](crate::task::LocalSet::spawn_local)). It
    /// starts when that set is next driven.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::rc::Rc;
    ///
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let local = rt::task::LocalSet::new();
    /// let mut set = rt::task::JoinSet::new();
    /// let name = Rc::new(String::from("local"));
    /// set.spawn_local_on(async move { name.len() }, &local);
    /// let joined = local.block_on(&rt, set.join_next());
    /// assert_eq!(joined.unwrap().unwrap(), 5);
    /// ```
    #[track_caller]
    pub fn spawn_local_on<F>(&mut self, future: F, local_set: &LocalSet) -> AbortHandle
    where
        F: Future<Output = T> + 'static,
    {
        self.insert(local_set.spawn_local_with(future, crate::task::TaskMeta::new()))
    }
}

impl<T: Send + 'static> JoinSet<T> {
    /// Spawns a task on the current runtime into the set.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime, as [`rt::spawn`](crate::spawn); use
    /// [`spawn_on`](JoinSet::spawn_on) there.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = rt::task::JoinSet::new();
    ///     set.spawn(async { 1 });
    ///     assert_eq!(set.join_next().await.unwrap().unwrap(), 1);
    /// });
    /// ```
    #[track_caller]
    pub fn spawn<F>(&mut self, future: F) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
    {
        self.spawn_as(future, "JoinSet::spawn")
    }

    /// `spawn`, panicking outside a runtime with `what` as the call named.
    #[track_caller]
    fn spawn_as<F>(&mut self, future: F, what: &str) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
    {
        self.insert(crate::runtime::spawn::spawn_as(
            future,
            what,
            "use `JoinSet::spawn_on` with a runtime handle",
        ))
    }

    /// Spawns a task on the runtime of `handle` into the set.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let mut set = rt::task::JoinSet::new();
    /// set.spawn_on(async { "on rt" }, rt.handle());
    /// let first = rt.block_on(set.join_next()).unwrap().unwrap();
    /// assert_eq!(first, "on rt");
    /// ```
    #[track_caller]
    pub fn spawn_on<F>(&mut self, future: F, handle: &Handle) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
    {
        self.insert(handle.spawn(future))
    }

    /// Runs the blocking closure `f` on the current runtime's blocking
    /// pool (as [`spawn_blocking`](crate::task::spawn_blocking)), joined
    /// with the set's other tasks. Aborting it only stops it if it has not
    /// started yet.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime; use
    /// [`spawn_blocking_on`](JoinSet::spawn_blocking_on) there.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = rt::task::JoinSet::new();
    ///     set.spawn_blocking(|| std::thread::current().name().map(String::from));
    ///     assert!(set.join_next().await.unwrap().is_ok());
    /// });
    /// ```
    #[track_caller]
    pub fn spawn_blocking<F>(&mut self, f: F) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.insert(crate::blocking::spawn_blocking_as(
            f,
            "JoinSet::spawn_blocking",
            "use `JoinSet::spawn_blocking_on` with a runtime handle",
        ))
    }

    /// [`spawn_blocking`](JoinSet::spawn_blocking) on the runtime of
    /// `handle`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let mut set = rt::task::JoinSet::new();
    /// set.spawn_blocking_on(|| 6 * 7, rt.handle());
    /// assert_eq!(rt.block_on(set.join_next()).unwrap().unwrap(), 42);
    /// ```
    #[track_caller]
    pub fn spawn_blocking_on<F>(&mut self, f: F, handle: &Handle) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.insert(handle.spawn_blocking(f))
    }
}

impl<T> JoinSet<T> {
    /// Waits for the next task to finish and returns its result; `None`
    /// when the set is empty. Cancel-safe: dropping the future removes no
    /// task from the set.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = rt::task::JoinSet::new();
    ///     set.spawn(async { panic!("boom") });
    ///     assert!(set.join_next().await.unwrap().unwrap_err().is_panic());
    ///     assert!(set.join_next().await.is_none());
    /// });
    /// ```
    #[track_caller]
    pub fn join_next(&mut self) -> impl Future<Output = Option<Result<T, JoinError>>> {
        let site = Site::here("JoinSet::join_next");
        async move { std::future::poll_fn(|cx| site.pending(self.poll_join_next(cx))).await }
    }

    /// Polls for the next finished task; see [`join_next`](JoinSet::join_next).
    /// Spends one unit of the cooperative budget per call.
    pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        self.poll_join_next_with_id(cx).map(without_id)
    }

    /// [`join_next`](JoinSet::join_next) that also says which task
    /// finished: its [`Id`] beside its output (a failed task's id is
    /// [`JoinError::id`]). Cancel-safe.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = rt::task::JoinSet::new();
    ///     let id = set.spawn(async { "done" }).id();
    ///     assert_eq!(set.join_next_with_id().await.unwrap().unwrap(), (id, "done"));
    ///     assert!(set.join_next_with_id().await.is_none());
    /// });
    /// ```
    #[track_caller]
    pub fn join_next_with_id(
        &mut self,
    ) -> impl Future<Output = Option<Result<(Id, T), JoinError>>> {
        let site = Site::here("JoinSet::join_next_with_id");
        async move { std::future::poll_fn(|cx| site.pending(self.poll_join_next_with_id(cx))).await }
    }

    /// Polls for the next finished task; see
    /// [`join_next_with_id`](JoinSet::join_next_with_id). Spends one unit
    /// of the cooperative budget per call.
    pub fn poll_join_next_with_id(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<(Id, T), JoinError>>> {
        let mut replaced = None;
        let result = self.poll_join_next_with_id_replacing(cx, &mut replaced);
        drop(replaced);
        result
    }

    /// [`poll_join_next`](JoinSet::poll_join_next), handing the joiner
    /// waker it replaced to the caller, to drop once the caller's own
    /// locks are released (its destructor may use them).
    pub(crate) fn poll_join_next_replacing(
        &mut self,
        cx: &mut Context<'_>,
        replaced: &mut Option<Waker>,
    ) -> Poll<Option<Result<T, JoinError>>> {
        self.poll_join_next_with_id_replacing(cx, replaced)
            .map(without_id)
    }

    /// [`poll_join_next_replacing`](JoinSet::poll_join_next_replacing)
    /// with the finished task's id.
    fn poll_join_next_with_id_replacing(
        &mut self,
        cx: &mut Context<'_>,
        replaced: &mut Option<Waker>,
    ) -> Poll<Option<Result<(Id, T), JoinError>>> {
        // The joined handle's poll spends the unit, as in tokio: checked
        // here only so that a spent budget yields before the list is
        // walked; an empty set returns `None` whatever the budget.
        if !self.tasks.is_empty() {
            ready!(poll_budget_available(cx));
        }
        self.poll_ready_list(Some(cx.waker()), replaced)
    }

    /// Polls the woken handles. With no `joiner`, nothing is registered;
    /// a joiner it replaces goes to `replaced`.
    fn poll_ready_list(
        &mut self,
        joiner: Option<&Waker>,
        replaced: &mut Option<Waker>,
    ) -> Poll<Option<Result<(Id, T), JoinError>>> {
        // Bounded so that a handle re-queueing itself (its budget check
        // said Pending) cannot keep this loop going.
        let mut budget = 1 + self.tasks.len();
        loop {
            let key = {
                let mut state = self.ready.state.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(joiner) = joiner {
                    if let Some(old) = crate::sync::register_waker(&mut state.joiner, joiner) {
                        // Dropped by the caller, after every lock.
                        *replaced = Some(old);
                    }
                }
                state.keys.pop_front()
            };
            let Some(key) = key else {
                return if self.tasks.is_empty() {
                    Poll::Ready(None)
                } else {
                    Poll::Pending
                };
            };
            if budget == 0 {
                // Leave the rest for the next poll; the pushes woke the joiner.
                self.ready.push(key);
                return Poll::Pending;
            }
            budget -= 1;
            let Some(entry) = self.tasks.get_mut(key) else {
                continue;
            };
            entry.entry_waker.queued.store(false, Ordering::Release);
            let mut cx = Context::from_waker(&entry.waker);
            if let Poll::Ready(result) = Pin::new(&mut entry.handle).poll(&mut cx) {
                let id = entry.handle.id();
                self.tasks.remove(key);
                return Poll::Ready(Some(result.map(|output| (id, output))));
            }
        }
    }

    /// Returns the result of a task that has already finished, if any,
    /// without waiting.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = rt::task::JoinSet::<()>::new();
    ///     set.spawn(std::future::pending());
    ///     assert!(set.try_join_next().is_none());
    ///     set.abort_all();
    ///     assert!(set.join_next().await.unwrap().unwrap_err().is_cancelled());
    /// });
    /// ```
    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        without_id(self.try_join_next_with_id())
    }

    /// [`try_join_next`](JoinSet::try_join_next) that also says which
    /// task finished, as [`join_next_with_id`](JoinSet::join_next_with_id)
    /// does.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = rt::task::JoinSet::new();
    ///     let id = set.spawn(async { 7 }).id();
    ///     let joined = loop {
    ///         if let Some(joined) = set.try_join_next_with_id() {
    ///             break joined;
    ///         }
    ///         rt::task::yield_now().await;
    ///     };
    ///     assert_eq!(joined.unwrap(), (id, 7));
    ///     assert!(set.try_join_next_with_id().is_none());
    /// });
    /// ```
    pub fn try_join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        let mut result = None;
        // Unconstrained: a spent budget must not hide a finished task.
        let poll_once = crate::task::unconstrained(std::future::poll_fn(|_| {
            if let Poll::Ready(Some(output)) = self.poll_ready_list(None, &mut None) {
                result = Some(output);
            }
            Poll::Ready(())
        }));
        let mut cx = Context::from_waker(Waker::noop());
        let _ = std::pin::pin!(poll_once).poll(&mut cx);
        result
    }

    /// Aborts every task in the set. They stay in the set until joined
    /// (each then yields a cancelled [`JoinError`], unless it had finished).
    /// As with [`JoinHandle::abort`], their futures are dropped by their
    /// runtime's workers, not on the calling thread.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = rt::task::JoinSet::<()>::new();
    ///     set.spawn(std::future::pending());
    ///     set.abort_all();
    ///     assert!(set.join_next().await.unwrap().unwrap_err().is_cancelled());
    /// });
    /// ```
    pub fn abort_all(&self) {
        for (_, entry) in &self.tasks {
            entry.handle.abort();
        }
    }

    /// Removes every task from the set without aborting it: the tasks keep
    /// running, detached, as if their `JoinHandle`s were dropped.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (tx, rx) = rt::sync::oneshot::channel();
    ///     let mut set = rt::task::JoinSet::new();
    ///     set.spawn(async move { tx.send(1).unwrap() });
    ///     set.detach_all();
    ///     drop(set); // does not abort the detached task
    ///     assert_eq!(rx.await.unwrap(), 1);
    /// });
    /// ```
    pub fn detach_all(&mut self) {
        self.tasks.clear();
        self.ready
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .keys
            .clear();
    }

    /// Waits for every task and returns their outputs, in the order they
    /// finished.
    ///
    /// # Panics
    ///
    /// If a task panicked, its panic goes on here (the other tasks are
    /// aborted as the set is dropped); if one was cancelled, this panics
    /// saying so. Use [`join_next`](JoinSet::join_next) to handle those.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = rt::task::JoinSet::new();
    ///     for i in 0..3 {
    ///         set.spawn(async move { i * 10 });
    ///     }
    ///     let mut outputs = set.join_all().await;
    ///     outputs.sort();
    ///     assert_eq!(outputs, [0, 10, 20]);
    /// });
    /// ```
    pub async fn join_all(mut self) -> Vec<T> {
        let mut outputs = Vec::with_capacity(self.len());
        while let Some(joined) = self.join_next().await {
            match joined {
                Ok(output) => outputs.push(output),
                Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
                Err(error) => panic!("`JoinSet::join_all`: {error}"),
            }
        }
        outputs
    }

    /// Aborts every task and waits until all have finished, dropping their
    /// results.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut set = rt::task::JoinSet::<()>::new();
    ///     for _ in 0..3 { set.spawn(std::future::pending()); }
    ///     set.shutdown().await;
    ///     assert!(set.is_empty());
    /// });
    /// ```
    pub async fn shutdown(&mut self) {
        self.abort_all();
        while self.join_next().await.is_some() {}
    }

    /// The number of tasks in the set (running, or finished and not yet
    /// joined).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let mut set = rt::task::JoinSet::new();
    /// set.spawn_on(async {}, rt.handle());
    /// assert_eq!(set.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// `true` if the set holds no task.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(rt::task::JoinSet::<u8>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }
}

impl<T> Default for JoinSet<T> {
    fn default() -> JoinSet<T> {
        JoinSet::new()
    }
}

/// Spawns each future on the current runtime into a new set.
///
/// # Panics
///
/// Panics outside a runtime, as [`rt::spawn`](crate::spawn).
///
/// # Examples
///
/// ```
/// use rt::task::JoinSet;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let set: JoinSet<u32> = (1..=3).map(|i| async move { i }).collect();
///     assert_eq!(set.join_all().await.into_iter().sum::<u32>(), 6);
/// });
/// ```
impl<T, F> FromIterator<F> for JoinSet<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    #[track_caller]
    fn from_iter<I: IntoIterator<Item = F>>(futures: I) -> JoinSet<T> {
        let mut set = JoinSet::new();
        for future in futures {
            set.spawn_as(future, "collect::<JoinSet<_>>");
        }
        set
    }
}

/// Spawns each future on the current runtime into the set.
///
/// # Panics
///
/// Panics outside a runtime, as [`rt::spawn`](crate::spawn).
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let mut set = rt::task::JoinSet::new();
///     set.extend((0..4).map(|i| async move { i }));
///     assert_eq!(set.len(), 4);
///     set.shutdown().await;
/// });
/// ```
impl<T, F> Extend<F> for JoinSet<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    #[track_caller]
    fn extend<I: IntoIterator<Item = F>>(&mut self, futures: I) {
        for future in futures {
            self.spawn_as(future, "JoinSet::extend");
        }
    }
}

impl<T> Drop for JoinSet<T> {
    fn drop(&mut self) {
        self.abort_all();
    }
}

impl<T> fmt::Debug for JoinSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinSet")
            .field("len", &self.tasks.len())
            .finish()
    }
}

/// A `poll_join_next_with_id` result without the task id.
fn without_id<T>(joined: Option<Result<(Id, T), JoinError>>) -> Option<Result<T, JoinError>> {
    joined.map(|result| result.map(|(_, output)| output))
}
