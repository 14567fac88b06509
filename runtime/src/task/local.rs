//! `LocalSet` and `spawn_local`: tasks whose futures are not `Send`, run on
//! the one thread that owns the set.
//!
//! A local task is an ordinary task (one allocation, the same state word,
//! `JoinHandle` and wakers) whose scheduler is the set's `Shared`. The set
//! itself is `!Send`, so everything that polls or drops a local future
//! happens where the set lives:
//! 1. spawning (`LocalSet::spawn_local`, or `spawn_local` inside the set)
//!    binds the task to the set's owned list and queues it on the set's
//!    local queue, waking whoever drives the set if it is not running;
//! 2. driving the set (`run_until`, `block_on`, awaiting the set) enters it
//!    (makes it this thread's current set, for `spawn_local` and for wakes
//!    on this thread), stores the driver's waker, polls the main future,
//!    then runs up to `MAX_TASKS_PER_TICK` queued tasks; when tasks are
//!    left it wakes the driver to come back after other work;
//! 3. a wake on this thread while the set is entered queues the task
//!    locally, no lock; if the set is entered only by `LocalSet::enter`
//!    (its driver is not polling it: a runtime task or a timer running
//!    under the guard), the stored waker is woken too, or the task would
//!    wait for a poll nobody asked for. Any other wake (another thread, or
//!    this thread outside the set) goes to the remote queue under a mutex
//!    and wakes the stored waker. The remote queue is moved
//!    into the local one whenever that is empty and every
//!    `REMOTE_INTERVAL` ticks, so remote wakes cannot starve;
//! 4. aborting a local task on another thread does not drop its future
//!    there: like any abort, it marks the task cancelled and schedules it
//!    (step 3), and the poll on the owning thread drops it;
//! 5. dropping the set (on its thread): close the remote queue (a later
//!    remote wake drops its task reference on the spot), cancel every
//!    task in the owned list (their futures are dropped here), then drop
//!    the queued references. A waker dropped later on another thread may
//!    free a task's memory, but never holds the last reference to a live
//!    future: the owned list holds one until the future is gone.
//!
//! The current set is a stack, as the current runtime is (see
//! `runtime/context.rs`): each enter guard pushes its set and takes its own
//! entry out when dropped. A guard dropped before a newer one still takes
//! only its own entry, so no set it made current stays current, and then
//! panics, as misuse, unless the thread is already panicking.
//!
//! The runtimes a set is driven on list it for their diagnostics (the
//! dump, the leak report, the watchdog), which read its owned list and its
//! poll counters from other threads, never its futures: see
//! `local_set_list.rs`.

use crate::loom::sync::atomic::{AtomicBool, Ordering};
use crate::loom::sync::{Arc, Mutex};
use crate::loom::thread::{self, ThreadId};
use crate::runtime::LocalSetLabel;
use crate::runtime::coarse_time;
use crate::runtime::metrics::WorkerMetrics;
use crate::task::list::OwnedTasks;
use crate::task::local_set_list::LocalSetList;
use crate::task::{JoinHandle, Notified, Schedule, TaskMeta};
use pin_project_lite::pin_project;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// Tasks run per poll of the set before it yields to its driver.
const MAX_TASKS_PER_TICK: usize = 61;

/// Every this many ticks the remote queue is taken even when local tasks
/// are waiting (step 3 of the module docs).
const REMOTE_INTERVAL: u32 = 31;

