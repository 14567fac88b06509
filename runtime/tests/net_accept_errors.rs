//! `accept` failing with EMFILE (out of descriptors) is an error for that
//! call only: the listener keeps its readiness and accepts once
//! descriptors are free again. Alone in its binary because it lowers the
//! process-wide descriptor limit.

mod support;

use rt::net::{TcpListener, TcpStream};

/// The lowest free descriptor number: with the soft limit set to it, the
/// next descriptor allocation fails with EMFILE.
fn lowest_free_fd() -> u64 {
    use std::os::fd::AsRawFd;
    let probe = std::fs::File::open("/dev/null").unwrap();
    probe.as_raw_fd() as u64
}

#[test]
fn emfile_on_accept_does_not_kill_the_listener() {
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
