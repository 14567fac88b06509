//! The work-stealing queues.
//!
//! Normally these are `crossbeam-deque`'s lock-free `Worker`, `Stealer` and
//! `Injector`. Loom cannot see inside crossbeam's atomics, so under loom they
//! are replaced by a mutex-protected stand-in with the same API: the
//! scheduler's stealing protocol is then modelled with every interleaving
//! of push, pop and steal, even though the queue itself is not.

#[cfg(not(loom))]
pub(crate) use crossbeam_deque::{Injector, Steal, Stealer, Worker};

#[cfg(loom)]
pub(crate) use stand_in::{Injector, Steal, Stealer, Worker};

/// The most tasks a batch steal puts in the destination deque (the popped
/// one aside): crossbeam's `MAX_BATCH`, which it does not export. Small
/// under loom, where the stand-in takes half the source up to this.
#[cfg(not(loom))]
pub(crate) const MAX_BATCH: usize = 32;
#[cfg(loom)]
pub(crate) const MAX_BATCH: usize = 2;

/// Takes one value from `queue`, `None` only once the queue was seen
/// empty. A steal that lost a race (crossbeam's `Retry`, which a spurious
/// compare-exchange failure also produces, single-threaded) is retried:
/// stopping there would leave values behind, as Miri found in a shutdown
/// drain that leaked tasks (and, through them, the runtime).
pub(crate) fn steal_one<T>(queue: &Injector<T>) -> Option<T> {
    loop {
        match queue.steal() {
            Steal::Success(value) => return Some(value),
            Steal::Empty => return None,
            Steal::Retry => continue,
        }
    }
}

#[cfg(loom)]
mod stand_in {
    use crate::loom::sync::{Arc, Mutex};
    use std::collections::VecDeque;

    /// The outcome of a steal, as in crossbeam.
    #[derive(Debug)]
    pub(crate) enum Steal<T> {
        Empty,
        Success(T),
        #[allow(dead_code)]
        Retry,
    }

    impl<T> Steal<T> {
        pub(crate) fn success(self) -> Option<T> {
            match self {
                Steal::Success(value) => Some(value),
                _ => None,
            }
        }
    }

    /// Moves up to half of `from` (at least one) into `dest`, returning one.
    fn take_batch<T>(from: &Mutex<VecDeque<T>>, dest: &Worker<T>) -> Steal<T> {
        let mut from = from.lock().unwrap();
        let Some(first) = from.pop_front() else {
            return Steal::Empty;
        };
        let extra = (from.len() / 2).min(super::MAX_BATCH);
        let mut dest = dest.queue.lock().unwrap();
        for _ in 0..extra {
            dest.push_back(from.pop_front().expect("counted above"));
        }
        Steal::Success(first)
    }

    #[derive(Debug)]
    pub(crate) struct Worker<T> {
        queue: Arc<Mutex<VecDeque<T>>>,
    }

    impl<T> Worker<T> {
        pub(crate) fn new_fifo() -> Worker<T> {
            Worker {
                queue: Arc::new(Mutex::new(VecDeque::new())),
            }
        }

        pub(crate) fn push(&self, value: T) {
            self.queue.lock().unwrap().push_back(value);
        }

        pub(crate) fn pop(&self) -> Option<T> {
            self.queue.lock().unwrap().pop_front()
        }

        pub(crate) fn is_empty(&self) -> bool {
            self.queue.lock().unwrap().is_empty()
        }

        pub(crate) fn len(&self) -> usize {
            self.queue.lock().unwrap().len()
        }

        pub(crate) fn stealer(&self) -> Stealer<T> {
            Stealer {
                queue: self.queue.clone(),
            }
        }
    }

    #[derive(Debug)]
    pub(crate) struct Stealer<T> {
        queue: Arc<Mutex<VecDeque<T>>>,
    }

    impl<T> Clone for Stealer<T> {
        fn clone(&self) -> Self {
            Stealer {
                queue: self.queue.clone(),
            }
        }
    }

    impl<T> Stealer<T> {
        pub(crate) fn steal_batch_and_pop(&self, dest: &Worker<T>) -> Steal<T> {
            take_batch(&self.queue, dest)
        }

        pub(crate) fn is_empty(&self) -> bool {
            self.queue.lock().unwrap().is_empty()
        }

        pub(crate) fn len(&self) -> usize {
            self.queue.lock().unwrap().len()
        }
    }

    #[derive(Debug)]
    pub(crate) struct Injector<T> {
        queue: Mutex<VecDeque<T>>,
    }

    impl<T> Injector<T> {
        pub(crate) fn new() -> Injector<T> {
            Injector {
                queue: Mutex::new(VecDeque::new()),
            }
        }

        pub(crate) fn push(&self, value: T) {
            self.queue.lock().unwrap().push_back(value);
        }

        pub(crate) fn steal(&self) -> Steal<T> {
            match self.queue.lock().unwrap().pop_front() {
                Some(value) => Steal::Success(value),
                None => Steal::Empty,
            }
        }

        pub(crate) fn steal_batch_and_pop(&self, dest: &Worker<T>) -> Steal<T> {
            take_batch(&self.queue, dest)
        }

        pub(crate) fn is_empty(&self) -> bool {
            self.queue.lock().unwrap().is_empty()
        }

        pub(crate) fn len(&self) -> usize {
            self.queue.lock().unwrap().len()
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// `MAX_BATCH` copies a constant crossbeam does not export: if a
    /// crossbeam release takes larger batches, this fails rather than the
    /// local deque's bound quietly growing by the difference.
    #[test]
    #[cfg_attr(
        miri,
        ignore = "crossbeam-epoch casts integers to pointers, which strict provenance rejects"
    )]
    fn batch_steals_take_at_most_max_batch() {
        let sources = || {
            let injector = Injector::new();
            let worker = Worker::new_fifo();
            for i in 0..10 * MAX_BATCH {
                injector.push(i);
                worker.push(i);
            }
            (injector, worker)
        };
        let (injector, worker) = sources();
        let into = Worker::new_fifo();
        assert!(injector.steal_batch_and_pop(&into).is_success());
        assert!(into.len() <= MAX_BATCH, "injector batch of {}", into.len());
        let into = Worker::new_fifo();
        assert!(injector.steal_batch(&into).is_success());
        assert!(into.len() <= MAX_BATCH, "injector batch of {}", into.len());
        let into = Worker::new_fifo();
        assert!(worker.stealer().steal_batch_and_pop(&into).is_success());
        assert!(into.len() <= MAX_BATCH, "peer batch of {}", into.len());
        // And a batch is as large as that, so the constant is not stale
        // the other way either.
        let (injector, _) = sources();
        let into = Worker::new_fifo();
        assert!(injector.steal_batch(&into).is_success());
        assert_eq!(into.len(), MAX_BATCH);
    }
}
