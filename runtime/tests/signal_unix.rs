//! Signals delivered to the process reach every listener, on both
//! schedulers. Each test uses its own signal: tests in this binary run
//! concurrently and signals are process-wide.

mod support;

use support::{Kind, runtimes, spawn_all_waiting};

use rt::runtime::{Builder, Handle};
use rt::signal::unix::{SignalKind, signal};
use std::collections::HashSet;
use std::ffi::OsString;
use std::path::PathBuf;

fn raise(signum: libc::c_int) {
    // SAFETY: raise(2) has no preconditions; a handler is installed for
    // every signal these tests raise, so the process is not terminated.
    let rc = unsafe { libc::raise(signum) };
    assert_eq!(rc, 0, "raise({signum}) failed");
}

/// The descriptors this process has open, each with what it refers to
/// (a socket by its inode). Other tests in this binary open and close
/// theirs concurrently, so only a large difference in number means
/// anything.
fn open_descriptors() -> HashSet<(OsString, PathBuf)> {
    std::fs::read_dir("/proc/self/fd")
        .expect("listing /proc/self/fd")
        .filter_map(|entry| {
            let entry = entry.ok()?;
            // Gone since the listing (another test closed it): not open.
            let target = std::fs::read_link(entry.path()).ok()?;
            Some((entry.file_name(), target))
        })
        .collect()
}

/// The reactor registrations of the current runtime: exact, unlike
/// [`open_descriptors`], since no other test uses this runtime.
fn registrations() -> usize {
    Handle::current().metrics().io_driver_registrations()
}

#[test]
fn every_listener_sees_each_delivery() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let mut first = signal(SignalKind::user_defined1()).unwrap();
            let mut second = signal(SignalKind::user_defined1()).unwrap();
            let waiter = rt::spawn(async move {
                second.recv().await.unwrap();
                second
            });
            raise(libc::SIGUSR1);
            assert_eq!(first.recv().await, Some(()));
            let mut second = waiter.await.unwrap();

            // A second delivery is seen again by both.
            raise(libc::SIGUSR1);
            assert_eq!(first.recv().await, Some(()));
            assert_eq!(second.recv().await, Some(()));
        });
    }
}

#[test]
fn listener_in_a_task_is_woken_from_another_thread() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let mut listener = signal(SignalKind::user_defined2()).unwrap();
            let (ready_tx, ready_rx) = std::sync::mpsc::channel::<()>();
            let raiser = std::thread::spawn(move || {
                ready_rx.recv().unwrap();
                raise(libc::SIGUSR2);
            });
            ready_tx.send(()).unwrap();
            assert_eq!(listener.recv().await, Some(()));
            raiser.join().unwrap();
        });
    }
}

#[test]
fn ctrl_c_completes_on_sigint() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let ctrl_c = rt::spawn(rt::signal::ctrl_c());
            // `ctrl_c` only listens once its task is first polled, so raise
            // until it has seen one. `guard` installs the handler before
            // the first raise (so SIGINT never kills the test) and tells us
            // each raise was delivered.
            let mut guard = signal(SignalKind::interrupt()).unwrap();
            while !ctrl_c.is_finished() {
                raise(libc::SIGINT);
                guard.recv().await.unwrap();
                rt::task::yield_now().await;
            }
            ctrl_c.await.unwrap().unwrap();
        });
    }
}

/// Polls `future` once, from inside a task.
async fn poll_once<F: std::future::Future + Unpin>(future: &mut F) -> std::task::Poll<F::Output> {
    std::future::poll_fn(|cx| std::task::Poll::Ready(std::pin::Pin::new(&mut *future).poll(cx)))
        .await
}

