//! Every raw syscall `rt` makes itself goes through [`syscall!`] here; the
//! rest of the I/O goes through `mio`, `socket2` (socket creation, addresses
//! and options) and `std`.
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

/// The most slices one vectored read fills: `std`'s `read_vectored`
/// hands the kernel no more than `UIO_MAXIOV` of them (1024 on Linux) and
/// leaves the rest untouched, so a read that fills fewer bytes than all
/// the slices hold has not necessarily emptied the socket. Elsewhere the
/// POSIX minimum (`_XOPEN_IOV_MAX`): too small a count only means a read
/// that did empty the socket is not taken for one.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) const READV_MAX_SLICES: usize = libc::UIO_MAXIOV as usize;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) const READV_MAX_SLICES: usize = 16;

/// Reads once (`read(2)`) from `fd` (a pipe, say, where `recv` does not
/// apply) into `dst`, which may be uninitialised: the kernel writes the
/// bytes straight into it. Returns how many bytes arrived, at the front of
/// `dst` (`0`: end-of-file, or `dst` is empty). Interrupted calls are
/// retried.
pub(crate) fn read_uninit(fd: RawFd, dst: &mut [std::mem::MaybeUninit<u8>]) -> io::Result<usize> {
    loop {
        match syscall!(
            // SAFETY: `dst` is exclusively borrowed memory of `dst.len()`
            // bytes; read(2) only writes to it (so that it is
            // uninitialised does not matter), at most `dst.len()` bytes.
            unsafe { libc::read(fd, dst.as_mut_ptr().cast(), dst.len()) }
        ) {
            // Not -1 (checked), so 0..=dst.len().
            Ok(read) => return Ok(read as usize),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

/// The file status flags of `fd` (`fcntl(F_GETFL)`): its access mode
/// (`flags & O_ACCMODE`), `O_NONBLOCK`, `O_APPEND`, ...
pub(crate) fn status_flags(fd: std::os::fd::BorrowedFd<'_>) -> io::Result<libc::c_int> {
    use std::os::fd::AsRawFd;
    syscall!(
        // SAFETY: `fd` is an open descriptor, borrowed for the call;
        // F_GETFL only reads its flags and touches no memory of ours.
        unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) }
    )
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

/// Receives once (`recv(2)`) from the socket `fd` into `dst`, which may be
/// uninitialised: the kernel writes the bytes straight into it, with
/// nothing zeroed or copied first. Returns how many bytes arrived, at the
/// front of `dst` (`0`: a stream's peer closed its write side, an empty
/// datagram, or `dst` is empty; a datagram longer than `dst` is cut to
/// it). Interrupted calls are retried.
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

/// Reads into the front of `buf`'s spare capacity (its `chunk_mut`), at
/// most `max` bytes, and advances `buf` past the bytes `read` reports.
///
/// `read` takes initialised memory (`&mut [u8]`, as `AsyncRead::poll_read`
/// does), and whether a `BufMut`'s spare capacity was initialised before
/// cannot be known, so the bytes handed to `read` are zeroed first, on
/// every call (a `Pending` poll included): `max` bounds that cost.
///
/// # Panics
///
/// If `read` reports more bytes than it was given (a broken reader).
#[cfg(feature = "bytes")]
pub(crate) fn read_into_zeroed_spare<B, F>(
    buf: &mut B,
    max: usize,
    read: F,
) -> std::task::Poll<io::Result<usize>>
where
    B: bytes::BufMut + ?Sized,
    F: FnOnce(&mut [u8]) -> std::task::Poll<io::Result<usize>>,
{
    let spare = buf.chunk_mut();
    let len = spare.len().min(max);
    let start = spare.as_mut_ptr();
    let read = {
        // SAFETY: (1) `start..start + len` lies inside the chunk `buf` just
        // handed out (`len <= spare.len()`), which `buf`, exclusively
        // borrowed here, owns; (2) `write_bytes` initialises all `len`
        // bytes before the slice over them is made; (3) the slice lives in
        // this block only, so it is gone before `buf` is used again.
        let dst = unsafe {
            start.write_bytes(0, len);
            std::slice::from_raw_parts_mut(start, len)
        };
        read(dst)
    };
    let read = std::task::ready!(read)?;
    assert!(
        read <= len,
        "rt: a reader's poll_read reported {read} bytes read into a buffer of {len}"
    );
    // SAFETY: the first `read <= len` bytes of the chunk were zeroed above
    // and since written only through a `&mut [u8]` (so with initialised
    // bytes): they are initialised, as `advance_mut` requires.
    unsafe { buf.advance_mut(read) };
    std::task::Poll::Ready(Ok(read))
}

/// Receives once (`recv(2)`, see [`recv_uninit`]) from the socket `fd`
/// straight into `buf`'s spare capacity, nothing zeroed first, and
/// advances `buf` past the bytes that arrived; returns how many.
#[cfg(feature = "bytes")]
pub(crate) fn recv_buf<B: bytes::BufMut + ?Sized>(fd: RawFd, buf: &mut B) -> io::Result<usize> {
    // SAFETY: `recv_uninit` hands the slice to recv(2), which stores only
    // the bytes it received, at the front, and returns their count.
    let received = unsafe { receive_into_spare(buf, |spare| Ok((recv_uninit(fd, spare)?, ()))) };
    received.map(|(n, ())| n)
}

/// Reads once (`read(2)`) from `fd` (a pipe, a FIFO) straight into `buf`'s
/// spare capacity, nothing zeroed first, and advances `buf` past the bytes
/// read; returns how many (`0`: end-of-file, or no spare capacity).
/// Interrupted calls are retried.
#[cfg(feature = "bytes")]
pub(crate) fn read_buf<B: bytes::BufMut + ?Sized>(fd: RawFd, buf: &mut B) -> io::Result<usize> {
    let read = |spare: &mut [std::mem::MaybeUninit<u8>]| loop {
        match syscall!(
            // SAFETY: `spare` is exclusively borrowed memory of
            // `spare.len()` bytes; read(2) only writes to it (so that it is
            // uninitialised does not matter), at most `spare.len()` bytes.
            unsafe { libc::read(fd, spare.as_mut_ptr().cast(), spare.len()) }
        ) {
            // Not -1 (checked), so 0..=spare.len().
            Ok(n) => return Ok((n as usize, ())),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    };
    // SAFETY: `read` hands the slice to read(2), which stores only the
    // bytes it read, at the front, and returns their count.
    unsafe { receive_into_spare(buf, read) }.map(|(n, ())| n)
}

/// Receives once (`recvfrom(2)`, through `socket2`) from `socket` straight
/// into `buf`'s spare capacity, nothing zeroed first, and advances `buf`
/// past the bytes that arrived; returns how many and the sender. A
/// datagram longer than the spare chunk is cut to it.
#[cfg(feature = "bytes")]
pub(crate) fn recv_buf_from<B: bytes::BufMut + ?Sized>(
    socket: socket2::SockRef<'_>,
    buf: &mut B,
) -> io::Result<(usize, socket2::SockAddr)> {
    // SAFETY: socket2's `recv_from` promises never to write an
    // uninitialised byte into the slice; it hands it to recvfrom(2), which
    // stores only the bytes it received, at the front, and returns their
    // count.
    unsafe { receive_into_spare(buf, |spare| socket.recv_from(spare)) }
}

/// Lets `receive` fill `buf`'s spare capacity (its `chunk_mut`),
/// uninitialised as it may be, then advances `buf` past the `n` bytes it
/// reports.
///
/// # Safety
///
/// `receive` must not read the slice it gets nor write an uninitialised
/// byte into it, and may return `Ok((n, _))` only once the first `n`
/// bytes of the slice are initialised: what a receive system call does.
#[cfg(feature = "bytes")]
unsafe fn receive_into_spare<B, T>(
    buf: &mut B,
    receive: impl FnOnce(&mut [std::mem::MaybeUninit<u8>]) -> io::Result<(usize, T)>,
) -> io::Result<(usize, T)>
where
    B: bytes::BufMut + ?Sized,
{
    // SAFETY: the slice goes to `receive` only, which by this function's
    // contract neither reads it nor writes uninitialised bytes into it.
    let spare = unsafe { buf.chunk_mut().as_uninit_slice_mut() };
    let room = spare.len();
    let (received, extra) = receive(spare)?;
    assert!(
        received <= room,
        "rt: a receive reported {received} bytes into a buffer of {room}"
    );
    // SAFETY: by this function's contract `receive` initialised the first
    // `received` bytes of the chunk, and `received <= room`, the chunk's
    // length.
    unsafe { buf.advance_mut(received) };
    Ok((received, extra))
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

/// The credentials of the process at the other end of the connected
/// Unix-domain socket `socket`, as they were when the connection was made:
/// `(pid, uid, gid)` (`SO_PEERCRED`).
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) fn peer_credentials(
    socket: std::os::fd::BorrowedFd<'_>,
) -> io::Result<(Option<i32>, u32, u32)> {
    use std::os::fd::AsRawFd;
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    syscall!(
        // SAFETY: `socket` is an open descriptor borrowed for the call;
        // `cred` and `len` are valid, exclusively borrowed out-parameters
        // and `len` holds the size of `cred`.
        unsafe {
            libc::getsockopt(
                socket.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_PEERCRED,
                (&raw mut cred).cast(),
                &mut len,
            )
        }
    )?;
    Ok((Some(cred.pid), cred.uid, cred.gid))
}

/// The credentials of the process at the other end of the connected
/// Unix-domain socket `socket`: `(None, uid, gid)` (`getpeereid`, which
/// does not say the process id).
#[cfg(any(
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "openbsd",
    target_os = "netbsd",
    target_os = "dragonfly"
))]
pub(crate) fn peer_credentials(
    socket: std::os::fd::BorrowedFd<'_>,
) -> io::Result<(Option<i32>, u32, u32)> {
    use std::os::fd::AsRawFd;
    let mut uid: libc::uid_t = 0;
    let mut gid: libc::gid_t = 0;
    syscall!(
        // SAFETY: `socket` is an open descriptor borrowed for the call;
        // `uid` and `gid` are valid, exclusively borrowed out-parameters.
        unsafe { libc::getpeereid(socket.as_raw_fd(), &mut uid, &mut gid) }
    )?;
    Ok((None, uid, gid))
}

