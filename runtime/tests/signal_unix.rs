//! Signals delivered to the process reach every listener, on both
//! schedulers. Each test uses its own signal: tests in this binary run
//! concurrently and signals are process-wide.

mod support;

use support::runtimes;

use rt::runtime::Builder;
use rt::signal::unix::{SignalKind, signal};

fn raise(signum: libc::c_int) {
    // SAFETY: raise(2) has no preconditions; a handler is installed for
    // every signal these tests raise, so the process is not terminated.
    let rc = unsafe { libc::raise(signum) };
    assert_eq!(rc, 0, "raise({signum}) failed");
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

#[test]
fn unhandleable_signals_are_errors() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            for signum in [libc::SIGKILL, libc::SIGSTOP, libc::SIGSEGV, 0, -3, 100_000] {
                let err = signal(SignalKind::from_raw(signum)).unwrap_err();
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
