//! Readiness on any file descriptor.

use super::registered::{current_reactor, poll_budgeted, wait_ready};
use mio::unix::SourceFd;
use rt_reactor::{Direction, Interest, Ready, ReadyEvent, Registration};
use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::task::{Context, Poll};

/// A non-blocking file descriptor registered with the runtime's reactor,
/// so tasks can wait until it is readable or writable.
///
/// `AsyncFd` does not do I/O itself: wait with [`readable`](AsyncFd::readable)
/// / [`writable`](AsyncFd::writable), then try the operation inside
/// [`AsyncFdReadyGuard::try_io`], which clears the readiness when the
/// operation would block so the next wait really waits. The descriptor must
/// be in non-blocking mode. Dropping the `AsyncFd` deregisters it and drops
/// the inner value.
///
/// # Panics
///
/// [`AsyncFd::new`] panics outside a runtime with I/O enabled.
///
/// # Examples
///
/// ```
/// use rt::io::AsyncFd;
/// use std::io::{Read, Write};
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (reader, mut writer) = std::os::unix::net::UnixStream::pair().unwrap();
///     reader.set_nonblocking(true).unwrap();
///     let reader = AsyncFd::new(reader).unwrap();
///     writer.write_all(b"hello").unwrap();
///     let mut buf = [0; 5];
///     let n = loop {
///         let mut guard = reader.readable().await.unwrap();
///         match guard.try_io(|fd| fd.get_ref().read(&mut buf)) {
///             Ok(result) => break result.unwrap(),
///             Err(_would_block) => continue,
///         }
///     };
///     assert_eq!(&buf[..n], b"hello");
/// });
/// ```
pub struct AsyncFd<T: AsRawFd> {
    inner: Option<T>,
    registration: Registration,
}

/// The readiness returned by [`AsyncFd::readable`] / [`AsyncFd::writable`].
/// Dropping it keeps the readiness; call
/// [`clear_ready`](AsyncFdReadyGuard::clear_ready) (or use
/// [`try_io`](AsyncFdReadyGuard::try_io)) once the operation would block.
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
///     let guard = fd.writable().await.unwrap();
///     assert!(guard.ready().is_writable());
/// });
/// ```
pub struct AsyncFdReadyGuard<'a, T: AsRawFd> {
    fd: &'a AsyncFd<T>,
    event: Option<ReadyEvent>,
}

/// The error of [`AsyncFdReadyGuard::try_io`] when the operation would
/// block: the readiness was cleared, wait again.
///
/// # Examples
///
/// ```
/// use rt::io::AsyncFd;
/// use std::io::Read;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
///     a.set_nonblocking(true).unwrap();
///     let fd = AsyncFd::new(a).unwrap();
///     // Writable, but there is nothing to read: the read would block.
///     let mut guard = fd.writable().await.unwrap();
///     let result = guard.try_io(|fd| fd.get_ref().read(&mut [0; 4]));
///     assert!(result.is_err());
/// });
/// ```
#[derive(Debug)]
pub struct TryIoError(());

impl fmt::Display for TryIoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the operation would block; readiness was cleared")
    }
}

impl std::error::Error for TryIoError {}

impl<T: AsRawFd> AsyncFd<T> {
    /// Registers `inner` for both read and write readiness.
    ///
    /// # Errors
    ///
    /// Returns the OS error of the registration (e.g. a regular file, which
    /// epoll does not support).
    ///
    /// # Panics
    ///
    /// Panics outside a runtime, or on a runtime without
    /// [`Builder::enable_io`](crate::runtime::Builder::enable_io).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     a.set_nonblocking(true).unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     # drop(fd);
    /// });
    /// ```
    #[track_caller]
    pub fn new(inner: T) -> io::Result<AsyncFd<T>> {
        AsyncFd::with_interest(inner, Interest::READABLE | Interest::WRITABLE)
    }

