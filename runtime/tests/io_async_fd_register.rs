//! `AsyncFd::register` and `register_with_interest` (tokio's constructors
//! that take the value over and hand it back on failure, in
//! `AsyncFdRegisterError`), with tokio's `io_async_fd` tests that use them
//! ported; and the case that made tokio's safe constructors unsound, a
//! descriptor closed while a duplicate keeps it in the poller, which rt's
//! stay sound under. On both schedulers.

mod support;

use futures::FutureExt;
use rt::io::unix::{AsyncFd, AsyncFdRegisterError};
use rt::io::{AsyncFdTryNewError, Interest};
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use support::on_both;

/// A non-blocking Unix stream pair.
fn socketpair() -> (UnixStream, UnixStream) {
    let (a, b) = UnixStream::pair().unwrap();
    a.set_nonblocking(true).unwrap();
    b.set_nonblocking(true).unwrap();
    (a, b)
}

/// Reads and discards `amount` bytes from `fd`.
fn drain(mut fd: &UnixStream, mut amount: usize) {
    let mut buf = [0u8; 512];
    while amount > 0 {
        match fd.read(&mut buf[..amount.min(512)]) {
            Ok(0) => panic!("unexpected end of file"),
            Ok(n) => amount -= n,
            Err(e) if e.kind() == ErrorKind::WouldBlock => std::thread::yield_now(),
            Err(e) => panic!("{e}"),
        }
    }
}

/// A value whose descriptor is not one: registering it fails.
#[derive(Debug)]
struct InvalidSource;

impl AsRawFd for InvalidSource {
    fn as_raw_fd(&self) -> RawFd {
        -1
    }
}

/// An `Arc` around a descriptor owner: dropping the `AsyncFd` drops one
/// reference, not the descriptor.
#[derive(Debug)]
struct ArcFd<T>(Arc<T>);

impl<T: AsRawFd> AsRawFd for ArcFd<T> {
    fn as_raw_fd(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}

/// tokio's `initially_writable`: both ends are writable, neither readable.
#[test]
fn initially_writable() {
    on_both(|| async {
        let (a, b) = socketpair();
        let a = AsyncFd::register(a).unwrap();
        let b = AsyncFd::register(b).unwrap();
        a.writable().await.unwrap().clear_ready();
        b.writable().await.unwrap().clear_ready();
        assert!(a.readable().now_or_never().is_none());
        assert!(b.readable().now_or_never().is_none());
    });
}

/// tokio's `reset_readable`: readiness stays until a `WouldBlock` or an
/// explicit `clear_ready`, and a new write brings it back.
#[test]
fn reset_readable() {
    on_both(|| async {
        let (a, mut b) = socketpair();
        let a = AsyncFd::register(a).unwrap();
        assert!(a.readable().now_or_never().is_none());

        b.write_all(b"0").unwrap();
        let mut guard = a.readable().await.unwrap();
        guard
            .try_io(|fd| fd.get_ref().read(&mut [0]))
            .unwrap()
            .unwrap();
        // Nothing is left to read, but no read has said so yet: the
        // reactor still reports the readiness.
        a.readable().now_or_never().unwrap().unwrap().retain_ready();
        guard.clear_ready();
        assert!(a.readable().now_or_never().is_none());

        b.write_all(b"0").unwrap();
        a.readable().await.unwrap().clear_ready();
    });
}

/// tokio's `reset_writable`: writing until `WouldBlock` clears the write
/// readiness; the peer's read brings it back.
#[test]
fn reset_writable() {
    on_both(|| async {
        let (a, b) = socketpair();
        let a = AsyncFd::register(a).unwrap();
        let mut guard = a.writable().await.unwrap();
        let mut bytes = 0;
        while let Ok(Ok(n)) = guard.try_io(|fd| fd.get_ref().write(&[0; 512])) {
            bytes += n;
        }
        assert!(a.writable().now_or_never().is_none());
        drain(&b, bytes);
        a.writable().await.unwrap().retain_ready();
    });
}

/// tokio's `drop_closes`: dropping the `AsyncFd` drops (closes) the value;
/// `into_inner` hands it back open; an `Arc`'d owner stays open.
#[test]
fn drop_closes() {
    on_both(|| async {
        let (a, mut b) = socketpair();
        let a = AsyncFd::register(a).unwrap();
        assert_eq!(b.read(&mut [0]).unwrap_err().kind(), ErrorKind::WouldBlock);
        drop(a);
        assert_eq!(b.read(&mut [0]).unwrap(), 0);

        let (a, mut b) = socketpair();
        let a = AsyncFd::register(a).unwrap();
        let _a: UnixStream = a.into_inner();
        assert_eq!(b.read(&mut [0]).unwrap_err().kind(), ErrorKind::WouldBlock);

        let (a, mut b) = socketpair();
        let shared = Arc::new(a);
        let a = AsyncFd::register(ArcFd(shared.clone())).unwrap();
        drop(a);
        assert_eq!(b.read(&mut [0]).unwrap_err().kind(), ErrorKind::WouldBlock);
        drop(shared);
    });
}

/// tokio's `reregister`: `into_inner` deregisters, so the value registers
/// again.
#[test]
fn reregister() {
    on_both(|| async {
        let (a, _b) = socketpair();
        let a = AsyncFd::register(a).unwrap().into_inner();
        AsyncFd::register(a).unwrap();
    });
}

/// tokio's `register_error`, `register_with_interest_error`, `try_new`
/// and `try_with_interest`: a failed registration hands back the very
/// value it was given.
#[test]
fn failed_registrations_hand_the_value_back() {
    on_both(|| async {
        let original = Arc::new(InvalidSource);
        let check = |error: AsyncFdRegisterError<Arc<InvalidSource>>| {
            let (returned, cause) = error.into_parts();
            assert!(Arc::ptr_eq(&original, &returned));
            assert_eq!(cause.raw_os_error(), Some(libc::EBADF));
        };
        check(AsyncFd::register(original.clone()).unwrap_err());
        check(AsyncFd::register_with_interest(original.clone(), Interest::READABLE).unwrap_err());
        check(AsyncFd::try_new(original.clone()).unwrap_err());
        check(AsyncFd::try_with_interest(original.clone(), Interest::READABLE).unwrap_err());
    });
}

/// The error says what failed, exposes its cause, and converts to the
/// `io::Error` (dropping the value); `AsyncFdTryNewError` is its old name.
#[test]
fn the_register_error_is_an_error() {
    on_both(|| async {
        let error: AsyncFdTryNewError<InvalidSource> =
            AsyncFd::register(InvalidSource).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("registering the descriptor"), "{text}");
        assert!(format!("{error:?}").starts_with("AsyncFdRegisterError"));
        let source = std::error::Error::source(&error).expect("the cause is the source");
        assert!(
            source.to_string().contains("Bad file descriptor"),
            "{source}"
        );
        let io: std::io::Error = error.into();
        assert_eq!(io.raw_os_error(), Some(libc::EBADF));
    });
}

