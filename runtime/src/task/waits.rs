//! What an idle task waits for, and who holds the lock it waits on: the
//! "waiting:" lines and the "deadlock:" paragraph of the task dump.
//!
//! Off unless the runtime was built with `Builder::track_waits(true)` (or
//! `RT_DEBUG=1`). Off, a task's poll pays nothing (its spawn picked the
//! vtable whose poll does not record, `harness::vtable`), a leaf future's
//! `Pending` one thread-local flag check (`record`), a lock's acquire one
//! relaxed load (`tracking_anywhere`) and its release one
//! `OnceLock::get` (a read guard's, a compare of its token too; read
//! guards are a word larger); nothing is allocated. Measured with callgrind
//! (`benches/ab-instructions`), the ct_* rows stay within 1%.
//!
//! Recording, on:
//! 1. the harness starts an empty `Recording` in this thread's context
//!    for the poll (`context::recording_waits`, which puts aside the one
//!    it replaces: a `LocalSet` driven inside a task polls its tasks inside
//!    that task's poll);
//! 2. each of rt's leaf futures that returns `Pending` (a lock, a channel,
//!    a timer, a socket's readiness) pushes what it waits for: a kind, the
//!    `#[track_caller]` location of its constructor where the user called
//!    one, and, for a lock, the lock's `LockOwner`; the first
//!    `MAX_WAITS` are kept (a `select!` over several waits);
//! 3. when the poll returns `Pending` having recorded some waits, the
//!    harness moves them into the task's owned-list entry, under the
//!    entry's shard lock (the box beside the header, allocated at the first
//!    such poll), stamped with the task's poll count; a poll that recorded
//!    nothing takes no lock: the dump shows the entry's waits only while
//!    the poll count is still the stamped one;
//! 4. the dump reads the entry under the same shard lock, and for a lock
//!    wait reads the lock's holder under the `LockOwner`'s own lock
//!    (shard lock, then owner lock: nothing takes them the other way).
//!
//! Holding a lock, on: a `Mutex` or an `RwLock` taken for writing records
//! in its semaphore's `HolderSlot` the task (or, outside any task, the
//! thread) and where it was taken; every release clears it (a read
//! release of an `RwLock` clears nothing a writer set, since readers and a
//! writer never hold it together). An `RwLock` taken for reading adds a
//! reader the same way, under a token its guard keeps and gives back when
//! it drops (a guard may drop in another task than the one that took it);
//! a downgrade turns the writer into a reader. A holder names the task
//! that took the lock; an owned guard (`lock_owned`, `read_owned`, ...)
//! may have moved to another task since, so it is shown but the deadlock
//! search does not follow it. The holders are read live
//! by the dump, so a waiter shows who holds the lock now, not who held it
//! when the waiter queued. The `LockOwner` is an `Arc` allocated at the
//! first acquire or wait with tracking on, so a waiter's record may
//! outlive the lock. With tracking on (anywhere in the process: a lock
//! does not know its holder's runtime), every acquire and release of a
//! `Mutex` or `RwLock` takes the `LockOwner`'s lock once, readers
//! included (a token's removal is a map's, `O(log n)` in the readers).

use crate::loom::sync::{Arc, Mutex};
use crate::runtime::context;
use crate::task::Id;
use std::fmt;
use std::panic::Location;
use std::sync::OnceLock;

/// At most this many waits are kept per poll: a `select!` over more
/// shows the first four.
pub(crate) const MAX_WAITS: usize = 4;

