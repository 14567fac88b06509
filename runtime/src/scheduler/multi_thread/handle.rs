//! The multi-thread scheduler's shared state and handle.

use crate::driver;
use crate::loom::deque::Injector;
use crate::loom::sync::Arc;
use crate::loom::sync::atomic::{AtomicBool, Ordering, fence};
use crate::runtime::context;
use crate::scheduler::multi_thread::idle::Idle;
use crate::scheduler::multi_thread::park;
use crate::scheduler::multi_thread::worker::Remote;
use crate::scheduler::{self, Config};
use crate::task::list::OwnedTasks;
use crate::task::{self, Header, Id, JoinHandle, Notified, Schedule};
use std::future::Future;

#[derive(Debug)]
pub(crate) struct Handle {
    pub(crate) shared: Shared,
    pub(crate) driver: driver::Handle,
}

#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) remotes: Box<[Remote]>,
    pub(crate) inject: Injector<Notified>,
    pub(crate) idle: Idle,
    pub(crate) owned: OwnedTasks,
    pub(crate) is_shutdown: AtomicBool,
    /// Set once the shutdown sweep has run: nothing will poll again.
    pub(crate) is_terminated: AtomicBool,
    pub(crate) config: Config,
    pub(crate) park: Arc<park::Shared>,
}

impl Handle {
    pub(crate) fn spawn<F>(me: &Arc<Handle>, future: F, id: Id) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (raw, join) = task::new_task(future, me.clone(), id);
        if let Some(notified) = me.shared.owned.bind(raw) {
            Handle::schedule_task(me, notified, false);
        }
        join
    }

    pub(crate) fn schedule_task(this: &Arc<Self>, task: Notified, is_yield: bool) {
        let task = context::with_scheduler(|cx| match cx {
            Some(scheduler::Context::MultiThread(cx)) if Arc::ptr_eq(&cx.handle, this) => {
                cx.schedule_local(task, is_yield)
            }
            _ => Err(task),
        });
        if let Err(task) = task {
            this.push_remote(task);
        }
    }

    fn push_remote(&self, task: Notified) {
        if self.shared.is_terminated.load(Ordering::Acquire) {
            // Every task was cancelled by the shutdown sweep; nothing runs
            // this one again, so release its reference now.
            drop(task);
            return;
        }
        self.shared.inject.push(task);
        self.notify_parked();
    }

    /// Wakes a parked worker if no worker is searching (see `idle.rs`).
    pub(crate) fn notify_parked(&self) {
        fence(Ordering::SeqCst);
        if let Some(index) = self.shared.idle.worker_to_notify() {
            self.shared.remotes[index].unpark.unpark();
        }
    }

    /// Run by the last searcher before it parks.
    pub(crate) fn notify_if_work_pending(&self) {
        let pending = !self.shared.inject.is_empty()
            || self
                .shared
                .remotes
                .iter()
                .any(|remote| !remote.stealer.is_empty());
        if pending {
            self.notify_parked();
        }
    }

    /// Starts shutting down: workers stop after their current poll.
    pub(crate) fn begin_shutdown(&self) {
        if self.shared.is_shutdown.swap(true, Ordering::AcqRel) {
            return;
        }
        for remote in self.shared.remotes.iter() {
            remote.unpark.unpark();
        }
    }

    /// Cancels every task and drops every queued one. Called once the
    /// workers have stopped (or were given up on).
    pub(crate) fn finish_shutdown(&self) {
        self.shared.owned.close_and_shutdown_all();
        self.shared.is_terminated.store(true, Ordering::Release);
        while let Some(task) = self.shared.inject.steal().success() {
            drop(task);
        }
        self.shared.park.shutdown();
    }
}

impl Schedule for Arc<Handle> {
    fn schedule(&self, task: Notified) {
        Handle::schedule_task(self, task, false);
    }

    fn yield_now(&self, task: Notified) {
        Handle::schedule_task(self, task, true);
    }

    fn release(&self, task: &Header) -> bool {
        self.shared.owned.remove(task)
    }
}
