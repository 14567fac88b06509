//! `rt::task::Builder`: every spawn method, named and unnamed, on both
//! schedulers, and their panics outside a runtime (as `rt::spawn`'s).

mod support;

use rt::task::{Builder, LocalSet};
use std::rc::Rc;
use support::{block_on_each, each_runtime};

#[test]
fn builder_spawns_named_and_unnamed_tasks_from_inside() {
    block_on_each(|_| async {
        let named = Builder::new().name("named").spawn(async { 1 }).unwrap();
        let unnamed = Builder::new().spawn(async { 2 }).unwrap();
        // A name borrowed from a temporary only has to outlive the call.
        let owned = String::from("formatted-7");
        let formatted = Builder::new().name(&owned).spawn(async { 3 }).unwrap();
        drop(owned);
        assert_eq!(named.await.unwrap(), 1);
        assert_eq!(unnamed.await.unwrap(), 2);
        assert_eq!(formatted.await.unwrap(), 3);
    });
}

#[test]
fn builder_spawn_on_and_spawn_blocking_on_work_from_outside() {
    each_runtime(|_, rt| {
        let from_thread = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let task = Builder::new()
                        .name("from another thread")
                        .spawn_on(async { "spawned" }, rt.handle())
                        .unwrap();
                    let call = Builder::new()
                        .name("blocking")
                        .spawn_blocking_on(|| 40 + 2, rt.handle())
                        .unwrap();
                    (task, call)
                })
                .join()
                .unwrap()
        });
        let (task, call) = from_thread;
        assert_eq!(rt.block_on(task).unwrap(), "spawned");
        assert_eq!(rt.block_on(call).unwrap(), 42);
    });
}

#[test]
fn builder_spawn_blocking_runs_on_the_pool() {
    block_on_each(|_| async {
        let caller = std::thread::current().id();
        let ran_on = Builder::new()
            .name("pool")
            .spawn_blocking(|| std::thread::current().id())
            .unwrap()
            .await
            .unwrap();
        assert_ne!(ran_on, caller);
    });
}

// As tokio's `task::Builder`: outside a runtime (or a `LocalSet`) the
// spawn methods panic, as `rt::spawn` does, naming the method and the fix.

#[test]
#[should_panic(expected = "`rt::task::Builder::spawn` called outside a runtime")]
fn builder_spawn_panics_outside_a_runtime() {
    let _ = Builder::new().name("nowhere").spawn(async {});
}

#[test]
#[should_panic(expected = "`rt::task::Builder::spawn_blocking` called outside a runtime")]
fn builder_spawn_blocking_panics_outside_a_runtime() {
    let _ = Builder::new().spawn_blocking(|| ());
}

#[test]
#[should_panic(expected = "`rt::task::Builder::spawn_local` called outside a `LocalSet`")]
fn builder_spawn_local_panics_outside_a_local_set() {
    let _ = Builder::new().spawn_local(async {});
}

#[test]
fn builder_spawn_local_inside_a_set_and_spawn_local_on_outside() {
    each_runtime(|_, rt| {
        let local = LocalSet::new();
        let shared = Rc::new(20);
        let outside = {
            let shared = shared.clone();
            Builder::new()
                .name("queued before the set runs")
                .spawn_local_on(async move { *shared + 1 }, &local)
                .unwrap()
        };
        let sum = local.block_on(&rt, async move {
            let shared2 = shared.clone();
            let inside = Builder::new()
                .name("inside")
                .spawn_local(async move { *shared2 * 2 })
                .unwrap();
            inside.await.unwrap() + outside.await.unwrap()
        });
        assert_eq!(sum, 61);
    });
}

#[test]
fn builder_spawn_on_a_shut_down_runtime_yields_a_cancelled_task() {
    each_runtime(|_, rt| {
        let handle = rt.handle().clone();
        drop(rt);
        let task = Builder::new()
            .name("late")
            .spawn_on(async { 1 }, &handle)
            .unwrap();
        let outer = rt::runtime::Builder::new_current_thread().build().unwrap();
        let err = outer.block_on(task).unwrap_err();
        assert!(err.is_cancelled(), "{err}");
    });
}
