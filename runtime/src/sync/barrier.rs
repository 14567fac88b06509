//! `Barrier`: wait until `n` tasks arrive.

use crate::loom::sync::Mutex;
use crate::sync::Notify;
use crate::task::waits::Site;
use std::fmt;
use std::future::Future;

/// Lets `n` tasks wait until all of them have reached the same point.
/// Reusable: the next `n` arrivals form the next generation.
///
/// Not cancel-safe: a dropped `wait()` future has already been counted as
/// arrived (as with a thread barrier), so the generation completes one
/// task short of what the caller may expect.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use rt::sync::Barrier;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let barrier = Arc::new(Barrier::new(3));
///     let tasks: Vec<_> = (0..3)
///         .map(|_| {
///             let barrier = barrier.clone();
///             rt::spawn(async move { barrier.wait().await.is_leader() })
///         })
///         .collect();
///     let mut leaders = 0;
///     for task in tasks {
///         leaders += task.await.unwrap() as usize;
///     }
///     assert_eq!(leaders, 1);
/// });
/// ```
pub struct Barrier {
    state: Mutex<State>,
    released: Notify,
    n: usize,
}

#[derive(Debug)]
struct State {
    arrived: usize,
    generation: usize,
}

/// What [`Barrier::wait`] returns.
///
/// # Examples
///
/// ```
/// let barrier = rt::sync::Barrier::new(1);
/// let result = futures::executor::block_on(barrier.wait());
/// assert!(result.is_leader());
/// ```
#[derive(Debug, Clone)]
pub struct BarrierWaitResult(bool);

impl BarrierWaitResult {
    /// `true` for exactly one task of each generation: the last to arrive.
    pub fn is_leader(&self) -> bool {
        self.0
    }
}

impl Barrier {
    /// A barrier for `n` tasks (`n == 0` behaves as 1).
    ///
    /// # Examples
    ///
    /// ```
    /// let barrier = rt::sync::Barrier::new(2);
    /// # drop(barrier);
    /// ```
    pub fn new(n: usize) -> Barrier {
        Barrier {
            state: Mutex::new(State {
                arrived: 0,
                generation: 0,
            }),
            released: Notify::new(),
            n: n.max(1),
        }
    }

    /// Waits until `n` tasks have called `wait` in this generation.
    ///
    /// # Examples
    ///
    /// ```
    /// let barrier = rt::sync::Barrier::new(1);
    /// futures::executor::block_on(barrier.wait());
    /// ```
    #[track_caller]
    pub fn wait(&self) -> impl Future<Output = BarrierWaitResult> {
        let site = Site::here("Barrier::wait");
        async move {
            let arrival = {
                let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
                state.arrived += 1;
                if state.arrived == self.n {
                    state.arrived = 0;
                    state.generation += 1;
                    None
                } else {
                    // Created under the lock, so before the leader's
                    // `notify_waiters`, which therefore wakes it.
                    Some((state.generation, self.released.notified_for(site)))
                }
            };
            // The budget as tokio's: none for the leader, one unit for a
            // waiter released.
            let Some((generation, notified)) = arrival else {
                self.released.notify_waiters();
                return BarrierWaitResult(true);
            };
            crate::task::cooperative(async {
                let mut notified = notified;
                loop {
                    notified.await;
                    let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
                    if state.generation != generation {
                        return BarrierWaitResult(false);
                    }
                    notified = self.released.notified_for(site);
                }
            })
            .await
        }
    }
}

impl fmt::Debug for Barrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        f.debug_struct("Barrier")
            .field("n", &self.n)
            .field("arrived", &state.arrived)
            .finish()
    }
}