/// A set of `!Send` tasks that run on the thread that owns the set.
///
/// Spawn onto it with [`LocalSet::spawn_local`] (or, from inside it, with
/// [`spawn_local`]) and drive it with [`run_until`](LocalSet::run_until),
/// [`block_on`](LocalSet::block_on) or by awaiting it. It runs inside any
/// runtime's `block_on`, on the current-thread runtime (where it shares
/// the thread with the runtime's other tasks) or on any thread that blocks
/// on a multi-thread runtime, such as a `spawn_blocking` closure.
///
/// Local tasks are woken from any thread (their wakers are `Send + Sync`),
/// join through the usual [`JoinHandle`] and can be aborted from anywhere;
/// their futures are only ever polled and dropped on the set's thread.
/// Dropping the set cancels the tasks still in it, dropping their futures
/// there.
///
/// # Examples
///
/// ```
/// use std::rc::Rc;
/// use rt::task::LocalSet;
///
/// let rt = rt::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// let local = LocalSet::new();
/// let shared = Rc::new(41);
/// let answer = local.block_on(&rt, async move {
///     let shared2 = shared.clone();
///     let task = rt::task::spawn_local(async move { *shared2 + 1 });
///     task.await.unwrap()
/// });
/// assert_eq!(answer, 42);
/// ```
pub struct LocalSet {
    context: Rc<SetContext>,
}

/// The owning thread's view of a set; `ENTERED` holds it while entered.
struct SetContext {
    shared: Arc<Shared>,
    /// Tasks woken or spawned on this thread.
    queue: RefCell<VecDeque<Notified>>,
    /// How many polls of the set (`run_until`, awaiting it) are on the
    /// stack: while one is, the local queue is looked at before it
    /// returns, so a wake need not wake the driver (step 3).
    driving: Cell<usize>,
    tick: Cell<u32>,
    /// The lists of the runtimes this set was driven on or entered under
    /// (step 1 of `local_set_list.rs`).
    listed_in: RefCell<Vec<Arc<LocalSetList>>>,
}

/// What other threads reach: the scheduler of local tasks.
pub(crate) struct Shared {
    owner: ThreadId,
    /// What the diagnostics name the set by.
    pub(crate) label: LocalSetLabel,
    pub(crate) owned: OwnedTasks,
    /// The poll in progress and the poll count, kept as a worker keeps
    /// them, for the watchdog (only the set's thread writes).
    pub(crate) metrics: WorkerMetrics,
    /// How many sets were entered on the set's thread, this one included,
    /// when it last began running tasks: a set driven by a task of
    /// another set runs deeper, and the watchdog blames its stuck task,
    /// not the outer one whose poll it runs in (`watchdog.rs`). A hint
    /// ordering nothing: a std atomic, outside the loom shim.
    depth: std::sync::atomic::AtomicUsize,
    remote: Mutex<RemoteQueue>,
    /// Whether `remote` may hold tasks: lets the owner skip the lock.
    remote_pending: AtomicBool,
    /// The waker of whoever drives the set.
    driver: Mutex<Option<Waker>>,
}

struct RemoteQueue {
    tasks: VecDeque<Notified>,
    closed: bool,
}

/// The sets entered on this thread.
struct Entered {
    /// Oldest first, with the id of the guard that pushed each; the last
    /// one is current.
    sets: RefCell<Vec<(u64, Rc<SetContext>)>>,
    /// The id of the next `CurrentSetGuard`.
    next_guard: Cell<u64>,
}

impl Entered {
    const fn new() -> Entered {
        Entered {
            sets: RefCell::new(Vec::new()),
            next_guard: Cell::new(0),
        }
    }

    fn current(&self) -> Option<Rc<SetContext>> {
        self.sets
            .borrow()
            .last()
            .map(|(_, context)| context.clone())
    }
}

#[cfg(not(loom))]
thread_local! {
    static ENTERED: Entered = const { Entered::new() };
}

#[cfg(loom)]
loom::thread_local! {
    static ENTERED: Entered = Entered::new();
}

