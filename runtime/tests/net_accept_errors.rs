//! `accept` failing with EMFILE (out of descriptors) is an error for that
//! call only: the listener keeps its readiness and accepts once
//! descriptors are free again. Alone in its binary because it lowers the
//! process-wide descriptor limit (and its tests take turns at it).

mod support;

use rt::net::{TcpListener, TcpStream};
use std::sync::{Mutex, MutexGuard};

/// Held by each test while it changes the descriptor limit.
static FD_LIMIT: Mutex<()> = Mutex::new(());

fn fd_limit() -> MutexGuard<'static, ()> {
    FD_LIMIT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The lowest free descriptor number: with the soft limit set to it, the
/// next descriptor allocation fails with EMFILE.
fn lowest_free_fd() -> u64 {
    use std::os::fd::AsRawFd;
    let probe = std::fs::File::open("/dev/null").unwrap();
    probe.as_raw_fd() as u64
}

#[test]
fn emfile_on_accept_does_not_kill_the_listener() {
    let _turn = fd_limit();
    let original = support::raise_fd_limit();
    for (name, rt) in support::runtimes() {
        eprintln!("-- on the {name} scheduler");
        rt.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            // The kernel completes the handshake into the backlog; accept
            // will need one more descriptor.
            let pending = std::net::TcpStream::connect(addr).unwrap();

            support::set_soft_fd_limit(lowest_free_fd());
            let err = listener.accept().await.unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::EMFILE), "{err}");
            // Still out of descriptors: still an error, not a hang.
            let err = listener.accept().await.unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::EMFILE), "{err}");
            support::set_soft_fd_limit(original);

            let (stream, peer) = listener.accept().await.unwrap();
            assert_eq!(peer, pending.local_addr().unwrap());
            drop(stream);
            // And later connections are accepted as usual.
            let client = rt::spawn(async move { TcpStream::connect(addr).await.unwrap() });
            let (_stream, peer) = listener.accept().await.unwrap();
            assert_eq!(peer, client.await.unwrap().local_addr().unwrap());
        });
    }
}

/// An accept loop that retries at once on EMFILE (no back-off) gets the
/// error on every call and does not keep its worker from the other tasks:
/// each error spends a unit of budget, so the loop yields. Once
/// descriptors are free, the same loop accepts the waiting connection.
/// (tokio's accept behaves the same: the error each call, readiness kept.)
#[test]
fn an_accept_loop_spinning_on_emfile_shares_its_worker() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    let _turn = fd_limit();
    let original = support::raise_fd_limit();
    // One worker, so the loop and the other task share it.
    for (name, rt) in [
        ("current_thread", support::Kind::CurrentThread.build()),
        ("multi_thread(1)", support::Kind::MultiThread(1).build()),
    ] {
        eprintln!("-- on the {name} scheduler");
        rt.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let pending = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
            support::set_soft_fd_limit(lowest_free_fd());
            let errors = Arc::new(AtomicUsize::new(0));
            let accept_loop = rt::spawn({
                let errors = errors.clone();
                async move {
                    loop {
                        match listener.accept().await {
                            Ok((stream, peer)) => return (stream, peer),
                            Err(err) => {
                                assert_eq!(err.raw_os_error(), Some(libc::EMFILE), "{err}");
                                errors.fetch_add(1, Ordering::SeqCst);
                            }
                        }
                    }
                }
            });
            // This task runs between the loop's polls: many errors, no
            // hang.
            while errors.load(Ordering::SeqCst) < 1000 {
                rt::task::yield_now().await;
            }
            support::set_soft_fd_limit(original);
            let (_stream, peer) = accept_loop.await.unwrap();
            assert_eq!(peer, pending.local_addr().unwrap());
        });
    }
}