    /// Registers `inner` for the readiness in `interest` only.
    ///
    /// # Errors
    ///
    /// As [`AsyncFd::new`].
    ///
    /// # Panics
    ///
    /// As [`AsyncFd::new`].
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncFd, Interest};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     a.set_nonblocking(true).unwrap();
    ///     let fd = AsyncFd::with_interest(a, Interest::READABLE).unwrap();
    ///     # drop(fd);
    /// });
    /// ```
    #[track_caller]
    pub fn with_interest(inner: T, interest: Interest) -> io::Result<AsyncFd<T>> {
        let reactor = current_reactor();
        let fd: RawFd = inner.as_raw_fd();
        let registration = reactor.register(&mut SourceFd(&fd), interest)?;
        Ok(AsyncFd {
            inner: Some(inner),
            registration,
        })
    }

    /// The wrapped value.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::os::fd::AsRawFd;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let raw = a.as_raw_fd();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     assert_eq!(fd.get_ref().as_raw_fd(), raw);
    /// });
    /// ```
    pub fn get_ref(&self) -> &T {
        self.inner.as_ref().expect("present until drop")
    }

    /// The wrapped value, mutably.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     fd.get_mut().set_nonblocking(true).unwrap();
    /// });
    /// ```
    pub fn get_mut(&mut self) -> &mut T {
        self.inner.as_mut().expect("present until drop")
    }

    /// Deregisters the descriptor and returns the wrapped value.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let a: std::os::unix::net::UnixStream = fd.into_inner();
    ///     # drop(a);
    /// });
    /// ```
    pub fn into_inner(mut self) -> T {
        self.deregister();
        self.inner.take().expect("present until drop")
    }

    fn deregister(&mut self) {
        if let Some(inner) = &self.inner {
            let fd = inner.as_raw_fd();
            // The descriptor may already be closed by a custom `T`, and
            // closing removes it from the poller anyway: nothing to report.
            let _ = self.registration.deregister(&mut SourceFd(&fd));
        }
    }

    fn guard(&self, event: ReadyEvent) -> AsyncFdReadyGuard<'_, T> {
        AsyncFdReadyGuard {
            fd: self,
            event: Some(event),
        }
    }

    /// Waits in `direction`'s shared slot (the `poll_*` methods).
    fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'_, T>>> {
        poll_budgeted(cx, |cx| self.registration.poll_ready(cx, direction))
            .map_ok(|event| self.guard(event))
    }

    /// Waits in a place of its own in `direction`'s list (the `async fn`s).
    async fn ready(&self, direction: Direction) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        let event = wait_ready(&self.registration, direction).await?;
        Ok(self.guard(event))
    }

    /// Polls for read readiness.
    ///
    /// A `poll_*` method has no future to own a place among the tasks
    /// waiting on the descriptor: it waits in one read slot shared by all
    /// `poll_read_ready` callers, where the last caller's waker wins (an
    /// earlier caller's task is not woken). Tasks sharing an `AsyncFd`
    /// await [`readable`](AsyncFd::readable) instead, which any number of
    /// tasks may wait in at once.
    ///
    /// # Errors
    ///
    /// Fails once the runtime has shut down its I/O driver.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     drop(b); // the peer hung up: read-closed
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let ready = poll_fn(|cx| fd.poll_read_ready(cx).map_ok(|g| g.ready())).await.unwrap();
    ///     assert!(ready.is_read_closed());
    /// });
    /// ```
    pub fn poll_read_ready(
        &self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'_, T>>> {
        self.poll_ready(cx, Direction::Read)
    }

    /// Polls for write readiness.
    ///
    /// As [`poll_read_ready`](AsyncFd::poll_read_ready), in the write
    /// direction: one shared slot, the last caller's waker wins; tasks
    /// sharing an `AsyncFd` await [`writable`](AsyncFd::writable).
    ///
    /// # Errors
    ///
    /// Fails once the runtime has shut down its I/O driver.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let ready = poll_fn(|cx| fd.poll_write_ready(cx).map_ok(|g| g.ready())).await.unwrap();
    ///     assert!(ready.is_writable());
    /// });
    /// ```
    pub fn poll_write_ready(
        &self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'_, T>>> {
        self.poll_ready(cx, Direction::Write)
    }

    /// Waits until the descriptor is readable (or read-closed, or has an
    /// error).
    ///
    /// Any number of tasks may wait at once, each in a place of its own;
    /// readiness wakes them all. Dropping the future frees its place.
    ///
    /// # Errors
    ///
    /// Fails once the runtime has shut down its I/O driver.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Write;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     b.write_all(b"x").unwrap();
    ///     assert!(fd.readable().await.unwrap().ready().is_readable());
    /// });
    /// ```
    pub async fn readable(&self) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        self.ready(Direction::Read).await
    }

    /// Waits until the descriptor is writable (or write-closed, or has an
    /// error).
    ///
    /// Any number of tasks may wait at once, each in a place of its own;
    /// readiness wakes them all. Dropping the future frees its place.
    ///
    /// # Errors
    ///
    /// Fails once the runtime has shut down its I/O driver.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     assert!(fd.writable().await.unwrap().ready().is_writable());
    /// });
    /// ```
    pub async fn writable(&self) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        self.ready(Direction::Write).await
    }
}

impl<T: AsRawFd> AsyncFdReadyGuard<'_, T> {
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
    pub fn ready(&self) -> Ready {
        self.event.map_or(Ready::EMPTY, |event| event.ready())
    }

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
    pub fn clear_ready(&mut self) {
        if let Some(event) = self.event.take() {
            self.fd.registration.clear_readiness(event);
        }
    }

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
        op: impl FnOnce(&AsyncFd<T>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        match op(self.fd) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.clear_ready();
                Err(TryIoError(()))
            }
            result => Ok(result),
        }
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
    pub fn get_ref(&self) -> &AsyncFd<T> {
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
    pub fn get_inner(&self) -> &T {
        self.fd.get_ref()
    }
}

impl<T: AsRawFd> Drop for AsyncFd<T> {
    fn drop(&mut self) {
        self.deregister();
    }
}

impl<T: AsRawFd + fmt::Debug> fmt::Debug for AsyncFd<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncFd")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

impl<T: AsRawFd + fmt::Debug> fmt::Debug for AsyncFdReadyGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncFdReadyGuard")
            .field("ready", &self.ready())
            .finish_non_exhaustive()
    }
}
