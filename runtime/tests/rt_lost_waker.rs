//! A task whose future returned `Pending` with no waker of it left
//! anywhere will never be polled again: the task dump says so
//! (`TaskSnapshot::has_lost_waker`, a `no waker:` line), and nothing else
//! is taken for it: a task waiting on anything that keeps its waker
//! (rt's channels, locks, timers, sockets and `JoinHandle`s, another
//! crate's channel, a plain thread) is not, whatever its `JoinHandle`s and
//! `AbortHandle`s. (The watchdog's report of such a poll is tested in
//! `rt_watchdog.rs`.) Every state is reached through channels and turns
//! of `block_on(yield_now())` that watch the dump, never a sleep.

mod support;

use rt::io::AsyncReadExt;
use rt::net::{TcpListener, TcpStream};
use rt::runtime::{Runtime, TaskSnapshot, TaskState};
use rt::sync::{Mutex, Notify, mpsc, oneshot};
use rt::task::{Id, JoinSet, LocalSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use support::{DropCounter, Forgetful, Kind};

const KINDS: [Kind; 2] = [Kind::CurrentThread, Kind::MultiThread(2)];

/// Hands its waker to whoever holds the receiving end, once, and is
/// ready when polled again.
struct HandsOverItsWaker {
    to: Option<std::sync::mpsc::Sender<Waker>>,
}

impl Future for HandsOverItsWaker {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match self.to.take() {
            Some(to) => {
                to.send(cx.waker().clone()).unwrap();
                Poll::Pending
            }
            None => Poll::Ready(()),
        }
    }
}

/// Drives `rt` until the dump shows each task of `ids` idle, and returns
/// their snapshots in that order.
fn idle(rt: &Runtime, ids: &[Id]) -> Vec<TaskSnapshot> {
    for _ in 0..100_000 {
        let dump = rt.handle().dump();
        let found: Vec<TaskSnapshot> = ids
            .iter()
            .filter_map(|&id| dump.iter().find(|task| task.id() == id).cloned())
            .filter(|task| task.state() == TaskState::Idle)
            .collect();
        if found.len() == ids.len() {
            return found;
        }
        rt.block_on(rt::task::yield_now());
        std::thread::yield_now();
    }
    panic!(
        "tasks {ids:?} never all showed idle:\n{}",
        rt.handle().dump()
    );
}

/// The dump's line for task `id`, with the lines under it.
fn dump_entry(rt: &Runtime, id: Id) -> String {
    let dump = rt.handle().dump().to_string();
    let mut lines = dump
        .lines()
        .skip_while(|line| line.split_whitespace().next() != Some(id.to_string().as_str()));
    let row = lines
        .next()
        .unwrap_or_else(|| panic!("task {id} not in:\n{dump}"));
    let under: Vec<&str> = lines
        .take_while(|line| line.starts_with("          "))
        .collect();
    format!("{row}\n{}", under.join("\n"))
}

#[test]
fn a_task_that_kept_no_waker_is_shown_lost_on_both_schedulers() {
    for kind in KINDS {
        let rt = kind.build();
        let drops = DropCounter::new();
        let kept = rt.spawn(Forgetful(drops.guard()));
        let detached = rt.spawn(Forgetful(drops.guard())).id();
        let tasks = idle(&rt, &[kept.id(), detached]);
        assert!(tasks.iter().all(TaskSnapshot::has_lost_waker), "{kind:?}");
        let entry = dump_entry(&rt, kept.id());
        assert!(
            entry.contains("no waker: nothing can wake this task, it will not be polled again"),
            "{kind:?}: {entry}"
        );
        // Nothing but an abort moves it; that still works.
        kept.abort();
        assert!(rt.block_on(kept).unwrap_err().is_cancelled());
        assert_eq!(drops.dropped(), 1);
        drop(rt);
        assert_eq!(drops.alive(), 0);
    }
}

#[test]
fn a_local_set_task_that_kept_no_waker_is_shown_lost() {
    for kind in KINDS {
        let rt = kind.build();
        let local = LocalSet::new();
        let drops = DropCounter::new();
        let lost = local.spawn_local(Forgetful(drops.guard()));
        let (_tx, rx) = oneshot::channel::<()>();
        let waiting = local.spawn_local(rx);
        let id = lost.id();
        local.block_on(&rt, async {
            for _ in 0..100 {
                rt::task::yield_now().await;
            }
        });
        let dump = rt.handle().dump();
        let task = |id| dump.iter().find(|task| task.id() == id).unwrap();
        assert!(task(id).has_lost_waker(), "{kind:?}:\n{dump}");
        assert!(!task(waiting.id()).has_lost_waker(), "{kind:?}:\n{dump}");
        drop(local);
        assert_eq!(drops.alive(), 0);
    }
}

