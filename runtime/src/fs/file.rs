//! `File`: an open file whose reads, writes and seeks run on the blocking
//! pool.
//!
//! At most one blocking operation is in flight per file. The file keeps
//! one buffer that travels with that operation:
//! 1. a read fills it with up to 2 MiB (at most the caller's buffer size)
//!    and serves the caller from it; later reads drain it first;
//! 2. a write copies up to 2 MiB into it and returns at once (the write
//!    completes in the background); its error, if any, is returned by the
//!    next write, flush, sync or `File::seek`; a read or a bare
//!    `poll_seek` waits for the write and keeps its error for them (as
//!    tokio's read and seek do), so a caller that drops a seek's result
//!    does not drop the write's error with it. Its job is mandatory
//!    (`blocking/mandatory.rs`), as tokio's: once the write returned `Ok`
//!    it is made even if the runtime shuts down before a pool thread takes
//!    it (the pool then makes it as it drops the job, on the thread
//!    shutting down), and if the pool, shut down, refuses it, the write
//!    fails with the shutdown error and writes nothing. The other
//!    operations are not mandatory: queued at shutdown, they are dropped;
//! 3. unread bytes make the OS position run ahead of the logical one, so a
//!    write, seek or `set_len` first moves the OS position back by that
//!    many bytes and drops them;
//! 4. `read_to_end` is one operation that appends 2 MiB chunks to the
//!    unread bytes (the buffer grows to the rest of the file, sized once
//!    from its length) until a short read shows the end, then moves them
//!    to the caller, without a copy when the caller's vector is empty.
//!    Dropped half-way, it stops after the chunk in progress and leaves
//!    what it read as unread bytes for the next read.
//!
//! The operation in flight also holds the one permit of `idle`, released
//! on the pool thread as soon as the operation is done: methods on `&self`
//! that must come after it (`set_times`, in `file/times.rs`) wait for that
//! permit, since only `&mut self` can collect the operation's result.
//!
//! The cooperative budget is spent only by the handle of the operation in
//! flight, one unit when it yields the result (as tokio's file): a read
//! served from the buffer and a write that starts at once spend none.

mod buf_size;
mod conversions;
mod seek;
mod times;

