//! Every raw syscall `rt` makes itself goes through [`syscall!`] here; the
//! rest of the I/O goes through `mio` and `std`.
//!
//! Contract: the macro takes the (unsafe) libc call written out at the call
//! site, with its `// SAFETY:` comment, and turns the C convention (`-1` and
//! `errno`) into an `io::Result`.

use std::io;
use std::os::fd::RawFd;

/// Evaluates a libc call and maps `-1` to `io::Error::last_os_error()`.
macro_rules! syscall {
    ($call:expr) => {{
        let res = $call;
        if res == -1 {
            Err(::std::io::Error::last_os_error())
        } else {
            Ok(res)
        }
    }};
}

/// Reads once (`read(2)`) from `fd` into the spare capacity of `dst`, at
/// most `max` bytes, and appends what was read; returns how many bytes
/// (`0`: the end of the file, or `dst` has no spare capacity).
///
/// This is what `std` cannot do safely for a bounded chunk: its
/// `read_to_end` fills spare capacity without zeroing it, but without a
/// size hint it starts at 8 KiB per `read` and doubles, which costs about
/// ten system calls per 2 MiB chunk instead of one.
pub(crate) fn read_to_spare(fd: RawFd, dst: &mut Vec<u8>, max: usize) -> io::Result<usize> {
    let spare = dst.spare_capacity_mut();
    // Linux transfers at most this much per call anyway.
    let len = spare.len().min(max).min(0x7fff_f000);
    let read = syscall!(
        // SAFETY: `spare` is memory owned by `dst` and exclusively borrowed
        // here, at least `len` bytes long; read(2) only writes to it (so
        // that it is uninitialized does not matter) and at most `len`
        // bytes.
        unsafe { libc::read(fd, spare.as_mut_ptr().cast(), len) }
    )?;
    // Not -1 (checked above), so 0..=len.
    let read = read as usize;
    // SAFETY: the kernel initialized the first `read` bytes of the spare
    // capacity, and `read <= len <= spare.len()`.
    unsafe { dst.set_len(dst.len() + read) };
    Ok(read)
}

/// Receives once (`recv(2)`) from the stream socket `fd` into `dst`, which
/// may be uninitialised: the kernel writes the bytes straight into it, with
/// nothing zeroed or copied first. Returns how many bytes arrived, at the
/// front of `dst` (`0`: the peer closed its write side, or `dst` is empty).
/// Interrupted calls are retried.
#[cfg(feature = "hyper")]
pub(crate) fn recv_uninit(fd: RawFd, dst: &mut [std::mem::MaybeUninit<u8>]) -> io::Result<usize> {
    loop {
        match syscall!(
            // SAFETY: `dst` is exclusively borrowed memory of `dst.len()`
            // bytes; recv(2) only writes to it (so that it is
            // uninitialised does not matter), at most `dst.len()` bytes.
            unsafe { libc::recv(fd, dst.as_mut_ptr().cast(), dst.len(), 0) }
        ) {
            // Not -1 (checked), so 0..=dst.len().
            Ok(received) => return Ok(received as usize),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Asks the kernel to back the first `max` bytes of `dst`'s spare capacity
/// (whole pages only) with memory now (`MADV_POPULATE_WRITE`), so that a
/// `read` into it copies without taking a page fault per page.
///
/// Only a hint: memory that is already backed costs a page-table walk, and
/// where the kernel refuses (before Linux 5.14, or out of memory) the
/// `read` faults the pages in itself, or fails with the error the caller
/// would see anyway. After one refusal for lack of support it is not asked
/// again.
#[cfg(target_os = "linux")]
pub(crate) fn prefault_spare(dst: &mut Vec<u8>, max: usize) {
    use std::sync::atomic::{AtomicBool, Ordering};
    static UNSUPPORTED: AtomicBool = AtomicBool::new(false);
    if UNSUPPORTED.load(Ordering::Relaxed) {
        return;
    }
    let spare = dst.spare_capacity_mut();
    let len = spare.len().min(max);
    let start = spare.as_mut_ptr().addr();
    let page = page_size();
    let first = start.next_multiple_of(page);
    let end = (start + len) / page * page;
    if end <= first {
        return;
    }
    // The pointer comes from the buffer's own (strict provenance), at the
    // offset of its first whole page; `first < end <= start + len`, so the
    // slice index is in bounds.
    let first_page = spare[first - start..].as_mut_ptr();
    let advised = syscall!(
        // SAFETY: `first..end` lies inside `dst`'s spare capacity, which
        // `dst` owns and which is exclusively borrowed here; populating it
        // for writing changes no byte a Rust reference can see (the spare
        // capacity is uninitialized to Rust, zero-filled by the kernel).
        unsafe {
            libc::madvise(
                first_page.cast::<libc::c_void>(),
                end - first,
                libc::MADV_POPULATE_WRITE,
            )
        }
    );
    if advised.is_err_and(|e| e.raw_os_error() == Some(libc::EINVAL)) {
        // Kernels before 5.14 do not know the advice.
        UNSUPPORTED.store(true, Ordering::Relaxed);
    }
}

/// Elsewhere the `read` faults the pages in itself.
#[cfg(not(target_os = "linux"))]
pub(crate) fn prefault_spare(_dst: &mut Vec<u8>, _max: usize) {}

/// The size of a memory page, asked once.
#[cfg(target_os = "linux")]
fn page_size() -> usize {
    use std::sync::OnceLock;
    static PAGE: OnceLock<usize> = OnceLock::new();
    *PAGE.get_or_init(|| {
        // SAFETY: sysconf has no preconditions.
        let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        usize::try_from(size)
            .ok()
            .filter(|&s| s > 0)
            .unwrap_or(4096)
    })
}

/// Sends up to `len` bytes of `file` starting at `offset` to the socket
/// `socket` without copying them through user space (`sendfile(2)`).
/// Returns the number of bytes sent; `0` means `offset` is at or past the
/// end of the file. A full socket buffer is `WouldBlock`.
#[cfg(target_os = "linux")]
pub(crate) fn sendfile(socket: RawFd, file: RawFd, offset: u64, len: usize) -> io::Result<usize> {
    let mut offset = libc::off_t::try_from(offset).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "send_file: the offset does not fit the platform's off_t",
        )
    })?;
    // Linux transfers at most this much per call anyway.
    let count = len.min(0x7fff_f000);
    let sent = syscall!(
        // SAFETY: `socket` and `file` are open descriptors borrowed by the
        // caller for the duration of the call, and `offset` is a valid,
        // exclusively borrowed `off_t` the kernel may update.
        unsafe { libc::sendfile(socket, file, &mut offset, count) }
    )?;
    Ok(sent as usize)
}

