//! `task_local!`: values that follow a future across `.await` points and
//! worker threads, nested scopes, isolation between tasks, and the unset
//! cases.

mod support;

use std::sync::{Arc, Mutex};
use support::{block_on_each, expect_panic};

rt::task_local! {
    static REQUEST: u64;
    static NAME: String;
    /// A key with attributes and a doc comment.
    #[allow(dead_code)]
    pub(crate) static UNUSED: Vec<u8>;
}

#[test]
fn a_value_is_seen_at_every_poll_across_awaits() {
    block_on_each(|_| async {
        let tasks: Vec<_> = (0..16u64)
            .map(|i| {
                rt::spawn(REQUEST.scope(i, async move {
                    for _ in 0..50 {
                        assert_eq!(REQUEST.get(), i);
                        rt::task::yield_now().await;
                    }
                    // A timer and a channel on the way, not just yields.
                    rt::time::sleep(std::time::Duration::from_millis(1)).await;
                    let (tx, rx) = rt::sync::oneshot::channel();
                    rt::spawn(async move { tx.send(()).unwrap() });
                    rx.await.unwrap();
                    REQUEST.get()
                }))
            })
            .collect();
        for (i, task) in tasks.into_iter().enumerate() {
            assert_eq!(task.await.unwrap(), i as u64);
        }
        // Between polls the value is not left on the thread.
        assert!(REQUEST.try_with(|_| ()).is_err());
    });
}

#[test]
fn tasks_interleaved_on_one_thread_each_see_their_own_value() {
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    rt.block_on(async {
        let tasks: Vec<_> = ["a", "b", "c"]
            .into_iter()
            .map(|name| {
                let seen = seen.clone();
                rt::spawn(NAME.scope(name.to_owned(), async move {
                    for _ in 0..3 {
                        seen.lock().unwrap().push(NAME.get());
                        rt::task::yield_now().await;
                    }
                }))
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
    });
    // The three tasks took turns (so the slot was swapped at every poll),
    // and each saw only its own name.
    assert_eq!(
        *seen.lock().unwrap(),
        ["a", "b", "c", "a", "b", "c", "a", "b", "c"]
    );
}

#[test]
fn nested_scopes_shadow_and_restore_the_outer_value() {
    block_on_each(|_| async {
        REQUEST
            .scope(1, async {
                assert_eq!(REQUEST.get(), 1);
                let inner = REQUEST.scope(2, async {
                    rt::task::yield_now().await;
                    let innermost = REQUEST.scope(3, async { REQUEST.get() }).await;
                    (REQUEST.get(), innermost)
                });
                assert_eq!(inner.await, (2, 3));
                rt::task::yield_now().await;
                assert_eq!(REQUEST.get(), 1);
                // Another key is independent.
                NAME.scope("n".to_owned(), async {
                    assert_eq!(REQUEST.get(), 1);
                    assert_eq!(NAME.get(), "n");
                })
                .await;
                assert!(NAME.try_with(|_| ()).is_err());
            })
            .await;
    });
}

#[test]
fn a_spawned_task_does_not_inherit_the_value_unless_scoped_there() {
    block_on_each(|_| async {
        REQUEST
            .scope(10, async {
                let plain = rt::spawn(async { REQUEST.try_with(|v| *v).ok() });
                assert_eq!(plain.await.unwrap(), None);
                let scoped = rt::spawn(REQUEST.scope(11, async {
                    rt::task::yield_now().await;
                    REQUEST.get()
                }));
                assert_eq!(scoped.await.unwrap(), 11);
                let blocking = rt::spawn_blocking(|| REQUEST.try_with(|v| *v).ok());
                assert_eq!(blocking.await.unwrap(), None);
                assert_eq!(REQUEST.get(), 10);
            })
            .await;
    });
}

#[test]
fn with_panics_naming_the_fix_when_unset_and_try_with_returns_an_error() {
    let error = REQUEST.try_with(|v| *v).unwrap_err();
    assert_eq!(error.to_string(), "task-local value not set");
    let message = expect_panic(|| REQUEST.with(|v| *v));
    assert!(
        message.contains("outside its scope") && message.contains("LocalKey::scope"),
        "{message}"
    );
    let message = expect_panic(|| NAME.get());
    assert!(message.contains("LocalKey::try_with"), "{message}");

    // The same inside a task of each scheduler.
    block_on_each(|_| async {
        let task = rt::spawn(async { REQUEST.with(|v| *v) });
        let error = task.await.unwrap_err();
        assert!(error.is_panic());
        let message = support::panic_message(&*error.into_panic());
        assert!(message.contains("outside its scope"), "{message}");
    });
}

#[test]
fn a_panicking_poll_restores_the_outer_value() {
    NAME.sync_scope("outer".to_owned(), || {
        let message = expect_panic(|| NAME.sync_scope("inner".to_owned(), || panic!("boom")));
        assert_eq!(message, "boom");
        assert_eq!(NAME.get(), "outer");
    });
    assert!(NAME.try_with(|_| ()).is_err());

    block_on_each(|_| async {
        let task = rt::spawn(REQUEST.scope(5, async {
            rt::task::yield_now().await;
            panic!("inside the scope");
        }));
        assert!(task.await.unwrap_err().is_panic());
        // The worker that ran the panicking poll keeps no value behind.
        let after = rt::spawn(async { REQUEST.try_with(|v| *v).ok() });
        assert_eq!(after.await.unwrap(), None);
    });
}

/// Reads the key when dropped, to see whether it is dropped inside the scope.
struct ReadOnDrop(Arc<Mutex<Option<u64>>>);

impl Drop for ReadOnDrop {
    fn drop(&mut self) {
        *self.0.lock().unwrap() = REQUEST.try_with(|v| *v).ok();
    }
}

#[test]
fn an_unfinished_scoped_future_is_dropped_inside_its_scope() {
    block_on_each(|_| async {
        let seen = Arc::new(Mutex::new(None));
        let guard = ReadOnDrop(seen.clone());
        let task = rt::spawn(REQUEST.scope(42, async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        }));
        rt::task::yield_now().await;
        task.abort();
        assert!(task.await.unwrap_err().is_cancelled());
        assert_eq!(*seen.lock().unwrap(), Some(42));
    });

    // Dropped before its first poll, too.
    let seen = Arc::new(Mutex::new(None));
    let guard = ReadOnDrop(seen.clone());
    drop(REQUEST.scope(7, async move {
        let _guard = guard;
    }));
    assert_eq!(*seen.lock().unwrap(), Some(7));
}

#[test]
fn a_finished_scoped_future_is_dropped_inside_its_scope() {
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    let seen = Arc::new(Mutex::new(None));
    let guard = ReadOnDrop(seen.clone());
    rt.block_on(REQUEST.scope(3, async move {
        let _guard = guard;
        rt::task::yield_now().await;
    }));
    assert_eq!(*seen.lock().unwrap(), Some(3));
}

#[test]
fn take_value_leaves_the_key_unset_for_later_polls() {
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let mut scoped = std::pin::pin!(NAME.scope("taken".to_owned(), async {
            rt::task::yield_now().await;
            NAME.try_with(|n| n.clone()).ok()
        }));
        assert!(futures::poll!(scoped.as_mut()).is_pending());
        assert_eq!(scoped.as_mut().take_value().as_deref(), Some("taken"));
        assert_eq!(scoped.await, None);
    });
}

