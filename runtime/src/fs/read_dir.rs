//! `read_dir`: the entries of a directory, fetched in batches on the
//! blocking pool.

use crate::fs::blocking_io::{path_error, run, spawn_fs};
use crate::task::JoinHandle;
use futures_util::Stream;
use std::collections::VecDeque;
use std::ffi::OsString;
use std::fmt;
use std::fs::{FileType, Metadata};
use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

/// Entries fetched per blocking call.
const BATCH: usize = 32;

/// Opens a directory for listing; the entries come from
/// [`ReadDir::next_entry`] or the [`Stream`] implementation, in no
/// particular order, without `.` and `..`.
///
/// # Errors
///
/// The error of opening the directory (for example
/// [`NotFound`](io::ErrorKind::NotFound)), with the path in its message.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let dir = std::env::temp_dir().join(format!("rt-read-dir-doc-{}", std::process::id()));
/// rt::fs::create_dir_all(&dir).await.unwrap();
/// rt::fs::write(dir.join("a.txt"), "a").await.unwrap();
/// let mut entries = rt::fs::read_dir(&dir).await.unwrap();
/// let entry = entries.next_entry().await.unwrap().unwrap();
/// assert_eq!(entry.file_name(), "a.txt");
/// assert!(entries.next_entry().await.unwrap().is_none());
/// # rt::fs::remove_dir_all(&dir).await.unwrap();
/// # });
/// ```
pub async fn read_dir(path: impl AsRef<Path>) -> io::Result<ReadDir> {
    let path = path.as_ref().to_owned();
    // The first batch comes with the open, as tokio's: one trip to the
    // pool fewer, and its entries are ready (so spend no budget).
    let batch = run("rt::fs::read_dir", move || {
        let dir = std::fs::read_dir(&path)
            .map_err(|e| path_error("could not read directory", &path, e))?;
        let entries = VecDeque::with_capacity(BATCH);
        Ok(Batch {
            dir,
            entries,
            at_end: false,
        }
        .fill())
    })
    .await?;
    Ok(ReadDir {
        state: State::Idle(Some(batch)),
    })
}

/// A directory being listed; see [`read_dir`].
///
/// # Examples
///
/// ```
/// use futures_util::TryStreamExt;
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let entries: Vec<rt::fs::DirEntry> = rt::fs::read_dir(".").await.unwrap().try_collect().await.unwrap();
/// assert!(entries.iter().any(|e| e.file_name() == "Cargo.toml"));
/// # });
/// ```
pub struct ReadDir {
    state: State,
}

enum State {
    /// `None` once listing is over (or the pool was shut down).
    Idle(Option<Batch>),
    Busy(JoinHandle<Batch>),
}

struct Batch {
    dir: std::fs::ReadDir,
    entries: VecDeque<io::Result<DirEntry>>,
    at_end: bool,
}

impl Batch {
    fn fill(mut self) -> Batch {
        for _ in 0..BATCH {
            match self.dir.next() {
                Some(entry) => self.entries.push_back(entry.map(DirEntry::new)),
                None => {
                    self.at_end = true;
                    break;
                }
            }
        }
        self
    }
}

impl ReadDir {
    /// The next entry, or `None` when every entry was returned.
    ///
    /// Entries are fetched 32 at a time on the blocking pool. As tokio's,
    /// only a call that waited for a fetch spends a unit of the task's
    /// cooperative budget (its job's handle spends it); one served from
    /// the fetched entries spends none.
    ///
    /// # Errors
    ///
    /// The error of reading the directory.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut entries = rt::fs::read_dir(".").await.unwrap();
    /// let mut count = 0;
    /// while let Some(_entry) = entries.next_entry().await.unwrap() {
    ///     count += 1;
    /// }
    /// assert!(count > 0);
    /// # });
    /// ```
    pub async fn next_entry(&mut self) -> io::Result<Option<DirEntry>> {
        std::future::poll_fn(|cx| self.poll_next_entry(cx)).await
    }

    /// Polls for the next entry: the poll form of
    /// [`next_entry`](ReadDir::next_entry).
    ///
    /// # Errors
    ///
    /// The error of reading the directory.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut entries = rt::fs::read_dir(".").await.unwrap();
    /// let first = std::future::poll_fn(|cx| entries.poll_next_entry(cx)).await.unwrap();
    /// assert!(first.is_some());
    /// # });
    /// ```
    pub fn poll_next_entry(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<DirEntry>>> {
        loop {
            match &mut self.state {
                State::Idle(None) => return Poll::Ready(Ok(None)),
                State::Idle(Some(batch)) => {
                    if let Some(entry) = batch.entries.pop_front() {
                        return Poll::Ready(entry.map(Some));
                    }
                    if batch.at_end {
                        self.state = State::Idle(None);
                        return Poll::Ready(Ok(None));
                    }
                    let State::Idle(Some(batch)) =
                        std::mem::replace(&mut self.state, State::Idle(None))
                    else {
                        unreachable!()
                    };
                    // On error the directory's handle, in the batch, is
                    // gone with the job: the listing ends with the error.
                    self.state = State::Busy(spawn_fs("rt::fs::ReadDir::next_entry", move || {
                        batch.fill()
                    })?);
                }
                State::Busy(handle) => match ready!(Pin::new(handle).poll(cx)) {
                    Ok(batch) => self.state = State::Idle(Some(batch)),
                    Err(join_error) => {
                        self.state = State::Idle(None);
                        return Poll::Ready(Err(crate::blocking::job_error(join_error)));
                    }
                },
            }
        }
    }
}

impl Stream for ReadDir {
    type Item = io::Result<DirEntry>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut().poll_next_entry(cx).map(Result::transpose)
    }
}