#[test]
fn ctrl_c_outliving_its_runtime_waits_on_the_next_one() {
    // As tokio's: once listening, `ctrl_c` completes on a Ctrl-C, never
    // with an error, even when awaited after its runtime is gone (here on
    // another runtime, which it listens on from then on).
    for (_, first) in runtimes() {
        let mut ctrl_c = loop {
            let mut ctrl_c = Box::pin(rt::signal::ctrl_c());
            // Ready only if another test's SIGINT came in: try again.
            if first.block_on(poll_once(&mut ctrl_c)).is_pending() {
                break ctrl_c;
            }
        };
        drop(first);
        let second = Builder::new_current_thread().enable_all().build().unwrap();
        second.block_on(async {
            if let std::task::Poll::Ready(early) = poll_once(&mut ctrl_c).await {
                // Another test's SIGINT, seen already.
                return early.unwrap();
            }
            // The handler is installed (since the first poll), so SIGINT
            // does not end the process.
            raise(libc::SIGINT);
            ctrl_c.await.unwrap();
        });
    }
}

#[test]
fn unhandleable_signals_are_errors() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            for signum in [
                libc::SIGKILL,
                libc::SIGSTOP,
                libc::SIGSEGV,
                libc::SIGILL,
                libc::SIGFPE,
                0,
                -3,
                100_000,
            ] {
                let err = signal(SignalKind::from_raw(signum)).unwrap_err();
                // tokio's kind for a signal it refuses (and for one past
                // its table): `Other`.
                assert_eq!(err.kind(), std::io::ErrorKind::Other, "{err}");
                assert!(err.to_string().contains(&signum.to_string()), "{err}");
            }
        });
    }
}

#[test]
fn runtime_shutdown_ends_the_stream() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let mut listener = rt.block_on(async { signal(SignalKind::window_change()).unwrap() });
    drop(rt);
    let other = Builder::new_current_thread().build().unwrap();
    assert_eq!(other.block_on(listener.recv()), None);
}

#[test]
#[should_panic(expected = "enable_io")]
fn signal_without_io_panics_naming_the_fix() {
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let _ = signal(SignalKind::user_defined1());
    });
}

#[test]
fn sigio_by_name_or_number_is_delivered() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let kind = SignalKind::from(libc::SIGIO);
            assert_eq!(kind, SignalKind::io());
            assert_eq!(libc::c_int::from(kind), libc::SIGIO);
            let mut deliveries = signal(kind).unwrap();
            raise(libc::SIGIO);
            assert_eq!(deliveries.recv().await, Some(()));
        });
    }
}

/// A delivery made while no listener for its signal exists (between one
/// listener's drop and the next one's creation) is received by the next
/// listener, as in tokio; one a listener has received is not received
/// again by a later one.
#[test]
fn a_delivery_between_listeners_reaches_the_next_one() {
    use futures::FutureExt;

    let signum = libc::SIGRTMIN() + 4;
    let kind = SignalKind::from_raw(signum);
    for (name, rt) in runtimes() {
        rt.block_on(async {
            drop(signal(kind).unwrap());
            raise(signum);
            let mut next = signal(kind).unwrap();
            assert_eq!(next.recv().now_or_never(), Some(Some(())), "on {name:?}");
            let mut later = signal(kind).unwrap();
            assert_eq!(
                later.recv().now_or_never(),
                None,
                "already received, on {name:?}"
            );
            // Both see the next delivery.
            raise(signum);
            assert_eq!(next.recv().await, Some(()));
            assert_eq!(later.recv().await, Some(()));
        });
    }
}