/// Set once a runtime that tracks waits is built in this process: from
/// then on locks record their holders (a lock does not know which runtime
/// its holder runs on). A hint read with a relaxed load; the holder
/// itself is published under the `LockOwner`'s lock.
static TRACKING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A runtime tracking waits is being built.
pub(crate) fn enable_tracking() {
    TRACKING.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether a runtime tracking waits was built in this process.
#[inline]
pub(crate) fn tracking_anywhere() -> bool {
    TRACKING.load(std::sync::atomic::Ordering::Relaxed)
}

/// One wait recorded in a poll (step 2).
#[derive(Clone)]
pub(crate) struct RecordedWait {
    kind: &'static str,
    location: Option<&'static Location<'static>>,
    lock: Option<Arc<LockOwner>>,
    /// The task a `JoinHandle` waits for.
    task: Option<Id>,
}

/// The waits of one poll (steps 1 to 3).
#[derive(Default)]
pub(crate) struct Recording {
    waits: Vec<RecordedWait>,
}

impl Recording {
    pub(crate) const fn new() -> Recording {
        Recording { waits: Vec::new() }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.waits.is_empty()
    }

    pub(crate) fn len(&self) -> usize {
        self.waits.len()
    }

    /// The tasks each wait is on (as `WaitSite::on_tasks`, the lock's
    /// holders read now), each tagged with its wait's index and whether
    /// the wait needs all of them to let go (`WaitOn`), in order; `None`
    /// if a wait is on no task. For
    /// the watchdog's deadlock search, which reads every waiting task: no
    /// `WaitSite` is made, no holder copied.
    pub(crate) fn tasks_waited_on(&self) -> Option<Vec<WaitOn>> {
        let mut on = Vec::with_capacity(self.waits.len());
        for (index, wait) in self.waits.iter().enumerate() {
            let before = on.len();
            match &wait.lock {
                Some(lock) => {
                    let holders = lock.holders();
                    let any = blocked_by_any(wait.kind, holders.writer.is_some());
                    if !any && !holders.readers_are_tasks_followed() {
                        return None;
                    }
                    on.extend(holders.tasks().map(|task| WaitOn {
                        wait: index,
                        any,
                        task,
                    }));
                }
                None => on.extend(wait.task.map(|task| WaitOn {
                    wait: index,
                    any: true,
                    task,
                })),
            }
            if on.len() == before {
                return None;
            }
        }
        Some(on)
    }

    fn push(&mut self, wait: RecordedWait) {
        if self.waits.len() < MAX_WAITS {
            self.waits.push(wait);
        }
    }

    /// The waits as the dump shows them, each lock's holder read now.
    pub(crate) fn snapshot(&self) -> Vec<WaitSite> {
        self.waits
            .iter()
            .map(|wait| WaitSite {
                kind: wait.kind,
                location: wait.location,
                held_by: wait.lock.as_ref().and_then(|lock| lock.holder()),
                read_by: wait
                    .lock
                    .as_ref()
                    .map(|lock| lock.readers())
                    .unwrap_or_default(),
                task: wait.task,
            })
            .collect()
    }
}

/// What a waiting future records (step 2): made by rt's function `kind`,
/// called at `location`; `lock`: on a `Mutex`'s or an `RwLock`'s
/// semaphore, whose holder the dump shows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Site {
    pub(crate) kind: &'static str,
    pub(crate) location: Option<&'static Location<'static>>,
    pub(crate) lock: bool,
}

impl Site {
    /// A wait made by the user's call of `kind` (a `#[track_caller]`
    /// constructor).
    #[track_caller]
    #[inline]
    pub(crate) fn here(kind: &'static str) -> Site {
        Site {
            kind,
            location: Some(Location::caller()),
            lock: false,
        }
    }

    /// A wait for a lock, called at `location`.
    pub(crate) fn lock(kind: &'static str, location: &'static Location<'static>) -> Site {
        Site {
            kind,
            location: Some(location),
            lock: true,
        }
    }

    /// Records this wait (step 2), with `holder` as the lock's holder if
    /// it is a lock.
    #[inline]
    pub(crate) fn record(self, holder: &HolderSlot) {
        if self.lock {
            if let Some(location) = self.location {
                record_lock(self.kind, location, holder);
                return;
            }
        }
        record(self.kind, self.location);
    }

    /// `poll`, recording this wait if it is `Pending`.
    #[inline]
    pub(crate) fn pending<T>(self, poll: std::task::Poll<T>) -> std::task::Poll<T> {
        if poll.is_pending() {
            self.record_plain();
        }
        poll
    }

    /// Polls `inner` (a future of rt's that records its own wait, such as
    /// a listener's read readiness), recording this wait in place of
    /// whatever `inner` recorded if it is `Pending`.
    #[inline]
    pub(crate) fn instead_of<T>(
        self,
        inner: impl FnOnce() -> std::task::Poll<T>,
    ) -> std::task::Poll<T> {
        let mark = context::wait_mark();
        let polled = inner();
        if polled.is_pending() {
            if let Some(mark) = mark {
                context::with_wait_recording(|recording| {
                    recording.waits.truncate(mark);
                });
                self.record_plain();
            }
        }
        polled
    }

