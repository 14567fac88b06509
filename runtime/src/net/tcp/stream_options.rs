//! `TcpStream`'s socket options.

use super::TcpStream;
use super::socket::whole_seconds;
#[cfg(any(
    target_os = "android",
    target_os = "fuchsia",
    target_os = "linux",
    target_os = "cygwin"
))]
use socket2::SockRef;
use std::io;
use std::time::Duration;

impl TcpStream {
    /// Whether `TCP_NODELAY` (Nagle's algorithm off) is set.
    ///
    /// # Errors
    ///
    /// The OS error of `getsockopt`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let stream = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     stream.set_nodelay(true).unwrap();
    ///     assert!(stream.nodelay().unwrap());
    /// });
    /// ```
    pub fn nodelay(&self) -> io::Result<bool> {
        self.registered().nodelay()
    }

    /// Sets `TCP_NODELAY`: small writes go out at once instead of being
    /// coalesced (lower latency for request/response protocols).
    ///
    /// # Errors
    ///
    /// The OS error of `setsockopt`.
    ///
    /// # Examples
    ///
    /// See [`TcpStream::nodelay`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let stream = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     stream.set_nodelay(false).unwrap();
    ///     assert!(!stream.nodelay().unwrap());
    /// });
    /// ```
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        self.registered().set_nodelay(nodelay)
    }

    /// The `SO_LINGER` setting.
    ///
    /// # Errors
    ///
    /// The OS error of `getsockopt`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let stream = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     assert_eq!(stream.linger().unwrap(), None);
    /// });
    /// ```
    pub fn linger(&self) -> io::Result<Option<Duration>> {
        self.registered().linger()
    }

    /// Sets `SO_LINGER`. `Some(Duration::ZERO)` makes dropping the stream
    /// reset the connection (`RST`) instead of closing it gracefully.
    ///
    /// A non-zero duration (in whole seconds, rounded up) makes dropping
    /// the stream *block its thread* until the unsent data is delivered or
    /// the time is up: in a task, that stalls a worker. Prefer `None`, or
    /// `shutdown` and reading to the end before dropping.
    ///
    /// # Errors
    ///
    /// The OS error of `setsockopt`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let stream = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     stream.set_linger(Some(Duration::ZERO)).unwrap();
    ///     assert_eq!(stream.linger().unwrap(), Some(Duration::ZERO));
    /// });
    /// ```
    pub fn set_linger(&self, linger: Option<Duration>) -> io::Result<()> {
        self.registered().set_linger(linger.map(whole_seconds))
    }

    /// Sets `SO_LINGER` to zero: dropping the stream then resets the
    /// connection (`RST`) at once instead of closing it gracefully, and
    /// unsent data is discarded. The same as
    /// [`set_linger(Some(Duration::ZERO))`](TcpStream::set_linger), which
    /// tokio deprecates in favour of this name.
    ///
    /// # Errors
    ///
    /// The OS error of `setsockopt`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let stream = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     stream.set_zero_linger().unwrap();
    ///     assert_eq!(stream.linger().unwrap(), Some(Duration::ZERO));
    /// });
    /// ```
    pub fn set_zero_linger(&self) -> io::Result<()> {
        self.registered().set_linger(Some(Duration::ZERO))
    }

    cfg_quickack! {
        /// Whether `TCP_QUICKACK` is on: ACKs go out at once rather than
        /// being delayed to ride on the next data segment.
        ///
        /// The kernel turns quick-ACK mode off again by itself (after a
        /// few segments, or when it decides delaying pays), so this reads
        /// the flag as it stands now, not a sticky setting.
        ///
        /// # Errors
        ///
        /// The OS error of `getsockopt`.
        ///
        /// # Examples
        ///
        /// See [`TcpStream::set_quickack`].
        pub fn quickack(&self) -> io::Result<bool> {
            SockRef::from(self.registered().real("`TcpStream::quickack`")?.get_ref()).tcp_quickack()
        }

        /// Sets `TCP_QUICKACK`: send ACKs at once instead of delaying
        /// them. The kernel may leave quick-ACK mode again on its own, so
        /// latency-sensitive protocols set it after each read.
        ///
        /// # Errors
        ///
        /// The OS error of `setsockopt`.
        ///
        /// # Examples
        ///
        /// ```
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        ///     let stream = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        ///     stream.set_quickack(true).unwrap();
        ///     assert!(stream.quickack().unwrap());
        /// });
        /// ```
        pub fn set_quickack(&self, quickack: bool) -> io::Result<()> {
            SockRef::from(self.registered().real("`TcpStream::set_quickack`")?.get_ref())
                .set_tcp_quickack(quickack)
        }
    }

    /// The IP time-to-live (`IP_TTL`) of the packets this stream sends.
    ///
    /// # Errors
    ///
    /// The OS error of `getsockopt`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let stream = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     stream.set_ttl(42).unwrap();
    ///     assert_eq!(stream.ttl().unwrap(), 42);
    /// });
    /// ```
    pub fn ttl(&self) -> io::Result<u32> {
        self.registered().ttl()
    }

    /// Sets the IP time-to-live (`IP_TTL`) of the packets this stream
    /// sends.
    ///
    /// # Errors
    ///
    /// The OS error of `setsockopt` (`InvalidInput` above 255).
    ///
    /// # Examples
    ///
    /// See [`TcpStream::ttl`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let stream = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     assert!(stream.set_ttl(256).is_err());
    /// });
    /// ```
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.registered().set_ttl(ttl)
    }

    /// Takes the socket's pending error (`SO_ERROR`), clearing it.
    ///
    /// # Errors
    ///
    /// The OS error of `getsockopt`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let stream = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     assert!(stream.take_error().unwrap().is_none());
    /// });
    /// ```
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.registered().take_error()
    }
}