/// Spawns a `!Send` future onto the [`LocalSet`] this thread is running
/// (inside `run_until`, `block_on`, an awaited set, or under
/// [`LocalSet::enter`]).
///
/// # Panics
///
/// Panics outside a `LocalSet`, naming the ways to run one.
///
/// # Examples
///
/// ```
/// use std::cell::Cell;
/// use std::rc::Rc;
///
/// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
/// let counter = Rc::new(Cell::new(0));
/// rt::task::LocalSet::new().block_on(&rt, async {
///     let handles: Vec<_> = (0..3)
///         .map(|_| {
///             let counter = counter.clone();
///             rt::task::spawn_local(async move { counter.set(counter.get() + 1) })
///         })
///         .collect();
///     for handle in handles {
///         handle.await.unwrap();
///     }
/// });
/// assert_eq!(counter.get(), 3);
/// ```
#[track_caller]
pub fn spawn_local<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    match try_spawn_local(future, TaskMeta::new()) {
        Ok(join) => join,
        Err(_) => panic!(
            "`rt::task::spawn_local` called outside a `LocalSet`: local tasks need a set to run \
             on. Run this code inside `LocalSet::run_until`, `LocalSet::block_on` or an \
             awaited `LocalSet` (or under `LocalSet::enter`), or spawn with \
             `LocalSet::spawn_local`; use `rt::spawn` for `Send` futures"
        ),
    }
}

/// Spawns onto the set this thread runs, or gives the future back when
/// there is none.
pub(super) fn try_spawn_local<F>(future: F, meta: TaskMeta) -> Result<JoinHandle<F::Output>, F>
where
    F: Future + 'static,
    F::Output: 'static,
{
    let current = ENTERED.try_with(Entered::current).ok().flatten();
    match current {
        Some(context) => Ok(context.spawn(future, meta)),
        None => Err(future),
    }
}

impl LocalSet {
    /// An empty set, owned by this thread.
    ///
    /// # Examples
    ///
    /// ```
    /// let local = rt::task::LocalSet::new();
    /// # drop(local);
    /// ```
    pub fn new() -> LocalSet {
        LocalSet {
            context: Rc::new(SetContext {
                shared: Arc::new(Shared {
                    owner: thread::current().id(),
                    label: LocalSetLabel::of_this_thread(),
                    owned: OwnedTasks::new(1),
                    metrics: WorkerMetrics::default(),
                    depth: std::sync::atomic::AtomicUsize::new(0),
                    remote: Mutex::new(RemoteQueue {
                        tasks: VecDeque::new(),
                        closed: false,
                    }),
                    remote_pending: AtomicBool::new(false),
                    driver: Mutex::new(None),
                }),
                queue: RefCell::new(VecDeque::new()),
                driving: Cell::new(0),
                tick: Cell::new(0),
                listed_in: RefCell::new(Vec::new()),
            }),
        }
    }