    /// Records this wait (step 2), not a lock's.
    #[inline]
    pub(crate) fn record_plain(self) {
        record(self.kind, self.location);
    }
}

/// Step 2: the task polled on this thread (if its runtime tracks waits)
/// waits for `kind`, called at `location`.
#[inline]
pub(crate) fn record(kind: &'static str, location: Option<&'static Location<'static>>) {
    context::with_wait_recording(|recording| {
        recording.push(RecordedWait {
            kind,
            location,
            lock: None,
            task: None,
        })
    });
}

/// Step 2 for a socket's or a pipe's I/O through a poll method (no
/// caller's location): `TcpStream read`, `UnixListener I/O`.
#[inline]
pub(crate) fn record_io<E>(direction: Option<rt_reactor::Direction>) {
    if context::recording_waits_here() {
        record(io_kind::<E>(direction), None);
    }
}

/// `TcpStream read` for `E` = `mio::net::TcpStream` and a read: the last
/// segment of the type's name and the direction, made once per type and
/// direction and kept for the process (a few types of sockets).
#[cold]
fn io_kind<E>(direction: Option<rt_reactor::Direction>) -> &'static str {
    use std::collections::HashMap;
    type Kinds = std::sync::Mutex<HashMap<(&'static str, u8), &'static str>>;
    static KINDS: OnceLock<Kinds> = OnceLock::new();
    let name = std::any::type_name::<E>();
    let (code, what) = match direction {
        Some(rt_reactor::Direction::Read) => (0, "read"),
        Some(rt_reactor::Direction::Write) => (1, "write"),
        None => (2, "I/O"),
    };
    let mut kinds = KINDS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    kinds.entry((name, code)).or_insert_with(|| {
        let short = name.split('<').next().unwrap_or(name);
        let short = short.rsplit("::").next().unwrap_or(short);
        Box::leak(format!("{short} {what}").into_boxed_str())
    })
}

/// Step 2 for a `JoinHandle`: the task polled here waits for task `id`.
#[inline]
pub(crate) fn record_join(id: Id) {
    context::with_wait_recording(|recording| {
        recording.push(RecordedWait {
            kind: "JoinHandle",
            location: None,
            lock: None,
            task: Some(id),
        })
    });
}

/// Step 2 for a lock: as `record`, with the lock's holder slot.
#[inline]
pub(crate) fn record_lock(
    kind: &'static str,
    location: &'static Location<'static>,
    slot: &HolderSlot,
) {
    context::with_wait_recording(|recording| {
        recording.push(RecordedWait {
            kind,
            location: Some(location),
            lock: Some(slot.owner()),
            task: None,
        })
    });
}

/// Where a lock keeps its holder (in its semaphore): empty until tracking
/// is on somewhere.
#[derive(Default)]
pub(crate) struct HolderSlot {
    owner: OnceLock<Arc<LockOwner>>,
}

impl HolderSlot {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> HolderSlot {
        HolderSlot {
            owner: OnceLock::new(),
        }
    }

    #[cfg(loom)]
    pub(crate) fn new() -> HolderSlot {
        HolderSlot {
            owner: OnceLock::new(),
        }
    }

    fn owner(&self) -> Arc<LockOwner> {
        self.owner
            .get_or_init(|| {
                Arc::new(LockOwner {
                    holders: Mutex::new(Holders::default()),
                })
            })
            .clone()
    }

    /// The lock was just taken exclusively at `location` by this thread's
    /// task (or this thread, outside any task); `owned`: for an owned
    /// guard, which may move to another task.
    #[inline]
    pub(crate) fn acquired(&self, location: &'static Location<'static>, owned: bool) {
        if tracking_anywhere() {
            self.set_holder(location, owned);
        }
    }

    #[cold]
    fn set_holder(&self, location: &'static Location<'static>, owned: bool) {
        let holder = LockHolder::here(location, owned);
        let owner = self.owner();
        let old = owner.holders().writer.replace(holder);
        drop(old);
    }

    /// The lock was just taken for reading at `location` by this thread's
    /// task (or this thread), `owned` as for `acquired`: the token gives
    /// the reader back to `read_released` (`ReadToken::NONE` when nothing
    /// tracks).
    #[inline]
    pub(crate) fn read_acquired(
        &self,
        location: &'static Location<'static>,
        owned: bool,
    ) -> ReadToken {
        if tracking_anywhere() {
            self.add_reader(LockHolder::here(location, owned))
        } else {
            ReadToken::NONE
        }
    }

