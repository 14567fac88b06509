//! A primitive never drops (or wakes) a waker while it holds its own lock:
//! a waker's destructor may run user code that uses the same primitive
//! (a task owning a sender or a guard is dropped with its last waker), and
//! that would deadlock on the lock. Each test stores a waker whose drop
//! uses the primitive, then makes the primitive let go of it: by polling
//! again with another waker, or by dropping the waiting future.

mod support;

use rt::runtime::Builder;
use rt::sync::{Mutex, Notify, RwLock, Semaphore, broadcast, mpsc, oneshot, watch};
use rt::task::{JoinSet, TaskGroup};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Poll, Wake, Waker};
use std::time::Duration;
use support::{assert_no_deadlock, poll_with, waker_with_drop_hook};

/// Something to keep in a shared slot and take out from a waker's drop.
type Slot<T> = Arc<std::sync::Mutex<Option<T>>>;

fn slot<T>(value: T) -> Slot<T> {
    Arc::new(std::sync::Mutex::new(Some(value)))
}

fn take<T>(slot: &Slot<T>) -> Option<T> {
    slot.lock().unwrap().take()
}

/// Polls `future` with a waker whose drop runs `hook` (the future must
/// wait), then with another waker, which replaces the first (so the
/// primitive drops it), and returns the poll after that.
fn poll_after_replacing_a_hooked_waker<F: Future>(
    future: &mut Pin<Box<F>>,
    hook: impl FnOnce() + Send + 'static,
) -> Poll<F::Output> {
    assert!(poll_with(future, &waker_with_drop_hook(hook)).is_pending());
    let _ = poll_with(future, Waker::noop());
    poll_with(future, Waker::noop())
}

#[test]
fn notified_polled_again_drops_the_old_waker_unlocked() {
    assert_no_deadlock("re-polling a Notified", || {
        let notify = Arc::new(Notify::new());
        let hook = {
            let notify = notify.clone();
            move || notify.notify_one()
        };
        let mut notified = Box::pin(notify.notified());
        assert!(poll_after_replacing_a_hooked_waker(&mut notified, hook).is_ready());
    });
}

#[test]
fn a_dropped_notified_drops_its_waker_unlocked() {
    assert_no_deadlock("dropping a queued Notified", || {
        let notify = Arc::new(Notify::new());
        let hook = {
            let notify = notify.clone();
            move || notify.notify_one()
        };
        let mut notified = Box::pin(notify.notified());
        assert!(poll_with(&mut notified, &waker_with_drop_hook(hook)).is_pending());
        drop(notified);
        // The hook's notification found no waiter: it is the stored permit.
        let mut next = Box::pin(notify.notified());
        assert!(poll_with(&mut next, Waker::noop()).is_ready());
    });
}

#[test]
fn acquire_polled_again_drops_the_old_waker_unlocked() {
    assert_no_deadlock("re-polling a semaphore acquire", || {
        let semaphore = Arc::new(Semaphore::new(0));
        let hook = {
            let semaphore = semaphore.clone();
            move || semaphore.add_permits(1)
        };
        let mut acquire = Box::pin(semaphore.acquire());
        assert!(matches!(
            poll_after_replacing_a_hooked_waker(&mut acquire, hook),
            Poll::Ready(Ok(_))
        ));
    });
}

#[test]
fn a_dropped_acquire_drops_its_waker_unlocked() {
    assert_no_deadlock("dropping a queued semaphore acquire", || {
        let semaphore = Arc::new(Semaphore::new(0));
        let hook = {
            let semaphore = semaphore.clone();
            move || semaphore.add_permits(2)
        };
        let mut acquire = Box::pin(semaphore.acquire());
        assert!(poll_with(&mut acquire, &waker_with_drop_hook(hook)).is_pending());
        drop(acquire);
        assert_eq!(semaphore.available_permits(), 2);
    });
}

#[test]
fn mutex_lock_polled_again_drops_the_old_waker_unlocked() {
    assert_no_deadlock("re-polling a Mutex::lock", || {
        let mutex = Arc::new(Mutex::new(0));
        let held = slot(mutex.clone().try_lock_owned().unwrap());
        let hook = {
            let held = held.clone();
            move || drop(take(&held))
        };
        let mut lock = Box::pin(mutex.lock());
        assert!(poll_after_replacing_a_hooked_waker(&mut lock, hook).is_ready());
    });
}