    /// Spawns a `!Send` future onto this set. It starts running when the
    /// set is next driven.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::rc::Rc;
    ///
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let local = rt::task::LocalSet::new();
    /// let name = Rc::new("local");
    /// let task = local.spawn_local(async move { name.len() });
    /// assert_eq!(local.block_on(&rt, task).unwrap(), 5);
    /// ```
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.context.spawn(future, TaskMeta::new())
    }

    /// What other threads reach of this set (its tasks, its counters).
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.context.shared
    }

    /// `spawn_local` with the spawn-time facts already taken.
    pub(super) fn spawn_local_with<F>(&self, future: F, meta: TaskMeta) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.context.spawn(future, meta)
    }

    /// Runs `future` to completion on `rt`, driving this set's tasks
    /// meanwhile. Tasks still unfinished when it completes stay in the set.
    ///
    /// # Panics
    ///
    /// Panics if called inside a runtime, as [`Runtime::block_on`](crate::runtime::Runtime::block_on).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let local = rt::task::LocalSet::new();
    /// let out = local.block_on(&rt, async { rt::task::spawn_local(async { 7 }).await.unwrap() });
    /// assert_eq!(out, 7);
    /// ```
    #[track_caller]
    pub fn block_on<F: Future>(&self, rt: &crate::runtime::Runtime, future: F) -> F::Output {
        rt.block_on(self.run_until(future))
    }

    /// A future that drives this set's tasks until `future` completes, and
    /// returns its output. Inside it, [`spawn_local`] spawns onto this set.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let local = rt::task::LocalSet::new();
    /// rt.block_on(local.run_until(async {
    ///     let rc = std::rc::Rc::new(5);
    ///     let doubled = rt::task::spawn_local(async move { *rc * 2 }).await.unwrap();
    ///     assert_eq!(doubled, 10);
    /// }));
    /// ```
    pub fn run_until<F: Future>(&self, future: F) -> RunUntil<'_, F> {
        RunUntil {
            local_set: self,
            future,
        }
    }

    /// Makes this the current set until the guard drops, so that
    /// [`spawn_local`] works outside `run_until` (the tasks run when the
    /// set is next driven).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let local = rt::task::LocalSet::new();
    /// let task = {
    ///     let _guard = local.enter();
    ///     rt::task::spawn_local(async { "spawned early" })
    /// };
    /// assert_eq!(local.block_on(&rt, task).unwrap(), "spawned early");
    /// ```
    pub fn enter(&self) -> LocalEnterGuard<'_> {
        self.context.join_current_runtime_list();
        self.enter_unlisted()
    }

    /// An id for this set, unique in the process: the one
    /// [`LocalSetLabel::id`] shows for its tasks in a
    /// [`TaskDump`](crate::runtime::TaskDump).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let local = rt::task::LocalSet::new();
    /// let (tx, rx) = futures_channel::oneshot::channel::<()>();
    /// let task = local.spawn_local(async move { rx.await.ok(); });
    /// local.block_on(&rt, rt::task::yield_now()); // the set joins `rt`'s dump
    /// let dump = rt.handle().dump();
    /// let listed = dump.iter().find(|t| t.id() == task.id()).unwrap();
    /// assert_eq!(listed.local_set().map(|set| set.id()), Some(local.id()));
    /// # tx.send(()).unwrap();
    /// # local.block_on(&rt, task).unwrap();
    /// ```
    pub fn id(&self) -> u64 {
        self.context.shared.label.id()
    }

    /// `enter` without joining the current runtime's list (for `drop`).
    fn enter_unlisted(&self) -> LocalEnterGuard<'_> {
        // Fails only while this thread's thread-locals are torn down (a set
        // dropped by one of them): the set then runs without being current.
        let id = ENTERED
            .try_with(|entered| {
                let id = entered.next_guard.get();
                entered.next_guard.set(id + 1);
                entered.sets.borrow_mut().push((id, self.context.clone()));
                id
            })
            .ok();
        LocalEnterGuard {
            current: CurrentSetGuard {
                id,
                _thread_bound: PhantomData,
            },
            _set: PhantomData,
        }
    }

    /// Runs `f`, a poll of the set, with this set entered (step 2 of the
    /// module docs).
    fn with_entered<R>(&self, f: impl FnOnce() -> R) -> R {
        let _guard = self.enter();
        let _driving = DrivingGuard::new(&self.context);
        f()
    }

    /// Runs up to `MAX_TASKS_PER_TICK` tasks; `true` if tasks are left.
    fn tick(&self) -> bool {
        // One clock for the tick's polls, as a scheduler caches its own:
        // when no worker keeps the shared clock fresh, reading it costs a
        // real clock read, as much as a short poll.
        let mut now = coarse_time::now();
        let depth = ENTERED
            .try_with(|entered| entered.sets.borrow().len())
            .unwrap_or(0);
        self.context
            .shared
            .depth
            .store(depth, std::sync::atomic::Ordering::Relaxed);
        for _ in 0..MAX_TASKS_PER_TICK {
            match self.context.next_task() {
                Some(task) => self.context.shared.run(task, now),
                None => return false,
            }
            // The watchdog saw that poll outlast a sampling period: the
            // tick's clock is behind by as long.
            if self.context.shared.metrics.take_clock_behind() {
                now = coarse_time::refresh();
            }
        }
        !self.context.queue.borrow().is_empty()
            || self.context.shared.remote_pending.load(Ordering::Acquire)
    }
}

