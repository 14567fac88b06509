//! `UCred`: who is at the other end of a Unix-domain stream.

use crate::io::sys;
use std::io;
use std::os::fd::BorrowedFd;

/// A user id, as [`UCred::uid`] returns it (tokio's name, for porting).
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
///     let uid: rt::net::unix::uid_t = a.peer_cred().unwrap().uid();
///     let gid: rt::net::unix::gid_t = a.peer_cred().unwrap().gid();
///     let pid: Option<rt::net::unix::pid_t> = a.peer_cred().unwrap().pid();
///     assert_eq!(pid, Some(std::process::id() as i32));
///     # let _ = (uid, gid);
/// });
/// ```
#[allow(non_camel_case_types)]
pub type uid_t = u32;

/// A group id, as [`UCred::gid`] returns it.
///
/// # Examples
///
/// See [`uid_t`].
#[allow(non_camel_case_types)]
pub type gid_t = u32;

/// A process id, as [`UCred::pid`] returns it.
///
/// # Examples
///
/// See [`uid_t`].
#[allow(non_camel_case_types)]
pub type pid_t = i32;

/// The credentials of the process at the other end of a
/// [`UnixStream`](super::UnixStream), from
/// [`UnixStream::peer_cred`](super::UnixStream::peer_cred): as they were
/// when the connection was made (a socket pair's: when it was created).
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
///     let cred = a.peer_cred().unwrap();
///     // SAFETY: getuid has no preconditions.
///     assert_eq!(cred.uid(), unsafe { libc::getuid() });
/// });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UCred {
    pid: Option<pid_t>,
    uid: uid_t,
    gid: gid_t,
}

impl UCred {
    pub(super) fn of_peer(socket: BorrowedFd<'_>) -> io::Result<UCred> {
        let (pid, uid, gid) = sys::peer_credentials(socket)?;
        Ok(UCred { pid, uid, gid })
    }

    /// The peer's user id.
    ///
    /// # Examples
    ///
    /// See [`UCred`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixStream::pair().unwrap();
    ///     assert_eq!(a.peer_cred().unwrap().uid(), b.peer_cred().unwrap().uid());
    /// });
    /// ```
    pub fn uid(&self) -> uid_t {
        self.uid
    }

    /// The peer's group id.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     // SAFETY: getgid has no preconditions.
    ///     assert_eq!(a.peer_cred().unwrap().gid(), unsafe { libc::getgid() });
    /// });
    /// ```
    pub fn gid(&self) -> gid_t {
        self.gid
    }

    /// The peer's process id, where the OS says it (Linux and Android do;
    /// the BSDs and macOS do not).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     if let Some(pid) = a.peer_cred().unwrap().pid() {
    ///         assert_eq!(pid as u32, std::process::id());
    ///     }
    /// });
    /// ```
    pub fn pid(&self) -> Option<pid_t> {
        self.pid
    }
}