/// A new non-blocking, close-on-exec TCP socket of `domain` (`AF_INET`
/// or `AF_INET6`).
#[cfg(target_os = "linux")]
pub(crate) fn tcp_socket(domain: libc::c_int) -> io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    let fd = syscall!(
        // SAFETY: socket(2) takes no pointers.
        unsafe {
            libc::socket(
                domain,
                libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                0,
            )
        }
    )?;
    // SAFETY: `fd` was just returned by socket(2): open, and owned by
    // nobody else.
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
}

/// Sets an `int`-valued socket option.
#[cfg(target_os = "linux")]
pub(crate) fn set_int_option(
    socket: RawFd,
    level: libc::c_int,
    name: libc::c_int,
    value: libc::c_int,
) -> io::Result<()> {
    syscall!(
        // SAFETY: `socket` is an open descriptor borrowed for the call;
        // `value` is a valid `int` and the length passed is its size.
        unsafe {
            libc::setsockopt(
                socket,
                level,
                name,
                (&raw const value).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        }
    )?;
    Ok(())
}

/// Reads an `int`-valued socket option.
#[cfg(target_os = "linux")]
pub(crate) fn int_option(
    socket: RawFd,
    level: libc::c_int,
    name: libc::c_int,
) -> io::Result<libc::c_int> {
    let mut value: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    syscall!(
        // SAFETY: `socket` is an open descriptor borrowed for the call;
        // `value` and `len` are valid, exclusively borrowed out-parameters
        // and `len` holds the size of `value`.
        unsafe { libc::getsockopt(socket, level, name, (&raw mut value).cast(), &mut len) }
    )?;
    Ok(value)
}

/// `addr` as a C socket address, and its length.
#[cfg(target_os = "linux")]
fn raw_addr(addr: &std::net::SocketAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
    // SAFETY: all-zero bytes are a valid `sockaddr_storage` (plain data).
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let len = match addr {
        std::net::SocketAddr::V4(v4) => {
            let raw = libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: v4.port().to_be(),
                sin_addr: libc::in_addr {
                    s_addr: u32::from_ne_bytes(v4.ip().octets()),
                },
                sin_zero: [0; 8],
            };
            // SAFETY: `sockaddr_storage` is larger than and aligned for
            // every socket address type, `sockaddr_in` among them.
            unsafe { std::ptr::write((&raw mut storage).cast(), raw) };
            std::mem::size_of::<libc::sockaddr_in>()
        }
        std::net::SocketAddr::V6(v6) => {
            let raw = libc::sockaddr_in6 {
                sin6_family: libc::AF_INET6 as libc::sa_family_t,
                sin6_port: v6.port().to_be(),
                sin6_flowinfo: v6.flowinfo(),
                sin6_addr: libc::in6_addr {
                    s6_addr: v6.ip().octets(),
                },
                sin6_scope_id: v6.scope_id(),
            };
            // SAFETY: as above, for `sockaddr_in6`.
            unsafe { std::ptr::write((&raw mut storage).cast(), raw) };
            std::mem::size_of::<libc::sockaddr_in6>()
        }
    };
    (storage, len as libc::socklen_t)
}