use crate::blocking::{IoJob, join_job};
use crate::fs::OpenOptions;
use crate::fs::blocking_io::{MAX_CHUNK, SetOnDrop, read_chunks, spawn_fs, spawn_fs_mandatory};
use crate::sync::Semaphore;
use futures_io::{AsyncRead, AsyncSeek, AsyncWrite};
use std::fmt;
use std::fs::{File as StdFile, Metadata, Permissions};
use std::future::Future;
use std::io::{self, IoSlice, Read, Seek, SeekFrom, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::task::{Context, Poll, ready};

/// An open file, read and written asynchronously through
/// [`futures_io::AsyncRead`], [`AsyncWrite`] and [`AsyncSeek`] (use the
/// extension traits in [`rt::io`](crate::io)).
///
/// Writes are buffered: `write` returns once the data is copied, so call
/// [`flush`](crate::io::AsyncWriteExt::flush) (or
/// [`sync_all`](File::sync_all)) to learn whether it reached the file. A
/// file dropped with a write in flight finishes that write in the
/// background.
///
/// A write that returned `Ok` is made even if the runtime shuts down
/// before the blocking pool got to it, as tokio's: the thread shutting the
/// runtime down makes it (so even
/// [`shutdown_background`](crate::runtime::Runtime::shutdown_background)
/// waits for it), and a later `flush` reports its result. A write started
/// after the runtime shut down fails with the shutdown error
/// ([`is_rt_shutdown_err`](crate::runtime::is_rt_shutdown_err)) and
/// writes nothing. Other operations still queued at shutdown are
/// cancelled, and fail with that error.
///
/// As tokio's, an operation spends a unit of the task's cooperative budget
/// only when it waited for a blocking job (a read that had to fetch, a
/// write behind another): a read served from bytes already fetched, or a
/// write handed to the pool at once, spends none.
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let path = std::env::temp_dir().join(format!("rt-file-doc-{}", std::process::id()));
/// let mut file = rt::fs::File::create(&path).await.unwrap();
/// file.write_all(b"hello file").await.unwrap();
/// file.sync_all().await.unwrap();
///
/// let mut contents = String::new();
/// rt::fs::File::open(&path).await.unwrap().read_to_string(&mut contents).await.unwrap();
/// assert_eq!(contents, "hello file");
/// # rt::fs::remove_file(&path).await.unwrap();
/// # });
/// ```
pub struct File {
    std: Arc<StdFile>,
    state: State,
    /// The error of a background write, for the next operation to report.
    last_write_err: Option<io::Error>,
    /// The target of the seek in flight, as its caller gave it; `None`
    /// when no seek is in flight (cleared whenever an operation is
    /// collected). A `poll_seek` for another target is a new seek, not the
    /// one a dropped future left behind.
    seeking: Option<SeekFrom>,
    /// One permit, held by the operation in flight (see the module docs).
    idle: Arc<Semaphore>,
    /// The most one `poll_read` or `poll_write` moves (`set_max_buf_size`).
    max_buf_size: usize,
}

enum State {
    /// No operation in flight; the buffer (absent only after a failed
    /// join) may hold unread bytes.
    Idle(Option<Buf>),
    Busy(IoJob<(Operation, Buf)>),
}

enum Operation {
    Read(io::Result<usize>),
    /// A `read_to_end`: `Ok(true)` once the end of the file was seen,
    /// `Ok(false)` if stopped before it because its future was dropped.
    Fill(io::Result<bool>),
    Write(io::Result<()>),
    Seek(io::Result<u64>),
    /// A `set_len`; its error is lost if its future was dropped.
    SetLen(io::Result<()>),
}

#[derive(Default)]
struct Buf {
    data: Vec<u8>,
    /// How much of `data` the caller has consumed (reads only).
    pos: usize,
}

impl Buf {
    fn unread(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Copies unread bytes into the front of `dst`, which may be
    /// uninitialised; returns how many.
    fn copy_to(&mut self, dst: &mut [std::mem::MaybeUninit<u8>]) -> usize {
        let n = self.unread().min(dst.len());
        let src = &self.data[self.pos..self.pos + n];
        // SAFETY: `MaybeUninit<u8>` has `u8`'s layout, and a shared slice
        // cannot de-initialise anything.
        let src =
            unsafe { &*(std::ptr::from_ref::<[u8]>(src) as *const [std::mem::MaybeUninit<u8>]) };
        dst[..n].copy_from_slice(src);
        self.pos += n;
        n
    }

    fn copy_from(&mut self, src: &[u8], max: usize) -> usize {
        self.copy_from_slices(&[IoSlice::new(src)], max)
    }

    /// Copies the slices, in order, up to `max` bytes in all; returns how
    /// many.
    fn copy_from_slices(&mut self, srcs: &[IoSlice<'_>], max: usize) -> usize {
        self.clear();
        for src in srcs {
            let room = max - self.data.len();
            if room == 0 {
                break;
            }
            self.data.extend_from_slice(&src[..src.len().min(room)]);
        }
        self.data.len()
    }

    /// Drops the unread bytes; returns how far to move the OS position
    /// back (a negative offset) to match the logical position.
    fn discard_unread(&mut self) -> i64 {
        let rewind = -(self.unread() as i64);
        self.clear();
        rewind
    }

    fn clear(&mut self) {
        self.data.clear();
        self.pos = 0;
    }

    fn read_from(&mut self, file: &StdFile, max: usize) -> io::Result<usize> {
        self.pos = 0;
        self.data.resize(max, 0);
        let result = loop {
            match (&*file).read(&mut self.data) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                result => break result,
            }
        };
        self.data.truncate(*result.as_ref().unwrap_or(&0));
        result
    }

    /// Appends chunks of up to `MAX_CHUNK` bytes to the unread ones until
    /// the end of the file (`Ok(true)`) or until `stop` is set, checked
    /// between chunks (`Ok(false)`). On error the bytes read before it stay
    /// (`read_to_end` keeps them).
    fn fill_from(&mut self, file: &StdFile, stop: &AtomicBool) -> io::Result<bool> {
        if self.unread() == 0 {
            self.clear();
        }
        // Room for the rest of the file at once, so the buffer is not
        // regrown (and copied) chunk after chunk. Only a hint: the file may
        // change meanwhile. Pipes, FIFOs and devices have no length (and
        // no position to subtract) to size it from.
        let metadata = file.metadata()?;
        let rest = if metadata.is_file() {
            let mut reader = file;
            metadata.len().saturating_sub(reader.stream_position()?)
        } else {
            0
        };
        let rest = usize::try_from(rest).unwrap_or(usize::MAX);
        self.data
            .try_reserve(rest)
            .map_err(|_| io::Error::from(io::ErrorKind::OutOfMemory))?;
        read_chunks(file, &mut self.data, stop)
    }

    /// Moves the unread bytes to the end of `dst`; returns how many.
    fn drain_into(&mut self, dst: &mut Vec<u8>) -> usize {
        let n = self.unread();
        if dst.is_empty() && self.pos == 0 {
            // The whole buffer is the caller's: hand it over, keep theirs.
            std::mem::swap(&mut self.data, dst);
        } else {
            dst.extend_from_slice(&self.data[self.pos..]);
        }
        self.clear();
        n
    }

    fn write_to(&mut self, file: &StdFile) -> io::Result<()> {
        let result = (&*file).write_all(&self.data[self.pos..]);
        self.clear();
        result
    }
}

impl File {
    /// Opens a file for reading.
    ///
    /// # Errors
    ///
    /// The error of the `open` call, with the path in its message.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let err = rt::fs::File::open("/no/such/file").await.unwrap_err();
    /// assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    /// # });
    /// ```
    pub async fn open(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new().read(true).open(path).await
    }

    /// Opens a file for writing, creating it or truncating it.
    ///
    /// # Errors
    ///
    /// The error of the `open` call, with the path in its message.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let path = std::env::temp_dir().join(format!("rt-create-doc-{}", std::process::id()));
    /// let file = rt::fs::File::create(&path).await.unwrap();
    /// assert_eq!(file.metadata().await.unwrap().len(), 0);
    /// # rt::fs::remove_file(&path).await.unwrap();
    /// # });
    /// ```
    pub async fn create(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .await
    }

    /// Creates a new file for reading and writing, failing if it exists
    /// already (`O_CREAT | O_EXCL`, so two racing creators cannot both
    /// succeed).
    ///
    /// # Errors
    ///
    /// The error of the `open` call, with the path in its message:
    /// [`AlreadyExists`](io::ErrorKind::AlreadyExists) if the file exists.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let path = std::env::temp_dir().join(format!("rt-create-new-doc-{}", std::process::id()));
    /// let file = rt::fs::File::create_new(&path).await.unwrap();
    /// let again = rt::fs::File::create_new(&path).await.unwrap_err();
    /// assert_eq!(again.kind(), std::io::ErrorKind::AlreadyExists);
    /// # drop(file);
    /// # rt::fs::remove_file(&path).await.unwrap();
    /// # });
    /// ```
    pub async fn create_new(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .await
    }

    /// Options to open a file with; see [`OpenOptions`].
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let file = rt::fs::File::options().read(true).open("Cargo.toml").await.unwrap();
    /// # drop(file);
    /// # });
    /// ```
    pub fn options() -> OpenOptions {
        OpenOptions::new()
    }

    /// Wraps an open `std` file.
    ///
    /// # Examples
    ///
    /// ```
    /// let std = std::fs::File::open("Cargo.toml").unwrap();
    /// let file = rt::fs::File::from_std(std);
    /// # drop(file);
    /// ```
    pub fn from_std(std: StdFile) -> File {
        File {
            std: Arc::new(std),
            state: State::Idle(Some(Buf::default())),
            last_write_err: None,
            seeking: None,
            idle: Arc::new(Semaphore::new(1)),
            max_buf_size: MAX_CHUNK,
        }
    }

    /// Waits for buffered writes, then flushes the file's data and
    /// metadata to the storage device.
    ///
    /// # Errors
    ///
    /// The error of a buffered write, or of the `fsync` call.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let path = std::env::temp_dir().join(format!("rt-sync-doc-{}", std::process::id()));
    /// let mut file = rt::fs::File::create(&path).await.unwrap();
    /// file.write_all(b"durable").await.unwrap();
    /// file.sync_all().await.unwrap();
    /// # rt::fs::remove_file(&path).await.unwrap();
    /// # });
    /// ```
    pub async fn sync_all(&mut self) -> io::Result<()> {
        self.finish_writes().await?;
        let std = self.std.clone();
        join_job(spawn_fs("rt::fs::File::sync_all", move || std.sync_all())?).await
    }

    /// As [`sync_all`](File::sync_all), but may skip metadata that is not
    /// needed to read the data back.
    ///
    /// # Errors
    ///
    /// The error of a buffered write, or of the `fdatasync` call.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let path = std::env::temp_dir().join(format!("rt-sync-data-doc-{}", std::process::id()));
    /// let mut file = rt::fs::File::create(&path).await.unwrap();
    /// file.sync_data().await.unwrap();
    /// # rt::fs::remove_file(&path).await.unwrap();
    /// # });
    /// ```
    pub async fn sync_data(&mut self) -> io::Result<()> {
        self.finish_writes().await?;
        let std = self.std.clone();
        join_job(spawn_fs("rt::fs::File::sync_data", move || {
            std.sync_data()
        })?)
        .await
    }

    /// Truncates or extends the file to `size` bytes, after buffered
    /// writes. The position is unchanged (it may end up past the end).
    /// Dropping the future does not cancel a truncation already started:
    /// the file's next operation (a write, seek or flush) waits for it.
    ///
    /// # Errors
    ///
    /// The error of a buffered write, or of the `ftruncate` call (for
    /// example on a file not opened for writing).
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let path = std::env::temp_dir().join(format!("rt-set-len-doc-{}", std::process::id()));
    /// let mut file = rt::fs::File::create(&path).await.unwrap();
    /// file.set_len(1000).await.unwrap();
    /// assert_eq!(file.metadata().await.unwrap().len(), 1000);
    /// # rt::fs::remove_file(&path).await.unwrap();
    /// # });
    /// ```
    pub async fn set_len(&mut self, size: u64) -> io::Result<()> {
        self.settle().await?;
        // The file's operation in flight, as a write is: if this future is
        // dropped, the next write, seek or flush still waits for the
        // truncation instead of racing it.
        let buf = self.take_buf();
        self.start("rt::fs::File::set_len", buf, move |std, _| {
            Operation::SetLen(std.set_len(size))
        })?;
        std::future::poll_fn(|cx| match ready!(self.poll_complete(cx))? {
            Operation::SetLen(result) => Poll::Ready(result),
            _ => unreachable!("rt: `set_len` collected another operation"),
        })
        .await
    }

    /// The file's metadata. A write still in flight may not be counted in
    /// its length; flush first for an exact size.
    ///
    /// # Errors
    ///
    /// The error of the `fstat` call.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let file = rt::fs::File::open("Cargo.toml").await.unwrap();
    /// assert!(file.metadata().await.unwrap().is_file());
    /// # });
    /// ```
    pub async fn metadata(&self) -> io::Result<Metadata> {
        let std = self.std.clone();
        join_job(spawn_fs("rt::fs::File::metadata", move || std.metadata())?).await
    }

    /// Sets the file's permissions (`fchmod`).
    ///
    /// # Errors
    ///
    /// The error of the `fchmod` call.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let path = std::env::temp_dir().join(format!("rt-file-chmod-doc-{}", std::process::id()));
    /// let file = rt::fs::File::create(&path).await.unwrap();
    /// let mut permissions = file.metadata().await.unwrap().permissions();
    /// permissions.set_readonly(true);
    /// file.set_permissions(permissions).await.unwrap();
    /// assert!(file.metadata().await.unwrap().permissions().readonly());
    /// # rt::fs::remove_file(&path).await.unwrap();
    /// # });
    /// ```
    pub async fn set_permissions(&self, permissions: Permissions) -> io::Result<()> {
        let std = self.std.clone();
        join_job(spawn_fs("rt::fs::File::set_permissions", move || {
            std.set_permissions(permissions)
        })?)
        .await
    }

    /// Waits for buffered writes, then gives back the bytes read ahead: a
    /// seek to the logical position, run as the file's one operation in
    /// flight like any other, drops them and moves the OS position back.
    /// On a file that cannot seek (a pipe) that fails, and those bytes are
    /// lost, as with any seek there.
    async fn settle(&mut self) -> io::Result<()> {
        self.finish_writes().await?;
        if matches!(&self.state, State::Idle(Some(buf)) if buf.unread() > 0) {
            std::future::poll_fn(|cx| Pin::new(&mut *self).poll_seek(cx, SeekFrom::Current(0)))
                .await?;
        }
        Ok(())
    }

    /// A second handle to the same open file (`dup`), sharing its position
    /// and flags, after buffered writes and with the bytes this `File` read
    /// ahead given back (so the clone reads on from the logical position).
    ///
    /// # Errors
    ///
    /// The error of a buffered write, of moving the position back, or of
    /// the `dup` call (for example, too many open files).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncReadExt;
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut file = rt::fs::File::open("Cargo.toml").await.unwrap();
    /// let mut first = [0; 9];
    /// file.read_exact(&mut first).await.unwrap();
    /// let mut clone = file.try_clone().await.unwrap();
    /// let mut next = [0; 1];
    /// clone.read_exact(&mut next).await.unwrap();
    /// assert_eq!(&first, b"[package]");
    /// assert_eq!(&next, b"\n");
    /// # });
    /// ```
    pub async fn try_clone(&mut self) -> io::Result<File> {
        self.settle().await?;
        let std = self.std.clone();
        let clone = join_job(spawn_fs("rt::fs::File::try_clone", move || {
            std.try_clone()
        })?)
        .await?;
        Ok(File::from_std(clone))
    }

    /// The `std` file, after buffered writes, at the logical position
    /// (bytes read ahead are given back).
    ///
    /// # Errors
    ///
    /// The file is closed on any error: that of a buffered write, of
    /// moving the position back (on a pipe, say), or of `dup`, which is
    /// needed only if a blocking job abandoned by a dropped future (a
    /// `metadata` call, say) still holds the file.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let path = std::env::temp_dir().join(format!("rt-into-std-doc-{}", std::process::id()));
    /// let mut file = rt::fs::File::options().read(true).write(true).create(true).truncate(true).open(&path).await.unwrap();
    /// file.write_all(b"written, not flushed").await.unwrap();
    /// let std = file.into_std().await.unwrap();
    /// assert_eq!(std.metadata().unwrap().len(), 20);
    /// # rt::fs::remove_file(&path).await.unwrap();
    /// # });
    /// ```
    pub async fn into_std(mut self) -> io::Result<StdFile> {
        self.settle().await?;
        let std = self.std;
        join_job(spawn_fs("rt::fs::File::into_std", move || {
            Arc::try_unwrap(std).or_else(|shared| shared.try_clone())
        })?)
        .await
    }

    /// Reads from the position to the end of the file, appending to `dst`;
    /// returns how many bytes it read.
    ///
    /// The same contract as
    /// [`AsyncReadExt::read_to_end`](crate::io::AsyncReadExt::read_to_end),
    /// which this method shadows on `File`, but faster: each operation on
    /// one job on the blocking pool reads 2 MiB chunks straight into one
    /// buffer sized from the file's length, instead of a `poll_read` per
    /// chunk through a caller's vector that grows by doubling (and is
    /// zeroed as it grows). The buffer becomes `dst` without a copy when
    /// `dst` is empty.
    ///
    /// Dropping the future loses no data: the job stops after the chunk in
    /// progress, what it read stays buffered in the file, and the next read
    /// returns it.
    ///
    /// # Errors
    ///
    /// The error of a read (bytes read before it stay buffered in the
    /// file), or of a buffered write reported on the way.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut file = rt::fs::File::open("Cargo.toml").await.unwrap();
    /// let mut contents = Vec::new();
    /// let n = file.read_to_end(&mut contents).await.unwrap();
    /// assert_eq!(n, contents.len());
    /// assert!(contents.starts_with(b"[package]"));
    /// # });
    /// ```
    pub async fn read_to_end(&mut self, dst: &mut Vec<u8>) -> io::Result<usize> {
        // One job reads chunk after chunk (a hop back to the task per chunk
        // would cost two cross-thread wake-ups each); it stops between
        // chunks once this future is dropped.
        let stop = Arc::new(AtomicBool::new(false));
        let _stop_on_drop = SetOnDrop(stop.clone());
        std::future::poll_fn(|cx| self.poll_read_to_end(cx, dst, &stop)).await
    }

    /// Reads the rest of the file as UTF-8 and appends it to `dst`; returns
    /// how many bytes it read. Shadows
    /// [`AsyncReadExt::read_to_string`](crate::io::AsyncReadExt::read_to_string)
    /// with the fast path of [`read_to_end`](File::read_to_end).
    ///
    /// # Errors
    ///
    /// As [`read_to_end`](File::read_to_end), and
    /// [`InvalidData`](io::ErrorKind::InvalidData) if the bytes are not
    /// UTF-8 (`dst` is then unchanged, and the bytes are consumed).
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut file = rt::fs::File::open("Cargo.toml").await.unwrap();
    /// let mut text = String::new();
    /// file.read_to_string(&mut text).await.unwrap();
    /// assert!(text.contains("name = \"rt\""));
    /// # });
    /// ```
    pub async fn read_to_string(&mut self, dst: &mut String) -> io::Result<usize> {
        let mut bytes = Vec::new();
        let n = self.read_to_end(&mut bytes).await?;
        let text = String::from_utf8(bytes)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.utf8_error()))?;
        if dst.is_empty() {
            *dst = text;
        } else {
            dst.push_str(&text);
        }
        Ok(n)
    }

    fn poll_read_to_end(
        &mut self,
        cx: &mut Context<'_>,
        dst: &mut Vec<u8>,
        stop: &Arc<AtomicBool>,
    ) -> Poll<io::Result<usize>> {
        loop {
            match &mut self.state {
                State::Idle(_) => {
                    let buf = self.take_buf();
                    let stop = stop.clone();
                    let started = self.start("rt::fs::File::read_to_end", buf, move |std, buf| {
                        Operation::Fill(buf.fill_from(std, &stop))
                    });
                    if let Err(e) = started {
                        return Poll::Ready(Err(e));
                    }
                }
                State::Busy(_) => match ready!(self.poll_complete(cx))? {
                    // A read that came back empty (one of `poll_read`'s,
                    // given up on) also marks the end.
                    Operation::Fill(Ok(true)) | Operation::Read(Ok(0)) => {
                        let State::Idle(Some(buf)) = &mut self.state else {
                            unreachable!("rt: a completed read leaves its buffer");
                        };
                        return Poll::Ready(Ok(buf.drain_into(dst)));
                    }
                    Operation::Fill(Err(e)) | Operation::Read(Err(e)) => {
                        return Poll::Ready(Err(e));
                    }
                    Operation::Write(Err(e)) => self.last_write_err = Some(e),
                    // `Ok(false)`: an earlier `read_to_end`, given up on.
                    Operation::Fill(Ok(false))
                    | Operation::Read(Ok(_))
                    | Operation::Write(Ok(()))
                    | Operation::Seek(_)
                    | Operation::SetLen(_) => {}
                },
            }
        }
    }

    /// Waits for the operation in flight and reports a write error.
    async fn finish_writes(&mut self) -> io::Result<()> {
        std::future::poll_fn(|cx| self.poll_finish_writes(cx)).await
    }

    fn poll_finish_writes(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            match &mut self.state {
                State::Idle(_) => {
                    return Poll::Ready(self.last_write_err.take().map_or(Ok(()), Err));
                }
                State::Busy(_) => {
                    if let Operation::Write(Err(e)) = ready!(self.poll_complete(cx))? {
                        return Poll::Ready(Err(e));
                    }
                }
            }
        }
    }

    /// Polls the operation in flight; once done the file is idle again.
    fn poll_complete(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Operation>> {
        let State::Busy(job) = &mut self.state else {
            unreachable!("rt: `poll_complete` on an idle file");
        };
        let result = ready!(Pin::new(job).poll(cx));
        self.seeking = None;
        Poll::Ready(match result {
            Ok((operation, buf)) => {
                self.state = State::Idle(Some(buf));
                Ok(operation)
            }
            Err(e) => {
                // The operation panicked, or the pool was shut down under
                // us and dropped it unrun (a write ran then, and yields
                // its result); the buffer is lost.
                self.state = State::Idle(None);
                Err(e)
            }
        })
    }

    /// Takes the idle buffer (a fresh one if it was lost).
    fn take_buf(&mut self) -> Buf {
        match &mut self.state {
            State::Idle(buf) => buf.take().unwrap_or_default(),
            State::Busy(_) => unreachable!("rt: took the buffer of a busy file"),
        }
    }

    /// Starts `op`, the operation `name`, on the blocking pool with the
    /// buffer; dropped if still queued at shutdown.
    ///
    /// # Errors
    ///
    /// The OS error if the pool had no thread and could not start one:
    /// `op` never runs, and the buffer (with any bytes read ahead) is lost.
    fn start<F>(&mut self, name: &'static str, buf: Buf, op: F) -> io::Result<()>
    where
        F: FnOnce(&StdFile, &mut Buf) -> Operation + Send + 'static,
    {
        let job = self.job(buf, op);
        self.state = State::Busy(IoJob::Cancellable(spawn_fs(name, job)?));
        Ok(())
    }

    /// Starts the write `op` on the blocking pool with the buffer, as a
    /// mandatory job: made even if the runtime shuts down (step 2).
    ///
    /// # Errors
    ///
    /// The shutdown error if the pool, shut down, refused the job, or the
    /// OS error if it had no thread and could not start one: nothing was
    /// written, and the buffer is lost.
    fn start_write<F>(&mut self, buf: Buf, op: F) -> io::Result<()>
    where
        F: FnOnce(&StdFile, &mut Buf) -> Operation + Send + 'static,
    {
        let job = self.job(buf, op);
        self.state = State::Busy(IoJob::Mandatory(spawn_fs_mandatory(
            "rt::fs::File write",
            job,
        )?));
        Ok(())
    }

    /// The blocking job that runs `op` with the buffer, holding the file's
    /// `idle` permit until `op` is done.
    fn job<F>(&self, mut buf: Buf, op: F) -> impl FnOnce() -> (Operation, Buf) + Send + 'static
    where
        F: FnOnce(&StdFile, &mut Buf) -> Operation + Send + 'static,
    {
        let std = self.std.clone();
        // Free: an operation is started only with none in flight (the file
        // is idle), whose permit was released when it finished, and
        // `set_times`, which holds it while it waits, borrows the file.
        let busy = self
            .idle
            .clone()
            .try_acquire_owned()
            .expect("rt: a `File` operation started while another held the file");
        move || {
            let operation = op(&std, &mut buf);
            // Released here, on the pool thread (or the one that ran a
            // mandatory job at shutdown), before the result is published:
            // a waiter on `&self` may go on at once.
            drop(busy);
            (operation, buf)
        }
    }
}

impl File {
    /// Reads like [`AsyncRead::poll_read`] into memory that may be
    /// uninitialised (a tokio `ReadBuf`'s unfilled part, say): the bytes
    /// the blocking pool read are copied straight into the front of `dst`,
    /// nothing is zeroed first; returns how many (`0`: end of the file, or
    /// an empty `dst`).
    ///
    /// # Errors
    ///
    /// The OS error of the read.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    /// use std::mem::MaybeUninit;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let path = std::env::temp_dir().join(format!("rt-uninit-{}", std::process::id()));
    ///     rt::fs::write(&path, b"abc").await.unwrap();
    ///     let mut file = rt::fs::File::open(&path).await.unwrap();
    ///     let mut buf = [MaybeUninit::<u8>::uninit(); 8];
    ///     let n = poll_fn(|cx| file.poll_read_uninit(cx, &mut buf)).await.unwrap();
    ///     assert_eq!(n, 3);
    ///     rt::fs::remove_file(&path).await.unwrap();
    /// });
    /// ```
    pub fn poll_read_uninit(
        &mut self,
        cx: &mut Context<'_>,
        dst: &mut [std::mem::MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        let me = self;
        if dst.is_empty() {
            return Poll::Ready(Ok(0));
        }
        loop {
            match &mut me.state {
                State::Idle(Some(buf)) if buf.unread() > 0 => {
                    let n = buf.copy_to(dst);
                    return Poll::Ready(Ok(n));
                }
                State::Idle(_) => {
                    let buf = me.take_buf();
                    let max = dst.len().min(me.max_buf_size);
                    let started = me.start("rt::fs::File read", buf, move |std, buf| {
                        Operation::Read(buf.read_from(std, max))
                    });
                    if let Err(e) = started {
                        return Poll::Ready(Err(e));
                    }
                }
                State::Busy(_) => match ready!(me.poll_complete(cx))? {
                    // A `Fill` is a `read_to_end` given up on: its bytes
                    // are unread in the buffer.
                    Operation::Read(Ok(_)) | Operation::Fill(Ok(_)) => {
                        let State::Idle(Some(buf)) = &mut me.state else {
                            unreachable!("rt: a completed read leaves its buffer");
                        };
                        let n = buf.copy_to(dst);
                        return Poll::Ready(Ok(n));
                    }
                    Operation::Read(Err(e)) | Operation::Fill(Err(e)) => {
                        return Poll::Ready(Err(e));
                    }
                    Operation::Write(Err(e)) => me.last_write_err = Some(e),
                    Operation::Write(Ok(())) | Operation::Seek(_) | Operation::SetLen(_) => {}
                },
            }
        }
    }
}

impl File {
    /// A write of the bytes `copy` puts in the file's buffer (at most the
    /// `max` it is given; it returns how many): after the operation in
    /// flight, started as a mandatory job, `Ok` at once.
    fn poll_write_with(
        &mut self,
        cx: &mut Context<'_>,
        copy: impl FnOnce(&mut Buf, usize) -> usize,
    ) -> Poll<io::Result<usize>> {
        loop {
            match &mut self.state {
                State::Idle(_) => {
                    if let Some(e) = self.last_write_err.take() {
                        return Poll::Ready(Err(e));
                    }
                    let mut buf = self.take_buf();
                    let rewind = buf.discard_unread();
                    let n = copy(&mut buf, self.max_buf_size);
                    let started = self.start_write(buf, move |std, buf| {
                        let result = rewind_by(std, rewind);
                        Operation::Write(result.and_then(|()| buf.write_to(std)))
                    });
                    // Refused by a pool shut down: nothing was written.
                    return Poll::Ready(started.map(|()| n));
                }
                State::Busy(_) => {
                    if let Operation::Write(Err(e)) = ready!(self.poll_complete(cx))? {
                        return Poll::Ready(Err(e));
                    }
                }
            }
        }
    }
}

impl AsyncRead for File {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        dst: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .poll_read_uninit(cx, crate::io::sys::as_uninit(dst))
    }
}

impl AsyncWrite for File {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        src: &[u8],
    ) -> Poll<io::Result<usize>> {
        if src.is_empty() {
            return Poll::Ready(Ok(0));
        }
        self.get_mut()
            .poll_write_with(cx, |buf, max| buf.copy_from(src, max))
    }

    /// Takes every slice, up to [`max_buf_size`](File::max_buf_size)
    /// bytes in all, as one write (as tokio's file does), rather than
    /// futures-io's default of the first non-empty slice alone.
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        srcs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if srcs.iter().all(|src| src.is_empty()) {
            return Poll::Ready(Ok(0));
        }
        self.get_mut()
            .poll_write_with(cx, |buf, max| buf.copy_from_slices(srcs, max))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().poll_finish_writes(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().poll_finish_writes(cx)
    }
}