impl SetContext {
    fn spawn<F>(&self, future: F, meta: TaskMeta) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        // SAFETY: `bind_local`'s contract holds: `Shared` runs a task only
        // from the queues of the set that owns it, which is `!Send` and so
        // never leaves this thread (an abort elsewhere only schedules the
        // task there).
        let (join, task) = unsafe {
            self.shared
                .owned
                .bind_local(future, self.shared.clone(), meta)
        };
        if let Some(task) = task {
            self.queue.borrow_mut().push_back(task);
            if self.driving.get() == 0 {
                // Step 1: nobody is running the set; have its driver come.
                self.shared.wake_driver();
            }
        }
        join
    }

    /// Step 1 of `local_set_list.rs`: joins the list of this thread's
    /// current runtime unless already in it.
    fn join_current_runtime_list(&self) {
        crate::runtime::context::with_current(|runtime| {
            let list = &runtime.config().local_sets;
            let mut listed_in = self.listed_in.borrow_mut();
            if !listed_in.iter().any(|listed| Arc::ptr_eq(listed, list)) {
                list.insert(self.shared.clone());
                listed_in.push(list.clone());
            }
        });
    }

    fn next_task(&self) -> Option<Notified> {
        let tick = self.tick.get().wrapping_add(1);
        self.tick.set(tick);
        let mut queue = self.queue.borrow_mut();
        if tick % REMOTE_INTERVAL == 0 || queue.is_empty() {
            self.shared.take_remote(&mut queue);
        }
        queue.pop_front()
    }
}

impl Shared {
    /// See `Shared::depth`.
    pub(crate) fn depth(&self) -> usize {
        self.depth.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Polls `task`, recording the poll (started at `now`) for the dump
    /// and the watchdog.
    fn run(&self, task: Notified, now: coarse_time::Stamp) {
        task.record_poll(now);
        self.metrics.poll_started(task.id().as_u64());
        task.run();
        self.metrics.poll_finished();
    }

    /// Moves the remote queue's tasks to the back of `queue`.
    fn take_remote(&self, queue: &mut VecDeque<Notified>) {
        if !self.remote_pending.load(Ordering::Acquire) {
            return;
        }
        let mut remote = self.remote.lock().unwrap();
        self.remote_pending.store(false, Ordering::Release);
        queue.append(&mut remote.tasks);
    }

    fn register_driver(&self, waker: &Waker) {
        let old = {
            let mut driver = self.driver.lock().unwrap();
            if driver.as_ref().is_some_and(|old| old.will_wake(waker)) {
                return;
            }
            driver.replace(waker.clone())
        };
        // Dropped after unlocking: a waker's destructor may re-enter.
        drop(old);
    }

    fn wake_driver(&self) {
        let waker = self.driver.lock().unwrap().clone();
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl Schedule for Arc<Shared> {
    /// Step 3 of the module docs.
    fn schedule(&self, task: Notified) {
        let mut task = Some(task);
        // Fails only while this thread's thread-locals are torn down; the
        // remote queue takes the task then.
        let mut wake_driver = false;
        let _ = ENTERED.try_with(|entered| {
            if let Some((_, context)) = entered.sets.borrow().last() {
                if Arc::ptr_eq(&context.shared, self) {
                    context.queue.borrow_mut().extend(task.take());
                    wake_driver = context.driving.get() == 0;
                }
            }
        });
        let Some(task) = task else {
            if wake_driver {
                self.wake_driver();
            }
            return;
        };
        let rejected = {
            let mut remote = self.remote.lock().unwrap();
            if remote.closed {
                Some(task)
            } else {
                remote.tasks.push_back(task);
                self.remote_pending.store(true, Ordering::Release);
                None
            }
        };
        match rejected {
            // The set is gone (step 5): its tasks were cancelled, and this
            // is only a reference, dropped outside the lock.
            Some(task) => drop(task),
            None => self.wake_driver(),
        }
    }

    fn owned_tasks(&self) -> Option<&OwnedTasks> {
        Some(&self.owned)
    }

    /// A set is made before it knows the runtimes it will be driven on,
    /// and its tasks choose at spawn: they record their waits once any
    /// runtime of the process tracks them (`Builder::track_waits`).
    fn tracks_waits(&self) -> bool {
        crate::task::waits::tracking_anywhere()
    }
}

pin_project! {
    /// The future of [`LocalSet::run_until`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let local = rt::task::LocalSet::new();
    /// let run: rt::task::RunUntil<'_, _> = local.run_until(async { 1 });
    /// assert_eq!(rt.block_on(run), 1);
    /// ```
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct RunUntil<'a, F> {
        local_set: &'a LocalSet,
        #[pin]
        future: F,
    }
}

impl<F: Future> Future for RunUntil<'_, F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let me = self.project();
        let local_set = *me.local_set;
        let future = me.future;
        local_set.with_entered(|| {
            local_set.context.shared.register_driver(cx.waker());
            // The caller's budget, as in tokio: `unconstrained(run_until(f))`
            // leaves `f` unconstrained. The set's tasks get their own each
            // poll (`harness.rs`).
            if let Poll::Ready(output) = future.poll(cx) {
                return Poll::Ready(output);
            }
            if local_set.tick() {
                // More of the set's tasks are ready: a yield, so the
                // runtime's other tasks run before the set's next turn.
                crate::task::waker::wake_as_yield(cx.waker());
            }
            Poll::Pending
        })
    }
}