#[test]
fn rwlock_write_polled_again_drops_the_old_waker_unlocked() {
    assert_no_deadlock("re-polling an RwLock::write", || {
        let lock = Arc::new(RwLock::new(0));
        let reading = slot(lock.clone().try_read_owned().unwrap());
        let hook = {
            let reading = reading.clone();
            move || drop(take(&reading))
        };
        let mut write = Box::pin(lock.write());
        assert!(poll_after_replacing_a_hooked_waker(&mut write, hook).is_ready());
    });
}

#[test]
fn oneshot_receiver_polled_again_drops_the_old_waker_unlocked() {
    assert_no_deadlock("re-polling a oneshot receiver", || {
        let (tx, rx) = oneshot::channel();
        let tx = slot(tx);
        let hook = {
            let tx = tx.clone();
            move || take(&tx).unwrap().send(5).unwrap()
        };
        let mut rx = Box::pin(rx);
        assert_eq!(
            poll_after_replacing_a_hooked_waker(&mut rx, hook),
            Poll::Ready(Ok(5))
        );
    });
}

#[test]
fn oneshot_sender_closed_polled_again_drops_the_old_waker_unlocked() {
    assert_no_deadlock("re-polling oneshot::Sender::closed", || {
        let (mut tx, rx) = oneshot::channel::<()>();
        let rx = slot(rx);
        let hook = {
            let rx = rx.clone();
            move || drop(take(&rx))
        };
        let hooked = waker_with_drop_hook(hook);
        let mut cx = std::task::Context::from_waker(&hooked);
        assert!(tx.poll_closed(&mut cx).is_pending());
        drop(hooked);
        let mut cx = std::task::Context::from_waker(Waker::noop());
        let _ = tx.poll_closed(&mut cx);
        assert!(tx.poll_closed(&mut cx).is_ready());
    });
}

#[test]
fn mpsc_receiver_polled_again_drops_the_old_waker_unlocked() {
    assert_no_deadlock("re-polling an mpsc receiver", || {
        let (tx, mut rx) = mpsc::channel(1);
        let hook = move || tx.try_send(7).unwrap();
        let hooked = waker_with_drop_hook(hook);
        assert!(
            rx.poll_recv(&mut std::task::Context::from_waker(&hooked))
                .is_pending()
        );
        drop(hooked);
        let mut cx = std::task::Context::from_waker(Waker::noop());
        let got = match rx.poll_recv(&mut cx) {
            Poll::Ready(got) => got,
            Poll::Pending => match rx.poll_recv(&mut cx) {
                Poll::Ready(got) => got,
                Poll::Pending => panic!("the value sent by the old waker's drop was lost"),
            },
        };
        assert_eq!(got, Some(7));
    });
}

#[test]
fn broadcast_recv_polled_again_drops_the_old_waker_unlocked() {
    assert_no_deadlock("re-polling a broadcast recv", || {
        let (tx, mut rx) = broadcast::channel(4);
        let hook = move || {
            tx.send(3).unwrap();
        };
        let mut recv = Box::pin(rx.recv());
        assert_eq!(
            poll_after_replacing_a_hooked_waker(&mut recv, hook),
            Poll::Ready(Ok(3))
        );
    });
}

#[test]
fn watch_changed_polled_again_drops_the_old_waker_unlocked() {
    assert_no_deadlock("re-polling a watch changed", || {
        let (tx, mut rx) = watch::channel(0);
        let hook = move || tx.send(1).unwrap();
        let mut changed = Box::pin(rx.changed());
        // The sender went with the hook: a change was sent, then it closed.
        assert!(matches!(
            poll_after_replacing_a_hooked_waker(&mut changed, hook),
            Poll::Ready(Ok(()))
        ));
    });
}

/// Wakes by sending on a channel.
struct SendOnWake(std::sync::Mutex<std::sync::mpsc::Sender<()>>);