    #[cold]
    fn add_reader(&self, reader: LockHolder) -> ReadToken {
        let owner = self.owner();
        let mut holders = owner.holders();
        holders.last_token += 1;
        let token = holders.last_token;
        holders.readers.insert(token, reader);
        ReadToken(token)
    }

    /// The writer became a reader (a downgrade): it stays listed, as a
    /// reader, with where it took the lock.
    pub(crate) fn downgraded(&self) -> ReadToken {
        let Some(owner) = self.owner.get() else {
            return ReadToken::NONE;
        };
        let writer = owner.holders().writer.take();
        match writer {
            Some(writer) => self.add_reader(writer),
            None => ReadToken::NONE,
        }
    }

    /// The read guard that got `token` is dropping.
    #[inline]
    pub(crate) fn read_released(&self, token: ReadToken) {
        if token != ReadToken::NONE {
            self.remove_reader(token);
        }
    }

    #[cold]
    fn remove_reader(&self, token: ReadToken) {
        if let Some(owner) = self.owner.get() {
            let reader = owner.holders().readers.remove(&token.0);
            drop(reader);
        }
    }

    /// Who holds the lock now, as the dump reads it.
    #[cfg(all(test, loom))]
    pub(crate) fn holder(&self) -> Option<LockHolder> {
        self.owner.get()?.holder()
    }

    /// The lock is being released (some or all of its permits).
    #[inline]
    pub(crate) fn released(&self) {
        if let Some(owner) = self.owner.get() {
            let old = owner.holders().writer.take();
            drop(old);
        }
    }
}

impl fmt::Debug for HolderSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HolderSlot").finish_non_exhaustive()
    }
}

/// A lock's current holders, shared with the waits that name the lock.
pub(crate) struct LockOwner {
    holders: Mutex<Holders>,
}

/// The exclusive holder, or the readers of an `RwLock`.
#[derive(Default)]
struct Holders {
    writer: Option<LockHolder>,
    /// By token: in the order they took the lock.
    readers: std::collections::BTreeMap<u64, LockHolder>,
    /// The token given to the last reader.
    last_token: u64,
}

impl Holders {
    /// The tasks holding the lock that the deadlock search follows: the
    /// writer's, or the readers', but for owned guards (which may have
    /// moved to another task since).
    fn tasks(&self) -> impl Iterator<Item = Id> + '_ {
        let writer = self.writer.iter().chain(self.readers.values());
        writer.filter_map(LockHolder::followed_task)
    }

    /// Whether every reader is a task the search follows (a wait that
    /// needs all of them can then be judged).
    fn readers_are_tasks_followed(&self) -> bool {
        self.readers
            .values()
            .all(|reader| reader.followed_task().is_some())
    }
}

/// One task a recorded wait is on (`Recording::tasks_waited_on`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct WaitOn {
    /// The wait's index among the task's waits.
    pub(crate) wait: usize,
    /// Whether this task alone keeps the wait blocked (a writer, or any
    /// reader for a write; a `JoinHandle`'s task), or only all of the
    /// wait's tasks together do (a read waiting for a free reader slot
    /// might get any one's).
    pub(crate) any: bool,
    pub(crate) task: Id,
}

/// Whether a wait of `kind` on a lock is blocked while any one of its
/// holders holds it. A write needs every reader gone; so does a read while
/// a writer holds the lock. A read held back by readers alone may be
/// waiting for a free slot (`with_max_readers`), which any one reader's
/// release gives, or behind a queued writer, which needs them all: rt
/// cannot tell which, so it takes the one that reports less, all.
fn blocked_by_any(kind: &str, writer_holds: bool) -> bool {
    writer_holds || !kind.starts_with("RwLock::read")
}

/// How a read guard finds its reader among a lock's holders when it
/// drops; `NONE` when nothing tracked the acquire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ReadToken(u64);

impl ReadToken {
    pub(crate) const NONE: ReadToken = ReadToken(0);
}

/// At most this many readers of a lock are copied into a dump's wait.
pub(crate) const MAX_READERS_SHOWN: usize = 8;