/// tokio's `drop_after_closing_raw_fd_with_live_duplicate`, the case that
/// made tokio's safe constructors unsound: a registered descriptor is
/// closed while a duplicate keeps its file description in the poller, so
/// the `AsyncFd`'s deregistration fails and the poller goes on reporting
/// events under its token. In rt that token names a retired cell: the
/// events reach nobody, and a socket registered afterwards sees only its
/// own readiness.
#[test]
fn a_closed_descriptor_whose_duplicate_stays_in_the_poller_is_harmless() {
    on_both(|| async {
        let (original, mut peer) = socketpair();
        let duplicate = original.try_clone().unwrap();
        let registered = AsyncFd::register_with_interest(original.as_raw_fd(), Interest::READABLE)
            .expect("a raw descriptor registers");
        drop(original);
        drop(registered);

        let (fresh, _fresh_peer) = socketpair();
        let fresh = AsyncFd::register(fresh).unwrap();
        let (control, mut control_peer) = socketpair();
        let control = AsyncFd::register(control).unwrap();
        // The stale event is queued before the control's, so the reactor
        // has dispatched it by the time the control is readable.
        peer.write_all(b"x").unwrap();
        control_peer.write_all(b"y").unwrap();
        control.readable().await.unwrap().retain_ready();
        assert!(
            fresh.readable().now_or_never().is_none(),
            "the stale descriptor's event reached another socket"
        );
        drop(duplicate);
    });
}

/// A regular file, and a descriptor registered twice: the error keeps the
/// OS error (and its number) and says what to do instead.
#[test]
fn the_register_error_names_the_fix_for_common_misuse() {
    on_both(|| async {
        let file = std::fs::File::open("Cargo.toml").unwrap();
        let error = AsyncFd::register(file).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("Operation not permitted"), "{text}");
        assert!(text.contains("`rt::fs`"), "{text}");
        assert_eq!(error.into_parts().1.raw_os_error(), Some(libc::EPERM));

        let (a, _b) = socketpair();
        let first = AsyncFd::register(a.as_raw_fd()).unwrap();
        let error = AsyncFd::register(a.as_raw_fd()).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("File exists"), "{text}");
        assert!(text.contains("already registered"), "{text}");
        assert_eq!(error.into_parts().1.raw_os_error(), Some(libc::EEXIST));
        drop(first);
    });
}