/// `buf` as the possibly-uninitialized buffer `socket2`'s receive calls
/// take.
///
/// Sound because those calls only ever store bytes the kernel wrote into
/// it (never an uninitialized value), so every byte of `buf` stays
/// initialized for its owner.
pub(crate) fn as_uninit(buf: &mut [u8]) -> &mut [std::mem::MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`, so the slice has
    // the same address and length; the borrow of `buf` lasts as long as
    // the result. The callee writes only initialized bytes (see above).
    unsafe { &mut *(std::ptr::from_mut::<[u8]>(buf) as *mut [std::mem::MaybeUninit<u8>]) }
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

    /// The generic path: the reader gets zeroed memory (never the stale
    /// bytes a cleared buffer still holds), at most `max` of it, and the
    /// buffer moves past what it read; `Pending` and errors move nothing.
    #[cfg(feature = "bytes")]
    #[test]
    fn reads_into_zeroed_spare_capacity_advance_past_what_was_read() {
        use bytes::BufMut;
        use std::task::Poll;
        let mut buf = bytes::BytesMut::with_capacity(64);
        buf.put_bytes(0xee, 40);
        buf.truncate(2);
        let poll = read_into_zeroed_spare(&mut buf, 8, |dst| {
            assert_eq!(dst, [0; 8]);
            dst[..3].copy_from_slice(b"cde");
            Poll::Ready(Ok(3))
        });
        assert!(matches!(poll, Poll::Ready(Ok(3))));
        assert_eq!(&buf[..], [0xee, 0xee, b'c', b'd', b'e']);

        let poll = read_into_zeroed_spare(&mut buf, 8, |dst| {
            dst.fill(1);
            Poll::Pending
        });
        assert!(poll.is_pending());
        let poll = read_into_zeroed_spare(&mut buf, 8, |dst| {
            dst.fill(1);
            Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()))
        });
        assert!(matches!(poll, Poll::Ready(Err(_))));
        assert_eq!(buf.len(), 5, "nothing read, nothing advanced");

        // A slice as the buffer: filled from the front, then no room.
        let mut storage = [9u8; 4];
        let mut room: &mut [u8] = &mut storage;
        let poll = read_into_zeroed_spare(&mut room, 64, |dst| {
            assert_eq!(dst, [0; 4]);
            dst[..2].copy_from_slice(b"xy");
            Poll::Ready(Ok(2))
        });
        assert!(matches!(poll, Poll::Ready(Ok(2))));
        assert_eq!(room.len(), 2);
        assert_eq!(storage, [b'x', b'y', 0, 0]);
    }

    /// The kernel path's core: the buffer moves past exactly the bytes
    /// the receive reported, over uninitialised capacity.
    #[cfg(feature = "bytes")]
    #[test]
    fn receiving_into_spare_capacity_advances_past_what_arrived() {
        let mut buf: Vec<u8> = Vec::with_capacity(16);
        buf.push(b'>');
        // SAFETY: the closure reads nothing, writes only initialised
        // bytes, and reports the 4 it wrote at the front.
        let received = unsafe {
            receive_into_spare(&mut buf, |spare| {
                for (slot, &byte) in spare.iter_mut().zip(b"wxyz") {
                    slot.write(byte);
                }
                Ok((4, "sender"))
            })
        };
        assert_eq!(received.unwrap(), (4, "sender"));
        assert_eq!(buf, b">wxyz");
        // SAFETY: the closure touches nothing.
        let failed = unsafe {
            receive_into_spare(&mut buf, |_| -> io::Result<(usize, ())> {
                Err(io::ErrorKind::WouldBlock.into())
            })
        };
        assert_eq!(failed.unwrap_err().kind(), io::ErrorKind::WouldBlock);
        assert_eq!(buf, b">wxyz");
    }

    /// `recv_buf` and `recv_buf_from` on real sockets: the kernel fills
    /// the spare capacity, a datagram longer than it is cut.
    #[cfg(feature = "bytes")]
    #[test]
    // Miri does not run `recv(2)`.
    #[cfg_attr(miri, ignore)]
    fn kernel_receives_fill_spare_capacity() {
        use std::os::fd::AsRawFd;
        let (mut a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        a.write_all(b"stream").unwrap();
        let mut buf = bytes::BytesMut::with_capacity(64);
        assert_eq!(recv_buf(b.as_raw_fd(), &mut buf).unwrap(), 6);
        assert_eq!(&buf[..], b"stream");

        let (a, b) = std::os::unix::net::UnixDatagram::pair().unwrap();
        a.send(b"datagram").unwrap();
        let mut storage = [0u8; 4];
        let mut room: &mut [u8] = &mut storage;
        let (n, _from) = recv_buf_from(socket2::SockRef::from(&b), &mut room).unwrap();
        assert_eq!((n, room.len()), (4, 0));
        assert_eq!(&storage, b"data");
    }
}
