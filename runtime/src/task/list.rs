//! The owned-task list: every live task of a scheduler, so shutdown can
//! cancel each one and metrics can count them.
//!
//! The list is sharded by task id; each shard is a mutex-protected slab of
//! task pointers and the task remembers its slab key. Spawning and
//! completing touch one shard's lock, and spawns from different workers
//! rarely meet on the same shard.
//!
//! Next to each pointer the slab keeps what only the diagnostics read: the
//! task's name, spawn location and spawn time. They read it under the
//! shard's lock, which keeps the task alive. Kept in the task allocation
//! instead, those 32 bytes push many tasks past glibc's 128-byte fast
//! bins, whose frees take no lock: measured, a task freed on another
//! worker then waits on the allocator's arena lock, 10% slower ping-pong.
//!
//! A task leaves the list exactly once, by whoever takes its entry out of
//! the slab under the shard's lock; that caller drops the list's reference:
//! 1. a task whose `JoinHandle` is gone leaves when it completes;
//! 2. a task that completes while its `JoinHandle` still wants the output
//!    stays until the handle reads the output or is dropped
//!    (`remove_complete`): the dump shows it complete meanwhile;
//! 3. shutdown drains whatever is left.
//!
//! `len` counts unfinished tasks only: the entries less the complete ones
//! (`held` less `collected`). Completing takes no lock for a task that
//! stays (`hold_complete` only bumps `held`, an atomic on the lock's cache
//! line): with its removal by the handle, that costs the completion path
//! no more lock operations than removing the task at completion did. A
//! completion while the list is closed may bump `held` for a task not in
//! it (spawned after the close, or drained already): `len` clamps at the
//! entries left, and shutdown drains them all, so that leaves `len` short
//! by at most those tasks until the drain.
//!
//! The entry is found by its key and checked to point at the task, so a
//! removal that comes after another one (a handle dropped after shutdown
//! drained its entry) finds nothing and does nothing.
//!
//! Shutdown:
//! 1. every shard is closed under its lock, so no task is added afterwards
//!    (a spawn that finds its shard closed cancels the task at once); the
//!    multi-thread scheduler does this step alone (`close`) as soon as
//!    shutdown begins, while its workers still finish their polls;
//! 2. each shard's tasks are drained out, taking over the list's reference;
//! 3. each drained task is shut down (cancelled now, as no worker runs any
//!    more; a complete one is left as it is, its output in the task for its
//!    `JoinHandle`) and the list's reference is dropped.

use crate::loom::sync::Mutex;
use crate::loom::sync::atomic::{AtomicUsize, Ordering};
use crate::runtime::coarse_time::{self, Stamp};
use crate::runtime::shutdown_sweep::ShutdownSweep;
use crate::task::raw::{Header, RawTask};
use crate::task::waits::Recording;
use crate::task::{JoinHandle, Notified, Schedule, TaskMeta, new_local_task, new_task};
use crossbeam_utils::CachePadded;
use slab::Slab;
use std::future::Future;
use std::panic::Location;
use std::ptr::NonNull;

pub(crate) struct OwnedTasks {
    shards: Box<[CachePadded<ShardSlot>]>,
    mask: usize,
}

struct ShardSlot {
    locked: Mutex<Shard>,
    /// Completions ever kept in the list for their `JoinHandle`
    /// (`hold_complete`), counted without the lock (wrapping).
    held: AtomicUsize,
}

struct Shard {
    tasks: Slab<ListedTask>,
    closed: bool,
    /// Kept tasks removed since (`remove_complete`; wrapping): `held`
    /// less this is how many entries are complete.
    collected: usize,
    /// Tasks ever added to this shard (the spawned-tasks metric).
    spawned: u64,
}