impl Wake for SendOnWake {
    fn wake(self: Arc<Self>) {
        let _ = self.0.lock().unwrap().send(());
    }
}

/// A task of the set finishes on a worker while the set swaps its joiner:
/// the old joiner's drop waits for that finish to wake the new joiner.
/// Dropped under the set's lock, it would hold up the finishing task's
/// wake-up, which needs that lock.
#[test]
fn join_set_drops_the_replaced_joiner_unlocked() {
    assert_no_deadlock("re-polling JoinSet::join_next", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let (go_tx, go_rx) = oneshot::channel::<()>();
        let mut set = JoinSet::new();
        set.spawn_on(
            async move {
                go_rx.await.unwrap();
            },
            rt.handle(),
        );
        let (woken_tx, woken_rx) = std::sync::mpsc::channel();
        let saw_wake = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let hook = {
            let saw_wake = saw_wake.clone();
            move || {
                go_tx.send(()).unwrap();
                let woken = woken_rx.recv_timeout(Duration::from_secs(10)).is_ok();
                saw_wake.store(woken, std::sync::atomic::Ordering::SeqCst);
            }
        };
        let mut join = Box::pin(std::future::poll_fn(|cx| set.poll_join_next(cx)));
        assert!(poll_with(&mut join, &waker_with_drop_hook(hook)).is_pending());
        let second = Waker::from(Arc::new(SendOnWake(std::sync::Mutex::new(woken_tx))));
        // The first joiner is replaced here, and dropped.
        let _ = poll_with(&mut join, &second);
        assert!(
            saw_wake.load(std::sync::atomic::Ordering::SeqCst),
            "the task's finish could not wake the set while the old joiner was dropped"
        );
        drop(join);
        let joined = rt.block_on(set.join_next());
        assert!(joined.unwrap().is_ok());
    });
}

#[test]
fn task_group_drops_the_replaced_joiner_outside_its_lock() {
    assert_no_deadlock("re-polling a TaskGroup scope", || {
        let rt = Builder::new_current_thread().build().unwrap();
        let _entered = rt.enter();
        let (go_tx, go_rx) = oneshot::channel::<()>();
        let (group_tx, group_rx) = std::sync::mpsc::channel();
        let mut scope = Box::pin(TaskGroup::<()>::scope(move |group| {
            group.spawn(async move {
                let _ = go_rx.await;
                Ok(())
            });
            group_tx.send(group).unwrap();
            async { Ok(()) }
        }));
        // Spawning takes the group's lock.
        let hook = move || {
            group_rx.recv().unwrap().spawn(async { Ok(()) });
        };
        // The body finishes; the child is pending: the hooked waker waits.
        assert!(poll_with(&mut scope, &waker_with_drop_hook(hook)).is_pending());
        // Polled again: the first joiner is replaced and dropped.
        assert!(poll_with(&mut scope, Waker::noop()).is_pending());
        go_tx.send(()).unwrap();
        assert!(rt.block_on(scope).is_ok());
    });
}

/// Spawns into `group` when dropped.
struct SpawnIntoGroupOnDrop(TaskGroup<()>);

impl Drop for SpawnIntoGroupOnDrop {
    fn drop(&mut self) {
        self.0.spawn(async { Ok(()) });
    }
}

/// A child spawned after its runtime shut down is dropped at once, by the
/// spawning thread: `TaskGroup::spawn` must not hold the group's lock
/// then, since the child's destructor may spawn into the group too.
#[test]
fn task_group_spawn_drops_a_refused_child_outside_its_lock() {
    assert_no_deadlock("spawning into a group whose runtime shut down", || {
        let rt = Builder::new_current_thread().build().unwrap();
        let scope = {
            let _entered = rt.enter();
            TaskGroup::<()>::scope(|group| async move {
                let on_drop = SpawnIntoGroupOnDrop(group.clone());
                group.spawn(async move {
                    let _on_drop = on_drop;
                    Ok(())
                });
                Ok("body done")
            })
        };
        drop(rt);
        // Both children were cancelled (not failures): the body's value.
        assert_eq!(futures::executor::block_on(scope).unwrap(), "body done");
    });
}