/// `bind(2)`s `socket` to `addr`.
#[cfg(target_os = "linux")]
pub(crate) fn bind(socket: RawFd, addr: &std::net::SocketAddr) -> io::Result<()> {
    let (storage, len) = raw_addr(addr);
    syscall!(
        // SAFETY: `socket` is an open descriptor borrowed for the call;
        // `storage` holds a socket address of `len` bytes.
        unsafe { libc::bind(socket, (&raw const storage).cast(), len) }
    )?;
    Ok(())
}

/// Starts a non-blocking `connect(2)` of `socket` to `addr`: `Ok` once it
/// is under way (`EINPROGRESS`) or done.
#[cfg(target_os = "linux")]
pub(crate) fn start_connect(socket: RawFd, addr: &std::net::SocketAddr) -> io::Result<()> {
    let (storage, len) = raw_addr(addr);
    match syscall!(
        // SAFETY: as in `bind`.
        unsafe { libc::connect(socket, (&raw const storage).cast(), len) }
    ) {
        Ok(_) => Ok(()),
        // Interrupted, a connect goes on in the background (POSIX), as
        // one in progress does.
        Err(e) if matches!(e.raw_os_error(), Some(libc::EINPROGRESS | libc::EINTR)) => Ok(()),
        Err(e) => Err(e),
    }
}

/// `listen(2)` on `socket`, with at most `backlog` pending connections.
#[cfg(target_os = "linux")]
pub(crate) fn listen(socket: RawFd, backlog: u32) -> io::Result<()> {
    let backlog = libc::c_int::try_from(backlog).unwrap_or(libc::c_int::MAX);
    syscall!(
        // SAFETY: listen(2) takes no pointers; `socket` is open.
        unsafe { libc::listen(socket, backlog) }
    )?;
    Ok(())
}

/// The address `socket` is bound to (`getsockname(2)`).
#[cfg(target_os = "linux")]
pub(crate) fn local_addr(socket: RawFd) -> io::Result<std::net::SocketAddr> {
    // SAFETY: all-zero bytes are a valid `sockaddr_storage`.
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    syscall!(
        // SAFETY: `socket` is open; `storage` and `len` are valid,
        // exclusively borrowed out-parameters, `len` holding its size.
        unsafe { libc::getsockname(socket, (&raw mut storage).cast(), &mut len) }
    )?;
    match libc::c_int::from(storage.ss_family) {
        libc::AF_INET => {
            // SAFETY: the kernel wrote a `sockaddr_in` (family AF_INET);
            // `sockaddr_storage` is aligned for it.
            let raw: libc::sockaddr_in = unsafe { std::ptr::read((&raw const storage).cast()) };
            let ip = std::net::Ipv4Addr::from(raw.sin_addr.s_addr.to_ne_bytes());
            Ok(std::net::SocketAddr::from((ip, u16::from_be(raw.sin_port))))
        }
        libc::AF_INET6 => {
            // SAFETY: as above, a `sockaddr_in6` (family AF_INET6).
            let raw: libc::sockaddr_in6 = unsafe { std::ptr::read((&raw const storage).cast()) };
            Ok(std::net::SocketAddr::V6(std::net::SocketAddrV6::new(
                std::net::Ipv6Addr::from(raw.sin6_addr.s6_addr),
                u16::from_be(raw.sin6_port),
                raw.sin6_flowinfo,
                raw.sin6_scope_id,
            )))
        }
        family => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("getsockname returned address family {family}, not an IP one"),
        )),
    }
}

