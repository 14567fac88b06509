//! The readiness guards of `AsyncFd`: what a wait observed, to clear once
//! the operation would block.

use super::async_fd::AsyncFd;
use super::async_fd_errors::TryIoError;
use rt_reactor::{Ready, ReadyEvent, Registration};
use std::fmt;
use std::io;
use std::os::fd::AsRawFd;

/// The readiness one wait observed, shared by both guards.
#[derive(Clone, Copy)]
struct Observed(Option<ReadyEvent>);

impl Observed {
    fn ready(&self) -> Ready {
        self.0.map_or(Ready::EMPTY, |event| event.ready())
    }

    /// Forgets the states in `ready` (unless a newer event arrived), and
    /// stops reporting them.
    fn clear_matching(&mut self, registration: &Registration, ready: Ready) {
        if let Some(event) = self.0 {
            registration.clear_readiness(event.restricted_to(ready));
            let left = event.ready() - ready;
            self.0 = (!left.is_empty()).then(|| event.restricted_to(left));
        }
    }

    fn clear(&mut self, registration: &Registration) {
        self.clear_matching(registration, Ready::ALL);
    }

    /// `Err(TryIoError)` after clearing the readiness if `result` would
    /// block, otherwise `result`.
    fn settle<R>(
        &mut self,
        registration: &Registration,
        result: io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        match result {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.clear(registration);
                Err(TryIoError(()))
            }
            result => Ok(result),
        }
    }
}

/// The readiness returned by [`AsyncFd::readable`], [`AsyncFd::writable`]
/// and [`AsyncFd::ready`]. Dropping it keeps the readiness; call
/// [`clear_ready`](AsyncFdReadyGuard::clear_ready) (or use
/// [`try_io`](AsyncFdReadyGuard::try_io)) once the operation would block,
/// or [`retain_ready`](AsyncFdReadyGuard::retain_ready) to say that the
/// readiness is kept on purpose.
///
/// # Examples
///
/// See [`AsyncFd`].
///
/// ```
/// use rt::io::AsyncFd;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
///     a.set_nonblocking(true).unwrap();
///     let fd = AsyncFd::new(a).unwrap();
///     let mut guard = fd.writable().await.unwrap();
///     assert!(guard.ready().is_writable());
///     guard.retain_ready();
/// });
/// ```
#[must_use = "the readiness stays set unless cleared: call `clear_ready`, `try_io` or `retain_ready`"]
pub struct AsyncFdReadyGuard<'a, T: AsRawFd> {
    fd: &'a AsyncFd<T>,
    observed: Observed,
}

/// The readiness returned by [`AsyncFd::readable_mut`],
/// [`AsyncFd::writable_mut`] and [`AsyncFd::ready_mut`]: as
/// [`AsyncFdReadyGuard`], with mutable access to the `AsyncFd` (for an
/// inner value whose I/O methods take `&mut self`).
///
/// # Examples
///
/// ```
/// use rt::io::AsyncFd;
/// use std::io::Write;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
///     a.set_nonblocking(true).unwrap();
///     let mut fd = AsyncFd::new(a).unwrap();
///     let mut guard = fd.writable_mut().await.unwrap();
///     let n = guard.try_io(|fd| fd.get_mut().write(b"hi")).unwrap().unwrap();
///     assert_eq!(n, 2);
/// });
/// ```
#[must_use = "the readiness stays set unless cleared: call `clear_ready`, `try_io` or `retain_ready`"]
pub struct AsyncFdReadyMutGuard<'a, T: AsRawFd> {
    fd: &'a mut AsyncFd<T>,
    observed: Observed,
}

