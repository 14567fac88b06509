//! Models of `LocalSet`: wakes from another thread reach the set's remote
//! queue, an abort from another thread leaves the future to the owning
//! thread, a remote wake racing the set's drop is safe, and a task dump
//! from another thread reads the set's tasks while they finish and the set
//! is dropped.
#![cfg(loom)]

use loom::sync::Arc;
use loom::sync::atomic::{AtomicUsize, Ordering};
use rt::runtime::Builder;
use rt::task::{LocalSet, spawn_local};
use rt_loom_tests::channel;
use std::rc::Rc;

/// Counts drops on the thread that created it, and fails on any other.
struct OwnerOnlyDrop {
    owner: loom::thread::ThreadId,
    drops: Arc<AtomicUsize>,
    _not_send: Rc<()>,
}

impl OwnerOnlyDrop {
    fn new(drops: &Arc<AtomicUsize>) -> OwnerOnlyDrop {
        OwnerOnlyDrop {
            owner: loom::thread::current().id(),
            drops: drops.clone(),
            _not_send: Rc::new(()),
        }
    }
}

impl Drop for OwnerOnlyDrop {
    fn drop(&mut self) {
        assert_eq!(
            loom::thread::current().id(),
            self.owner,
            "a local future was dropped off its thread"
        );
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn local_task_woken_from_another_thread() {
    loom::model(|| {
        let rt = Builder::new_current_thread().build().unwrap();
        let local = LocalSet::new();
        let (tx, rx) = channel();
        let sender = loom::thread::spawn(move || tx.send(20));
        let out = local.block_on(&rt, async move {
            let rc = Rc::new(1);
            spawn_local(async move { rx.await + *rc }).await.unwrap()
        });
        assert_eq!(out, 21);
        sender.join().unwrap();
    });
}

#[test]
fn abort_from_another_thread_drops_the_future_on_the_owner() {
    loom::model(|| {
        let rt = Builder::new_current_thread().build().unwrap();
        let local = LocalSet::new();
        let drops = Arc::new(AtomicUsize::new(0));
        let guard = OwnerOnlyDrop::new(&drops);
        let (_tx, rx) = channel::<()>();
        let task = local.spawn_local(async move {
            let _guard = guard;
            rx.await;
        });
        let abort = task.abort_handle();
        let aborter = loom::thread::spawn(move || abort.abort());
        let error = local.block_on(&rt, task).unwrap_err();
        assert!(error.is_cancelled());
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        aborter.join().unwrap();
    });
}

#[test]
fn remote_wake_races_dropping_the_set() {
    loom::model(|| {
        let rt = Builder::new_current_thread().build().unwrap();
        let local = LocalSet::new();
        let drops = Arc::new(AtomicUsize::new(0));
        let guard = OwnerOnlyDrop::new(&drops);
        let (tx, rx) = channel::<()>();
        let task = local.spawn_local(async move {
            let _guard = guard;
            rx.await;
        });
        // Park the task on the channel.
        local.block_on(&rt, async {});
        let sender = loom::thread::spawn(move || tx.send(()));
        drop(local);
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        sender.join().unwrap();
        drop(task);
    });
}

#[test]
fn dump_from_another_thread_races_the_task_finishing_and_the_set_dropping() {
    loom::model(|| {
        let rt = Builder::new_current_thread().build().unwrap();
        let local = LocalSet::new();
        let set_id = local.id();
        let (tx, rx) = channel::<()>();
        let task = local.spawn_local(async move {
            let _not_send = Rc::new(());
            rx.await;
        });
        // Park the task on the channel; the set joins `rt`'s list.
        local.block_on(&rt, async {});
        let handle = rt.handle().clone();
        let dumper = loom::thread::spawn(move || {
            let dump = handle.dump();
            assert!(dump.len() <= 1, "{dump}");
            for task in &dump {
                assert_eq!(task.local_set().map(|set| set.id()), Some(set_id));
            }
        });
        tx.send(());
        local.block_on(&rt, task).unwrap();
        drop(local);
        dumper.join().unwrap();
        assert!(rt.handle().dump().is_empty());
    });
}
