//! Hard and symbolic links.

use crate::fs::blocking_io::{on_path, on_two_paths};
use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};

/// Creates `link`, a new hard link to the file `original` (both on the
/// same file system).
///
/// # Errors
///
/// The error of the `link` call, naming the link, then `original`: for
/// example
/// [`AlreadyExists`](io::ErrorKind::AlreadyExists) if `link` exists.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let dir = std::env::temp_dir();
/// let (a, b) = (dir.join(format!("rt-ln-a-{}", std::process::id())), dir.join(format!("rt-ln-b-{}", std::process::id())));
/// rt::fs::write(&a, "shared").await.unwrap();
/// rt::fs::hard_link(&a, &b).await.unwrap();
/// rt::fs::remove_file(&a).await.unwrap();
/// assert_eq!(rt::fs::read_to_string(&b).await.unwrap(), "shared");
/// # rt::fs::remove_file(&b).await.unwrap();
/// # });
/// ```
pub async fn hard_link(original: impl AsRef<Path>, link: impl AsRef<Path>) -> io::Result<()> {
    on_two_paths(
        link.as_ref(),
        original.as_ref(),
        "rt::fs::hard_link",
        "could not create hard link",
        |link, original| std::fs::hard_link(original, link),
    )
    .await
}

/// Creates `link`, a symbolic link pointing at `original` (which need not
/// exist; a relative `original` is resolved from `link`'s directory).
///
/// # Errors
///
/// The error of the `symlink` call, naming the link, then `original`: for
/// example
/// [`AlreadyExists`](io::ErrorKind::AlreadyExists) if `link` exists.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let link = std::env::temp_dir().join(format!("rt-symlink-doc-{}", std::process::id()));
/// rt::fs::symlink("target/elsewhere", &link).await.unwrap();
/// assert_eq!(rt::fs::read_link(&link).await.unwrap(), std::path::Path::new("target/elsewhere"));
/// # rt::fs::remove_file(&link).await.unwrap();
/// # });
/// ```
#[cfg(unix)]
pub async fn symlink(original: impl AsRef<Path>, link: impl AsRef<Path>) -> io::Result<()> {
    on_two_paths(
        link.as_ref(),
        original.as_ref(),
        "rt::fs::symlink",
        "could not create symbolic link",
        |link, original| std::os::unix::fs::symlink(original, link),
    )
    .await
}

/// Where the symbolic link `path` points, as stored in the link (not
/// resolved).
///
/// # Errors
///
/// The error of the `readlink` call, with the path in its message: for
/// example [`InvalidInput`](io::ErrorKind::InvalidInput) if `path` is not
/// a symbolic link.
///
/// # Examples
///
/// See [`symlink`].
pub async fn read_link(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    on_path(
        path.as_ref(),
        "rt::fs::read_link",
        "could not read the link",
        |path| std::fs::read_link(path),
    )
    .await
}

/// The metadata of `path` itself: for a symbolic link, the link's, not
/// its target's (compare [`metadata`](crate::fs::metadata)).
///
/// # Errors
///
/// The error of the `lstat` call, with the path in its message.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let link = std::env::temp_dir().join(format!("rt-lstat-doc-{}", std::process::id()));
/// rt::fs::symlink("/", &link).await.unwrap();
/// assert!(rt::fs::symlink_metadata(&link).await.unwrap().file_type().is_symlink());
/// assert!(rt::fs::metadata(&link).await.unwrap().is_dir());
/// # rt::fs::remove_file(&link).await.unwrap();
/// # });
/// ```
pub async fn symlink_metadata(path: impl AsRef<Path>) -> io::Result<Metadata> {
    on_path(
        path.as_ref(),
        "rt::fs::symlink_metadata",
        "could not lstat",
        |path| std::fs::symlink_metadata(path),
    )
    .await
}