impl LockOwner {
    /// The holders, locked. Nothing under this lock can panic but an
    /// allocation; a poisoned lock is used anyway (a read guard's drop
    /// takes it, and must not panic while unwinding).
    fn holders(&self) -> crate::loom::sync::MutexGuard<'_, Holders> {
        self.holders
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn holder(&self) -> Option<LockHolder> {
        self.holders().writer.clone()
    }

    /// The first `MAX_READERS_SHOWN` readers, oldest first, and how many
    /// there are.
    fn readers(&self) -> (Vec<LockHolder>, usize) {
        let holders = self.holders();
        let shown = holders.readers.values().take(MAX_READERS_SHOWN).cloned();
        (shown.collect(), holders.readers.len())
    }
}

/// What an idle task waited for when a [`TaskDump`](crate::runtime::TaskDump)
/// was taken: one of the waits of its last poll (a `select!` or `join!`
/// may wait on several; the first four are kept).
///
/// Recorded only by a runtime built with
/// [`Builder::track_waits`](crate::runtime::Builder::track_waits) (or with
/// `RT_DEBUG=1`), and only for rt's own futures: a lock, a channel, a
/// timer, a `JoinHandle`, a socket's readiness. A task waiting on
/// something else (another crate's channel) lists no wait.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Builder::new_current_thread()
///     .track_waits(true)
///     .build()
///     .unwrap();
/// let mutex = std::sync::Arc::new(rt::sync::Mutex::new(()));
/// let guard = mutex.try_lock().unwrap(); // held by `block_on`'s caller
/// let waiter = {
///     let mutex = mutex.clone();
///     rt.spawn(async move { drop(mutex.lock().await) })
/// };
/// let line = line!() - 2;
/// rt.block_on(rt::task::yield_now()); // the task waits for the lock
/// let dump = rt.handle().dump();
/// let wait = &dump.tasks()[0].waits()[0];
/// assert_eq!(wait.kind(), "Mutex::lock");
/// assert_eq!(wait.location().unwrap().line(), line);
/// assert_eq!(wait.held_by().unwrap().task(), None); // not a task
/// println!("{dump}"); // waiting: Mutex::lock at src/main.rs:9, held by ...
/// drop(guard);
/// rt.block_on(waiter).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct WaitSite {
    kind: &'static str,
    location: Option<&'static Location<'static>>,
    held_by: Option<LockHolder>,
    /// An `RwLock`'s first readers, and how many it has.
    read_by: (Vec<LockHolder>, usize),
    task: Option<Id>,
}

impl WaitSite {
    /// What the task waits on, as rt's function that made the future:
    /// `"Mutex::lock"`, `"mpsc::Receiver::recv"`, `"sleep"`,
    /// `"TcpStream read"` (a read through `AsyncRead`, which has no
    /// caller's location).
    ///
    /// # Examples
    ///
    /// See [`WaitSite`].
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// Where the waiting future was made (the user's call of
    /// [`Mutex::lock`](crate::sync::Mutex::lock), of
    /// [`sleep`](crate::time::sleep), ...); `None` for a wait reached
    /// through a trait's poll method.
    ///
    /// # Examples
    ///
    /// See [`WaitSite`].
    pub fn location(&self) -> Option<&'static Location<'static>> {
        self.location
    }

    /// For a wait on a [`Mutex`](crate::sync::Mutex) or an
    /// [`RwLock`](crate::sync::RwLock): who held it for writing when the
    /// dump was taken (`None` if nobody did, or only readers: see
    /// [`read_by`](WaitSite::read_by)).
    ///
    /// # Examples
    ///
    /// See [`WaitSite`].
    pub fn held_by(&self) -> Option<&LockHolder> {
        self.held_by.as_ref()
    }

