//! Review of de5825a (block_on lost waker, clones dropped later).

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::process::Command;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

fn in_child() -> bool {
    std::env::var_os("REVIEW_CHILD").is_some()
}

fn run_child(test: &str) -> (bool, String) {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env("REVIEW_CHILD", "1")
        .env("RT_DEBUG", "1")
        .output()
        .unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

struct Panicky;

impl Wake for Panicky {
    fn wake(self: Arc<Self>) {
        panic!("a user waker that panics when woken");
    }
}

/// A current-thread `block_on` that unwinds after a `Pending` poll (here:
/// a user waker on a `JoinHandle` panics when the task completes, in the
/// scheduler loop) while one clone of its waker is held elsewhere: the
/// unwinding `FutureWaker` drops its own waker, which `released` takes
/// for "the last clone" (count 2 -> 1), and reports a thread that "will
/// wait forever" though it is no longer in `block_on` at all.
#[test]
fn child_block_on_unwinds_after_pending_with_a_clone_held() {
    if !in_child() {
        return;
    }
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut handle = None;
        rt.block_on(poll_fn(|cx| {
            if handle.is_none() {
                let clone = cx.waker().clone();
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_secs(30));
                    drop(clone);
                });
                let mut task = rt::spawn(async {});
                let panicky = Waker::from(Arc::new(Panicky));
                assert!(
                    Pin::new(&mut task)
                        .poll(&mut Context::from_waker(&panicky))
                        .is_pending()
                );
                handle = Some(task);
            }
            Poll::<()>::Pending
        }));
    }));
    assert!(unwound.is_err());
    eprintln!("REVIEW: block_on has unwound");
    std::thread::sleep(Duration::from_millis(200));
    std::process::exit(0);
}

#[test]
fn a_block_on_that_unwound_is_not_reported_as_waiting_forever() {
    if in_child() {
        return;
    }
    let (ok, stderr) = run_child("child_block_on_unwinds_after_pending_with_a_clone_held");
    assert!(ok, "{stderr}");
    assert!(stderr.contains("REVIEW: block_on has unwound"), "{stderr}");
    assert!(
        !stderr.contains("no waker of it is left"),
        "false report:\n{stderr}"
    );
}

/// Nested `block_on` on one plain thread (an outer `block_on` future calls
/// `block_in_place`, whose closure calls `Handle::block_on`): both park on
/// the thread's one `PARKER`, so a wake of the outer future that lands
/// while the inner call parks is consumed by the inner call, and the outer
/// one then sleeps for good after its `Pending` poll, though its future
/// was woken during that poll (with the watchdog on, it is reported as a
/// lost waker, which it is not). Pre-existing; not from de5825a.
#[test]
fn child_nested_block_on_eats_the_outer_wake() {
    if !in_child() {
        return;
    }
    let rt = rt::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let handle = rt.handle().clone();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (tx, mut rx) = rt::sync::oneshot::channel::<u32>();
        let mut tx = Some(tx);
        let out = rt.block_on(poll_fn(move |cx| {
            if let Poll::Ready(value) = Pin::new(&mut rx).poll(cx) {
                return Poll::Ready(value.unwrap());
            }
            if let Some(tx) = tx.take() {
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(20));
                    tx.send(7).unwrap();
                });
                rt::task::block_in_place(|| {
                    handle.block_on(rt::time::sleep(Duration::from_millis(300)))
                });
            }
            Poll::Pending
        }));
        done.send(out).unwrap();
    });
    match finished.recv_timeout(Duration::from_secs(5)) {
        Ok(7) => eprintln!("REVIEW: outer block_on returned"),
        other => eprintln!("REVIEW: outer block_on hung ({other:?})"),
    }
    std::process::exit(0);
}

#[test]
fn a_wake_of_an_outer_block_on_during_a_nested_one_is_not_lost() {
    if in_child() {
        return;
    }
    let (ok, stderr) = run_child("child_nested_block_on_eats_the_outer_wake");
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("REVIEW: outer block_on returned"),
        "{stderr}"
    );
}
