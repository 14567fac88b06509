//! Whole-file and path operations.

use crate::fs::blocking_io::{SetOnDrop, on_path, on_two_paths, path_error, read_chunks, run};
use std::fs::{File as StdFile, Metadata, Permissions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Reads a whole file into a vector, on the blocking pool, in chunks of at
/// most 2 MiB; dropping the future stops the read after the current chunk.
///
/// # Errors
///
/// The error of opening or reading `path` (for example
/// [`NotFound`](io::ErrorKind::NotFound)), with the path in its message.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let path = std::env::temp_dir().join(format!("rt-read-doc-{}", std::process::id()));
/// rt::fs::write(&path, [1u8, 2, 3]).await.unwrap();
/// assert_eq!(rt::fs::read(&path).await.unwrap(), [1, 2, 3]);
/// # rt::fs::remove_file(&path).await.unwrap();
/// # });
/// ```
pub async fn read(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    let path = path.as_ref().to_owned();
    // One blocking job reads chunk after chunk: a hop back to the task per
    // chunk would cost two cross-thread wake-ups each, and move the read
    // between threads and CPUs. It stops between chunks once this future
    // is dropped, so an abandoned read of a huge file does not hold its
    // blocking thread to the end.
    let abandoned = Arc::new(AtomicBool::new(false));
    let _abandon_on_drop = SetOnDrop(abandoned.clone());
    run("rt::fs::read", move || {
        let file = StdFile::open(&path).map_err(|e| path_error("could not open", &path, e))?;
        // The size is a hint: the file may change while we read.
        let size = file.metadata().map_or(0, |m| m.len() as usize);
        let mut data = Vec::new();
        data.try_reserve_exact(size).map_err(|_| {
            path_error(
                "too large to read",
                &path,
                io::ErrorKind::OutOfMemory.into(),
            )
        })?;
        let abandoned_error = || {
            io::Error::new(
                io::ErrorKind::Interrupted,
                "the read was abandoned: its future was dropped",
            )
        };
        if abandoned.load(Ordering::Relaxed) {
            return Err(abandoned_error());
        }
        let finished = read_chunks(&file, &mut data, &abandoned)
            .map_err(|e| path_error("could not read", &path, e))?;
        if finished {
            Ok(data)
        } else {
            Err(abandoned_error())
        }
    })
    .await
}

/// Reads a whole UTF-8 file into a string.
///
/// # Errors
///
/// As [`read`], and [`InvalidData`](io::ErrorKind::InvalidData) if the
/// contents are not UTF-8.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let path = std::env::temp_dir().join(format!("rt-string-doc-{}", std::process::id()));
/// rt::fs::write(&path, "text").await.unwrap();
/// assert_eq!(rt::fs::read_to_string(&path).await.unwrap(), "text");
/// # rt::fs::remove_file(&path).await.unwrap();
/// # });
/// ```
pub async fn read_to_string(path: impl AsRef<Path>) -> io::Result<String> {
    let path = path.as_ref();
    let data = read(path).await?;
    String::from_utf8(data).map_err(|e| {
        path_error(
            "could not read",
            path,
            io::Error::new(io::ErrorKind::InvalidData, e.utf8_error()),
        )
    })
}

/// Creates (or truncates) a file and writes `contents` to it, in one job
/// on the blocking pool. Dropping the future does not stop the job: the
/// file still gets all of `contents` (as with tokio), unless it fails.
///
/// # Errors
///
/// The error of creating or writing `path` (for example
/// [`PermissionDenied`](io::ErrorKind::PermissionDenied)), with the path in
/// its message.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let path = std::env::temp_dir().join(format!("rt-write-doc-{}", std::process::id()));
/// rt::fs::write(&path, b"bytes").await.unwrap();
/// assert_eq!(rt::fs::read(&path).await.unwrap(), b"bytes");
/// # rt::fs::remove_file(&path).await.unwrap();
/// # });
/// ```
pub async fn write(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    let data = contents.as_ref().to_vec();
    // One job for the whole file, as tokio's: it runs to the end even if
    // this future is dropped. Stopping between chunks would leave the file
    // truncated, holding neither the old contents nor the new ones.
    run("rt::fs::write", move || {
        let mut file =
            StdFile::create(&path).map_err(|e| path_error("could not create", &path, e))?;
        file.write_all(&data)
            .map_err(|e| path_error("could not write", &path, e))
    })
    .await
}

/// Copies the contents and permissions of `from` to `to`, replacing `to`;
/// returns the number of bytes copied. One blocking call (the OS copies
/// in-kernel where it can).
///
/// # Errors
///
/// The error of reading `from` or writing `to`, naming both.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let dir = std::env::temp_dir();
/// let (a, b) = (dir.join(format!("rt-copy-a-{}", std::process::id())), dir.join(format!("rt-copy-b-{}", std::process::id())));
/// rt::fs::write(&a, "copy me").await.unwrap();
/// assert_eq!(rt::fs::copy(&a, &b).await.unwrap(), 7);
/// assert_eq!(rt::fs::read_to_string(&b).await.unwrap(), "copy me");
/// # rt::fs::remove_file(&a).await.unwrap();
/// # rt::fs::remove_file(&b).await.unwrap();
/// # });
/// ```
pub async fn copy(from: impl AsRef<Path>, to: impl AsRef<Path>) -> io::Result<u64> {
    on_two_paths(
        from.as_ref(),
        to.as_ref(),
        "rt::fs::copy",
        "could not copy",
        |from, to| std::fs::copy(from, to),
    )
    .await
}

/// Renames `from` to `to`, replacing `to` if it exists (on the same file
/// system).
///
/// # Errors
///
/// The error of the rename, naming both paths.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let dir = std::env::temp_dir();
/// let (a, b) = (dir.join(format!("rt-mv-a-{}", std::process::id())), dir.join(format!("rt-mv-b-{}", std::process::id())));
/// rt::fs::write(&a, "x").await.unwrap();
/// rt::fs::rename(&a, &b).await.unwrap();
/// assert!(rt::fs::metadata(&a).await.is_err());
/// # rt::fs::remove_file(&b).await.unwrap();
/// # });
/// ```
pub async fn rename(from: impl AsRef<Path>, to: impl AsRef<Path>) -> io::Result<()> {
    on_two_paths(
        from.as_ref(),
        to.as_ref(),
        "rt::fs::rename",
        "could not rename",
        |from, to| std::fs::rename(from, to),
    )
    .await
}

/// Removes a file.
///
/// # Errors
///
/// The error of the removal (for example
/// [`NotFound`](io::ErrorKind::NotFound)), with the path in its message.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let path = std::env::temp_dir().join(format!("rt-rm-doc-{}", std::process::id()));
/// rt::fs::write(&path, "").await.unwrap();
/// rt::fs::remove_file(&path).await.unwrap();
/// assert!(rt::fs::remove_file(&path).await.is_err());
/// # });
/// ```
pub async fn remove_file(path: impl AsRef<Path>) -> io::Result<()> {
    on_path(
        path.as_ref(),
        "rt::fs::remove_file",
        "could not remove",
        |path| std::fs::remove_file(path),
    )
    .await
}

/// Creates a directory; its parent must exist.
///
/// # Errors
///
/// The error of creating it, with the path in its message: for example
/// [`AlreadyExists`](io::ErrorKind::AlreadyExists), or
/// [`NotFound`](io::ErrorKind::NotFound) for a missing parent (use
/// [`create_dir_all`] to create those too).
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let dir = std::env::temp_dir().join(format!("rt-create-dir-doc-{}", std::process::id()));
/// rt::fs::create_dir(&dir).await.unwrap();
/// let again = rt::fs::create_dir(&dir).await.unwrap_err();
/// assert_eq!(again.kind(), std::io::ErrorKind::AlreadyExists);
/// # rt::fs::remove_dir(&dir).await.unwrap();
/// # });
/// ```
pub async fn create_dir(path: impl AsRef<Path>) -> io::Result<()> {
    on_path(
        path.as_ref(),
        "rt::fs::create_dir",
        "could not create directory",
        |path| std::fs::create_dir(path),
    )
    .await
}

/// Removes an empty directory.
///
/// # Errors
///
/// The error of removing it, with the path in its message: for example
/// [`NotFound`](io::ErrorKind::NotFound), or
/// [`DirectoryNotEmpty`](io::ErrorKind::DirectoryNotEmpty) (use
/// [`remove_dir_all`] to remove the contents too).
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let dir = std::env::temp_dir().join(format!("rt-remove-dir-doc-{}", std::process::id()));
/// rt::fs::create_dir(&dir).await.unwrap();
/// rt::fs::remove_dir(&dir).await.unwrap();
/// assert!(!rt::fs::try_exists(&dir).await.unwrap());
/// # });
/// ```
pub async fn remove_dir(path: impl AsRef<Path>) -> io::Result<()> {
    on_path(
        path.as_ref(),
        "rt::fs::remove_dir",
        "could not remove directory",
        |path| std::fs::remove_dir(path),
    )
    .await
}

/// Whether `path` exists (following symbolic links): `Ok(false)` only when
/// it is known not to, an error when that cannot be told (for example a
/// parent directory that may not be searched).
///
/// # Errors
///
/// The error of the `stat` call other than
/// [`NotFound`](io::ErrorKind::NotFound), with the path in its message.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// assert!(rt::fs::try_exists(".").await.unwrap());
/// assert!(!rt::fs::try_exists("./no/such/path").await.unwrap());
/// # });
/// ```
pub async fn try_exists(path: impl AsRef<Path>) -> io::Result<bool> {
    on_path(
        path.as_ref(),
        "rt::fs::try_exists",
        "could not check the existence of",
        |path| std::fs::exists(path),
    )
    .await
}

/// Sets the permissions of `path` (following symbolic links).
///
/// # Errors
///
/// The error of the `chmod` call, with the path in its message.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let path = std::env::temp_dir().join(format!("rt-chmod-doc-{}", std::process::id()));
/// rt::fs::write(&path, "x").await.unwrap();
/// let mut permissions = rt::fs::metadata(&path).await.unwrap().permissions();
/// permissions.set_readonly(true);
/// rt::fs::set_permissions(&path, permissions).await.unwrap();
/// assert!(rt::fs::metadata(&path).await.unwrap().permissions().readonly());
/// # rt::fs::remove_file(&path).await.unwrap();
/// # });
/// ```
pub async fn set_permissions(path: impl AsRef<Path>, permissions: Permissions) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    run("rt::fs::set_permissions", move || {
        std::fs::set_permissions(&path, permissions)
            .map_err(|e| path_error("could not set the permissions of", &path, e))
    })
    .await
}