/// Awaiting a set runs it until all its tasks have finished.
///
/// # Examples
///
/// ```
/// use std::cell::Cell;
/// use std::rc::Rc;
///
/// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
/// let local = rt::task::LocalSet::new();
/// let done = Rc::new(Cell::new(false));
/// let flag = done.clone();
/// local.spawn_local(async move {
///     rt::task::yield_now().await;
///     flag.set(true);
/// });
/// rt.block_on(local);
/// assert!(done.get());
/// ```
impl Future for LocalSet {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let local_set = &*self;
        local_set.with_entered(|| {
            local_set.context.shared.register_driver(cx.waker());
            if local_set.tick() {
                // As in `RunUntil`: a yield.
                crate::task::waker::wake_as_yield(cx.waker());
                Poll::Pending
            } else if local_set.context.shared.owned.len() == 0 {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
    }
}

impl Default for LocalSet {
    fn default() -> LocalSet {
        LocalSet::new()
    }
}

impl LocalSet {
    /// Step 5 of the module docs: cancels every task, dropping their
    /// futures here, and closes the set (a later spawn is cancelled at
    /// once). Dropping the set does it; a second call finds nothing to do.
    pub(crate) fn close(&self) {
        let listed_in = self.context.listed_in.borrow();
        if listed_in.iter().any(|list| list.reports_leaks()) {
            crate::runtime::watchdog::report_local_set_leaks(&self.context.shared);
        }
        drop(listed_in);
        let _entered = self.enter_unlisted();
        // The queue is dropped below: wakes need not call the driver.
        let _driving = DrivingGuard::new(&self.context);
        {
            let shared = &self.context.shared;
            let remote = {
                let mut remote = shared.remote.lock().unwrap();
                remote.closed = true;
                std::mem::take(&mut remote.tasks)
            };
            shared.owned.close_and_shutdown_all();
            drop(remote);
            // Destructors above may have woken tasks here; the references
            // are all that is left of them.
            let local = std::mem::take(&mut *self.context.queue.borrow_mut());
            drop(local);
        }
        // Step 4 of `local_set_list.rs`: its tasks are gone, so is the set.
        for list in self.context.listed_in.take() {
            list.remove(&self.context.shared);
        }
    }
}

impl Drop for LocalSet {
    fn drop(&mut self) {
        self.close();
    }
}

impl fmt::Debug for LocalSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalSet")
            .field("tasks", &self.context.shared.owned.len())
            .finish()
    }
}

impl fmt::Debug for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalSet::Shared")
            .field("owner", &self.owner)
            .finish_non_exhaustive()
    }
}

/// Counts a poll of the set in `SetContext::driving` while it lives.
struct DrivingGuard<'a> {
    context: &'a SetContext,
}

