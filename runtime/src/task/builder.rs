//! `task::Builder`: spawn with a name or a priority.

use crate::runtime::spawn::outside_runtime;
use crate::runtime::{Handle, context};
use crate::task::local::{LocalSet, try_spawn_local};
use crate::task::{JoinHandle, Priority, TaskMeta};
use std::future::Future;
use std::io;

/// Spawns tasks with a name, which the task dump
/// ([`Handle::dump`](crate::runtime::Handle::dump)), the slow-poll
/// watchdog and the leak report show next to the spawn location, or with
/// a [`Priority`] (see [`Builder::priority`]).
///
/// Every spawn records where it was called from, named or not; a name
/// costs one small allocation, an unnamed spawn none. As in tokio, the
/// spawn methods panic where [`rt::spawn`](crate::spawn) and its siblings
/// do (outside a runtime, or a `LocalSet` for `spawn_local`); their
/// `Result` carries the blocking pool's failure to start a thread.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let task = rt::task::Builder::new()
///         .name("answer")
///         .spawn(async { 42 })
///         .unwrap();
///     assert_eq!(task.await.unwrap(), 42);
/// });
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Builder<'a> {
    name: Option<&'a str>,
    priority: Priority,
}

impl<'a> Builder<'a> {
    /// A builder for an unnamed `Normal` task.
    ///
    /// # Examples
    ///
    /// ```
    /// let builder = rt::task::Builder::new();
    /// # drop(builder);
    /// ```
    pub fn new() -> Builder<'a> {
        Builder {
            name: None,
            priority: Priority::Normal,
        }
    }

    /// Names the task.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let task = rt::task::Builder::new()
    ///     .name("worker")
    ///     .spawn_on(async { "named" }, rt.handle())
    ///     .unwrap();
    /// assert_eq!(rt.block_on(task).unwrap(), "named");
    /// ```
    pub fn name(self, name: &'a str) -> Builder<'a> {
        Builder {
            name: Some(name),
            ..self
        }
    }

    /// Gives the task `priority` for life (the default is
    /// [`Priority::Normal`]): a ready `High` task runs before every ready
    /// `Normal` or `Low` one, on either scheduler, within the starvation
    /// bound documented on [`Priority`]. Tasks the task spawns or wakes
    /// do not inherit it.
    ///
    /// [`spawn`](Builder::spawn) and [`spawn_on`](Builder::spawn_on) honour
    /// it. A [`LocalSet`] runs its tasks in the order they are woken
    /// whatever their priority (the task still reports its own in
    /// [`task::priority`](crate::task::priority)), and the blocking pool
    /// has no order to change: the `spawn_blocking` methods ignore it.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::task::{Builder, Priority};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let heartbeat = Builder::new()
    ///     .name("heartbeat")
    ///     .priority(Priority::High)
    ///     .spawn_on(async { rt::task::priority() }, rt.handle())
    ///     .unwrap();
    /// assert_eq!(rt.block_on(heartbeat).unwrap(), Priority::High);
    /// ```
    pub fn priority(self, priority: Priority) -> Builder<'a> {
        Builder { priority, ..self }
    }

    #[track_caller]
    fn meta(&self) -> TaskMeta {
        let mut meta = TaskMeta::named(self.name);
        meta.priority = self.priority;
        meta
    }

    /// As `meta`, for the blocking pool, which has no priorities.
    #[track_caller]
    fn blocking_meta(&self) -> TaskMeta {
        TaskMeta::named(self.name)
    }

    /// Spawns the task on the current runtime, as [`rt::spawn`](crate::spawn).
    ///
    /// # Errors
    ///
    /// None today; the `Result` matches the other spawn methods (and
    /// tokio's).
    ///
    /// # Panics
    ///
    /// When this thread has no current runtime (no task, `block_on` or
    /// `Runtime::enter`), as tokio's; use [`spawn_on`](Builder::spawn_on)
    /// there.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let answer = rt.block_on(async {
    ///     let task = rt::task::Builder::new().name("answer").spawn(async { 42 });
    ///     task.unwrap().await.unwrap()
    /// });
    /// assert_eq!(answer, 42);
    /// ```
    #[track_caller]
    pub fn spawn<F>(self, future: F) -> io::Result<JoinHandle<F::Output>>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let meta = self.meta();
        match context::with_current(|handle| handle.spawn(future, meta)) {
            Some(join) => Ok(join),
            None => outside_runtime(
                "rt::task::Builder::spawn",
                "use `Builder::spawn_on` with a runtime handle",
            ),
        }
    }

    /// Spawns the task on the runtime of `handle`, from any thread.
    ///
    /// # Errors
    ///
    /// `Unsupported` inside a simulation (`rt::sim`, feature `sim`) when
    /// `handle` is another runtime's: the seed could not replay its work.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let task = rt::task::Builder::new().spawn_on(async { 1 }, rt.handle()).unwrap();
    /// assert_eq!(rt.block_on(task).unwrap(), 1);
    /// ```
    #[track_caller]
    pub fn spawn_on<F>(self, future: F, handle: &Handle) -> io::Result<JoinHandle<F::Output>>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        #[cfg(feature = "sim")]
        crate::sim::refuse_other_runtime(&handle.inner, "`Builder::spawn_on`")?;
        Ok(handle.inner.spawn(future, self.meta()))
    }

    /// Spawns a `!Send` task on the [`LocalSet`] this thread runs, as
    /// [`spawn_local`](crate::task::spawn_local).
    ///
    /// # Errors
    ///
    /// None today; the `Result` matches the other spawn methods (and
    /// tokio's).
    ///
    /// # Panics
    ///
    /// Outside a `LocalSet`, as tokio's; use
    /// [`spawn_local_on`](Builder::spawn_local_on) there.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let local = rt::task::LocalSet::new();
    /// let rc = std::rc::Rc::new(5);
    /// let out = local.block_on(&rt, async move {
    ///     let task = rt::task::Builder::new().name("local").spawn_local(async move { *rc });
    ///     task.unwrap().await.unwrap()
    /// });
    /// assert_eq!(out, 5);
    /// ```
    #[track_caller]
    pub fn spawn_local<F>(self, future: F) -> io::Result<JoinHandle<F::Output>>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        match try_spawn_local(future, self.meta()) {
            Ok(join) => Ok(join),
            Err(_) => panic!(
                "`rt::task::Builder::spawn_local` called outside a `LocalSet`: run it inside \
                 `LocalSet::run_until` or `LocalSet::block_on`, or use `Builder::spawn_local_on`"
            ),
        }
    }

    /// Spawns a `!Send` task onto `local`, as
    /// [`LocalSet::spawn_local`].
    ///
    /// # Errors
    ///
    /// None today; the `Result` matches the other spawn methods.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let local = rt::task::LocalSet::new();
    /// let task = rt::task::Builder::new().spawn_local_on(async { 3 }, &local).unwrap();
    /// assert_eq!(local.block_on(&rt, task).unwrap(), 3);
    /// ```
    #[track_caller]
    pub fn spawn_local_on<F>(self, future: F, local: &LocalSet) -> io::Result<JoinHandle<F::Output>>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        Ok(local.spawn_local_with(future, self.meta()))
    }

    /// Runs the blocking closure `f` on the current runtime's blocking
    /// pool, as [`spawn_blocking`](crate::task::spawn_blocking).
    ///
    /// # Errors
    ///
    /// Fails when the pool has no thread and the OS refuses to start one
    /// (then `f` never runs), and, inside a simulation (`rt::sim`, feature
    /// `sim`), with `Unsupported` when `handle` is another runtime's.
    ///
    /// # Panics
    ///
    /// Outside a runtime, as tokio's; use
    /// [`spawn_blocking_on`](Builder::spawn_blocking_on) there.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let sum = rt.block_on(async {
    ///     let task = rt::task::Builder::new().name("sum").spawn_blocking(|| 2 + 2);
    ///     task.unwrap().await.unwrap()
    /// });
    /// assert_eq!(sum, 4);
    /// ```
    #[track_caller]
    pub fn spawn_blocking<F, R>(self, f: F) -> io::Result<JoinHandle<R>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let meta = self.blocking_meta();
        match context::with_current(|handle| handle.try_spawn_blocking(f, meta)) {
            Some(spawned) => spawned,
            None => outside_runtime(
                "rt::task::Builder::spawn_blocking",
                "use `Builder::spawn_blocking_on` with a runtime handle",
            ),
        }
    }

    /// Runs the blocking closure `f` on the blocking pool of `handle`'s
    /// runtime, from any thread.
    ///
    /// # Errors
    ///
    /// Fails when the pool has no thread and the OS refuses to start one
    /// (then `f` never runs).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let task = rt::task::Builder::new().spawn_blocking_on(|| 6 * 7, rt.handle()).unwrap();
    /// assert_eq!(rt.block_on(task).unwrap(), 42);
    /// ```
    #[track_caller]
    pub fn spawn_blocking_on<F, R>(self, f: F, handle: &Handle) -> io::Result<JoinHandle<R>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        #[cfg(feature = "sim")]
        crate::sim::refuse_other_runtime(&handle.inner, "`Builder::spawn_blocking_on`")?;
        // Through the handle's own dispatch: a simulation's runs `f`
        // inline, as a task, instead of on a pool thread.
        handle.inner.try_spawn_blocking(f, self.blocking_meta())
    }
}