impl AsyncSeek for File {
    /// Seeks after the operation in flight. A seek whose future is dropped
    /// before it completes still moves the position; a later `poll_seek`
    /// for another target waits for it, then seeks from there. (One for the
    /// same target cannot be told from the dropped one polled again: it
    /// takes that seek's result. [`File::seek`], which `file.seek(..)`
    /// calls, waits for the operation in flight first, so its seek is
    /// always its own.)
    ///
    /// The error of a buffered write is not this seek's: the seek is made
    /// and the error kept for the next write, flush or sync, as tokio's
    /// seek keeps it ([`File::seek`] reports it first instead).
    fn poll_seek(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        pos: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        let me = self.get_mut();
        loop {
            match &mut me.state {
                State::Idle(_) => {
                    let mut buf = me.take_buf();
                    // Two steps, not one `lseek` by `offset + rewind`: if
                    // the seek fails, the position must be the logical one
                    // the caller had (the unread bytes are dropped either
                    // way), and the sum may overflow.
                    let rewind = buf.discard_unread();
                    let started = me.start("rt::fs::File seek", buf, move |std, _| {
                        let result = rewind_by(std, rewind).and_then(|()| (&*std).seek(pos));
                        Operation::Seek(result)
                    });
                    if let Err(e) = started {
                        return Poll::Ready(Err(e));
                    }
                    me.seeking = Some(pos);
                }
                State::Busy(_) => {
                    // Read before `poll_complete` clears it.
                    let in_flight = me.seeking;
                    match ready!(me.poll_complete(cx))? {
                        // This seek's own result. A seek for another
                        // target, left by a dropped future, has moved the
                        // position; this one starts next.
                        Operation::Seek(result) if in_flight == Some(pos) => {
                            return Poll::Ready(result);
                        }
                        Operation::Write(Err(e)) => me.last_write_err = Some(e),
                        _ => {}
                    }
                }
            }
        }
    }
}