impl<'a> DrivingGuard<'a> {
    fn new(context: &'a SetContext) -> DrivingGuard<'a> {
        context.driving.set(context.driving.get() + 1);
        DrivingGuard { context }
    }
}

impl Drop for DrivingGuard<'_> {
    fn drop(&mut self) {
        self.context.driving.set(self.context.driving.get() - 1);
    }
}

/// Keeps a [`LocalSet`] current on this thread; see [`LocalSet::enter`].
///
/// # Examples
///
/// ```
/// let local = rt::task::LocalSet::new();
/// let _guard: rt::task::LocalEnterGuard<'_> = local.enter();
/// ```
#[must_use = "the set is only current while the guard is alive"]
pub struct LocalEnterGuard<'a> {
    current: CurrentSetGuard,
    _set: PhantomData<&'a LocalSet>,
}

impl LocalEnterGuard<'_> {
    /// The guard without its borrow of the set (the context it made
    /// current is reference-counted): for `LocalRuntime::enter`, whose
    /// guard, like `Runtime::enter`'s, lets the runtime be moved (shut
    /// down) while it lives.
    pub(crate) fn into_unscoped(self) -> CurrentSetGuard {
        self.current
    }
}

/// Hides the sets entered on this thread until dropped (a simulation's
/// run): a set the caller entered (`LocalSet::enter`) would otherwise
/// take the simulation's `spawn_local`s, which it never runs, so the run
/// would end in a deadlock that names no cause. Sets entered during the
/// run stack up from nothing and are gone by its end; the hidden ones
/// come back as they were.
#[cfg(feature = "sim")]
pub(crate) struct HiddenSets {
    sets: Vec<(u64, Rc<SetContext>)>,
    _thread_bound: PhantomData<Rc<()>>,
}

#[cfg(feature = "sim")]
impl HiddenSets {
    pub(crate) fn hide() -> HiddenSets {
        let sets = ENTERED
            .try_with(|entered| std::mem::take(&mut *entered.sets.borrow_mut()))
            .unwrap_or_default();
        HiddenSets {
            sets,
            _thread_bound: PhantomData,
        }
    }
}

#[cfg(feature = "sim")]
impl Drop for HiddenSets {
    fn drop(&mut self) {
        let hidden = std::mem::take(&mut self.sets);
        let left =
            ENTERED.try_with(|entered| std::mem::replace(&mut *entered.sets.borrow_mut(), hidden));
        // Not under the borrow: the last reference to a set's context.
        drop(left);
    }
}

/// Takes its set off the entered stack when dropped: the part of a
/// [`LocalEnterGuard`] that does the work.
pub(crate) struct CurrentSetGuard {
    /// Its entry on the stack; `None` if it pushed none.
    id: Option<u64>,
    /// `!Send`: it must drop on the thread whose stack it pushed on. But
    /// `Sync` (a shared reference reads nothing), so that
    /// `runtime::EnterGuard` is `Sync` like tokio's.
    _thread_bound: PhantomData<std::sync::MutexGuard<'static, ()>>,
}

impl Drop for CurrentSetGuard {
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        let in_order = ENTERED.try_with(|entered| {
            let mut sets = entered.sets.borrow_mut();
            let position = sets.iter().rposition(|&(entry, _)| entry == id);
            let in_order = position.is_none_or(|at| at + 1 == sets.len());
            // Out of order too: its set stops being current at once (newer
            // guards keep theirs), so none is left behind.
            let removed = position.map(|at| sets.remove(at));
            drop(sets);
            // Dropped after the borrow: it may be the last reference to a
            // set's context.
            drop(removed);
            in_order
        });
        if matches!(in_order, Ok(false)) && !std::thread::panicking() {
            panic!(
                "`LocalEnterGuard`s dropped out of order: the guards of `LocalSet::enter` and \
                 `LocalRuntime::enter` must be dropped newest first (the reverse of the order \
                 they were created in); the set of the dropped guard is no longer current"
            );
        }
    }
}

impl fmt::Debug for CurrentSetGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CurrentSetGuard").finish_non_exhaustive()
    }
}

impl fmt::Debug for LocalEnterGuard<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalEnterGuard").finish_non_exhaustive()
    }
}