/// Listeners of one signal on one runtime share one pipe and one reactor
/// registration: a listener per connection (`select!` on `ctrl_c()`)
/// costs no descriptor, and the last one dropped closes the pipe.
#[test]
fn many_listeners_of_one_signal_share_one_pipe() {
    let kind = SignalKind::from_raw(libc::SIGRTMIN() + 5);
    for (name, rt) in runtimes() {
        rt.block_on(async {
            let before = open_descriptors();
            let registered = registrations();
            let listeners: Vec<_> = (0..1000).map(|_| signal(kind).unwrap()).collect();
            let with_listeners = open_descriptors();
            // A pipe per listener would be 2000 descriptors; the runtimes
            // and pipes of the tests running beside this one come and go,
            // hence the loose bound (the registrations count exactly).
            let opened = with_listeners.len().saturating_sub(before.len());
            assert!(
                opened < 100,
                "1000 listeners opened {opened} descriptors, on {name}"
            );
            assert_eq!(registrations(), registered + 1, "on {name}");

            drop(listeners);
            assert_eq!(registrations(), registered, "pipe kept, on {name}");
            // The pipe's two sockets are among the new descriptors, and
            // closed now; others' may be either.
            let after = open_descriptors();
            let new = with_listeners.difference(&before);
            let still_open = new.clone().filter(|fd| after.contains(*fd)).count();
            assert!(
                still_open + 2 <= new.count(),
                "the pipe's descriptors stayed open, on {name}"
            );
        });
    }
}

/// One delivery wakes every waiting listener of a shared pipe, not only
/// the one that drained it.
#[test]
fn one_delivery_wakes_every_waiting_listener() {
    let signum = libc::SIGRTMIN() + 6;
    for (name, rt) in runtimes() {
        rt.block_on(async {
            let waiting = (0..1000).map(|_| {
                let mut listener = signal(SignalKind::from_raw(signum)).unwrap();
                async move { listener.recv().await }
            });
            let tasks = spawn_all_waiting(waiting.collect()).await;
            raise(signum);
            for task in tasks {
                assert_eq!(task.await.unwrap(), Some(()), "on {name}");
            }
        });
    }
}

/// Listeners dropped while waiting (the first one among them, whose
/// creation opened the pipe) leave the others waiting on it.
#[test]
fn listeners_dropped_while_others_wait_leave_them_waiting() {
    use futures::FutureExt;

    let signum = libc::SIGRTMIN() + 7;
    let kind = SignalKind::from_raw(signum);
    for (name, rt) in runtimes() {
        rt.block_on(async {
            let waiting = (0..10).map(|_| {
                let mut listener = signal(kind).unwrap();
                async move { listener.recv().await }
            });
            let tasks = spawn_all_waiting(waiting.collect()).await;
            let mut polled_then_dropped = signal(kind).unwrap();
            assert_eq!(polled_then_dropped.recv().now_or_never(), None);
            drop(polled_then_dropped);
            let (dropped, kept): (Vec<_>, Vec<_>) = tasks
                .into_iter()
                .enumerate()
                .partition(|(index, _)| index % 2 == 0);
            for (_, task) in dropped {
                task.abort();
                assert!(task.await.unwrap_err().is_cancelled(), "on {name}");
            }

            raise(signum);
            for (_, task) in kept {
                assert_eq!(task.await.unwrap(), Some(()), "on {name}");
            }
        });
    }
}

/// Each runtime has its own pipe for a signal, and a delivery reaches the
/// listeners of both.
#[test]
fn listeners_on_two_runtimes_each_receive_a_delivery() {
    let signum = libc::SIGRTMIN() + 8;
    let kind = SignalKind::from_raw(signum);
    let runtimes = [Kind::MultiThread(2).build(), Kind::MultiThread(2).build()];
    let tasks: Vec<_> = runtimes
        .iter()
        .map(|rt| {
            rt.block_on(async {
                let registered = registrations();
                let waiting = (0..3).map(|_| {
                    let mut listener = signal(kind).unwrap();
                    async move { listener.recv().await }
                });
                let tasks = spawn_all_waiting(waiting.collect()).await;
                assert_eq!(registrations(), registered + 1, "one pipe per runtime");
                tasks
            })
        })
        .collect();

    raise(signum);
    for (rt, tasks) in runtimes.iter().zip(tasks) {
        for task in tasks {
            assert_eq!(rt.block_on(task).unwrap(), Some(()));
        }
    }
}