/// Creates a directory and all its missing parents.
///
/// # Errors
///
/// The error of creating a directory on the way, with `path` in its
/// message.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let dir = std::env::temp_dir().join(format!("rt-mkdir-doc-{}", std::process::id()));
/// rt::fs::create_dir_all(dir.join("a/b")).await.unwrap();
/// assert!(rt::fs::metadata(dir.join("a/b")).await.unwrap().is_dir());
/// # rt::fs::remove_dir_all(&dir).await.unwrap();
/// # });
/// ```
pub async fn create_dir_all(path: impl AsRef<Path>) -> io::Result<()> {
    on_path(
        path.as_ref(),
        "rt::fs::create_dir_all",
        "could not create directory",
        |path| std::fs::create_dir_all(path),
    )
    .await
}

/// Removes a directory and everything in it.
///
/// # Errors
///
/// The error of removing an entry, with `path` in its message.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let dir = std::env::temp_dir().join(format!("rt-rmdir-doc-{}", std::process::id()));
/// rt::fs::create_dir_all(dir.join("sub")).await.unwrap();
/// rt::fs::write(dir.join("sub/file"), "x").await.unwrap();
/// rt::fs::remove_dir_all(&dir).await.unwrap();
/// assert!(rt::fs::metadata(&dir).await.is_err());
/// # });
/// ```
pub async fn remove_dir_all(path: impl AsRef<Path>) -> io::Result<()> {
    on_path(
        path.as_ref(),
        "rt::fs::remove_dir_all",
        "could not remove directory",
        |path| std::fs::remove_dir_all(path),
    )
    .await
}

/// The metadata of `path`, following symbolic links.
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
/// let path = std::env::temp_dir().join(format!("rt-meta-doc-{}", std::process::id()));
/// rt::fs::write(&path, "12345").await.unwrap();
/// assert_eq!(rt::fs::metadata(&path).await.unwrap().len(), 5);
/// # rt::fs::remove_file(&path).await.unwrap();
/// # });
/// ```
pub async fn metadata(path: impl AsRef<Path>) -> io::Result<Metadata> {
    on_path(
        path.as_ref(),
        "rt::fs::metadata",
        "could not stat",
        |path| std::fs::metadata(path),
    )
    .await
}

/// The absolute form of `path`, with every symbolic link and `.`/`..`
/// resolved.
///
/// # Errors
///
/// The error of resolving `path` (it must exist), with the path in its
/// message.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let here = rt::fs::canonicalize(".").await.unwrap();
/// assert!(here.is_absolute());
/// # });
/// ```
pub async fn canonicalize(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    on_path(
        path.as_ref(),
        "rt::fs::canonicalize",
        "could not resolve",
        |path| std::fs::canonicalize(path),
    )
    .await
}