/// A task in the list, with what the diagnostics show of it.
pub(crate) struct ListedTask {
    task: RawTask,
    /// The name given with `task::Builder::name` and the waits of the
    /// last poll (`waits.rs`), behind a thin pointer: the entry stays 32
    /// bytes (spawning touches fewer cache lines of the slab), at one more
    /// allocation per named spawn, or per task whose runtime tracks waits.
    extra: Option<Box<Extra>>,
    /// Where the task was spawned (`#[track_caller]`).
    pub(crate) location: &'static Location<'static>,
    pub(crate) spawned_at: Stamp,
}

/// What only some tasks have (see `ListedTask::extra`).
#[derive(Default)]
struct Extra {
    name: Option<Box<str>>,
    waits: Recording,
    /// The task's poll count when `waits` were recorded: they are its
    /// last poll's only while the count has not moved (a poll that
    /// records nothing does not take the lock to clear them).
    waits_at_poll: u64,
}

impl ListedTask {
    /// The task's header (alive while the shard's lock is held).
    pub(crate) fn header(&self) -> &Header {
        self.task.header()
    }

    pub(crate) fn name(&self) -> Option<&str> {
        self.extra.as_ref()?.name.as_deref()
    }

    /// The waits of the task's last poll, if its runtime tracks them and
    /// that poll recorded some.
    pub(crate) fn waits(&self) -> Option<&Recording> {
        let extra = self.extra.as_ref()?;
        (extra.waits_at_poll == self.header().stats.polls()).then_some(&extra.waits)
    }

    /// Whether the box beside the entry was allocated (a name, or waits
    /// tracked).
    pub(crate) fn has_extra(&self) -> bool {
        self.extra.is_some()
    }
}

impl OwnedTasks {
    pub(crate) fn new(concurrency: usize) -> OwnedTasks {
        let count = crate::loom::loom_or((concurrency * 4).next_power_of_two(), 2);
        let shards = (0..count)
            .map(|_| {
                CachePadded::new(ShardSlot {
                    locked: Mutex::new(Shard {
                        tasks: Slab::new(),
                        closed: false,
                        collected: 0,
                        spawned: 0,
                    }),
                    held: AtomicUsize::new(0),
                })
            })
            .collect();
        OwnedTasks {
            shards,
            mask: count - 1,
        }
    }

    fn shard(&self, header: &Header) -> &ShardSlot {
        &self.shards[header.id.as_u64() as usize & self.mask]
    }

    /// Allocates a task and adds it to the list. Returns its `JoinHandle`
    /// and the `Notified` that first schedules it, or `None` if the list is
    /// closed, in which case the task was cancelled and its `JoinHandle`
    /// yields `Cancelled`.
    pub(crate) fn bind<F, S>(
        &self,
        future: F,
        scheduler: S,
        meta: TaskMeta,
    ) -> (JoinHandle<F::Output>, Option<Notified>)
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
        S: Schedule,
    {
        let (task, join) = new_task(future, scheduler, &meta);
        (join, self.bind_raw(task, meta, None))
    }

    /// As `bind`, for a task spawned at `spawned_at` on a clock of the
    /// scheduler's own (a simulation's: its task dump must not read the
    /// real clock, which a replay does not repeat).
    #[cfg(feature = "sim")]
    pub(crate) fn bind_at<F, S>(
        &self,
        future: F,
        scheduler: S,
        meta: TaskMeta,
        spawned_at: Stamp,
    ) -> (JoinHandle<F::Output>, Option<Notified>)
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
        S: Schedule,
    {
        let (task, join) = new_task(future, scheduler, &meta);
        (join, self.bind_raw(task, meta, Some(spawned_at)))
    }

    /// As `bind`, for a task whose future and output need not be `Send`
    /// (a `LocalSet` task).
    ///
    /// # Safety
    ///
    /// As `task::new_local_task`: the scheduler polls the task and drops
    /// its future only on the calling thread.
    pub(crate) unsafe fn bind_local<F, S>(
        &self,
        future: F,
        scheduler: S,
        meta: TaskMeta,
    ) -> (JoinHandle<F::Output>, Option<Notified>)
    where
        F: Future + 'static,
        F::Output: 'static,
        S: Schedule,
    {
        // SAFETY: forwarded from the caller.
        let (task, join) = unsafe { new_local_task(future, scheduler, &meta) };
        (join, self.bind_raw(task, meta, None))
    }