#[test]
fn a_scope_opened_inside_with_panics_with_a_clear_message() {
    let message = expect_panic(|| {
        REQUEST.sync_scope(1, || REQUEST.with(|_| REQUEST.sync_scope(2, || ())));
    });
    assert!(
        message.contains("borrowed by `LocalKey::with`"),
        "{message}"
    );
    // The outer scope's value survived.
    assert!(REQUEST.try_with(|_| ()).is_err());
}

/// Where the scope cannot be entered, an unfinished scoped future is
/// dropped outside it, as in tokio, instead of panicking in `drop`: inside
/// `with` of the same key, and as a thread's thread-locals are destroyed
/// (a panic there aborts the process).
#[test]
fn an_unfinished_scope_dropped_where_it_cannot_be_entered_drops_its_future() {
    let seen = Arc::new(Mutex::new(Some(0)));
    REQUEST.sync_scope(1, || {
        REQUEST.with(|_| {
            let guard = ReadOnDrop(seen.clone());
            drop(REQUEST.scope(2, async move {
                let _guard = guard;
            }));
        })
    });
    // Dropped outside its own scope: the guard saw the outer value.
    assert_eq!(*seen.lock().unwrap(), Some(1));

    thread_local! {
        static HELD: std::cell::RefCell<Option<std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>>> =
            const { std::cell::RefCell::new(None) };
    }
    let seen = Arc::new(Mutex::new(Some(0)));
    let guard = NameOnDrop(seen.clone());
    std::thread::spawn(move || {
        // `HELD` registers its destructor before `NAME`'s slot does (at the
        // first poll), so the slot is destroyed first.
        HELD.with(|_| {});
        let mut scoped = Box::pin(NAME.scope("held".to_owned(), async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        }));
        assert!(support::poll_once(&mut scoped).is_pending());
        HELD.with(|held| *held.borrow_mut() = Some(scoped));
    })
    .join()
    .expect("dropping the scoped future with the thread's thread-locals panicked");
    // Dropped: inside the scope or outside it, depending on which
    // thread-local the platform destroyed first.
    assert_ne!(*seen.lock().unwrap(), Some(0));
}

/// Records the `NAME` in scope when dropped (its length, or `None`).
struct NameOnDrop(Arc<Mutex<Option<u64>>>);

impl Drop for NameOnDrop {
    fn drop(&mut self) {
        *self.0.lock().unwrap() = NAME.try_with(|name| name.len() as u64).ok();
    }
}

#[test]
#[should_panic(expected = "polled after it completed")]
fn polling_a_finished_scope_again_panics() {
    let mut scoped = Box::pin(REQUEST.scope(1, async {}));
    assert!(support::poll_once(&mut scoped).is_ready());
    let _ = support::poll_once(&mut scoped);
}

#[test]
fn try_get_reads_the_scope_across_awaits_and_errs_outside_it() {
    block_on_each(|_| async {
        assert!(REQUEST.try_get().is_err());
        let scoped: rt::task::futures::TaskLocalFuture<u64, _> = REQUEST.scope(41, async {
            let before = REQUEST.try_get();
            rt::task::yield_now().await;
            (before, REQUEST.try_get())
        });
        let task = rt::spawn(scoped);
        assert_eq!(task.await.unwrap(), (Ok(41), Ok(41)));
        assert!(REQUEST.try_get().is_err());
    });
}