/// The file's descriptor, for calls rt has no method for (`fstat`,
/// advisory locks, `socket2`-style wrappers). An operation of this `File`
/// may be running on the blocking pool meanwhile, so reading, writing or
/// seeking through the descriptor directly races with it: flush (or let the
/// operation finish) first.
///
/// # Examples
///
/// ```
/// use std::os::fd::{AsFd, AsRawFd};
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let file = rt::fs::File::open("Cargo.toml").await.unwrap();
///     assert!(file.as_raw_fd() >= 0);
///     let copy = file.as_fd().try_clone_to_owned().unwrap();
///     assert!(std::fs::File::from(copy).metadata().unwrap().is_file());
/// });
/// ```
impl AsFd for File {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.std.as_fd()
    }
}

/// As [`AsFd`](#impl-AsFd-for-File).
impl AsRawFd for File {
    fn as_raw_fd(&self) -> RawFd {
        self.std.as_raw_fd()
    }
}

impl fmt::Debug for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("File")
            .field("std", &self.std)
            .field("busy", &matches!(self.state, State::Busy(_)))
            .finish()
    }
}

/// Moves the OS position of `file` by `rewind` (back over bytes read
/// ahead, see `Buf::discard_unread`).
fn rewind_by(file: &StdFile, rewind: i64) -> io::Result<()> {
    if rewind != 0 {
        let mut file = file;
        file.seek(SeekFrom::Current(rewind))?;
    }
    Ok(())
}