    /// For a wait on an [`RwLock`](crate::sync::RwLock) held for reading:
    /// the tasks (or code outside any task) that held it when the dump was
    /// taken, oldest first; the first eight of
    /// [`readers`](WaitSite::readers). Empty for any other wait.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread()
    ///     .track_waits(true)
    ///     .build()
    ///     .unwrap();
    /// let lock = std::sync::Arc::new(rt::sync::RwLock::new(0));
    /// let reading = lock.try_read().unwrap(); // read by `block_on`'s caller
    /// let writer = {
    ///     let lock = lock.clone();
    ///     rt.spawn(async move { *lock.write().await += 1 })
    /// };
    /// rt.block_on(rt::task::yield_now()); // the writer waits for the reader
    /// let dump = rt.handle().dump();
    /// let wait = &dump.tasks()[0].waits()[0];
    /// assert_eq!(wait.kind(), "RwLock::write");
    /// assert!(wait.held_by().is_none());
    /// assert_eq!(wait.readers(), 1);
    /// assert_eq!(wait.read_by()[0].task(), None); // not a task
    /// drop(reading);
    /// rt.block_on(writer).unwrap();
    /// ```
    pub fn read_by(&self) -> &[LockHolder] {
        &self.read_by.0
    }

    /// For a wait on an [`RwLock`](crate::sync::RwLock): how many held it
    /// for reading when the dump was taken (see
    /// [`read_by`](WaitSite::read_by)).
    ///
    /// # Examples
    ///
    /// See [`read_by`](WaitSite::read_by).
    pub fn readers(&self) -> usize {
        self.read_by.1
    }

    /// For a wait on a [`JoinHandle`](crate::task::JoinHandle): the task
    /// it waits to finish.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread()
    ///     .track_waits(true)
    ///     .build()
    ///     .unwrap();
    /// let inner = rt.spawn(std::future::pending::<()>());
    /// let inner_id = inner.id();
    /// let outer = rt.spawn(async move { inner.await });
    /// rt.block_on(rt::task::yield_now());
    /// let dump = rt.handle().dump();
    /// let waiting = dump.iter().find(|t| t.id() == outer.id()).unwrap();
    /// assert_eq!(waiting.waits()[0].kind(), "JoinHandle");
    /// assert_eq!(waiting.waits()[0].task(), Some(inner_id));
    /// outer.abort();
    /// ```
    pub fn task(&self) -> Option<Id> {
        self.task
    }
}

impl WaitSite {
    /// The tasks this wait is on, as the deadlock search follows them:
    /// the holder of the lock it waits for (its writer, or its readers
    /// shown; not an owned guard, which may have moved), or the task its
    /// `JoinHandle` waits to finish.
    pub(crate) fn on_tasks(&self) -> impl Iterator<Item = Id> + '_ {
        let holders = self.held_by.iter().chain(&self.read_by.0);
        holders
            .filter_map(LockHolder::followed_task)
            .chain(self.task)
    }

    /// Whether this wait cannot end while the tasks `on_cycle` says are
    /// stuck stay so: one of its tasks is, if any one alone blocks it
    /// (`blocked_by_any`); else every reader is, each one followed.
    pub(crate) fn on_cycle(&self, on_cycle: impl Fn(&Id) -> bool) -> bool {
        if blocked_by_any(self.kind, self.held_by.is_some()) {
            return self.on_tasks().any(|on| on_cycle(&on));
        }
        let (shown, count) = &self.read_by;
        *count > 0
            && *count == shown.len()
            && shown
                .iter()
                .all(|reader| reader.followed_task().is_some_and(|on| on_cycle(&on)))
    }

    /// As `Display`, naming the holders by `name_of` (which the task dump
    /// knows, the wait does not).
    pub(crate) fn fmt_naming<'a>(
        &'a self,
        f: &mut fmt::Formatter<'_>,
        name_of: impl Fn(&'a LockHolder) -> Option<&'a str>,
    ) -> fmt::Result {
        f.write_str(self.kind)?;
        if let Some(task) = self.task {
            write!(f, " of task {task}")?;
        }
        if let Some(location) = self.location {
            write!(f, " at {location}")?;
        }
        if let Some(holder) = &self.held_by {
            f.write_str(", held by ")?;
            holder.fmt_naming(f, name_of(holder))?;
        }
        let (readers, count) = &self.read_by;
        for (at, reader) in readers.iter().enumerate() {
            f.write_str(if at == 0 { ", read by " } else { ", " })?;
            reader.fmt_naming(f, name_of(reader))?;
        }
        if *count > readers.len() {
            write!(f, " and {} more reader(s)", count - readers.len())?;
        }
        Ok(())
    }
}

/// `Mutex::lock at src/db.rs:41, held by task 7 (acquired at src/x.rs:10)`.
impl fmt::Display for WaitSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_naming(f, |_| None)
    }
}