    // `#[inline]`: the slab's insert (`Slab::insert_at`, generic and not
    // inline in slab) was inlined into this function or not depending on
    // how rustc split the crate into codegen units, which unrelated
    // changes elsewhere move: +2.5% instructions per spawn when it was not
    // (callgrind, `benches/examples/instructions.rs`, ct_chained_spawn).
    // Inline, this function is compiled into its generic callers (`bind`,
    // `bind_local`) and the insert is inlined with it at 4, 16, 32 and 64
    // codegen units alike; without, only at 4. `spawned_at` is `None` for
    // the real clock, read here: read by the callers and passed in, it
    // moved rustc's inlining around the spawn path (the scheduler's spawn
    // inlined, `bind` not) for ~12 more instructions per spawn, +1% on
    // ct_spawn_many_local.
    #[inline]
    fn bind_raw(
        &self,
        task: RawTask,
        meta: TaskMeta,
        spawned_at: Option<Stamp>,
    ) -> Option<Notified> {
        let listed = ListedTask {
            task,
            extra: meta.name.map(|name| {
                Box::new(Extra {
                    name: Some(name),
                    waits: Recording::new(),
                    waits_at_poll: 0,
                })
            }),
            location: meta.location,
            spawned_at: spawned_at.unwrap_or_else(coarse_time::now),
        };
        {
            let mut shard = self.shard(task.header()).locked.lock().unwrap();
            if !shard.closed {
                let key = shard.tasks.insert(listed);
                shard.spawned += 1;
                // SAFETY: the key is only touched under this shard's lock.
                task.header()
                    .owned_key
                    .with_mut(|slot| unsafe { *slot = key });
                // SAFETY: the initial state counts a reference for this Notified.
                return Some(unsafe { Notified::from_raw(task) });
            }
        }
        task.shutdown();
        // Neither the list nor the first Notified will hold the task; the
        // JoinHandle's reference keeps it alive.
        let last = task.header().state.ref_dec_many(2);
        debug_assert!(!last, "the JoinHandle still holds a reference");
        None
    }

    /// Removes a task that completes with no `JoinHandle` waiting. `true`
    /// if it was in the list; the caller then drops the list's reference.
    #[inline]
    pub(crate) fn remove(&self, header: &Header) -> bool {
        self.take_out(header, false)
    }

    /// Keeps a task that is about to complete with its `JoinHandle`
    /// waiting, counted as complete from now on (so called before the task
    /// is marked COMPLETE, which publishes the count to whoever sees it).
    /// It then leaves through `remove_complete`. Takes no lock.
    #[inline]
    pub(crate) fn hold_complete(&self, header: &Header) {
        self.shard(header).held.fetch_add(1, Ordering::Relaxed);
    }

    /// Removes a task kept by `hold_complete`, once its `JoinHandle` has
    /// read the output or is dropped. `true` if it was still in the list
    /// (shutdown may have drained it); the caller then drops the list's
    /// reference.
    #[inline]
    pub(crate) fn remove_complete(&self, header: &Header) -> bool {
        self.take_out(header, true)
    }

    /// Takes the task's entry out, if it is still there; `held`: it was
    /// counted by `hold_complete`.
    #[inline(always)]
    fn take_out(&self, header: &Header, held: bool) -> bool {
        let mut shard = self.shard(header).locked.lock().unwrap();
        let Some(key) = shard.key_of(header) else {
            return false;
        };
        shard.tasks.remove(key);
        if held {
            shard.collected = shard.collected.wrapping_add(1);
        }
        true
    }

    /// Step 1 of shutdown alone: no task is added from now on (a spawn
    /// is cancelled at once), while the workers still finish their polls.
    pub(crate) fn close(&self) {
        for shard in self.shards.iter() {
            shard.locked.lock().unwrap().closed = true;
        }
    }