/// Every way to wait that keeps the waker somewhere, on one runtime,
/// beside a task that lost its own (so the check is known to run): none
/// of the waiting tasks is taken for lost.
#[test]
fn tasks_whose_waker_is_kept_anywhere_are_not_shown_lost() {
    for kind in KINDS {
        let rt = kind.build();
        let drops = DropCounter::new();
        let lost = rt.spawn(Forgetful(drops.guard()));
        let (_oneshot_tx, oneshot_rx) = oneshot::channel::<()>();
        let (_mpsc_tx, mut mpsc_rx) = mpsc::channel::<()>(1);
        let (_futures_tx, futures_rx) = futures::channel::oneshot::channel::<()>();
        let mutex = Arc::new(Mutex::new(()));
        let guard = rt.block_on(mutex.clone().lock_owned());
        let notify = Arc::new(Notify::new());
        let listener = rt.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
        let address = listener.local_addr().unwrap();
        let (client, server) = rt.block_on(async {
            let client = TcpStream::connect(address);
            let (client, accepted) = futures::join!(client, listener.accept());
            (client.unwrap(), accepted.unwrap().0)
        });
        let (to_thread, from_task) = std::sync::mpsc::channel();
        let (release_thread, released) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let waker: Waker = from_task.recv().unwrap();
            released.recv().unwrap();
            waker.wake();
        });
        let mut set = JoinSet::new();
        set.spawn_on(Forgetful(drops.guard()), rt.handle());
        let ids = vec![
            rt.spawn(oneshot_rx).id(),
            rt.spawn(async move { mpsc_rx.recv().await }).id(),
            rt.spawn(futures_rx).id(),
            rt.spawn(async move { drop(mutex.lock().await) }).id(),
            rt.spawn({
                let notify = notify.clone();
                async move { notify.notified().await }
            })
            .id(),
            rt.spawn(async { rt::time::sleep(Duration::from_secs(3600)).await })
                .id(),
            rt.spawn(async move { listener.accept().await.map(drop) })
                .id(),
            rt.spawn(async move {
                let mut server = server;
                server.read(&mut [0; 1]).await
            })
            .id(),
            rt.spawn(async move {
                rt::select! {
                    _ = rt::time::sleep(Duration::from_secs(3600)) => {}
                    _ = std::future::pending::<()>() => {}
                }
            })
            .id(),
            // The join side of a task that lost its waker keeps its own.
            rt.spawn(async move { set.join_next().await.map(drop) })
                .id(),
            rt.spawn(HandsOverItsWaker {
                to: Some(to_thread),
            })
            .id(),
        ];
        let mut all = ids.clone();
        all.push(lost.id());
        let tasks = idle(&rt, &all);
        let (waiting, lost_one) = tasks.split_at(ids.len());
        assert!(lost_one[0].has_lost_waker(), "{kind:?}");
        for task in waiting {
            assert!(
                !task.has_lost_waker(),
                "{kind:?}: task {} (spawned at {}) shown lost:\n{}",
                task.id(),
                task.location(),
                rt.handle().dump()
            );
            assert!(!dump_entry(&rt, task.id()).contains("no waker"));
        }
        release_thread.send(()).unwrap();
        thread.join().unwrap();
        drop((guard, client));
        drop(rt);
        assert_eq!(drops.alive(), 0);
    }
}

/// A task is lost once the last holder of its waker drops it without
/// waking it (a plain thread here), not before; a wake through another
/// clone before that runs it as usual.
#[test]
fn a_task_is_lost_when_the_last_holder_drops_its_waker() {
    for kind in KINDS {
        let rt = kind.build();
        let (to_test, wakers) = std::sync::mpsc::channel();
        let task = rt.spawn(HandsOverItsWaker { to: Some(to_test) });
        assert!(!idle(&rt, &[task.id()])[0].has_lost_waker());
        let waker = wakers.recv().unwrap();
        let copy = waker.clone();
        drop(waker);
        assert!(!idle(&rt, &[task.id()])[0].has_lost_waker(), "{kind:?}");
        drop(copy);
        assert!(idle(&rt, &[task.id()])[0].has_lost_waker(), "{kind:?}");
        task.abort();
        assert!(rt.block_on(task).unwrap_err().is_cancelled());
    }
}

/// `AbortHandle`s and `JoinHandle`s are told from wakers: a task that
/// lost its waker is shown lost however many abort handles (up to 255)
/// are alive, with or without its `JoinHandle`; past 255 it is not shown
/// (the documented blind spot), and is once they are dropped again. An
/// abort through the last handle still ends it.
#[test]
fn abort_handles_are_not_taken_for_wakers() {
    for kind in KINDS {
        let rt = kind.build();
        let drops = DropCounter::new();
        let task = rt.spawn(Forgetful(drops.guard()));
        let id = task.id();
        let first = task.abort_handle();
        let mut aborts: Vec<_> = (0..254).map(|_| first.clone()).collect();
        aborts.push(first);
        assert!(idle(&rt, &[id])[0].has_lost_waker(), "{kind:?}");
        drop(task);
        assert!(idle(&rt, &[id])[0].has_lost_waker(), "{kind:?}");
        let more: Vec<_> = (0..45).map(|_| aborts[0].clone()).collect();
        aborts.extend(more);
        assert!(
            !idle(&rt, &[id])[0].has_lost_waker(),
            "{kind:?}: 300 handles"
        );
        aborts.truncate(1);
        assert!(idle(&rt, &[id])[0].has_lost_waker(), "{kind:?}");
        aborts.pop().unwrap().abort();
        support::wait_until("the aborted task ended", || {
            rt.block_on(rt::task::yield_now());
            drops.dropped() == 1
        });
        assert!(rt.handle().dump().is_empty(), "{kind:?}");
    }
}