impl fmt::Debug for ReadDir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadDir").finish_non_exhaustive()
    }
}

/// One entry of a directory listing.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut entries = rt::fs::read_dir(".").await.unwrap();
/// while let Some(entry) = entries.next_entry().await.unwrap() {
///     if entry.file_name() == "Cargo.toml" {
///         assert!(entry.file_type().await.unwrap().is_file());
///         assert!(entry.metadata().await.unwrap().len() > 0);
///         assert!(entry.path().ends_with("Cargo.toml"));
///     }
/// }
/// # });
/// ```
#[derive(Clone)]
pub struct DirEntry {
    std: Arc<std::fs::DirEntry>,
    /// The type as the listing gave it, learnt on the blocking thread that
    /// read the batch: free where the OS reports it (`d_type`), an `lstat`
    /// there otherwise. `None` if that failed: `file_type` then asks again.
    file_type: Option<FileType>,
}

impl DirEntry {
    /// Runs on the blocking pool, with the batch.
    fn new(std: std::fs::DirEntry) -> DirEntry {
        DirEntry {
            file_type: std.file_type().ok(),
            std: Arc::new(std),
        }
    }

    /// The entry's full path (the directory's path joined with the name).
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let entry = rt::fs::read_dir(".").await.unwrap().next_entry().await.unwrap().unwrap();
    /// assert_eq!(entry.path(), std::path::Path::new(".").join(entry.file_name()));
    /// # });
    /// ```
    pub fn path(&self) -> PathBuf {
        self.std.path()
    }

    /// The entry's name within its directory.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let entry = rt::fs::read_dir(".").await.unwrap().next_entry().await.unwrap().unwrap();
    /// assert!(!entry.file_name().is_empty());
    /// # });
    /// ```
    pub fn file_name(&self) -> OsString {
        self.std.file_name()
    }

    /// The entry's inode number, as the directory listing gave it (no
    /// system call).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::os::unix::fs::MetadataExt;
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut entries = rt::fs::read_dir(".").await.unwrap();
    /// while let Some(entry) = entries.next_entry().await.unwrap() {
    ///     if entry.file_name() == "Cargo.toml" {
    ///         assert_eq!(entry.ino(), entry.metadata().await.unwrap().ino());
    ///     }
    /// }
    /// # });
    /// ```
    #[cfg(unix)]
    pub fn ino(&self) -> u64 {
        std::os::unix::fs::DirEntryExt::ino(&*self.std)
    }

    /// The entry's metadata, not following a symbolic link.
    ///
    /// # Errors
    ///
    /// The error of the `stat` call, with the path in its message.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let entry = rt::fs::read_dir(".").await.unwrap().next_entry().await.unwrap().unwrap();
    /// let metadata = entry.metadata().await.unwrap();
    /// assert_eq!(metadata.is_dir(), entry.file_type().await.unwrap().is_dir());
    /// # });
    /// ```
    pub async fn metadata(&self) -> io::Result<Metadata> {
        let entry = self.std.clone();
        run("rt::fs::DirEntry::metadata", move || {
            entry
                .metadata()
                .map_err(|e| path_error("could not stat", &entry.path(), e))
        })
        .await
    }

    /// The entry's file type, not following a symbolic link. Where the
    /// directory listing reports types (most Linux file systems) it was
    /// learnt with the entry, and this needs no system call and no trip
    /// to the blocking pool.
    ///
    /// # Errors
    ///
    /// The error of the `stat` call, with the path in its message.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let entry = rt::fs::read_dir(".").await.unwrap().next_entry().await.unwrap().unwrap();
    /// let kind = entry.file_type().await.unwrap();
    /// assert!(kind.is_file() || kind.is_dir() || kind.is_symlink());
    /// # });
    /// ```
    pub async fn file_type(&self) -> io::Result<FileType> {
        if let Some(file_type) = self.file_type {
            return Ok(file_type);
        }
        let entry = self.std.clone();
        run("rt::fs::DirEntry::file_type", move || {
            entry
                .file_type()
                .map_err(|e| path_error("could not stat", &entry.path(), e))
        })
        .await
    }
}

impl fmt::Debug for DirEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("DirEntry").field(&self.std.path()).finish()
    }
}