/// `new`, the methods that read or clear the observed readiness, and
/// `Debug`, for `$Guard<'a, T>` with the fields `fd: $fd` and
/// `observed: Observed`; each method with the docs the invocation gives.
macro_rules! readiness_methods {
    (
        $Guard:ident, $fd:ty;
        $(#[$ready:meta])* ready;
        $(#[$clear_ready:meta])* clear_ready;
        $(#[$clear_ready_matching:meta])* clear_ready_matching;
        $(#[$retain_ready:meta])* retain_ready;
    ) => {
        impl<'a, T: AsRawFd> $Guard<'a, T> {
            pub(super) fn new(fd: $fd, event: ReadyEvent) -> $Guard<'a, T> {
                $Guard {
                    fd,
                    observed: Observed(Some(event)),
                }
            }

            $(#[$ready])*
            pub fn ready(&self) -> Ready {
                self.observed.ready()
            }

            $(#[$clear_ready])*
            pub fn clear_ready(&mut self) {
                self.observed.clear(self.fd.registration());
            }

            $(#[$clear_ready_matching])*
            pub fn clear_ready_matching(&mut self, ready: Ready) {
                self.observed.clear_matching(self.fd.registration(), ready);
            }

            $(#[$retain_ready])*
            pub fn retain_ready(&mut self) {}
        }

        impl<T: AsRawFd + fmt::Debug> fmt::Debug for $Guard<'_, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($Guard))
                    .field("ready", &self.ready())
                    .finish_non_exhaustive()
            }
        }
    };
}

readiness_methods! {
    AsyncFdReadyGuard, &'a AsyncFd<T>;
    /// The readiness observed.
    ///
    /// # Examples
    ///
    /// See [`AsyncFd::writable`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     assert!(!fd.writable().await.unwrap().ready().is_readable());
    /// });
    /// ```
    ready;

    /// Forgets the readiness observed (unless a newer event arrived), so
    /// the next wait blocks until the OS reports readiness again. Call it
    /// after the operation returned `WouldBlock`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::{ErrorKind, Read, Write};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     a.set_nonblocking(true).unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     b.write_all(b"x").unwrap();
    ///     let mut guard = fd.readable().await.unwrap();
    ///     let mut buf = [0; 8];
    ///     assert_eq!(guard.get_inner().read(&mut buf).unwrap(), 1);
    ///     assert_eq!(guard.get_inner().read(&mut buf).unwrap_err().kind(), ErrorKind::WouldBlock);
    ///     guard.clear_ready();
    /// });
    /// ```
    clear_ready;

    /// Forgets the states in `ready` only (unless a newer event arrived):
    /// after a `ready(READABLE | WRITABLE)` whose write would block but
    /// whose read did not, clear `Ready::WRITABLE` and keep the rest.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{Interest, Ready};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let mut guard = fd.ready(Interest::WRITABLE).await.unwrap();
    ///     guard.clear_ready_matching(Ready::READABLE);
    ///     assert!(guard.ready().is_writable());
    ///     guard.clear_ready_matching(Ready::WRITABLE);
    ///     assert!(guard.ready().is_empty());
    /// });
    /// ```
    clear_ready_matching;

    /// Keeps the readiness: the next wait returns at once. Dropping the
    /// guard does the same; this says it on purpose (the operation did
    /// not block, or another task is to find the readiness).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     fd.writable().await.unwrap().retain_ready();
    ///     // Still writable: this wait does not block.
    ///     assert!(fd.writable().await.unwrap().ready().is_writable());
    /// });
    /// ```
    retain_ready;
}

impl<'a, T: AsRawFd> AsyncFdReadyGuard<'a, T> {
    /// Runs `op`; if it fails with `WouldBlock`, clears the readiness and
    /// returns `Err(TryIoError)` (wait again), otherwise returns its result.
    ///
    /// # Errors
    ///
    /// `Err(TryIoError)` when `op` would block.
    ///
    /// # Examples
    ///
    /// See [`AsyncFd`].
    ///
    /// ```
    /// use std::io::Write;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     a.set_nonblocking(true).unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let mut guard = fd.writable().await.unwrap();
    ///     let n = guard.try_io(|fd| fd.get_ref().write(b"hi")).unwrap().unwrap();
    ///     assert_eq!(n, 2);
    /// });
    /// ```
    pub fn try_io<R>(
        &mut self,
        op: impl FnOnce(&'a AsyncFd<T>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        let result = op(self.fd);
        self.observed.settle(self.fd.registration(), result)
    }

    /// The `AsyncFd` this guard belongs to.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let guard = fd.writable().await.unwrap();
    ///     assert!(std::ptr::eq(guard.get_ref(), &fd));
    /// });
    /// ```
    pub fn get_ref(&self) -> &'a AsyncFd<T> {
        self.fd
    }

    /// The value inside the `AsyncFd`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let guard = fd.writable().await.unwrap();
    ///     assert!(guard.get_inner().peer_addr().is_ok());
    /// });
    /// ```
    pub fn get_inner(&self) -> &'a T {
        self.fd.get_ref()
    }
}

readiness_methods! {
    AsyncFdReadyMutGuard, &'a mut AsyncFd<T>;
    /// The readiness observed.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     assert!(fd.writable_mut().await.unwrap().ready().is_writable());
    /// });
    /// ```
    ready;

    /// As [`AsyncFdReadyGuard::clear_ready`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::{ErrorKind, Read};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     a.set_nonblocking(true).unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let mut guard = fd.writable_mut().await.unwrap();
    ///     let err = guard.get_inner_mut().read(&mut [0; 4]).unwrap_err();
    ///     assert_eq!(err.kind(), ErrorKind::WouldBlock);
    ///     guard.clear_ready();
    ///     assert!(guard.ready().is_empty());
    /// });
    /// ```
    clear_ready;

    /// As [`AsyncFdReadyGuard::clear_ready_matching`].
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{Interest, Ready};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let mut guard = fd.ready_mut(Interest::WRITABLE).await.unwrap();
    ///     guard.clear_ready_matching(Ready::WRITABLE);
    ///     assert!(!guard.ready().is_writable());
    /// });
    /// ```
    clear_ready_matching;

    /// As [`AsyncFdReadyGuard::retain_ready`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     fd.writable_mut().await.unwrap().retain_ready();
    ///     assert!(fd.writable_mut().await.unwrap().ready().is_writable());
    /// });
    /// ```
    retain_ready;
}

impl<'a, T: AsRawFd> AsyncFdReadyMutGuard<'a, T> {
    /// As [`AsyncFdReadyGuard::try_io`], with the `AsyncFd` borrowed
    /// mutably.
    ///
    /// # Errors
    ///
    /// `Err(TryIoError)` when `op` would block.
    ///
    /// # Examples
    ///
    /// See [`AsyncFdReadyMutGuard`].
    ///
    /// ```
    /// use std::io::Read;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     a.set_nonblocking(true).unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let mut guard = fd.writable_mut().await.unwrap();
    ///     // Nothing to read: the readiness is cleared.
    ///     assert!(guard.try_io(|fd| fd.get_mut().read(&mut [0; 4])).is_err());
    /// });
    /// ```
    pub fn try_io<R>(
        &mut self,
        op: impl FnOnce(&mut AsyncFd<T>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        let result = op(self.fd);
        self.observed.settle(self.fd.registration(), result)
    }

    /// The `AsyncFd` this guard belongs to.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let guard = fd.writable_mut().await.unwrap();
    ///     assert!(guard.get_ref().get_ref().peer_addr().is_ok());
    /// });
    /// ```
    pub fn get_ref(&self) -> &AsyncFd<T> {
        self.fd
    }

    /// The `AsyncFd` this guard belongs to, mutably.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let mut guard = fd.writable_mut().await.unwrap();
    ///     guard.get_mut().get_mut().set_nonblocking(true).unwrap();
    /// });
    /// ```
    pub fn get_mut(&mut self) -> &mut AsyncFd<T> {
        self.fd
    }

    /// The value inside the `AsyncFd`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let guard = fd.writable_mut().await.unwrap();
    ///     assert!(guard.get_inner().peer_addr().is_ok());
    /// });
    /// ```
    pub fn get_inner(&self) -> &T {
        self.fd.get_ref()
    }

    /// The value inside the `AsyncFd`, mutably.
    ///
    /// # Examples
    ///
    /// See [`AsyncFdReadyMutGuard::clear_ready`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let mut guard = fd.writable_mut().await.unwrap();
    ///     guard.get_inner_mut().set_nonblocking(true).unwrap();
    /// });
    /// ```
    pub fn get_inner_mut(&mut self) -> &mut T {
        self.fd.get_mut()
    }
}