/// Sets `SO_LINGER` on `socket`: `None` turns lingering off (the default),
/// `Some(ZERO)` makes `close` reset the connection. The option counts
/// whole seconds: a non-zero duration is rounded up, never down to zero
/// (which would turn a graceful close into a reset).
pub(crate) fn set_linger(socket: RawFd, linger: Option<std::time::Duration>) -> io::Result<()> {
    let value = libc::linger {
        l_onoff: linger.is_some() as libc::c_int,
        l_linger: linger.map_or(0, |d| {
            let secs = d.as_secs() + u64::from(d.subsec_nanos() > 0);
            secs.min(libc::c_int::MAX as u64) as libc::c_int
        }),
    };
    syscall!(
        // SAFETY: `socket` is an open descriptor borrowed for the call;
        // `value` is a valid `linger` and the length passed is its size.
        unsafe {
            libc::setsockopt(
                socket,
                libc::SOL_SOCKET,
                libc::SO_LINGER,
                (&raw const value).cast(),
                std::mem::size_of::<libc::linger>() as libc::socklen_t,
            )
        }
    )?;
    Ok(())
}

/// Reads `SO_LINGER` of `socket`.
pub(crate) fn linger(socket: RawFd) -> io::Result<Option<std::time::Duration>> {
    let mut value = libc::linger {
        l_onoff: 0,
        l_linger: 0,
    };
    let mut len = std::mem::size_of::<libc::linger>() as libc::socklen_t;
    syscall!(
        // SAFETY: `socket` is an open descriptor borrowed for the call;
        // `value` and `len` are valid, exclusively borrowed out-parameters
        // and `len` holds the size of `value`.
        unsafe {
            libc::getsockopt(
                socket,
                libc::SOL_SOCKET,
                libc::SO_LINGER,
                (&raw mut value).cast(),
                &mut len,
            )
        }
    )?;
    Ok((value.l_onoff != 0).then(|| std::time::Duration::from_secs(value.l_linger as u64)))
}

/// A process file descriptor for the child `pid` (`pidfd_open(2)`, Linux
/// 5.3+): it becomes readable once the process exits, and is
/// close-on-exec. `ENOSYS` (an older kernel) and `EPERM` (a seccomp filter
/// that forbids the call) mean the caller must watch the child another way.
///
/// The pid cannot be reused before the caller reaps the child, so the
/// descriptor refers to that child for as long as it is unreaped.
#[cfg(target_os = "linux")]
pub(crate) fn pidfd_open(pid: u32) -> io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    let pid = libc::pid_t::try_from(pid)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "pid out of range"))?;
    let fd = syscall!(
        // SAFETY: pidfd_open(2) takes a pid and flags, no pointers; the
        // variadic `syscall` receives exactly the two arguments it reads.
        unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0 as libc::c_uint) }
    )?;
    let fd = std::os::fd::RawFd::try_from(fd)
        .map_err(|_| io::Error::other("pidfd_open returned an out-of-range descriptor"))?;
    // SAFETY: `fd` was just returned by pidfd_open(2): open, and owned by
    // nobody else.
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    // Miri runs neither `madvise` nor, isolated, file I/O.
    #[cfg_attr(miri, ignore)]
    fn prefaulting_spare_capacity_keeps_the_contents_and_a_read_then_fills_it() {
        // Three bytes in, so the spare capacity starts off a page boundary.
        let mut data = vec![7u8, 8, 9];
        data.reserve_exact(3 << 20);
        let capacity = data.capacity();
        prefault_spare(&mut data, 2 << 20);
        assert_eq!(data, [7, 8, 9]);
        assert_eq!(data.capacity(), capacity);

        let path = std::env::temp_dir().join(format!("rt-prefault-{}", std::process::id()));
        let contents: Vec<u8> = (0..(1 << 20) + 5).map(|i| (i % 251) as u8).collect();
        std::fs::File::create(&path)
            .and_then(|mut f| f.write_all(&contents))
            .expect("writing the test file");
        let file = std::fs::File::open(&path).expect("opening the test file");
        let mut total = 0;
        loop {
            match read_to_spare(
                std::os::fd::AsRawFd::as_raw_fd(&file),
                &mut data,
                usize::MAX,
            ) {
                Ok(0) => break,
                Ok(n) => total += n,
                Err(e) => panic!("reading the test file: {e}"),
            }
        }
        std::fs::remove_file(&path).expect("removing the test file");
        assert_eq!(total, contents.len());
        assert_eq!(&data[..3], [7, 8, 9]);
        assert_eq!(&data[3..], contents);
    }
}