    /// Closes the list and cancels every task in it. Must run when no
    /// worker polls tasks any more.
    pub(crate) fn close_and_shutdown_all(&self) {
        self.close_and_shutdown_all_watched(None);
    }

    /// `close_and_shutdown_all`, telling `sweep` (the watchdog's) which
    /// task's future it drops meanwhile (`runtime/shutdown_sweep.rs`).
    pub(crate) fn close_and_shutdown_all_watched(&self, sweep: Option<&ShutdownSweep>) {
        self.close();
        for shard in self.shards.iter() {
            let tasks: Vec<ListedTask> = {
                let mut shard = shard.locked.lock().unwrap();
                shard.tasks.drain().collect()
            };
            for listed in tasks {
                if let Some(sweep) = sweep {
                    sweep.dropping(&listed);
                }
                listed.task.shutdown();
                if let Some(sweep) = sweep {
                    sweep.dropped();
                }
                // SAFETY: draining the slab took over the list's reference.
                unsafe { listed.task.drop_reference() };
            }
        }
    }

    /// Step 3 of `waits.rs`: the waits of the task's poll that just
    /// returned `Pending` (not empty) replace those of an earlier poll.
    pub(crate) fn set_waits(&self, header: &Header, waits: Recording) {
        let polls = header.stats.polls();
        let old = {
            let mut shard = self.shard(header).locked.lock().unwrap();
            let Some(key) = shard.key_of(header) else {
                return;
            };
            let extra = shard.tasks[key].extra.get_or_insert_with(Box::default);
            extra.waits_at_poll = polls;
            std::mem::replace(&mut extra.waits, waits)
        };
        // The old waits hold `Arc`s of locks' owners: dropped unlocked.
        drop(old);
    }

    /// Calls `f` with each task in the list, one shard at a time under
    /// its lock: spawns and completions on that shard wait meanwhile, so
    /// `f` must be short and must not touch the list.
    pub(crate) fn for_each(&self, mut f: impl FnMut(&ListedTask)) {
        for shard in self.shards.iter() {
            let shard = shard.locked.lock().unwrap();
            for (_, listed) in shard.tasks.iter() {
                f(listed);
            }
        }
    }

    /// Calls `f` with the task whose id is `id`, if it is in the list
    /// (under its shard's lock, as `for_each`).
    pub(crate) fn with_task(&self, id: u64, f: impl FnOnce(&ListedTask)) {
        let shard = self.shards[id as usize & self.mask].locked.lock().unwrap();
        let mut listed = shard.tasks.iter().map(|(_, listed)| listed);
        if let Some(listed) = listed.find(|l| l.header().id.as_u64() == id) {
            f(listed);
        }
    }

    /// How many tasks were ever added.
    pub(crate) fn spawned_count(&self) -> u64 {
        self.shards
            .iter()
            .map(|s| s.locked.lock().unwrap().spawned)
            .sum()
    }

    /// How many tasks are alive (spawned and not yet completed): the
    /// complete ones waiting for their `JoinHandle` do not count.
    pub(crate) fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|slot| {
                let shard = slot.locked.lock().unwrap();
                let complete = slot
                    .held
                    .load(Ordering::Relaxed)
                    .wrapping_sub(shard.collected);
                shard.tasks.len() - complete.min(shard.tasks.len())
            })
            .sum()
    }
}

impl Shard {
    /// The slab key of `header`'s task, if it is in this shard. The key
    /// the task remembers may since have been reused by another task, so
    /// the entry must point at this one.
    fn key_of(&self, header: &Header) -> Option<usize> {
        // SAFETY: the key is only touched under this shard's lock, which
        // the caller holds (it borrows the shard from the guard).
        let key = header.owned_key.with(|slot| unsafe { *slot });
        self.tasks
            .get(key)
            .is_some_and(|listed| listed.task.as_ptr() == NonNull::from(header))
            .then_some(key)
    }
}

impl std::fmt::Debug for OwnedTasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnedTasks")
            .field("shards", &self.shards.len())
            .finish()
    }
}