/// Who holds a lock a task waits on (see [`WaitSite::held_by`]).
///
/// # Examples
///
/// See [`WaitSite`].
#[derive(Debug, Clone)]
pub struct LockHolder {
    task: Option<Id>,
    thread: Option<Box<str>>,
    acquired_at: &'static Location<'static>,
    owned: bool,
}

impl LockHolder {
    /// The task holding the lock; `None` when code outside any task took
    /// it (a `block_on` body, a blocking thread, another thread).
    ///
    /// # Examples
    ///
    /// See [`WaitSite`].
    pub fn task(&self) -> Option<Id> {
        self.task
    }

    /// Outside any task: the name of the thread that took the lock, if it
    /// has one.
    ///
    /// # Examples
    ///
    /// See [`WaitSite`].
    pub fn thread_name(&self) -> Option<&str> {
        self.thread.as_deref()
    }

    /// Where the lock was taken.
    ///
    /// # Examples
    ///
    /// See [`WaitSite`].
    pub fn acquired_at(&self) -> &'static Location<'static> {
        self.acquired_at
    }

    /// Whether the lock was taken as an owned guard (`lock_owned`,
    /// `read_owned`, `write_owned` and their `try_` forms), which may
    /// have moved to another task since: [`task`](LockHolder::task) is
    /// the task that took it, not necessarily the one holding it now, so
    /// the deadlock search does not follow it.
    ///
    /// # Examples
    ///
    /// See [`WaitSite`].
    pub fn is_owned_guard(&self) -> bool {
        self.owned
    }

    /// The task the deadlock search follows to: the holding task, unless
    /// the guard is owned (it may have moved).
    pub(crate) fn followed_task(&self) -> Option<Id> {
        if self.owned { None } else { self.task }
    }
}

/// `task 7 (acquired at src/x.rs:10)`, or `code outside any task on thread
/// 'main' (acquired at ...)`.
impl fmt::Display for LockHolder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_naming(f, None)
    }
}

impl LockHolder {
    /// This thread's task (or this thread, outside any task), having just
    /// taken a lock at `location`.
    fn here(location: &'static Location<'static>, owned: bool) -> LockHolder {
        match context::current_task_id() {
            Some(task) => LockHolder {
                task: Some(task),
                thread: None,
                acquired_at: location,
                owned,
            },
            None => LockHolder {
                task: None,
                thread: std::thread::current().name().map(Box::from),
                acquired_at: location,
                owned,
            },
        }
    }

    /// As `Display`, with the holding task's name.
    pub(crate) fn fmt_naming(&self, f: &mut fmt::Formatter<'_>, name: Option<&str>) -> fmt::Result {
        match (self.task, &self.thread) {
            (Some(task), _) => {
                write!(f, "task {task}")?;
                if let Some(name) = name {
                    write!(f, " '{name}'")?;
                }
            }
            (None, Some(thread)) => write!(f, "code outside any task on thread '{thread}'")?,
            (None, None) => f.write_str("code outside any task on an unnamed thread")?,
        }
        let owned = if self.owned { "an owned guard " } else { "" };
        write!(f, " ({owned}acquired at {})", self.acquired_at)
    }
}

#[cfg(all(test, loom))]
mod loom_holder {
    use crate::loom::sync::Arc;
    use crate::sync::Mutex;
    use loom::thread;

    /// A lock handed from one holder to the next: the release clears the
    /// holder before it returns the permit, and the next holder records
    /// itself after it gets the permit, so the first's clear never wipes
    /// the second's record, and a released lock names no holder.
    #[test]
    fn loom_holder_handoff_keeps_the_new_holder() {
        loom::model(|| {
            super::enable_tracking();
            let mutex = Arc::new(Mutex::new(0));
            let other = {
                let mutex = mutex.clone();
                thread::spawn(move || {
                    let mut guard = loom::future::block_on(mutex.lock());
                    *guard += 1;
                })
            };
            let mut guard = loom::future::block_on(mutex.lock());
            let line = line!() - 1;
            let holder = Mutex::holder_slot(&mutex).holder();
            assert_eq!(holder.map(|h| h.acquired_at().line()), Some(line));
            *guard += 1;
            drop(guard);
            other.join().unwrap();
            assert!(Mutex::holder_slot(&mutex).holder().is_none());
            assert_eq!(*mutex.try_lock().unwrap(), 2);
        });
    }
}
